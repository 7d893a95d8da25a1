"""The tests of ldp.inference hold their level for every registered frequency oracle and
mean mechanism, their power matches their own power functions, and bad input is refused.

The frequency statistics are drawn from the exact law of the reports: users are i.i.d.,
so the histogram of the outputs of ``to_channel`` (or of the enumerated reports of
dBitFlipPM) is multinomial, and the estimate is the histogram times each output's decoded
vector (the mechanism's own ``estimate`` of that single report). Two thousand seeded
datasets per case; the type-I error must lie in [0.035, 0.065] (three binomial standard
errors around 0.05) and the power within 0.05 of ``*_power``.
"""

import math

import numpy as np
import pytest

import ldp
from ldp.inference import (
    CellEstimate,
    MeanSample,
    goodness_of_fit,
    goodness_of_fit_power,
    goodness_of_fit_sample_size,
    independence,
    independence_power,
    independence_sample_size,
    two_sample,
    two_sample_mean_power,
    two_sample_mean_sample_size,
    two_sample_power,
    two_sample_sample_size,
)
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
    DBitFlipPM,
    HadamardResponse,
    LocalHashing,
    MeanMechanism,
    SubsetSelection,
    UnaryEncoding,
)
from ldp.mechanisms.registry import REGISTRY, example
from ldp.tasks import ChannelOracle
from tests.report_laws import decoded_outputs

REPS = 2000
ALPHA = 0.05
LEVEL_RANGE = (0.035, 0.065)


def oracles(k, eps):
    """One instance of every registered frequency decoder on ``k`` cells at ``eps``."""
    q = 1.0 / (1.0 + math.exp(eps) / 1.5)  # p = 0.6: log(p (1 - q) / ((1 - p) q)) = eps
    rappor_f = 2.0 / (1.0 + math.exp(eps / 2))  # RAPPOR(h = 1) has epsilon 2 log((2-f)/f)
    out = [
        ChannelOracle(ldp.k_rr(k, eps)),
        GRR(k, eps),
        UnaryEncoding(k, eps, p=0.6, q=q),
        SUE(k, eps),
        OUE(k, eps),
        LocalHashing(k, eps, g=3),
        OLH(k, eps),
        BLH(k, eps),
        HadamardResponse(k, eps),
        SubsetSelection(k, eps, encoding="indices"),
        LGRR(k, eps, 2 * eps),
        LOSUE(k, eps, 2 * eps),
        LOUE(k, eps, 2 * eps),
        RAPPOR(k, f=rappor_f, p=0.5, q=0.75),
        DBitFlipPM(k, eps, b=k, d=2),
    ]
    covered = {type(m).name for m in out} | {"Channel"}
    missing = {
        name
        for name in REGISTRY
        if isinstance(example(name), (ldp.mechanisms.FrequencyMechanism, ldp.Channel))
    }
    assert missing <= covered, missing - covered
    return out


class Cells:
    """A stand-in for a fitted estimator: ``cell_estimate`` of given estimates."""

    def __init__(self, mech, value, n, shape, protocol="collection"):
        self.mech, self.value, self.n, self.shape, self.protocol = mech, value, n, shape, protocol

    def cell_estimate(self, *where):
        labels = tuple(tuple(range(s)) for s in self.shape)
        return CellEstimate(
            self.value,
            self.shape,
            self.n,
            lambda f: self.mech.covariance(self.n, f),
            labels,
            self.protocol,
        )


def draw_estimates(mech, f, n, reps, rng):
    """``reps`` estimates from ``n`` i.i.d. users with law ``f``, from the exact law."""
    psi, law = decoded_outputs(mech)
    histograms = rng.multinomial(n, f @ law, size=reps)
    return histograms @ psi / n


#: The default run checks every oracle's goodness of fit at eps = 2, and the other tests on
#: a few oracles; ``-m long`` runs every test for every oracle at eps = 0.5 and 2.
DEFAULT = {"GRR", "OUE", "LH", "SS"}


