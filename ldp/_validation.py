"""Argument checks shared by the public API.

Every check raises ``TypeError`` for an argument of the wrong kind and ``ValueError`` for a
value out of range, and the message names the argument and the offending value: a parameter
(an epsilon, a matrix, a probability) is quoted, as plain numbers. Private data (the values a
mechanism privatizes) is never quoted: its checks (``quote=False``) name the argument and the
problem only, so that no raw value reaches a log or a crash report.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ldp._random import ByteSource, OSGenerator

#: Largest tolerated ``|sum(p) - 1|`` for a probability vector or a channel row.
#: Rows within the tolerance are divided by their sum, so that the stored distribution sums
#: to one up to floating-point rounding; anything further away is rejected.
PMF_TOLERANCE = 1e-9


def plain(value: object) -> object:
    """``value`` with NumPy scalars as Python numbers, so that a message shows ``2.0``, not
    ``np.float64(2.0)``."""
    return value.item() if isinstance(value, np.generic) else value


def compact(n: int) -> str:
    """A whole number short enough for a one-line message: ``4096``, ``2^40``, ``1.1e+12``
    (a 300-digit integer is never printed, and never converted to text in full).

    Examples
    --------
    >>> from ldp._validation import compact
    >>> compact(4096), compact(2**40), compact(10**12 + 7), compact(-(10**400))
    ('4096', '2^40', '1e+12', '-about 2^1328')
    """
    n = int(n)
    if abs(n) < 10**6:
        return str(n)
    sign, n = ("-", -n) if n < 0 else ("", n)
    if n & (n - 1) == 0:
        return f"{sign}2^{n.bit_length() - 1}"
    if n.bit_length() <= 1000:
        return f"{sign}{float(n):.3g}"
    return f"{sign}about 2^{n.bit_length() - 1}"


def describe(value: object) -> str:
    value = plain(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return compact(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_scalar(
    value: object,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a Python float after checking its kind and range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {describe(value)}")
    out = float(value)
    if np.isnan(out):
        raise ValueError(f"{name} must not be NaN")
    if np.isinf(out) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {out}")
    if low is not None and (out < low or (low_open and out == low)):
        bound = f"> {low}" if low_open else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {out!r}")
    if high is not None and (out > high or (high_open and out == high)):
        bound = f"< {high}" if high_open else f"<= {high}"
        raise ValueError(f"{name} must be {bound}, got {out!r}")
    return out


def check_epsilon(
    value: object,
    name: str = "epsilon",
    *,
    allow_inf: bool = True,
    positive: bool = False,
    low: float = 0.0,
    high: float | None = None,
) -> float:
    """An epsilon: the one validator of privacy levels.

    In ``[low, high]`` (by default ``[0, inf]``); ``inf`` only when ``allow_inf``;
    ``positive=True`` excludes ``low`` itself (``epsilon > 0``). Mechanisms, designs and
    estimators pass their own range (for example ``[MIN_EPSILON, MAX_EPSILON]``).
    """
    return check_scalar(value, name, low=low, high=high, low_open=positive, allow_inf=allow_inf)


def check_probability(value: object, name: str) -> float:
    """A number in ``[0, 1]`` (a delta, an eta, a probability)."""
    return check_scalar(value, name, low=0.0, high=1.0)


#: Relative slack allowed when ``eta`` sits on an end of its range after rounding (for
#: example ``eta=eta_max(eps, delta)`` recomputed by the caller).
ETA_SLACK = 1e-12


def check_eta_range(value: object, low: float, high: float, context: str) -> float:
    """A TV level ``eta`` in ``[low, high]``, clamped there within a relative ``ETA_SLACK``.

    Nothing further out is clamped: the ``ValueError`` names ``eta``, the range and
    ``context`` (the parameters that set the range).
    """
    eta = check_probability(value, "eta")
    slack = ETA_SLACK * max(1.0, high)
    if not (low - slack <= eta <= high + slack):
        raise ValueError(f"eta must lie in [{low!r}, {high!r}] for {context}, got {eta!r}")
    return min(max(eta, low), high)


def check_integer(value: object, name: str, *, low: int | None = None) -> int:
    """An integer (``int`` or numpy integer, not ``bool``) at least ``low``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {describe(value)}")
    out = int(value)
    if low is not None and out < low:
        raise ValueError(f"{name} must be >= {low}, got {compact(out)}")
    return out


def as_real_array(value: object, name: str, *, quote: bool = True) -> np.ndarray:
    """``value`` as a float64 array; rejects non-numeric, boolean and complex data.

    ``quote=False`` for private data: the messages then name ``name`` and the problem, never
    a value.
    """

    def shown() -> str:
        return f", got {describe(value)}" if quote else ""

    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        detail = f": {exc}" if quote else " (rows of equal length)"
        raise TypeError(f"{name} must be an array of real numbers{detail}") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be an array of real numbers{shown()}") from None
    if arr.dtype.kind not in "iuf":
        got = f"{describe(value)} (dtype {arr.dtype})" if quote else f"dtype {arr.dtype}"
        raise TypeError(f"{name} must be an array of real numbers, got {got}")
    arr = arr.astype(np.float64, copy=False)
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers{shown()}")
    return arr


