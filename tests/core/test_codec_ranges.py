"""The range check of report codecs: every entry outside its field's range is refused, on
the whole-array path (contiguous integer reports against tiled bounds) and the per-column
path alike, compared with an entry-by-entry check."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.core import Field, ReportCodec
from ldp.core.codec import _TILE_ROWS, _any_outside


def _brute(arr, lows, highs, need):
    """Entry by entry, in Python integers."""
    return any(
        not lows[j] <= int(arr[i, j]) <= highs[j]
        for i in range(arr.shape[0])
        for j in range(arr.shape[1])
        if need[j]
    )


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "int64"])
@pytest.mark.parametrize("rows", [1, 7, _TILE_ROWS, _TILE_ROWS + 3, 3 * _TILE_ROWS - 1])
def test_an_entry_outside_is_found_wherever_it_is(dtype, rows):
    """Three fields with ranges inside the dtype; one entry set just past a bound, at the
    first row, a tiled block's edge, the tail, or nowhere."""
    gen = np.random.default_rng(rows)
    info = np.iinfo(dtype)
    lows = np.array([0, max(info.min, -3), 2], dtype=np.int64)
    highs = np.array([1, 5, min(info.max, 100)], dtype=np.int64)
    need = np.ones(3, dtype=bool)
    base = gen.integers(lows, highs + 1, size=(rows, 3)).astype(dtype)
    assert not _any_outside(base, lows, highs, need)
    for row in {0, min(rows - 1, _TILE_ROWS - 1), min(rows - 1, _TILE_ROWS), rows - 1}:
        for column in range(3):
            for value in (int(lows[column]) - 1, int(highs[column]) + 1):
                if not info.min <= value <= info.max:
                    continue
                arr = base.copy()
                arr[row, column] = value
                assert _any_outside(arr, lows, highs, need) == _brute(arr, lows, highs, need)
                assert _any_outside(arr, lows, highs, need)
                assert _any_outside(arr, lows, highs, np.arange(3) != column) is False


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "int64"])
@pytest.mark.parametrize("rows", [1, _TILE_ROWS, 2 * _TILE_ROWS + 3])
def test_ranges_from_zero_are_checked_as_unsigned(dtype, rows):
    """Every checked range starting at 0 (the path that reads the entries as unsigned):
    -1, the dtype's minimum and high + 1 are found in every column and row position, and
    an unchecked column's negative or large entries are not, each as the entry-by-entry
    check says."""
    gen = np.random.default_rng(rows)
    info = np.iinfo(dtype)
    lows = np.zeros(3, dtype=np.int64)
    highs = np.array([1, 5, min(info.max, 100)], dtype=np.int64)
    need = np.ones(3, dtype=bool)
    base = gen.integers(0, highs + 1, size=(rows, 3)).astype(dtype)
    assert not _any_outside(base, lows, highs, need)
    for row in {0, min(rows - 1, _TILE_ROWS), rows - 1}:
        for column in range(3):
            for value in (-1, int(info.min), int(highs[column]) + 1, int(info.max)):
                if not info.min <= value <= info.max:
                    continue
                arr = base.copy()
                arr[row, column] = value
                assert _any_outside(arr, lows, highs, need) == _brute(arr, lows, highs, need)
                assert _any_outside(arr, lows, highs, need) == (value != 0)
                assert _any_outside(arr, lows, highs, np.arange(3) != column) is False


def test_bounds_past_the_dtype_and_odd_layouts():
    """Bounds wider than the dtype never flag; a range beyond the dtype's values flags
    every entry; a strided (non-contiguous) array takes the per-column path; each agrees
    with the entry-by-entry check."""
    gen = np.random.default_rng(5)
    arr = gen.integers(-128, 128, size=(3 * _TILE_ROWS + 5, 4)).astype(np.int8)
    need = np.ones(4, dtype=bool)
    wide = np.array([-1000, -128, -500, -129]), np.array([1000, 127, 500, 200])
    assert not _any_outside(arr, *wide, need)
    beyond = np.array([200, -128, -128, -128]), np.array([300, 127, 127, 127])
    assert _any_outside(arr, *beyond, need)
    lows, highs = np.array([-100, -128, -128, -50]), np.array([127, 127, 100, 127])
    for layout in (arr, arr[::2], arr[:, ::2], np.asfortranarray(arr)):
        sub_need = need[: layout.shape[1]]
        sub = lows[: layout.shape[1]], highs[: layout.shape[1]]
        assert _any_outside(layout, *sub, sub_need) == _brute(layout, *sub, sub_need)


def test_from_rows_names_the_first_bad_row():
    """The codec refuses an out-of-range row of a large contiguous array and names it."""
    codec = ReportCodec(
        (Field("row", "int", 0, 15), Field("column", "int", 0, 1023), Field("bit", "int", 0, 1)),
        "int16",
        vector=True,
    )
    reports = np.zeros((5 * _TILE_ROWS + 11, 3), dtype=np.int16)
    codec.from_rows(reports)
    for row, column, value in ((0, 0, 16), (2 * _TILE_ROWS, 1, 1024), (5 * _TILE_ROWS + 10, 2, -1)):
        bad = reports.copy()
        bad[row, column] = value
        with pytest.raises(ValueError, match=f"reports row {row}:"):
            codec.from_rows(bad)