def _cases(k, test_all):
    out = []
    for eps in (0.5, 2.0):
        for m in oracles(k, eps):
            default = eps == 2.0 and (test_all or type(m).name in DEFAULT)
            marks = () if default else (pytest.mark.long,)
            out.append(pytest.param(m, eps, marks=marks, id=f"{m!r}"))
    return out


CASES = _cases(4, test_all=False)
GOF_CASES = _cases(4, test_all=True)
TABLE_CASES = _cases(6, test_all=False)


def _rate(pvalues):
    return float(np.mean(np.asarray(pvalues) < ALPHA))


@pytest.mark.parametrize("mech, eps", GOF_CASES)
def test_goodness_of_fit_holds_its_level(mech, eps):
    null = np.array([0.4, 0.3, 0.2, 0.1])
    n = 2000
    estimates = draw_estimates(mech, null, n, REPS, np.random.default_rng(1))
    pvalues = [goodness_of_fit(Cells(mech, e, n, (4,)), null).pvalue for e in estimates]
    assert LEVEL_RANGE[0] <= _rate(pvalues) <= LEVEL_RANGE[1]


@pytest.mark.parametrize("mech, eps", CASES)
def test_two_sample_holds_its_level(mech, eps):
    f = np.array([0.1, 0.2, 0.3, 0.4])
    rng = np.random.default_rng(2)
    a = draw_estimates(mech, f, 1500, REPS, rng)
    b = draw_estimates(mech, f, 2500, REPS, rng)
    pvalues = [
        two_sample(Cells(mech, x, 1500, (4,)), Cells(mech, y, 2500, (4,))).pvalue
        for x, y in zip(a, b)
    ]
    assert LEVEL_RANGE[0] <= _rate(pvalues) <= LEVEL_RANGE[1]


@pytest.mark.parametrize("mech, eps", TABLE_CASES)
def test_independence_holds_its_level(mech, eps):
    """A decoder on the 2 x 3 product domain (the cells flattened in C order) stands in
    for a marginal estimator."""
    joint = np.outer([0.6, 0.4], [0.2, 0.3, 0.5]).ravel()
    n = 20_000
    estimates = draw_estimates(mech, joint, n, REPS, np.random.default_rng(3))
    pvalues = [independence(Cells(mech, e, n, (2, 3)), ("a", "b")).pvalue for e in estimates]
    assert LEVEL_RANGE[0] <= _rate(pvalues) <= LEVEL_RANGE[1]


POWER_CASES = [
    pytest.param(GRR(4, 1.0), 2.0, id="GRR"),
    pytest.param(OUE(4, 0.5), 1.0, id="OUE"),
    pytest.param(OLH(4, 2.0), 2.0, id="OLH", marks=pytest.mark.long),
    pytest.param(SubsetSelection(4, 1.0, encoding="indices"), 1.0, id="SS"),
]


@pytest.mark.parametrize("mech, scale", POWER_CASES)
def test_goodness_of_fit_power_matches_simulation(mech, scale):
    null = np.array([0.25, 0.25, 0.25, 0.25])
    truth = null + np.array([0.02, 0.0, -0.01, -0.01]) * scale
    n = goodness_of_fit_sample_size(mech, null, truth, power=0.6)
    estimates = draw_estimates(mech, truth, n, REPS, np.random.default_rng(4))
    rate = _rate([goodness_of_fit(Cells(mech, e, n, (4,)), null).pvalue for e in estimates])
    assert abs(rate - goodness_of_fit_power(mech, n, null, truth)) < 0.05


