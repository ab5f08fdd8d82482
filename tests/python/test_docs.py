# Every ```python block of docs/python.md and of the README runs as written (from the repository root, outputs
# under out/), so the pages cannot drift from the module.
import os
import re

import pytest

from conftest import SOURCE_DIR

BLOCKS = [b for page in ("docs/python.md", "README.md")
          for b in re.findall(r"```python\n(.*?)```", (SOURCE_DIR / page).read_text(), re.S)]


def test_the_page_has_its_examples():
    assert len(BLOCKS) >= 9


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_block_runs(index, capsys):
    cwd = os.getcwd()
    os.chdir(SOURCE_DIR)
    try:
        exec(compile(BLOCKS[index], "docs/python.md or README.md, block %d" % index, "exec"), {"__name__": "__docs__"})
    finally:
        os.chdir(cwd)
