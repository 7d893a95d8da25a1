"""Every ``python`` block of the README runs (``pycon`` blocks are doctests)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks may write files (the scaling-up example does)
    namespace: dict = {}
    exec(compile(BLOCKS[index], f"README block {index}", "exec"), namespace)
