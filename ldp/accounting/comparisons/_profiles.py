"""Privacy profiles ``H(gamma) = D_gamma(P || Q)`` of curves, for comparing them on a grid.

Shared by :mod:`ldp.accounting.comparisons.comparison` (Delta-divergence, approximate GDP,
Theorem B.1) and :mod:`ldp.accounting.comparisons.blackwell` (the Blackwell order of curves).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldp.core import PrivacyProfile, check_privacy_profile

__all__ = ["LOG_GAMMA", "Profile", "as_profile"]

Profile = Callable[[np.ndarray], np.ndarray]

#: The grid of ``log gamma`` on which curves are compared (then refined).
LOG_GAMMA = np.linspace(-30.0, 30.0, 6001)


def as_profile(curve: object, name: str) -> Profile:
    """The remove-direction profile ``H(gamma)`` of a privacy profile (a curve, a mechanism,
    a channel: its ``delta(log gamma)``), or a checked profile callable ``gamma -> H``."""
    if isinstance(curve, PrivacyProfile) and not isinstance(curve, type):
        if getattr(curve, "approx", False):
            raise ValueError(f"{name} is an approximation, not a trade-off curve; refused")
        profile = curve

        def h(gamma: np.ndarray) -> np.ndarray:
            g = np.asarray(gamma, dtype=np.float64)
            with np.errstate(divide="ignore"):
                return np.asarray(profile.delta(np.log(g)), dtype=np.float64)

        return h
    if callable(curve) and not isinstance(curve, type):

        def hp(gamma: np.ndarray) -> np.ndarray:
            values = np.asarray(curve(np.asarray(gamma, dtype=np.float64)), dtype=np.float64)
            if values.shape != np.shape(gamma) or not np.all(np.isfinite(values)):
                raise ValueError(f"{name} must map gamma to finite profile values of its shape")
            return values

        return hp
    check_privacy_profile(curve, name)  # raises: neither a privacy profile nor a callable
    raise AssertionError("unreachable")  # pragma: no cover
