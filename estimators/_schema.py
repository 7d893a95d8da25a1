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

import numpy as np
import pandas as pd
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
            return f"numeric in [{self.bounds[0]:g}, {self.bounds[1]:g}]"
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


def read_table(estimator, X, *, reset: bool) -> tuple[list[str], list[np.ndarray], list[object]]:
    """Column names, column value arrays and column dtypes of ``X`` (checked, not converted).

    DataFrames keep their per-column dtypes (strings, categoricals, numbers); anything else goes
    through scikit-learn's ``validate_data`` as a finite numeric 2-D array. Sets (``reset``) or
    checks ``n_features_in_`` and ``feature_names_in_`` like every scikit-learn estimator.
    """
    if is_frame(X):
        validate_data(estimator, X, reset=reset, skip_check_array=True)
        n_rows, n_cols = X.shape
        if n_rows < 1:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required."
            )
        if n_cols < 1:
            raise ValueError(
                f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required."
            )
        names = [str(c) for c in X.columns]
        if len(set(names)) != len(names):
            raise ValueError("X has duplicate column names")
        values, dtypes = [], []
        for name, column in zip(names, X.columns):
            series = X[column]
            if series.isna().to_numpy().any():
                raise ValueError(f"column {name!r} contains missing values (NaN or None)")
            if series.dtype.kind == "c":
                raise ValueError(f"Complex data not supported (column {name!r})")
            # a categorical column stays a pandas Categorical: encoding maps its codes (fast)
            is_cat = isinstance(series.dtype, pd.CategoricalDtype)
            values.append(series.array if is_cat else series.to_numpy())
            dtypes.append(series.dtype)
        return names, values, dtypes
    arr = validate_data(estimator, X, reset=reset, dtype="numeric", ensure_min_samples=1)
    names = getattr(estimator, "feature_names_in_", None)
    if names is None or len(names) != arr.shape[1]:
        names = [f"x{j}" for j in range(arr.shape[1])]
    return (
        [str(n) for n in names],
        [arr[:, j] for j in range(arr.shape[1])],
        [arr.dtype] * len(names),
    )


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


def check_bounds(value: object, name: str) -> tuple[float, float]:
    if not _is_pair(value):
        raise TypeError(f"bounds of column {name!r} must be a pair (low, high) of numbers")
    low, high = float(value[0]), float(value[1])
    if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
        raise ValueError(
            f"bounds of column {name!r} must be finite with low < high, got ({low!r}, {high!r})"
        )
    return low, high


def check_categories(value: object, name: str) -> np.ndarray:
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
    names: list[str],
    values: list[np.ndarray],
    dtypes: list[object],
    *,
    categories: object,
    bounds: object,
    default_kind: str | None,
) -> list[Column]:
    """The schema of a table: declared domains first, then dtypes, then (documented) data.

    ``default_kind`` forces every column to one kind (``None``: infer from the dtype).
    """
    declared_cats = _lookup(categories, names, "categories")
    single_pair = _is_pair(bounds)
    declared_bounds = {} if single_pair else _lookup(bounds, names, "bounds")
    both = sorted(set(declared_cats) & set(declared_bounds))
    if both:
        raise ValueError(f"columns {both} are declared both categorical and numeric")
    columns = []
    for name, column, dtype in zip(names, values, dtypes):
        if name in declared_cats:
            kind = CATEGORICAL
        elif name in declared_bounds:
            kind = NUMERIC
        elif default_kind is not None:
            kind = default_kind
        else:
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
            elif isinstance(dtype, pd.CategoricalDtype):
                cats, source = check_categories(dtype.categories, name), "dtype"
            elif getattr(dtype, "kind", "") == "b":
                cats, source = np.array([False, True]), "dtype"
            else:
                unique = pd.unique(pd.Series(column, copy=False))
                with contextlib.suppress(TypeError):  # mixed types keep first-seen order
                    unique = np.sort(unique)
                cats, source = check_categories(unique, name), "data"
            columns.append(Column(name, CATEGORICAL, categories=cats, source=source))
        else:
            if name in declared_bounds:
                low_high, source = check_bounds(declared_bounds[name], name), "declared"
            else:
                data = numeric_values(column, name)
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
    low, high = column.bounds
    if not clip and (np.any(data < low) or np.any(data > high)):
        raise ValueError(
            f"column {column.name!r} has values outside its bounds [{low:g}, {high:g}] "
            f"(bounds from {column.source}); values are never clipped, declare wider bounds"
        )
    return np.clip(2.0 * (data - low) / (high - low) - 1.0, -1.0, 1.0)


def encode_table(columns: list[Column], values: list[np.ndarray]) -> list[np.ndarray]:
    return [
        encode_categorical(c, v) if c.kind == CATEGORICAL else encode_numeric(c, v)
        for c, v in zip(columns, values)
    ]


def check_same_columns(columns: list[Column], names: list[str]) -> None:
    expected = [c.name for c in columns]
    if names != expected:
        missing = [n for n in expected if n not in names]
        detail = f"missing {missing}" if missing else f"got {names}"
        raise ValueError(f"X must have the fitted columns {expected}; {detail}")
