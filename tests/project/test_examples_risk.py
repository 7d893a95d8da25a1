"""examples/risk_vs_achieved.py runs, prints a consistent table and writes its figure."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.project.example_outputs import (
    DOCS_CHECK,
    check_risk_vs_achieved,
    run_example,
    skip_when_the_docs_build_checks,
)

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "risk_vs_achieved.py"


@pytest.mark.slow  # a fresh interpreter (about 2 s)
def test_risk_vs_achieved_runs(tmp_path, request):
    skip_when_the_docs_build_checks(request, DOCS_CHECK)
    check_risk_vs_achieved(*run_example("risk_vs_achieved.py", tmp_path, timeout=300))


def test_table_values_match_the_library():
    from ldp.risk import distribution_estimation, krr_distribution_risk

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import risk_vs_achieved as example
    finally:
        sys.path.remove(str(SCRIPT.parent))
    records = list(example.rows("l2sq"))
    eps, n, lower, achieved = records[0]
    assert lower.value == pytest.approx(distribution_estimation(example.K, n, eps).value)
    assert achieved.value == pytest.approx(krr_distribution_risk(example.K, n, eps).value)
