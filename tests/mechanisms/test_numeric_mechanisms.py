"""Mean mechanisms: reference values, Duchi's even-d fix by exact enumeration,
unbiasedness and variance by seeded Monte Carlo, sampler goodness of fit, bad input."""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, special, stats

import ldp
from ldp.mechanisms import (
    Duchi,
    DuchiL2,
    Hybrid,
    Laplace,
    MeanSums,
    Piecewise,
    SquareWave,
    hybrid_threshold,
)

E = math.e
C1 = (E + 1) / (E - 1)


# ----------------------------------------------------------------- reference values
def test_mean_mechanism_reference_values():
    assert Duchi(1.0).variance(1) == pytest.approx(4.6826943768, rel=1e-10)
    pm = Piecewise(1.0)
    assert pm.variance(1) == pytest.approx(5.2235974520, rel=1e-10)
    assert pm.variance(1, 0.0) == pytest.approx(3.6821033695, rel=1e-10)
    assert pm.variance(1, 0.7) == pytest.approx(4.4374354700, rel=1e-10)
    assert hybrid_threshold() == pytest.approx(0.6093524930, abs=1e-10)
    assert Hybrid(1.0).variance(1) == pytest.approx(4.2889924933, rel=1e-10)
    assert Hybrid(2.0).variance(1) == pytest.approx(1.0423363417, rel=1e-10)
    assert Laplace(1.0).variance(1) == pytest.approx(8.0)
    sw = SquareWave(1.0)
    assert (sw.b, sw.p_density, sw.q_density) == pytest.approx(
        (0.2560829375, 1.1363051216, 0.4180232931), abs=1e-10
    )
    assert sw.variance(1, 0.0) == pytest.approx(1.3790245116, rel=1e-9)
    assert sw.variance(1, 0.5) == pytest.approx(0.9494540545, rel=1e-9)
    assert Duchi(1.0, d=3).bound == pytest.approx(4.3279068275, rel=1e-10)
    assert Duchi(1.0, d=5).bound == pytest.approx(5.7705424366, rel=1e-10)
    assert DuchiL2(1.0, d=5).bound == pytest.approx(5.7705424366, rel=1e-10)


def test_hybrid_thresholds():
    # eps*: PM's variance at x = 0 equals Duchi's C^2
    star = hybrid_threshold()
    assert Piecewise(star).variance(1, 0.0) == pytest.approx(Duchi(star).variance(1), rel=1e-9)
    # PM's worst case beats Duchi's iff eps > 1.2897846829
    cross = 1.2897846829
    assert Piecewise(cross).variance(1) == pytest.approx(Duchi(cross).variance(1), rel=1e-8)
    assert Piecewise(cross + 0.01).variance(1) < Duchi(cross + 0.01).variance(1)
    assert Piecewise(cross - 0.01).variance(1) > Duchi(cross - 0.01).variance(1)
    # HM variance is constant in x above eps*, and Duchi's below
    hm = Hybrid(1.0)
    values = [hm.variance(1, x) for x in (-1.0, -0.3, 0.0, 0.8)]
    assert values == pytest.approx([values[0]] * 4, rel=1e-12)
    assert Hybrid(0.5).alpha == 0.0
    assert Hybrid(0.5).variance(1, 0.3) == pytest.approx(Duchi(0.5).variance(1, 0.3))


# ----------------------------------------------------------------- Duchi, exact enumeration
def patterns(d):
    return np.array(list(itertools.product([1, -1], repeat=d)))


def duchi_channel_from_definition(eps, d, ties="pad"):
    """Rows: cube vertices x = v; columns: released sign patterns; built from the paper.

    ties="pad": odd d as is; even d padded with a zero coordinate and the padding dropped.
    ties="both": even d with <z, v> = 0 placed in both halves (the commonly restated rule).
    """
    pi = math.exp(eps) / (math.exp(eps) + 1)
    verts = patterns(d)
    if ties == "both":
        out = np.zeros((2**d, 2**d))
        for i, v in enumerate(verts):
            dots = verts @ v
            plus, minus = dots >= 0, dots <= 0
            out[i] = pi * plus / plus.sum() + (1 - pi) * minus / minus.sum()
        return out
    m = d if d % 2 else d + 1
    full = patterns(m)
    out = np.zeros((2**d, 2**d))
    for i, v in enumerate(verts):
        for pad in ([] if m == d else [1, -1]) or [None]:
            vv = v if pad is None else np.append(v, pad)
            weight = 1.0 if pad is None else 0.5
            dots = full @ vv
            probs = np.where(dots > 0, pi / (dots > 0).sum(), (1 - pi) / (dots < 0).sum())
            for z, pz in zip(full, probs):
                j = int(np.flatnonzero((verts == z[:d]).all(axis=1))[0])
                out[i, j] += weight * pz
    return out


