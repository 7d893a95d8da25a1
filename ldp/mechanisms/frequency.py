"""Frequency oracles: GRR, unary encoding (SUE, OUE), local hashing (OLH, BLH), Hadamard
response and subset selection, vectorised over users.

All of them are pure protocols (see ``ldp.mechanisms.base``); the support probabilities
``p`` and ``q`` of each are in the table of Wang, Blocki, Li and Jha (2017). Every coin is
drawn exactly from the weights in :meth:`sampler` (``ldp._sampling``). The weights are
*calibrated*: the nominal ``e^eps`` is the largest double at most ``e^eps``
(:func:`ldp._exact.exp_down`), and any other weight moves, one double at a time towards more
privacy, until the largest likelihood ratio of the law it samples is at most ``e^eps``
exactly. So ``epsilon`` is the level the oracle was asked for (checked exactly,
:func:`ldp._exact.certified_epsilon`); ``p``, ``q``, the variance and ``to_channel()`` (the
exact channel input -> report, when it is small enough to enumerate) are those of the
calibrated weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ldp._exact import (
    certified_epsilon,
    exp_down,
    exp_up,
    log_up,
    nearest_within,
    probabilities,
    within_exp,
)
from ldp._formulas import subset_membership, subset_selection_probabilities
from ldp._sampling import (
    ExactLaw,
    choose,
    choose_after_first_byte,
    first_byte_thresholds,
    randint,
    random_bytes,
)
from ldp._validation import check_integer, check_random_state, check_scalar, compact
from ldp.channel import Channel
from ldp.core import Field, ReportCodec, index_codec
from ldp.mechanisms._hashing import fwht, hash_family, parity
from ldp.mechanisms.base import (
    MAX_VECTOR_CATEGORIES,
    FrequencyOracle,
    check_categories,
    check_mechanism_epsilon,
    check_size,
    chunk_rows,
    index_dtype,
)

__all__ = [
    "BLH",
    "GRR",
    "OLH",
    "OUE",
    "SUE",
    "HadamardResponse",
    "LocalHashing",
    "SubsetSelection",
    "UnaryEncoding",
]

#: Largest number of matrix entries ``to_channel`` builds.
MAX_CHANNEL_ENTRIES = 1 << 24


def _check_channel_size(log2_entries: float, what: str) -> None:
    """Refuse a channel of ``2^log2_entries`` entries before any of its sizes is computed in
    full (the output alphabet of unary encoding or subset selection is astronomically large:
    ``2^k`` or ``C(k, d)``)."""
    if log2_entries > math.log2(MAX_CHANNEL_ENTRIES):
        size = f"about 2^{math.floor(log2_entries)}" if log2_entries >= 20 else "more"
        raise ValueError(
            f"{what}.to_channel: the channel would have {size} entries; the limit is "
            f"MAX_CHANNEL_ENTRIES = 2^{MAX_CHANNEL_ENTRIES.bit_length() - 1} "
            "(ldp.mechanisms.frequency): use a smaller k"
        )


def _check_vector_size(k: int, what: str) -> None:
    """Bit-vector reports (unary encoding, subset selection) hold ``k`` bits each."""
    check_size(
        k,
        MAX_VECTOR_CATEGORIES,
        "MAX_VECTOR_CATEGORIES",
        what,
        f"a report of k = {compact(k)} bits",
    )


def _pair(first: list[float], second: list[float]) -> Channel:
    """The 2-row channel of a worst input pair reduced to its likelihood-ratio classes."""
    return Channel(np.array([first, second], dtype=np.float64))


def unary_ratio(own: Fraction, other: Fraction) -> Fraction | None:
    """The largest likelihood ratio of two unary-encoded inputs, exactly (``None``: infinite).

    Two inputs change two independent bits: each is 1 with probability ``own`` when it is the
    input's own bit and ``other`` otherwise, so a report's probability changes by
    ``max(own/other, (1-own)/(1-other))`` on one bit times ``max(other/own,
    (1-other)/(1-own))`` on the other; ``p (1 - q) / ((1 - p) q)`` when ``own > other``.
    """

    def ratio(a: Fraction, b: Fraction) -> Fraction | None:
        if b == 0:
            return None if a > 0 else Fraction(1)
        return a / b

    up = [ratio(own, other), ratio(1 - own, 1 - other)]
    down = [ratio(other, own), ratio(1 - other, 1 - own)]
    if None in up or None in down:
        return None
    return max(r for r in up if r is not None) * max(r for r in down if r is not None)


def packed_bit(reports: np.ndarray, v: int) -> np.ndarray:
    """Bit ``v`` of bit-packed rows (``np.packbits`` order), as int64."""
    return ((np.asarray(reports)[:, v // 8] >> (7 - v % 8)) & 1).astype(np.int64)


# --------------------------------------------------------------------------- GRR
class GRR(FrequencyOracle):
    """Generalized randomized response (k-RR, direct encoding).

    Keep the value with probability ``p = e^eps / (e^eps + k - 1)``, otherwise report one of
    the ``k - 1`` other values uniformly (``q = 1 / (e^eps + k - 1)`` each), with ``e^eps``
    the largest double at most ``e^eps`` (the ratio ``p / q`` it samples is at most
    ``e^eps`` exactly). The report is the value itself, so ``C_v`` is the histogram of
    reports. Its matrix is :func:`~ldp.mechanisms.k_rr` up to that rounding.

    Parameters
    ----------
    k : int
        Number of categories, ``k >= 2``.
    epsilon : float
        Privacy level, ``> 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> grr = GRR(4, 1.0)
    >>> reports = grr.privatize(np.array([0, 1, 1, 3] * 2500), rng=1)
    >>> bool(np.abs(grr.estimate(reports) - [0.25, 0.5, 0.0, 0.25]).max() < 0.05)
    True
    >>> grr.epsilon, round(grr.to_channel().epsilon, 12)   # the level asked for, exactly
    (1.0, 1.0)
    """

    name = "GRR"

    def __init__(self, k: int, epsilon: float) -> None:
        super().__init__(k, epsilon)
        self._odds = exp_down(self._eps_budget)  # P(keep) / P(one given other value)
        self._law = ExactLaw([self._odds, float(self._k - 1)])  # keep : change
        total = self._odds + (self._k - 1)
        self._p, self._q = self._odds / total, 1.0 / total

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return self._q

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._odds, self._eps_budget)

    @property
    def report_bits(self) -> float:
        return math.log2(self._k)

    @property
    def codec(self) -> ReportCodec:
        return index_codec(self._k, np.dtype(index_dtype(self._k)).name)

    def sampler(self) -> dict[str, object]:
        """``keep``: the weights of keeping ``x`` and of reporting another value."""
        return {"keep": list(self._law.weights)}

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        change = choose(gen, [self._law], np.zeros(x.size, dtype=np.int64)) == 1
        out = x.astype(index_dtype(self._k))
        moved = x[change]
        other = randint(gen, self._k - 1, moved.size)
        out[change] = other + (other >= moved)
        return out

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return np.bincount(reports, minlength=self._k).astype(np.int64), reports.size

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        distinct, inverse = np.unique(values, return_inverse=True)
        at = np.searchsorted(distinct, reports).clip(max=max(distinct.size - 1, 0))
        hit = distinct[at] == reports if distinct.size else np.zeros(reports.size, bool)
        return np.bincount(at[hit], minlength=distinct.size).astype(np.int64)[inverse]

    def to_channel(self) -> Channel:
        """The ``k x k`` channel: ``p`` on the diagonal, ``q`` off it."""
        _check_channel_size(2 * math.log2(self._k), "GRR")
        matrix = np.full((self._k, self._k), self._q)
        np.fill_diagonal(matrix, self._p)
        return Channel(matrix)

    def privacy_channel(self) -> Channel:
        """Outputs ``x``, ``x'``, anything else: every pair of inputs is alike."""
        p, q = self._p, self._q
        return _pair([p, q, 1.0 - p - q], [q, p, 1.0 - p - q])


