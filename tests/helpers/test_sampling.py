"""The exact byte-driven draws: the realised law of every primitive against its claim.

The realised law of ``choose`` is computed by walking the tree of byte prefixes (256 children
per node, only undecided prefixes expanded), exactly in rational arithmetic, independently
of the vectorised tables the sampler uses; the vectorised sampler is then checked to decide
every prefix the same way and to read the same number of bytes. Statistical checks are
seeded; each fails by chance with probability below ``P_FLOOR``.
"""

import io
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from ldp._random import ByteSource
from ldp._sampling import (
    ExactLaw,
    bernoulli,
    choose,
    randint,
    random_bytes,
    uniform,
    zero_bits,
)

P_FLOOR = 1e-4


def _source(data: bytes):
    stream = io.BytesIO(data)
    return ByteSource(stream.read), stream


def _exact_rule(weights, prefix: int, stage: int) -> tuple[int, bool]:
    """The specification's rule in plain Fractions: the bucket of [L, L+1) / 256^t."""
    total = sum(Fraction(w) for w in weights)
    cumulative = list(itertools.accumulate(Fraction(w) / total for w in weights))
    low = Fraction(prefix, 256**stage)
    high = Fraction(prefix + 1, 256**stage)
    j = next(i for i, c in enumerate(cumulative) if c > low)
    return j, high <= cumulative[j]


def _realised_law(weights, depth: int) -> tuple[list[Fraction], Fraction]:
    """P(j) from the decided prefixes up to ``depth`` bytes, and the undecided mass."""
    probabilities = [Fraction(0)] * len(weights)
    frontier = [0]
    for stage in range(1, depth + 1):
        deeper = []
        for prefix in frontier:
            for byte in range(256):
                value = prefix * 256 + byte
                j, decided = _exact_rule(weights, value, stage)
                if decided:
                    probabilities[j] += Fraction(1, 256**stage)
                else:
                    deeper.append(value)
        frontier = deeper
    return probabilities, Fraction(len(frontier), 256**depth)


@pytest.mark.parametrize(
    "weights",
    [
        [1.0, 3.0],
        [math.e, 4.0],
        [1e-20, 1.0],  # far below 2^-53: a 53-bit uniform would realise 0 or 2^-53
        [1.0, 1e-300],
        [0.2, 0.0, 0.3, 0.5],  # an impossible outcome is never drawn
        [0.1] * 10,
    ],
)
def test_choose_realises_exactly_the_ratio_of_the_weights(weights):
    depth = 12 if min(w for w in weights if w > 0) < 1e-10 else 4
    realised, undecided = _realised_law(weights, depth)
    total = sum(Fraction(w) for w in weights)
    for j, w in enumerate(weights):
        exact = Fraction(w) / total
        assert realised[j] <= exact <= realised[j] + undecided
        if w == 0:
            assert realised[j] == 0
    assert undecided <= Fraction(len(weights), 256 ** (depth - 1))


def test_choose_tables_decide_like_the_rule_and_read_as_many_bytes():
    rng = np.random.default_rng(7)
    for weights in ([math.e, 4.0], [0.2, 0.0, 0.3, 0.5], [1e-20, 1.0], list(rng.random(40))):
        law = ExactLaw(weights)
        prefixes = [bytes([b]) for b in range(256)]
        # prefixes that start on a bucket boundary, so that later rounds are reached
        for c in itertools.accumulate(weights):
            edge = Fraction(c) / Fraction(sum(Fraction(w) for w in weights))
            top = int(edge * 256**3)
            prefixes.append(top.to_bytes(3, "big") if top < 256**3 else b"\xff\xff\xff")
        for prefix in prefixes:
            data = prefix + bytes(rng.integers(0, 256, size=12, dtype=np.uint8))
            source, stream = _source(data)
            drawn = int(choose(source, [law], np.zeros(1, dtype=np.int64))[0])
            used = stream.tell()
            value = int.from_bytes(data[:used], "big")
            j, decided = _exact_rule(weights, value, used)
            assert decided and j == drawn
            if used > 1:  # one byte fewer did not decide
                assert not _exact_rule(weights, value >> 8, used - 1)[1]


def test_choose_at_the_2_to_the_minus_70_edge():
    """GRR at eps = 50 over 4 values: a change has probability 3 / (e^50 + 3) ~ 5.8e-22.

    Eight 0xff bytes leave U in [1 - 256^-8, 1): still undecided; a ninth 0x00 puts U below
    the boundary 1 - 5.8e-22 (keep), a ninth 0xff above it (change)."""
    law = ExactLaw([math.exp(50.0), 3.0])
    for last, expected in ((b"\x00", 0), (b"\xff", 1)):
        source, stream = _source(b"\xff" * 8 + last)
        assert choose(source, [law], np.zeros(1, dtype=np.int64)).tolist() == [expected]
        assert stream.tell() == 9


def test_choose_with_many_laws_groups_and_keeps_user_order():
    laws = [ExactLaw(np.random.default_rng(s).random(5)) for s in range(8)]
    which = np.random.default_rng(1).integers(0, 8, size=50_000)
    drawn = choose(np.random.default_rng(2), laws, which)
    for law_id in range(8):
        sel = which == law_id
        counts = np.bincount(drawn[sel], minlength=5)
        expected = np.array(laws[law_id].probabilities()) * sel.sum()
        assert stats.chisquare(counts, expected).pvalue > P_FLOOR


