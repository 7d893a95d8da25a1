"""The ldp command: report output, JSON, and user errors without tracebacks."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import ldp
from ldp.cli import main


def test_report_table(capsys):
    assert main(["report", "k-rr", "--k", "4", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 inputs x 4 outputs" in out
    assert "epsilon" in out and "eta-TV" in out and "contraction" in out
    assert "seed 001 Thm 5" in out  # the bound that is tight for k-RR's KL coefficient


def test_report_json_matches_the_channel(capsys):
    assert (
        main(
            [
                "report",
                "binary-erasure",
                "--epsilon",
                "1",
                "--delta",
                "0.01",
                "--eta",
                "0.2",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["shape"] == [2, 5]
    assert data["tv"] == pytest.approx(0.2)
    assert data["delta"]["1"] == pytest.approx(0.01)
    assert math.isinf(data["epsilon"])
    rr = ldp.randomized_response(2.0)
    main(["report", "rr", "--epsilon", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["delta"]["1"] == pytest.approx(rr.delta(1.0))
    # RR: KL, chi2 and Hellinger coefficients are tanh(eps/2)^2 (seed 003, corrected (1-2w)^2)
    for kind in ("kl", "chi2", "hellinger"):
        assert data["contraction"][kind]["exact"] == pytest.approx(math.tanh(1.0) ** 2)
        assert data["contraction"][kind]["exact"] <= data["contraction"][kind]["bound"] + 1e-12
    assert data["contraction"]["tv"]["exact"] == pytest.approx(math.tanh(1.0))


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "rr", "--epsilon", "-1"],
        ["report", "k-rr", "--k", "1", "--epsilon", "1"],
        ["report", "nope", "--epsilon", "1"],
        ["report", "rr"],
        ["report", "binary-erasure", "--epsilon", "1", "--eta", "0.9"],
    ],
)
def test_user_errors_exit_2_with_one_line(argv):
    result = subprocess.run(
        [sys.executable, "-m", "ldp", *argv], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 or result.stderr.startswith("usage")
    assert "error" in result.stderr


def test_design_command(capsys, tmp_path):
    out = tmp_path / "q.csv"
    assert (
        main(
            [
                "design",
                "--k",
                "6",
                "--epsilon",
                "1.1",
                "--utility",
                "mi",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(0.1487078233, abs=1e-8)
    assert data["certified"]["epsilon"] <= 1.1
    saved = np.loadtxt(out, delimiter=",")
    assert ldp.Channel(saved).epsilon <= 1.1 + 1e-9
    assert (
        main(
            [
                "design",
                "--k",
                "3",
                "--epsilon",
                "1",
                "--utility",
                "tv",
                "--hypotheses",
                "0.5,0.3,0.2;0.1,0.3,0.6",
            ]
        )
        == 0
    )
    assert "certified epsilon" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["design", "--k", "3", "--epsilon", "1", "--utility", "kl"],
        ["design", "--k", "3", "--epsilon", "1", "--utility", "mi", "--prior", "0.5,x"],
        ["design", "--k", "3", "--epsilon", "1", "--utility", "mi", "--prior", "0.5,0.6,0.1"],
    ],
)
def test_design_user_errors(argv):
    result = subprocess.run(
        [sys.executable, "-m", "ldp", *argv], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
