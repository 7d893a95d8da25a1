"""ldp.risk.plan() / gap() and the ``ldp plan`` command: the thresholds are the smallest n (or
epsilon) at which each side meets the target, checked against the calculators directly."""

import dataclasses
import json
import math

import pytest

from ldp.cli import main
from ldp.risk import (
    PROBLEMS,
    Plan,
    TargetOutOfReach,
    best_distribution_risk,
    best_mean_risk,
    binary_test_sample_size,
    distribution_lower_bound,
    gap,
    mean_estimation,
    plan,
)


@pytest.mark.parametrize(
    ("problem", "eps", "target", "options"),
    [
        ("distribution", 1.0, 1e-3, {"k": 10}),
        ("distribution", 0.5, 0.05, {"k": 64, "loss": "tv"}),
        ("mean", 2.0, 1e-3, {}),
        ("mean-ball", 1.0, 1e-2, {"d": 10}),
        ("mean-box", 1.0, 0.5, {"d": 8, "r": 2.0}),
    ],
)
def test_thresholds_are_the_first_n(problem, eps, target, options):
    p = plan(problem, eps, target, **options)
    if problem == "distribution":
        k, loss = options["k"], options.get("loss", "l2sq")
        achieved = lambda n: best_distribution_risk(k, n, eps, loss=loss)  # noqa: E731
        lower = lambda n: distribution_lower_bound(k, n, eps, loss=loss)  # noqa: E731
    else:
        domain = {"mean": "interval", "mean-box": "box", "mean-ball": "ball"}[problem]
        kw = {"d": options.get("d", 1), "domain": domain, "r": options.get("r", 1.0)}
        achieved = lambda n: best_mean_risk(n, eps, **kw)  # noqa: E731
        lower = lambda n: mean_estimation(n, eps, **kw)  # noqa: E731
    assert achieved(p.n_required).value <= target < achieved(p.n_required - 1).value
    assert lower(p.n_lower_bound).value <= target < lower(p.n_lower_bound - 1).value
    assert p.n_lower_bound <= p.n_required
    assert p.gap.achieved.value == achieved(p.n_required).value
    assert p.mechanism == p.gap.achieved.mechanism


def test_inverse_question():
    p = plan("distribution", None, 1e-3, k=10, n=100_000)
    eps = p.epsilon_required
    assert best_distribution_risk(10, 100_000, eps).value <= 1e-3
    assert best_distribution_risk(10, 100_000, eps * (1 - 1e-5)).value > 1e-3
    low = p.epsilon_lower_bound
    assert distribution_lower_bound(10, 100_000, low).value > 1e-3
    assert distribution_lower_bound(10, 100_000, low * (1 + 1e-5)).value <= 1e-3
    assert low < eps
    assert "epsilon needed by SS" in str(p)


def test_binary_test_is_exact_both_ways():
    p = plan("binary-test", 1.0, 0.2, p0=0.5, p1=0.6, alpha=0.05)
    exact = binary_test_sample_size(0.5, 0.6, 1.0, alpha=0.05, beta=0.2)
    assert p.n_required == p.n_lower_bound == exact.n
    q = plan("binary-test", None, 0.2, p0=0.5, p1=0.6, alpha=0.05, n=exact.n)
    assert q.epsilon_required <= 1.0 + 1e-6
    assert binary_test_sample_size(0.5, 0.6, q.epsilon_required, alpha=0.05, beta=0.2).n <= exact.n


