"""Consistency post-processing: the simplex projection against its KKT conditions, norm-sub
equals the projection, norm-mul, and IBU against a direct likelihood maximisation."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import optimize

import ldp
from ldp.mechanisms import GRR, OUE
from ldp.tasks import ibu, norm_mul, norm_sub, project_simplex

vectors = arrays(
    np.float64,
    st.integers(1, 12),
    elements=st.floats(-3, 3, allow_nan=False, allow_subnormal=False),
)


@given(vectors)
def test_projection_satisfies_kkt(f):
    out = project_simplex(f)
    assert np.all(out >= 0)
    assert out.sum() == pytest.approx(1.0, abs=1e-12)
    # KKT of min ||x - f||^2 on the simplex: f - x = tau on the support, f <= tau off it
    support = out > 0
    tau = (f - out)[support]
    assert np.ptp(tau) < 1e-9
    assert np.all(f[~support] <= tau[0] + 1e-9)


@given(vectors)
def test_norm_sub_against_projection(f):
    out = norm_sub(f)
    assert np.all(out >= 0) and out.sum() == pytest.approx(1.0, abs=1e-12)
    positive = f > 0
    if np.maximum(f, 0).sum() >= 1:
        assert np.allclose(out, project_simplex(f), atol=1e-12)
    elif positive.any():
        # too little mass: the positive entries are raised by one common delta, zeros stay
        assert np.all(out[~positive] == 0)
        assert np.ptp(out[positive] - f[positive]) < 1e-12


@given(vectors, st.integers(0, 2**32 - 1))
def test_projection_never_increases_l2_error_to_a_distribution(f, seed):
    truth = np.random.default_rng(seed).dirichlet(np.ones(f.size))
    assert np.sum((project_simplex(f) - truth) ** 2) <= np.sum((f - truth) ** 2) + 1e-12


def test_batched_projection_and_norm_mul():
    f = np.array([[0.6, 0.5, -0.1], [0.2, 0.2, 0.2]])
    rows = np.array([project_simplex(r) for r in f])
    assert np.allclose(project_simplex(f), rows)
    assert np.allclose(project_simplex(f)[1], 1 / 3)
    mul = norm_mul([0.6, 0.2, -0.4])
    assert mul == pytest.approx([0.75, 0.25, 0.0])
    assert norm_mul([-1.0, -2.0]) == pytest.approx([0.5, 0.5])


def test_bad_input():
    with pytest.raises(ValueError, match="finite"):
        project_simplex([np.nan, 1.0])
    with pytest.raises(ValueError, match="at least one"):
        project_simplex([])
    with pytest.raises(TypeError, match="Channel or a FrequencyOracle"):
        ibu("grr", [1, 2])
    with pytest.raises(ValueError, match="histogram"):
        ibu(ldp.k_rr(3, 1.0), [1, 2])


def mle_by_optimizer(matrix, counts):
    """Maximise sum_z counts_z log (p K)_z over the simplex with a softmax parametrisation."""
    k = matrix.shape[0]

    def nll(theta):
        p = np.exp(theta - theta.max())
        p /= p.sum()
        return -np.sum(counts * np.log(p @ matrix))

    res = optimize.minimize(nll, np.zeros(k), method="BFGS", options={"gtol": 1e-10})
    p = np.exp(res.x - res.x.max())
    return p / p.sum()


def test_ibu_is_the_channel_mle(rng):
    channel = ldp.k_rr(4, 1.0)
    reports = channel.privatize(rng.choice(4, 3000, p=[0.5, 0.3, 0.15, 0.05]), rng=rng)
    hist = np.bincount(reports, minlength=4)
    em = ibu(channel, hist, tol=1e-14, max_iter=100_000)
    assert em == pytest.approx(mle_by_optimizer(channel.matrix, hist), abs=1e-5)
    # at an interior MLE of a square invertible channel, the MLE is the unbiased estimate
    assert em == pytest.approx(GRR(4, 1.0).estimate(reports.astype(np.int64)), abs=1e-5)


def test_ibu_for_oracles(rng):
    grr = GRR(6, 1.0)
    x = rng.choice(6, 5000, p=[0.4, 0.3, 0.2, 0.1, 0.0, 0.0])
    reports = grr.privatize(x, rng=rng)
    # for GRR the support counts are the histogram and the pseudo-channel is k-RR itself
    via_oracle = ibu(grr, reports, tol=1e-13)
    via_channel = ibu(grr.to_channel(), grr.aggregate(reports).counts, tol=1e-13)
    assert via_oracle == pytest.approx(via_channel, abs=1e-9)
    oue = OUE(6, 1.0)
    est = ibu(oue, oue.aggregate(oue.privatize(x, rng=rng)))
    assert est.sum() == pytest.approx(1.0) and np.all(est >= 0)
    assert np.abs(est - [0.4, 0.3, 0.2, 0.1, 0.0, 0.0]).max() < 0.06


def test_post_processing_tradeoff_on_sparse_truth(rng):
    # documented trade-off: on a sparse truth, the projection and IBU beat the raw estimate
    truth = np.zeros(64)
    truth[:4] = [0.4, 0.3, 0.2, 0.1]
    oue = OUE(64, 1.0)
    raw_err, proj_err, ibu_err = [], [], []
    for _ in range(20):
        x = rng.choice(64, 2000, p=truth)
        counts = oue.aggregate(oue.privatize(x, rng=rng))
        raw = oue.estimate(counts)
        raw_err.append(np.sum((raw - truth) ** 2))
        proj_err.append(np.sum((project_simplex(raw) - truth) ** 2))
        ibu_err.append(np.sum((ibu(oue, counts, max_iter=2000) - truth) ** 2))
    assert np.mean(proj_err) < 0.5 * np.mean(raw_err)
    assert np.mean(ibu_err) < np.mean(raw_err)
    assert math.isfinite(np.mean(ibu_err))


def _brute_projection(f: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The weighted projection onto the simplex by trying every support (closed form of the
    equality-constrained problem on each, keeping the feasible best)."""
    best, value = None, math.inf
    k = f.size
    for size in range(1, k + 1):
        for support in itertools.combinations(range(k), size):
            s = list(support)
            lam = (f[s].sum() - 1.0) / (1.0 / w[s]).sum()
            pi = np.zeros(k)
            pi[s] = f[s] - lam / w[s]
            if pi.min() < -1e-12:
                continue
            objective = float(np.sum(w * (f - pi) ** 2))
            if objective < value:
                best, value = pi, objective
    return best


def test_the_weighted_projection_is_the_constrained_minimum():
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(2, 7))
        f = rng.normal(0.15, 0.5, size=k)
        w = rng.exponential(size=k) + 0.05
        got = project_simplex(f, weights=w)
        np.testing.assert_allclose(got, _brute_projection(f, w), atol=1e-10)
    batch = rng.normal(size=(4, 3))
    np.testing.assert_allclose(
        project_simplex(batch, weights=np.ones(3)),
        project_simplex(batch),
    )
    with pytest.raises(ValueError, match="weights"):
        project_simplex([0.2, 0.8], weights=[1.0, 0.0])
    with pytest.raises(ValueError, match="weights"):
        project_simplex([0.2, 0.8], weights=[1.0])