@pytest.mark.parametrize("mech, scale", POWER_CASES)
def test_two_sample_power_matches_simulation(mech, scale):
    fa = np.array([0.25, 0.25, 0.25, 0.25])
    fb = fa + np.array([0.02, 0.0, -0.01, -0.01]) * scale
    n = two_sample_sample_size(mech, fa, fb, power=0.6)
    rng = np.random.default_rng(5)
    a, b = draw_estimates(mech, fa, n, REPS, rng), draw_estimates(mech, fb, n, REPS, rng)
    pvalues = [
        two_sample(Cells(mech, x, n, (4,)), Cells(mech, y, n, (4,))).pvalue for x, y in zip(a, b)
    ]
    assert abs(_rate(pvalues) - two_sample_power(mech, n, n, fa, fb)) < 0.05


@pytest.mark.parametrize("mech", [GRR(6, 1.0), OUE(6, 2.0), HadamardResponse(6, 1.0)], ids=repr)
def test_independence_power_matches_simulation(mech):
    rows, cols = np.array([0.5, 0.5]), np.array([0.3, 0.3, 0.4])
    joint = np.outer(rows, cols) + 0.02 * np.array([[1, 0, -1], [-1, 0, 1]])
    n = independence_sample_size(mech, joint, power=0.6)
    estimates = draw_estimates(mech, joint.ravel(), n, REPS, np.random.default_rng(6))
    rate = _rate([independence(Cells(mech, e, n, (2, 3)), ("a", "b")).pvalue for e in estimates])
    assert abs(rate - independence_power(mech, n, joint)) < 0.05


# --------------------------------------------------------------------------- means
def _mean_mechanisms():
    """Every registered mean mechanism of one dimension (the slower samplers under long)."""
    for name in REGISTRY:
        mech = example(name)
        if isinstance(mech, MeanMechanism) and mech.d == 1:
            slow = name in ("staircase", "gaussian", "Hybrid", "SquareWave")
            yield pytest.param(mech, id=name, marks=(pytest.mark.long,) if slow else ())
    yield pytest.param(ldp.mechanisms.Duchi(1.0), id="Duchi-1d")


class Means:
    def __init__(self, sums, protocol="collection"):
        self.sums, self.protocol = sums, protocol

    def mean_sample(self, *where):
        s = self.sums
        return MeanSample(float(s.total) / s.n, float(s.sample_variance), s.n, self.protocol)


def _mean_statistics(mech, values, reps, rng):
    decoded = mech.decode(mech.privatize(values.ravel(), rng=rng)).reshape(values.shape)
    return [
        ldp.mechanisms.MeanSums(row.sum(), row.size, mech.key, (row * row).sum()) for row in decoded
    ]


@pytest.mark.parametrize("mech", list(_mean_mechanisms()))
def test_two_sample_means_holds_its_level(mech):
    rng = np.random.default_rng(7)
    low, high = mech.low, mech.high
    a = rng.uniform(low, low + 0.7 * (high - low), size=(REPS, 300))
    b = rng.uniform(low, low + 0.7 * (high - low), size=(REPS, 500))
    sa, sb = _mean_statistics(mech, a, REPS, rng), _mean_statistics(mech, b, REPS, rng)
    pvalues = [two_sample(Means(x), Means(y)).pvalue for x, y in zip(sa, sb)]
    assert LEVEL_RANGE[0] <= _rate(pvalues) <= LEVEL_RANGE[1]


@pytest.mark.parametrize(
    "mech",
    [
        pytest.param(ldp.mechanisms.Duchi(1.0), id="Duchi", marks=pytest.mark.long),
        pytest.param(ldp.mechanisms.Laplace(2.0), id="Laplace"),
    ],
)
def test_two_sample_means_power_matches_simulation(mech):
    """Users hold fixed values (a point mass each side), so the variance of one report is
    the mechanism's ``variance(1, x)``."""
    xa, xb = 0.0, 0.15
    va, vb = float(mech.variance(1, xa)), float(mech.variance(1, xb))
    n = two_sample_mean_sample_size(xb - xa, va, vb, power=0.6)
    rng = np.random.default_rng(8)
    sa = _mean_statistics(mech, np.full((REPS, n), xa), REPS, rng)
    sb = _mean_statistics(mech, np.full((REPS, n), xb), REPS, rng)
    rate = _rate([two_sample(Means(x), Means(y)).pvalue for x, y in zip(sa, sb)])
    assert abs(rate - two_sample_mean_power(xb - xa, va, vb, n, n)) < 0.05


