"""Apple's count-mean sketches for items of a huge or open domain: CMS and Hadamard CMS.

Apple's Differential Privacy Team (2017) privatize strings of a domain too large to
enumerate by hashing them into ``width`` buckets with one of ``depth`` public hash
functions, chosen at random by each device:

* :class:`CMS` (count-mean sketch): the device draws a row ``j``, one-hot encodes the bucket
  ``h_j(item)`` in ``width`` bits and flips each bit with probability
  ``1 / (1 + e^{eps/2})`` (symmetric unary encoding of the bucket, :class:`SUE`); the report
  is ``(j, bits)``, ``width`` bits plus the row.
* :class:`HCMS` (Hadamard count-mean sketch, ``width`` a power of two): the device draws a
  row ``j`` and a Hadamard coefficient ``l``, takes the sign ``H[l, h_j(item)]`` of the
  Sylvester matrix and sends it through binary randomized response at level ``eps``; the
  report is ``(j, l, bit)``, one bit plus the indices.

The row (and the coefficient) are drawn independently of the item, so a report is
``eps``-LDP as the bits are sampled: the coin weights of :meth:`sampler` use the largest
double at most ``e^eps`` (``e^{eps/2}`` for CMS), so that the likelihood ratio they realise is
at most ``e^eps`` exactly, and ``epsilon`` is the level asked for.

**Server.** :meth:`CountMeanSketch.aggregate` sums reports into a mergeable
:class:`SketchCounts`; :meth:`CountMeanSketch.estimate` turns it into a :class:`Sketch`,
Apple's matrix ``M`` (``depth x width``, count scale), from which the count or frequency of
*any* item is read after collection, with Apple's estimator
``f~(d) = (m / (m - 1)) ((1/k) sum_l M[l, h_l(d)] - n / m)`` (``m = width``, ``k = depth``).

**Bias from fixed hashes.** The hash functions are public and fixed (a salted SHA-256,
``ldp._items``). Given them, the estimate of ``d`` is biased by the other items that share
its buckets: ``(m/(m-1)) (1/k) sum_l sum_{x != d} f(x) (1[h_l(x) = h_l(d)] - 1/m)``. It is
unbiased only *on average over the draw of the hash functions* (over the ``salt``), and
:meth:`CountMeanSketch.variance` is the exact variance over the noise, the users' rows and
that draw (fully random hashes). It is not the variance printed in the original paper,
which has errors; it is derived afresh (the notes of :meth:`CountMeanSketch.variance`) and
checked by simulation in the tests.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import certified_epsilon, exp_down
from ldp._frozen import Frozen
from ldp._items import unique_items
from ldp._sampling import STREAM_DRAWS, ExactLaw, choose_streamed, randint_into
from ldp._validation import (
    as_real_array,
    check_integer,
    check_random_state,
    compact,
    describe,
    scalar_or_array,
)
from ldp._words import WordCoin
from ldp.channel import Channel
from ldp.core import Estimate, Field, Items, Mechanism, ReportCodec, check_confidence
from ldp.mechanisms._hashing import fwht, parity
from ldp.mechanisms.categorical._bit_counts import bit_counts
from ldp.mechanisms.categorical.unary import SUE
from ldp.mechanisms.limits import (
    CHUNK_ELEMENTS,
    MAX_STATISTIC_ENTRIES,
    MAX_VECTOR_CATEGORIES,
    check_convention,
    check_mechanism_epsilon,
    check_n,
    check_size,
    index_dtype,
)
from ldp.mechanisms.sketches.buckets import BucketCache
from ldp.mechanisms.sketches.statistic import Sketch, SketchCounts, is_single_item
from ldp.mechanisms.sketches.words import INDEX_BITS, privatize_words

__all__ = ["CMS", "HCMS", "CountMeanSketch", "Sketch", "SketchCounts"]

#: Reports counted per block by :meth:`HCMS._sums` and :meth:`HCMS._checked_sums` (their
#: indices stay in cache).
_COUNTED_REPORTS = 1 << 17

#: Largest number of hash functions (rows) of a sketch (a row index is a 4-byte field of the
#: hash message, ``ldp._items``; the report's row field is at most 16 bits).
MAX_DEPTH = 1 << 16
#: Largest salt, in UTF-8 bytes.
MAX_SALT_BYTES = 1024


def _check_salt(salt: object) -> str:
    if not isinstance(salt, str):
        raise TypeError(f"salt must be a string, got {type(salt).__name__}")
    try:
        size = len(salt.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError("salt must be valid Unicode text") from None
    if size > MAX_SALT_BYTES:
        raise ValueError(f"salt must be at most {MAX_SALT_BYTES} UTF-8 bytes, got {size}")
    return salt


class CountMeanSketch(Frozen, Mechanism):
    """The shared protocol of :class:`CMS` and :class:`HCMS` (see the module notes).

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    width : int
        Buckets per hash function (Apple's ``m``), ``>= 2``.
    depth : int
        Number of hash functions (Apple's ``k``), ``1 <= depth <= 65536``.
    salt : str, default ""
        Public salt of the hash functions (a protocol parameter, not randomness: a new salt is
        a new draw of the hash functions).

    Examples
    --------
    >>> from ldp.mechanisms import CMS, HCMS, CountMeanSketch
    >>> all(isinstance(m(1.0), CountMeanSketch) for m in (CMS, HCMS))
    True
    """

    #: The sketch's privacy channel is the worst pair of items, which exists only when two
    #: items have different buckets in every row: it bounds the profile from above.
    privacy_exact = False

    def __init__(self, epsilon: float, width: int = 1024, depth: int = 16, salt: str = "") -> None:
        self._eps_budget = check_mechanism_epsilon(epsilon)
        self._width = check_integer(width, "width", low=2)
        self._depth = check_integer(depth, "depth", low=1)
        if self._depth > MAX_DEPTH:
            raise ValueError(f"depth must be <= {MAX_DEPTH}, got {compact(self._depth)}")
        self._salt = _check_salt(salt)
        # the items' buckets, kept between privatize and the queries (bounded; buckets.py)
        self._buckets = BucketCache(self._salt, self._width, self._depth)
        check_size(
            self._depth * self._width,
            MAX_STATISTIC_ENTRIES,
            "MAX_STATISTIC_ENTRIES",
            type(self).__name__,
            f"a sketch of depth x width = {compact(self._depth)} x {compact(self._width)}",
        )

    # ----------------------------------------------------------------- identity
    @property
    def params(self) -> dict[str, object]:
        """``{"epsilon", "width", "depth", "salt"}``."""
        return {
            "epsilon": self._eps_budget,
            "width": self._width,
            "depth": self._depth,
            "salt": self._salt,
        }

    def __repr__(self) -> str:
        return self.key

    @property
    def width(self) -> int:
        """Buckets per hash function (Apple's ``m``)."""
        return self._width

    @property
    def depth(self) -> int:
        """Number of hash functions (Apple's ``k``)."""
        return self._depth

    @property
    def salt(self) -> str:
        """The public salt of the hash functions."""
        return self._salt

    @property
    def domain(self) -> Items:
        """Items (strings, bytes or integers)."""
        return Items()

    # ----------------------------------------------------------------- hashing
    def buckets(self, items: object) -> np.ndarray:
        """``h_l(item)`` for every item and row: an ``(len(items), depth)`` int64 array.

        Parameters
        ----------
        items : 1-D sequence of str, bytes or int

        Returns
        -------
        ndarray

        Examples
        --------
        >>> from ldp.mechanisms import CMS
        >>> CMS(1.0, width=16, depth=4, salt="2026").buckets(["apple"]).tolist()
        [[10, 15, 5, 12]]
        """
        unique, inverse = unique_items(items, "items")
        return self._buckets.table(unique)[inverse]

    def _pair_buckets(self, x0: Any, x1: Any) -> tuple[np.ndarray, np.ndarray]:
        both = self.buckets([x0, x1])
        return both[0], both[1]

    @property
    @abc.abstractmethod
    def report_bits(self) -> float:
        """``log2`` of the number of possible reports."""

    @property
    def work_per_report(self) -> float:
        """A row, a hash and one sign (CMS: ``width`` bits) per report, device and server."""
        return 5.0

    # ----------------------------------------------------------------- server
    @property
    @abc.abstractmethod
    def c(self) -> float:
        """Apple's ``c_eps``: the scale that makes a report's indicator unbiased."""

    @abc.abstractmethod
    def _sums(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``(depth, width)`` integer sums of validated native reports, and the number of
        reports of each row."""

    @abc.abstractmethod
    def _matrix(self, counts: SketchCounts) -> np.ndarray:
        """Apple's ``M`` from the statistic."""

    def aggregate(self, reports: ArrayLike) -> SketchCounts:
        """The statistic of ``reports`` (checked by the :attr:`codec`; add chunks with ``+``)."""
        native = self.codec.from_rows(reports)
        sums, rows = self._sums(native)
        return SketchCounts(sums, rows, int(native.shape[0]), self.key)

    def empty_statistic(self) -> SketchCounts:
        """The statistic of zero reports (the neutral element of ``+``)."""
        zeros = np.zeros((self._depth, self._width), dtype=np.int64)
        return SketchCounts(zeros, np.zeros(self._depth, dtype=np.int64), 0, self.key)

    def counts_of(self, reports_or_counts: ArrayLike | SketchCounts) -> SketchCounts:
        """``reports_or_counts`` as this mechanism's :class:`SketchCounts` (checked)."""
        if isinstance(reports_or_counts, SketchCounts):
            if reports_or_counts.mechanism != self.key:
                raise ValueError(
                    f"counts come from {reports_or_counts.mechanism}, not from {self.key}"
                )
            if reports_or_counts.counts.shape != (self._depth, self._width):
                raise ValueError(
                    f"counts must have shape ({self._depth}, {self._width}) for {self.key}, "
                    f"got {reports_or_counts.counts.shape}"
                )
            return reports_or_counts
        return self.aggregate(reports_or_counts)

    def estimate(self, reports_or_counts: ArrayLike | SketchCounts) -> Sketch:
        """The :class:`Sketch` of the reports: query any item's count or frequency from it.

        The estimate of an item is unbiased over the draw of the hash functions; for the
        fixed public hashes it is biased by the items that collide with it (module notes).
        """
        counts = self.counts_of(reports_or_counts)
        if counts.n == 0:
            raise ValueError("cannot estimate frequencies from zero reports")
        return Sketch(self._matrix(counts), counts.n, self)

    def interval(
        self,
        statistic: ArrayLike | SketchCounts,
        /,
        confidence: float = 0.95,
        *,
        items: object = None,
    ) -> Estimate:
        """The frequencies of the queried ``items`` with two-sided normal intervals.

        The standard error is the square root of :meth:`variance` at the estimate clipped to
        ``[0, 1]`` with the other items spread thinly (``others_squared = 0``): a heavy item
        that shares buckets with a queried one adds to its error (module notes).

        Parameters
        ----------
        statistic : SketchCounts or array_like
            The statistic of the reports (or the reports).
        confidence : float, default 0.95
            Level of the intervals, in ``(0, 1)``.
        items : 1-D sequence of str, bytes or int
            The items to query (required: a sketch answers for any item).

        Returns
        -------
        Estimate
            One frequency per item, named by the items.

        Examples
        --------
        >>> from ldp.mechanisms import CMS
        >>> cms = CMS(4.0, width=256, depth=8)
        >>> counts = cms.aggregate(cms.privatize(["a"] * 3000 + ["b"] * 1000, rng=0))
        >>> est = cms.interval(counts, items=["a", "b"])
        >>> est.names, bool(abs((est.lower[0] + est.upper[0]) / 2 - 0.75) < 0.03)  # sd 0.007
        (('a', 'b'), True)
        """
        level = check_confidence(confidence)
        if items is None or is_single_item(items):
            raise TypeError(
                f"items must be a 1-D sequence of the items to query, got {describe(items)}"
            )
        queried = list(items)  # type: ignore[call-overload]
        counts = self.counts_of(statistic)
        value = np.asarray(self.estimate(counts).frequency(queried))
        variance = self.variance(counts.n, np.clip(value, 0.0, 1.0))
        return Estimate(
            value,
            np.sqrt(variance),
            level,
            counts.n,
            "normal, variance at the clipped estimate, other items spread thinly",
            names=tuple(queried),
        )

    @abc.abstractmethod
    def _noise(self, f: np.ndarray) -> np.ndarray:
        """Per-report noise variance of the summed indicator, as a function of ``f(d)/n``."""

    def variance(
        self,
        n: int,
        f: ArrayLike | None = None,
        convention: str = "fixed",
        *,
        others_squared: ArrayLike = 0.0,
    ) -> float | np.ndarray:
        """Exact variance of the frequency estimate ``sketch.frequency(d)`` (count scale:
        multiply by ``n^2``), over the noise, the users' rows and the hash draw.

        With ``m = width``, ``k = depth``, ``r = m / (m - 1)``, ``f = f(d)/n`` and
        ``s = sum_{x != d} (f(x)/n)^2`` (``others_squared``), the ``fixed`` variance is
        ``r^2 V(f) / n + ((1 - f)(1 - 1/k) / n + s / k) / (m - 1)`` with the noise term
        ``V = (c^2 - 1) / 4`` for :class:`CMS` and ``V = c^2 - f - (1 - f) / m`` for
        :class:`HCMS`. The second term is hash collisions (exact for fully random hashes); its
        ``s / k`` part does not shrink with ``n``: heavy items blur the others unless ``k`` or
        ``m`` is large. ``iid`` (population frequencies, ``s`` the population's) takes the
        expectation over the sample and adds ``f (1 - f) / n``.

        Parameters
        ----------
        n : int
            Number of users.
        f : float or array_like, optional
            Frequency of the queried item; ``None`` means ``0``.
        convention : {"fixed", "iid"}
        others_squared : float or array_like, default 0.0
            Sum of the squared frequencies of the *other* items (``0``: spread thinly).

        Returns
        -------
        float or ndarray

        Notes
        -----
        The estimate is ``r sum_i Y_i - r n / m`` with one unbiased indicator ``Y_i`` per
        report: ``c (bit - 1/2) + 1/2`` of the bucket of ``d`` in the report's row (CMS), or
        ``c (+-1) H[l_i, h_{j_i}(d)]`` (HCMS). Given the rows and the hashes,
        ``E[Y_i] = Z_i = 1[h_{j_i}(x_i) = h_{j_i}(d)]`` and ``Var(Y_i) = (c^2 - 1) / 4``
        (CMS) or ``c^2 - Z_i`` (HCMS). The collisions ``sum_{i: x_i != d} Z_i`` are
        ``sum_{l, x != d} N_{l,x} 1[h_l(x) = h_l(d)]`` with ``N_{l,x} ~ Bin(f(x), 1/k)`` the
        users of ``x`` in row ``l`` and independent ``Bernoulli(1/m)`` indicators, whose
        variance is ``(1/m)(1 - 1/m) sum_x (f(x)(1 - 1/k) + f(x)^2 / k)``; scaled by ``r^2``
        this is the second term.

        Examples
        --------
        >>> from ldp.mechanisms import CMS
        >>> cms = CMS(4.0, width=1024, depth=65536)
        >>> n, f, s = 10**6, 0.01, 9900 * 1e-4**2
        >>> round(float(n * cms.variance(n, f, others_squared=s) ** 0.5), 1)  # sd of the count
        427.0
        """
        users = check_n(n)
        conv = check_convention(convention)
        if f is None:
            freq, scalar = np.zeros(()), True
        else:
            freq = as_real_array(f, "f")
            scalar = freq.ndim == 0
            if np.any(freq < 0) or np.any(freq > 1):
                raise ValueError(f"f must be frequencies in [0, 1], got {describe(f)}")
        s = as_real_array(others_squared, "others_squared")
        if np.any(s < 0) or np.any(s > (1 - freq) ** 2 * (1 + 1e-12)):
            raise ValueError(
                "others_squared must lie in [0, (1 - f)^2] (a sum of squared frequencies of "
                f"the other items), got {describe(others_squared)}"
            )
        scalar = scalar and s.ndim == 0
        m, k = float(self._width), float(self._depth)
        r = m / (m - 1)
        rest = 1 - freq
        if conv == "iid":  # E over the sample of the fixed-data terms
            s = rest / users + s * (1 - 1 / users)
        out = r**2 * self._noise(freq) / users + (rest * (1 - 1 / k) / users + s / k) / (m - 1)
        if conv == "iid":
            out = out + freq * rest / users
        return scalar_or_array(out, scalar)

    # ----------------------------------------------------------------- privacy
    def audit_statistic(self, x0: Any, x1: Any):
        """Whether each report's row separates ``x0`` and ``x1``, and how it votes on each:
        a sufficient statistic of the pair (the row and coefficient carry no information)."""
        b0, b1 = self._pair_buckets(x0, x1)
        return lambda reports: self._pair_statistic(np.asarray(reports), b0, b1)

    @abc.abstractmethod
    def _pair_statistic(self, reports: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> np.ndarray:
        """The audit statistic given each row's buckets of the two items."""


class CMS(CountMeanSketch):
    """Apple's count-mean sketch (Apple Differential Privacy Team 2017).

    The device draws a row ``j`` uniformly from ``0 .. depth - 1`` and reports
    :class:`SUE` (symmetric unary encoding, ``width`` bits, each flipped with probability
    ``1 / (1 + e^{eps/2})``) of its bucket ``h_j(item)``. The report is one row of integer
    fields: ``row``, then the ``ceil(width / 8)`` bytes of the bit-packed vector (bit ``a`` is
    bit ``7 - a % 8`` of byte ``a // 8``). ``c = (e^{eps/2} + 1) / (e^{eps/2} - 1)``; the
    server adds ``depth (c (bit - 1/2) + 1/2)`` to row ``j`` of ``M``.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    width : int, default 1024
        Bits of a report (Apple's ``m``), ``2 <= width <= 2^22``.
    depth : int, default 16
        Number of hash functions (Apple's ``k``), ``1 <= depth <= 65536``.
    salt : str, default ""
        Public salt of the hash functions.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import CMS
    >>> cms = CMS(2.0, width=64, depth=4)
    >>> reports = cms.privatize(["apple", "pear", "apple"], rng=0)
    >>> reports.shape  # the row, then 8 bytes of bits
    (3, 9)
    >>> cms.epsilon, round(cms.c, 6)
    (2.0, 2.163953)
    """

    name = "cms"

    def __init__(self, epsilon: float, width: int = 1024, depth: int = 16, salt: str = "") -> None:
        super().__init__(epsilon, width, depth, salt)
        check_size(self._width, MAX_VECTOR_CATEGORIES, "MAX_VECTOR_CATEGORIES", "CMS", "width")
        self._sue = SUE(self._width, self._eps_budget)
        own = cast("list[float]", self._sue.sampler()["own"])  # bucket bit 1 : 0
        self._c = (own[0] + own[1]) / (own[0] - own[1])

    @property
    def c(self) -> float:
        return self._c

    @property
    def epsilon(self) -> float:
        return self._sue.epsilon

    @property
    def report_bits(self) -> float:
        """``width`` bits plus the row."""
        return self._width + math.log2(self._depth)

    @property
    def work_per_report(self) -> float:
        """A row, a hash and ``width`` bits."""
        return 3.0 + 2.0 * self._width

    @property
    def codec(self) -> ReportCodec:
        dtype = "uint8" if self._depth <= 256 else "uint16"
        fields = (Field("row", "int", 0, self._depth - 1), *self._sue.codec.fields)
        return ReportCodec(fields, dtype, vector=True, check=self._check_pad)

    def _check_pad(self, reports: np.ndarray, where) -> None:
        sue_check = self._sue.codec.check
        if sue_check is not None:
            sue_check(np.ascontiguousarray(reports[:, 1:]).astype(np.uint8), where)

    def sampler(self) -> dict[str, object]:
        """``own``/``other``: the :class:`SUE` odds of the bucket's bit and of every other
        bit; the hash (``docs/protocol.md``)."""
        return {**self._sue.sampler(), "hash": "sha256-v1"}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """``(row, packed bits)`` per user: the row by ``randint(depth)`` for every user,
        then the :class:`SUE` report of each user's bucket.

        The reports are written in place, the :class:`SUE` bits in blocks of
        ``CHUNK_ELEMENTS // width`` users (the blocks :class:`SUE` itself reads a byte
        stream in, so the bytes and the reports are those of one call for every user), so
        that the temporaries are a fixed size besides the report.
        """
        unique, inverse = unique_items(values, sort=False)
        gen = check_random_state(rng)
        n = inverse.size
        out = np.empty((n, 1 + (self._width + 7) // 8), dtype=self.codec.native_dtype)
        randint_into(gen, self._depth, out[:, 0])
        table = self._buckets.tabulated(unique, n)
        whole = (
            self._buckets.buckets(out[:, 0], unique, inverse)
            if table is None
            else np.empty(0, dtype=np.int64)
        )
        step = max(1, CHUNK_ELEMENTS // self._width)
        for start in range(0, n, step):
            block = slice(start, min(start + step, n))
            if table is None:
                buckets = whole[block]
            else:
                buckets = table[inverse[block], out[block, 0]]
            out[block, 1:] = self._sue.privatize(buckets, rng=gen)
        return out

    def _sums(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = reports[:, 0].astype(np.int64)
        out = np.zeros((self._depth, self._width), dtype=np.int64)
        sizes = np.bincount(rows, minlength=self._depth)
        if not rows.size:
            return out, sizes
        # the reports of each row made contiguous (a stable sort of the narrow row column,
        # a radix sort, and whole reports taken in that order), then each row's block summed
        # by column 64 bits at a time (bit_counts), never unpacked
        order = np.argsort(reports[:, 0], kind="stable")
        bits = np.take(reports, order, axis=0)[:, 1:]
        if bits.dtype != np.uint8:
            bits = bits.astype(np.uint8)
        stops = np.cumsum(sizes)
        for row in np.flatnonzero(sizes).tolist():
            stop = int(stops[row])
            out[row] = bit_counts(bits[stop - int(sizes[row]) : stop], self._width)
        return out, sizes

    def _matrix(self, counts: SketchCounts) -> np.ndarray:
        ones = counts.counts.astype(np.float64)
        half = counts.rows[:, None] / 2.0
        return self._depth * (self._c * (ones - half) + half)

    def _noise(self, f: np.ndarray) -> np.ndarray:
        return np.full(np.shape(f), (self._c**2 - 1) / 4)

    def privacy_channel(self) -> Channel:
        """The bits of the two items' buckets in the chosen row (as :class:`SUE`): the worst
        case, when the row separates them."""
        return self._sue.privacy_channel()

    def _pair_statistic(self, reports: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> np.ndarray:
        rows = reports[:, 0].astype(np.int64)
        bits = reports[:, 1:].astype(np.uint8)
        a0, a1 = b0[rows], b1[rows]
        at = np.arange(rows.size)

        def bit(a: np.ndarray) -> np.ndarray:
            return ((bits[at, a // 8] >> (7 - a % 8)) & 1).astype(np.int64)

        return 4 * (a0 == a1).astype(np.int64) + 2 * bit(a0) + bit(a1)


class HCMS(CountMeanSketch):
    """Apple's Hadamard count-mean sketch (Apple Differential Privacy Team 2017).

    The device draws a row ``j`` uniformly from ``0 .. depth - 1`` and a coefficient ``l``
    from ``0 .. width - 1``, takes ``w = H[l, h_j(item)] = (-1)^popcount(l & h_j(item))``
    (Sylvester's Hadamard matrix) and keeps it with probability ``e^eps / (e^eps + 1)``,
    else flips it. The report is three integer fields: ``row``, ``coefficient`` and ``bit``
    (``1`` for ``+1``, ``0`` for ``-1``). ``c = (e^eps + 1) / (e^eps - 1)``; the server adds
    ``depth c (+-1)`` to ``M_H[j, l]`` and reads ``M = M_H H``.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    width : int, default 1024
        Buckets per hash function (Apple's ``m``), a power of two ``>= 2``.
    depth : int, default 16
        Number of hash functions (Apple's ``k``), ``1 <= depth <= 65536``.
    salt : str, default ""
        Public salt of the hash functions.

    Examples
    --------
    >>> from ldp.mechanisms import HCMS
    >>> hcms = HCMS(2.0, width=64, depth=4)
    >>> hcms.privatize(["apple", "pear"], rng=0).shape  # row, coefficient, bit
    (2, 3)
    >>> hcms.epsilon, round(hcms.c, 6)
    (2.0, 1.313035)
    """

    name = "hcms"

    def __init__(self, epsilon: float, width: int = 1024, depth: int = 16, salt: str = "") -> None:
        super().__init__(epsilon, width, depth, salt)
        if self._width & (self._width - 1):
            raise ValueError(f"width must be a power of two for HCMS, got {compact(self._width)}")
        self._odds = exp_down(self._eps_budget)
        self._law = ExactLaw([self._odds, 1.0])  # keep the sign : flip it
        keep, flip = self._law.weights
        self._coin = WordCoin(Fraction(keep) / (Fraction(keep) + Fraction(flip)))  # P(keep)
        self._c = (keep + flip) / (keep - flip)

    @property
    def c(self) -> float:
        return self._c

    @property
    def epsilon(self) -> float:
        keep, flip = self._law.weights  # flip = 1: the ratio is keep
        return certified_epsilon(keep / flip, self._eps_budget)

    @property
    def report_bits(self) -> float:
        """One bit plus the row and the coefficient."""
        return 1 + math.log2(self._width) + math.log2(self._depth)

    @property
    def codec(self) -> ReportCodec:
        fields = (
            Field("row", "int", 0, self._depth - 1),
            Field("coefficient", "int", 0, self._width - 1),
            Field("bit", "int", 0, 1),
        )
        dtype = np.dtype(index_dtype(max(self._depth, self._width))).name
        return ReportCodec(fields, dtype, vector=True)

    def sampler(self) -> dict[str, object]:
        """``keep``: the odds of sending the Hadamard sign as it is against flipping it; the
        hash (``docs/protocol.md``)."""
        return {"keep": list(self._law.weights), "hash": "sha256-v1"}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """``(row, coefficient, bit)`` per user: ``randint(depth)`` for every user, then
        ``randint(width)`` for every user, then the keep-or-flip coin of every user.

        A numpy ``Generator`` (a simulation) draws the same law from one word per user
        instead (``ldp.mechanisms.sketches.words``) when ``width <= 2^16``.
        """
        unique, inverse = unique_items(values, sort=False)
        gen = check_random_state(rng)
        n = inverse.size
        out = np.empty((n, 3), dtype=self.codec.native_dtype)  # signs in blocks of users
        table = self._buckets.tabulated(unique, n)
        if isinstance(gen, np.random.Generator) and self._width <= 1 << INDEX_BITS:
            self._privatize_words(gen, unique, inverse, table, out)
            return out
        randint_into(gen, self._depth, out[:, 0])
        randint_into(gen, self._width, out[:, 1])
        flip = choose_streamed(gen, self._law, n)  # 1: flip the sign
        whole = (
            self._buckets.buckets(out[:, 0], unique, inverse)
            if table is None
            else np.empty(0, dtype=np.int64)
        )
        for start in range(0, n, STREAM_DRAWS):
            block = slice(start, min(start + STREAM_DRAWS, n))
            rows, cols = out[block, 0], out[block, 1]
            buckets = whole[block] if table is None else table[inverse[block], rows]
            out[block, 2] = parity(cols & buckets) == flip[block]  # +1 kept, or -1 flipped
        return out

    def _privatize_words(
        self,
        gen: np.random.Generator,
        unique: list[bytes],
        inverse: np.ndarray,
        table: np.ndarray | None,
        out: np.ndarray,
    ) -> None:
        """The simulation path: the draws of one word per user, and each user's bucket
        read from the items' table in the same pass (or, without a table, hashed per pair
        once every row is drawn)."""
        depth = self._depth
        if table is not None:
            flat = table.astype(np.uint16).ravel()  # buckets below width <= 2^16

            def buckets(block: slice, rows: np.ndarray) -> np.ndarray:
                at = inverse[block] * depth
                at += rows
                return np.take(flat, at)

            privatize_words(gen, self._coin, depth, self._width, out, buckets)
            return
        privatize_words(gen, self._coin, depth, self._width, out)  # out[:, 2]: keep
        whole = self._buckets.buckets(out[:, 0], unique, inverse)
        for start in range(0, out.shape[0], STREAM_DRAWS):
            block = slice(start, start + STREAM_DRAWS)
            out[block, 2] ^= parity(out[block, 1] & whole[block])

    def aggregate(self, reports: ArrayLike) -> SketchCounts:
        """The statistic of ``reports`` (checked by the :attr:`codec`; add chunks with ``+``).

        An ``(n, 3)`` int64 array is checked as it is counted: a field outside its range
        stops the count, and the codec then names the first bad row. Other reports (those
        of :meth:`privatize` are the smallest signed integers that hold the fields) are
        checked by the codec first, which reads a narrow array faster than the count would."""
        if (
            isinstance(reports, np.ndarray)
            and reports.dtype == np.int64
            and reports.ndim == 2
            and reports.shape[1] == 3
        ):
            try:
                sums, rows = self._checked_sums(reports)
            except ValueError:  # a field outside its range
                self.codec.from_rows(reports)  # raises, naming the first bad row
                raise
            return SketchCounts(sums, rows, int(reports.shape[0]), self.key)
        return super().aggregate(reports)

    def _sums(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # the reports are checked (every field in 0 .. bound - 1), so the index is built
        # exactly in an unsigned type that holds the largest one, 2 depth width - 1, and the
        # row's multiplier: uint16 when both fit (a quarter of intp's traffic; np.bincount
        # widens it once), else intp (a product in the reports' own dtype may overflow)
        stride = 2 * self._width
        narrow = self._depth * stride <= 1 << 16 and stride < 1 << 16
        dtype = np.uint16 if narrow else np.intp

        def index(block: np.ndarray) -> np.ndarray:
            out = np.multiply(block[:, 0], stride, dtype=dtype, casting="unsafe")
            out += np.multiply(block[:, 1], 2, dtype=dtype, casting="unsafe")
            return np.add(out, block[:, 2], out=out, casting="unsafe")

        return self._tally(reports, index)

    def _checked_sums(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # :meth:`_sums` of unchecked int64 reports: np.ravel_multi_index raises ValueError
        # for a field outside 0 .. bound - 1 in the pass that builds the index
        shape = (self._depth, self._width, 2)
        return self._tally(
            reports,
            lambda block: np.ravel_multi_index((block[:, 0], block[:, 1], block[:, 2]), shape),
        )

    def _tally(
        self, reports: np.ndarray, index: Callable[[np.ndarray], np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(sums, rows)``: the reports of each (row, coefficient, bit) counted by integer
        bincounts of ``index(block)`` (``2 (row width + coefficient) + bit``), a block of
        reports at a time (the index temporaries stay in cache); the kept minus the flipped
        signs of each row and coefficient, and the reports of each row."""
        size = 2 * self._depth * self._width
        tally = np.zeros(size, dtype=np.int64)
        for start in range(0, reports.shape[0], _COUNTED_REPORTS):
            tally += np.bincount(index(reports[start : start + _COUNTED_REPORTS]), minlength=size)
        pairs = tally.reshape(self._depth, self._width, 2)
        return pairs[:, :, 1] - pairs[:, :, 0], pairs.sum(axis=(1, 2))

    def _matrix(self, counts: SketchCounts) -> np.ndarray:
        transformed = fwht(counts.counts)  # exact integers: |entries| <= n width < 2^53
        return self._depth * self._c * transformed.astype(np.float64)

    def _noise(self, f: np.ndarray) -> np.ndarray:
        return self._c**2 - f - (1 - f) / self._width

    def privacy_channel(self) -> Channel:
        """Whether the coefficient separates the two items' buckets (probability ``1/2``
        when the row does), and whether the bit agrees with each: the worst case."""
        keep, flip = self._law.probabilities()
        return Channel(
            np.array(
                [
                    [keep / 2, flip / 2, keep / 2, flip / 2],
                    [keep / 2, flip / 2, flip / 2, keep / 2],
                ]
            )
        )

    def _pair_statistic(self, reports: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> np.ndarray:
        rows = reports[:, 0].astype(np.int64)
        cols = reports[:, 1].astype(np.int64)
        plus = reports[:, 2].astype(np.int64)
        w0 = (parity(cols & b0[rows]) == 0).astype(np.int64)
        w1 = (parity(cols & b1[rows]) == 0).astype(np.int64)
        return 2 * (plus == w0).astype(np.int64) + (plus == w1)
