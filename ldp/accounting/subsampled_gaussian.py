"""Deprecated home: the Poisson-subsampled Gaussian curve moved to :mod:`ldp.accounting.central`.

Every public name of this module still imports from here for one release, with a
``DeprecationWarning`` naming its new name and home (pickles saved under this path load).
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.central.subsampled_gaussian"

__getattr__ = moved_names(
    __name__,
    {
        "SubsampledGaussianTradeOff": (_HOME, "SubsampledGaussianTradeOff"),
        "DIRECTIONS": (_HOME, "DIRECTIONS"),
        "sg_plrv_moments": (_HOME, "subsampled_gaussian_loss_moments"),
        "sg_plrv_moments_approx": (_HOME, "subsampled_gaussian_loss_moments_approx"),
        "sg_remove_profile": (_HOME, "subsampled_gaussian_remove_profile"),
    },
)
