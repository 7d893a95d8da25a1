"""Deprecated: ``ldp.mechanisms.channels`` moved to ``ldp.mechanisms.categorical.channels``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "MAX_K": "ldp.mechanisms.categorical.channels",
        "binary_erasure": "ldp.mechanisms.categorical.channels",
        "binary_mechanism_with_erasure": "ldp.mechanisms.categorical.channels",
        "eta_max": "ldp.mechanisms.categorical.channels",
        "k_rr": "ldp.mechanisms.categorical.channels",
        "randomized_response": "ldp.mechanisms.categorical.channels",
    },
)
