"""Apple's count-mean sketches (CMS, HCMS): the public hash, the sampler's law, unbiasedness
over the hash draw, the exact variance against simulation and against worked examples
computed by hand, the bias of fixed hashes, privacy, and the server's query API.

Every reference value here is computed independently of the code under test: the hash from
``hashlib`` and the documented byte layout, the laws from the closed-form flip probabilities,
the variance examples from the model of Apple Differential Privacy Team (2017) with the
variance re-derived (the printed one has errors), evaluated by hand.
"""

import hashlib
import math
import pickle

import numpy as np
import pytest
from scipy import stats

import ldp.mechanisms.sketches.sketch as sketch_module
from ldp.audit import epsilon_lower_bound
from ldp.mechanisms import CMS, HCMS, Items, Sketch, SketchCounts
from ldp.protocol import Protocol
from ldp.tasks import recommend

P_FLOOR = 1e-4


def reference_hash(salt: str, row: int, item: bytes, width: int) -> int:
    """The documented layout (docs/protocol.md), written out with hashlib."""
    salt_bytes = salt.encode("utf-8")
    message = (
        b"ldpkit/sketch-hash/v1\x00"
        + len(salt_bytes).to_bytes(4, "big")
        + salt_bytes
        + row.to_bytes(4, "big")
        + item
    )
    return int.from_bytes(hashlib.sha256(message).digest()[:8], "big") % width


def separated_pair(mechanism) -> tuple[str, str]:
    """Two items whose buckets differ in every row (the worst pair for privacy)."""
    names = [f"item-{i}" for i in range(200)]
    buckets = mechanism.buckets(names)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if np.all(buckets[i] != buckets[j]):
                return names[i], names[j]
    raise AssertionError("no separated pair")


# ----------------------------------------------------------------------------- the hash
def test_the_hash_is_the_documented_sha256_layout():
    for salt, width, depth in (("", 1024, 3), ("2026", 16, 4), ("café salt", 1000, 2)):
        mech = CMS(1.0, width=width, depth=depth, salt=salt)
        items = ["apple", "", "ünïcödé", b"\x00\xff", 12345, -7, "12345"]
        got = mech.buckets(items)
        for i, item in enumerate(items):
            raw = (
                item.encode("utf-8")
                if isinstance(item, str)
                else item
                if isinstance(item, bytes)
                else str(item).encode()
            )
            assert got[i].tolist() == [reference_hash(salt, j, raw, width) for j in range(depth)]
    same = CMS(1.0, width=64, depth=8).buckets([5, "5", b"5", np.int64(5)])
    assert (same == same[0]).all()  # an integer is its decimal text
    # a new salt is a new draw of the hash functions
    a = CMS(1.0, width=1 << 20, depth=4, salt="a").buckets(["apple"])
    b = CMS(1.0, width=1 << 20, depth=4, salt="b").buckets(["apple"])
    assert not np.array_equal(a, b)


def test_hash_buckets_are_uniform():
    mech = CMS(1.0, width=16, depth=2, salt="uniform")
    buckets = mech.buckets([f"user-{i}" for i in range(16_000)])
    for row in range(2):
        counts = np.bincount(buckets[:, row], minlength=16)
        assert stats.chisquare(counts).pvalue > P_FLOOR


@pytest.mark.parametrize("bad", [[1.5], [None], [True], ["\ud800"], [["a"]], np.zeros(3)])
def test_items_refuse_what_is_not_an_item(bad):
    with pytest.raises((TypeError, ValueError)) as info:
        CMS(1.0).privatize(bad, rng=0)
    assert "values" in str(info.value)


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="power of two"):
        HCMS(1.0, width=24)
    with pytest.raises(ValueError, match="width"):
        CMS(1.0, width=1)
    with pytest.raises(ValueError, match="depth"):
        CMS(1.0, depth=0)
    with pytest.raises(ValueError, match="depth"):
        CMS(1.0, depth=1 << 17)
    with pytest.raises(TypeError, match="salt"):
        CMS(1.0, salt=3)
    with pytest.raises(ValueError, match="epsilon"):
        CMS(0.0)
    with pytest.raises(ValueError, match="MAX_STATISTIC_ENTRIES"):
        HCMS(1.0, width=1 << 20, depth=1 << 10)


