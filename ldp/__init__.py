"""ldpkit: local differential privacy with guarantees computed from the mechanism itself.

The core objects are :class:`Channel`, a finite local randomizer held as a row-stochastic
matrix whose epsilon, delta profile and eta-TV are computed exactly, and the constructors of
:mod:`ldp.mechanisms`.

Examples
--------
>>> import ldp
>>> krr = ldp.k_rr(4, 1.0)
>>> round(krr.epsilon, 12)
1.0
>>> krr.is_ldp(1.0)
True
"""

from ldp import accounting, contraction, divergences, risk
from ldp._warnings import PrivacyLeakWarning
from ldp.channel import Channel
from ldp.mechanisms import (
    binary_erasure,
    binary_mechanism_with_erasure,
    eta_max,
    k_rr,
    randomized_response,
)

__version__ = "0.1.0"

__all__ = [
    "Channel",
    "PrivacyLeakWarning",
    "accounting",
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "contraction",
    "divergences",
    "eta_max",
    "k_rr",
    "randomized_response",
    "risk",
]
