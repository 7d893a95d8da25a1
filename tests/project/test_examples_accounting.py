"""The accounting example script runs and prints the error table and the counterexample."""

import runpy
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "accounting_error_table.py"


@pytest.mark.slow  # the whole script, about 2 s
def test_error_table_example_runs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    text = capsys.readouterr().out
    assert "Edgeworth" in text and "KOV" in text
    assert "violated: True" in text


def test_error_table_bounds_never_negative():
    module = runpy.run_path(str(EXAMPLE))
    rows = module["error_table"](ks=(1, 5))
    # the reference over-states delta by at most k * 1e-4 (pessimistic rounding)
    assert all(min(r["thm2_bound"], r["kov_bound"]) >= -1e-4 * r["k"] for r in rows)
    assert any(r["clt_approx"] < 0 for r in rows)  # the CLT is not a bound
