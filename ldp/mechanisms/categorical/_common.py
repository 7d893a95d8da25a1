"""Helpers shared by the categorical frequency oracles: size checks, two-row channels and
the packed bit reports of unary encodings.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ldp._validation import compact
from ldp.mechanisms.limits import MAX_VECTOR_CATEGORIES, check_size

#: Largest number of matrix entries ``to_channel`` builds.
MAX_CHANNEL_ENTRIES = 1 << 24


def check_channel_size(log2_entries: float, what: str) -> None:
    """Refuse a channel of ``2^log2_entries`` entries before any of its sizes is computed in
    full (the output alphabet of unary encoding or subset selection is astronomically large:
    ``2^k`` or ``C(k, d)``)."""
    if log2_entries > math.log2(MAX_CHANNEL_ENTRIES):
        size = f"about 2^{math.floor(log2_entries)}" if log2_entries >= 20 else "more"
        raise ValueError(
            f"{what}.to_channel: the channel would have {size} entries; the limit is "
            f"MAX_CHANNEL_ENTRIES = 2^{MAX_CHANNEL_ENTRIES.bit_length() - 1} "
            "(ldp.mechanisms.categorical): use a smaller k"
        )


def check_vector_size(k: int, what: str) -> None:
    """Bit-vector reports (unary encoding, subset selection) hold ``k`` bits each."""
    check_size(
        k,
        MAX_VECTOR_CATEGORIES,
        "MAX_VECTOR_CATEGORIES",
        what,
        f"a report of k = {compact(k)} bits",
    )


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


def scatter_rows(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Rows of ``mask.shape`` with ``values`` (row-major) written where ``mask`` is True."""
    full = np.zeros(mask.shape, dtype=np.int64)
    full[mask] = values.ravel()
    return full
