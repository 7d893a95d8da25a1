"""Outward rounding of privacy losses: upper bounds on ``log(a / b)`` computed in doubles.

A privacy level printed by the library must never be below the true value. ``math.log`` and
``math.log1p`` are accurate to about one unit in the last place (ulp), and each division or
subtraction adds half an ulp, so a computed log-ratio can be a few ulps below the exact one.
The functions here add a margin that covers those errors (8 units of ``2^-53`` relative to
the magnitudes involved), which keeps every result an upper bound at a cost of ``~1e-15``
relative.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["UNIT", "log_products_upper", "log_ratio_upper", "log_ratio_upper_array", "round_up"]

#: Unit roundoff of a double, ``2^-53``.
UNIT = 2.0**-53
#: Margin in units of ``UNIT``: covers one ulp of each logarithm and the rounding of the
#: arithmetic around it, with room to spare.
_MARGIN = 8.0 * UNIT


def round_up(value: float, ulps: int = 1) -> float:
    """``value`` moved up by ``ulps`` units in the last place (``inf`` and ``nan`` unchanged).

    Examples
    --------
    >>> from ldp._rounding import round_up
    >>> round_up(1.0) > 1.0
    True
    """
    out = float(value)
    for _ in range(ulps):
        out = math.nextafter(out, math.inf)
    return out


def log_ratio_upper(a: float, b: float) -> float:
    """An upper bound on ``max(0, log(a / b))`` for doubles ``a, b >= 0``, never below it.

    ``inf`` when ``b = 0 < a``; ``0`` when ``a <= b`` (a privacy loss is not negative) or
    ``a = b = 0``. Close to 1 the ratio goes through ``log1p`` of the exact difference, so
    that small losses (``eps = 1e-6``) keep their relative precision.

    Examples
    --------
    >>> import math
    >>> from ldp._rounding import log_ratio_upper
    >>> value = log_ratio_upper(math.e, 1.0)
    >>> value >= 1.0 and value - 1.0 < 1e-14
    True
    >>> log_ratio_upper(1.0, 0.0), log_ratio_upper(0.5, 1.0)
    (inf, 0.0)
    """
    a, b = float(a), float(b)
    if not (a >= 0.0 and b >= 0.0):
        raise ValueError(f"log_ratio_upper needs non-negative numbers, got a={a!r}, b={b!r}")
    if a <= b:
        return 0.0
    if b == 0.0:
        return math.inf
    if math.isinf(a):
        return math.inf
    if a <= 2.0 * b:  # a - b is exact (Sterbenz)
        value = math.log1p((a - b) / b)
        return value + value * _MARGIN + 4.0 * math.ulp(value)
    log_a, log_b = math.log(a), math.log(b)
    value = log_a - log_b
    return value + (abs(log_a) + abs(log_b)) * _MARGIN + 4.0 * math.ulp(value)


def log_ratio_upper_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise :func:`log_ratio_upper` for arrays of non-negative doubles."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a, b = np.broadcast_arrays(a, b)
    out = np.zeros(a.shape)
    positive = a > b
    infinite = positive & ((b == 0.0) | np.isinf(a))
    out[infinite] = math.inf
    finite = positive & ~infinite
    close = finite & (a <= 2.0 * b)
    far = finite & ~close
    with np.errstate(divide="ignore", invalid="ignore"):
        near_value = np.log1p((a[close] - b[close]) / b[close])
        out[close] = near_value + near_value * _MARGIN + 4.0 * np.spacing(near_value)
        log_a, log_b = np.log(a[far]), np.log(b[far])
        far_value = log_a - log_b
        out[far] = (
            far_value + (np.abs(log_a) + np.abs(log_b)) * _MARGIN + 4.0 * np.spacing(far_value)
        )
    return out


def log_products_upper(numerators: list[float], denominators: list[float]) -> float:
    """An upper bound on ``max(0, log(prod(numerators) / prod(denominators)))``.

    For positive doubles. The ratio is formed in floating point and widened by the rounding of
    its ``m`` operations (relative ``m 2^-53``) before :func:`log_ratio_upper`, which keeps
    the relative precision of small results; if the products overflow or underflow, the
    logarithms are summed exactly (:func:`math.fsum`) with a margin relative to their
    magnitudes.

    Examples
    --------
    >>> import math
    >>> from ldp._rounding import log_products_upper
    >>> value = log_products_upper([math.e, 2.0], [2.0])
    >>> value >= 1.0 and value - 1.0 < 1e-14
    True
    """
    values = [float(v) for v in (*numerators, *denominators)]
    if not all(v > 0.0 and math.isfinite(v) for v in values):
        raise ValueError(f"log_products_upper needs positive finite numbers, got {values}")
    numerator, denominator = math.prod(numerators), math.prod(denominators)
    if 0.0 < numerator < math.inf and 0.0 < denominator < math.inf:
        ratio = numerator / denominator
        if 0.0 < ratio < math.inf:
            operations = len(values)  # each product and the division round once
            widened = ratio * (1.0 + 2.0 * (operations + 1) * UNIT)
            return log_ratio_upper(widened, 1.0)
    logs = [math.log(v) for v in numerators] + [-math.log(v) for v in denominators]
    value = math.fsum(logs)
    margin = math.fsum(abs(v) for v in logs) * _MARGIN
    return max(0.0, value + margin + 4.0 * math.ulp(value))
