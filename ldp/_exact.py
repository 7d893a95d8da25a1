"""Exact comparisons of a likelihood ratio with ``e^epsilon``, in integer arithmetic.

A finite mechanism's privacy is the largest ratio ``R`` of two report probabilities, and
every probability the library samples is an exact ratio of doubles (``ldp._sampling``), so
``R`` is an exact rational number. Whether ``R <= e^eps`` for a double ``eps`` is then a
question with an exact answer, decided here without any rounding: ``e^t`` is enclosed in an
interval of dyadic rationals (a Taylor series at ``t / 2^s`` with floors and ceilings, then
``s`` squarings rounded outward) that is narrowed until it excludes ``R``. The interval never
contains ``R`` forever: for rational ``t != 0``, ``e^t`` is irrational (Lindemann), so
equality happens only at ``t = 0, R = 1``, which is checked exactly.

On top of the comparison:

* :func:`log_up` is the *smallest* double ``t`` with ``e^t >= R``: the realised privacy level,
  rounded up to a double and no further (the device clients compute the same number the same
  way, so a device and the library agree to the last bit);
* :func:`exp_down` is the *largest* double ``w`` with ``w <= e^t``: the weight a sampler uses
  so that its realised level is at most the requested ``t`` exactly;
* :func:`nearest_within` moves any other sampler constant from its nominal value, one double
  at a time towards more privacy, to the first double whose exact ratio is within the budget
  (the mechanisms then state the budget itself, :func:`certified_epsilon`).

The comparison itself is the device client's (``ldp._device``): the library and a device
certify with the same code, and ``docs/protocol.md`` specifies it for other clients.
"""

from __future__ import annotations

import hashlib
import math
import struct
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from ldp._device import device_client

__all__ = [
    "certified_epsilon",
    "compare_exp",
    "exp_bounds",
    "exp_down",
    "exp_up",
    "largest_likelihood_ratio",
    "log_up",
    "nearest_within",
    "probabilities",
    "smallest_double",
    "within_exp",
]

#: Largest ``|t|`` compared exactly (``e^2000`` is far beyond any double ratio of interest).
MAX_EXPONENT = 2000


def _fraction(value: Fraction | float | int, name: str) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return Fraction(value)


