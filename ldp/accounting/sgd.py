"""Deprecated home: NoisySGD accounting moved to :mod:`ldp.accounting.central`.

Every public name of this module still imports from here for one release, with a
``DeprecationWarning`` naming its new name and home (pickles saved under this path load).
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.central.sgd"

__getattr__ = moved_names(
    __name__,
    {
        "BerryEsseenTradeOff": (_HOME, "BerryEsseenTradeOff"),
        "NoisySGDComposition": (_HOME, "NoisySGDComposition"),
        "noisy_sgd": (_HOME, "noisy_sgd"),
        "poisson_sgd_tradeoff": (_HOME, "poisson_sgd_tradeoff"),
        "subsampled_gaussian_pld": (_HOME, "subsampled_gaussian_pld"),
    },
)
