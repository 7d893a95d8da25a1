"""The simulation path of the Hadamard count-mean sketch: one 64-bit word per user.

With a numpy ``Generator`` (a simulation, which no device replays) :class:`~ldp.mechanisms.HCMS`
may draw its report's law in any order (:mod:`ldp._words`). Every user takes one uniform
64-bit word, cut into independent uniform parts (any fixed split of uniform bits gives
independent uniform parts): a 32-bit part decides the keep-or-flip coin against the exact
threshold of :class:`~ldp._words.WordCoin` (a tie, probability ``2^-32``, is resolved from
more words), and two 16-bit parts give the row and the Hadamard coefficient by
:func:`~ldp._words.below` (for a power-of-two bound ``2^k`` that is the top ``k`` bits of the
part, never rejected; otherwise a rejected part is redrawn from fresh words). Given the
item, the row is uniform on ``0 .. depth - 1``, the coefficient uniform on
``0 .. width - 1`` and the coin ``True`` (keep the sign) with probability exactly
``keep / (keep + flip)``, all independent: the law of the byte protocol's
``randint(depth)``, ``randint(width)`` and ``choose`` of the keep-or-flip law, drawn in
another order. :func:`hadamard_draws` is the map from parts to draws, written for any part
width so that the tests can enumerate every part of a tiny width; :func:`privatize_words`
draws the reports in blocks of :data:`~ldp._words.WORD_CHUNK` users.

Examples
--------
>>> from fractions import Fraction
>>> import numpy as np
>>> from ldp._words import WordCoin
>>> from ldp.mechanisms.sketches.words import hadamard_draws
>>> coin = WordCoin(Fraction(3, 4), bits=4)  # threshold 12: parts 0 .. 11 keep the sign
>>> parts = np.array([0, 11, 12, 15], dtype=np.uint16)
>>> rows, cols, keep, tied, bad_rows, bad_cols = hadamard_draws(coin, parts, parts, parts, 2, 4, 4)
>>> rows.tolist(), cols.tolist(), keep.tolist()
([0, 1, 1, 1], [0, 2, 3, 3], [True, True, False, False])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldp._words import HALF_BITS, WORD_CHUNK, WordCoin, below, draw_below, words
from ldp.mechanisms._hashing import parity_bits

__all__ = ["INDEX_BITS", "hadamard_draws", "privatize_words"]

#: Width of the parts that give the row and the coefficient (both bounds must fit in it).
INDEX_BITS = 16


def _index(part: np.ndarray, bound: int, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """``below(part, bound, bits)``; a power-of-two bound by a shift (the same values,
    ``floor(h 2^k / 2^bits)``, and nothing rejected)."""
    if bound & (bound - 1) == 0:
        shift = bits - (bound.bit_length() - 1)
        index = part >> part.dtype.type(shift) if shift < bits else np.zeros_like(part)
        return index, np.zeros(part.shape, dtype=bool)
    return below(part, bound, bits)


def hadamard_draws(
    coin: WordCoin,
    coin_part: np.ndarray,
    row_part: np.ndarray,
    col_part: np.ndarray,
    depth: int,
    width: int,
    bits: int = INDEX_BITS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, cols, keep, tied, bad_rows, bad_cols)``: the row and the coefficient of
    ``bits``-bit parts by :func:`~ldp._words.below`, the coin of ``coin.bits``-bit parts by
    :meth:`~ldp._words.WordCoin.decide`; ``tied`` marks the coins still to resolve,
    ``bad_rows`` and ``bad_cols`` the parts rejected (to redraw from fresh words)."""
    rows, bad_rows = _index(row_part, depth, bits)
    cols, bad_cols = _index(col_part, width, bits)
    keep, tied = coin.decide(coin_part)
    return rows, cols, keep, tied, bad_rows, bad_cols


def privatize_words(
    gen: np.random.Generator,
    coin: WordCoin,
    depth: int,
    width: int,
    out: np.ndarray,
    buckets: Callable[[slice, np.ndarray], np.ndarray] | None = None,
) -> None:
    """Fill ``out`` (``(n, 3)``) with ``(row, coefficient, bit)`` of every user, one word
    per user (module notes), block by block.

    ``buckets(block, rows)`` gives the buckets ``h_row(item)`` of the users of ``block``;
    the bit is then the kept or flipped Hadamard sign,
    ``parity(coefficient & bucket) xor keep`` (``1`` for ``+1``). Without it ``out[:, 2]``
    is the coin alone (``1``: keep), for the caller to combine with the signs.
    """
    if coin.bits != HALF_BITS or not (depth <= 1 << INDEX_BITS and width <= 1 << INDEX_BITS):
        raise ValueError("the word path needs a 32-bit coin and bounds of at most 2^16")
    n = out.shape[0]
    for start in range(0, n, WORD_CHUNK):
        m = min(WORD_CHUNK, n - start)
        block = slice(start, start + m)
        parts = words(gen, m).view(np.uint32)  # 2 m independent 32-bit parts
        small = parts[m:].view(np.uint16)  # the second m as 2 m 16-bit parts
        rows, cols, keep, tied, bad_rows, bad_cols = hadamard_draws(
            coin, parts[:m], small[:m], small[m:], depth, width
        )
        if tied.any():
            at = np.flatnonzero(tied)
            keep[at] = coin.resolve(gen, at.size)
        if bad_rows.any():
            at = np.flatnonzero(bad_rows)
            rows[at] = draw_below(gen, depth, at.size, INDEX_BITS)
        if bad_cols.any():
            at = np.flatnonzero(bad_cols)
            cols[at] = draw_below(gen, width, at.size, INDEX_BITS)
        out[block, 0] = rows
        out[block, 1] = cols
        if buckets is None:
            out[block, 2] = keep
        else:
            sign = parity_bits(cols & buckets(block, rows).astype(cols.dtype, copy=False))
            out[block, 2] = sign ^ keep