def exp_bounds(t: Fraction | float, bits: int = 64) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= e^t <= hi`` whose relative gap is about ``2^-bits``.

    The Taylor series of ``e^(t / 2^s)`` at ``t / 2^s <= 1/2`` in fixed point with floors
    (and ceilings), its tail bounded by twice its next term, then ``s`` squarings rounded
    outward (the device client's ``exp_bounds``).

    Parameters
    ----------
    t : Fraction or float
        The exponent, ``|t| <= 2000``.
    bits : int, default 64
        Working precision.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from ldp._exact import exp_bounds
    >>> lo, hi = exp_bounds(1.0)   # e = 2.71828182845904523536...
    >>> Fraction("2.7182818284590452353") < lo <= hi < Fraction("2.7182818284590452354")
    True
    """
    x = _fraction(t, "t")
    if abs(x) > MAX_EXPONENT:
        raise ValueError(f"t must lie in [-{MAX_EXPONENT}, {MAX_EXPONENT}], got {float(x)!r}")
    lo, hi = device_client().exp_bounds(x, bits)
    return lo, hi


def compare_exp(ratio: Fraction | float | int, t: Fraction | float) -> int:
    """The sign of ``ratio - e^t``, decided exactly: ``-1``, ``0`` or ``1``.

    The enclosure of ``e^t`` is narrowed (64, 128, ... 16384 bits) until it excludes
    ``ratio``; for rational ``t != 0``, ``e^t`` is irrational (Lindemann), so it always does.

    Examples
    --------
    >>> import math
    >>> from ldp._exact import compare_exp
    >>> compare_exp(math.e, 1.0)   # the double nearest e lies below e
    -1
    >>> compare_exp(1, 0.0), compare_exp(2.7182818284590455, 1.0)
    (0, 1)
    """
    r = _fraction(ratio, "ratio")
    x = _fraction(t, "t")
    return int(device_client().compare_exp(r, x))


def within_exp(ratio: Fraction | float | int, t: Fraction | float) -> bool:
    """Whether ``ratio <= e^t``, exactly."""
    return compare_exp(ratio, t) <= 0


def log_up(ratio: Fraction | float | int | None) -> float:
    """The smallest double ``t >= 0`` with ``e^t >= ratio``: ``log(ratio)`` rounded up.

    ``None`` (an impossible denominator, a ratio that is infinite) gives ``inf``; a ratio at
    most 1 gives 0; a ratio above ``e^2000`` gives ``inf`` (an upper bound).

    Examples
    --------
    >>> import math
    >>> from fractions import Fraction
    >>> from ldp._exact import log_up
    >>> log_up(math.e)   # the double nearest e is below e: its level is exactly 1
    1.0
    >>> log_up(Fraction(1, 2)), log_up(None)
    (0.0, inf)
    >>> t = log_up(3)
    >>> math.exp(t) >= 3 > math.exp(math.nextafter(t, 0))
    True
    """
    if ratio is None:
        return math.inf
    return float(device_client().log_up(_fraction(ratio, "ratio")))


def _ordinal(value: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", value))[0])


def _double(ordinal: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", ordinal))[0])


def smallest_double(holds: Callable[[float], bool], guess: float) -> float:
    """The smallest double ``t >= 0`` with ``holds(t)``, for a monotone ``holds``.

    Searched from ``guess``: steps that double until the answer is bracketed, then bisection
    over the doubles ordered as their bit patterns (a few dozen calls of ``holds``). Raises
    ``ValueError`` when no double up to ``MAX_EXPONENT`` (2000) satisfies ``holds``.

    Examples
    --------
    >>> from ldp._exact import smallest_double
    >>> smallest_double(lambda t: t * t >= 2.0, 1.0)
    1.4142135623730951
    """
    return float(device_client().smallest_double(holds, max(float(guess), 0.0)))


def _bisect(holds: Callable[[float], bool], failing: int, passing: int) -> int:
    """The ordinal next to ``failing``, on the side of ``passing``, where a monotone ``holds``
    is true (bisection between two ordinals of positive doubles)."""
    while abs(passing - failing) > 1:
        middle = (passing + failing) // 2
        if holds(_double(middle)):
            passing = middle
        else:
            failing = middle
    return passing


def nearest_within(holds: Callable[[float], bool], start: float, toward: float) -> float:
    """The double nearest ``start``, on the side of ``toward``, at which ``holds`` is true.

    ``start`` itself when ``holds(start)``; otherwise the first double past it in the
    direction of ``toward`` (``0.0`` or ``math.inf``) at which ``holds`` is true, for a
    ``holds`` that stays true once it is along that direction (a constant that only gains
    privacy as it moves). Searched by steps that double, then bisection over the doubles
    ordered as their bit patterns, so that a start many doubles away costs a few dozen calls.
    ``start`` must be a positive finite double.

    Parameters
    ----------
    holds : callable
        ``holds(value) -> bool``, monotone along the direction of ``toward``.
    start : float
        The nominal value.
    toward : float
        ``0.0`` to move down, ``math.inf`` to move up.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When no positive finite double in that direction satisfies ``holds``.

    Examples
    --------
    >>> import math
    >>> from fractions import Fraction
    >>> from ldp._exact import nearest_within
    >>> def level(scale):   # the Laplace level 2 / scale, exactly
    ...     return Fraction(2) / Fraction(scale)
    >>> scale = nearest_within(lambda s: level(s) <= Fraction(0.3), 2 / 0.3, math.inf)
    >>> level(scale) <= Fraction(0.3) < level(math.nextafter(scale, 0.0))
    True
    >>> nearest_within(lambda w: w <= 3.0, 2.0, 0.0)   # already within: unchanged
    2.0
    """
    value = float(start)
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"start must be a positive finite double, got {start!r}")
    if holds(value):
        return value
    sign = -1 if toward < value else 1
    end = 1 if sign < 0 else _ordinal(sys.float_info.max)  # the last positive finite double
    failing = _ordinal(value)
    step = 1
    while True:
        probe = max(failing - step, end) if sign < 0 else min(failing + step, end)
        if holds(_double(probe)):
            break
        if probe == end:
            raise ValueError("no positive finite double in that direction satisfies the bound")
        failing, step = probe, step * 2
    return _double(_bisect(holds, failing, probe))


def probabilities(weights: Sequence[float]) -> list[Fraction]:
    """The exact probabilities ``w_j / sum(w)`` of double weights (the law
    :class:`~ldp._sampling.ExactLaw` samples), as fractions.

    Examples
    --------
    >>> from ldp._exact import probabilities
    >>> probabilities([3.0, 1.0])
    [Fraction(3, 4), Fraction(1, 4)]
    """
    exact = [Fraction(float(w)) for w in weights]
    total = sum(exact)
    return [w / total for w in exact]


def certified_epsilon(ratio: Fraction | float | int | None, budget: float) -> float:
    """The level to state for a sampler whose largest likelihood ratio is ``ratio``.

    ``budget`` (the level the mechanism was asked for) when ``ratio <= e^budget`` exactly, so
    that a calibrated sampler states the number its designer asked for; otherwise
    :func:`log_up` of the ratio. Never below the realised level.

    Examples
    --------
    >>> from ldp._exact import certified_epsilon, exp_down
    >>> certified_epsilon(exp_down(0.5), 0.5)   # log_up would give 0.49999999999999994
    0.5
    >>> certified_epsilon(3.0, 1.0) > 1.0
    True
    """
    if ratio is not None and within_exp(ratio, budget):
        return float(budget)
    return log_up(ratio)


def exp_down(t: float) -> float:
    """The largest double ``w`` with ``w <= e^t`` (``t`` at most about 709.78).

    A sampler weight ``w = exp_down(eps)`` realises a level of at most ``eps`` exactly.

    Examples
    --------
    >>> import math
    >>> from ldp._exact import exp_down, compare_exp
    >>> w = exp_down(1.0)
    >>> compare_exp(w, 1.0) < 0 < compare_exp(math.nextafter(w, math.inf), 1.0)
    True
    """
    t = float(_fraction(t, "t"))
    if t > _LOG_MAX:
        raise ValueError(f"e^{t!r} is not below the largest double")
    w = math.exp(t)
    while compare_exp(w, t) > 0:
        w = math.nextafter(w, 0.0)
    while True:
        above = math.nextafter(w, math.inf)
        if compare_exp(above, t) > 0:
            return w
        w = above


def exp_up(t: float) -> float:
    """The smallest double ``w`` with ``w >= e^t``.

    Examples
    --------
    >>> import math
    >>> from ldp._exact import exp_up, compare_exp
    >>> w = exp_up(-1.0)
    >>> compare_exp(w, -1.0) > 0 > compare_exp(math.nextafter(w, 0.0), -1.0)
    True
    """
    t = float(_fraction(t, "t"))
    if t > _LOG_MAX:
        raise ValueError(f"e^{t!r} is not below the largest double")
    w = math.exp(t)
    while compare_exp(w, t) < 0:
        w = math.nextafter(w, math.inf)
    while w > 0.0:
        below = math.nextafter(w, 0.0)
        if compare_exp(below, t) < 0:
            return w
        w = below
    return w


#: ``log`` of the largest double.
_LOG_MAX = math.log(sys.float_info.max)


def _exact_sum(values: np.ndarray) -> Fraction:
    """The exact sum of non-negative finite doubles (integer arithmetic)."""
    mantissas, exponents = np.frexp(values)
    integers = (mantissas * 2.0**53).astype(np.int64)  # exact: 53-bit mantissas
    exponents = exponents.astype(np.int64) - 53
    low = int(exponents.min()) if exponents.size else 0
    total = sum(int(m) << int(e - low) for m, e in zip(integers, exponents) if m)
    return Fraction(total) * Fraction(2) ** low


def _row_groups(weights: np.ndarray) -> tuple[np.ndarray, list[Fraction]]:
    """Rows grouped by their multiset of entries (so by their exact sum), and each group's
    exact sum: a permutation-structured channel (k-RR) has one group."""
    ordered = np.sort(weights, axis=1)
    keys: dict[bytes, int] = {}
    groups = np.empty(weights.shape[0], dtype=np.int64)
    sums: list[Fraction] = []
    for x, row in enumerate(ordered):
        key = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
        if key not in keys:
            keys[key] = len(sums)
            sums.append(_exact_sum(row))
        groups[x] = keys[key]
    return groups, sums


def _extremes(
    mask: np.ndarray, weights: np.ndarray, groups: np.ndarray, sums: list[Fraction], top: bool
) -> list[Fraction]:
    """Per column, the exact largest (``top``) or smallest probability among the rows
    ``mask`` marks. Equal weights in rows of one group have equal probabilities: a column
    whose candidates all share one (weight, group) pair is decided by one division, cached
    across columns; the others row by row."""
    bits = weights.view(np.int64)
    rows = np.broadcast_to(groups[:, None], weights.shape)
    big = np.iinfo(np.int64).max
    same = (np.where(mask, bits, big).min(axis=0) == np.where(mask, bits, -1).max(axis=0)) & (
        np.where(mask, rows, big).min(axis=0) == np.where(mask, rows, -1).max(axis=0)
    )
    first = np.argmax(mask, axis=0)
    cache: dict[tuple[float, int], Fraction] = {}

    def probability(x: int, z: int) -> Fraction:
        key = (float(weights[x, z]), int(groups[x]))
        if key not in cache:
            cache[key] = Fraction(key[0]) / sums[key[1]]
        return cache[key]

    out = []
    for z in range(weights.shape[1]):
        if same[z]:
            out.append(probability(int(first[z]), z))
            continue
        values = [probability(int(x), z) for x in np.flatnonzero(mask[:, z])]
        out.append(max(values) if top else min(values))
    return out


def largest_likelihood_ratio(matrix: np.ndarray) -> Fraction | None:
    """The largest ``P(z | x) / P(z | x')`` of the rows of ``matrix`` divided by their exact
    sums (the law an exact sampler realises), exactly; ``None`` when it is infinite (an output
    possible under one row and impossible under another).

    Floating point finds the candidates (the rows within ``1e-9`` of each column's maximum and
    minimum; every row where probabilities approach underflow); exact rationals decide among
    them, once per distinct (entry, row multiset) pair, so that structured channels (k-RR at
    k = 4096) take a fraction of a second.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._exact import largest_likelihood_ratio
    >>> largest_likelihood_ratio(np.array([[0.75, 0.25], [0.25, 0.75]]))
    Fraction(3, 1)
    >>> largest_likelihood_ratio(np.array([[1.0, 0.0], [0.5, 0.5]])) is None
    True
    """
    weights = np.asarray(matrix, dtype=np.float64)
    used = weights.max(axis=0) > 0
    weights = weights[:, used]
    if weights.shape[1] == 0:
        return Fraction(1)
    if np.any(weights.min(axis=0) == 0):
        return None
    floats = weights / weights.sum(axis=1, keepdims=True)
    high, low = floats.max(axis=0), floats.min(axis=0)
    fragile = low < 1e-280  # near underflow: every row is a candidate
    tops = (floats >= high * (1 - 1e-9)) | fragile
    bottoms = (floats <= low * (1 + 1e-9)) | fragile
    groups, sums = _row_groups(weights)
    largest = _extremes(tops, weights, groups, sums, top=True)
    smallest = _extremes(bottoms, weights, groups, sums, top=False)
    return max(Fraction(1), *(a / b for a, b in zip(largest, smallest)))
