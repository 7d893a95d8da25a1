"""examples/daily_telemetry.py: its numbers re-accounted independently of the script (the
checks of its output are in :mod:`tests.project.example_outputs`)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

import ldp
from ldp.accounting import compose
from tests.project.example_outputs import (
    DOCS_CHECK,
    check_daily_telemetry,
    run_example,
    skip_when_the_docs_build_checks,
)

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "daily_telemetry.py"


def test_year_without_shuffler_meets_the_policy():
    module = runpy.run_path(str(SCRIPT))
    plain = module["year_without_shuffler"]()
    eps, delta = module["TARGET"]
    assert compose(ldp.k_rr(16, plain["epsilon0"]), 365).delta(eps) <= delta
    assert compose(ldp.k_rr(16, plain["epsilon0"] * 1.001), 365).delta(eps) > delta
    assert plain["deployed_year_epsilon"] > 1000  # 365 reports at epsilon 4, unshuffled


@pytest.mark.slow  # a fresh interpreter and a year of shuffled rounds at 10^6 devices (~20 s)
def test_daily_telemetry_runs(tmp_path, request):
    skip_when_the_docs_build_checks(request, DOCS_CHECK)
    check_daily_telemetry(*run_example("daily_telemetry.py", tmp_path))
