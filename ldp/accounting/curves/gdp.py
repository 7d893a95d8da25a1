"""Gaussian differential privacy: conversions between ``mu`` and ``(epsilon, delta)``.

The formulas and their numerics live in :mod:`ldp._gdp` (a leaf module the mechanisms use
too); this module is their home in the accountant.
"""

from __future__ import annotations

from ldp._gdp import (
    get_delta_from_gdp,
    get_epsilon_from_gdp,
    get_mu_from_epsilon_delta,
    get_tv_from_gdp,
)

__all__ = [
    "get_delta_from_gdp",
    "get_epsilon_from_gdp",
    "get_mu_from_epsilon_delta",
    "get_tv_from_gdp",
]