def duchi_mean(channel_rows, values, b):
    return channel_rows @ (values * b)


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_duchi_exactly_eps_ldp_and_unbiased_by_enumeration(d):
    eps = 1.0
    mech = Duchi(eps, d=d)
    reference = duchi_channel_from_definition(eps, d)
    assert np.allclose(mech.to_channel().matrix, reference, atol=1e-14)
    assert ldp.Channel(reference).epsilon == pytest.approx(eps, abs=1e-12)
    assert mech.epsilon == pytest.approx(eps, abs=1e-12)
    # unbiased on the whole cube: P(v | x) = prod (1 + x_j v_j)/2 mixes the vertex rows
    verts = patterns(d)
    rng = np.random.default_rng(d)
    for x in np.vstack([verts[:3], rng.uniform(-1, 1, (4, d))]):
        weights = np.prod((1 + verts * x) / 2, axis=1)
        mean = weights @ reference @ (verts * mech.bound)
        assert mean == pytest.approx(x, abs=1e-12)
    # odd d: B = C 2^(d-1)/binom(d-1, (d-1)/2); even d: the padded constant 2^d/binom(d, d/2)
    m = d if d % 2 else d + 1
    assert mech.bound == pytest.approx(C1 * 2 ** (m - 1) / math.comb(m - 1, (m - 1) // 2))


@pytest.mark.parametrize("d", [2, 4])
def test_duchi_naive_even_tie_rule_is_not_eps_ldp(d):
    eps = 1.0
    naive = duchi_channel_from_definition(eps, d, ties="both")
    worst = ldp.Channel(naive).epsilon
    assert worst == pytest.approx(math.log(1 + E), abs=1e-9)  # 1.3132616875
    assert worst == pytest.approx(1.3132616875, abs=1e-9)
    assert worst > eps
    # it is unbiased with its own constant, which is why the bug goes unnoticed
    b = C1 * (2 ** (d - 1) + 0.5 * math.comb(d, d // 2)) / math.comb(d - 1, d // 2)
    verts = patterns(d)
    assert naive @ (verts * b) == pytest.approx(verts, abs=1e-12)
    # the padded fix has a smaller constant than the naive one
    assert Duchi(eps, d=d).bound < b


def test_duchi_l2_constant_settles_the_transcription_factor(rng):
    # B = r C sqrt(pi) Gamma((d+1)/2) / Gamma(d/2); a transcription has an extra factor 2
    for d in (3, 5, 7):
        assert DuchiL2(1.0, d).bound == pytest.approx(Duchi(1.0, d=d).bound, rel=1e-12)
        transcription = C1 * math.sqrt(math.pi) * d * special.gamma((d - 1) / 2 + 1)
        transcription /= special.gamma(d / 2 + 1)
        assert transcription == pytest.approx(2 * DuchiL2(1.0, d).bound, rel=1e-12)
    # Monte Carlo: with the class's B the mean is x (so the doubled constant would give 2x).
    # Six 5-standard-error checks: a correct mechanism fails with probability < 4e-6 (CLT)
    mech = DuchiL2(1.0, 5, radius=2.0)
    x = np.array([0.8, -0.4, 0.2, 0.0, 1.0])
    n = 200_000
    out = mech.decode(mech.privatize(np.tile(x, (n, 1)), rng=rng))
    se = out.std(axis=0, ddof=1) / math.sqrt(n)
    assert np.all(np.abs(out.mean(axis=0) - x) < 5 * se)
    total = ((out - x) ** 2).sum(axis=1)
    assert total.mean() == pytest.approx(mech.variance(1, x), abs=5 * total.std() / math.sqrt(n))
    assert np.allclose(np.linalg.norm(out, axis=1), mech.bound)


# ----------------------------------------------------------------- unbiasedness and variance
MEAN_CASES = [
    (Duchi(1.0), [-1.0, 0.0, 0.6]),
    (Duchi(0.3), [0.9]),
    (Laplace(1.0), [-0.5, 1.0]),
    (Piecewise(1.0), [-1.0, 0.0, 0.7]),
    (Piecewise(3.0), [0.2]),
    (Hybrid(1.0), [-0.9, 0.4]),
    (Hybrid(0.4), [0.5]),
    (SquareWave(1.0), [0.0, 0.5, 1.0]),
    (SquareWave(2.5), [0.3]),
]


@pytest.mark.parametrize(("mech", "points"), MEAN_CASES, ids=lambda v: repr(v))
def test_unbiased_and_variance_by_simulation(mech, points, rng):
    # two 5-standard-error checks per point: a correct mechanism fails with probability
    # about 1e-6 per point (CLT; the rng fixture's seed fixes the outcome)
    n = 200_000
    for x in points:
        out = mech.decode(mech.privatize(np.full(n, x), rng=rng))
        mean, var = out.mean(), out.var(ddof=1)
        assert abs(mean - x) < 5 * math.sqrt(var / n)
        # SE of a sample variance: sqrt((m4 - var^2) / n)
        m4 = np.mean((out - mean) ** 4)
        # (zero for a symmetric two-point law, whose sample variance is exact to O(1/n))
        tol = 5 * math.sqrt(max(m4 - var**2, 0.0) / n) + 10 * var / n
        assert abs(var - mech.variance(1, x)) < tol


def test_duchi_multidimensional_unbiased_and_variance(rng):
    for d in (2, 4, 5):
        mech = Duchi(1.0, d=d)
        x = np.linspace(-0.9, 0.9, d)
        n = 100_000
        out = mech.decode(mech.privatize(np.tile(x, (n, 1)), rng=rng))
        se = out.std(axis=0, ddof=1) / math.sqrt(n)
        assert np.all(np.abs(out.mean(axis=0) - x) < 5 * se)  # < 7e-6 over the 11 coordinates
        assert out.var(axis=0) == pytest.approx(mech.variance(1, x), rel=0.03)


def test_variance_conventions():
    pm = Piecewise(1.0)
    values = np.array([-0.8, 0.1, 0.5, 0.9])
    fixed = pm.variance(100, values)
    iid = pm.variance(100, values, "iid")
    assert fixed == pytest.approx(np.mean(pm.per_user_variance(values)) / 100)
    assert iid - fixed == pytest.approx(values.var() / 100, rel=1e-12)
    assert pm.variance(100) == pytest.approx(pm.variance(100, 1.0))


# ----------------------------------------------------------------- samplers against their laws
def piecewise_cdf(y, x, eps):
    z = math.exp(eps / 2)
    c = (z + 1) / (z - 1)
    left = (c + 1) * x / 2 - (c - 1) / 2
    right = left + c - 1
    hi = (math.exp(eps) - z) / (2 * z + 2)  # paper's density on [l, r]
    lo = hi / math.exp(eps)
    y = np.asarray(y)
    return (
        lo * (np.clip(y, -c, left) + c)
        + hi * (np.clip(y, left, right) - left)
        + lo * (np.clip(y, right, c) - right)
    )


def square_wave_cdf(y, v, eps):
    big = math.exp(eps)
    b = (eps * big - big + 1) / (2 * big * (big - 1 - eps))
    p, q = big / (2 * b * big + 1), 1 / (2 * b * big + 1)
    y = np.asarray(y)
    return q * (np.clip(y, -b, 1 + b) + b) + (p - q) * (np.clip(y, v - b, v + b) - (v - b))


def test_piecewise_and_square_wave_samplers_ks(rng):
    # five KS tests at 1e-4: a correct sampler fails with probability below 5e-4 (seeded)
    assert piecewise_cdf(Piecewise(1.0).C, 0.3, 1.0) == pytest.approx(1.0)  # a true cdf
    for x in (-1.0, 0.3, 1.0):
        sample = Piecewise(1.0).privatize(np.full(20_000, x), rng=rng)
        assert stats.kstest(sample, lambda y, x=x: piecewise_cdf(y, x, 1.0)).pvalue > 1e-4
    for v in (0.0, 0.6):
        sw = SquareWave(1.0)
        assert square_wave_cdf(1 + sw.b, v, 1.0) == pytest.approx(1.0)
        sample = sw.privatize(np.full(20_000, v), rng=rng)
        assert stats.kstest(sample, lambda y, v=v: square_wave_cdf(y, v, 1.0)).pvalue > 1e-4


def test_density_ratios_are_exactly_eps():
    # Piecewise: quadrature of the paper's density has mass 1 and ratio e^eps
    eps = 1.0
    assert integrate.quad(
        lambda y: np.gradient(piecewise_cdf([y - 1e-6, y + 1e-6], 0.2, eps), 2e-6)[0],
        -Piecewise(eps).C,
        Piecewise(eps).C,
        points=[-0.5, 0.9],
        limit=200,
    )[0] == pytest.approx(1.0, abs=1e-4)
    assert Piecewise(eps).epsilon == pytest.approx(eps, abs=1e-12)
    assert SquareWave(eps).epsilon == pytest.approx(eps, abs=1e-12)
    assert Hybrid(eps).epsilon == pytest.approx(eps, abs=1e-12)
    assert Laplace(eps).epsilon == pytest.approx(eps, abs=1e-12)
    assert DuchiL2(eps, 3).epsilon == pytest.approx(eps, abs=1e-12)


def test_laplace_and_duchi_samplers(rng):
    # two tests at 1e-4: a correct sampler fails with probability below 2e-4 (seeded)
    sample = Laplace(0.7).privatize(np.full(20_000, 0.25), rng=rng)
    assert stats.kstest(sample, stats.laplace(loc=0.25, scale=2 / 0.7).cdf).pvalue > 1e-4
    signs = Duchi(1.0).privatize(np.full(20_000, 0.4), rng=rng)
    prob = 0.5 + 0.4 * (E - 1) / (2 * (E + 1))
    assert stats.binomtest(int((signs == 1).sum()), 20_000, prob).pvalue > 1e-4


# ----------------------------------------------------------------- merging and bad input
def test_mean_sums_merge(rng):
    mech = Piecewise(1.0)
    reports = mech.privatize(rng.uniform(-1, 1, 1000), rng=rng)
    merged = mech.aggregate(reports[:300]) + mech.aggregate(reports[300:])
    assert merged.n == 1000
    assert mech.estimate(merged) == pytest.approx(mech.estimate(reports), rel=1e-12)
    with pytest.raises(ValueError, match="sums come from"):
        Piecewise(2.0).estimate(merged)
    with pytest.raises(ValueError, match="cannot add"):
        merged + MeanSums(np.zeros(()), 1, "other")


@pytest.mark.parametrize(
    "mech", [Duchi(1.0), Laplace(1.0), Piecewise(1.0), Hybrid(1.0), SquareWave(1.0)], ids=repr
)
def test_numeric_bad_input(mech):
    high = mech.high
    with pytest.raises(ValueError, match="must lie in"):
        mech.privatize(np.array([0.5, high + 1e-9]))
    with pytest.raises(ValueError, match="must lie in"):
        mech.privatize(np.array([mech.low - 0.1]))
    with pytest.raises(ValueError, match="finite"):
        mech.privatize(np.array([np.nan]))
    with pytest.raises(ValueError, match="1-D"):
        mech.privatize(np.zeros((3, 2)))
    with pytest.raises(TypeError, match="real numbers"):
        mech.privatize(np.array(["a"]))
    with pytest.raises(ValueError, match="zero reports"):
        mech.estimate(np.array([]))
    for eps in (0.0, -1.0):
        with pytest.raises(ValueError, match="epsilon"):
            type(mech)(eps)


def test_reports_out_of_range_are_rejected(rng):
    with pytest.raises(ValueError, match="reports"):
        Piecewise(1.0).decode(Piecewise(0.5).privatize(np.full(100, 1.0), rng=rng))
    with pytest.raises(ValueError, match="sign"):
        Duchi(1.0).decode(np.array([2, -1]))
    with pytest.raises(ValueError, match="sign"):
        Duchi(1.0).decode(np.array([0, -1]))
    with pytest.raises(ValueError, match="shape"):
        Duchi(1.0, d=3).decode(np.ones((4, 2), dtype=np.int8))
    with pytest.raises(ValueError, match="norm"):
        DuchiL2(1.0, 3).decode(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="ball"):
        DuchiL2(1.0, 2).privatize(np.array([[0.8, 0.8]]))
    with pytest.raises(ValueError, match="shape"):
        Duchi(1.0, d=2).privatize(np.zeros((4, 3)))
