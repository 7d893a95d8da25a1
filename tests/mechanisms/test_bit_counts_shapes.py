"""Column sums of packed rows (the one counter every packed report uses: unary encodings,
subset selection, sketches) equal the sums of the unpacked bits at further shapes."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.mechanisms.categorical._bit_counts import bit_counts


@pytest.mark.parametrize(
    ("k", "rows"),
    [(1, 1), (3, 5), (8, 64), (9, 0), (63, 65), (64, 1000), (70, 12_345), (200, 77), (1024, 3000)],
)
def test_column_counts_equal_the_sums_of_the_unpacked_bits(k, rows):
    """Every shape the blocks meet: rows not a multiple of the block, widths not a multiple
    of a word, no rows; the counts are compared with the unpacked bits summed."""
    gen = np.random.default_rng(k * 7 + rows)
    bits = gen.random((rows, k)) < gen.random(k)  # a different density per column
    packed = np.packbits(bits, axis=1)
    expected = bits.sum(axis=0, dtype=np.int64)
    counts = bit_counts(packed, k)
    assert counts.dtype == np.int64
    assert counts.tolist() == expected.tolist()


def test_column_counts_carry_through_every_plane():
    """All-ones rows: every column counts every row, so each count's every bit is set by
    carries (2^17 - 1 rows: counts of 17 ones, with chunks and blocks of several sizes)."""
    rows = (1 << 17) - 1
    packed = np.full((rows, 8), 0xFF, dtype=np.uint8)
    assert bit_counts(packed, 64).tolist() == [rows] * 64
    assert bit_counts(packed[:, :2], 13).tolist() == [rows] * 13
