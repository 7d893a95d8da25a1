"""Unary encoding: one bit per category (SUE, i.e. basic RAPPOR, and OUE)."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._coin_bytes import CoinBytes
from ldp._exact import (
    certified_epsilon,
    exp_down,
    log_up,
    probabilities,
)
from ldp._sampling import (
    ExactLaw,
    choose_after_first_byte,
    first_byte_thresholds,
    random_bytes,
)
from ldp._validation import check_random_state, check_scalar
from ldp._words import coin_lanes
from ldp.channel import Channel
from ldp.core import Field, ReportCodec
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.categorical._common import (
    check_channel_size,
    check_vector_size,
    packed_bit,
    unary_ratio,
)
from ldp.mechanisms.limits import check_categories, chunk_rows
from ldp.mechanisms.worst_pair import pair_channel

__all__ = ["OUE", "SUE", "UnaryEncoding"]


# --------------------------------------------------------------------------- unary encoding
def packed_codec(k: int, check=None) -> ReportCodec:
    """``ceil(k / 8)`` byte fields of a bit-packed vector (bit ``v`` is bit ``7 - v % 8`` of
    byte ``v // 8``; the pad bits beyond ``k`` are zero)."""
    return ReportCodec(byte_fields((k + 7) // 8), "uint8", vector=True, check=check)


@functools.lru_cache(maxsize=64)
def byte_fields(width: int) -> tuple[Field, ...]:
    """The ``width`` byte fields of a packed report (built once per width: they are frozen)."""
    return tuple(Field(f"byte_{i}", "int", 0, 255) for i in range(width))


@functools.lru_cache(maxsize=64)
def unary_codec(k: int) -> ReportCodec:
    """The codec of a unary encoding's reports over ``k`` categories (built once per ``k``:
    its field bounds are then computed once, not at every aggregate)."""
    return packed_codec(k, check_pad_bits(k))


def check_pad_bits(k: int):
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


@functools.lru_cache(maxsize=64)
def coin_bytes(p: Fraction) -> CoinBytes:
    """The byte sampler of the coin ``p`` (its table built once per probability)."""
    return CoinBytes(p)


#: Rows whose bits one byte lane sums (at most 255); 3 * 5 * 17, the row groups of the
#: three widening steps of :func:`_count_planes`.
_LANE_ROWS = 255
_GROUPS = (3, 5, 17)
#: the even lanes of width 1, 2 and 4 bits
_MASKS = tuple(np.uint64(m) for m in (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F))
#: the bit of each byte (from the lowest) that the widening steps leave in each part
_ORDER = (0, 4, 2, 6, 1, 5, 3, 7)
#: the part holding bit ``7 - i`` of every byte (bit ``i`` of the byte in category order)
_PART_OF = np.array([_ORDER.index(7 - i) for i in range(8)])
_PART_OF.flags.writeable = False
#: 64-bit words of one slice of rows in the carry-save pass (64 KB): each numpy call of a
#: full adder covers a whole slice, so its overhead (about 0.4 us) stays below a fifth of
#: the call, and the few slices an adder works on at once stay within the L2 cache. The
#: planes left at the end (one slice each, about log2 of the slices) are counted by the
#: widening steps, which cost about twice as much per word as a full adder: slices of
#: 2^13 and 2^14 words took the same time at k = 64 (1e6 rows), 2^12 and 2^15 longer.
_SLICE_WORDS = 1 << 13
#: Rows of at most this many words, when 255 of them fit a slice, are counted as one slice:
#: the widening alone (a few calls over all of them) beats adders on slices that small.
_SMALL_WORDS = 1 << 16
#: slices a call aims for at least, so that the planes left at the end are few beside them
_MIN_SLICES = 16
#: rows of a slice when fewer than 255 rows fit one: powers of two from 8 to 128, whose
#: widening steps sum groups of 2, 4 and ``rows / 8`` rows (at most 2, 8 then 128 per lane)
_FEWEST_ROWS, _MOST_POWER_ROWS = 8, 128


def _lane_groups(rows: int) -> tuple[int, int, int]:
    """The row groups of the three widening steps of a plane of ``rows`` rows: ``(3, 5, 17)``
    for a multiple of 255, ``(2, 4, rows / 8)`` for a power of two from 8 to 128. Either way
    the counters hold at most 3, 15 and 255 after the steps (2, 4 and 8 bits)."""
    return _GROUPS if rows % _LANE_ROWS == 0 else (2, 4, rows // 8)


def _slice_shape(rows: int, per_row: int) -> tuple[int, int]:
    """``(rows of a slice, words of a slice's rows)`` for the column sums of ``rows`` rows of
    ``per_row`` 64-bit words (:func:`bit_counts`).

    Rows of up to 32 words take whole lane blocks of rows (255 of them) per slice, as many as
    fit :data:`_SLICE_WORDS` or leave :data:`_MIN_SLICES` slices; up to :data:`_SMALL_WORDS`
    words in all they are one slice. Wider rows take a power of two of rows (8 to 128, as
    many as fit or leave that many slices) and, when 8 rows exceed a slice, columns in
    chunks of a slice's width.
    """
    if per_row * _LANE_ROWS <= _SLICE_WORDS:
        if rows * per_row <= _SMALL_WORDS:
            return max(1, -(-rows // _LANE_ROWS)) * _LANE_ROWS, per_row
        lanes = min(_SLICE_WORDS // (per_row * _LANE_ROWS), rows // (_MIN_SLICES * _LANE_ROWS))
        return max(1, lanes) * _LANE_ROWS, per_row
    most = min(_MOST_POWER_ROWS, rows // _MIN_SLICES, _SLICE_WORDS // per_row)
    power = 1 << (max(_FEWEST_ROWS, most).bit_length() - 1)
    return power, min(per_row, max(1, _SLICE_WORDS // power))


def _widen(
    parts: np.ndarray, level: int, groups: int, split: np.ndarray, summed: np.ndarray
) -> np.ndarray:
    """The stacked parts (``(P, R, W)`` 64-bit words of ``2^level``-bit counters) each split
    into its even and odd counters, in counters twice as wide (written into ``split``, as
    ``(P, 2, R, W)``), and their rows summed in ``groups`` groups (written into ``summed``;
    the caller keeps the sums within the wider counters, :func:`_lane_groups`):
    ``(2 P, R / groups, W)``, the part ``2 p`` the even counters of part ``p``, ``2 p + 1``
    its odd ones. With ``groups`` 1 (only the last step of planes of 8 rows) the halves are
    returned as they are, in ``split``, which no further step may then overwrite."""
    mask = _MASKS[level]
    count, rows, words = parts.shape
    halves = split[: 2 * parts.size].reshape(count, 2, rows, words)
    np.bitwise_and(parts, mask, out=halves[:, 0])
    np.right_shift(parts, np.uint64(1 << level), out=halves[:, 1])
    np.bitwise_and(halves[:, 1], mask, out=halves[:, 1])
    if groups == 1:
        return halves.reshape(2 * count, rows, words)
    grouped = halves.reshape(2 * count, groups, rows // groups, words)
    out = summed[: grouped.size // groups].reshape(2 * count, rows // groups, words)
    if groups < 5:  # numpy adds a few slices faster than it reduces a short middle axis
        np.add(grouped[:, 0], grouped[:, 1], out=out)
        for i in range(2, groups):
            np.add(out, grouped[:, i], out=out)
        return out
    return np.add.reduce(grouped, axis=1, out=out)


def _count_planes(planes: np.ndarray) -> np.ndarray:
    """The column counts of stacked bit planes: ``planes`` is ``(P, R, W)`` 64-bit words, a
    bit of plane ``j`` counting ``2^j``, and ``R`` rows a multiple of 255 or a power of two
    from 8 to 128; returns ``(8 W, 8)`` int64 counts, ``[byte column, bit from the highest]``.

    The planes are split into 2-, 4- then 8-bit counters within their words and their rows
    summed (:func:`_widen`, no counter overflows, no carry crosses one); each of the eight
    resulting parts of a plane holds one bit of every byte. Their byte counters are added up
    in ``int64``, the planes' weights applied by doubling (from the highest plane down).
    """
    count, rows, words = planes.shape
    split = np.empty(2 * planes.size, dtype=np.uint64)  # each step's halves
    summed = np.empty(planes.size, dtype=np.uint64)  # each step's sums (at most half of those)
    parts = planes
    for level, groups in enumerate(_lane_groups(rows)):
        parts = _widen(parts, level, groups, split, summed)
    # byte j of a little-endian word counts the word's byte j (a copy only on a big-endian
    # machine, whose native words hold their bytes the other way round)
    octets = parts.astype("<u8", copy=False).view(np.uint8).reshape(count, 8, -1, 8 * words)
    totals = np.zeros((8, 8 * words), dtype=np.int64)
    for plane in octets[::-1]:
        np.left_shift(totals, 1, out=totals)
        if plane.shape[1] == 1:  # one row of byte counters: added as they are, no reduction
            np.add(totals, plane[:, 0], out=totals)
        else:
            totals += plane.sum(axis=1, dtype=np.int64)
    return totals[_PART_OF, :].T


def _full_add(
    total: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    carry: np.ndarray,
    spare: np.ndarray,
    scratch: np.ndarray,
) -> None:
    """A full adder over bit planes, each bit on its own: ``total`` becomes
    ``total ^ a ^ b`` and ``carry`` (the bits that carry one up, where two or three of them
    are set) ``a & b | (a ^ b) & total``: five calls, the fewest of two-input operations.
    ``carry`` may be ``a`` and ``spare`` may be ``b`` (each is written only after its last
    read); ``scratch`` is neither."""
    np.bitwise_xor(a, b, out=scratch)
    np.bitwise_and(a, b, out=carry)
    np.bitwise_and(scratch, total, out=spare)
    np.bitwise_or(carry, spare, out=carry)
    np.bitwise_xor(total, scratch, out=total)


class _CarrySave:
    """A carry-save counter of bit planes of one slice's shape (Harley-Seal): the column
    counts of the slices added so far are ``sum_j 2^j (state_j + pending_j)``, counted
    bit by bit.

    Slices come in pairs; a full adder adds a pair into the state of weight 1 and passes its
    carry (weight 2) up. A carry waits at its level for a second one, and the two are added
    into that level's state by another full adder, whose carry goes one level up: about one
    full adder (five numpy calls) per slice, and ``log2`` of the slices planes in the end
    (:meth:`planes`), so that almost all the rows are counted by full adders and few by the
    widening steps, which cost about twice as much per word. Every buffer is reused.
    """

    def __init__(self, slices: int, shape: tuple[int, int]) -> None:
        levels = slices.bit_length() + 1  # the carries of ``slices`` ones, and one to spare
        self._shape = shape
        self._state = np.zeros((levels, *shape), dtype=np.uint64)
        self._pending: list[np.ndarray | None] = [None] * (levels + 1)
        self._free: list[np.ndarray] = []
        self._spare = np.empty(shape, dtype=np.uint64)
        self._scratch = np.empty(shape, dtype=np.uint64)
        self._used = 0  # levels whose state may be nonzero

    def _buffer(self) -> np.ndarray:
        return self._free.pop() if self._free else np.empty(self._shape, dtype=np.uint64)

    def add_pair(self, a: np.ndarray, b: np.ndarray) -> None:
        """Add two slices (read, never written)."""
        carry = self._buffer()
        _full_add(self._state[0], a, b, carry, self._spare, self._scratch)
        self._used = max(self._used, 1)
        self._carry(1, carry)

    def _carry(self, level: int, carry: np.ndarray) -> None:
        """Pass ``carry`` (a buffer of this counter, weight ``2^level``) up."""
        while (waiting := self._pending[level]) is not None:
            self._pending[level] = None
            _full_add(self._state[level], waiting, carry, waiting, carry, self._scratch)
            self._used = max(self._used, level + 1)
            self._free.append(carry)
            carry, level = waiting, level + 1
        self._pending[level] = carry

    def planes(self, last: np.ndarray | None) -> np.ndarray:
        """The planes of the slices added and of ``last`` (one more slice, or ``None``):
        ``(P, rows, words)``, plane ``j`` of weight ``2^j``. The waiting carries are added
        into the state, from the lowest level up (a half adder for one, a full adder for
        two), so that one plane per level is left to count."""
        incoming, level = last, 0
        while incoming is not None or self._pending[level] is not None or level < self._used:
            plane = self._state[level]
            extra = [x for x in (self._pending[level], incoming) if x is not None]
            incoming = None
            if len(extra) == 2:
                incoming = self._buffer()
                _full_add(plane, extra[0], extra[1], incoming, self._spare, self._scratch)
            elif extra and level >= self._used:  # an empty level: the plane is the extra
                np.copyto(plane, extra[0])
            elif extra:  # a half adder
                incoming = self._buffer()
                np.bitwise_and(plane, extra[0], out=incoming)
                np.bitwise_xor(plane, extra[0], out=plane)
            level += 1
        return self._state[:level]


def _read_slice(
    packed: np.ndarray, start: int, columns: slice, slice_rows: int, buffer: np.ndarray | None
) -> np.ndarray:
    """The slice of ``slice_rows`` rows of ``packed`` from row ``start``, in the byte
    ``columns``, as little-endian 64-bit words: a view (read, never written) when
    ``buffer`` is ``None``, else a copy zero-padded to whole rows and words in ``buffer``.

    Bit ``i`` of a little-endian word's value is bit ``i % 8`` of its byte ``i // 8`` on any
    machine, and the adders and widening steps work on the values (numpy converts a word of
    the other byte order as it reads it), so every bit keeps its column.
    """
    stop = min(start + slice_rows, packed.shape[0])
    if buffer is None:
        return packed[start:stop, columns].view("<u8")
    used = columns.stop - columns.start
    block = buffer[: slice_rows * -(-used // 8) * 8].reshape(slice_rows, -1)
    if stop - start < slice_rows or used < block.shape[1]:
        block.fill(0)
    block[: stop - start, :used] = packed[start:stop, columns]
    return block.view("<u8")


def _chunk_planes(
    packed: np.ndarray, columns: slice, slice_rows: int, padded: list[np.ndarray | None]
) -> np.ndarray:
    """The bit planes (:meth:`_CarrySave.planes`) of the byte ``columns`` of all the rows,
    in slices of ``slice_rows`` rows; slice ``i`` is read through ``padded[i % 2]`` (a
    buffer, or ``None`` to read whole slices in place) and the last one through a buffer
    when it is short. The two buffers are the two slices of a pair, each reused."""
    rows = packed.shape[0]
    starts = range(0, rows, slice_rows)

    def read(i: int) -> np.ndarray:
        short = starts[i] + slice_rows > rows
        buffer = padded[i % 2] if padded[i % 2] is not None or not short else padded[2]
        return _read_slice(packed, starts[i], columns, slice_rows, buffer)

    if len(starts) == 1:
        return read(0)[None]
    words = -(-(columns.stop - columns.start) // 8)
    adder = _CarrySave(len(starts), (slice_rows, words))
    for i in range(1, len(starts), 2):
        adder.add_pair(read(i - 1), read(i))
    return adder.planes(read(len(starts) - 1) if len(starts) % 2 else None)


def _grouped_counts(packed: np.ndarray, group: int) -> np.ndarray:
    """The column sums of contiguous rows of partial words (:func:`bit_counts`), read in
    place as whole words: ``group`` rows of ``width`` bytes are ``group * width / 8`` whole
    words, so the rows are counted as the fewer, longer rows of ``group`` rows each and the
    counts of their ``group`` parts added up; the last ``rows % group`` rows are counted on
    their own (copied). Rows of partial words are otherwise copied slice by slice, a
    numpy call per row's few bytes."""
    rows, width = packed.shape
    whole = rows - rows % group
    joined = packed[:whole].reshape(whole // group, group * width)  # a view
    counts = bit_counts(joined, 8 * group * width).reshape(group, 8 * width).sum(axis=0)
    if whole < rows:
        counts += bit_counts(packed[whole:], 8 * width)
    return counts


def bit_counts(packed: np.ndarray, k: int) -> np.ndarray:
    """Column sums of bit-packed rows, 64 bits at a time: the rows viewed as little-endian
    64-bit words, added up bit by bit by full adders (:class:`_CarrySave`) in slices of
    rows (:func:`_slice_shape`) into a few planes of bits, one per power of two, whose
    columns are then counted as counters within the words (:func:`_count_planes`) and
    weighted. Bit ``v`` is bit ``7 - v % 8`` of byte ``v // 8``; the last slice of rows is
    zero-padded to a whole slice. Contiguous rows of partial words are counted a few rows
    at a time, as whole words (:func:`_grouped_counts`); other rows of partial words are
    copied and zero-padded to whole words.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical.unary import bit_counts
    >>> rows = np.packbits([[1, 0, 1], [1, 1, 0]], axis=1)
    >>> bit_counts(rows, 3).tolist()
    [2, 1, 1]
    """
    rows, width = packed.shape
    group = 8 // math.gcd(width, 8)  # rows that make whole words
    if group > 1 and rows >= group and packed.flags.c_contiguous:
        return _grouped_counts(packed, group)[:k]
    per_row = -(-width // 8)
    # the counts in category order: [byte column, bit of the byte from the highest]
    totals = np.zeros((8 * per_row, 8), dtype=np.int64)
    if rows == 0:
        return totals.reshape(-1)[:k]
    slice_rows, chunk = _slice_shape(rows, per_row)
    size = slice_rows * 8 * chunk
    # whole words with contiguous bytes: whole slices are read in place; else every slice
    # is copied, into one of two buffers (the two of a pair), and a third for a short last
    in_place = width % 8 == 0 and packed.strides[1] == 1
    padded: list[np.ndarray | None] = [
        None if in_place else np.empty(size, np.uint8),
        None if in_place else np.empty(size, np.uint8),
        np.empty(size if in_place and rows % slice_rows else 0, np.uint8),
    ]
    for first in range(0, per_row, chunk):
        columns = slice(8 * first, min(8 * (first + chunk), width))
        counts = _count_planes(_chunk_planes(packed, columns, slice_rows, padded))
        totals[8 * first : 8 * first + counts.shape[0]] += counts
    return totals.reshape(-1)[:k]


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
    def work_per_report(self) -> float:
        """``k`` coins drawn and ``k`` bits counted."""
        return 2.0 * self._k

    def pair_covariance(self) -> tuple[float, float]:
        """Independent bits: ``(0, 0)``."""
        return 0.0, 0.0

    def simulate_support_counts(self, n_x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """Independent bits: a binomial of the holders and one of the others per value."""
        return gen.binomial(n_x, self.p) + gen.binomial(int(n_x.sum()) - n_x, self.q)

    @property
    def codec(self) -> ReportCodec:
        check_vector_size(self._k, f"{type(self).__name__}.codec")
        return unary_codec(self._k)

    def sampler(self) -> dict[str, object]:
        """``own``: odds ``1 : 0`` of the bit of ``x``; ``other``: of every other bit."""
        return {"own": list(self._own.weights), "other": list(self._other.weights)}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        check_vector_size(self._k, f"{type(self).__name__}.privatize")
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        if isinstance(gen, np.random.Generator):
            return self._privatize_words(x, gen)
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

    def _privatize_words(self, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The simulation path: every byte of the report a pattern of eight independent
        coins with the other bits' probability, drawn by table from 16 random bits
        (:class:`ldp._coin_bytes.CoinBytes`, in chunks of ``2^15`` bytes, the rare split
        cells refined at the end), then the bit of ``x`` replaced by an
        independent coin with its own (bit-sliced, :func:`ldp._words.coin_lanes`) and the
        pad bits cleared. The bits are independent with the law's probabilities, as in the
        byte protocol, drawn in another order."""
        k, width = self._k, (self._k + 7) // 8
        own_p, other_p = (
            Fraction(law.weights[0]) / sum(map(Fraction, law.weights))
            for law in (self._own, self._other)
        )
        sampler = coin_bytes(other_p)
        out = np.empty((x.size, width), dtype=np.uint8)
        flat = out.reshape(-1)
        sampler.draw(gen, flat.size, out=flat)
        own = np.unpackbits(coin_lanes(gen, own_p, -(-x.size // 64)).view(np.uint8))[: x.size]
        rows, column = np.arange(x.size), x >> 3
        shift = (7 - (x & 7)).astype(np.uint8)
        kept = out[rows, column] & ~(np.uint8(1) << shift)
        out[rows, column] = kept | (own << shift)
        if k % 8:
            out[:, -1] &= np.uint8((0xFF << (8 - k % 8)) & 0xFF)
        return out

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return bit_counts(reports, self._k), reports.shape[0]

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.array([packed_bit(reports, int(v)).sum() for v in values], dtype=np.int64)

    def _pair_support(self) -> tuple[float, float]:
        """The bits are independent given ``x``: ``p q`` when one of the two is ``x``'s bit,
        ``q^2`` otherwise (so the fixed-data covariance is diagonal)."""
        return self.p * self.q, self.q * self.q

    def privacy_channel(self) -> Channel:
        """The bits of ``x`` and ``x'`` (11, 10, 01, 00); the other bits have one law."""
        p1, p0 = self._own.probabilities()
        q1, q0 = self._other.probabilities()
        return pair_channel(
            [p1 * q1, p1 * q0, p0 * q1, p0 * q0], [q1 * p1, q1 * p0, q0 * p1, q0 * p0]
        )

    def audit_statistic(self, x0: Any, x1: Any):
        """``2 bit[x0] + bit[x1]``: sufficient for the pair."""
        a, b = int(x0), int(x1)
        return lambda reports: 2 * packed_bit(reports, a) + packed_bit(reports, b)

    def to_channel(self) -> Channel:
        """The ``k x 2^k`` channel, output ``z`` = the bit vector with bit ``v`` = bit
        ``k - 1 - v`` of the integer ``z``."""
        check_channel_size(math.log2(self._k) + self._k, type(self).__name__)
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
