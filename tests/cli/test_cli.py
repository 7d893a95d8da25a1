"""The ldp command: every subcommand, its numbers against the library, and user errors
(exit code 2, one line, no traceback).

Every case calls ``ldp.cli.main(argv)`` in this process; ``test_console_entry_point`` runs
``python -m ldp`` once as a real subprocess, and the closed-pipe test needs one too."""

import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

import ldp
from ldp import risk
from ldp.accounting import (
    GaussianTradeOff,
    compose,
    compose_eps_delta_eta,
    get_delta_from_gdp,
    get_epsilon_from_gdp,
    get_mu_from_epsilon_delta,
)
from ldp.cli import main
from ldp.mechanisms import GRR, OLH, OUE
from ldp.protocol import Protocol, load, write_reports

# ------------------------------------------------------------------------------------- cases
# `{data}`, `{reports}` and `{missing}` are filled in from the `files` fixture.
SUCCESS = {
    "report": ["report", "k-rr", "--k", "4", "--epsilon", "1", "--json"],
    "design": ["design", "--k", "3", "--epsilon", "1", "--utility", "mi", "--json"],
    "bound": ["bound", "lecam", "bernoulli-mean", "--n", "1000", "--epsilon", "1", "--json"],
    "compose": [
        "account",
        "compose",
        "--mechanism",
        "k-rr",
        "--k",
        "4",
        "--epsilon",
        "1",
        "--folds",
        "10",
        "--delta",
        "1e-5",
        "--json",
    ],
    "gdp": ["account", "gdp", "--mu", "1", "--delta", "1e-5", "--json"],
    "filter": ["account", "filter", "--mu-budget", "1", "--request", "0.6", "0.8", "--json"],
    "estimate": ["estimate", "{data}", "--column", "colour", "--mechanism", "grr", "--epsilon",
                 "1", "--rng", "0", "--json"],
    "table": ["report", "k-rr", "--k", "4", "--epsilon", "1"],
}  # fmt: skip
ERRORS = {
    "no command": [],
    "report negative epsilon": ["report", "rr", "--epsilon", "-1"],
    "report k = 1": ["report", "k-rr", "--k", "1", "--epsilon", "1"],
    "report unknown mechanism": ["report", "nope", "--epsilon", "1"],
    "report without epsilon": ["report", "rr"],
    "report eta too large": ["report", "binary-erasure", "--epsilon", "1", "--eta", "0.9"],
    "design without hypotheses": ["design", "--k", "3", "--epsilon", "1", "--utility", "kl"],
    "design bad prior": ["design", "--k", "3", "--epsilon", "1", "--utility", "mi",
                         "--prior", "0.5,x"],
    "design prior not a pmf": ["design", "--k", "3", "--epsilon", "1", "--utility", "mi",
                               "--prior", "0.5,0.6,0.1"],
    "bound pair that does not exist": ["bound", "fano", "distribution", "--n", "10",
                                       "--epsilon", "1"],
    "bound missing option": ["bound", "lecam", "moment-mean", "--n", "10", "--epsilon", "1"],
    "bound option of another preset": ["bound", "assouad", "distribution", "--k", "4",
                                       "--n", "10", "--epsilon", "1", "--d", "3"],
    "bound n = 0": ["bound", "lecam", "bernoulli-mean", "--n", "0", "--epsilon", "1"],
    "bound fractional n": ["bound", "lecam", "bernoulli-mean", "--n", "1.5", "--epsilon", "1"],
    "bound bad route": ["bound", "lecam", "bernoulli-mean", "--n", "10", "--epsilon", "1",
                        "--route", "nope"],
    "bound fano in low dimension": ["bound", "fano", "ball-mean", "--d", "3", "--n", "10",
                                    "--epsilon", "1"],
    "account without task": ["account"],
    "compose without mechanism": ["account", "compose", "--folds", "3"],
    "compose without epsilon": ["account", "compose", "--mechanism", "rr", "--folds", "3"],
    "compose bad eps-delta-eta": ["account", "compose", "--eps-delta-eta", "1", "x", "0.1",
                                  "--folds", "2"],
    "compose negative folds": ["account", "compose", "--gdp", "1", "--folds", "-2"],
    "gdp negative mu": ["account", "gdp", "--mu", "-1", "--delta", "1e-5"],
    "gdp nothing to do": ["account", "gdp", "--mu", "1"],
    "filter bad request": ["account", "filter", "--mu-budget", "1", "--request", "x:1"],
    "filter bad k": ["account", "filter", "--mu-budget", "1", "--request", "k-rr:1:1"],
    "estimate without data": ["estimate", "--mechanism", "grr", "--epsilon", "1"],
    "estimate missing file": ["estimate", "{missing}", "--column", "c", "--mechanism", "grr",
                              "--epsilon", "1"],
    "estimate missing column": ["estimate", "{data}", "--column", "nope", "--mechanism",
                                "grr", "--epsilon", "1"],
    "estimate reports without protocol": ["estimate", "--reports", "{reports}"],
    "estimate reports of another protocol": ["estimate", "--protocol", "{protocol}",
                                             "{foreign}"],
    "estimate text reports": ["estimate", "--protocol", "{protocol}", "{data}"],
    "estimate protocol and simulation": ["estimate", "--protocol", "{protocol}", "{reports}",
                                         "--epsilon", "1"],
    "estimate truncated protocol": ["estimate", "--protocol", "{truncated}", "{reports}"],
    "report truncated protocol": ["report", "{truncated}"],
    "privatize answers outside the labels": ["privatize", "--protocol", "{protocol}",
                                             "{data}", "--column", "size", "--out", "{out}"],
    "privatize missing answers": ["privatize", "--protocol", "{protocol}", "{data}",
                                  "--column", "colour", "--out", "{out}"],
    "design protocol not decodable": ["design", "--k", "3", "--epsilon", "1", "--utility",
                                      "tv", "--hypotheses", "0.5,0.3,0.2;0.2,0.3,0.5",
                                      "--out", "{out}.json"],
    "design bad out suffix": ["design", "--k", "3", "--epsilon", "1", "--utility", "mi",
                              "--out", "{out}.txt"],
    "design labels without protocol": ["design", "--k", "3", "--epsilon", "1", "--utility",
                                       "mi", "--labels", "a,b,c"],
    "estimate bad confidence": ["estimate", "{data}", "--column", "colour", "--mechanism",
                                "grr", "--epsilon", "1", "--confidence", "1.5"],
    "estimate zero epsilon": ["estimate", "{data}", "--column", "colour", "--mechanism",
                              "oue", "--epsilon", "0"],
    # sizes: refused up front (were MemoryError tracebacks, or 300-digit integers)
    "estimate a 2^40-category protocol": ["estimate", "--protocol", "{huge}", "{huge_reports}"],
    "compose a billion folds": ["account", "compose", "--mechanism", "k-rr", "--k", "4",
                                "--epsilon", "1", "--folds", "1e9"],
    "report a 300-digit k": ["report", "k-rr", "--k", "1e300", "--epsilon", "1"],
    "filter a 300-digit k": ["account", "filter", "--mu-budget", "1", "--request",
                             "k-rr:1e300:1"],
    "design a 300-digit k": ["design", "--k", "1e300", "--epsilon", "1", "--utility", "mi"],
}  # fmt: skip