def test_choose_goodness_of_fit():
    law = ExactLaw([1.0, 2.0, 3.0, 0.5])
    drawn = choose(np.random.default_rng(3), [law], np.zeros(200_000, dtype=np.int64))
    counts = np.bincount(drawn, minlength=4)
    expected = np.array([1.0, 2.0, 3.0, 0.5]) / 6.5 * drawn.size
    assert stats.chisquare(counts, expected).pvalue > P_FLOOR


@pytest.mark.parametrize("p", [0.0, 1.0, 0.5, 0.3, 1e-300, 1.0 - 2.0**-53, 2.0**-60])
def test_bernoulli_is_the_exact_digit_comparison(p):
    digits, rests = [], []
    remainder = Fraction(p)
    for _ in range(12):
        remainder *= 256
        digit = math.floor(remainder)
        digits.append(digit)
        remainder -= digit
        rests.append(remainder)
    # a stream equal to p's digits up to position t (while p has digits left), then one byte
    # below (True) or above (False): decided after exactly t + 1 bytes
    for t in range(10):
        if t > 0 and rests[t - 1] == 0:
            break
        if digits[t] > 0:
            source, stream = _source(bytes(digits[:t]) + bytes([digits[t] - 1]))
            assert bernoulli(source, np.array([p])).tolist() == [True]
            assert stream.tell() == t + 1
        if digits[t] < 255:
            source, stream = _source(bytes(digits[:t]) + bytes([digits[t] + 1]))
            assert bernoulli(source, np.array([p])).tolist() == [False]
            assert stream.tell() == t + 1
    # once p has no digits left, an equal prefix means U >= p: False
    ends = next((t for t, r in enumerate(rests) if r == 0), None)
    if ends is not None and digits[ends] <= 255:  # (p = 1 has no equal prefix)
        source, stream = _source(bytes(digits[: ends + 1]) + bytes(4))
        assert bernoulli(source, np.array([p])).tolist() == [False]
        assert stream.tell() == ends + 1


def test_bernoulli_goodness_of_fit_and_bad_input():
    p = np.array([0.1, 0.5, 0.9, 1e-3] * 50_000)
    drawn = bernoulli(np.random.default_rng(4), p)
    for value in (0.1, 0.5, 0.9, 1e-3):
        sel = p == value
        assert stats.binomtest(int(drawn[sel].sum()), int(sel.sum()), value).pvalue > P_FLOOR
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bernoulli(np.random.default_rng(0), np.array([1.5]))


@pytest.mark.parametrize("bound", [2, 3, 5, 256, 257, 1000, 2**40 - 1])
def test_randint_is_uniform(bound):
    draws = randint(np.random.default_rng(bound % 1000), bound, 100_000)
    assert draws.min() >= 0 and draws.max() < bound
    if bound <= 1000:
        counts = np.bincount(draws, minlength=bound)
        assert stats.chisquare(counts).pvalue > P_FLOOR
    else:
        assert stats.kstest(draws / bound, "uniform").pvalue > P_FLOOR


def test_randint_reads_big_endian_and_rejects():
    # bound 5: three bits; 0x07 masks to 7 (rejected), then 0x02 gives 2
    source, stream = _source(b"\x07\x02")
    assert randint(source, 5, 1).tolist() == [2] and stream.tell() == 2
    # bound 300: nine bits from two bytes, big-endian: 0x01 0x2c = 300 (rejected), 0x00 0x05
    source, stream = _source(b"\x01\x2c\x00\x05")
    assert randint(source, 300, 1).tolist() == [5]
    assert randint(np.random.default_rng(0), 1, 4).tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="bound"):
        randint(np.random.default_rng(0), 2**53 + 1, 1)


def test_uniform_and_zero_bits():
    source, _ = _source(b"\x80" + bytes(6))
    assert uniform(source, 1).tolist() == [0.5]
    u = uniform(np.random.default_rng(5), 100_000)
    assert stats.kstest(u, "uniform").pvalue > P_FLOOR
    assert np.all(u * 2.0**53 == np.floor(u * 2.0**53))
    source, _ = _source(b"\x00\x00\x10")
    assert zero_bits(source, 1).tolist() == [8 + 8 + 3]
    counts = np.bincount(zero_bits(np.random.default_rng(6), 100_000), minlength=30)[:12]
    expected = 100_000 * 0.5 ** np.arange(1, 13)
    assert stats.chisquare(counts, expected * counts.sum() / expected.sum()).pvalue > P_FLOOR


def test_a_short_source_raises():
    source, _ = _source(b"\x01")
    with pytest.raises(ValueError, match="bytes"):
        uniform(source, 1)
    with pytest.raises(RuntimeError, match="bytes"):

        class Short:
            def bytes(self, n):
                return b"\x00"

        random_bytes(Short(), 3)


def test_exact_law_rejects_bad_weights():
    for weights, match in (([], "empty"), ([0.0, 0.0], "zero"), ([1.0, -1.0], "non-negative")):
        with pytest.raises(ValueError, match=match):
            ExactLaw(weights)
    with pytest.raises(ValueError, match="finite"):
        ExactLaw([1.0, math.inf])
