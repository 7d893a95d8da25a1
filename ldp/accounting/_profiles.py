"""Privacy profiles ``H(gamma) = D_gamma(P || Q)`` of curves, for comparing them on a grid.

Shared by :mod:`ldp.accounting.comparison` (Delta-divergence, approximate GDP, Theorem B.1)
and :mod:`ldp.accounting.blackwell` (the Blackwell order of curves).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldp.accounting.tradeoff import TradeOffFunction

__all__ = ["LOG_GAMMA", "Profile", "as_profile"]

Profile = Callable[[np.ndarray], np.ndarray]

#: The grid of ``log gamma`` on which curves are compared (then refined).
LOG_GAMMA = np.linspace(-30.0, 30.0, 6001)


def as_profile(curve: object, name: str) -> Profile:
    """The remove-direction profile ``H(gamma)`` of a curve, or a checked profile callable."""
    if isinstance(curve, TradeOffFunction):
        if curve.approx:
            raise ValueError(f"{name} is an approximation, not a trade-off curve; refused")

        def h(gamma: np.ndarray) -> np.ndarray:
            g = np.asarray(gamma, dtype=np.float64)
            with np.errstate(divide="ignore"):
                return np.asarray(curve.delta(np.log(g)), dtype=np.float64)

        return h
    if callable(curve) and not isinstance(curve, type):

        def hp(gamma: np.ndarray) -> np.ndarray:
            values = np.asarray(curve(np.asarray(gamma, dtype=np.float64)), dtype=np.float64)
            if values.shape != np.shape(gamma) or not np.all(np.isfinite(values)):
                raise ValueError(f"{name} must map gamma to finite profile values of its shape")
            return values

        return hp
    raise TypeError(
        f"{name} must be a TradeOffFunction or a profile callable, got {type(curve).__name__}"
    )