def _colours(n: int = 3000, seed: int = 0) -> pd.Series:
    gen = np.random.default_rng(seed)
    return pd.Series(gen.choice(["red", "green", "blue"], size=n, p=[0.5, 0.3, 0.2]))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    data = folder / "data.csv"
    frame = pd.DataFrame({"colour": _colours(), "size": 1})
    frame.loc[[3, 10], "colour"] = None  # missing values are skipped
    frame.to_csv(data, index=False)
    protocol = Protocol.from_mechanism(OLH(3, 1.0), labels=["blue", "green", "red"])
    protocol.save(folder / "protocol.json")
    reports = folder / "reports.csv"
    write_reports(protocol, protocol.privatize(["red", "green"] * 5, rng=0), reports)
    other = Protocol.from_mechanism(OLH(3, 1.1), labels=["blue", "green", "red"])
    foreign = folder / "foreign.csv"
    write_reports(other, other.privatize(["red"], rng=0), foreign)
    truncated = folder / "truncated.json"
    truncated.write_text(protocol.to_json()[:200])
    huge = Protocol.from_mechanism(GRR(2**40, 1.0))  # devices can run it; no server decodes it
    huge.save(folder / "huge.json")
    write_reports(huge, huge.privatize([0, 2**40 - 1], rng=0), folder / "huge.csv")
    return {
        "huge": str(folder / "huge.json"),
        "huge_reports": str(folder / "huge.csv"),
        "data": str(data),
        "reports": str(reports),
        "missing": str(folder / "none.csv"),
        "protocol": str(folder / "protocol.json"),
        "foreign": str(foreign),
        "truncated": str(truncated),
        "out": str(folder / "out"),
    }


def run(capture, argv, files=None) -> tuple[int, str, str]:
    """``ldp *argv`` in this process: ``(exit code, stdout, stderr)``.

    ``main`` returns the exit code; argparse errors end in ``SystemExit(2)`` instead. Any other
    exception propagates and fails the test: in-process, that is the traceback a user would
    have seen. ``capture`` is ``capfd`` (file-descriptor level, so output that bypasses
    ``sys.stdout``, such as a solver's C code printing, would also break JSON purity, as it
    would in a real process) or ``capsys``.
    """
    capture.readouterr()  # start from empty buffers
    argv = [a.format(**files) for a in argv] if files else list(argv)
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capture.readouterr()
    return code, out, err


def ok_json(capture, name, files=None) -> dict:
    """The JSON that the SUCCESS case ``name`` prints (it must exit 0)."""
    code, out, err = run(capture, SUCCESS[name], files)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("name", sorted(SUCCESS))
def test_every_subcommand_runs(capfd, files, name):
    code, out, err = run(capfd, SUCCESS[name], files)
    assert code == 0, err
    assert "Traceback" not in err
    if "--json" in SUCCESS[name]:
        json.loads(out)  # stdout is pure JSON


def test_report_contract(capfd):
    """`ldp report k-rr --k 4 --epsilon 1 --json`: epsilon, tv and contraction kl/chi2/tv."""
    data = ok_json(capfd, "report")
    channel = ldp.k_rr(4, 1.0)
    assert data["epsilon"] == pytest.approx(channel.epsilon)
    assert data["tv"] == pytest.approx(channel.tv)
    for kind in ("kl", "chi2", "tv"):
        assert data["contraction"][kind]["exact"] == pytest.approx(float(channel.contraction(kind)))
    # k-RR: the chi2 coefficient is tv tanh(eps/2), tv = (e^eps - 1) / (e^eps + k - 1):
    # Ghazi-Issa (2023), Theorem 5 is tight for it
    e = math.e
    assert data["contraction"]["chi2"]["exact"] == pytest.approx((e - 1) / (e + 3) * math.tanh(0.5))
    code, out, _ = run(capfd, SUCCESS["table"])
    assert code == 0 and "4 inputs x 4 outputs" in out


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_user_errors_exit_2_with_one_line(capfd, files, name):
    code, out, err = run(capfd, ERRORS[name], files)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    assert "error" in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 or (lines[0].startswith("usage") and len(lines[-1]) < 300), err
    assert len(lines[-1]) < 300 and not re.search(r"\d{20}", err), err  # no 300-digit integer


