"""examples/daily_telemetry.py: its numbers re-accounted independently of the script."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import ldp
from ldp.accounting import compose, shuffle_amplification

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "daily_telemetry.py"


def test_year_without_shuffler_meets_the_policy():
    module = runpy.run_path(str(SCRIPT))
    plain = module["year_without_shuffler"]()
    eps, delta = module["TARGET"]
    assert compose(ldp.k_rr(16, plain["epsilon0"]), 365).delta(eps) <= delta
    assert compose(ldp.k_rr(16, plain["epsilon0"] * 1.001), 365).delta(eps) > delta
    assert plain["deployed_year_epsilon"] > 1000  # 365 reports at epsilon 4, unshuffled


def _value(label: str, text: str) -> float:
    match = re.search(rf"^\s+{re.escape(label)}\s+([\d.]+)", text, flags=re.MULTILINE)
    assert match, label
    return float(match.group(1))


@pytest.mark.slow  # a fresh interpreter and a year of shuffled rounds at 10^6 devices (~20 s)
def test_daily_telemetry_runs(tmp_path):
    figure = tmp_path / "telemetry.png"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(figure)],
        cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    text = result.stdout
    day = _value("one shuffled day", text)
    year = _value("the year (365 shuffled rounds)", text)
    # one shuffled day at epsilon0 = 4: the k-RR clone bound, re-computed here
    mech = ldp.k_rr(16, 4.0)
    assert day == pytest.approx(
        shuffle_amplification(4.0, 10**6, 1e-6, mechanism=mech).epsilon, abs=1e-4
    )
    assert day < year < 1.0 < 365 * day  # composed far below basic composition
    sections = text.split("3. shuffler, calibrated")
    eps0 = _value("per-report epsilon meeting the policy", sections[1])
    plain_eps0 = _value("per-report epsilon meeting the policy", sections[0])
    assert eps0 > 4.0 > 100 * plain_eps0
    assert _value("the year at that epsilon", sections[1]) <= 1.0
    assert _value("noise reduction against no shuffler", text) > 100
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "skipping the figure" in text
    else:
        assert figure.exists() and figure.stat().st_size > 1000