def check_pmf(value: object, name: str, *, ndim: int | None = None) -> np.ndarray:
    """Probability vectors along the last axis, renormalised within ``PMF_TOLERANCE``."""
    arr = as_real_array(value, name)
    if arr.ndim == 0:
        raise ValueError(f"{name} must have at least one axis of outcomes, got a scalar")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} must have at least one outcome, got shape {arr.shape}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative, got {describe(value)}")
    if np.any(arr > 1.0 + PMF_TOLERANCE):  # also keeps the sums from overflowing
        raise ValueError(f"{name} must have entries <= 1 (probabilities), got {describe(value)}")
    total = arr.sum(axis=-1, keepdims=True)
    bad = np.abs(total - 1.0) > PMF_TOLERANCE
    if np.any(bad):
        worst = float(total.ravel()[np.argmax(np.abs(total.ravel() - 1.0))])
        raise ValueError(
            f"{name} must sum to 1 along its last axis (tolerance {PMF_TOLERANCE:g}); "
            f"found a sum of {worst!r}"
        )
    return arr / total


def check_distribution(value: object, size: int, name: str = "f") -> np.ndarray:
    """A distribution over ``size`` cells: non-negative, summing to 1 within ``1e-9``
    (checked, never renormalised or clipped)."""
    arr = as_real_array(value, name)
    if arr.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {arr.shape}")
    if np.any(arr < 0) or abs(float(arr.sum()) - 1.0) > 1e-9:
        raise ValueError(
            f"{name} must be a distribution (non-negative, summing to 1), got {describe(value)}"
        )
    return arr


def check_random_state(rng: object) -> np.random.Generator | ByteSource:
    """The source of randomness for ``rng``.

    ``None``, an int seed, a ``SeedSequence`` or a ``BitGenerator`` give
    ``np.random.default_rng(rng)``; a numpy ``Generator`` is used as is; ``"os"`` (or an
    :class:`~ldp._random.OSGenerator`) draws every bit from the operating system's CSPRNG; a
    :class:`~ldp._random.ByteSource` reads the bytes of a given function.
    Seeded numpy generators are for simulation and reproducibility only: a server that knows
    or guesses the noise stream can undo the privatization, so devices should use ``"os"``.
    Anything else raises ``TypeError`` naming ``rng``.
    """
    if isinstance(rng, (np.random.Generator, ByteSource)):
        return rng
    if isinstance(rng, str):
        if rng == "os":
            return OSGenerator()
        raise TypeError(
            f"rng must be None, an int seed, a numpy Generator or 'os', got {describe(rng)}"
        )
    if rng is None or isinstance(
        rng, (numbers.Integral, np.random.SeedSequence, np.random.BitGenerator)
    ):
        if isinstance(rng, (bool, np.bool_)):
            raise TypeError(
                f"rng must be None, an int seed, a numpy Generator or 'os', got {describe(rng)}"
            )
        try:
            return np.random.default_rng(rng)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValueError(f"rng: {exc} (got {describe(rng)})") from None
    if isinstance(rng, np.random.RandomState):
        raise TypeError(
            "rng must be None, an int seed, a numpy Generator or 'os'; the legacy RandomState "
            "is not accepted (use np.random.default_rng)"
        )
    raise TypeError(
        f"rng must be None, an int seed, a numpy Generator or 'os', got {describe(rng)}"
    )


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
        raise TypeError(f"{name} must be a real number or array, got {describe(value)}")
    scalar = isinstance(value, numbers.Real)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or array: {exc}") from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number or array, got {describe(value)}")
    arr = arr.astype(np.float64)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not be NaN, got {describe(value)}")
    if not allow_inf and np.any(np.isinf(arr)):
        raise ValueError(f"{name} must be finite, got {describe(value)}")
    if low is not None and np.any(arr < low):
        bad = float(arr[arr < low].flat[0])
        raise ValueError(f"{name} must be >= {low}, got {bad!r}")
    if high is not None and np.any(arr > high):
        bad = float(arr[arr > high].flat[0])
        raise ValueError(f"{name} must be <= {high}, got {bad!r}")
    return arr, scalar or arr.ndim == 0


def check_broadcast(*shapes: tuple[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The broadcast shape of named array shapes.

    ``shapes`` are ``(name, shape)`` pairs; arrays that do not broadcast together raise
    ``ValueError`` naming every argument and its shape (numpy's own message names none).
    """
    try:
        return tuple(np.broadcast_shapes(*(shape for _, shape in shapes)))
    except ValueError:
        named = [f"{name} of shape {shape}" for name, shape in shapes]
        listed = " and ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named)
        raise ValueError(f"{listed} do not broadcast together") from None


def scalar_or_array(values: ArrayLike, scalar: bool | None = None) -> float | np.ndarray:
    """The one scalar-in, scalar-out rule: a Python float for scalar input, else the array.

    ``scalar`` is the flag returned by :func:`as_levels` for the input; ``None`` reads it off
    the result (a 0-d result is a scalar).
    """
    values = np.asarray(values)
    if scalar is None:
        scalar = values.ndim == 0
    return float(values.reshape(())) if scalar else values
