"""Small helpers shared by the accounting modules (argument checks, scalar/array output)."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

#: Relative tolerance used when checking user-supplied trade-off values (convexity, order).
SHAPE_TOLERANCE = 1e-9


def as_levels(
    value: ArrayLike,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    allow_inf: bool = True,
) -> tuple[np.ndarray, bool]:
    """``value`` as a float64 array plus whether it was a scalar; checks kind and range.

    Raises ``TypeError`` for non-real input and ``ValueError`` (naming ``name`` and the bad
    value) for NaN, forbidden infinities and values outside ``[low, high]``.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number or array, got {value!r}")
    scalar = isinstance(value, numbers.Real)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or array: {exc}") from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number or array, got {value!r}")
    arr = arr.astype(np.float64)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not be NaN, got {value!r}")
    if not allow_inf and np.any(np.isinf(arr)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low is not None and np.any(arr < low):
        bad = arr[arr < low].flat[0]
        raise ValueError(f"{name} must be >= {low}, got {bad!r}")
    if high is not None and np.any(arr > high):
        bad = arr[arr > high].flat[0]
        raise ValueError(f"{name} must be <= {high}, got {bad!r}")
    return arr, scalar or arr.ndim == 0


def out(values: np.ndarray, scalar: bool) -> float | np.ndarray:
    """A Python float for scalar input, else the array."""
    return float(np.asarray(values).reshape(())) if scalar else np.asarray(values)
