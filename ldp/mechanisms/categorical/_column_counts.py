"""Column sums of bit-packed rows by bit-sliced addition (a vertical counter).

A packed row of ``k`` bits, viewed as 64-bit words, holds 64 columns per word. Two blocks
of rows whose column counts are held *bit-sliced* (plane ``j`` holds bit ``j`` of every
column's count, one bit per column, 64 columns per word) add with a ripple-carry adder on
whole words: ``s_j = a_j ^ b_j ^ carry``, ``carry' = (a_j & b_j) | ((a_j ^ b_j) & carry)``,
every column at once and no carry crossing from one column to another. Adding the rows in
pairs, then the pairs in pairs, and so on, costs about ten word operations per word of
input (level ``l`` adds ``l``-plane numbers over ``2^-l`` of the words) and leaves every
column's count in ``log2(rows) + 1`` planes, read out at the end by unpacking their bits.
The counts are exact integers: the same numbers as unpacking every row and summing.
"""

from __future__ import annotations

import numpy as np

__all__ = ["packed_column_counts"]

#: Rows added per block before the blocks' counts are added among themselves (a power of
#: two: the block's words stay in cache).
_BLOCK_LEVELS = 6
#: Words per chunk of rows (a cache-sized slice of the input).
_CHUNK_WORDS = 1 << 16


def _add(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
    """The bit-sliced sum of two bit-sliced counts with the same number of planes."""
    out = [a[0] ^ b[0]]
    carry = a[0] & b[0]
    for x, y in zip(a[1:], b[1:]):
        half = x ^ y
        out.append(half ^ carry)
        carry = (x & y) | (half & carry)
    out.append(carry)
    return out


def _fold(planes: list[np.ndarray], levels: int) -> list[np.ndarray]:
    """Add the first half of the rows (axis 0) of bit-sliced counts to the second half,
    ``levels`` times: ``rows / 2^levels`` rows of counts in ``len(planes) + levels`` planes
    (row ``i`` counts the rows ``i``, ``i + r``, ``i + 2 r``, ... of the input, ``r`` the
    rows left; the halves are contiguous slices)."""
    for _ in range(levels):
        half = planes[0].shape[0] // 2
        planes = _add([p[:half] for p in planes], [p[half:] for p in planes])
    return planes


def packed_column_counts(packed: np.ndarray, k: int) -> np.ndarray:
    """How many rows of ``packed`` have bit ``v`` set, for ``v = 0 .. k - 1`` (``int64``);
    bit ``v`` is bit ``7 - v % 8`` of byte ``v // 8`` (``np.packbits`` order).

    Parameters
    ----------
    packed : numpy.ndarray
        ``uint8`` rows of ``ceil(k / 8)`` bytes (more bytes are ignored past ``k`` bits).
    k : int
        Number of columns.

    Returns
    -------
    numpy.ndarray
        The ``k`` column sums, exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._column_counts import packed_column_counts
    >>> rows = np.packbits([[1, 0, 1], [1, 1, 0], [1, 0, 0]], axis=1)
    >>> packed_column_counts(rows, 3).tolist()
    [3, 1, 1]
    """
    rows, width = packed.shape
    per_row = -(-width // 8)  # words per row
    block = 1 << _BLOCK_LEVELS
    step = max(block, (_CHUNK_WORDS // per_row) // block * block)
    sums = []  # per chunk: bit-sliced counts of its rows folded by 2^_BLOCK_LEVELS
    for start in range(0, rows, step):
        stop = min(start + step, rows)
        padded = -(-(stop - start) // block) * block  # zero rows count nothing
        if padded == stop - start and width == 8 * per_row:
            chunk = np.ascontiguousarray(packed[start:stop])
        else:
            chunk = np.zeros((padded, 8 * per_row), dtype=np.uint8)
            chunk[: stop - start, :width] = packed[start:stop]
        sums.append(np.stack(_fold([chunk.view("<u8")], _BLOCK_LEVELS)))
    if not sums:
        return np.zeros(k, dtype=np.int64)
    blocks = np.concatenate(sums, axis=1)  # (planes, rows, words)
    levels = max(0, (blocks.shape[1] - 1).bit_length())
    full = np.zeros((blocks.shape[0], 1 << levels, per_row), dtype=np.uint64)
    full[:, : blocks.shape[1]] = blocks
    counts = np.zeros(64 * per_row, dtype=np.int64)
    for j, plane in enumerate(_fold(list(full), levels)):  # planes of one row
        bits = np.unpackbits(np.ascontiguousarray(plane[0], dtype="<u8").view(np.uint8))
        counts += bits.astype(np.int64) << j
    return counts[:k]
