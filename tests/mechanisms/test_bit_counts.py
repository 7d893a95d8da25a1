"""The unary encodings' column sums of packed bits (2-, 4- then 8-bit counters within 64-bit
words) against a plain unpack-and-sum, over the shapes that take each path: rows not a
multiple of the 255-row lane block, widths not a multiple of a word, rows wider than a
block, strided views, and all-ones blocks (no counter may overflow)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.mechanisms.categorical.unary import bit_counts


@pytest.mark.parametrize("rows", [0, 1, 3, 254, 255, 256, 511, 1000])
@pytest.mark.parametrize("k", [1, 7, 8, 9, 64, 65, 1024, 8 * 8 * 300 + 3])
def test_bit_counts_equal_the_unpacked_sums(rows, k):
    gen = np.random.default_rng(rows * 100_003 + k)
    bits = gen.random((rows, k)) < gen.random()
    if rows % 2:
        bits[:, : k // 2] = True  # full columns: every counter at its largest
    packed = np.packbits(bits, axis=1)
    assert np.array_equal(bit_counts(packed, k), bits.sum(axis=0))


def test_bit_counts_of_views_and_many_rows():
    gen = np.random.default_rng(5)
    bits = gen.random((3000, 200)) < 0.5
    bits[:, :40] = True
    packed = np.packbits(bits, axis=1)
    assert np.array_equal(bit_counts(packed[::2], 200), bits[::2].sum(axis=0))
    wide = np.zeros((600, 40), dtype=np.uint8)
    wide[:, 5:30] = packed[:600]
    view = wide[:, 5:30]  # rows not contiguous
    assert np.array_equal(bit_counts(view, 200), bits[:600].sum(axis=0))
    assert np.array_equal(bit_counts(np.full((70_000, 1), 255, np.uint8), 8), [70_000] * 8)
    whole = gen.random((1020, 128)) < 0.3  # whole words and lane blocks: read in place
    rows = np.packbits(whole, axis=1)
    assert np.array_equal(bit_counts(rows[::2], 128), whole[::2].sum(axis=0))
    assert np.array_equal(bit_counts(rows, 128), whole.sum(axis=0))
    assert np.array_equal(np.packbits(whole, axis=1), rows)  # the input is left as it was


def test_bit_counts_of_whole_word_views_in_any_layout():
    """Whole-word rows read in place whatever their layout: a view at a byte offset that is
    not a word's (its 64-bit words unaligned), reversed rows, strided bytes and a Fortran
    array (copied), each beside the unpacked sums; the input is left as it was."""
    gen = np.random.default_rng(8)
    bits = gen.random((600, 256)) < 0.4
    bits[:, :9] = True
    packed = np.packbits(bits, axis=1)
    expected = bits.sum(axis=0).tolist()
    offset = np.zeros((600, 45), dtype=np.uint8)
    offset[:, 5:37] = packed
    strided = np.zeros((600, 64), dtype=np.uint8)
    strided[:, ::2] = packed
    for view in (offset[:, 5:37], packed[::-1], strided[:, ::2], np.asfortranarray(packed)):
        assert bit_counts(view, 256).tolist() == expected
    assert np.array_equal(offset[:, 5:37], packed)
