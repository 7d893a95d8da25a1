"""The wire form of a mechanism's reports: :class:`Field` and :class:`ReportCodec` (rows of
integer or float fields, and back), refusing what the mechanism cannot output."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["Field", "ReportCodec", "default_where", "float_codec", "index_codec"]


# ----------------------------------------------------------------------------- reports
def default_where(index: int) -> str:
    return f"reports row {index}"


@dataclass(frozen=True)
class Field:
    """One field of a report: an integer or a float, with its inclusive range.

    ``step``: float fields released on a grid are multiples of ``step`` (a power of two).

    Parameters
    ----------
    name : str
        Column name in report files.
    kind : {"int", "float"}
        Integer or float field.
    low, high : float
        Inclusive range of the field.
    step : float, optional
        Grid of a float field (a power of two); ``None`` for any float in the range.

    Examples
    --------
    >>> from ldp.mechanisms import GRR, Field
    >>> field = GRR(4, 1.0).codec.fields[0]
    >>> field == Field("report", "int", 0, 3)
    True
    >>> field.to_dict()
    {'name': 'report', 'type': 'int', 'min': 0, 'max': 3}
    """

    name: str
    kind: str
    low: float
    high: float
    step: float | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "type": self.kind}
        if self.kind == "int":
            out["min"], out["max"] = int(self.low), int(self.high)
        else:
            out["min"], out["max"] = float(self.low), float(self.high)
            if self.step is not None:
                out["step"] = float(self.step)
        return out


@dataclass(frozen=True)
class ReportCodec:
    """The wire form of a mechanism's reports: rows of fields, and back.

    Parameters
    ----------
    fields : tuple of Field
        All integer or all float.
    native_dtype : str
        The numpy dtype of the mechanism's own reports.
    vector : bool
        Native reports are ``(n, width)`` arrays (else ``(n,)``, one field).
    check : callable, optional
        Structural validation of native reports beyond each field's range (for example
        "exactly ``d`` bits set"): ``check(reports, where)`` raises ``ValueError`` naming the
        row through ``where(index)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> grr = GRR(5, 1.0)
    >>> codec = grr.codec
    >>> codec.width, codec.vector, codec.is_float, codec.names
    (1, False, False, ['report'])
    >>> reports = grr.privatize(np.arange(5), rng=0)
    >>> bool(np.array_equal(codec.from_rows(codec.to_rows(reports)), reports))  # round trip
    True
    >>> codec.from_rows([7])
    Traceback (most recent call last):
    ...
    ValueError: reports row 0: the report has report outside 0..4 (not a report of this mechanism)
    """

    fields: tuple[Field, ...]
    native_dtype: str
    vector: bool
    check: Callable[[np.ndarray, Callable[[int], str]], None] | None = field(
        default=None, compare=False, repr=False
    )

    @property
    def width(self) -> int:
        """Number of fields."""
        return len(self.fields)

    @property
    def is_float(self) -> bool:
        """Whether the fields are floats (else integers)."""
        return self.fields[0].kind == "float"

    @cached_property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The fields' lows and highs (read-only arrays, built once per codec)."""
        lows = np.array([f.low for f in self.fields])
        highs = np.array([f.high for f in self.fields])
        lows.flags.writeable = highs.flags.writeable = False
        return lows, highs

    @property
    def names(self) -> list[str]:
        """The field names (column names of report files)."""
        return [f.name for f in self.fields]

    def to_dict(self) -> dict[str, object]:
        return {"fields": [f.to_dict() for f in self.fields]}

    def to_rows(self, reports: ArrayLike) -> np.ndarray:
        """Native reports as an ``(n, width)`` array (int64, or float64 for float fields)."""
        arr = np.asarray(reports)
        rows = arr.reshape(arr.shape[0], self.width) if arr.ndim else arr.reshape(1, 1)
        return rows.astype(np.float64 if self.is_float else np.int64)

    def from_rows(
        self, rows: ArrayLike, *, where: Callable[[int], str] = default_where
    ) -> np.ndarray:
        """Rows of fields as native reports, refusing anything the mechanism cannot output.

        Integer fields must be whole numbers in their range (booleans are refused); float
        fields finite numbers in their range (on their grid, if any); the mechanism's
        structural check runs last.
        Errors name the first bad row through ``where(index)`` and never echo a value.
        """
        try:
            arr = np.asarray(rows)
        except (TypeError, ValueError):
            raise TypeError("reports must be a numeric array of report fields") from None
        if arr.ndim == 1 and self.width == 1:
            arr = arr[:, None]
        if arr.ndim != 2 or arr.shape[1] != self.width:
            raise ValueError(
                f"reports must have {self.width} field(s) per row "
                f"({', '.join(self.names[:4])}{', ...' if self.width > 4 else ''}), "
                f"got shape {arr.shape}"
            )
        if arr.dtype.kind not in "iuf":  # booleans too: no mechanism outputs True or False
            raise TypeError(f"reports must be numbers, got dtype {arr.dtype}")
        lows, highs = self.bounds
        if self.is_float or arr.dtype.kind == "f":
            values = arr.astype(np.float64, copy=False)
            for chunk in _row_chunks(values):
                finite = np.isfinite(values[chunk])
                self._raise_first(~finite, where, "is not a finite number", chunk)
                if not self.is_float:
                    block = values[chunk]
                    self._raise_first(
                        block != np.floor(block), where, "is not a whole number", chunk
                    )
        if arr.size and not _dtype_within(arr.dtype, lows, highs):
            # only the columns whose dtype can hold a value outside their range are read
            need = ~_dtype_within_each(arr.dtype, lows, highs)
            if _any_outside(arr, lows, highs, need):
                for chunk in _row_chunks(arr):
                    block = arr[chunk]
                    bad = (block < lows) | (block > highs)
                    if np.any(bad):
                        field_index = int(np.argmax(bad.any(axis=0)))
                        f = self.fields[field_index]
                        span = (
                            f"[{f.low:g}, {f.high:g}]"
                            if self.is_float
                            else f"{int(f.low)}..{int(f.high)}"
                        )
                        self._raise_first(bad, where, f"has {f.name} outside {span}", chunk)
        if self.is_float:
            for j, f in enumerate(self.fields):
                if f.step is not None:
                    scaled = arr[:, j] / f.step
                    self._raise_first(
                        scaled != np.floor(scaled), where, f"has {f.name} off its grid"
                    )
        native = arr.astype(self.native_dtype, copy=False)
        if not self.vector:
            native = native[:, 0]
        if self.check is not None and native.shape[0]:
            self.check(native, where)
        return native

    @staticmethod
    def _raise_first(
        bad: np.ndarray, where: Callable[[int], str], what: str, rows: slice | None = None
    ) -> None:
        bad = np.asarray(bad)
        if bad.ndim > 1:
            bad = np.asarray(bad.any(axis=tuple(range(1, bad.ndim))))
        if np.any(bad):
            index = int(np.argmax(bad)) + (rows.start if rows is not None else 0)
            raise ValueError(f"{where(index)}: the report {what} (not a report of this mechanism)")


