"""The result object of :mod:`ldp.risk` and the argument handling its calculators share."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar

from ldp._formulas import eta_max
from ldp._validation import (
    check_epsilon,
    check_integer,
    check_pmf,
    check_probability,
    check_scalar,
    describe,
)
from ldp.channel import Channel
from ldp.contraction import phi

__all__ = ["Bound"]


@dataclass(frozen=True)
class Bound:
    """A number reported by :mod:`ldp.risk`, with the theorem it came from.

    Parameters
    ----------
    value : float
        The number (never NaN; ``inf`` and ``0`` are reported honestly).
    method : str
        The theorem or construction that produced it, e.g.
        ``"private Le Cam (Asoodeh-Aliakbarpour-Calmon (2021), Lemma 3: ...)"``.
    quantity : str
        What ``value`` bounds: ``"minimax risk lower bound"``, ``"Bayes risk lower bound"``,
        ``"mutual information upper bound"``, ``"risk of estimator"``, ...
    params : mapping
        The inputs that mattered (the optimised separation, ``zeta``, ``omega``, the
        contraction factor used, ...). Each key is also readable as an attribute.
    rate : str or None
        For presets, the order of the bound as an expression.

    Examples
    --------
    >>> from ldp.risk import Bound
    >>> b = Bound(0.25, "example", "minimax risk lower bound", {"zeta": 0.5})
    >>> float(b), b.zeta
    (0.25, 0.5)
    """

    value: float
    method: str
    quantity: str
    params: Mapping[str, object] = field(default_factory=dict, hash=False)
    rate: str | None = None

    def __post_init__(self) -> None:
        value = float(self.value)
        if math.isnan(value):
            raise ValueError(f"{self.method}: computed value is NaN")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __float__(self) -> float:
        return self.value

    def __getattr__(self, name: str) -> object:
        if name.startswith("_") or name == "params":
            raise AttributeError(name)
        try:
            return self.params[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}") from None

    def __reduce__(self):
        return (Bound, (self.value, self.method, self.quantity, dict(self.params), self.rate))

    def __repr__(self) -> str:
        extra = ", ".join(f"{k}={_short(v)}" for k, v in self.params.items())
        rate = f", rate={self.rate!r}" if self.rate else ""
        return (
            f"Bound(value={self.value:.6g}, method={self.method!r}, "
            f"quantity={self.quantity!r}, params={{{extra}}}{rate})"
        )


def _short(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value)


# ---------------------------------------------------------------------------------- arguments
MINIMAX = "minimax risk lower bound"
BAYES = "Bayes risk lower bound"


def check_n(n: object) -> int:
    return check_integer(n, "n", low=1)


def check_support(support: Any) -> tuple[float, float, float]:
    """``(low, high, high - low)`` of a finite support ``(low, high)`` with ``low < high``."""
    try:
        low, high = (float(x) for x in support)
    except (TypeError, ValueError):
        raise TypeError(f"support must be a pair (low, high), got {describe(support)}") from None
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        raise ValueError(f"support must be finite with low < high, got ({low!r}, {high!r})")
    return low, high, high - low


def check_error_rates(alpha: object, beta: object) -> tuple[float, float]:
    """A test's type-I and type-II error targets, each in ``(0, 1)``."""
    size_one = check_scalar(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    size_two = check_scalar(beta, "beta", low=0.0, high=1.0, low_open=True, high_open=True)
    return size_one, size_two


def check_positive(value: object, name: str) -> float:
    return check_scalar(value, name, low=0.0, low_open=True)


def check_nonnegative(value: object, name: str, *, allow_inf: bool = True) -> float:
    return check_scalar(value, name, low=0.0, allow_inf=allow_inf)


@dataclass(frozen=True)
class Privacy:
    """Either a worst-case ``(epsilon, delta)`` budget or a concrete channel."""

    epsilon: float
    delta: float
    channel: Channel | None

    @property
    def private(self) -> bool:
        return self.channel is not None or not (math.isinf(self.epsilon) or self.delta == 1.0)

    def factor(self, n: int = 1) -> float:
        """``phi_n(eps, delta)`` of Asoodeh-Aliakbarpour-Calmon (2021) (``1`` without
        privacy)."""
        return phi(self.epsilon, self.delta, n)

    @property
    def tanh_factor(self) -> float:
        """``tanh^2(eps / 2)``: every eps-LDP channel contracts KL, chi^2 and squared
        Hellinger by at most this (Ghazi-Issa (2023), Theorem 5, with
        ``eta_TV <= tanh(eps/2)``: their eq. (26) prints the reciprocal, which exceeds 1; KL,
        chi^2 and Hellinger share one coefficient, Choi-Ruskai-Seneta (1994)). It is below
        ``phi(eps, 0) = 1 - e^-eps`` for every ``eps > 0``. Pure LDP only."""
        return eta_max(self.epsilon) ** 2

    @property
    def djw(self) -> bool:
        """Whether the Duchi-Jordan-Wainwright pure-LDP inequalities apply (finite epsilon up
        to 350: beyond, their constant ``(e^eps - 1)^2`` overflows, and they are vacuous long
        before)."""
        return self.channel is None and self.delta == 0.0 and self.epsilon <= 350.0

    @property
    def djw_factor(self) -> float:
        """``(e^eps - 1)^2``, the DJW strong-DPI constant (pure epsilon-LDP only)."""
        return math.expm1(self.epsilon) ** 2


def resolve_privacy(epsilon: object, delta: object, channel: object) -> Privacy:
    """Validate the privacy arguments shared by every calculator."""
    if channel is not None:
        if epsilon is not None:
            raise ValueError(
                "pass either epsilon/delta (worst case over all LDP channels) or channel "
                f"(a concrete mechanism), not both; got epsilon={epsilon!r}"
            )
        if not (isinstance(delta, numbers.Real) and float(delta) == 0.0):
            raise ValueError(f"delta is not used with a concrete channel; got delta={delta!r}")
        if not isinstance(channel, Channel):
            raise TypeError(f"channel must be an ldp.Channel, got {type(channel).__name__}")
        return Privacy(math.nan, 0.0, channel)
    if epsilon is None:
        raise TypeError(
            "pass epsilon (use float('inf') for the non-private bound) or a concrete channel"
        )
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    return Privacy(eps, d, None)


def as_pmf(value: ArrayLike, name: str) -> np.ndarray:
    return check_pmf(value, name, ndim=1)


def as_family(value: ArrayLike, name: str = "family") -> np.ndarray:
    """A 2-D array of pmfs (one hypothesis per row) with at least two rows."""
    family = check_pmf(value, name, ndim=2)
    if family.shape[0] < 2:
        raise ValueError(f"{name} must hold at least two distributions (|V| >= 2), got 1")
    return family


def push(channel: Channel | None, pmfs: np.ndarray, name: str) -> np.ndarray:
    """``pmfs @ K`` after checking the alphabet sizes agree."""
    if channel is None:
        return pmfs
    if pmfs.shape[-1] != channel.n_inputs:
        raise ValueError(
            f"{name} has {pmfs.shape[-1]} outcomes but the channel has {channel.n_inputs} inputs"
        )
    return np.asarray(pmfs @ channel.matrix)


def scaled(factor: float, amount: float) -> float:
    """``factor * amount`` with ``0 * inf = 0`` (a channel that reveals nothing)."""
    if factor == 0.0:
        return 0.0
    return factor * amount


def maximize(
    objective: Callable[[np.ndarray], np.ndarray],
    grid: np.ndarray,
) -> tuple[float, float]:
    """Maximise a 1-D objective: dense grid, then a bounded refinement around the best point.

    The objective is vectorised. Every point it is evaluated at gives a valid bound, so the
    returned value is the best *evaluated* point (the refinement is kept only if it helps).
    """
    grid = np.unique(np.asarray(grid, dtype=np.float64))
    with np.errstate(all="ignore"):
        values = np.asarray(objective(grid), dtype=np.float64)
    values = np.where(np.isnan(values), -np.inf, values)
    i = int(np.argmax(values))
    best_x, best = float(grid[i]), float(values[i])
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    if hi > lo:

        def negative(x: float) -> float:
            with np.errstate(all="ignore"):
                v = float(np.asarray(objective(np.array([x])))[0])
            return -v if not math.isnan(v) else math.inf

        res = minimize_scalar(
            negative, bounds=(float(lo), float(hi)), method="bounded", options={"xatol": 1e-13}
        )
        if np.isfinite(res.fun) and -res.fun > best:
            best_x, best = float(res.x), float(-res.fun)
    return best_x, best