# --------------------------------------------------------------------------- unary encoding
def packed_codec(k: int, check=None) -> ReportCodec:
    """``ceil(k / 8)`` byte fields of a bit-packed vector (bit ``v`` is bit ``7 - v % 8`` of
    byte ``v // 8``; the pad bits beyond ``k`` are zero)."""
    width = (k + 7) // 8
    fields = tuple(Field(f"byte_{i}", "int", 0, 255) for i in range(width))
    return ReportCodec(fields, "uint8", vector=True, check=check)


def _check_pad_bits(k: int):
    def check(reports: np.ndarray, where) -> None:
        if k % 8:
            pad = (1 << (8 - k % 8)) - 1
            bad = (reports[:, -1] & pad) != 0
            if np.any(bad):
                raise ValueError(
                    f"{where(int(np.argmax(bad)))}: the report has bits set beyond k = {k} "
                    "(not a report of this mechanism)"
                )

    return check


#: ``_BYTE_BITS[b, i]``: bit ``i`` of byte value ``b`` in ``np.packbits`` order (MSB first).
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.int64)


def _bit_counts(packed: np.ndarray, k: int) -> np.ndarray:
    """Column sums of bit-packed rows: a histogram of the byte values of each byte column
    (one pass over the bytes, chunked), times the bits of each byte value."""
    width = packed.shape[1]
    histogram = np.zeros(256 * width, dtype=np.int64)
    offsets = (256 * np.arange(width, dtype=np.intp))[None, :]
    for rows in chunk_rows(packed.shape[0], 8 * width):
        codes = packed[rows].astype(np.intp) + offsets
        histogram += np.bincount(codes.ravel(), minlength=256 * width)
    return (histogram.reshape(width, 256) @ _BYTE_BITS).reshape(-1)[:k]