def test_gap_and_plan_are_frozen():
    g = gap("distribution", 1000, 1.0, k=4)
    assert g.ratio == pytest.approx(g.achieved.value / g.lower.value)
    p = plan("mean", 1.0, 1e-2)
    assert isinstance(p, Plan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.n_required = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.ratio = 1.0
    assert set(PROBLEMS) == {
        "distribution",
        "mean",
        "mean-box",
        "mean-ball",
        "marginals",
        "binary-test",
    }


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: plan("median", 1.0, 0.1), ValueError, "problem must be one of"),
        (lambda: plan("distribution", 1.0, 0.1), TypeError, "needs k"),
        (lambda: plan("mean", 1.0, 0.1, k=3), TypeError, "does not take k"),
        (lambda: plan("distribution", 1.0, 0.0, k=3), ValueError, "target_risk"),
        (lambda: plan("distribution", 1.0, 0.1, k=3, n=10), TypeError, "not both"),
        (lambda: plan("distribution", None, 0.1, k=3), TypeError, "pass epsilon"),
        (lambda: plan("distribution", 0.0, 0.1, k=3), ValueError, "epsilon"),
        (lambda: plan("distribution", 1.0, 0.1, k=1), ValueError, "k"),
        (lambda: plan("binary-test", 1.0, 0.1, p0=0.3, p1=0.3, alpha=0.1), ValueError, "equal"),
        (lambda: plan("binary-test", 1.0, 1.5, p0=0.3, p1=0.4, alpha=0.1), ValueError, "< 1"),
        (lambda: plan("distribution", None, 1e-9, k=10, n=5), TargetOutOfReach, "out of reach"),
        (lambda: plan("mean", 1e-6, 1e-14), TargetOutOfReach, "out of reach"),
        (lambda: gap("binary-test", 10, 1.0), ValueError, "exact"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------------------- ldp plan


@pytest.mark.parametrize(
    ("call", "epsilon", "n"),
    [
        (lambda: plan("mean", 1e-6, 1e-14), 1e-6, None),
        (lambda: plan("distribution", None, 1e-9, k=10, n=5), None, 5),
        (
            lambda: plan("binary-test", None, 1e-9, n=10, p0=0.3, p1=0.31, alpha=0.05),
            None,
            10,
        ),
    ],
)
def test_an_unreachable_target_is_refused_with_the_question_asked(call, epsilon, n):
    """Each of the planner's three searches refuses a target it cannot reach with a
    TargetOutOfReach (a ValueError) that carries the target and the epsilon or n given."""
    with pytest.raises(TargetOutOfReach) as refusal:
        call()
    assert isinstance(refusal.value, ValueError)
    assert (refusal.value.epsilon, refusal.value.n) == (epsilon, n)
    assert refusal.value.target_risk in (1e-14, 1e-9)


def test_cli_plan_users(capsys):
    assert (
        main(["plan", "distribution", "--k", "10", "--epsilon", "1", "--target", "1e-3", "--json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    p = plan("distribution", 1.0, 1e-3, k=10)
    assert data["n_required"] == p.n_required and data["n_lower_bound"] == p.n_lower_bound
    assert data["mechanism"] == "SS"
    assert data["ratio"] == pytest.approx(p.gap.ratio)
    assert main(["plan", "mean-ball", "--d", "10", "--epsilon", "1", "--target", "0.01"]) == 0
    text = capsys.readouterr().out
    assert "users needed (privunit)" in text and "no protocol can do without" in text


def test_cli_plan_marginals(capsys):
    argv = ["plan", "marginals", "--sizes", "2,3,4", "--way", "2", "--epsilon", "1"]
    assert main([*argv, "--target", "1e-3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    p = plan("marginals", 1.0, 1e-3, sizes=(2, 3, 4), marginals=2)
    assert data["n_required"] == p.n_required and data["n_lower_bound"] == p.n_lower_bound
    assert data["mechanism"] == p.mechanism
    assert main([*argv, "--target", "1e-3", "--method", "groups"]) == 0
    text = capsys.readouterr().out
    assert "users needed (groups:GRR/OUE)" in text and "sizes = (2, 3, 4)" in text
    argv = ["plan", "marginals", "--sizes", "2,2,2,2", "--epsilon", "1", "--target", "1e-3"]
    for extra, consistency in (([], True), (["--no-consistency"], False)):
        assert main([*argv, *extra, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        p = plan("marginals", 1.0, 1e-3, sizes=(2, 2, 2, 2), consistency=consistency)
        assert data["mechanism"] == p.mechanism and data["consistency"] is consistency
        assert data["total_unbiased"] == p.gap.achieved.total_unbiased
        assert data["total_consistent"] == p.gap.achieved.total_consistent
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "total variance, after consistency" in text and "groups:GRR" in text
    wide = ["plan", "marginals", "--sizes", "8,8,8", "--epsilon", "1", "--target", "1e-3"]
    assert main([*wide, "--candidates", "GRR,OUE,SS", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    p = plan("marginals", 1.0, 1e-3, sizes=(8, 8, 8), candidates=("GRR", "OUE", "SS"))
    assert data["mechanism"] == p.mechanism == "groups:SS"
    assert main([*wide, "--candidates", "GRR,XYZ"]) == 2
    assert "candidates must be names among" in capsys.readouterr().err


def test_cli_plan_epsilon(capsys):
    assert (
        main(
            [
                "plan",
                "binary-test",
                "--p0",
                "0.5",
                "--p1",
                "0.6",
                "--alpha",
                "0.05",
                "--n",
                "1000",
                "--target",
                "0.2",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["epsilon_required"] == pytest.approx(
        plan("binary-test", None, 0.2, p0=0.5, p1=0.6, alpha=0.05, n=1000).epsilon_required
    )
    assert math.isclose(data["ratio"], 1.0)


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "distribution", "--k", "10", "--target", "0.1"],
        ["plan", "distribution", "--k", "10", "--target", "0.1", "--epsilon", "1", "--n", "5"],
        ["plan", "mean", "--epsilon", "1", "--target", "0.1", "--k", "3"],
        ["plan", "nope", "--epsilon", "1", "--target", "0.1"],
        ["plan", "distribution", "--k", "10", "--n", "5", "--target", "1e-9"],
        ["plan", "marginals", "--sizes", "2,x", "--epsilon", "1", "--target", "0.1"],
        ["plan", "marginals", "--sizes", "2,3", "--way", "3", "--epsilon", "1", "--target", "0.1"],
    ],
)
def test_cli_plan_errors(argv, capsys):
    parse_error = argv[1] == "nope" or "2,x" in argv  # argparse exits on its own
    with pytest.raises(SystemExit) if parse_error else _no_exit():
        code = main(argv)
        assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


_TARGET = ["--target", "0.01", "--epsilon", "1"]
_TEST = ["binary-test", *_TARGET, "--alpha", "0.05"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["marginals", *_TARGET], "the marginals problem needs --sizes"),
        (
            ["marginals", *_TARGET, "--sizes", "2,3", "--way", "3"],
            "--way must be a width in 1 .. 2 (the columns of --sizes 2,3), got 3",
        ),
        (
            ["marginals", *_TARGET, "--sizes", "2,3", "--way", "0"],
            "--way must be a width in 1 .. 2 (the columns of --sizes 2,3), got 0",
        ),
        (
            ["marginals", *_TARGET, "--sizes", "2,0,3"],
            "--sizes must be category counts >= 1, got 2,0,3",
        ),
        (
            ["marginals", *_TARGET, "--sizes", "2,3", "--candidates", "GRR,XYZ"],
            "--candidates must be names among GRR,SUE,OUE,OLH,BLH,HR,SS, got 'GRR,XYZ'",
        ),
        (
            ["marginals", *_TARGET, "--sizes", "2,3", "--method", "fourier"],
            "--method fourier needs binary columns (2 categories each), got --sizes 2,3",
        ),
        (
            ["marginals", *_TARGET, "--sizes", "100,100,100", "--method", "joint"],
            "--method joint needs a joint of at most MAX_JOINT_CELLS = 65536 cells, got "
            "--sizes 100,100,100 (1000000 cells)",
        ),
        (
            ["marginals", *_TARGET, "--sizes", "2,3", "--k", "4"],
            "--k 4 does not apply to the marginals problem (it takes --sizes, --way, --method, "
            "--no-consistency, --candidates)",
        ),
        (
            ["mean", *_TARGET, "--no-consistency"],
            "--no-consistency does not apply to the mean problem (it takes --r)",
        ),
        (
            ["mean", *_TARGET, "--way", "2"],
            "--way 2 does not apply to the mean problem (it takes --r)",
        ),
        (
            ["mean", *_TARGET, "--p0", "0.3,0.7"],
            "--p0 0.3,0.7 does not apply to the mean problem (it takes --r)",
        ),
        (["mean", "--target", "-1", "--epsilon", "1"], "--target must be > 0.0, got -1.0"),
        (["mean", "--target", "0.1", "--epsilon", "-1"], "--epsilon must be > 0.0, got -1.0"),
        (["mean", "--target", "0.1", "--epsilon", "inf"], "--epsilon must be finite, got inf"),
        (["mean", "--target", "0.1", "--n", "0"], "--n must be >= 1, got 0"),
        (["mean", *_TARGET, "--r", "-1"], "--r must be > 0.0, got -1.0"),
        (["distribution", *_TARGET], "the distribution problem needs --k"),
        (["distribution", *_TARGET, "--k", "1"], "--k must be >= 2, got 1"),
        (["mean-ball", *_TARGET, "--d", "0"], "--d must be >= 1, got 0"),
        (
            ["mean", "--target", "1e-30", "--epsilon", "1"],
            "--target 1e-30 is out of reach at --epsilon 1: the best mechanism's risk stays "
            "above it for every number of users up to 2^50",
        ),
        (
            ["marginals", "--target", "1e-3", "--n", "100", "--sizes", "2,3"],
            "--target 0.001 is out of reach with --n 100: the best mechanism stays above it "
            "for every epsilon up to 50",
        ),
        (
            ["binary-test", *_TARGET, "--p0", "0.5"],
            "the binary-test problem needs --p1, --alpha",
        ),
        (
            [
                "binary-test",
                "--target",
                "2",
                "--epsilon",
                "1",
                "--p0",
                "0.5",
                "--p1",
                "0.6",
                "--alpha",
                "0.05",
            ],
            "--target (the type-II error) must be < 1.0, got 2.0",
        ),
        ([*_TEST, "--p0", "0.5", "--p1", "1.5"], "--p1 must be <= 1.0, got 1.5"),
        (
            [*_TEST, "--p0", "0.5,0.5", "--p1", "0.6,0.3"],
            "--p1 must be a probability or a pmf (numbers >= 0 that sum to 1), got 0.6,0.3",
        ),
        (
            [*_TEST, "--p0", "0.5,0.5", "--p1", "0.6"],
            "--p0 and --p1 must both be probabilities or both be pmfs, got --p0 0.5,0.5 and "
            "--p1 0.6",
        ),
        (
            [*_TEST, "--p0", "0.5,0.5", "--p1", "0.6,0.3,0.1"],
            "--p0 and --p1 must be pmfs of the same length, got --p0 0.5,0.5 and --p1 0.6,0.3,0.1",
        ),
        (
            [*_TEST, "--p0", "0.5", "--p1", "0.5"],
            "no number of users separates equal laws, got --p0 0.5 and --p1 0.5",
        ),
        (
            ["binary-test", *_TARGET, "--p0", "0.5", "--p1", "0.6", "--alpha", "1"],
            "--alpha must be < 1.0, got 1.0",
        ),
        (
            ["marginals", *_TARGET, "--sizes", "100000,1000"],
            "--target 0.01 --epsilon 1 --sizes 100000,1000: the marginal of columns (0, 1) has "
            "100,000,000 cells (the product of its columns' sizes (100000, 1000)); the limit is "
            "MAX_TABLE_CELLS (ldp.tasks.marginals) = 16,777,216",
        ),
    ],
)
def test_cli_plan_errors_name_the_flag_and_its_value(argv, message, capsys):
    assert main(["plan", *argv]) == 2
    assert capsys.readouterr().err == f"ldp: error: {message}\n"


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