# ----------------------------------------------------------------------------- the law
def _cms_law(eps, width, depth, salt, item: bytes) -> np.ndarray:
    """Row uniform; given row j, bit h_j(d) is 1 with p = e^{eps/2}/(1 + e^{eps/2}) and every
    other bit with 1 - p, independently. Index: row * 2^width + the bits read as an integer
    (bit 0 most significant)."""
    p = math.exp(eps / 2) / (1 + math.exp(eps / 2))
    buckets = [reference_hash(salt, j, item, width) for j in range(depth)]
    law = np.zeros(depth * 2**width)
    for j in range(depth):
        for pattern in range(2**width):
            prob = 1.0 / depth
            for a in range(width):
                one = p if a == buckets[j] else 1 - p
                prob *= one if (pattern >> (width - 1 - a)) & 1 else 1 - one
            law[j * 2**width + pattern] = prob
    return law


def _hcms_law(eps, width, depth, salt, item: bytes) -> np.ndarray:
    """Row and coefficient uniform; the bit is the Hadamard sign H[l, h_j(d)] with
    probability e^eps / (1 + e^eps). Index: (row * width + coefficient) * 2 + bit."""
    keep = math.exp(eps) / (1 + math.exp(eps))
    buckets = [reference_hash(salt, j, item, width) for j in range(depth)]
    law = np.zeros(depth * width * 2)
    for j in range(depth):
        for col in range(width):
            sign_plus = bin(col & buckets[j]).count("1") % 2 == 0
            for bit in (0, 1):
                agree = (bit == 1) == sign_plus
                law[(j * width + col) * 2 + bit] = (keep if agree else 1 - keep) / (depth * width)
    return law


def _cms_index(reports: np.ndarray, width: int) -> np.ndarray:
    reports = np.asarray(reports, dtype=np.int64)
    return reports[:, 0] * 2**width + (reports[:, 1] >> (8 - width))


def _hcms_index(reports: np.ndarray, width: int) -> np.ndarray:
    reports = np.asarray(reports, dtype=np.int64)
    return (reports[:, 0] * width + reports[:, 1]) * 2 + reports[:, 2]


def _fits(index: np.ndarray, law: np.ndarray) -> bool:
    counts = np.bincount(index, minlength=law.size)
    return stats.chisquare(counts, law * counts.sum()).pvalue > P_FLOOR


def test_cms_reports_follow_their_exact_law():
    """Chi-square over all 2 x 2^4 outputs, 100,000 seeded reports."""
    mech = CMS(1.3, width=4, depth=2, salt="law")
    reports = mech.privatize(np.array(["apple"] * 100_000), rng=np.random.default_rng(5))
    assert _fits(_cms_index(reports, 4), _cms_law(1.3, 4, 2, "law", b"apple"))


def test_hcms_reports_follow_their_exact_law():
    mech = HCMS(0.8, width=8, depth=2, salt="law")
    reports = mech.privatize(["pear"] * 100_000, rng=np.random.default_rng(6))
    assert _fits(_hcms_index(reports, 8), _hcms_law(0.8, 8, 2, "law", b"pear"))