class UnaryEncoding(FrequencyOracle):
    """Unary encoding: report the one-hot vector of ``x`` with each bit flipped independently.

    Bit ``v`` is 1 with probability ``p`` if ``v = x`` and ``q`` otherwise. Reports are
    bit-packed rows (``np.packbits``, ``ceil(k/8)`` bytes per user; bit ``v`` is bit
    ``7 - v % 8`` of byte ``v // 8``). ``epsilon = log(p (1 - q) / ((1 - p) q))``: two inputs
    differ in two bits. With ``p`` and ``q`` given, it is that level of the law sampled (the
    odds ``p : 1 - p`` and ``q : 1 - q`` of the doubles), rounded up to a double; the
    ``epsilon`` argument is only recorded in :attr:`params`. :class:`SUE` and :class:`OUE`
    calibrate their odds to their ``epsilon`` and state it.

    Parameters
    ----------
    k : int
        Number of categories.
    epsilon : float
        Privacy level, ``> 0``.
    p, q : float
        Bit probabilities; see :class:`SUE` and :class:`OUE` for the standard choices.

    Examples
    --------
    >>> from ldp.mechanisms import UnaryEncoding
    >>> ue = UnaryEncoding(8, 1.0, p=0.5, q=0.25)
    >>> round(ue.epsilon, 6)   # log(0.5 * 0.75 / (0.5 * 0.25))
    1.098612
    """

    name = "UE"
    #: whether the weights were calibrated to the ``epsilon`` argument (then it is stated)
    _calibrated = False

    def __init__(self, k: int, epsilon: float, p: float, q: float) -> None:
        super().__init__(k, epsilon)
        p, q = check_scalar(p, "p"), check_scalar(q, "q")
        if not (0.0 < q < p < 1.0):
            raise ValueError(f"unary encoding needs 0 < q < p < 1, got p={p!r}, q={q!r}")
        self._set_weights((p, 1.0 - p), (q, 1.0 - q))
        self._given = (p, q)

    def _set_weights(self, own: tuple[float, float], other: tuple[float, float]) -> None:
        """Bit ``x`` is 1 with odds ``own[0] : own[1]``, every other bit ``other[0] : other[1]``."""
        self._own = ExactLaw(own)
        self._other = ExactLaw(other)
        self._p = own[0] / (own[0] + own[1])
        self._q = other[0] / (other[0] + other[1])

    @property
    def params(self) -> dict[str, object]:
        p, q = self._given
        return {"k": self._k, "epsilon": self._eps_budget, "p": p, "q": q}

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return self._q

    def _ratio(self) -> Fraction | None:
        """The largest likelihood ratio of the law sampled, exactly."""
        own = probabilities(self._own.weights)[0]
        return unary_ratio(own, probabilities(self._other.weights)[0])

    @property
    def epsilon(self) -> float:
        ratio = self._ratio()
        if self._calibrated:
            return certified_epsilon(ratio, self._eps_budget)
        return log_up(ratio)

    @property
    def report_bits(self) -> float:
        return float(self._k)

    @property
    def codec(self) -> ReportCodec:
        _check_vector_size(self._k, f"{type(self).__name__}.codec")
        return packed_codec(self._k, _check_pad_bits(self._k))

    def sampler(self) -> dict[str, object]:
        """``own``: odds ``1 : 0`` of the bit of ``x``; ``other``: of every other bit."""
        return {"own": list(self._own.weights), "other": list(self._other.weights)}

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        _check_vector_size(self._k, f"{type(self).__name__}.privatize")
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        out = np.empty((x.size, (self._k + 7) // 8), dtype=np.uint8)
        laws = [self._other, self._own]  # law 1 for the bit of x
        (t_other, open_other), (t_own, open_own) = map(first_byte_thresholds, laws)
        for rows in chunk_rows(x.size, self._k):
            m = rows.stop - rows.start
            first = random_bytes(gen, m * self._k).reshape(m, self._k)
            at = np.arange(m), x[rows]
            own_bytes = first[at]
            # bit = outcome 0 of the bit's law: decided by the first byte unless it equals the
            # law's threshold and the division there is inexact (then: the next bytes)
            bits = first < t_other
            bits[at] = own_bytes < t_own
            undecided = (first == t_other) if open_other else np.zeros_like(bits)
            undecided[at] = (own_bytes == t_own) if open_own else False
            where = np.flatnonzero(undecided)
            if where.size:
                own = np.zeros((m, self._k), dtype=bool)
                own[at] = True
                which = own.ravel()[where].astype(np.int64)
                outcome = choose_after_first_byte(gen, laws, which, first.ravel()[where])
                bits.ravel()[where] = outcome == 0
            out[rows] = np.packbits(bits, axis=1)
        return out

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return _bit_counts(reports, self._k), reports.shape[0]

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.array([packed_bit(reports, int(v)).sum() for v in values], dtype=np.int64)

    def privacy_channel(self) -> Channel:
        """The bits of ``x`` and ``x'`` (11, 10, 01, 00); the other bits have one law."""
        p1, p0 = self._own.probabilities()
        q1, q0 = self._other.probabilities()
        return _pair([p1 * q1, p1 * q0, p0 * q1, p0 * q0], [q1 * p1, q1 * p0, q0 * p1, q0 * p0])

    def audit_statistic(self, x0: Any, x1: Any):
        """``2 bit[x0] + bit[x1]``: sufficient for the pair."""
        a, b = int(x0), int(x1)
        return lambda reports: 2 * packed_bit(reports, a) + packed_bit(reports, b)

    def to_channel(self) -> Channel:
        """The ``k x 2^k`` channel, output ``z`` = the bit vector with bit ``v`` = bit
        ``k - 1 - v`` of the integer ``z``."""
        _check_channel_size(math.log2(self._k) + self._k, type(self).__name__)
        z = np.arange(2**self._k)
        bits = (z[None, :] >> (self._k - 1 - np.arange(self._k))[:, None]) & 1  # (k, 2^k)
        ones = bits.sum(axis=0)
        q1, q0 = (w / sum(self._other.weights) for w in self._other.weights)
        p1, p0 = (w / sum(self._own.weights) for w in self._own.weights)
        # P(z | x) = prod_v P(bit_v): q^(#ones off x) (1-q)^(...) times p or (1-p) at x
        base = q1 ** (ones - bits) * q0 ** (self._k - 1 - ones + bits)
        at_x = np.where(bits == 1, p1, p0)
        return Channel(base * at_x)


class SUE(UnaryEncoding):
    """Symmetric unary encoding, i.e. basic one-time RAPPOR (Erlingsson et al. 2014).

    ``p = e^{eps/2} / (e^{eps/2} + 1)``, ``q = 1 - p``, with ``e^{eps/2}`` the largest double
    at most ``e^{eps/2}``: the ratio ``(p (1 - q) / ((1 - p) q)`` sampled is its square, at
    most ``e^eps`` exactly.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import SUE
    >>> sue = SUE(6, 1.0)
    >>> reports = sue.privatize(np.arange(6).repeat(1000), rng=0)
    >>> reports.shape, reports.dtype
    ((6000, 1), dtype('uint8'))
    >>> bool(np.all(np.abs(sue.estimate(reports) - 1 / 6) < 0.1))
    True
    """

    name = "SUE"
    _calibrated = True

    def __init__(self, k: int, epsilon: float) -> None:
        FrequencyOracle.__init__(self, k, epsilon)
        half = exp_down(self._eps_budget / 2)  # half^2 <= e^eps: the sampled ratio
        self._set_weights((half, 1.0), (1.0, half))

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget}


class OUE(UnaryEncoding):
    """Optimized unary encoding (Wang et al. 2017): ``p = 1/2``, ``q = 1 / (e^eps + 1)``, with
    ``e^eps`` the largest double at most ``e^eps``.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import OUE
    >>> oue = OUE(1024, 1.0)
    >>> round(oue.variance(10_000, 0.1) * 1e4, 10)   # (4e/(e-1)^2 + 0.1) / n, times n
    3.7826943768
    """

    name = "OUE"
    _calibrated = True

    def __init__(self, k: int, epsilon: float) -> None:
        FrequencyOracle.__init__(self, k, epsilon)
        self._set_weights((1.0, 1.0), (1.0, exp_down(self._eps_budget)))

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget}


