# Every ```python block of docs/python.md runs as written (from the repository root, outputs under out/), so the
# API page cannot drift from the module.
import os
import re

import pytest

from conftest import SOURCE_DIR

BLOCKS = re.findall(r"```python\n(.*?)```", (SOURCE_DIR / "docs" / "python.md").read_text(), re.S)


def test_the_page_has_its_examples():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_block_runs(index, capsys):
    cwd = os.getcwd()
    os.chdir(SOURCE_DIR)
    try:
        exec(compile(BLOCKS[index], "docs/python.md block %d" % index, "exec"), {"__name__": "__docs__"})
    finally:
        os.chdir(cwd)
