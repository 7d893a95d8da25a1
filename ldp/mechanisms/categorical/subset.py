"""Subset selection: report a random subset of the categories."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import (
    certified_epsilon,
    exp_down,
    exp_up,
    nearest_within,
    within_exp,
)
from ldp._formulas import subset_membership, subset_selection_probabilities
from ldp._numerics import log_binomial
from ldp._sampling import (
    ExactLaw,
    choose,
    randint,
    random_bytes,
)
from ldp._validation import check_integer, check_random_state
from ldp._words import WORD_CHUNK, WordCoin, words
from ldp.channel import Channel
from ldp.core import Field, ReportCodec
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.categorical._bit_counts import bit_counts
from ldp.mechanisms.categorical._common import (
    check_channel_size,
    check_vector_size,
    packed_bit,
)
from ldp.mechanisms.categorical._subset_wide import bernoulli_rows, correct_sizes, popcount_rows
from ldp.mechanisms.categorical._subset_words import SubsetWords, insert_value
from ldp.mechanisms.categorical.unary import check_pad_bits, packed_codec
from ldp.mechanisms.limits import check_categories, chunk_rows, index_dtype
from ldp.mechanisms.worst_pair import pair_channel

__all__ = ["SubsetSelection"]


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
#: Bytes of packed subsets per chunk of the simulation path for many values (fewer rounds).
_WIDE_CHUNK_BYTES = 1 << 23


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
    >>> from ldp.mechanisms.categorical.subset import subset_bernoulli_bits
    >>> subset_bernoulli_bits(1024, 275), subset_bernoulli_bits(1024, 121)
    (2, 3)
    >>> subset_bernoulli_bits(1024, 49)   # 64 or 32 would be nearest: Floyd
    0
    """
    best = min(range(1, max(2, (k - 1).bit_length() + 1)), key=lambda b: abs((k - 1) / 2**b - d))
    return best if best <= 3 else 0


@functools.lru_cache(maxsize=32)
def _subset_words(slots: int, d: int, inside: float, outside: float) -> SubsetWords:
    """The word sampler of subset selection: size ``d`` (``x`` left out) or ``d - 1`` (``x``
    included, ``which = 1``) with the odds ``outside : inside`` exactly, and a uniform
    subset of the slots of that size."""
    return SubsetWords(slots, (d, d - 1), odds=(Fraction(outside), Fraction(inside)))


def _write_words(out: np.ndarray, rows: slice | np.ndarray, subsets: np.ndarray) -> None:
    """``out[rows]`` = the bit-packed rows that the words ``subsets`` hold in their top bits
    (value ``v`` is bit ``63 - v``); whole words are written byte-swapped in one pass."""
    width = out.shape[1]
    if width == 8:
        out.view(">u8")[rows, 0] = subsets
    else:
        out[rows] = subsets.astype(">u8").view(np.uint8).reshape(-1, 8)[:, :width]


def _draw_inclusion(coin: WordCoin, gen: np.random.Generator, halves: np.ndarray) -> np.ndarray:
    """The inclusions of ``x`` by ``coin``, one uniform 32-bit half a user, a tie decided by
    more words from ``gen``."""
    include, tied = coin.decide(halves)
    if tied.any():
        at = np.flatnonzero(tied)
        include[at] = coin.resolve(gen, at.size)
    return include


