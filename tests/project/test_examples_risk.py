"""examples/risk_vs_achieved.py runs, prints a consistent table and writes its figure."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "risk_vs_achieved.py"


@pytest.mark.slow  # a fresh interpreter (about 2 s)
def test_risk_vs_achieved_runs(tmp_path):
    figure = tmp_path / "risk.png"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(figure)],
        cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    rows = re.findall(
        r"^\s*([\d.]+)\s+(\d+)\s+([\d.e+-]+)\s+([\d.e+-]+)\s+([\d.]+)\s+([\w-]+)$",
        result.stdout,
        flags=re.MULTILINE,
    )
    assert len(rows) == 2 * 4 * 4  # two losses, four eps, four n
    for _, _, lower, achieved, ratio, route in rows:
        assert 0 < float(lower) < float(achieved)
        assert float(ratio) >= 1.0
        assert route in ("van-trees", "fano", "djw", "phi", "tanh")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "no figure" in result.stdout
    else:
        assert figure.exists() and figure.stat().st_size > 0


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