# --------------------------------------------------------------------------- bad input
def test_bad_input_is_refused_in_one_line():
    grr = GRR(3, 1.0)
    value = np.array([0.5, 0.3, 0.2])
    good = Cells(grr, value, 100, (3,))
    cases = [
        (lambda: goodness_of_fit(good, [0.5, 0.5]), ValueError, "shape"),
        (lambda: goodness_of_fit(good, [0.5, 0.6, -0.1]), ValueError, "distribution"),
        (
            lambda: goodness_of_fit(good, ["a", "b", "c"]),
            TypeError,
            r"expected must be an array of real numbers, got \['a', 'b', 'c'\] \(dtype <U1\)$",
        ),
        (lambda: goodness_of_fit(Cells(grr, value, 2, (3,)), [1 / 3] * 3), ValueError, "reports"),
        (lambda: goodness_of_fit(object(), [1 / 3] * 3), TypeError, "cell_estimate"),
        (lambda: two_sample(good, Cells(grr, value, 100, (3,), "other")), ValueError, "protocols"),
        (lambda: two_sample(good, Cells(grr, value[:2] / 0.8, 100, (2,))), ValueError, "cells"),
        (lambda: two_sample(object(), good), TypeError, "cell_estimate or mean_sample"),
        (
            lambda: independence(good, ("a", "b")),
            ValueError,
            r"columns must name two columns for the independence test, got \('a', 'b'\)",
        ),
        (lambda: goodness_of_fit(Cells(grr, [1.0], 9, (1,)), [1.0]), ValueError, "one category"),
        (
            lambda: independence(Cells(grr, value, 100, (3, 1)), ("a", "b")),
            ValueError,
            "column 'b' has one category",
        ),
        (lambda: goodness_of_fit_power(grr, 100, [1 / 3] * 3, [0.5, 0.5]), ValueError, "shape"),
        (
            lambda: goodness_of_fit_power(grr, 100, [1 / 3] * 3, [1 / 3] * 3, alpha=1.0),
            ValueError,
            "alpha",
        ),
        (lambda: goodness_of_fit_power(grr, 0, [1 / 3] * 3, [1 / 3] * 3), ValueError, "n"),
        (
            lambda: goodness_of_fit_power(GRR(4, 1.0), 9, [1 / 3] * 3, [1 / 3] * 3),
            ValueError,
            "cells",
        ),
        (
            lambda: goodness_of_fit_sample_size(grr, [1 / 3] * 3, [1 / 3] * 3),
            ValueError,
            "out of reach",
        ),
        (lambda: two_sample_mean_power(0.1, 0.0, 0.0, 10, 10), ValueError, "variance"),
        (lambda: two_sample_mean_sample_size(0.1, 1.0, 1.0, power=1.0), ValueError, "power"),
    ]
    for call, error, match in cases:
        with pytest.raises(error, match=match) as info:
            call()
        assert "\n" not in str(info.value)
    a = Means(ldp.mechanisms.MeanSums(np.array(1.0), 10, "m", np.array(2.0)))
    b = Means(ldp.mechanisms.MeanSums(np.array(1.0), 10, "m", np.array(2.0)), "other")
    with pytest.raises(ValueError, match="protocols"):
        two_sample(a, b)


