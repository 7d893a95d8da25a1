"""The exact law of one report of a frequency decoder, by enumeration (for tests that need
the report law itself: covariances from the definition, and statistics drawn from the
exact law of the output histogram)."""

import itertools
import math

import numpy as np

from ldp.mechanisms import (
    GRR,
    LGRR,
    LOSUE,
    LOUE,
    RAPPOR,
    DBitFlipPM,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    UnaryEncoding,
)
from ldp.tasks import ChannelOracle


def _unary_reports(k):
    z = np.arange(2**k)
    bits = (z[:, None] >> (k - 1 - np.arange(k))[None, :]) & 1
    return np.packbits(bits.astype(np.uint8), axis=1)


def enumerate_law(mech):
    """``(reports, P)``: every possible report and ``P[x, r]``, its probability given ``x``
    (given the bucket of ``x`` for dBitFlipPM, whose estimate is per bucket)."""
    if isinstance(mech, DBitFlipPM):
        b, d, k = mech.b, mech.d, mech.k
        h = mech.epsilon if d == 1 else mech.epsilon / 2
        own = math.exp(h) / (math.exp(h) + 1)
        rows, probs = [], []
        bucket = (np.arange(k) * b) // k
        for sampled in itertools.combinations(range(b), d):
            for bits in itertools.product((0, 1), repeat=d):
                rows.append([*sampled, *bits])
                p = np.full(k, 1 / math.comb(b, d))
                for j, bit in zip(sampled, bits):
                    one = np.where(bucket == j, own, 1 - own)
                    p = p * (one if bit else 1 - one)
                probs.append(p)
        law = np.array(probs).T  # (k, reports): it depends on x through its bucket only
        first = np.searchsorted(bucket, np.arange(b))
        return np.array(rows, dtype=np.int64), law[first]  # one row per bucket
    matrix = mech.to_channel().matrix
    k, m = matrix.shape
    if isinstance(mech, (GRR, HadamardResponse, LGRR, ChannelOracle)):
        return np.arange(m), matrix
    if isinstance(mech, (UnaryEncoding, LOSUE, LOUE, RAPPOR)):
        return _unary_reports(k), matrix
    if isinstance(mech, SubsetSelection):
        assert mech.encoding == "indices"
        return np.array(list(itertools.combinations(range(k), mech.d))), matrix
    if isinstance(mech, LocalHashing):
        members = mech.hash_functions()
        reports = [[*w, y] for w in members for y in range(mech.g)]
        return np.array(reports, dtype=np.int64), matrix
    raise AssertionError(type(mech))


_DECODED: dict = {}


def decoded_outputs(mech):
    """``(psi, P)``: each possible report's decoded vector (the estimate from that report
    alone) and ``P[x, r]`` (cached per mechanism key). For local hashing the support of a
    report is read from the mechanism's hash (``hash_values``) for all reports at once."""
    key = (type(mech).__name__, mech.key)
    if key not in _DECODED:
        reports, law = enumerate_law(mech)
        if isinstance(mech, LocalHashing):
            words, bucket = reports[:, :-1], reports[:, -1]
            support = np.stack([mech.hash_values(words, v) == bucket for v in range(mech.k)])
            psi = (support.T - mech.q) / (mech.p - mech.q)
        else:
            psi = np.array([mech.estimate(reports[i : i + 1]) for i in range(len(reports))])
        _DECODED[key] = (psi, law)
    return _DECODED[key]


def assert_subset_reports_fit_the_law(mech, reports, x, pair):
    """Seeded goodness of fit of bit-packed subset-selection reports of ``x``: every size is
    ``d``; the inclusion of ``x`` is binomial(``p``); the other values are equally frequent
    (chi-square); the members among the first half of the others are hypergeometric given
    the inclusion; values ``pair`` (columns among the others) are reported together at the
    rate of the definition. A correct sampler fails each with probability 1e-4."""
    from scipy import stats

    n, k, d = reports.shape[0], mech.k, mech.d
    bits = np.unpackbits(reports, axis=1)[:, :k].astype(bool)
    assert np.all(bits.sum(axis=1) == d)
    include = bits[:, x]
    assert stats.binomtest(int(include.sum()), n, mech.p).pvalue > 1e-4
    others = np.delete(bits, x, axis=1)
    assert stats.chisquare(others.sum(axis=0)).pvalue > 1e-4
    half = k // 2  # 512 of the 1023 others at k = 1024, 32 of 63 at k = 64
    first = others[:, :half].sum(axis=1)
    for inc, c in ((True, d - 1), (False, d)):
        observed = np.bincount(first[include == inc], minlength=c + 1)
        law = stats.hypergeom(k - 1, half, c).pmf(np.arange(c + 1)) * observed.sum()
        keep = law >= 5  # pool the thin tails
        if not keep.all():
            observed = np.append(observed[keep], observed[~keep].sum())
            law = np.append(law[keep], law[~keep].sum())
        assert stats.chisquare(observed, law).pvalue > 1e-4
    both = int(np.sum(others[:, pair[0]] & others[:, pair[1]]))
    together = mech.p * (d - 1) * (d - 2) + (1 - mech.p) * d * (d - 1)
    assert stats.binomtest(both, n, together / ((k - 1) * (k - 2))).pvalue > 1e-4
