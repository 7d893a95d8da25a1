"""Uniform subsets of many slots as packed rows: the simulation path of subset selection
for ``k > 64`` (a numpy ``Generator``; no byte protocol to follow, only its law), and the
correction of the byte protocol, :func:`correct_sizes`.

The ``k - 1`` values other than ``x`` get a uniform ``c``-subset (``c = d - 1`` when ``x``
is included, else ``d``) by *Bernoulli and correct*, the byte protocol's rule, with the
Generator's own draws (:func:`bernoulli_rows`):

* the AND of ``b`` uniform rows (64-bit words) sets every bit with probability ``2^-b``
  independently; ``x``'s bit (and the pad bits) cleared, the ``s`` set bits of the others
  are a uniform ``s``-subset given ``s``;
* a user with ``s < c`` adds ``c - s`` values by rejection (:func:`add_by_rejection`): each
  candidate ``t`` is uniform on ``0 .. k - 1`` (``Generator.integers``, exact) and is added
  when its bit is clear and ``t != x`` (``x``'s bit is set for the correction, so one test
  rejects both), else discarded. Each added value is uniform among the values still
  outside, so the ``c - s`` added values are a uniform ``(c - s)``-subset of the ``k - 1 -
  s`` others outside, and the result a uniform ``c``-subset: its probability,
  ``C(c, s) / (C(k - 1, s) C(k - 1 - s, c - s)) = 1 / C(k - 1, c)``, is the same for every
  ``c``-subset;
* a user with ``s > c`` drops ``s - c`` members: dropping uniform members of a uniform
  ``s``-subset is adding uniform values to its complement among the others (a uniform
  ``(k - 1 - s)``-subset), so its row is inverted (``x``'s bit, clear, becomes set), the
  same additions bring the complement to ``k - 1 - c`` values, and the row is inverted back.

The candidates are drawn for several rounds at once, a block of ``r`` per pending user, and
used in order: a user's candidates are the independent uniform sequence of the rejection
above, and those drawn after its size is reached are discarded unused, so the block size
changes the draws a seed gives, never the law.

The byte protocol's correction (:func:`correct_sizes`) draws one slot on ``0 .. k - 2`` per
pending user per round instead and reads it as value ``t + (t >= x)``: the same law from
the device's bytes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldp._words import popcount, words

__all__ = ["add_by_rejection", "bernoulli_rows", "correct_sizes", "popcount_rows"]

#: The mask of bit ``v % 8`` of a packed byte (bit ``v`` is bit ``7 - v % 8``).
_MASKS = np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=np.uint8)
#: Most candidates drawn per pending user at once (:func:`add_by_rejection`).
_MAX_BLOCK = 16


def popcount_rows(packed: np.ndarray) -> np.ndarray:
    """Set bits of each packed uint8 row (int64; uint8 for rows of one word): 64 bits at a
    time when the rows are whole 64-bit words (their counts added column by column: a
    reduction along a short row costs more than the counting)."""
    width = packed.shape[1]
    if width % 8 == 0 and width and packed.flags.c_contiguous:
        counts = popcount(packed.view(np.uint64))
        if counts.shape[1] == 1:  # one word a row: at most 64, as uint8
            return counts[:, 0]
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
    as the byte protocol draws it (module notes; the Generator path corrects by
    :func:`add_by_rejection` instead).

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


def add_by_rejection(
    packed: np.ndarray, users: np.ndarray, left: np.ndarray, gen: np.random.Generator, k: int
) -> None:
    """Add ``left[j]`` values to row ``users[j]`` of ``packed`` in place, each a uniform
    value among those whose bit is clear (module notes: candidates uniform on
    ``0 .. k - 1`` by ``gen``, a candidate whose bit is set discarded).

    Parameters
    ----------
    packed : numpy.ndarray
        ``(n, width)`` uint8 rows, C-contiguous, value ``v`` at bit ``7 - v % 8`` of byte
        ``v // 8``, ``width >= ceil(k / 8)``.
    users : numpy.ndarray
        Distinct rows to fill (int64).
    left : numpy.ndarray
        How many values each of them gets, each at most its count of clear bits below
        ``k`` (modified).
    gen : numpy.random.Generator
        The source of the candidates.
    k : int
        Candidates are uniform on ``0 .. k - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._subset_wide import add_by_rejection
    >>> rows = np.zeros((2, 2), dtype=np.uint8)
    >>> rows[1, 0] = 0b1000_0000   # value 0 of row 1 already set
    >>> add_by_rejection(rows, np.array([0, 1]), np.array([3, 15]), np.random.default_rng(0), 16)
    >>> np.unpackbits(rows, axis=1).sum(axis=1).tolist()
    [3, 16]
    """
    flat = packed.reshape(-1)
    left = left.astype(np.int64 if k > 1 << 15 else np.int16)
    base = users.astype(np.int64) * packed.shape[1]
    draw_type = np.int16 if k <= 1 << 15 else np.int64
    while base.size:
        # a block of r candidates per user: r <= min(left) needs no test of the size
        fewest = int(left.min())
        r = min(_MAX_BLOCK, max(2, fewest))
        tested = r > fewest
        candidates = gen.integers(0, k, size=(r, base.size), dtype=draw_type)
        at = (candidates >> 3).astype(np.int64)
        at += base
        masks = np.take(_MASKS, candidates & 7)
        old = np.empty(base.size, dtype=np.uint8)
        new = np.empty_like(old)
        added = np.empty(base.size, dtype=bool)
        for j in range(r):
            np.take(flat, at[j], out=old)
            mask = masks[j] * (left > 0) if tested else masks[j]
            np.bitwise_or(old, mask, out=new)
            flat[at[j]] = new
            np.not_equal(new, old, out=added)
            left -= added
        pending = left > 0
        if not pending.all():
            base, left = base[pending], left[pending]


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
    # the bit of value v of user u is bit v % 8 of byte u * padded + v // 8
    bit_base = np.arange(m, dtype=np.int64) * (8 * padded)
    x_at, x_mask = (bit_base + xs) >> 3, _MASKS[xs & 7]
    flat[x_at] &= ~x_mask
    need = sizes - popcount_rows(packed)
    inverted = np.flatnonzero(need < 0)  # drops: additions to the complement (module notes)
    packed[inverted] ^= np.uint8(0xFF)
    flat[x_at] |= x_mask  # x is never a value to add
    users = np.flatnonzero(need)
    add_by_rejection(packed, users, np.abs(need[users]), gen, k)
    packed[inverted] ^= np.uint8(0xFF)
    flat[x_at] &= ~x_mask
    return packed[:, :width]
