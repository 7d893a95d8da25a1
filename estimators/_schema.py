"""Columns, their public domains, and the checks that turn raw table values into mechanism input.

A *schema* is the list of :class:`Column` objects an estimator privatizes: a categorical
column with its public categories, or a numeric column with its public bounds. The domain of a
column is public metadata (it is in every report's decoder), so it has to come from somewhere
that is not the private rows:

* ``"declared"``: given by the user (``categories=`` / ``bounds=``); fitting then reads only
  the table's column names and dtypes, never its values;
* ``"dtype"``: the categories of a pandas ``Categorical`` column or ``{False, True}`` for a
  boolean column (schema, not data);
* ``"data"``: read from the values in ``fit``. This is for simulation and prototyping only:
  the set of categories that occur, or the range of a numeric column, is itself a function of
  the private rows and is **not** covered by the reported epsilon. Learned bounds are rounded
  outward to a coarse grid so that the exact extreme values are not kept, but the rounding
  still depends on them.

Error messages name the column and the public domain, never a raw value.
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.utils.validation import validate_data

CATEGORICAL = "categorical"
NUMERIC = "numeric"


@dataclass(frozen=True, eq=False)
class Column:
    """One privatized column: its name, kind and public domain.

    Attributes
    ----------
    name : str
    kind : {"categorical", "numeric"}
    categories : ndarray or None
        The public categories of a categorical column, in code order.
    bounds : (float, float) or None
        The public range of a numeric column.
    source : {"declared", "dtype", "data"}
        Where the domain came from (see the module docstring).
    """

    name: str
    kind: str
    categories: np.ndarray | None = None
    bounds: tuple[float, float] | None = None
    source: str = "declared"

    @property
    def k(self) -> int:
        """Number of categories (1 for a numeric column)."""
        return 1 if self.categories is None else len(self.categories)

    @property
    def interval(self) -> tuple[float, float]:
        """The bounds of a numeric column (``ValueError`` for a categorical one)."""
        if self.bounds is None:
            raise ValueError(f"column {self.name!r} is categorical: it has no bounds")
        return self.bounds

    @property
    def informative(self) -> bool:
        """False for a categorical column with a single category (nothing to privatize)."""
        return self.kind == NUMERIC or self.k >= 2

    def same_domain(self, other: Column) -> bool:
        if (self.name, self.kind, self.bounds) != (other.name, other.kind, other.bounds):
            return False
        if self.categories is None or other.categories is None:
            return self.categories is None and other.categories is None
        return len(self.categories) == len(other.categories) and bool(
            pd.Index(self.categories).equals(pd.Index(other.categories))
        )

    def describe(self) -> str:
        if self.kind == NUMERIC:
            return f"numeric in [{self.interval[0]:g}, {self.interval[1]:g}]"
        return f"categorical with {self.k} categories"


# ----------------------------------------------------------------------------- reading tables
def check_input_features(estimator, input_features: object) -> np.ndarray | None:
    """``input_features`` of ``get_feature_names_out``, checked against the fitted names.

    As scikit-learn's convention asks: given names must equal ``feature_names_in_`` (when
    the estimator saw a DataFrame) and number ``n_features_in_``; ``None`` gives
    ``feature_names_in_``, or ``None`` when the estimator saw no names.
    """
    known = getattr(estimator, "feature_names_in_", None)
    if input_features is None:
        return known
    names = np.asarray(input_features, dtype=object)
    if known is not None and not np.array_equal(known, names):
        raise ValueError("input_features is not equal to feature_names_in_")
    expected = getattr(estimator, "n_features_in_", None)
    if expected is not None and len(names) != expected:
        raise ValueError(
            f"input_features should have length equal to number of features ({expected}), "
            f"got {len(names)}"
        )
    return names


def is_frame(X: object) -> bool:
    return isinstance(X, pd.DataFrame)


#: What an object column of a NumPy table may hold: a category (string, bytes, bool) or a
#: number. Anything else (a dict, a list, an arbitrary object) is refused by type, and the
#: message never quotes the value.
_SCALAR_TYPES = (str, bytes, numbers.Number, np.generic)

#: ``pandas.api.types.infer_dtype`` labels of object columns that hold only numbers: read as
#: numbers, as scikit-learn does with object arrays of numbers.
_NUMERIC_INFERRED = ("floating", "integer", "mixed-integer-float", "decimal")


def _missing(values: np.ndarray) -> bool:
    return bool(pd.isna(values).any())


def _empty_error(what: str, shape: tuple[int, ...]) -> ValueError:
    return ValueError(
        f"Found array with 0 {what}(s) (shape={tuple(shape)}) while a minimum of 1 is required."
    )


class Table:
    """The columns of ``X`` as an estimator reads them: names first, values only on demand.

    The names, the number of rows and (for DataFrames and NumPy arrays) the dtypes are read
    from ``X`` without touching a value, so that fitting a schema whose domains are all
    declared never reads the private rows. :meth:`values` reads one column and checks it
    (missing values, complex numbers, objects that are neither a category nor a number);
    its errors name the column and the problem, never the value.
    """

    def __init__(self, names: list[str], n_rows: int, source: object, array: bool) -> None:
        self.names = names
        self.n_rows = n_rows
        self._source = source
        self._array = array
        self._converted: np.ndarray | None = None
        self._columns: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.names)

    # ------------------------------------------------------------------ metadata
    def dtype(self, j: int) -> object:
        """The dtype of column ``j``: the frame's or the array's (an object column of a NumPy
        table is read to tell numbers from categories)."""
        if not self._array:
            return self._source.dtypes.iloc[j]  # type: ignore[attr-defined]
        dtype = getattr(self._source, "dtype", None)
        if isinstance(self._source, np.ndarray) and dtype is not None and dtype.kind != "O":
            return dtype
        return self.values(j).dtype

    # ------------------------------------------------------------------ values
    def values(self, j: int) -> np.ndarray:
        """The checked values of column ``j`` (read once)."""
        if j not in self._columns:
            self._columns[j] = self._read_frame(j) if not self._array else self._read_array(j)
        return self._columns[j]

    def all_values(self) -> list[np.ndarray]:
        return [self.values(j) for j in range(len(self.names))]

    def _read_frame(self, j: int) -> np.ndarray:
        name, series = self.names[j], self._source.iloc[:, j]  # type: ignore[attr-defined]
        if series.isna().to_numpy().any():
            raise ValueError(f"column {name!r} contains missing values (NaN or None)")
        if series.dtype.kind == "c":
            raise ValueError(f"Complex data not supported (column {name!r})")
        if isinstance(series.dtype, pd.CategoricalDtype):
            return series.array  # a Categorical: encoding maps its codes (fast)
        return series.to_numpy()

    def _whole(self) -> np.ndarray:
        if self._converted is None:
            self._converted = _as_2d_array(self._source)
        return self._converted

    def _read_array(self, j: int) -> np.ndarray:
        name, column = self.names[j], self._whole()[:, j]
        kind = column.dtype.kind
        if kind == "c":
            raise ValueError(f"Complex data not supported (column {name!r} of X)")
        if kind == "f" and not np.all(np.isfinite(column)):
            raise ValueError(f"column {name!r} of X contains NaN or infinite values")
        if kind == "O":
            return _object_column(column, name)
        if kind not in "biufUS":
            raise TypeError(
                f"column {name!r} of X has dtype {column.dtype}; each entry must be a category "
                "(a string) or a number"
            )
        return column


def _check_objects(values: np.ndarray, name: str) -> None:
    """Every entry of an object column is a string, bytes, a bool or a number (by type)."""
    inferred = pd.api.types.infer_dtype(values, skipna=False)
    if inferred in ("string", "bytes", "boolean", *_NUMERIC_INFERRED):
        return
    if inferred == "complex":
        raise ValueError(f"Complex data not supported (column {name!r})")
    for value in values:
        if not isinstance(value, _SCALAR_TYPES) or isinstance(value, complex):
            raise TypeError(
                f"column {name!r} of X holds an entry of type {type(value).__name__}; an "
                "argument must be a string or a number (a category or a numeric value)"
            )


def _object_column(column: np.ndarray, name: str) -> np.ndarray:
    """An object column of a NumPy table: float64 if it holds only numbers (as scikit-learn
    reads object arrays), else checked categories."""
    if _missing(column):
        raise ValueError(f"column {name!r} of X contains missing values (NaN or None)")
    _check_objects(column, name)
    if pd.api.types.infer_dtype(column, skipna=False) in _NUMERIC_INFERRED:
        return numeric_values(column, name)
    return column


def _shape(X: object) -> tuple[int, ...] | None:
    """The shape of an array-like that declares one (NumPy arrays and their look-alikes)."""
    shape = getattr(X, "shape", None)
    if getattr(X, "dtype", None) is None or not isinstance(shape, tuple):
        return None
    if not all(isinstance(n, numbers.Integral) for n in shape):
        return None
    return tuple(int(n) for n in shape)


def _as_2d_array(X: object) -> np.ndarray:
    """``X`` as a NumPy array, without echoing what fails to convert.

    A list of rows that mixes strings and numbers keeps each entry's type (an object array),
    rather than NumPy's conversion of every entry to a string.
    """
    try:
        arr = np.asarray(X)
        if arr.dtype.kind in "US" and not isinstance(X, np.ndarray):
            arr = np.asarray(X, dtype=object)
    except (TypeError, ValueError):
        raise ValueError(
            "X must be a table: a DataFrame, or a 2-D array-like of numbers and strings with "
            "one row per user (rows of equal length)"
        ) from None
    return arr


def _check_2d(shape: tuple[int, ...]) -> None:
    if len(shape) != 2:
        got = "scalar" if len(shape) == 0 else f"{len(shape)}D"
        raise ValueError(
            f"Expected a 2D table X, got a {got} array of shape {shape}. Reshape your data "
            "either using array.reshape(-1, 1) if it has a single feature or "
            "array.reshape(1, -1) if it contains a single sample."
        )


def _table_shape(X: object) -> tuple[tuple[int, ...], object]:
    """The 2-D shape of ``X`` and what to read its values from (never echoes a value)."""
    if sparse.issparse(X):
        raise TypeError(
            "X is a sparse matrix; sparse input is not supported (pass a dense array or a "
            "DataFrame)"
        )
    if is_frame(X):
        return tuple(X.shape), X  # type: ignore[attr-defined]
    shape = _shape(X)
    source = X
    if shape is None:
        source = _as_2d_array(X)
        shape = source.shape
    _check_2d(shape)
    return shape, source


def table_rows(X: object) -> int:
    """The number of rows of the table ``X`` (checked to be 2-D; no value is read where ``X``
    declares its shape)."""
    return _table_shape(X)[0][0]


def read_table(estimator, X, *, reset: bool) -> Table:
    """The columns of ``X`` (names, number of rows, values on demand) as a :class:`Table`.

    DataFrames keep their per-column dtypes (strings, categoricals, numbers); NumPy arrays
    (numeric, string or object) and lists of rows are read column by column: an object column
    holding only numbers is numeric, one holding strings is categorical, and any other entry
    raises by type. Sets (``reset``) or checks ``n_features_in_`` and ``feature_names_in_``
    like every scikit-learn estimator. No message quotes a value of ``X``.
    """
    shape, source = _table_shape(X)
    array = not is_frame(X)
    if not reset:
        check_feature_names(estimator, X)
    validate_data(estimator, source, reset=reset, skip_check_array=True)
    n_rows, n_cols = shape
    if n_rows < 1:
        raise _empty_error("sample", shape)
    if n_cols < 1:
        raise _empty_error("feature", shape)
    if not array:
        names = [str(c) for c in X.columns]
        if len(set(names)) != len(names):
            raise ValueError("X has duplicate column names")
    else:
        fitted = getattr(estimator, "feature_names_in_", None)
        if fitted is None or len(fitted) != n_cols:
            names = [f"x{j}" for j in range(n_cols)]
        else:
            names = [str(n) for n in fitted]
    return Table(names, n_rows, source, array)


def _is_categorical_dtype(dtype: object) -> bool:
    if isinstance(dtype, pd.CategoricalDtype):
        return True
    kind = getattr(dtype, "kind", "O")
    return kind in "bOSUT" or pd.api.types.is_string_dtype(dtype)


# ----------------------------------------------------------------------------- declarations
def _lookup(declared: object, names: list[str], what: str) -> dict[str, object]:
    """``declared`` (None, a dict by column name, or a list aligned with the columns) as a dict."""
    if declared is None:
        return {}
    if isinstance(declared, Mapping):
        unknown = [str(key) for key in declared if str(key) not in names]
        if unknown:
            raise ValueError(f"{what} names column(s) {unknown} that are not in X")
        return {str(key): value for key, value in declared.items()}
    if isinstance(declared, (str, bytes)) or not isinstance(declared, Sequence):
        raise TypeError(
            f"{what} must be None, a dict mapping column names to their domain, or a list "
            f"with one entry per column; got {type(declared).__name__}"
        )
    if len(declared) != len(names):
        raise ValueError(
            f"{what} is a list of {len(declared)} entries but X has {len(names)} columns"
        )
    return {name: value for name, value in zip(names, declared) if value is not None}


def _is_pair(value: object) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)
    )


def check_bounds(value: Any, name: str) -> tuple[float, float]:
    if not _is_pair(value):
        raise TypeError(f"bounds of column {name!r} must be a pair (low, high) of numbers")
    low, high = float(value[0]), float(value[1])
    if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
        raise ValueError(
            f"bounds of column {name!r} must be finite with low < high, got ({low!r}, {high!r})"
        )
    return low, high


def check_categories(value: Any, name: str) -> np.ndarray:
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1:
        raise TypeError(f"categories of column {name!r} must be a 1-D list of categories")
    index = pd.Index(list(value))
    if len(index) < 1:
        raise ValueError(f"categories of column {name!r} must not be empty")
    if not index.is_unique:
        raise ValueError(f"categories of column {name!r} contain duplicates")
    if index.hasnans:
        raise ValueError(f"categories of column {name!r} must not contain NaN or None")
    return np.asarray(index, dtype=object if index.dtype == object else None)


def outward_bounds(low: float, high: float) -> tuple[float, float]:
    """``[low, high]`` widened to a grid of step ``10^floor(log10(span))`` (learned bounds)."""
    span = high - low
    if span <= 0:
        span = max(abs(low), 1.0)
    step = 10.0 ** math.floor(math.log10(span))
    lo, hi = math.floor(low / step) * step, math.ceil(high / step) * step
    if hi <= lo:
        hi = lo + step
    return float(lo), float(hi)


def numeric_values(values: np.ndarray, name: str) -> np.ndarray:
    """A column as finite float64, without echoing a value that fails to convert."""
    if values.dtype.kind == "c":
        raise ValueError(f"Complex data not supported (column {name!r})")
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"column {name!r} must be numeric") from None
    if not np.all(np.isfinite(out)):
        raise ValueError(f"column {name!r} contains NaN or infinite values")
    return out


def resolve_schema(
    table: Table,
    *,
    categories: object,
    bounds: object,
    default_kind: str | None,
) -> list[Column]:
    """The schema of a table: declared domains first, then dtypes, then (documented) data.

    ``default_kind`` forces every column to one kind (``None``: infer from the dtype). A
    column whose domain is declared is never read; the dtype of an undeclared column is read
    from the table's metadata (a NumPy object column is read to tell numbers from
    categories), and its values only when the domain comes from the data.
    """
    names = table.names
    declared_cats = _lookup(categories, names, "categories")
    single_pair = _is_pair(bounds)
    declared_bounds = {} if single_pair else _lookup(bounds, names, "bounds")
    both = sorted(set(declared_cats) & set(declared_bounds))
    if both:
        raise ValueError(f"columns {both} are declared both categorical and numeric")
    columns = []
    for j, name in enumerate(names):
        dtype = None
        if name in declared_cats:
            kind = CATEGORICAL
        elif name in declared_bounds:
            kind = NUMERIC
        elif default_kind is not None:
            kind = default_kind
        else:
            dtype = table.dtype(j)
            kind = CATEGORICAL if _is_categorical_dtype(dtype) else NUMERIC
        if single_pair and kind == NUMERIC:
            declared_bounds[name] = bounds
        if default_kind is not None and kind != default_kind:
            raise ValueError(
                f"column {name!r} is declared {kind}, but this estimator only "
                f"takes {default_kind} columns"
            )
        if kind == CATEGORICAL:
            if name in declared_cats:
                cats, source = check_categories(declared_cats[name], name), "declared"
            else:
                dtype = table.dtype(j) if dtype is None else dtype
                if isinstance(dtype, pd.CategoricalDtype):
                    cats, source = check_categories(dtype.categories, name), "dtype"
                elif getattr(dtype, "kind", "") == "b":
                    cats, source = np.array([False, True]), "dtype"
                else:
                    unique = pd.unique(pd.Series(table.values(j), copy=False))
                    with contextlib.suppress(TypeError):  # mixed types keep first-seen order
                        unique = np.sort(unique)
                    cats, source = check_categories(unique, name), "data"
            columns.append(Column(name, CATEGORICAL, categories=cats, source=source))
        else:
            if name in declared_bounds:
                low_high, source = check_bounds(declared_bounds[name], name), "declared"
            else:
                data = numeric_values(table.values(j), name)
                low_high, source = outward_bounds(float(data.min()), float(data.max())), "data"
            columns.append(Column(name, NUMERIC, bounds=low_high, source=source))
    return columns


# ----------------------------------------------------------------------------- encoding
def encode_categorical(column: Column, values: np.ndarray) -> np.ndarray:
    """Category codes ``0 .. k-1`` of ``values``; unknown values raise (never echoed)."""
    if isinstance(values, pd.Categorical):
        recode = pd.Index(column.categories).get_indexer(values.categories)
        codes = np.append(recode, -1)[values.codes]  # code -1 (missing) stays -1
    else:
        codes = pd.Index(column.categories).get_indexer(values)
    if np.any(codes < 0):
        raise ValueError(
            f"column {column.name!r} has values outside its {column.k} known categories "
            f"(categories from {column.source}); declare every category in `categories`"
        )
    return codes.astype(np.int64)


def encode_numeric(column: Column, values: np.ndarray, *, clip: bool = False) -> np.ndarray:
    """Values affinely mapped from ``column.bounds`` to ``[-1, 1]``; outside values raise."""
    data = numeric_values(values, column.name)
    low, high = column.interval
    if not clip and (np.any(data < low) or np.any(data > high)):
        raise ValueError(
            f"column {column.name!r} has values outside its bounds [{low:g}, {high:g}] "
            f"(bounds from {column.source}); values are never clipped, declare wider bounds"
        )
    return np.clip(2.0 * (data - low) / (high - low) - 1.0, -1.0, 1.0)


def encode_table(columns: list[Column], table: Table | list[np.ndarray]) -> list[np.ndarray]:
    """Every column of ``table`` (a :class:`Table`, or its column values) encoded against its
    fitted :class:`Column`."""
    values = table.all_values() if isinstance(table, Table) else table
    return [
        encode_categorical(c, v) if c.kind == CATEGORICAL else encode_numeric(c, v)
        for c, v in zip(columns, values)
    ]


def check_same_columns(expected: Sequence[str], names: Sequence[str]) -> None:
    """One line naming both lists when the columns of ``X`` (``names``) are not the fitted
    ones (``expected``) in the fitted order: renamed, reordered, missing or extra."""
    want, got = [str(n) for n in expected], [str(n) for n in names]
    if got == want:
        return
    if sorted(got) == sorted(want):
        detail = "the same columns in another order"
    else:
        missing = [n for n in want if n not in got]
        extra = [n for n in got if n not in want]
        parts = [f"missing {missing}"] * bool(missing) + [f"unknown {extra}"] * bool(extra)
        detail = ", ".join(parts)
    raise ValueError(f"X must have the fitted columns {want} in this order, got {got} ({detail})")


def check_feature_names(estimator: object, X: object) -> None:
    """Before scikit-learn's own check (a multi-line message): the column names of a
    DataFrame ``X`` against the ``feature_names_in_`` of a fitted ``estimator``, in one line
    (:func:`check_same_columns`). Arrays, and estimators fitted without names, pass through."""
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is not None and is_frame(X):
        check_same_columns(list(fitted), [str(c) for c in X.columns])  # type: ignore[attr-defined]