# --------------------------------------------------------------------------- local hashing
class LocalHashing(FrequencyOracle):
    """Local hashing with ``g`` buckets (Wang et al. 2017; Bassily-Smith 2015 for g = 2).

    Each user draws a hash function ``H: [k] -> [g]`` from an exactly pairwise-independent
    family (linear over ``GF(p)^e`` when ``g = p^e``, else bits with ``Z_g`` coefficients;
    see ``ldp.mechanisms._hashing``) and applies GRR over ``[g]`` to ``H(x)``. The report
    is one int64 row: the hash function's words (its coefficients, packed), then the bucket.
    ``p = e^eps / (e^eps + g - 1)`` (``e^eps`` the largest double at most ``e^eps``) and,
    because the family is exactly pairwise independent, ``q = 1/g`` exactly. Decoding costs
    ``O(n g + k log k)`` for prime-power ``g`` (a Walsh-Hadamard or ``Z_p^L`` Fourier
    transform) and a chunked ``O(n k)`` otherwise.

    Given the hash function, the report is GRR over ``[g]``, so ``epsilon`` is
    ``log(p_keep / p_other)`` for every hash function that is not constant on ``[k]``.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    g : int
        Number of hash buckets, ``g >= 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import LocalHashing
    >>> lh = LocalHashing(100, 1.0, g=3)
    >>> reports = lh.privatize(np.zeros(20_000, dtype=int), rng=3)
    >>> reports.shape
    (20000, 2)
    >>> est = lh.estimate(reports)
    >>> bool(abs(est[0] - 1) < 0.1 and np.abs(est[1:]).max() < 0.1)
    True
    """

    name = "LH"

    def __init__(self, k: int, epsilon: float, g: int) -> None:
        super().__init__(k, epsilon)
        self._g = check_integer(g, "g", low=2)
        if self._g > 1 << 31:
            raise ValueError(f"g must be <= 2^31, got {self._g} (use GRR at this epsilon)")
        self._odds = exp_down(self._eps_budget)
        self._law = ExactLaw([self._odds, float(self._g - 1)])  # keep : change
        total = self._odds + (self._g - 1)
        self._keep, self._other = self._odds / total, 1.0 / total
        self._family = hash_family(self._k, self._g)
        self._packing = self._family.packing

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "g": self._g}

    @property
    def g(self) -> int:
        """Number of hash buckets."""
        return self._g

    @property
    def p(self) -> float:
        return self._keep

    @property
    def q(self) -> float:
        return 1.0 / self._g

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._odds, self._eps_budget)

    @property
    def report_bits(self) -> float:
        return math.log2(self._packing.size) + math.log2(self._g)

    @property
    def word_sizes(self) -> tuple[int, ...]:
        """Each hash word of a report is uniform on ``0 .. size - 1`` (sizes ``<= 2^53``)."""
        return tuple(self._packing.word_sizes)

    @property
    def codec(self) -> ReportCodec:
        fields = tuple(
            Field(f"hash_{j}", "int", 0, size - 1) for j, size in enumerate(self.word_sizes)
        )
        return ReportCodec((*fields, Field("bucket", "int", 0, self._g - 1)), "int64", True)

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of reporting ``H(x)`` against another bucket; ``hash``: the family
        (see ``docs/protocol.md``)."""
        return {"keep": list(self._law.weights), "g": self._g, "hash": self._family.describe()}

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        words = np.column_stack([randint(gen, size, x.size) for size in self.word_sizes])
        hashed = self._family.evaluate(words, x)
        change = choose(gen, [self._law], np.zeros(x.size, dtype=np.int64)) == 1
        other = randint(gen, self._g - 1, int(change.sum()))
        bucket = hashed.copy()
        bucket[change] = other + (other >= hashed[change])
        return np.column_stack([words, bucket])

    @property
    def statistic_entries(self) -> int:
        """The decoder's largest array: the hash family's table (see ``_hashing``)."""
        return self._family.decode_entries

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return (
            self._family.support_counts(reports[:, :-1], reports[:, -1]),
            reports.shape[0],
        )

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        return self._family.counts_at(reports[:, :-1], reports[:, -1], values)

    def privacy_channel(self) -> Channel:
        """The hash collides on ``x, x'`` (probability ``1/g``, then both laws agree), or the
        bucket is ``H(x)``, ``H(x')`` or another one."""
        keep, other = self._keep, self._other
        apart = 1.0 - 1.0 / self._g
        rest = apart * (self._g - 2) * other
        first = [1.0 / self._g, apart * keep, apart * other, rest]
        return _pair(first, [first[0], first[2], first[1], rest])

    def audit_statistic(self, x0: Any, x1: Any):
        """Whether the bucket is the hash of ``x0`` and whether it is the hash of ``x1``."""
        a, b = int(x0), int(x1)

        def statistic(reports: np.ndarray) -> np.ndarray:
            words, bucket = reports[:, :-1], reports[:, -1]
            hit_a = self.hash_values(words, a) == bucket
            hit_b = self.hash_values(words, b) == bucket
            return 2 * hit_a.astype(np.int64) + hit_b

        return statistic

    def hash_functions(self) -> np.ndarray:
        """Every member of the hash family, as rows of words (small families only)."""
        return self._packing.enumerate()

    def hash_values(self, words: ArrayLike, x: ArrayLike) -> np.ndarray:
        """``H(x)`` for hash functions ``words`` (rows of a report without the bucket)."""
        w = np.atleast_2d(np.asarray(words, dtype=np.int64))
        self._packing.check(w, "words")
        values = check_categories(np.broadcast_to(x, (w.shape[0],)), self._k, "x")
        return self._family.evaluate(w, values)

    def to_channel(self) -> Channel:
        """The channel ``x -> (hash, bucket)``, output index ``hash_index * g + bucket``,
        with every member of the family equally likely."""
        log2_entries = math.log2(self._k) + math.log2(self._packing.size) + math.log2(self._g)
        _check_channel_size(log2_entries, type(self).__name__)
        members = self._packing.enumerate()
        size = members.shape[0]
        keep, other = self._keep, self._other
        matrix = np.empty((self._k, size, self._g))
        for x in range(self._k):
            hashed = self._family.evaluate(members, np.full(size, x, dtype=np.int64))
            row = np.full((size, self._g), other)
            row[np.arange(size), hashed] = keep
            matrix[x] = row / size
        return Channel(matrix.reshape(self._k, -1))


def olh_buckets(epsilon: float) -> int:
    """``g = round(e^eps) + 1``, the integer choice of Wang et al. (2017) for OLH."""
    return math.floor(math.exp(epsilon) + 0.5) + 1


class OLH(LocalHashing):
    """Optimized local hashing: ``g = round(e^eps) + 1`` buckets (Wang et al. 2017).

    The continuous optimum ``g = e^eps + 1`` would match OUE's variance; the integer ``g``
    costs a little (``3.69e-4`` against ``3.68e-4`` at eps = 1, n = 1e4).

    Parameters
    ----------
    k : int
        Number of categories.
    epsilon : float
        Privacy level, ``> 0``.
    g : int, optional
        Override the number of buckets.

    Examples
    --------
    >>> from ldp.mechanisms import OLH
    >>> olh = OLH(1024, 1.0)
    >>> olh.g, round(olh.variance(10_000) * 1e4, 8)
    (4, 3.69165462)
    """

    name = "OLH"

    def __init__(self, k: int, epsilon: float, g: int | None = None) -> None:
        eps = check_mechanism_epsilon(epsilon)
        super().__init__(k, epsilon, olh_buckets(eps) if g is None else g)


class BLH(LocalHashing):
    """Binary local hashing (``g = 2``; Bassily-Smith 2015): one bit plus the hash function.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import math
    >>> from ldp.mechanisms import BLH
    >>> blh = BLH(64, 1.0)
    >>> e = math.e
    >>> round(blh.variance(1), 10) == round(((e + 1) / (e - 1)) ** 2, 10)
    True
    """

    name = "BLH"

    def __init__(self, k: int, epsilon: float) -> None:
        super().__init__(k, epsilon, 2)

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget}