#: Rows of a report array compared with the tiled bounds at once, and such runs per step
#: (the comparisons' temporaries stay near a megabyte).
_TILE_ROWS = 4096
_TILE_BLOCKS = 64


def _dtype_within(dtype: np.dtype, lows: np.ndarray, highs: np.ndarray) -> bool:
    """Whether every value of the integer ``dtype`` lies in every field's range (then the
    range check cannot fail: e.g. ``uint8`` bytes of a bit-packed report)."""
    if dtype.kind not in "iu":
        return False
    info = np.iinfo(dtype)
    return bool(info.min >= lows.max() and info.max <= highs.min())


def _dtype_within_each(dtype: np.dtype, lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """For every field, whether every value of ``dtype`` lies in its range (always ``False``
    for a float dtype)."""
    if dtype.kind not in "iu":
        return np.zeros(lows.shape, dtype=bool)
    info = np.iinfo(dtype)
    return (lows <= info.min) & (highs >= info.max)


def _any_outside(arr: np.ndarray, lows: np.ndarray, highs: np.ndarray, need: np.ndarray) -> bool:
    """Whether an entry of the non-empty 2-D ``arr`` in a column of ``need`` lies outside
    its range. A C-contiguous integer array with integer bounds is compared whole, in
    blocks of ``_TILE_ROWS`` rows against the bounds tiled to the block (numpy compares a
    long contiguous run fast, and reduces a narrow array along its rows slowly; bounds past
    the dtype's own are cut to it, which changes no comparison); otherwise each column's
    extremes are compared."""
    if arr.dtype.kind in "iu" and lows.dtype.kind in "iu" and highs.dtype.kind in "iu":
        info = np.iinfo(arr.dtype)
        # (a range beyond the dtype's values takes the extremes: no cut bound can say so)
        if arr.flags.c_contiguous and lows.max() <= info.max and highs.min() >= info.min:
            low = np.where(need, np.maximum(lows, info.min), info.min).astype(arr.dtype)
            high = np.where(need, np.minimum(highs, info.max), info.max).astype(arr.dtype)
            if not np.any(low[need]) and np.all(high[need] >= 0):
                # every range checked starts at 0: an entry lies in [0, high] exactly when,
                # read as unsigned, it is at most high (a negative one reads as 2^b + v,
                # above every high <= the signed maximum); one comparison instead of two,
                # the unchecked columns compared with the unsigned maximum
                unsigned = np.dtype(f"u{arr.dtype.itemsize}")
                top = np.where(need, high.astype(unsigned), np.iinfo(unsigned).max)
                return _any_outside_tiled(arr.view(unsigned), None, top.astype(unsigned))
            return _any_outside_tiled(arr, low, high)
    mins, maxs = _column_extremes(arr[:, need] if not need.all() else arr)
    return bool(np.any(mins < lows[need]) or np.any(maxs > highs[need]))


def _any_outside_tiled(arr: np.ndarray, low: np.ndarray | None, high: np.ndarray) -> bool:
    """Whether an entry of the C-contiguous 2-D ``arr`` lies below its column's ``low``
    (none when ``low`` is None) or above its ``high``: whole blocks of ``_TILE_ROWS`` rows
    compared against the bounds tiled to the block, then the remaining rows."""
    bulk = arr.shape[0] - arr.shape[0] % _TILE_ROWS
    blocks = arr[:bulk].reshape(-1, _TILE_ROWS * arr.shape[1])
    high_tiled = np.tile(high, _TILE_ROWS)
    low_tiled = None if low is None else np.tile(low, _TILE_ROWS)
    for start in range(0, blocks.shape[0], _TILE_BLOCKS):
        block = blocks[start : start + _TILE_BLOCKS]
        if (low_tiled is not None and np.any(block < low_tiled)) or np.any(block > high_tiled):
            return True
    tail = arr[bulk:]
    return bool((low is not None and np.any(tail < low)) or np.any(tail > high))


def _column_extremes(arr: np.ndarray, step: int = 1 << 14) -> tuple[np.ndarray, np.ndarray]:
    """The least and the greatest entry of every column of a non-empty 2-D array: column by
    column when there are a few (numpy reduces a narrow array along its rows slowly), else
    along the rows; a few columns in blocks of ``step`` rows, so that each block is read
    from memory once and its columns from the cache."""
    if arr.shape[1] > 8:
        return arr.min(axis=0), arr.max(axis=0)
    lows, highs = [], []
    for start in range(0, arr.shape[0], step):
        block = arr[start : start + step]
        columns = [block[:, j] for j in range(arr.shape[1])]
        lows.append([c.min() for c in columns])
        highs.append([c.max() for c in columns])
    return np.min(lows, axis=0), np.max(highs, axis=0)


def _row_chunks(arr: np.ndarray, elements: int = 1 << 22) -> Iterator[slice]:
    """Slices of rows holding at most about ``elements`` entries."""
    step = max(1, elements // max(1, arr.shape[1] if arr.ndim > 1 else 1))
    for start in range(0, arr.shape[0], step):
        yield slice(start, min(start + step, arr.shape[0]))


def index_codec(size: int, dtype: str = "int64", name: str = "report") -> ReportCodec:
    """One integer field in ``0 .. size - 1``."""
    return ReportCodec((Field(name, "int", 0, size - 1),), dtype, vector=False)


def float_codec(low: float, high: float, step: float | None, name: str = "value") -> ReportCodec:
    """One float field in ``[low, high]`` (on a grid of ``step``)."""
    return ReportCodec((Field(name, "float", low, high, step),), "float64", vector=False)
