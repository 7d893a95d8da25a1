"""Every ``python`` and ``bash`` block of the README runs (``pycon`` blocks are doctests).

Each block runs in a fresh temporary directory: the files it needs (an answers file, a data
set) are created by the block itself, as a reader running it would have to. The ``ldp`` and
``python`` of the blocks are those of the interpreter running the tests.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
TEXT = README.read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)
BASH = re.findall(r"```bash\n(.*?)```", TEXT, flags=re.S)

#: Bash blocks that are not run, and why: each installs this checkout into the environment
#: (and runs this very test suite, the documentation build or the benchmarks), which a test
#: cannot do to the environment it runs in. CI runs the first one verbatim (``.ci/run``).
NOT_RUN = {
    0: "installs the package and runs the whole suite (CI runs it verbatim: .ci/run)",
    len(BASH) - 1: "the development commands: installs the extras, runs the suite, the docs "
    "build and the benchmarks",
}


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks may write files (the scaling-up example does)
    namespace: dict = {}
    exec(compile(BLOCKS[index], f"README block {index}", "exec"), namespace)


def test_the_blocks_not_run_are_the_install_and_development_commands():
    assert "pip install" in BASH[0] and "python -m pytest" in BASH[0]
    assert "pip install" in BASH[-1] and "python -m pytest" in BASH[-1]
    assert all("pip install" not in BASH[i] for i in range(len(BASH)) if i not in NOT_RUN)


@pytest.mark.slow  # a dozen ldp commands, each a fresh interpreter
@pytest.mark.parametrize("index", [i for i in range(len(BASH)) if i not in NOT_RUN])
def test_readme_bash_block_runs(index, tmp_path):
    env = dict(os.environ)
    # the ldp command and python of this environment, even when it is not activated
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", BASH[index]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"README bash block {index}:\n{done.stdout}\n{done.stderr}"
    assert done.stderr == "", done.stderr  # no warning, no error message
    assert done.stdout.strip()