# --------------------------------------------------------------------------- Hadamard
class HadamardResponse(FrequencyOracle):
    """Hadamard response, high-privacy version (Acharya, Sun, Zhang, AISTATS 2019).

    With ``K = 2^ceil(log2(k + 1))``, value ``x`` owns the half
    ``C_x = {y : H_K[x + 1, y] = +1}`` of ``[K]`` (row 0 of the Sylvester matrix is skipped).
    The report ``y`` is uniform on ``C_x`` with probability ``e^eps / (e^eps + 1)`` and
    uniform on its complement otherwise: ``Q(y|x) = 2 e^eps / (K (1 + e^eps))`` on ``C_x``
    and ``2 / (K (1 + e^eps))`` off it (``e^eps`` the largest double at most ``e^eps``). Since
    ``|C_x n C_x'| = K/4``, ``p = e^eps/(e^eps+1)`` and ``q = 1/2``. Decoding is one histogram
    and one fast Walsh-Hadamard transform, ``O(n + K log K)``.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import HadamardResponse
    >>> hr = HadamardResponse(5, 1.0)
    >>> hr.K, round(hr.to_channel().epsilon, 12)
    (8, 1.0)
    >>> reports = hr.privatize(np.array([0, 1, 2, 3, 4] * 4000), rng=2)
    >>> bool(np.abs(hr.estimate(reports) - 0.2).max() < 0.05)
    True
    """

    name = "HR"

    def __init__(self, k: int, epsilon: float) -> None:
        super().__init__(k, epsilon)
        self._K = 1 << (self._k).bit_length()  # smallest power of two > k
        self._odds = exp_down(self._eps_budget)
        self._law = ExactLaw([self._odds, 1.0])  # inside C_x : outside
        self._p, self._outside = self._odds / (self._odds + 1.0), 1.0 / (self._odds + 1.0)

    @property
    def K(self) -> int:
        """Size of the output alphabet."""
        return self._K

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return 0.5

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._odds, self._eps_budget)

    @property
    def report_bits(self) -> float:
        return math.log2(self._K)

    @property
    def codec(self) -> ReportCodec:
        return index_codec(self._K, np.dtype(index_dtype(self._K)).name)

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of a report in ``C_x`` against its complement; ``K``."""
        return {"keep": list(self._law.weights), "K": self._K}

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        row = x + 1
        inside = choose(gen, [self._law], np.zeros(x.size, dtype=np.int64)) == 0
        y = randint(gen, self._K, x.size)
        # y is uniform on [K]; flipping the lowest set bit of row maps C_x onto its
        # complement, so conditioning on the wanted half keeps y uniform on it
        wrong = parity(row & y) == inside
        y ^= np.where(wrong, row & -row, 0)
        return y.astype(index_dtype(self._K))

    def histogram_counts(self, histogram: np.ndarray) -> np.ndarray:
        """Support counts ``C_x = (n + (H_K h)[x + 1]) / 2`` from the output histogram."""
        transformed = fwht(histogram.astype(np.int64))
        return (int(histogram.sum()) + transformed[1 : self._k + 1]) // 2

    @property
    def statistic_entries(self) -> int:
        """The decoder's largest array: the histogram of the ``K`` outputs."""
        return self._K

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return self.histogram_counts(np.bincount(reports, minlength=self._K)), reports.size

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        counts = np.zeros(values.size, dtype=np.int64)
        y = reports.astype(np.int64)
        for rows in chunk_rows(y.size, max(1, values.size)):
            inside = parity((values[None, :] + 1) & y[rows, None]) == 0
            counts += inside.sum(axis=0)
        return counts

    def privacy_channel(self) -> Channel:
        """Is the report in ``C_x`` and in ``C_x'`` (each class has ``K/4`` outputs)."""
        p, q = self._p, self._outside
        return _pair([p / 2, p / 2, q / 2, q / 2], [p / 2, q / 2, p / 2, q / 2])

    def audit_statistic(self, x0: Any, x1: Any):
        """``2 [y in C_x0] + [y in C_x1]``: sufficient for the pair."""
        a, b = int(x0) + 1, int(x1) + 1

        def statistic(reports: np.ndarray) -> np.ndarray:
            y = np.asarray(reports, dtype=np.int64)
            return 2 * (parity(a & y) == 0).astype(np.int64) + (parity(b & y) == 0)

        return statistic

    def to_channel(self) -> Channel:
        _check_channel_size(math.log2(self._k) + math.log2(self._K), "HadamardResponse")
        rows = np.arange(1, self._k + 1)[:, None]
        inside = parity(rows & np.arange(self._K)[None, :]) == 0
        return Channel(np.where(inside, 2 * self._p, 2 * self._outside) / self._K)


# --------------------------------------------------------------------------- subset selection
def optimal_subset_size(k: int, epsilon: float) -> int:
    """The better of ``floor`` and ``ceil`` of ``k / (e^eps + 1)`` (clipped to ``[1, k-1]``),
    by the worst-case (uniform) i.i.d. l2 risk of Ye and Barg (2018)."""

    def risk(d: int) -> float:
        p, q = subset_selection_probabilities(k, d, epsilon)
        t = q + (p - q) / k
        return k * t * (1 - t) / (p - q) ** 2

    star = k / (math.exp(min(epsilon, 700.0)) + 1)
    options = {min(max(v, 1), k - 1) for v in (math.floor(star), math.ceil(star))}
    return min(sorted(options), key=risk)


#: Bytes of packed subsets handled per chunk (a cache-sized block of users).
_SUBSET_CHUNK_BYTES = 1 << 21


