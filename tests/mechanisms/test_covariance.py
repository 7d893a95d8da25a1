"""The exact covariance matrix of every frequency decoder, against brute force.

For each mechanism the law of one report is enumerated (every output of ``to_channel``, or
every sampled bucket set and bit of dBitFlipPM, with its probability), each possible report
is decoded on its own (``estimate`` of one report is the per-report vector ``psi``), and the
covariance is computed from the definition: ``sum_x f_x Cov(psi | x) / n`` for the fixed
convention and ``Cov(psi) / n`` under the mixture ``sum_x f_x P(. | x)`` for the i.i.d. one.
Nothing here uses the support-pair probabilities the covariance is built from.
"""

import numpy as np
import pytest

import ldp
from ldp.mechanisms import (
    BLH,
    GRR,
    LGRR,
    LOSUE,
    LOUE,
    OUE,
    RAPPOR,
    SUE,
    DBitFlipPM,
    FrequencyMechanism,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    UnaryEncoding,
)
from ldp.mechanisms.registry import REGISTRY, example
from ldp.tasks import ChannelOracle
from tests.report_laws import enumerate_law


def brute_covariance(mech, n, f, convention):
    reports, law = enumerate_law(mech)
    psi = np.array([mech.estimate(reports[i : i + 1]) for i in range(len(reports))])
    means = law @ psi  # E[psi | x], one row per x
    np.testing.assert_allclose(means, np.eye(law.shape[0]), atol=1e-9)  # unbiased
    if convention == "fixed":
        cov = sum(
            f[x] * ((law[x][:, None] * psi).T @ psi - np.outer(means[x], means[x]))
            for x in range(law.shape[0])
        )
    else:
        mix = f @ law
        mean = mix @ psi
        cov = (mix[:, None] * psi).T @ psi - np.outer(mean, mean)
    return cov / n


CASES = [
    GRR(4, 1.0),
    UnaryEncoding(5, 1.0, p=0.6, q=0.3),
    SUE(4, 0.5),
    OUE(5, 2.0),
    LocalHashing(5, 1.0, g=3),  # odd prime field: the collinear triples 0, 1, 2 and others
    LocalHashing(7, 1.5, g=5),
    LocalHashing(6, 1.0, g=4),  # GF(4)
    LocalHashing(4, 1.0, g=6),  # ring family
    BLH(5, 1.0),
    HadamardResponse(6, 1.0),
    HadamardResponse(3, 1.0),  # K = 4: every third row is the XOR of the other two
    HadamardResponse(5, 0.5),
    SubsetSelection(6, 1.0, d=2, encoding="indices"),
    SubsetSelection(5, 1.0, d=3, encoding="indices"),
    SubsetSelection(3, 2.0, d=1, encoding="indices"),
    SubsetSelection(2, 1.0, d=1, encoding="indices"),
    LGRR(4, 1.0, 2.0),
    LOSUE(4, 1.0, 2.0),
    LOUE(4, 1.0, 2.0),
    RAPPOR(4, f=0.5, p=0.5, q=0.75),
    ChannelOracle(ldp.Channel(np.random.default_rng(3).dirichlet(np.ones(5), size=3))),
    ChannelOracle(ldp.k_rr(3, 1.0)),
    DBitFlipPM(6, 1.0, b=3, d=2),
    DBitFlipPM(4, 1.0, b=4, d=1),
    DBitFlipPM(5, 2.0, b=5, d=5),
]


def _distributions(size):
    rng = np.random.default_rng(size)
    point = np.zeros(size)
    point[size - 1] = 1.0
    return [rng.dirichlet(np.ones(size)), np.full(size, 1 / size), point]


@pytest.mark.parametrize("mech", CASES, ids=repr)
@pytest.mark.parametrize("convention", ["iid", "fixed"])
def test_covariance_matches_enumeration(mech, convention):
    for f in _distributions(mech.estimate_size):
        expected = brute_covariance(mech, 37, f, convention)
        got = mech.covariance(37, f, convention)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def _frequency_decoders():
    for name in REGISTRY:
        mech = example(name)
        if isinstance(mech, ldp.Channel):
            mech = ChannelOracle(mech)
        if isinstance(mech, FrequencyMechanism) and not hasattr(mech, "width"):
            yield pytest.param(mech, id=name)


@pytest.mark.parametrize("mech", list(_frequency_decoders()))
@pytest.mark.parametrize("convention", ["iid", "fixed"])
def test_diagonal_is_the_variance(mech, convention):
    f = np.random.default_rng(1).dirichlet(np.ones(mech.estimate_size))
    cov = mech.covariance(250, f, convention)
    np.testing.assert_allclose(np.diag(cov), mech.variance(250, f, convention), rtol=1e-12)
    np.testing.assert_array_equal(cov, cov.T)
    assert np.linalg.eigvalsh(cov).min() > -1e-12  # a covariance is positive semidefinite


@pytest.mark.parametrize("mech", list(_frequency_decoders()))
def test_iid_minus_fixed_is_multinomial(mech):
    f = np.random.default_rng(2).dirichlet(np.ones(mech.estimate_size))
    gap = mech.covariance(10, f, "iid") - mech.covariance(10, f, "fixed")
    np.testing.assert_allclose(gap, (np.diag(f) - np.outer(f, f)) / 10, atol=1e-15)


def test_olh_covariance_by_simulation():
    """A larger alphabet than enumeration reaches (OLH, g = 5 at eps = 1.5, k = 30): the
    sample covariance of 2,000 seeded estimates, entry by entry within 5 standard errors."""
    olh = ldp.mechanisms.OLH(30, 1.5)
    f = np.random.default_rng(5).dirichlet(np.ones(30))
    n, reps = 40, 2000
    rng = np.random.default_rng(11)
    values = rng.choice(30, size=(reps, n), p=f)
    reports = olh.privatize(values.ravel(), rng=rng)
    support = np.stack([olh.hash_values(reports[:, :-1], v) == reports[:, -1] for v in range(30)])
    psi = ((support - olh.q) / (olh.p - olh.q)).reshape(30, reps, n).mean(axis=2).T
    sample = np.cov(psi, rowvar=False)
    exact = olh.covariance(n, f)
    # standard error of a sample covariance entry: sqrt((s_uu s_vv + s_uv^2) / reps)
    se = np.sqrt((np.outer(np.diag(exact), np.diag(exact)) + exact**2) / reps)
    z = (sample - exact) / se
    assert np.abs(z).max() < 5.5
    assert abs(z.mean()) < 0.2


@pytest.mark.parametrize(
    "f, match",
    [
        ([0.5, 0.5], "shape"),
        ([0.5, 0.5, 0.5, 0.5], "distribution"),
        ([1.5, -0.5, 0.0, 0.0], "distribution"),
        ([np.nan, 0.5, 0.5, 0.0], "finite"),
    ],
)
def test_covariance_bad_f(f, match):
    with pytest.raises(ValueError, match=match):
        GRR(4, 1.0).covariance(10, f)


def test_covariance_bad_n_and_convention():
    f = np.full(4, 0.25)
    with pytest.raises(ValueError, match="n"):
        GRR(4, 1.0).covariance(0, f)
    with pytest.raises(ValueError, match="convention"):
        GRR(4, 1.0).covariance(10, f, "both")
    with pytest.raises(ValueError, match="MAX_STATISTIC_ENTRIES"):
        GRR(2**14, 1.0).covariance(10, np.full(2**14, 2.0**-14))