def test_estimators_end_to_end():
    """FrequencyEstimator and MeanEstimator answer the tests through their views."""
    from estimators import FrequencyEstimator, MeanEstimator

    rng = np.random.default_rng(9)
    kw = {"categories": [[0, 1, 2]], "mechanism": "OUE"}
    xa = rng.choice(3, size=(3000, 1), p=[0.5, 0.3, 0.2])
    xb = rng.choice(3, size=(3000, 1), p=[0.2, 0.3, 0.5])
    ea = FrequencyEstimator(2.0, random_state=1, **kw).fit(xa)
    eb = FrequencyEstimator(2.0, random_state=2, **kw).fit(xb)
    assert two_sample(ea, eb).pvalue < 1e-6
    assert goodness_of_fit(ea, [0.5, 0.3, 0.2]).df == 2
    other = FrequencyEstimator(1.0, random_state=2, **kw).fit(xb)
    with pytest.raises(ValueError, match="different protocols"):
        two_sample(ea, other)
    ma = MeanEstimator(1.0, bounds=(0, 1), random_state=3).fit(rng.uniform(0, 1, (2000, 1)))
    with pytest.raises(TypeError, match="mean estimator"):
        two_sample(ma, ea)


def test_two_samples_that_share_reports_are_refused_never_a_pvalue_of_one():
    """The same estimator twice, a copy of it, or one merged into the other: the samples
    are not independent (the statistic was 0 and the p-value 1)."""
    import copy
    import pickle

    from estimators import FrequencyEstimator, MarginalEstimator, MeanEstimator

    rng = np.random.default_rng(12)
    x = rng.integers(0, 3, (3000, 2))
    kw = {"categories": [[0, 1, 2], [0, 1, 2]], "random_state": 1}
    fa = FrequencyEstimator(1.0, **kw).fit(x[:1500])
    fb = FrequencyEstimator(1.0, **kw).fit(x[1500:])
    ma = MeanEstimator(1.0, bounds=(0, 2), random_state=2).fit(x[:1500].astype(float))
    mb = MeanEstimator(1.0, bounds=(0, 2), random_state=3).fit(x[1500:].astype(float))
    ta = MarginalEstimator(1.0, **kw).fit(x[:1500])
    tb = MarginalEstimator(1.0, **kw).fit(x[1500:])
    for a, b, where in ((fa, fb, 0), (ma, mb, 0), (ta, tb, ["x0", "x1"])):
        assert 0.0 < two_sample(a, b, column=where).pvalue <= 1.0  # independent samples
        with pytest.raises(ValueError, match="same estimator") as info:
            two_sample(a, a, column=where)
        assert "\n" not in str(info.value)
        merged = copy.deepcopy(a).merge(b)
        for shared in (pickle.loads(pickle.dumps(a)), merged):
            with pytest.raises(ValueError, match="share reports") as info:
                two_sample(shared, b if shared is merged else a, column=where)
            assert "\n" not in str(info.value)