# ------------------------------------------------------------------------------------ report
def test_report_table(capsys):
    assert main(["report", "k-rr", "--k", "4", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 inputs x 4 outputs" in out
    assert "epsilon" in out and "eta-TV" in out and "contraction" in out
    assert "Ghazi-Issa (2023), Theorem 5" in out  # tight for the KL coefficient of k-RR


def test_report_json_matches_the_channel(capsys):
    argv = ["report", "binary-erasure", "--epsilon", "1", "--delta", "0.01", "--eta", "0.2"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["shape"] == [2, 5]
    assert data["tv"] == pytest.approx(0.2)
    assert data["delta"]["1"] == pytest.approx(0.01)
    assert math.isinf(data["epsilon"])
    rr = ldp.randomized_response(2.0)
    main(["report", "rr", "--epsilon", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["delta"]["1"] == pytest.approx(rr.delta(1.0))
    # RR: KL, chi2 and Hellinger coefficients are tanh(eps/2)^2 (Asoodeh-Aliakbarpour-Calmon
    # (2021) after Lemma 1, with the corrected (1-2w)^2)
    for kind in ("kl", "chi2", "hellinger"):
        assert data["contraction"][kind]["exact"] == pytest.approx(math.tanh(1.0) ** 2)
        assert data["contraction"][kind]["exact"] <= data["contraction"][kind]["bound"] + 1e-12
    assert data["contraction"]["tv"]["exact"] == pytest.approx(math.tanh(1.0))


MECHANISM_OPTIONS = {
    # k-RR has no default alphabet: a silent k = 2 was randomized response
    "report k-rr without --k": (["report", "k-rr", "--epsilon", "1"], "k-rr needs --k"),
    # randomized response has two inputs: a --k was silently ignored
    "report rr with --k": (["report", "rr", "--k", "4", "--epsilon", "1"],
                           "--k is the alphabet size of k-rr, not of rr"),
    "report rr with --delta": (["report", "rr", "--epsilon", "1", "--delta", "0.1"],
                               "--delta describes binary-erasure"),
    "report k-rr with --eta": (["report", "k-rr", "--k", "3", "--epsilon", "1", "--eta", "0.1"],
                               "--eta describes binary-erasure"),
    "compose k-rr without --k": (["account", "compose", "--mechanism", "k-rr", "--epsilon", "1",
                                  "--folds", "2"], "k-rr needs --k"),
    "compose rr with --k": (["account", "compose", "--mechanism", "rr", "--k", "4",
                             "--epsilon", "1", "--folds", "2"], "not of rr"),
    "compose rr with --mechanism-delta": (["account", "compose", "--mechanism", "rr",
                                           "--epsilon", "1", "--mechanism-delta", "0.1",
                                           "--folds", "2"], "--mechanism-delta describes"),
    "compose gdp with --k": (["account", "compose", "--gdp", "1", "--k", "4", "--folds", "2"],
                             "--k describes --mechanism"),
    "shuffle k-rr without --k": (["account", "shuffle", "--mechanism", "k-rr", "--epsilon0", "1",
                                  "--n", "1000", "--delta", "1e-6"], "k-rr needs --k"),
    "shuffle any with --k": (["account", "shuffle", "--k", "4", "--epsilon0", "1", "--n", "1000",
                              "--delta", "1e-6"], "not of any"),
    "calibrate k-rr without --k": (["account", "calibrate", "--target-mu", "1", "--mechanism",
                                    "k-rr"], "k-rr needs --k"),
    "calibrate rr with --k": (["account", "calibrate", "--target-mu", "1", "--mechanism", "rr",
                               "--k", "4"], "not of rr"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(MECHANISM_OPTIONS))
def test_options_a_mechanism_does_not_take_are_refused(capsys, name):
    argv, message = MECHANISM_OPTIONS[name]
    code, out, err = run(capsys, argv)
    assert code == 2 and out == ""
    assert err.startswith("ldp: error: ") and message in err and len(err.splitlines()) == 1


def test_the_alphabet_is_the_one_given(capsys):
    """With --k given, k-RR on exactly that alphabet (4 x 4); rr is 2 x 2; calibrate without
    --mechanism takes k-RR when --k is given and randomized response otherwise."""
    code, out, _ = run(capsys, ["report", "k-rr", "--k", "4", "--epsilon", "1", "--json"])
    assert code == 0 and json.loads(out)["shape"] == [4, 4]
    code, out, _ = run(capsys, ["report", "rr", "--epsilon", "1", "--json"])
    assert code == 0 and json.loads(out)["shape"] == [2, 2]
    for extra, label in (([], "2-RR"), (["--k", "4"], "4-RR")):
        code, out, _ = run(capsys, ["account", "calibrate", "--target-mu", "1", *extra, "--json"])
        assert code == 0 and json.loads(out)["mechanism"] == label


# ------------------------------------------------------------------------------------ design
def test_design_command(capsys, tmp_path):
    out = tmp_path / "q.csv"
    argv = ["design", "--k", "6", "--epsilon", "1.1", "--utility", "mi", "--out", str(out)]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # MI of the 2-subset mechanism on 6 symbols at eps = 1.1 (the LP optimum), computed by
    # enumeration of its channel matrix with numpy
    assert data["value"] == pytest.approx(0.1487078233, abs=1e-8)
    assert data["certified"]["epsilon"] <= 1.1
    saved = np.loadtxt(out, delimiter=",")
    assert ldp.Channel(saved).epsilon <= 1.1 + 1e-9
    hypotheses = "0.5,0.3,0.2;0.1,0.3,0.6"
    argv = ["design", "--k", "3", "--epsilon", "1", "--utility", "tv", "--hypotheses", hypotheses]
    assert main(argv) == 0
    assert "certified epsilon" in capsys.readouterr().out


def test_design_of_a_structured_optimum(capsys, tmp_path):
    """k = 32, uniform information: subset selection of size 11, C(32, 11) = 129024480
    outputs. No matrix is printed or written; the protocol file deploys the mechanism."""
    argv = ["design", "--k", "32", "--epsilon", "1", "--utility", "mi"]
    code, out, err = run(capsys, [*argv, "--json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["matrix"] is None and data["mechanism"].startswith("SS(k=32, epsilon=1.0, d=11")
    assert data["gap"] <= 1e-12 and data["certified"]["epsilon"] <= 1.0 + 1e-12
    code, out, _ = run(capsys, argv)
    assert code == 0 and "129024480 outputs, no matrix" in out
    protocol = tmp_path / "p.json"
    code, out, _ = run(capsys, [*argv, "--out", str(protocol), "--json"])
    assert code == 0 and load(protocol).mechanism.params["d"] == 11
    code, _, err = run(capsys, [*argv, "--out", str(tmp_path / "q.csv")])
    assert code == 2 and "too large to write as a matrix" in err
    assert not (tmp_path / "q.csv").exists()


# ------------------------------------------------------------------------------------- bound
def _bound(capsys, *argv: str) -> dict:
    assert main(["bound", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bound_lecam_bernoulli_mean(capsys):
    data = ok_json(capsys, "bound")
    lower = risk.bernoulli_mean(1000, 1.0)
    achieved = risk.rr_mean_risk(1000, 1.0)
    assert data["bound"]["value"] == pytest.approx(lower.value)
    assert data["bound"]["theorem"] == lower.method
    assert data["bound"]["rate"] == lower.rate
    assert data["achieved"]["value"] == pytest.approx(achieved.value)
    assert data["achieved"]["ratio_to_bound"] == pytest.approx(achieved.value / lower.value)
    # the closed form of the Duchi-Jordan-Wainwright route (w = 2 for a sign)
    data = _bound(capsys, "lecam", "bernoulli-mean", "--n", "1e3", "--epsilon", "1",
                  "--support=-1,1", "--route", "djw")  # fmt: skip
    assert data["bound"]["value"] == pytest.approx(4 / (27 * 1000 * (math.e - 1) ** 2))
    assert data["achieved"]["value"] == pytest.approx(((math.e + 1) / (math.e - 1)) ** 2 / 1000)


def test_bound_other_presets(capsys):
    data = _bound(capsys, "assouad", "distribution", "--k", "10", "--n", "10000",
                  "--epsilon", "1", "--route", "djw")  # fmt: skip
    assert data["bound"]["value"] == pytest.approx(10 / (108 * 10_000 * (math.e - 1) ** 2))
    assert data["achieved"]["value"] == pytest.approx(
        0.9 * (math.e + 9) ** 2 / (1e4 * (math.e - 1) ** 2)
    )
    data = _bound(capsys, "assouad", "distribution", "--k", "10", "--n", "10000",
                  "--epsilon", "1", "--loss", "l1")  # fmt: skip
    assert data["bound"]["value"] == pytest.approx(
        risk.distribution_estimation(10, 10_000, 1.0, loss="l1").value
    )
    data = _bound(capsys, "lecam", "moment-mean", "--moment", "2", "--n", "100", "--epsilon", "1")
    # twice 5.2776e-4, Asoodeh-Aliakbarpour-Calmon (2021) Corollary 1 (repaired) at these values
    assert data["bound"]["value"] == pytest.approx(1.0555e-3, rel=1e-4)
    assert data["achieved"] is None
    data = _bound(capsys, "fano", "ball-mean", "--d", "16", "--n", "1000", "--epsilon", "0.5",
                  "--delta", "1e-3")  # fmt: skip
    fano = risk.ball_mean(1000, 0.5, 1e-3, d=16, method="fano")
    assert data["bound"]["value"] == pytest.approx(fano.value)
    assert data["bound"]["params"]["k"] == 16
    data = _bound(capsys, "lecam", "ball-mean", "--d", "16", "--r", "2", "--n", "1000",
                  "--epsilon", "0.5")  # fmt: skip
    assert data["bound"]["value"] == pytest.approx(
        risk.ball_mean(1000, 0.5, d=16, r=2.0, method="lecam").value
    )
    data = _bound(capsys, "bayes", "beta-bernoulli", "--n", "20", "--epsilon", "1",
                  "--delta", "1e-4")  # fmt: skip
    # Asoodeh-Aliakbarpour-Calmon (2021), Fig. 1
    assert data["bound"]["value"] == pytest.approx(0.025817, abs=1e-6)
    assert data["bound"]["quantity"] == "Bayes risk lower bound"
    data = _bound(capsys, "bayes", "beta-bernoulli", "--n", "20", "--epsilon", "1",
                  "--delta", "1e-4", "--route", "corollary3")  # fmt: skip
    # Asoodeh-Aliakbarpour-Calmon (2021), Corollary 3 evaluated on a fine zeta grid (its
    # non-private value, reached for every eps >= 0.5)
    assert data["bound"]["value"] == pytest.approx(0.010866, abs=1e-6)


def test_bound_table(capsys):
    assert main(["bound", "lecam", "bernoulli-mean", "--n", "1000", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "minimax risk lower bound" in out and "achieved / bound" in out and "rate" in out
    assert main(["bound", "bayes", "beta-bernoulli", "--n", "20", "--epsilon", "1"]) == 0
    assert "no matching estimator" in capsys.readouterr().out


# ----------------------------------------------------------------------------------- account
def _account(capsys, *argv: str) -> dict:
    assert main(["account", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_compose_a_channel(capsys):
    data = ok_json(capsys, "compose")
    exact = compose(ldp.k_rr(4, 1.0), 10)
    assert data["exact"] is True
    assert data["epsilon"]["1e-05"] == pytest.approx(exact.epsilon(1e-5))
    assert data["delta"]["1"] == pytest.approx(exact.delta(1.0))
    assert data["tv"] == pytest.approx(exact.tv)
    # 10 reports of k-RR: the TV of the product is at least the TV of one report
    assert ldp.k_rr(4, 1.0).tv < data["tv"] < 1


def test_compose_other_mechanisms(capsys):
    data = _account(capsys, "compose", "--eps-delta-eta", "1", "0", "0.3234820100820068",
                    "--folds", "5", "--at-epsilon", "0", "1", "5")  # fmt: skip
    reference = compose_eps_delta_eta(1.0, 0.0, 0.7 * 0.46211715726000974, 5)
    assert data["tv"] == pytest.approx(0.631089674853377, rel=1e-12)  # Ghazi-Issa (2023), Theorem 2
    assert data["delta"]["1"] == pytest.approx(reference.deltas[1])
    assert data["delta"]["5"] == pytest.approx(0.0, abs=1e-15)
    data = _account(capsys, "compose", "--eps-delta-eta", "1", "0", "max", "--folds", "3")
    assert data["single"]["eta"] == pytest.approx(math.tanh(0.5))
    data = _account(capsys, "compose", "--gdp", "0.6", "--folds", "4", "--delta", "1e-6")
    assert data["mu"] == pytest.approx(1.2)
    assert data["epsilon"]["1e-06"] == pytest.approx(GaussianTradeOff(1.2).epsilon(1e-6))
    data = _account(capsys, "compose", "--mechanism", "binary-erasure", "--epsilon", "1",
                    "--eta", "0.3", "--folds", "2", "--at-epsilon", "0")  # fmt: skip
    assert data["tv"] == pytest.approx(compose(ldp.binary_erasure(1.0, 0.0, 0.3), 2).tv)
    assert data["delta"]["0"] == pytest.approx(data["tv"])


def test_compose_progress_changes_nothing(capsys):
    argv = ["compose", "--mechanism", "rr", "--epsilon", "1", "--folds", "20"]
    plain = _account(capsys, *argv)
    assert _account(capsys, *argv, "--progress") == plain
    argv = ["compose", "--eps-delta-eta", "0.5", "1e-6", "max", "--folds", "200"]
    plain = _account(capsys, *argv)
    assert _account(capsys, *argv, "--progress") == plain
    with pytest.raises(TypeError, match="progress"):
        compose_eps_delta_eta(1.0, 0.0, None, 3, progress=1)
    with pytest.raises(TypeError, match="progress"):
        compose(ldp.k_rr(3, 1.0), 2, progress="yes")


def test_gdp(capsys):
    data = ok_json(capsys, "gdp")
    assert data["epsilon"]["1e-05"] == pytest.approx(get_epsilon_from_gdp(1.0, 1e-5))
    data = _account(capsys, "gdp", "--mu", "0.5", "--epsilon", "0", "1")
    assert data["delta"]["1"] == pytest.approx(get_delta_from_gdp(0.5, 1.0))
    assert data["delta"]["0"] == pytest.approx(data["tv"])
    data = _account(capsys, "gdp", "--epsilon", "1", "--delta", "1e-5")
    assert data["mu"] == pytest.approx(get_mu_from_epsilon_delta(1.0, 1e-5))
    assert get_delta_from_gdp(data["mu"], 1.0) == pytest.approx(1e-5)


def test_filter(capsys):
    data = ok_json(capsys, "filter")
    assert [r["decision"] for r in data["requests"]] == ["accepted", "accepted"]
    assert data["remaining_mu"] == pytest.approx(0.0, abs=1e-7)
    data = _account(capsys, "filter", "--mu-budget", "1", "--request", "0.6", "rr:1", "0.1")
    rr_mu = data["requests"][1]["mu"]
    assert rr_mu > 0.8  # RR at eps = 1 costs more than the 0.8 that is left
    assert [r["decision"] for r in data["requests"]] == [
        "accepted",
        "refused",
        "not run (filter halted)",
    ]
    assert data["halted"] is True
    data = _account(capsys, "filter", "--mu-budget", "1", "--request", "0.6", "rr:1",
                    "k-rr:3:0.5", "--skip-refused")  # fmt: skip
    assert [r["decision"] for r in data["requests"]] == ["accepted", "refused", "accepted"]
    assert data["spent_mu"] == pytest.approx(math.hypot(0.6, data["requests"][2]["mu"]))


# ---------------------------------------------------------------------------------- estimate
def test_estimate_simulation_matches_the_oracle(capsys, files):
    data = ok_json(capsys, "estimate", files)
    frame = pd.read_csv(files["data"])
    values = frame["colour"].dropna()
    categories = sorted(values.unique())
    assert [row["category"] for row in data["frequencies"]] == categories
    codes = values.map({c: i for i, c in enumerate(categories)}).to_numpy()
    grr = GRR(3, 1.0)
    expected = grr.estimate(grr.privatize(codes, rng=0))
    estimate = np.array([row["estimate"] for row in data["frequencies"]])
    np.testing.assert_allclose(estimate, expected)
    truth = np.bincount(codes, minlength=3) / codes.size
    np.testing.assert_allclose([row["true"] for row in data["frequencies"]], truth)
    half = ndtri(0.975) * np.sqrt(grr.variance(codes.size, truth))
    np.testing.assert_allclose([row["half_width"] for row in data["frequencies"]], half)
    assert data["n"] == codes.size and data["missing"] == 2
    assert data["max_abs_error"] == pytest.approx(np.abs(estimate - truth).max())


@pytest.mark.parametrize("mechanism", ["grr", "oue", "olh", "hr", "ss"])
def test_estimate_from_saved_reports(capsys, tmp_path, files, mechanism):
    saved, protocol = tmp_path / "reports.csv", tmp_path / "protocol.json"
    common = ["--mechanism", mechanism, "--epsilon", "2", "--json"]
    argv = ["estimate", files["data"], "--column", "colour", "--rng", "3"]
    assert (
        main([*argv, *common, "--save-reports", str(saved), "--save-protocol", str(protocol)]) == 0
    )
    simulated = json.loads(capsys.readouterr().out)
    assert main(["estimate", "--protocol", str(protocol), str(saved), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [r["category"] for r in again["frequencies"]] == ["blue", "green", "red"]
    np.testing.assert_allclose(
        [r["estimate"] for r in again["frequencies"]],
        [r["estimate"] for r in simulated["frequencies"]],
    )
    assert again["n"] == simulated["n"] and again["epsilon"] == pytest.approx(2.0)
    # from reports the interval uses the exact variance at the clipped estimate (plug-in)
    oracle = {"grr": GRR, "oue": OUE}.get(mechanism)
    if oracle is not None:
        f = np.clip([r["estimate"] for r in again["frequencies"]], 0, 1)
        half = ndtri(0.975) * np.sqrt(oracle(3, 2.0).variance(again["n"], f))
        np.testing.assert_allclose([r["half_width"] for r in again["frequencies"]], half)


def test_the_deploy_path_from_the_command_line(capfd, tmp_path):
    """design -> protocol file -> report -> privatize (device simulator) -> estimate."""
    protocol = tmp_path / "protocol.json"
    code, out, err = run(capfd, ["design", "--k", "3", "--epsilon", "1", "--utility", "mi",
                                 "--labels", "bus,bike,car", "--question", "How?",
                                 "--out", str(protocol), "--json"])  # fmt: skip
    assert code == 0 and err == ""
    written = json.loads(out)["protocol"]
    assert load(protocol).fingerprint == written["fingerprint"]
    code, out, _ = run(capfd, ["report", str(protocol), "--json"])
    report = json.loads(out)
    assert code == 0 and report["fingerprint"] == written["fingerprint"]
    assert report["stated"]["epsilon"] <= 1.0 and report["epsilon"] <= 1.0
    answers = tmp_path / "answers.csv"
    truth = np.random.default_rng(5).choice(["bus", "bike", "car"], size=20_000, p=[0.5, 0.3, 0.2])
    pd.DataFrame({"id": np.arange(truth.size), "mode": truth}).to_csv(answers, index=False)
    reports = tmp_path / "reports.parquet"
    code, out, _ = run(capfd, ["privatize", "--protocol", str(protocol), str(answers),
                               "--column", "mode", "--out", str(reports), "--rng", "1",
                               "--chunksize", "7000"])  # fmt: skip
    assert code == 0 and "20000 reports" in out
    code, out, err = run(capfd, ["estimate", "--protocol", str(protocol), str(reports),
                                 "--json", "--chunksize", "3000"])  # fmt: skip
    assert code == 0 and err == ""
    result = json.loads(out)
    assert result["n"] == 20_000
    for row, share in zip(result["frequencies"], (0.5, 0.3, 0.2)):
        assert abs(row["estimate"] - share) < 3 * row["half_width"]  # ~3.4 sd at 95% halves


def test_estimate_flags_reports_no_honest_device_sends(capfd, tmp_path):
    """A k-RR protocol whose devices ran the identity channel (true answers sent): decoded
    with a warning on stderr (exit 0), refused under --strict (exit 2, one line naming the
    test and its p-value); honest reports of the same protocol pass quietly."""
    protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=["bus", "bike", "car"])
    path = tmp_path / "protocol.json"
    protocol.save(path)
    truth = np.repeat([0, 1, 2], [300, 1800, 900])
    edited, honest = tmp_path / "edited.csv", tmp_path / "honest.csv"
    write_reports(protocol, truth, edited)
    write_reports(protocol, protocol.mechanism.privatize(truth, rng=0), honest)
    code, out, err = run(capfd, ["estimate", "--protocol", str(path), str(edited), "--json"])
    assert code == 0 and len(err.splitlines()) == 1
    assert err.startswith(f"ldp: warning: the reports in {edited} are implausible")
    assert "goodness-of-fit test" in err and "p = " in err
    fit = json.loads(out)["report_fit"]
    assert fit["p_value"] < 1e-12 and fit["test"].startswith("goodness-of-fit test")
    code, out, err = run(capfd, ["estimate", "--protocol", str(path), str(edited), "--strict"])
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("ldp: error: the reports in") and "p = " in err
    code, out, err = run(capfd, ["estimate", "--protocol", str(path), str(honest), "--strict"])
    assert code == 0 and err == ""


def test_report_opens_in_plain_terms(capfd, files):
    code, out, _ = run(capfd, ["report", "k-rr", "--k", "4", "--epsilon", "1", "--json"])
    plain = json.loads(out)["plain"]
    e = math.exp(1.0)
    assert code == 0 and plain["p_true_report"] == pytest.approx(e / (e + 3))
    assert plain["odds_factor"] == pytest.approx(e)
    code, out, _ = run(capfd, ["report", "k-rr", "--k", "4", "--epsilon", "1"])
    assert out.splitlines()[1] == "In plain terms:" and "2.718" in out
    code, out, _ = run(capfd, ["report", files["protocol"], "--json"])
    assert code == 0 and set(json.loads(out)["plain"]) >= {"p_true_report", "odds_factor"}


def test_design_json_is_pure_even_with_the_solver(capfd):
    argv = ["design", "--k", "4", "--epsilon", "1", "--utility", "tv", "--json",
            "--hypotheses", "0.4,0.3,0.2,0.1;0.1,0.2,0.3,0.4"]  # fmt: skip
    code, out, err = run(capfd, argv)
    assert code == 0
    json.loads(out)  # nothing else on stdout: the HiGHS banner is silenced in the library
    assert "HiGHS" not in out + err


def test_estimate_intervals_cover(capsys, tmp_path):
    """Over repeated simulations the 90% intervals cover the true frequency about 90% of the
    time (exact variance, normal approximation at n = 3000).

    If the 120 intervals were independent, the count would be Binomial(120, 0.9) and fall
    outside (0.8, 0.97) with probability 2.3e-3; the seeds 0-39 fix the outcome."""
    data = tmp_path / "data.csv"
    pd.DataFrame({"c": _colours(seed=1)}).to_csv(data, index=False)
    covered = 0
    for seed in range(40):
        argv = ["estimate", str(data), "--column", "c", "--mechanism", "oue", "--epsilon", "1"]
        assert main([*argv, "--rng", str(seed), "--confidence", "0.9", "--json"]) == 0
        covered += json.loads(capsys.readouterr().out)["covered"]
    assert 0.8 < covered / 120 < 0.97


def test_estimate_table(capsys, files):
    argv = ["estimate", files["data"], "--column", "colour", "--mechanism", "hr"]
    assert main([*argv, "--epsilon", "1", "--rng", "0"]) == 0
    out = capsys.readouterr().out
    assert "HR(k=3" in out and "2 missing values skipped" in out
    assert "true value inside the interval" in out
    assert all(line == line.rstrip() for line in out.splitlines())


@pytest.fixture(scope="module")
def rare_categories(tmp_path_factory):
    """GRR reports (k = 6, eps = 1) of 2000 users, two categories of 1% each: their unbiased
    estimates come out negative. Returns the protocol file, the reports and the histogram."""
    folder = tmp_path_factory.mktemp("rare")
    gen = np.random.default_rng(0)
    answers = gen.choice(6, p=[0.5, 0.3, 0.15, 0.03, 0.01, 0.01], size=2000)
    protocol = Protocol.from_mechanism(GRR(6, 1.0))
    protocol.save(folder / "protocol.json")
    reports = protocol.privatize(answers, rng=1)
    write_reports(protocol, reports, folder / "reports.csv")
    histogram = np.bincount(np.asarray(reports).ravel(), minlength=6)
    return str(folder / "protocol.json"), str(folder / "reports.csv"), histogram


def _frequencies_of(capsys, rare, consistency):
    protocol, reports, _ = rare
    argv = ["estimate", "--protocol", protocol, reports, "--consistency", consistency, "--json"]
    code, out, err = run(capsys, argv)
    assert code == 0, err
    data = json.loads(out)
    estimate = np.array([r["estimate"] for r in data["frequencies"]])
    unbiased = np.array([r.get("unbiased", r["estimate"]) for r in data["frequencies"]])
    return data, estimate, unbiased


def test_negative_estimates_are_pointed_out(capsys, rare_categories):
    data, estimate, unbiased = _frequencies_of(capsys, rare_categories, "none")
    assert data["consistency"] == "none" and np.array_equal(estimate, unbiased)
    negative = int(np.sum(unbiased < 0))
    assert negative >= 1 and data["negative_unbiased_estimates"] == negative
    protocol, reports, _ = rare_categories
    code, out, _ = run(capsys, ["estimate", "--protocol", protocol, reports])
    assert code == 0 and f"{negative} of 6 estimates are negative" in out
    assert "--consistency project" in out
    # a distribution has no negative entry: no note
    argv = ["estimate", "--protocol", protocol, reports, "--consistency", "project"]
    code, out, _ = run(capsys, argv)
    assert code == 0 and "are negative" not in out


def test_consistency_projects_onto_the_simplex(capsys, rare_categories):
    """The Euclidean projection: ``max(f - tau, 0)`` with one threshold ``tau`` for every
    entry, summing to one (its optimality conditions)."""
    data, estimate, unbiased = _frequencies_of(capsys, rare_categories, "project")
    assert data["consistency"] == "project"
    kept = estimate > 0
    tau = unbiased[kept] - estimate[kept]
    np.testing.assert_allclose(tau, tau[0], atol=1e-12)
    assert np.all(unbiased[~kept] <= tau[0] + 1e-12)
    assert estimate.sum() == pytest.approx(1.0, abs=1e-12) and np.all(estimate >= 0)
    # norm-sub is the same projection when the clipped estimates sum to at least one
    assert np.maximum(unbiased, 0).sum() >= 1
    _, norm_sub, _ = _frequencies_of(capsys, rare_categories, "norm-sub")
    np.testing.assert_allclose(norm_sub, estimate, atol=1e-12)


def test_consistency_norm_mul_rescales_the_clipped_estimates(capsys, rare_categories):
    _, estimate, unbiased = _frequencies_of(capsys, rare_categories, "norm-mul")
    clipped = np.maximum(unbiased, 0.0)
    np.testing.assert_allclose(estimate, clipped / clipped.sum(), atol=1e-12)


def test_consistency_ibu_is_the_em_estimate(capsys, rare_categories):
    """Iterative Bayesian update maximises the likelihood of the reports under GRR's own
    matrix: written out here as ``p_x <- sum_z pi_z p_x K[x, z] / (p K)_z``, run long."""
    _, estimate, _ = _frequencies_of(capsys, rare_categories, "ibu")
    e, k = math.e, 6
    matrix = np.full((k, k), 1 / (e + k - 1)) + np.eye(k) * (e - 1) / (e + k - 1)
    observed = rare_categories[2] / rare_categories[2].sum()
    p = np.full(k, 1 / k)
    for _ in range(20_000):
        p = p * (matrix @ (observed / (p @ matrix)))

    def likelihood(q):  # per report
        return float(observed @ np.log(q @ matrix))

    assert estimate.sum() == pytest.approx(1.0, abs=1e-12) and np.all(estimate >= 0)
    # EM creeps towards the boundary (the rare shares tend to 0): the estimates agree to the
    # stopping rule, their likelihoods to far less than one report's worth
    np.testing.assert_allclose(estimate, p, atol=1e-4)
    assert 0 <= likelihood(p) - likelihood(estimate) < 1e-8
    assert likelihood(estimate) > likelihood(np.full(k, 1 / k)) + 0.01


@pytest.mark.parametrize(
    ("mechanism", "extra"),
    [("cms", ["--items", "a,b"]), ("piecewise", [])],
    ids=["sketch items", "mean"],
)
def test_consistency_applies_to_frequencies_only(capsys, tmp_path, mechanism, extra):
    from ldp.mechanisms import CMS, Piecewise

    made = {
        "cms": lambda: CMS(2.0, width=16, depth=2, salt="s"),
        "piecewise": lambda: Piecewise(1.0),
    }
    protocol = Protocol.from_mechanism(made[mechanism]())
    protocol.save(tmp_path / "p.json")
    values = np.array(["a", "b"], dtype=object) if mechanism == "cms" else np.array([0.1, 0.2])
    write_reports(protocol, protocol.privatize(values, rng=0), tmp_path / "r.csv")
    argv = ["estimate", "--protocol", str(tmp_path / "p.json"), str(tmp_path / "r.csv"), *extra]
    code, _, _ = run(capsys, argv)
    assert code == 0
    code, _, err = run(capsys, [*argv, "--consistency", "project"])
    assert code == 2 and "--consistency applies to" in err


# ------------------------------------------------------------------------------- input files
@pytest.fixture
def bad_inputs(files, tmp_path):
    """A file that is not UTF-8 text, an empty file, a ragged CSV and a folder."""
    (tmp_path / "binary.csv").write_bytes(b"\xff\xfe\x00a\x00\n\x00\xff")
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "ragged.csv").write_text('colour\n"red\n')
    (tmp_path / "folder").mkdir()
    names = {"binary": "binary.csv", "empty": "empty.csv", "ragged": "ragged.csv"}
    return {**files, **{key: str(tmp_path / name) for key, name in names.items()},
            "folder": str(tmp_path / "folder")}  # fmt: skip


PROTOCOL, DATA = ["--protocol", "{protocol}"], ["--column", "colour", "--mechanism", "grr",
                                                 "--epsilon", "1"]  # fmt: skip
INPUT_ERRORS = {
    "estimate: missing protocol": (["estimate", "--protocol", "{missing}", "{reports}"],
                                   "--protocol: no such protocol file: {missing}"),
    "estimate: protocol is a folder": (["estimate", "--protocol", "{folder}", "{reports}"],
                                       "--protocol: the protocol file {folder} is a folder"),
    "estimate: reports not UTF-8": (["estimate", *PROTOCOL, "{binary}"],
                                    "the reports file {binary} is not UTF-8 text"),
    "estimate: empty reports": (["estimate", *PROTOCOL, "{empty}"],
                                "the reports file {empty} cannot be read as a table"),
    "estimate: reports a folder": (["estimate", *PROTOCOL, "{folder}"],
                                   "the reports file {folder} is a folder"),
    "estimate: missing data": (["estimate", "{missing}", *DATA],
                               "no such data file: {missing}"),
    "estimate: data not UTF-8": (["estimate", "{binary}", *DATA],
                                 "the data file {binary} is not UTF-8 text"),
    "estimate: ragged data": (["estimate", "{ragged}", *DATA],
                              "the data file {ragged} cannot be read as a table"),
    "privatize: missing protocol": (["privatize", "--protocol", "{missing}", "{data}",
                                     "--out", "{out}.csv"],
                                    "--protocol: no such protocol file: {missing}"),
    "privatize: answers not UTF-8": (["privatize", *PROTOCOL, "{binary}", "--out",
                                      "{out}.csv"],
                                     "the answers file {binary} is not UTF-8 text"),
    "privatize: ragged answers": (["privatize", *PROTOCOL, "{ragged}", "--out",
                                   "{out}.csv"],
                                  "the answers file {ragged} cannot be read as a table"),
    "privatize: answers a folder": (["privatize", *PROTOCOL, "{folder}", "--out", "{out}.csv"],
                                    "the answers file {folder} is a folder"),
    "report: missing protocol": (["report", "{missing}.json"],
                                 "no such protocol file: {missing}.json"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(INPUT_ERRORS))
def test_unreadable_inputs_are_named_in_one_line(capsys, bad_inputs, name):
    argv, message = INPUT_ERRORS[name]
    code, _, err = run(capsys, argv, bad_inputs)
    assert code == 2
    assert err.startswith("ldp: error: " + message.format(**bad_inputs)), err
    # no raw errno or codec message, nothing but the one line
    assert "Errno" not in err and "codec" not in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------ output files
SENTINEL = b"an earlier output, which a failed command must leave as it was\n"


def _leftovers(folder) -> list[str]:
    """Files of ``folder`` that a command left behind (temporary files start with a dot)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_failed_privatize_leaves_an_existing_output_untouched(capsys, files, tmp_path, suffix):
    # two chunks of good answers are written before the third chunk's bad answer fails
    answers = tmp_path / "answers.csv"
    pd.DataFrame({"colour": ["red", "green", "blue"] * 2 + ["purple"]}).to_csv(answers, index=False)
    out = tmp_path / f"reports{suffix}"
    out.write_bytes(SENTINEL)
    argv = ["privatize", "--protocol", files["protocol"], str(answers), "--column", "colour",
            "--out", str(out), "--chunksize", "3", "--rng", "0"]  # fmt: skip
    code, _, err = run(capsys, argv)
    assert code == 2 and "rows 8" in err
    assert out.read_bytes() == SENTINEL
    assert _leftovers(tmp_path) == []


def test_a_successful_output_replaces_the_file_and_keeps_its_permissions(capsys, files, tmp_path):
    answers = tmp_path / "answers.csv"
    pd.DataFrame({"colour": ["red", "green", "blue"]}).to_csv(answers, index=False)
    out = tmp_path / "reports.csv"
    out.write_bytes(SENTINEL)
    out.chmod(0o640)
    argv = ["privatize", "--protocol", files["protocol"], str(answers), "--out", str(out)]
    code, _, err = run(capsys, [*argv, "--rng", "0"])
    assert code == 0, err
    assert len(pd.read_csv(out)) == 3 and (out.stat().st_mode & 0o777) == 0o640
    fresh = tmp_path / "fresh.csv"
    code, _, err = run(capsys, [*argv[:-1], str(fresh), "--rng", "0"])
    umask = os.umask(0)
    os.umask(umask)
    assert code == 0 and (fresh.stat().st_mode & 0o777) == 0o666 & ~umask
    assert _leftovers(tmp_path) == []


def test_simulated_reports_and_their_protocol_are_written_together_or_not_at_all(
    capsys, files, tmp_path
):
    protocol = tmp_path / "protocol.json"
    protocol.write_bytes(SENTINEL)
    argv = ["estimate", files["data"], "--column", "colour", "--mechanism", "grr",
            "--epsilon", "1", "--save-protocol", str(protocol),
            "--save-reports", str(tmp_path / "no such folder" / "reports.csv")]  # fmt: skip
    code, _, err = run(capsys, argv)
    assert code == 2
    assert err.startswith("ldp: error: cannot write --save-reports ") and "no such folder" in err
    assert protocol.read_bytes() == SENTINEL
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["design", "--k", "3", "--epsilon", "1", "--utility", "mi", "--out", "{out}.json"],
        ["design", "--k", "3", "--epsilon", "1", "--utility", "mi", "--out", "{out}.csv"],
        ["privatize", "--protocol", "{protocol}", "{data}", "--column", "size", "--out",
         "{out}.csv"],
    ],
    ids=["design protocol", "design matrix", "privatize"],
)  # fmt: skip
def test_an_output_into_a_missing_folder_is_named(capsys, files, tmp_path, argv):
    out = str(tmp_path / "missing" / "out")
    code, _, err = run(capsys, [a.format(**{**files, "out": out}) for a in argv])
    assert code == 2
    assert err.startswith("ldp: error: cannot write --out ") and out in err
    assert "Errno" not in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- real processes
def _ldp_process(*argv: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ldp", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_console_entry_point():
    """``python -m ldp`` in two real processes, started together: JSON on stdout and exit code
    0; a bad argument gives exit code 2 (``main``'s return value reaches the shell) and one
    line on stderr, never a traceback. Everything else runs in-process."""
    good = _ldp_process("report", "k-rr", "--k", "4", "--epsilon", "1", "--json")
    bad = _ldp_process("report", "rr", "--epsilon", "-1")
    out, err = good.communicate(timeout=300)
    assert good.returncode == 0, err
    assert json.loads(out)["epsilon"] == pytest.approx(1.0)  # stdout is pure JSON
    out, err = bad.communicate(timeout=300)
    assert bad.returncode == 2, (out, err)
    assert out == "" and "Traceback" not in err
    assert err.startswith("ldp: error:") and "epsilon" in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
def test_a_closed_pipe_is_not_an_error():
    """``ldp report ... | head -1``: the reader leaves early; no traceback. A real process,
    because what is checked is what the interpreter does with stdout at exit."""
    process = _ldp_process("report", "k-rr", "--k", "4", "--epsilon", "1")
    process.stdout.close()  # nobody reads the output
    err = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=300) == 0
    assert "Traceback" not in err


def test_estimate_reads_a_large_report_file_in_bounded_memory(capsys, tmp_path):
    """``ldp estimate --protocol`` aggregates a report file chunk by chunk: with a small
    ``--chunksize`` the peak memory is a fraction of what reading the whole file takes."""
    import tracemalloc

    n = 200_000
    protocol = Protocol.from_mechanism(GRR(8, 1.0))
    protocol.save(tmp_path / "p.json")
    gen = np.random.default_rng(0)
    write_reports(protocol, protocol.privatize(gen.integers(0, 8, n), rng=1), tmp_path / "r.csv")
    argv = ["estimate", "--protocol", str(tmp_path / "p.json"), str(tmp_path / "r.csv"), "--json"]

    def peak(chunksize: int) -> int:
        tracemalloc.start()
        try:
            code, out, err = run(capsys, [*argv, "--chunksize", str(chunksize)])
            top = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert code == 0, err
        assert json.loads(out)["n"] == n
        return top

    small, whole = peak(5_000), peak(n)
    assert small < whole / 4, (small, whole)
    assert small < 8 * 2**20
