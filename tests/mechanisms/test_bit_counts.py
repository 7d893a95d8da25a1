"""The unary encodings' column sums of packed bits (2-, 4- then 8-bit counters within 64-bit
words) against a plain unpack-and-sum, over the shapes that take each path: rows not a
multiple of the 255-row lane block, widths not a multiple of a word, rows wider than a
block, strided views, and all-ones blocks (no counter may overflow)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.mechanisms.categorical import _bit_counts as counting
from ldp.mechanisms.categorical._bit_counts import bit_counts


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


# --------------------------------------------------------------------------- every path
def unpacked_sums(packed: np.ndarray, k: int) -> np.ndarray:
    """The reference: the rows unpacked to one byte per bit and summed (in blocks of rows,
    so that wide inputs stay small in memory)."""
    sums = np.zeros(k, dtype=np.int64)
    for start in range(0, packed.shape[0], 4096):
        sums += np.unpackbits(packed[start : start + 4096], axis=1)[:, :k].sum(
            axis=0, dtype=np.int64
        )
    return sums


def rows_of(kind: str, rows: int, width: int, seed: int) -> np.ndarray:
    """``rows`` packed rows of ``width`` bytes: random, all ones or all zeros."""
    if kind == "ones":
        return np.full((rows, width), 0xFF, dtype=np.uint8)
    if kind == "zeros":
        return np.zeros((rows, width), dtype=np.uint8)
    return np.random.default_rng(seed).integers(0, 256, (rows, width), dtype=np.uint8)


def clear_pad(packed: np.ndarray, k: int) -> np.ndarray:
    """``packed`` with the bits past ``k`` in the last byte zero, as packbits leaves them."""
    if k % 8:
        packed[:, -1] &= np.uint8((0xFF << (8 - k % 8)) & 0xFF)
    return packed


@pytest.mark.parametrize("rows", [0, 1, 254, 255, 256, 510])
@pytest.mark.parametrize("width", [*range(1, 18), 128, 8192])
def test_bit_counts_of_every_width_equal_the_unpacked_sums(rows, width):
    """Random, all-ones and all-zeros rows at each width, with ``k`` the whole width and ``k``
    three bits short of it (zero pad bits), against the unpacked sums."""
    for kind in ("random", "ones", "zeros"):
        packed = rows_of(kind, rows, width, seed=rows * 1000 + width)
        for k in (8 * width, 8 * width - 3):
            clear_pad(packed, k)
            assert bit_counts(packed, k).tolist() == unpacked_sums(packed, k).tolist()


@pytest.mark.parametrize("width", [1, 2, 3, 8, 13, 16, 17, 128])
@pytest.mark.parametrize("kind", ["random", "ones"])
def test_bit_counts_of_many_rows_equal_the_unpacked_sums(width, kind):
    """100 007 rows (many slices of rows and a short last one), against the unpacked sums."""
    packed = clear_pad(rows_of(kind, 100_007, width, seed=width), 8 * width - 5)
    assert (
        bit_counts(packed, 8 * width - 5).tolist() == unpacked_sums(packed, 8 * width - 5).tolist()
    )


@pytest.mark.parametrize("width", [1, 8, 13, 128, 8192])
def test_bit_counts_of_views_equal_the_unpacked_sums(width):
    """Views that are not C-contiguous: a column slice of wider rows (at an odd byte offset),
    every third row, reversed rows and a Fortran copy."""
    packed = rows_of("random", 1000, width, seed=width)
    packed[::7] = 0xFF
    wider = np.zeros((1000, width + 11), dtype=np.uint8)
    wider[:, 3 : 3 + width] = packed
    for view in (wider[:, 3 : 3 + width], packed[::3], packed[::-1], np.asfortranarray(packed)):
        expected = unpacked_sums(np.ascontiguousarray(view), 8 * width)
        assert bit_counts(view, 8 * width).tolist() == expected.tolist()
    assert np.array_equal(wider[:, 3 : 3 + width], packed)  # the input is left as it was


@pytest.mark.parametrize("width", [1, 8, 13, 256, 264, 520, 1032, 8192, 16384])
@pytest.mark.parametrize("slices", [16, 17, 33])
@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_bit_counts_of_all_ones_at_slice_boundaries(width, slices, offset):
    """All-ones rows, ``slices`` whole slices of rows and one row less or more: every counter
    at its largest in every plane and every widening step, with slices of 255 rows and more
    (up to 32 words a row) and of 128, 64, 32 and 8 rows (wider rows, 8 in column chunks)."""
    per_row = -(-width // 8)
    slice_rows, _ = counting._slice_shape(1 << 30, per_row)  # the slices of many rows
    rows = slices * slice_rows + offset
    if offset == 0:
        assert counting._slice_shape(rows, per_row)[0] == slice_rows
    packed = rows_of("ones", rows, width, seed=0)
    counts = bit_counts(packed, 8 * width).tolist()
    assert counts == unpacked_sums(packed, 8 * width).tolist() == [rows] * (8 * width)


@pytest.mark.parametrize("width", [1, 3, 8, 40, 1000])
@pytest.mark.parametrize("slices", [*range(1, 18), 31, 32, 33, 64, 65])
@pytest.mark.parametrize("kind", ["random", "ones"])
def test_bit_counts_carry_through_small_slices(monkeypatch, width, slices, kind):
    """With slices of a few rows (the constants shrunk), every pattern of carries waiting at
    the end (1 to 65 slices, the last one short or whole), against the unpacked sums."""
    monkeypatch.setattr(counting, "_SLICE_WORDS", 255 if width < 8 else 8 * -(-width // 8))
    monkeypatch.setattr(counting, "_SMALL_WORDS", 0)
    monkeypatch.setattr(counting, "_MIN_SLICES", 1)
    slice_rows, _ = counting._slice_shape(1 << 20, -(-width // 8))
    for rows in (slices * slice_rows, slices * slice_rows - 3):
        packed = rows_of(kind, rows, width, seed=slices * 31 + width)
        expected = unpacked_sums(packed, 8 * width)
        assert bit_counts(packed, 8 * width).tolist() == expected.tolist()
        if width > 1:  # the rows one byte short: a view of partial words, copied
            narrow = packed[:, : width - 1]
            assert bit_counts(narrow, 8 * width - 8).tolist() == expected[:-8].tolist()


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 15, 100])
def test_bit_counts_of_contiguous_rows_of_partial_words(width):
    """Contiguous rows of partial words, read a few rows at a time as whole words: row counts
    around the rows that make whole words (one short, whole, one over, and many with a
    remainder), a contiguous range of rows not at the start, against the unpacked sums."""
    group = 8 // np.gcd(width, 8)
    for rows in (group - 1, group, group + 1, 1000 * group + group - 1):
        packed = rows_of("random", rows + 3, width, seed=rows * 7 + width)
        packed[::5] = 0xFF
        for view in (packed[:rows], packed[3:]):
            for k in (8 * width, 8 * width - 3):
                assert view.flags.c_contiguous
                expected = unpacked_sums(view, k)
                assert bit_counts(clear_pad(view, k), k).tolist() == expected.tolist()