def test_expected_keyed_by_category_is_aligned_to_the_cells():
    """A dict or Series names its cells: it is read by category, never by position."""
    import pandas as pd

    from estimators import FrequencyEstimator

    rng = np.random.default_rng(10)
    X = pd.DataFrame({"city": rng.choice(["a", "b", "c", "d"], 8000, p=[0.4, 0.3, 0.2, 0.1])})
    est = FrequencyEstimator(2.0, categories={"city": list("abcd")}, mechanism="GRR")
    est.fit(X)
    in_order = goodness_of_fit(est, [0.4, 0.3, 0.2, 0.1])
    for keyed in (
        {"d": 0.1, "c": 0.2, "b": 0.3, "a": 0.4},
        pd.Series([0.1, 0.2, 0.3, 0.4], index=list("dcba")),
    ):
        result = goodness_of_fit(est, keyed)
        assert (result.statistic, result.pvalue) == (in_order.statistic, in_order.pvalue)
    for bad, match in [
        ({"a": 0.5, "b": 0.3, "c": 0.2}, r"no probability for \['d'\]"),
        ({"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.05, "e": 0.05}, r"unknown cells \['e'\]"),
        (pd.Series([0.4, 0.3, 0.2, 0.1]), "keyed by category"),
    ]:
        with pytest.raises(ValueError, match=match) as info:
            goodness_of_fit(est, bad)
        assert "\n" not in str(info.value)
    # integer categories are named as the user wrote them, not as NumPy scalars
    from estimators import MarginalEstimator

    codes = {"code": [0, 1], "other": [0, 1]}
    coded = MarginalEstimator(2.0, categories=codes, random_state=0)
    coded.fit(pd.DataFrame({"code": rng.integers(0, 2, 2000), "other": rng.integers(0, 2, 2000)}))
    with pytest.raises(ValueError, match=r"no probability for \[1\]; the cells are \[0, 1\] "):
        goodness_of_fit(coded, {0: 1.0}, column="code")
    joint = Cells(GRR(4, 2.0), np.full(4, 0.25), 1000, (2, 2))
    keyed = {(1, 1): 0.1, (0, 0): 0.4, (1, 0): 0.2, (0, 1): 0.3}
    assert (
        goodness_of_fit(joint, keyed).statistic
        == goodness_of_fit(joint, [0.4, 0.3, 0.2, 0.1]).statistic
    )


@pytest.mark.parametrize("eps", [0.5, 2.0])
@pytest.mark.parametrize(("p0", "p1"), [(0.5, 0.6), (0.2, 0.3)])
@pytest.mark.parametrize("power", [0.5, 0.8])
def test_sample_size_agrees_with_the_planner_on_a_binary_question(eps, p0, p1, power):
    """On two cells, ``goodness_of_fit`` with binary randomized response tests Bern(p0)
    against Bern(p1), the planner's ``"binary-test"``. The planner's test is one-sided and
    exact, so no test needs fewer users than its lower bound; the two-sided Wald test
    needs about ``((z_{alpha/2} + z_beta) / (z_alpha + z_beta))^2`` times its users (equal
    variances under both hypotheses at p0 = 0.5; fewer where the alternative's variance is
    smaller)."""
    from scipy.stats import norm

    plan = ldp.risk.plan("binary-test", eps, 1.0 - power, p0=p0, p1=p1, alpha=ALPHA)
    n = goodness_of_fit_sample_size(GRR(2, eps), [1 - p0, p0], [1 - p1, p1], power=power)
    z_beta = norm.ppf(power)
    factor = ((norm.isf(ALPHA / 2) + z_beta) / (norm.isf(ALPHA) + z_beta)) ** 2
    assert plan.n_lower_bound <= n <= factor * plan.n_required * 1.02
    if p0 == 0.5:
        assert n == pytest.approx(factor * plan.n_required, rel=0.02)


def test_independence_refuses_too_few_reports_for_its_delta_method():
    """Under the null at eps = 0.01 and 3,000 reports the delta method's neglected term
    dominates (the test rejected with p ~ 1e-108); the refusal depends on the protocol and
    n only, and the sample-size helper answers an n at which the test answers."""
    from estimators import MarginalEstimator

    rng = np.random.default_rng(13)
    X = np.column_stack([rng.integers(0, 3, 3000), rng.integers(0, 4, 3000)])
    cats = [[0, 1, 2], [0, 1, 2, 3]]
    est = MarginalEstimator(0.01, categories=cats, random_state=0).fit(X)
    with pytest.raises(ValueError, match=r"3000 reports are too few .* about \d+ reports") as e:
        independence(est, ("x0", "x1"))
    assert "\n" not in str(e.value)
    mech, joint = OUE(12, 0.5), np.eye(3, 4) / 3
    n = independence_sample_size(mech, joint, power=0.2)
    uniform = np.full(12, 1 / 12)
    assert independence_power(mech, n - 1, joint) >= 0.2  # the delta method binds, not power
    assert independence(Cells(mech, uniform, n, (3, 4)), ("a", "b")).pvalue == pytest.approx(1)
    with pytest.raises(ValueError, match=f"{n - 1} reports are too few"):
        independence(Cells(mech, uniform, n - 1, (3, 4)), ("a", "b"))