def test_the_python_client_follows_the_same_laws():
    """The stdlib client (seeded byte source), 30,000 reports each."""
    import random
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
    import ldp_client

    cases = (
        (CMS(1.3, width=4, depth=2, salt="law"), _cms_law, _cms_index),
        (HCMS(0.8, width=8, depth=2, salt="law"), _hcms_law, _hcms_index),
    )
    for mech, law_of, index in cases:
        law = law_of(mech.params["epsilon"], mech.width, mech.depth, "law", b"apple")
        loaded = ldp_client.load_protocol(Protocol.from_mechanism(mech).to_dict())
        source = random.Random(7).randbytes
        reports = [
            ldp_client.privatize(loaded, "apple", randbytes=source)["report"] for _ in range(30_000)
        ]
        assert _fits(index(np.array(reports), mech.width), law)


# ----------------------------------------------------------------------------- worked examples
def test_scale_constants_match_the_closed_forms():
    assert CMS(4.0).c == pytest.approx(1.313035, abs=1e-6)  # (e^2 + 1) / (e^2 - 1), computed
    assert HCMS(4.0).c == pytest.approx(1.037315, abs=1e-6)  # (e^4 + 1) / (e^4 - 1), computed
    assert CMS(4.0).epsilon >= 4.0 and CMS(4.0).epsilon == pytest.approx(4.0, rel=1e-14)
    assert HCMS(4.0).epsilon >= 4.0 and HCMS(4.0).epsilon == pytest.approx(4.0, rel=1e-14)


# the standard deviations of the docstring below, computed by hand from the variance closed form
@pytest.mark.parametrize(
    ("cls", "width", "depth", "sd"),
    [
        (CMS, 1024, 65_536, 427.0),
        (CMS, 1024, 16, 434.0),
        (CMS, 128, 16, 489.8),
        (HCMS, 1024, 65_536, 1033.5),
        (HCMS, 128, 16, 1063.5),
    ],
)
def test_the_worked_example_standard_deviations(cls, width, depth, sd):
    """eps = 4, n = 1e6, f(d) = 1e4 and 990,000 users spread as 100 over each of 9,900 other
    values: the standard deviation of the count estimate, evaluated by hand."""
    n, f = 10**6, 0.01
    others = 9_900 * (100 / n) ** 2
    mech = cls(4.0, width=width, depth=depth)
    assert n * math.sqrt(mech.variance(n, f, others_squared=others)) == pytest.approx(sd, abs=0.1)
    if (cls, depth) == (CMS, 65_536):
        variance = n**2 * mech.variance(n, f, others_squared=others)
        # the same hand evaluation (427.0^2, unrounded)
        assert variance == pytest.approx(1.8234e5, rel=1e-4)


def test_the_zipf_example_variances():
    """60 values with counts round(3000 / i^1.1), m = 32, k = 4, eps = 2, queried at the
    heaviest: 47,025 (CMS) and 53,679 (HCMS), evaluated by hand."""
    counts = np.array([round(3000 / i**1.1) for i in range(1, 61)], dtype=float)
    n = int(counts.sum())
    f = counts[0] / n
    others = float(((counts[1:] / n) ** 2).sum())
    for cls, expected in ((CMS, 47_025), (HCMS, 53_679)):
        variance = n**2 * cls(2.0, width=32, depth=4).variance(n, f, others_squared=others)
        assert variance == pytest.approx(expected, abs=1.0)


def test_variance_arguments_and_conventions():
    cms = CMS(1.0, width=64, depth=4)
    low, high = cms.variance(1000, [0.0, 0.5])
    assert low > high  # HCMS's noise falls with f; CMS's does not, but collisions do
    iid = cms.variance(1000, 0.3, "iid", others_squared=0.1)
    fixed = cms.variance(1000, 0.3, "fixed", others_squared=0.1)
    m, k, n = 64, 4, 1000
    extra = 0.3 * 0.7 / n + ((0.7 / n - 0.1 / n) / k) / (m - 1)  # sample the data as well
    assert iid == pytest.approx(fixed + extra, rel=1e-12)
    with pytest.raises(ValueError, match="others_squared"):
        cms.variance(1000, 0.5, others_squared=0.3)
    with pytest.raises(ValueError, match="f"):
        cms.variance(1000, 1.5)
    with pytest.raises(ValueError, match="convention"):
        cms.variance(1000, convention="other")


