"""Uniform subsets of many slots as packed rows: the simulation path of subset selection
for ``k > 64`` (a numpy ``Generator``; no byte protocol to follow, only its law).

The ``k - 1`` values other than ``x`` get a uniform ``c``-subset (``c = d - 1`` when ``x``
is included, else ``d``) by *Bernoulli and correct*, the byte protocol's rule, with the
Generator's own draws:

* the AND of ``b`` uniform rows (64-bit words) sets every bit with probability ``2^-b``
  independently; ``x``'s bit (and the pad bits) cleared, the ``s`` set bits of the others
  are a uniform ``s``-subset given ``s``;
* a user with ``s > c`` drops ``s - c`` members, one with ``s < c`` adds ``c - s``
  non-members: each round draws ``t`` uniform on ``0 .. k - 2`` for every pending user
  (``Generator.integers``, exact, 16-bit when ``k - 1 <= 2^15``) and acts on value
  ``t + (t >= x)`` when it is a member to drop (or a non-member to add); other draws are
  discarded. Dropping a uniform member of a uniform ``s``-subset leaves a uniform
  ``(s - 1)``-subset, and adding a uniform non-member a uniform ``(s + 1)``-subset, so the
  result is a uniform ``c``-subset: the law of the byte protocol, from other draws.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldp._words import popcount, words

__all__ = ["bernoulli_rows", "correct_sizes", "popcount_rows"]

#: The mask of bit ``v % 8`` of a packed byte (bit ``v`` is bit ``7 - v % 8``).
_MASKS = np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=np.uint8)


def popcount_rows(packed: np.ndarray) -> np.ndarray:
    """Set bits of each packed uint8 row (int64): 64 bits at a time when the rows are whole
    64-bit words (their counts added column by column: a reduction along a short row costs
    more than the counting)."""
    width = packed.shape[1]
    if width % 8 == 0 and width and packed.flags.c_contiguous:
        counts = popcount(packed.view(np.uint64))
        total = counts[:, 0].astype(np.int64)
        for j in range(1, counts.shape[1]):
            total += counts[:, j]
        return total
    return popcount(packed).sum(axis=1, dtype=np.int64)


def correct_sizes(
    flat: np.ndarray,
    bit_base: np.ndarray,
    xs: np.ndarray,
    need: np.ndarray,
    draw_slots: Callable[[int], np.ndarray],
) -> None:
    """Bring each packed row to its size in place, by the rule of *Bernoulli and correct*
    (module notes): the one home of the correction, for the byte protocol and the
    Generator path alike.

    Row ``u`` holds its value ``v`` at bit ``bit_base[u] + v`` of ``flat`` (bit ``i`` is bit
    ``7 - i % 8`` of byte ``i // 8``); ``need[u]`` is its size minus its count of set bits.
    Each round calls ``draw_slots(m)`` once for the ``m`` users still pending (in user
    order) and acts on value ``t + (t >= xs[u])`` when it is a member to drop
    (``need < 0``) or a non-member to add (``need > 0``); other draws are discarded.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._subset_wide import correct_sizes
    >>> row = np.zeros(2, dtype=np.uint8)
    >>> gen = np.random.default_rng(0)
    >>> correct_sizes(row, np.array([0]), np.array([5]), np.array([3]),
    ...               lambda m: gen.integers(0, 15, size=m))
    >>> bits = np.unpackbits(row); int(bits.sum()), int(bits[5])
    (3, 0)
    """
    users = np.flatnonzero(need)
    at, at_x, need = bit_base[users], xs[users], need[users]
    step = np.sign(need)
    drop = need < 0  # too many: drop members; too few: add non-members
    while at.size:
        t = draw_slots(at.size)
        bit = at + t
        bit += t >= at_x  # slot t stands for value t + (t >= x)
        byte = bit >> 3
        mask = np.take(_MASKS, bit & 7)
        hit = ((np.take(flat, byte) & mask) != 0) == drop
        flat[byte[hit]] ^= mask[hit]
        need -= step * hit
        left = need != 0
        if not left.all():
            at, at_x, need = at[left], at_x[left], need[left]
            step, drop = step[left], drop[left]


def bernoulli_rows(
    gen: np.random.Generator, xs: np.ndarray, sizes: np.ndarray, k: int, bits: int
) -> np.ndarray:
    """Packed rows of ``k`` bits: for user ``u`` a uniform ``sizes[u]``-subset of the values
    other than ``xs[u]`` (``x``'s own bit clear), drawn from ``bits``-fold ANDs of uniform
    rows and corrected round by round (module notes).

    Parameters
    ----------
    gen : numpy.random.Generator
        The source of the draws.
    xs : numpy.ndarray
        The value of each user, in ``0 .. k - 1``.
    sizes : numpy.ndarray
        ``c`` for each user, in ``0 .. k - 1`` (int64).
    k : int
        Number of values, at least 2.
    bits : int
        ``b >= 1``: rows of bits set with probability ``2^-b`` before the correction.

    Returns
    -------
    numpy.ndarray
        ``(n, ceil(k / 8))`` uint8 rows.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._subset_wide import bernoulli_rows
    >>> rows = bernoulli_rows(np.random.default_rng(0), np.array([3, 70]), np.array([5, 4]), 100, 2)
    >>> np.unpackbits(rows, axis=1)[:, :100].sum(axis=1).tolist()
    [5, 4]
    >>> bool(np.unpackbits(rows, axis=1)[0, 3]), bool(np.unpackbits(rows, axis=1)[1, 70])
    (False, False)
    """
    m = xs.size
    width = (k + 7) // 8
    padded = -(-width // 8) * 8
    raw = words(gen, m * bits * padded // 8).reshape(m, bits, padded // 8)
    rows = raw[:, 0, :].copy()
    for row in range(1, bits):
        rows &= raw[:, row, :]
    del raw
    packed = rows.view(np.uint8)
    packed[:, width:] = 0
    if k % 8:
        packed[:, width - 1] &= np.uint8((0xFF << (8 * width - k)) & 0xFF)
    flat = packed.reshape(-1)
    # the bit of value v of user u is bit v % 8 of byte u * padded + v // 8: keep its index
    bit_base = np.arange(m, dtype=np.int64) * (8 * padded)
    bit_x = bit_base + xs
    flat[bit_x >> 3] &= ~_MASKS[xs & 7]
    draw_type = np.int16 if k - 1 <= 1 << 15 else np.int64  # the same law, fewer bits
    need = sizes - popcount_rows(packed)
    correct_sizes(
        flat,
        bit_base,
        xs,
        need,
        lambda size: gen.integers(0, k - 1, size=size, dtype=draw_type),
    )
    return packed[:, :width]
