"""Every script in examples/ runs to completion (each one is a real use of the library)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.project.example_outputs import (
    CHECKS,
    DOCS_CHECK,
    check_contraction_table,
    run_example,
    skip_when_the_docs_build_checks,
)

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
# scripts whose own test (or, in a session with the documentation build, that build) runs them
# the same way (a fresh `python script.py figure.png`) and checks more than the exit code,
# with the checks of tests/project/example_outputs.py: running them here again would only
# cost time
DEDICATED = {
    "contraction_table.py": "test_contraction_table_prints_every_mechanism_and_plots",
    "daily_telemetry.py": "tests/project/test_examples_telemetry.py::test_daily_telemetry_runs",
    "heavy_hitters.py": (
        "tests/project/test_examples_heavy_hitters.py::test_heavy_hitters_example_runs_and_finds_the_top_20"
    ),
    "risk_vs_achieved.py": "tests/project/test_examples_risk.py::test_risk_vs_achieved_runs",
}


def test_every_dedicated_example_exists_and_is_checked():
    assert set(DEDICATED) <= {p.name for p in EXAMPLES}
    assert set(DEDICATED) == set(CHECKS)


#: The documentation build runs every example for its gallery, exactly as below (a fresh
#: ``python script.py figure.png``), and fails on a failing one; tests/project/test_docs.py checks
#: that each printed something.
DOCS_BUILD = "tests/project/test_docs.py::test_every_section_is_built"


@pytest.fixture
def run_here(request) -> None:
    """Skip when this session's documentation build runs the examples (once is enough)."""
    skip_when_the_docs_build_checks(request, DOCS_BUILD)


# each run starts a fresh interpreter and imports the library (>= 1.5 s before any work)
@pytest.mark.slow
@pytest.mark.parametrize(
    "script", [p for p in EXAMPLES if p.name not in DEDICATED], ids=lambda p: p.name
)
def test_example_runs(script, tmp_path, run_here):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path / f"{script.stem}.png")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert result.stdout.strip()


@pytest.mark.slow  # a fresh interpreter, as in test_example_runs
def test_contraction_table_prints_every_mechanism_and_plots(tmp_path, request):
    skip_when_the_docs_build_checks(request, DOCS_CHECK)
    check_contraction_table(*run_example("contraction_table.py", tmp_path, timeout=300))