def _get_bits(flat: np.ndarray, base: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Whether bit ``values[u]`` is set in the packed row starting at ``base[u]``."""
    masks = np.left_shift(1, 7 - (values & 7)).astype(np.uint8)
    return (flat[base + (values >> 3)] & masks) != 0


def _set_bits(flat: np.ndarray, base: np.ndarray, values: np.ndarray) -> None:
    """Set bit ``values[u]`` in the packed row starting at ``base[u]`` (one bit per row)."""
    at = base + (values >> 3)
    flat[at] |= np.left_shift(1, 7 - (values & 7)).astype(np.uint8)


def _clear_bits(flat: np.ndarray, base: np.ndarray, values: np.ndarray) -> None:
    """Clear bit ``values[u]`` in the packed row starting at ``base[u]`` (one bit per row)."""
    at = base + (values >> 3)
    flat[at] &= ~np.left_shift(1, 7 - (values & 7)).astype(np.uint8)


#: The mask of bit ``v % 8`` of a packed byte (bit ``v`` is bit ``7 - v % 8``).
_BIT_MASKS = np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=np.uint8)

#: Set bits of every byte value.
_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)


def _popcount_rows(packed: np.ndarray) -> np.ndarray:
    """Set bits of each packed row (int64)."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(packed).sum(axis=1, dtype=np.int64)
    return _POPCOUNT[packed].sum(axis=1, dtype=np.int64)


def _subset_ratio(inside: float, outside: float, k: int, d: int) -> Fraction:
    """The likelihood ratio of subset selection with odds ``inside : outside`` of holding
    the input, exactly: ``P(S | x in S) / P(S | x not in S) = (w_in / w_out) C(k-1, d) /
    C(k-1, d-1)``, and the ratio of the binomials is ``(k - d) / d``."""
    return Fraction(inside) * (k - d) / (Fraction(outside) * d)


def subset_bernoulli_bits(k: int, d: int) -> int:
    """How subset selection draws the other values: ``b`` in ``1..3`` when ``(k - 1) 2^-b``
    is the nearest of ``(k - 1) / 2, (k - 1) / 4, ...`` to ``d`` (Bernoulli rows of
    probability ``2^-b``, then corrected), else ``0`` (Floyd's algorithm; small ``d``).

    Examples
    --------
    >>> from ldp.mechanisms.frequency import subset_bernoulli_bits
    >>> subset_bernoulli_bits(1024, 275), subset_bernoulli_bits(1024, 121)
    (2, 3)
    >>> subset_bernoulli_bits(1024, 49)   # 64 or 32 would be nearest: Floyd
    0
    """
    best = min(range(1, max(2, (k - 1).bit_length() + 1)), key=lambda b: abs((k - 1) / 2**b - d))
    return best if best <= 3 else 0


class SubsetSelection(FrequencyOracle):
    """Subset selection (Wang et al. 2016; Ye and Barg 2018): report a ``d``-subset of ``[k]``.

    With probability ``p = d e^eps / (d e^eps + k - d)`` the subset contains ``x`` and
    ``d - 1`` other values chosen uniformly; otherwise it is ``d`` values chosen uniformly
    from the ``k - 1`` others. Every subset containing ``x`` has probability ``e^eps`` times
    that of every subset not containing it (at most, exactly: the weight of the odds
    ``d e^eps : k - d`` that carries ``e^eps`` moves towards more privacy to the first double
    within it). ``d`` defaults to the better of
    ``floor``/``ceil`` of ``k/(e^eps + 1)``; ``d = 1`` is GRR. Reports are bit-packed
    indicator vectors (as in :class:`UnaryEncoding`).

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    d : int, optional
        Subset size, ``1 <= d < k``; by default the variance-minimising size.

    Examples
    --------
    >>> from ldp.mechanisms import SubsetSelection
    >>> ss = SubsetSelection(100, 1.0)
    >>> ss.d, ss.epsilon
    (27, 1.0)
    >>> round(SubsetSelection(6, 1.0, d=2).p, 10), round(SubsetSelection(6, 1.0, d=2).q, 10)
    (0.5761168848, 0.284776623)
    """

    name = "SS"

    def __init__(
        self, k: int, epsilon: float, d: int | None = None, encoding: str = "auto"
    ) -> None:
        super().__init__(k, epsilon)
        if d is None:
            d = optimal_subset_size(self._k, self._eps_budget)
        self._d = check_integer(d, "d", low=1)
        if self._d >= self._k:
            raise ValueError(f"d must be < k = {self._k}, got {self._d}")
        if encoding not in ("auto", "bits", "indices"):
            raise ValueError(f"encoding must be 'auto', 'bits' or 'indices', got {encoding!r}")
        if encoding == "auto":
            index_bits = self._d * max(1, (self._k - 1).bit_length())
            encoding = "indices" if index_bits < self._k else "bits"
        self._encoding = encoding
        k, d, eps = self._k, self._d, self._eps_budget
        # odds of x in the subset: d e^eps : k - d (scaled down where d e^eps would overflow),
        # the weight that carries e^eps moved towards more privacy until the ratio
        # w_in (k - d) / (w_out d) is at most e^eps exactly
        if eps > 600.0:
            inside = float(d)
            outside = nearest_within(
                lambda w: within_exp(_subset_ratio(inside, w, k, d), eps),
                (k - d) * exp_up(-eps),
                math.inf,
            )
        else:
            outside = float(k - d)
            inside = nearest_within(
                lambda w: within_exp(_subset_ratio(w, outside, k, d), eps), d * exp_down(eps), 0.0
            )
        self._law = ExactLaw([inside, outside])
        # P(x in S), and P(v in S) for v != x: (w_in (d - 1) + w_out d) / ((k - 1)(w_in + w_out))
        total = inside + outside
        self._p = inside / total
        self._q = (inside * (d - 1) + outside * d) / (k - 1) / total  # GRR's 1 / total at d = 1
        self._bernoulli_bits = subset_bernoulli_bits(k, d)

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "d": self._d, "encoding": self._encoding}

    @classmethod
    def from_params(cls, params):
        """Rebuild from :attr:`params`; a file without ``encoding`` (written before it
        existed) means bit-packed reports."""
        if not isinstance(params, Mapping):
            raise TypeError(f"params must be a mapping, got {type(params).__name__}")
        return cls(**{"encoding": "bits", **dict(params)})

    @property
    def d(self) -> int:
        """Subset size."""
        return self._d

    @property
    def encoding(self) -> str:
        """``"bits"``: a bit-packed membership vector of ``ceil(k / 8)`` bytes; ``"indices"``:
        the ``d`` members in increasing order (chosen by ``"auto"`` when ``d ceil(log2 k)``
        bits are fewer than ``k``)."""
        return self._encoding

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return self._q

    def _ratio(self) -> Fraction:
        """The largest likelihood ratio of the law sampled, exactly (:func:`_subset_ratio`)."""
        inside, outside = self._law.weights
        return _subset_ratio(inside, outside, self._k, self._d)

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._ratio(), self._eps_budget)

    @property
    def report_bits(self) -> float:
        k, d = self._k, self._d
        return float(gammaln(k + 1) - gammaln(d + 1) - gammaln(k - d + 1)) / math.log(2)

    @property
    def codec(self) -> ReportCodec:
        if self._encoding == "indices":
            fields = tuple(Field(f"member_{i}", "int", 0, self._k - 1) for i in range(self._d))
            dtype = np.dtype(index_dtype(self._k)).name
            return ReportCodec(fields, dtype, vector=True, check=self._check_members)
        _check_vector_size(self._k, "SubsetSelection.codec")
        return packed_codec(self._k, self._check_subsets)

    def _check_members(self, reports: np.ndarray, where) -> None:
        if self._d > 1:
            bad = np.any(np.diff(reports, axis=1) <= 0, axis=1)
            if np.any(bad):
                raise ValueError(
                    f"{where(int(np.argmax(bad)))}: the report's members are not distinct and "
                    "increasing (not a report of this mechanism)"
                )

    def _check_subsets(self, reports: np.ndarray, where) -> None:
        _check_pad_bits(self._k)(reports, where)
        sizes = np.zeros(reports.shape[0], dtype=np.int64)
        for rows in chunk_rows(reports.shape[0], 8 * reports.shape[1]):
            sizes[rows] = _popcount_rows(reports[rows])
        bad = sizes != self._d
        if np.any(bad):
            raise ValueError(
                f"{where(int(np.argmax(bad)))}: the report does not hold exactly d = {self._d} "
                "values (not a report of this mechanism)"
            )

    def sampler(self) -> dict[str, object]:
        """``include``: odds of ``x`` being in the subset; ``d``: the subset size;
        ``bernoulli_bits``: how the other values are drawn (see :meth:`privatize`)."""
        if self._encoding == "indices":
            return {"include": list(self._law.weights), "d": self._d, "members": "rejection"}
        return {
            "include": list(self._law.weights),
            "d": self._d,
            "bernoulli_bits": self._bernoulli_bits,
        }

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        """Bit-packed subsets: ``x`` with the exact odds of :meth:`sampler`, and a uniform
        ``c``-subset of the ``k - 1`` other values (``c = d - 1`` when ``x`` is included,
        else ``d``) drawn one of two ways, both exact.

        *Bernoulli and correct* (``bernoulli_bits = b >= 1``, when ``d / (k - 1)`` is near
        ``2^-b`` for ``b <= 3``): the AND of ``b`` random packed rows makes every bit 1 with
        probability ``2^-b``; ``x``'s bit is cleared, leaving ``s`` others, a uniform
        ``s``-subset given ``s``. While ``s != c``, ``t = randint(k - 1)`` names slot ``t``
        (value ``t + (t >= x)``): when ``s > c`` a member is dropped (a non-member draw is
        discarded), when ``s < c`` a non-member is added (a member draw is discarded). Dropping
        a uniform member of a uniform ``s``-subset leaves a uniform ``(s - 1)``-subset, and
        adding a uniform non-member a uniform ``(s + 1)``-subset, so the result is a uniform
        ``c``-subset. It costs ``b`` random bits per value and about ``|s - c|`` draws.

        *Floyd's algorithm* (``bernoulli_bits = 0``, small ``d``) over ``N = k - 1`` slots
        draws, for ``j = N - c .. N - 1``, ``t = randint(j + 1)`` and adds ``t``, or ``j``
        when ``t`` is already in the subset. A batch draws round by round (round ``r`` uses
        ``j = N - d + r``; a user that includes ``x`` starts at round one).

        The subset lives in the packed report itself, so each draw costs a few operations on
        one byte per user.

        With ``encoding="indices"`` the ``c`` others are drawn by *rejection*: ``c`` draws
        ``t = randint(k - 1)`` at once, the new distinct slots kept (a slot already held, or
        repeated within the draws, is skipped), and as many draws again as are missing, until
        ``c`` slots are held. The held set is the first ``c`` distinct values of an i.i.d.
        uniform sequence, a uniform ``c``-subset by symmetry; each user costs about ``c``
        draws, never ``k`` bits. The report is the members in increasing order.
        """
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        if self._encoding == "indices":
            return self._privatize_members(x, gen)
        _check_vector_size(self._k, "SubsetSelection.privatize")
        k = self._k
        width = (k + 7) // 8
        out = np.empty((x.size, width), dtype=np.uint8)
        step = max(1, _SUBSET_CHUNK_BYTES // width)
        for start in range(0, x.size, step):
            rows = slice(start, min(start + step, x.size))
            out[rows] = self._privatize_chunk(x[rows], gen, width)
        return out

    def _privatize_members(self, x: np.ndarray, gen: object) -> np.ndarray:
        d = self._d
        out = np.empty((x.size, d), dtype=self.codec.native_dtype)
        step = max(1, _SUBSET_CHUNK_BYTES // (8 * d))
        for start in range(0, x.size, step):
            rows = slice(start, min(start + step, x.size))
            out[rows] = self._members_chunk(x[rows], gen)
        return out

    def _members_chunk(self, xs: np.ndarray, gen: object) -> np.ndarray:
        k, d = self._k, self._d
        m = xs.size
        include = choose(gen, [self._law], np.zeros(m, dtype=np.int64)) == 0
        wanted = d - include.astype(np.int64)
        # round one: every user's c draws at once (user by user, as a client draws them)
        slots = np.full((m, d), k, dtype=np.int64)  # k marks an empty place (sorts last)
        slots[np.arange(d)[None, :] < wanted[:, None]] = randint(gen, k - 1, int(wanted.sum()))
        slots.sort(axis=1)
        repeated = np.zeros_like(slots, dtype=bool)
        repeated[:, 1:] = slots[:, 1:] == slots[:, :-1]
        if repeated.any():
            slots[repeated] = k
            slots.sort(axis=1, kind="stable")  # nearly sorted: a merge of few runs
        users = np.flatnonzero((slots < k).sum(axis=1) < wanted)
        while users.size:  # the few users with repeats: draw what is missing
            rows = slots[users]
            held = (rows < k).sum(axis=1)
            missing = wanted[users] - held
            owner = np.repeat(np.arange(users.size), missing)
            drawn = randint(gen, k - 1, owner.size)
            known = (rows[owner] == drawn[:, None]).any(axis=1)
            keys = owner * k + drawn
            _, first = np.unique(keys, return_index=True)
            fresh = np.zeros(keys.size, dtype=bool)
            fresh[first] = True
            fresh &= ~known
            new_owner, new_slot = owner[fresh], drawn[fresh]  # owner is sorted
            rank = np.arange(new_owner.size) - np.searchsorted(new_owner, new_owner)
            rows[new_owner, held[new_owner] + rank] = new_slot
            rows.sort(axis=1, kind="stable")
            slots[users] = rows
            users = users[(rows < k).sum(axis=1) < wanted[users]]
        values = slots + (slots >= xs[:, None])  # slot t stands for value t + (t >= x)
        values[include, d - 1] = xs[include]
        values.sort(axis=1, kind="stable")  # sorted but for x, appended last
        return values.astype(self.codec.native_dtype, copy=False)

    def _privatize_chunk(self, xs: np.ndarray, gen: object, width: int) -> np.ndarray:
        m = xs.size
        include = choose(gen, [self._law], np.zeros(m, dtype=np.int64)) == 0
        base = np.arange(m, dtype=np.int64) * width
        if self._bernoulli_bits:
            packed = self._bernoulli_subsets(xs, include, gen, width)
        else:
            packed = self._floyd_subsets(xs, include, gen, width)
        _set_bits(packed.reshape(-1), base[include], xs[include])
        return packed

    def _floyd_subsets(
        self, xs: np.ndarray, include: np.ndarray, gen: object, width: int
    ) -> np.ndarray:
        k, d = self._k, self._d
        m = xs.size
        packed = np.zeros((m, width), dtype=np.uint8)
        flat = packed.reshape(-1)
        base = np.arange(m, dtype=np.int64) * width
        slots = k - 1
        for r in range(d):
            users = np.flatnonzero(~include) if r == 0 else None  # round 0: only c = d
            if users is not None and users.size == 0:
                continue
            j = slots - d + r
            t = randint(gen, j + 1, m if users is None else users.size)
            at = base if users is None else base[users]
            at_x = xs if users is None else xs[users]
            value = t + (t >= at_x)
            taken = _get_bits(flat, at, value)
            value = np.where(taken, j + (j >= at_x), value)
            _set_bits(flat, at, value)
        return packed

    def _bernoulli_subsets(
        self, xs: np.ndarray, include: np.ndarray, gen: object, width: int
    ) -> np.ndarray:
        k, bits = self._k, self._bernoulli_bits
        m = xs.size
        raw = random_bytes(gen, m * bits * width).reshape(m, bits, width)
        packed = raw[:, 0, :].copy()  # each bit is 1 with probability 2^-bits
        for row in range(1, bits):
            packed &= raw[:, row, :]
        if k % 8:
            packed[:, -1] &= np.uint8((0xFF << (8 * width - k)) & 0xFF)
        flat = packed.reshape(-1)
        base = np.arange(m, dtype=np.int64) * width
        _clear_bits(flat, base, xs)
        excess = _popcount_rows(packed) - (self._d - include.astype(np.int64))
        pending = np.flatnonzero(excess)
        at, at_x, need = base[pending], xs[pending], excess[pending]
        step = np.sign(need)
        drop = need > 0  # too many: drop members; too few: add non-members
        while at.size:
            t = randint(gen, k - 1, at.size)
            value = t + (t >= at_x)
            byte = at + (value >> 3)
            mask = _BIT_MASKS[value & 7]
            hit = ((flat[byte] & mask) != 0) == drop
            flat[byte[hit]] ^= mask[hit]
            need -= step * hit
            left = need != 0
            if not left.all():
                at, at_x, need = at[left], at_x[left], need[left]
                step, drop = step[left], drop[left]
        return packed

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        if self._encoding == "indices":
            total = np.zeros(self._k, dtype=np.int64)
            for rows in chunk_rows(reports.shape[0], reports.shape[1]):
                total += np.bincount(reports[rows].ravel(), minlength=self._k)
            return total, reports.shape[0]
        return _bit_counts(reports, self._k), reports.shape[0]

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.array([packed_bit(reports, int(v)).sum() for v in values], dtype=np.int64)

    def privacy_channel(self) -> Channel:
        """Membership of ``x`` and ``x'`` in the subset (both, ``x`` only, ``x'`` only, none);
        within a class every subset has the same probability under both inputs."""
        inside, outside = self._law.probabilities()
        k, d = self._k, self._d
        others_in = (d - 1) / (k - 1)  # P(x' in S | x in S)
        alone_in = d / (k - 1)  # P(x' in S | x not in S)
        first = [
            inside * others_in,
            inside * (1 - others_in),
            outside * alone_in,
            outside * (1 - alone_in),
        ]
        return _pair(first, [first[0], first[2], first[1], first[3]])

    def audit_statistic(self, x0: Any, x1: Any):
        """``2 [x0 in S] + [x1 in S]``: sufficient for the pair."""
        a, b = int(x0), int(x1)
        if self._encoding == "indices":

            def members(reports: np.ndarray) -> np.ndarray:
                rows = np.asarray(reports)
                return 2 * (rows == a).any(axis=1).astype(np.int64) + (rows == b).any(axis=1)

            return members
        return lambda reports: 2 * packed_bit(reports, a) + packed_bit(reports, b)

    def to_channel(self) -> Channel:
        """The ``k x C(k, d)`` channel over subsets (lexicographic order)."""
        _check_channel_size(math.log2(self._k) + self.report_bits, "SubsetSelection")
        k, d = self._k, self._d
        inside, outside = self._law.probabilities()
        # every subset holding x shares P(x in S), every other one P(x not in S)
        entries = (inside / math.comb(k - 1, d - 1), outside / math.comb(k - 1, d))
        return Channel(np.where(subset_membership(k, d), *entries))