# ----------------------------------------------------------------------------- simulation
TARGET = 300
DATA = np.array(["target"] * TARGET + [f"other-{i}" for i in range(50) for _ in range(50)])


def _estimates(cls, trials: int, *, fixed_salt: str | None, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty(trials)
    for t in range(trials):
        mech = cls(2.0, width=16, depth=4, salt=fixed_salt if fixed_salt else f"draw-{t}")
        out[t] = mech.estimate(mech.privatize(DATA, rng=rng)).count("target")
    return out


@pytest.mark.parametrize("cls", [CMS, HCMS])
@pytest.mark.parametrize(
    ("trials", "rtol"),
    # the sample variance of near-normal estimates has a relative standard error of about
    # sqrt(2 / trials): 10% at 6,000 trials and 20% at 1,500 are both 5.5 of them
    [(1_500, 0.20), pytest.param(6_000, 0.10, marks=[pytest.mark.slow, pytest.mark.long])],
)
def test_unbiased_over_hash_draws_and_variance_matches_simulation(cls, trials, rtol):
    """Independent salts (hash draws), rows and noise: the mean is the true count within 5
    standard errors and the sample variance is within 5.5 of its standard errors of the
    formula."""
    estimates = _estimates(cls, trials, fixed_salt=None, seed=11)
    n = DATA.size
    formula = n**2 * cls(2.0, width=16, depth=4).variance(
        n, TARGET / n, others_squared=50 * (50 / n) ** 2
    )
    assert abs(estimates.mean() - TARGET) < 5 * math.sqrt(formula / trials)
    assert estimates.var(ddof=1) == pytest.approx(formula, rel=rtol)


@pytest.mark.parametrize("cls", [CMS, HCMS])
def test_fixed_hashes_are_biased_by_their_collisions(cls):
    """One salt, many runs of the noise and rows: the mean is the true count plus the
    collision bias (m/(m-1)) (1/k) sum_l sum_{x != d} f(x) (1[h_l(x) = h_l(d)] - 1/m)."""
    salt = "fixed"
    m, k = 16, 4
    own = [reference_hash(salt, j, b"target", m) for j in range(k)]
    bias = 0.0
    for i in range(50):
        item = f"other-{i}".encode()
        hits = sum(reference_hash(salt, j, item, m) == own[j] for j in range(k))
        bias += 50 * (hits / k - 1 / m)
    bias *= m / (m - 1)
    assert abs(bias) > 20  # the case is not trivial
    trials = 1_500
    estimates = _estimates(cls, trials, fixed_salt=salt, seed=12)
    se = estimates.std(ddof=1) / math.sqrt(trials)
    assert abs(estimates.mean() - (TARGET + bias)) < 5 * se


# ----------------------------------------------------------------------------- privacy
@pytest.mark.parametrize(
    "mechanism", [CMS(1.0, width=16, depth=4), HCMS(1.5, width=8, depth=3)], ids=["cms", "hcms"]
)
def test_audit_is_below_and_close_to_epsilon(mechanism, trust):
    x0, x1 = separated_pair(mechanism)
    result = epsilon_lower_bound(mechanism, x0, x1, n_samples=1_000_000, rng=2026)
    trust["audited"][mechanism.name] = (result.value, mechanism.epsilon)
    assert mechanism.epsilon - 0.05 <= result.value <= mechanism.epsilon


def test_the_privacy_channel_is_the_worst_pair():
    for mech in (CMS(1.2, width=16, depth=2), HCMS(0.9, width=16, depth=2)):
        pair = mech.privacy_channel()
        assert pair.epsilon == pytest.approx(mech.epsilon, rel=1e-12)
        assert not mech.privacy_exact  # bounds the profile of every pair of items
    # CMS: two bits, each at eps/2; HCMS: one bit through eps-RR on half the coefficients
    e = math.exp(0.9)
    assert HCMS(0.9).tv == pytest.approx(0.5 * (e - 1) / (e + 1), rel=1e-12)
    h = math.exp(0.6)
    assert CMS(1.2).tv == pytest.approx((h - 1) / (h + 1), rel=1e-12)


# ----------------------------------------------------------------------------- server
def test_cms_reports_out_of_range_are_refused_in_their_own_dtype():
    """Bytes of uint8 reports cannot leave their range, the row can; wider reports are
    checked in every column."""
    mech = CMS(1.0, width=64, depth=4)
    reports = mech.privatize(np.array(["a", "b"] * 50), rng=0)
    assert reports.dtype == np.uint8
    bad = reports.copy()
    bad[7, 0] = 4
    with pytest.raises(ValueError, match=r"row 7\b.*row outside 0\.\.3"):
        mech.aggregate(bad)
    wide = reports.astype(np.int64)
    wide[9, 3] = 256
    with pytest.raises(ValueError, match=r"row 9\b"):
        mech.aggregate(wide)
    same, narrow = mech.aggregate(reports.astype(np.int64)), mech.aggregate(reports)
    assert np.array_equal(same.counts, narrow.counts) and same.n == narrow.n == 100


@pytest.mark.parametrize(
    ("width", "depth", "users"), [(1024, 16, 3000), (13, 5, 700), (64, 300, 90)]
)
def test_cms_aggregate_is_the_sum_of_the_unpacked_bits_of_each_row(width, depth, users):
    """Random reports (some rows empty when there are more rows than users): the counts are
    the per-row sums of ``np.unpackbits``, the row tallies a loop over the reports."""
    mech = CMS(1.0, width=width, depth=depth)
    gen = np.random.default_rng(width + depth)
    rows = gen.integers(0, depth, users)
    bits = gen.integers(0, 2, (users, width))
    reports = np.column_stack([rows, np.packbits(bits, axis=1)])
    counts = mech.aggregate(reports)
    expected = np.zeros((depth, width), dtype=np.int64)
    tally = np.zeros(depth, dtype=np.int64)
    for row, vector in zip(rows.tolist(), bits):
        expected[row] += vector
        tally[row] += 1
    assert np.array_equal(counts.counts, expected)
    assert np.array_equal(counts.rows, tally)
    assert counts.n == users


@pytest.mark.parametrize(
    ("width", "depth", "dtype"),
    [
        (1024, 16, np.int16),
        (2, 300, np.int16),
        (1 << 14, 2, np.int16),  # the largest combined index is 2^16 - 1
        (1 << 14, 3, np.int16),  # and here 3 2^15 - 1, past 16 bits
        (1 << 15, 2, np.int16),
        (1 << 16, 3, np.int32),
    ],
)
def test_hcms_reports_are_the_smallest_integers_and_count_as_a_loop(width, depth, dtype):
    """HCMS reports hold the row, the coefficient and the bit in the smallest signed
    integers that hold ``max(depth, width) - 1``, from both samplers; the aggregate of
    random reports in that dtype is a loop over them (the signed sums of each row and
    coefficient, and the row tallies), also where the combined index passes the dtype
    (and the 16 bits the count builds it in when it fits)."""
    mech = HCMS(1.0, width=width, depth=depth)
    items = np.array(["a", "b", "c"] * 20)
    for rng in (0, "os"):
        assert mech.privatize(items, rng=rng).dtype == dtype
    gen = np.random.default_rng(width + depth)
    users = 500
    reports = np.column_stack(
        [gen.integers(0, depth, users), gen.integers(0, width, users), gen.integers(0, 2, users)]
    ).astype(dtype)
    reports[0] = (depth - 1, width - 1, 1)  # the largest combined index
    counts = mech.aggregate(reports)
    expected = np.zeros((depth, width), dtype=np.int64)
    tally = np.zeros(depth, dtype=np.int64)
    for row, column, bit in reports.tolist():
        expected[row, column] += 2 * bit - 1
        tally[row] += 1
    assert np.array_equal(counts.counts, expected)
    assert np.array_equal(counts.rows, tally)


@pytest.mark.parametrize(("width", "depth", "users"), [(1024, 16, 3000), (2, 3, 700), (64, 5, 0)])
def test_hcms_aggregate_counts_each_report_by_a_loop(width, depth, users, monkeypatch):
    """The sums are ``+1`` or ``-1`` per report added by a loop, the row tallies counted
    by it; signed reports (checked as they are counted, in blocks, here of 256) and
    unsigned ones (checked by the codec first) agree."""
    monkeypatch.setattr(sketch_module, "_COUNTED_REPORTS", 256)
    mech = HCMS(1.0, width=width, depth=depth)
    gen = np.random.default_rng(width + depth)
    reports = np.column_stack(
        [gen.integers(0, depth, users), gen.integers(0, width, users), gen.integers(0, 2, users)]
    )
    expected = np.zeros((depth, width), dtype=np.int64)
    tally = np.zeros(depth, dtype=np.int64)
    for row, coefficient, bit in reports.tolist():
        expected[row, coefficient] += 1 if bit else -1
        tally[row] += 1
    for given in (reports.astype(np.int64), reports.astype(np.int16), reports.astype(np.uint16)):
        counts = mech.aggregate(given)
        assert np.array_equal(counts.counts, expected)
        assert np.array_equal(counts.rows, tally)
        assert counts.n == users


@pytest.mark.parametrize(
    ("column", "value", "field"),
    [
        (0, 4, "row"),
        (0, -1, "row"),
        (1, 64, "coefficient"),
        (1, -(2**63), "coefficient"),
        (2, 2, "bit"),
        (2, -1, "bit"),
        (2, 2**62, "bit"),
    ],
)
def test_hcms_signed_reports_out_of_range_are_refused_by_row(column, value, field, monkeypatch):
    """A field outside its range, in any block of int64 or native int8 reports, is refused
    with the codec's message naming the first bad row."""
    monkeypatch.setattr(sketch_module, "_COUNTED_REPORTS", 64)
    mech = HCMS(1.0, width=64, depth=4)
    native = mech.privatize(np.array(["a", "b"] * 150), rng=0)
    assert native.dtype == np.int8
    for dtype in (np.int64, np.int8):
        if not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
            continue
        reports = native.astype(dtype)
        reports[200, column] = value
        reports[250, column] = value
        with pytest.raises(ValueError, match=rf"row 200\b.*{field} outside"):
            mech.aggregate(reports)


def test_collect_first_query_any_item_after():
    cms = CMS(3.0, width=512, depth=8, salt="survey-2026")
    rng = np.random.default_rng(3)
    words = np.array(["the", "of", "and", "zebra"])
    data = words[rng.choice(4, size=40_000, p=[0.5, 0.3, 0.15, 0.05])]
    halves = [cms.aggregate(cms.privatize(part, rng=rng)) for part in np.array_split(data, 2)]
    total = sum(halves)
    assert isinstance(total, SketchCounts) and total.n == data.size
    sketch = cms.estimate(total)
    assert isinstance(sketch, Sketch)
    freq = sketch.frequency(["the", "of", "and", "zebra", "never-sent"])
    sd = np.sqrt(cms.variance(data.size, [0.5, 0.3, 0.15, 0.05, 0.0], others_squared=0.0))
    truth = np.array([0.5, 0.3, 0.15, 0.05, 0.0])
    # collisions with the few heavy words add a bias of at most their frequency / m each
    assert np.all(np.abs(freq - truth) < 5 * sd + 1.0 / 512)
    assert isinstance(sketch.count("the"), float)
    assert sketch.count(["the"]).shape == (1,)
    np.testing.assert_array_equal(np.asarray(sketch), sketch.matrix)
    assert pickle.loads(pickle.dumps(sketch)) == sketch
    with pytest.raises(ValueError, match="zero reports"):
        cms.estimate(cms.empty_statistic())
    with pytest.raises(ValueError, match="not from"):
        CMS(3.0, width=512, depth=8).estimate(total)  # another salt: other hash functions


def test_protocol_files_carry_the_items_domain():
    hcms = HCMS(2.0, width=64, depth=4, salt="s")
    protocol = Protocol.from_mechanism(hcms, question="Your favourite emoji?")
    assert protocol.kind == "items" and protocol.to_dict()["domain"] == {"type": "items"}
    assert hcms.domain == Items()
    assert Protocol.from_json(protocol.to_json()) == protocol
    reports = protocol.privatize(["😀", "😀", b"raw", 7], rng=0)
    assert reports.shape == (4, 3)
    with pytest.raises(ValueError, match="labels"):
        Protocol.from_mechanism(hcms, labels=["a", "b"])
    with pytest.raises(TypeError) as info:
        protocol.privatize([3.25], rng=0)
    assert "3.25" not in str(info.value)


def test_recommend_points_huge_domains_to_a_sketch():
    """An open domain (k=None) or one beyond what a histogram server decodes gets a sketch:
    CMS where its m-bit report buys variance (large eps), HCMS's one bit where the two are
    within the tolerance (small eps) or the report budget is small."""
    for k in (None, 2**40):
        choice = recommend(k, 4.0, n=10**6)
        assert choice.mechanism.name == "cms", choice
        width, depth = choice.mechanism.width, choice.mechanism.depth
        noise = math.exp(2.0) / (math.exp(2.0) - 1) ** 2  # (c^2 - 1) / 4 at eps / 2 = 2
        r2 = (width / (width - 1)) ** 2
        assert (r2 - 1) * noise + 1 / (width - 1) <= 0.05 * noise  # the width rule
        assert 10**6 / (depth * (width - 1)) <= noise  # heavy items cost at most the noise
    assert recommend(None, 0.3).mechanism.name == "hcms"
    assert recommend(None, 4.0, n=10**6, communication=64).mechanism.name == "hcms"
    assert recommend(2**20, 4.0).mechanism.name != "cms"  # decodable: a frequency oracle
    with pytest.raises(ValueError, match="sketches"):
        recommend(None, 1.0, candidates=("GRR",))


def test_command_line_privatizes_items_and_queries_them(tmp_path, capsys):
    """ldp privatize reads items as text ("007" stays "007"); ldp estimate --items queries
    the sketch of the reports."""
    import json

    from ldp.cli import main

    protocol = Protocol.from_mechanism(CMS(4.0, width=256, depth=16, salt="cli"))
    protocol.save(tmp_path / "p.json")
    rng = np.random.default_rng(0)
    words = rng.choice(["007", "7", "zebra"], size=6000, p=[0.5, 0.3, 0.2])
    (tmp_path / "answers.csv").write_text("word\n" + "\n".join(words) + "\n")
    argv = ["privatize", "--protocol", str(tmp_path / "p.json"), str(tmp_path / "answers.csv")]
    assert main([*argv, "--out", str(tmp_path / "r.csv"), "--rng", "1"]) == 0
    capsys.readouterr()
    query = ["estimate", "--protocol", str(tmp_path / "p.json"), str(tmp_path / "r.csv")]
    assert main([*query, "--items", "007,7,zebra,absent", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["frequencies"]
    assert [r["category"] for r in rows] == ["007", "7", "zebra", "absent"]
    for r, truth in zip(rows, (0.5, 0.3, 0.2, 0.0)):
        assert abs(r["estimate"] - truth) < 2 * r["half_width"] + 0.01
    assert main(query) == 2  # a sketch needs --items