@functools.lru_cache(maxsize=32)
def _inclusion_coin(inside: float, outside: float) -> WordCoin:
    """The coin ``x`` in the subset, ``inside / (inside + outside)`` exactly, on 32 bits."""
    odds = Fraction(inside)
    return WordCoin(odds / (odds + Fraction(outside)), 32)


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

    #: 0.1.0 reported the subset as packed bits (its pickles lack the encoding).
    _RESTORED_DEFAULTS: ClassVar[Mapping[str, object]] = {"_encoding": "bits"}

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
        return float(log_binomial(k, d)) / math.log(2)

    @property
    def work_per_report(self) -> float:
        """``d`` members drawn, and ``k`` bits counted by the server."""
        return float(self._d) + 2.0 * math.ceil(self._k / 8)

    @property
    def codec(self) -> ReportCodec:
        if self._encoding == "indices":
            fields = tuple(Field(f"member_{i}", "int", 0, self._k - 1) for i in range(self._d))
            dtype = np.dtype(index_dtype(self._k)).name
            return ReportCodec(fields, dtype, vector=True, check=self._check_members)
        check_vector_size(self._k, "SubsetSelection.codec")
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
        check_pad_bits(self._k)(reports, where)
        for rows in chunk_rows(reports.shape[0], 8 * reports.shape[1]):
            bad = popcount_rows(reports[rows]) != self._d
            if np.any(bad):
                raise ValueError(
                    f"{where(rows.start + int(np.argmax(bad)))}: the report does not hold "
                    f"exactly d = {self._d} values (not a report of this mechanism)"
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

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
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
        check_vector_size(self._k, "SubsetSelection.privatize")
        if isinstance(gen, np.random.Generator) and self._k <= 64:
            return self._privatize_words(x, gen)
        if isinstance(gen, np.random.Generator) and self._bernoulli_bits:
            return self._privatize_wide(x, gen)
        k = self._k
        width = (k + 7) // 8
        out = np.empty((x.size, width), dtype=np.uint8)
        step = max(1, _SUBSET_CHUNK_BYTES // width)
        for start in range(0, x.size, step):
            rows = slice(start, min(start + step, x.size))
            out[rows] = self._privatize_chunk(x[rows], gen, width)
        return out

    def _privatize_words(self, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The simulation path for ``k <= 64`` (:mod:`._subset_words`): per user, 16 random
        bits name a cell of a guide table that draws the inclusion of ``x`` (``P(include)``
        exactly, the odds of the law) together with how a uniform ``c``-subset of the
        ``k - 1`` other values spreads over the quarters of a word (more bits only where a
        boundary cuts the cell), and one 64-bit word draws the subset's patterns, chunk by
        chunk; the few users a chunk leaves unfinished are finished together at the end.
        The same law as the byte protocol, drawn in another order."""
        width = (self._k + 7) // 8
        draw = _subset_words(self._k - 1, self._d, *self._law.weights)
        out = np.empty((x.size, width), dtype=np.uint8)
        pending: list[tuple[np.ndarray, ...]] = []
        for start in range(0, x.size, WORD_CHUNK):
            xs = x[start : start + WORD_CHUNK]
            subsets, which, unfinished, outcome, keys = draw.draft(gen, xs.size)
            include = which.view(bool)  # size d - 1: x is in the subset
            reports = insert_value(subsets, xs, include, self._k)
            _write_words(out, slice(start, start + xs.size), reports)
            pending.append((unfinished + start, xs[unfinished], outcome, keys))
        if not pending:
            return out
        at, xs, outcome, keys = (np.concatenate(part) for part in zip(*pending, strict=True))
        if at.size:
            subsets, which = draw.finish(gen, outcome, keys)
            _write_words(out, at, insert_value(subsets, xs, which.view(bool), self._k))
        return out

    def _privatize_wide(self, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The simulation path for *Bernoulli and correct* (:mod:`._subset_wide`): the
        inclusion of ``x`` as :meth:`_privatize_words` decides it, then the other values by
        :func:`._subset_wide.bernoulli_rows` (rows of 64-bit words, the Generator's 16-bit
        integers for the correction); the same law as the byte protocol, from other draws."""
        width = (self._k + 7) // 8
        coin = _inclusion_coin(*self._law.weights)
        out = np.empty((x.size, width), dtype=np.uint8)
        step = max(WORD_CHUNK, _WIDE_CHUNK_BYTES // width)
        for start in range(0, x.size, step):
            xs = x[start : start + step]
            m = xs.size
            include = _draw_inclusion(coin, gen, words(gen, -(-m // 2)).view(np.uint32)[:m])
            sizes = self._d - include.astype(np.int64)
            packed = bernoulli_rows(gen, xs, sizes, self._k, self._bernoulli_bits)
            base = np.arange(m, dtype=np.int64) * width
            _set_bits(packed.reshape(-1), base[include], xs[include])
            out[start : start + m] = packed
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
        need = self._d - include.astype(np.int64) - popcount_rows(packed)
        correct_sizes(flat, base * 8, xs, need, lambda size: randint(gen, k - 1, size))
        return packed

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        if self._encoding == "indices":
            total = np.zeros(self._k, dtype=np.int64)
            for rows in chunk_rows(reports.shape[0], reports.shape[1]):
                total += np.bincount(reports[rows].ravel(), minlength=self._k)
            return total, reports.shape[0]
        return bit_counts(reports, self._k), reports.shape[0]

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.array([packed_bit(reports, int(v)).sum() for v in values], dtype=np.int64)

    def pair_moments(self, f: np.ndarray) -> tuple[float, float, np.ndarray | float, bool]:
        """Every report supports ``d`` values: the pair support, no excess, fixed."""
        r1, r2 = self._pair_support()
        return r1, r2, 0.0, True

    def _pair_support(self) -> tuple[float, float]:
        """Both ``u, v`` in the subset: ``p (d - 1)/(k - 1)`` when ``x = u``; otherwise
        ``(p (d - 1)(d - 2) + (1 - p) d (d - 1)) / ((k - 1)(k - 2))`` (``x`` in the subset
        with ``d - 1`` others, or ``d`` others, drawn from the ``k - 1`` values but ``x``)."""
        k, d, p = self._k, self._d, self._p
        own = p * (d - 1) / (k - 1)
        if k == 2:  # no third value
            return own, 0.0
        return own, (p * (d - 1) * (d - 2) + (1 - p) * d * (d - 1)) / ((k - 1) * (k - 2))

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
        return pair_channel(first, [first[0], first[2], first[1], first[3]])

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
        check_channel_size(math.log2(self._k) + self.report_bits, "SubsetSelection")
        k, d = self._k, self._d
        inside, outside = self._law.probabilities()
        # every subset holding x shares P(x in S), every other one P(x not in S)
        entries = (inside / math.comb(k - 1, d - 1), outside / math.comb(k - 1, d))
        return Channel(np.where(subset_membership(k, d), *entries))
