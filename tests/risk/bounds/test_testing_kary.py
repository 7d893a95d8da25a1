"""Simple hypothesis tests on any alphabet: the KL ceiling is above the KL of every eps-LDP
channel on every pair at that total variation, the sample-size lower bound never exceeds
the exact minimax sample size of binary problems nor what randomized response on a
likelihood-ratio set achieves, and the planner and CLI carry both."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ldp.cli import main
from ldp.design import optimal_channel
from ldp.risk import (
    best_binary_test,
    binary_test_sample_size,
    kl_ceiling,
    plan,
    sample_size_lower_bound,
)


def random_ldp_channel(rng, k, eps, m):
    """Rows mixed with their mean by the least weight that makes them eps-LDP."""
    rows = rng.dirichlet(np.full(m, 0.3), size=k)
    mean = rows.mean(axis=0)
    for w in np.linspace(0, 1, 201):
        q = (1 - w) * rows + w * mean
        if np.all(q.max(axis=0) <= math.exp(eps) * q.min(axis=0)):
            return q
    return np.tile(mean, (k, 1))


def test_ceiling_is_above_every_channel_and_pair():
    rng = np.random.default_rng(0)
    for _ in range(300):
        k, eps = int(rng.integers(2, 7)), float(rng.uniform(0.05, 5))
        p0, p1 = rng.dirichlet(np.full(k, 0.5)), rng.dirichlet(np.full(k, 0.5))
        q = random_ldp_channel(rng, k, eps, int(rng.integers(2, 6)))
        a, b = p0 @ q, p1 @ q
        kl = float(np.sum(a * np.log(a / b)))
        assert kl <= kl_ceiling(0.5 * np.abs(p0 - p1).sum(), eps).value * (1 + 1e-9)


@pytest.mark.parametrize("tv", [0.05, 0.4, 1.0])
@pytest.mark.parametrize("eps", [0.5, 2.0, 6.0])
def test_ceiling_is_the_three_letter_optimum(tv, eps):
    """Against the full staircase LP of the design module on the three-letter pair, and the
    binary case by hand: two disjoint letters give randomized response, eps tanh(eps/2)."""
    pair = ([tv, 0.0, 1 - tv], [0.0, tv, 1 - tv])
    lp = optimal_channel(3, eps, utility="kl", hypotheses=pair, method="staircase").value
    ceiling = kl_ceiling(tv, eps).value
    assert lp <= ceiling * (1 + 1e-9)
    assert ceiling <= max(lp * (1 + 1e-4), lp + 1e-12) or "Duchi" in kl_ceiling(tv, eps).method
    if tv == 1.0:
        assert ceiling == pytest.approx(eps * math.tanh(eps / 2), rel=1e-6)


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_lower_bound_below_the_exact_binary_minimax(eps):
    rng = np.random.default_rng(int(10 * eps))
    for _ in range(40):
        a, b = rng.uniform(0.05, 0.95, size=2)
        if abs(a - b) < 0.02:
            continue
        alpha, beta = rng.uniform(0.01, 0.3, size=2)
        exact = binary_test_sample_size(a, b, eps, alpha=alpha, beta=beta).value
        lower = sample_size_lower_bound([a, 1 - a], [b, 1 - b], eps, alpha=alpha, beta=beta).value
        assert lower <= exact
        assert exact <= 20 * max(lower, 1)  # and not far below it (large eps is loosest)
        achieved = best_binary_test([a, 1 - a], [b, 1 - b], eps, alpha=alpha, beta=beta).value
        assert achieved == exact  # two letters: the set is one letter, the reduction is exact


@pytest.mark.parametrize(
    "problems", [8, pytest.param(30, marks=[pytest.mark.slow, pytest.mark.long])]
)
def test_kary_achieved_is_above_the_bound_and_beats_the_tv_set(problems):
    rng = np.random.default_rng(2)  # the first problems are the same in both runs
    for _ in range(problems):
        k, eps = int(rng.integers(3, 20)), float(rng.uniform(0.2, 3))
        p0 = rng.dirichlet(np.ones(k))
        p1 = 0.7 * p0 + 0.3 * rng.dirichlet(np.ones(k))
        kw = {"alpha": 0.05, "beta": 0.2}
        best = best_binary_test(p0, p1, eps, **kw)
        assert sample_size_lower_bound(p0, p1, eps, **kw).value <= best.value
        tv_set = p0 > p1
        by_tv = binary_test_sample_size(p0[tv_set].sum(), p1[tv_set].sum(), eps, **kw).value
        assert best.value <= by_tv


def test_simulated_test_meets_the_targets():
    """Randomized response on the chosen set with the Neyman-Pearson count test, simulated."""
    p0, p1 = np.array([0.5, 0.3, 0.2]), np.array([0.3, 0.3, 0.4])
    eps, alpha, beta = 1.0, 0.05, 0.2
    best = best_binary_test(p0, p1, eps, alpha=alpha, beta=beta)
    n, s = int(best.value), list(best.letters)
    r = 1 / (1 + math.exp(-eps))
    rng = np.random.default_rng(7)
    q0 = r * p0[s].sum() + (1 - r) * (1 - p0[s].sum())
    q1 = r * p1[s].sum() + (1 - r) * (1 - p1[s].sum())
    assert sorted([q0, q1]) == pytest.approx(sorted(best.probabilities), rel=1e-12) or sorted(
        [1 - q0, 1 - q1]
    ) == pytest.approx(sorted(best.probabilities), rel=1e-12)
    reps = 20_000
    c0 = rng.binomial(n, q0, size=reps)
    c1 = rng.binomial(n, q1, size=reps)
    # the count test rejects for small counts (q1 < q0); threshold from the H0 law
    from scipy import stats

    cut = int(stats.binom.ppf(alpha, n, q0))
    while stats.binom.cdf(cut, n, q0) > alpha:
        cut -= 1
    size = np.mean(c0 <= cut)
    power = np.mean(c1 <= cut)
    assert size <= alpha + 4 * math.sqrt(alpha / reps)
    # the randomized Neyman-Pearson test reaches beta; the non-randomized one is close
    assert 1 - power <= beta + 0.05


def test_plan_and_cli():
    kw = {"p0": [0.5, 0.3, 0.2], "p1": [0.3, 0.3, 0.4], "alpha": 0.05}
    p = plan("binary-test", 1.0, 0.2, **kw)
    assert p.n_lower_bound <= p.n_required
    assert p.n_required == best_binary_test(kw["p0"], kw["p1"], 1.0, alpha=0.05, beta=0.2).value
    inverse = plan("binary-test", None, 0.2, n=p.n_required, **kw)
    assert inverse.epsilon_lower_bound <= inverse.epsilon_required <= 1.0 + 1e-6
    with pytest.raises(TypeError, match="both"):
        plan("binary-test", 1.0, 0.2, p0=0.5, p1=[0.5, 0.5], alpha=0.05)
    with pytest.raises(ValueError, match="equal"):
        plan("binary-test", 1.0, 0.2, p0=[0.5, 0.5], p1=[0.5, 0.5], alpha=0.05)


def test_cli_plan_takes_pmfs(capsys):
    args = ["plan", "binary-test", "--target", "0.2", "--epsilon", "1", "--alpha", "0.05"]
    assert main([*args, "--p0", "0.5,0.3,0.2", "--p1", "0.3,0.3,0.4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_lower_bound"] <= data["n_required"]
    with pytest.raises(SystemExit):
        main([*args, "--p0", "0.5,x", "--p1", "0.3,0.7"])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: kl_ceiling(1.5, 1.0), "tv"),
        (lambda: kl_ceiling(0.5, -1.0), "epsilon"),
        (
            lambda: sample_size_lower_bound([0.5, 0.5], [0.2, 0.3, 0.5], 1.0, alpha=0.1, beta=0.1),
            "same length",
        ),
        (
            lambda: sample_size_lower_bound([0.5, 0.5], [0.2, 0.8], 1.0, alpha=0.0, beta=0.1),
            "alpha",
        ),
        (lambda: best_binary_test([0.5, 0.6], [0.2, 0.8], 1.0, alpha=0.1, beta=0.1), "p0"),
        (lambda: best_binary_test([0.5, 0.5], [0.2, 0.8], 1.0, alpha=0.1, beta=0.0), "beta"),
        (lambda: best_binary_test([0.5, 0.5], [0.2, 0.8], 1.0, alpha=1.0, beta=0.1), "alpha"),
        (lambda: best_binary_test([0.5, 0.5], [0.2, 0.8], 1.0, alpha=0.1, beta=np.nan), "beta"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_pair_ceiling_is_above_the_pairs_exact_kl_and_sharpens_the_bound():
    """The pair's own staircase LP (full, all 2^k patterns, by the design module) is below
    the ceiling the bound used, in both directions; at large epsilon the pair's ceiling is
    much below the total-variation one, so the bound grows."""
    rng = np.random.default_rng(12)
    for _ in range(6):
        k, eps = int(rng.integers(3, 8)), float(rng.uniform(0.5, 8))
        p0 = rng.dirichlet(np.ones(k))
        p1 = 0.8 * p0 + 0.2 * rng.dirichlet(np.ones(k))
        kw = {"alpha": 0.05, "beta": 0.2}
        sharp = sample_size_lower_bound(p0, p1, eps, **kw)
        loose = sample_size_lower_bound(p0, p1, eps, pair_ceiling=False, **kw)
        for a, b in ((p0, p1), (p1, p0)):
            exact = optimal_channel(k, eps, utility="kl", hypotheses=(a, b), method="staircase")
            assert exact.value <= sharp.ceiling * (1 + 1e-9)
        assert loose.value <= sharp.value <= best_binary_test(p0, p1, eps, **kw).value
    p0 = np.array([0.5, 0.3, 0.2])
    p1 = np.array([0.3, 0.3, 0.4])
    assert sample_size_lower_bound(p0, p1, 8.0, alpha=0.05, beta=0.2).value > 3 * (
        sample_size_lower_bound(p0, p1, 8.0, alpha=0.05, beta=0.2, pair_ceiling=False).value
    )
