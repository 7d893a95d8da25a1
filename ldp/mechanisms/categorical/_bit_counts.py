"""Column sums of bit-packed rows (:func:`bit_counts`): how many reports hold each value, for
the unary encodings, subset selection, RAPPOR and the count sketches.

The rows are read as little-endian 64-bit words and added up bit by bit: full adders
(Harley-Seal's carry-save counter) reduce slices of rows to one plane of bits per power of
two, and the few planes left are counted as 2-, 4- then 8-bit counters within the words,
their rows summed in groups that no counter can overflow.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bit_counts"]


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
    >>> from ldp.mechanisms.categorical._bit_counts import bit_counts
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
