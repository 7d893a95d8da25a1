"""Argument checks and small closed forms shared by the :mod:`ldp.contraction` modules."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._formulas import eta_max
from ldp._validation import check_eta_range, check_scalar
from ldp.channel import Channel

__all__ = [
    "KINDS",
    "as_channel",
    "check_eta",
    "check_gamma",
    "check_kind",
    "positive_part_ratio",
    "unit",
]

#: Kinds accepted by :func:`~ldp.contraction.coefficient` and
#: :func:`~ldp.contraction.best_bound`.
KINDS = ("tv", "hockey_stick", "chi2", "kl", "hellinger", "f")


def as_channel(channel: Channel | ArrayLike) -> Channel:
    """``channel`` as a :class:`~ldp.Channel` (validated when given as a matrix)."""
    return channel if isinstance(channel, Channel) else Channel(channel)


def check_kind(kind: object) -> str:
    """The divergence name, one of :data:`KINDS` (``"e_gamma"`` etc. mean ``"hockey_stick"``)."""
    if not isinstance(kind, str):
        raise TypeError(f"kind must be a string, one of {KINDS}, got {kind!r}")
    name = kind.lower()
    if name in ("e_gamma", "egamma", "hockey-stick"):
        name = "hockey_stick"
    if name not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return name


def check_gamma(gamma: object) -> float:
    """The order of ``E_gamma``: ``gamma > 0`` (``inf`` allowed)."""
    if gamma is None:
        raise ValueError("gamma is required for kind='hockey_stick' (E_gamma with gamma > 0)")
    value = check_scalar(gamma, "gamma", low=0.0, allow_inf=True)
    if value == 0.0:
        raise ValueError(
            "gamma must be > 0: E_0 is identically zero, so its contraction coefficient is "
            "undefined, got gamma=0.0"
        )
    return value


def check_eta(eta: object, epsilon: float, delta: float = 0.0) -> float:
    """A TV level in ``[delta, eta_max(epsilon, delta)]`` (clamped within rounding)."""
    top = eta_max(epsilon, delta)
    return check_eta_range(
        eta,
        delta,
        top,
        f"epsilon={epsilon!r}, delta={delta!r} "
        "(the range is [delta, delta + (1 - delta) tanh(epsilon/2)])",
    )


def unit(k: int, i: int) -> np.ndarray:
    """The point mass on input ``i`` of ``k``."""
    out = np.zeros(k)
    out[i] = 1.0
    return out


def positive_part_ratio(eps: float, gamma: float, offset: float) -> float:
    """``(e^eps - gamma)_+ / (e^eps + offset)``, stable for large ``eps`` and ``gamma = inf``."""
    if math.isinf(gamma):
        return 0.0
    tail = math.exp(-eps)  # numerator and denominator divided by e^eps; 0 at eps = inf
    return max(0.0, (1.0 - gamma * tail) / (1.0 + offset * tail))
