"""The variance of a sum of cells' estimates (``FrequencyOracle.sum_variance``), against brute
force and against simulation.

Brute force: every report of the oracle is enumerated with its probability given each input
(``tests.report_laws``), decoded on its own, and the decoded entries of the summed values are
added up; the variance of that sum under the mixture ``sum_x f_x P(. | x)`` over ``n`` is the
``iid`` variance, and ``sum_x f_x Var(. | x) / n`` the ``fixed`` one. Nothing here uses the
pair-support probabilities the formula is built from.
"""

import math

import numpy as np
import pytest

from ldp._formulas import support_sum_variance
from ldp.mechanisms import (
    BLH,
    GRR,
    LGRR,
    LOSUE,
    LOUE,
    OLH,
    OUE,
    RAPPOR,
    SUE,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
)
from tests.report_laws import decoded_outputs


def brute_sum_variance(oracle, n, f, subset, convention):
    psi, law = decoded_outputs(oracle)
    z = psi[:, list(subset)].sum(axis=1)  # each report's estimate of the sum
    if convention == "fixed":
        means = law @ z
        return float(f @ (law @ z**2 - means**2)) / n
    mix = f @ law
    return float(mix @ z**2 - (mix @ z) ** 2) / n


CONSTANT = [
    GRR(5, 1.0),
    GRR(6, 0.3),
    OUE(5, 1.0),
    SUE(6, 2.0),
    OLH(6, 1.0),  # g = 4: GF(4), 3-wise independent
    OLH(5, 2.0),  # g = 8
    LocalHashing(5, 1.0, g=6),  # the ring family
    BLH(5, 1.0),
    SubsetSelection(6, 1.0, d=2, encoding="indices"),
    SubsetSelection(5, 1.0, d=3, encoding="indices"),
    SubsetSelection(2, 1.0, d=1, encoding="indices"),
]
SUBSETS = [(0,), (1, 3), (0, 2, 4), (0, 1, 2, 3, 4)]


@pytest.mark.parametrize("oracle", CONSTANT, ids=repr)
@pytest.mark.parametrize("subset", SUBSETS)
@pytest.mark.parametrize("convention", ["iid", "fixed"])
def test_sum_variance_is_the_enumerated_variance(oracle, subset, convention):
    subset = tuple(v for v in subset if v < oracle.k)
    assert oracle.constant_pair_support
    f = np.random.default_rng(len(subset)).dirichlet(np.ones(oracle.k))
    n = 37
    want = brute_sum_variance(oracle, n, f, subset, convention)
    total = min(f[list(subset)].sum(), 1.0)  # a sum of every value may round above 1
    got = oracle.sum_variance(n, total, len(subset), convention)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-14)


@pytest.mark.parametrize("oracle", [GRR(4, 1.0), OUE(4, 1.0), OLH(4, 1.0)], ids=repr)
def test_one_value_is_the_oracles_variance_and_arrays_broadcast(oracle):
    totals = np.array([0.0, 0.3, 1.0])
    for conv in ("iid", "fixed"):
        want = oracle.variance(50, totals, conv)
        assert np.allclose(oracle.sum_variance(50, totals, 1, conv), want)
    assert isinstance(oracle.sum_variance(50, 0.3, 2), float)


def test_the_sum_of_every_grr_value_is_exact():
    assert GRR(5, 1.0).sum_variance(10, 1.0, 5) == 0.0


@pytest.mark.parametrize(
    "oracle",
    [HadamardResponse(6, 1.0), HadamardResponse(3, 1.0), LocalHashing(5, 1.0, g=3)],
    ids=repr,
)
def test_oracles_with_exceptional_triples_are_refused_and_rightly_so(oracle):
    assert not oracle.constant_pair_support
    with pytest.raises(ValueError, match="depends on the third value"):
        oracle.sum_variance(10, 0.5, 2)
    # the refusal is needed: the constant-pair formula misses the exceptional triples
    f = np.random.default_rng(1).dirichlet(np.ones(oracle.k))
    own, other = oracle._pair_support()
    misses = []
    for u in range(oracle.k):
        for v in range(u + 1, oracle.k):
            total = f[u] + f[v]
            formula = support_sum_variance(1, total, 2, oracle.p, oracle.q, own, other)
            misses.append(abs(formula - brute_sum_variance(oracle, 1, f, (u, v), "iid")))
    assert max(misses) > 1e-3


LONGITUDINAL = [LGRR(4, 1.0, 2.0), LOSUE(4, 1.0, 2.0), LOUE(4, 1.0, 2.0)]


@pytest.mark.parametrize("oracle", LONGITUDINAL, ids=repr)
def test_longitudinal_oracles_follow_the_same_formula(oracle):
    f = np.array([0.1, 0.2, 0.3, 0.4])
    for subset in [(0, 2), (1, 2, 3)]:
        want = brute_sum_variance(oracle, 9, f, subset, "iid")
        assert oracle.sum_variance(9, f[list(subset)].sum(), len(subset)) == pytest.approx(
            want, rel=1e-9
        )


def test_rappor_follows_the_same_formula():
    oracle = RAPPOR(4, f=0.5, p=0.5, q=0.75)
    f = np.array([0.4, 0.1, 0.3, 0.2])
    want = brute_sum_variance(oracle, 5, f, (0, 3), "iid")
    assert oracle.sum_variance(5, 0.6, 2) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("oracle", [GRR(6, 1.0), OUE(6, 1.0), OLH(6, 2.0)], ids=repr)
def test_sum_variance_matches_simulated_reports(oracle):
    # 400 batches of 300 users: the sample variance of the summed estimate has a relative
    # standard deviation of about sqrt(2 / 399) = 7%, so 0.75 .. 1.3 fails by chance < 1e-4
    rng = np.random.default_rng(12)
    f = rng.dirichlet(np.ones(6))
    subset = [1, 2, 4]
    n, reps = 300, 400
    values = rng.choice(6, size=(reps, n), p=f)
    sums = [oracle.estimate(oracle.privatize(row, rng=rng))[subset].sum() for row in values]
    ratio = np.var(sums, ddof=1) / oracle.sum_variance(n, f[subset].sum(), 3)
    assert 0.75 < ratio < 1.3, ratio
    assert abs(np.mean(sums) - f[subset].sum()) < 4 * math.sqrt(np.var(sums) / reps)


def test_bad_arguments_name_themselves():
    grr = GRR(4, 1.0)
    with pytest.raises(ValueError, match=r"total must be frequencies in \[0, 1\], got 1.5"):
        grr.sum_variance(10, 1.5, 2)
    with pytest.raises(ValueError, match="m must be at most k = 4, got 5"):
        grr.sum_variance(10, 0.5, 5)
    with pytest.raises(ValueError, match="m must be"):
        grr.sum_variance(10, 0.5, 0)
    with pytest.raises(TypeError, match="m must be an integer"):
        grr.sum_variance(10, 0.5, 2.0)
    with pytest.raises(ValueError, match="convention"):
        grr.sum_variance(10, 0.5, 2, "both")
