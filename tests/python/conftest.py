# pytest set-up of the Python module's tests (ctest runs them: tests/CMakeLists.txt). The module is found through
# PYTHONPATH (ctest sets it to <build>/python); TALUS_SOURCE_DIR and TALUS_SHARED_DIR name the checkout and the
# shared data beside it.
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED_DIR = pathlib.Path(os.environ.get("TALUS_SHARED_DIR", SOURCE_DIR.parent / "shared"))


@pytest.fixture
def source_dir():
    return SOURCE_DIR


@pytest.fixture
def shared_dir():
    # ctest reports a test as skipped when its output holds TALUS_TEST_SKIPPED (tests/CMakeLists.txt).
    if not SHARED_DIR.is_dir():
        pytest.skip("TALUS_TEST_SKIPPED: %s is absent" % SHARED_DIR)
    return SHARED_DIR
