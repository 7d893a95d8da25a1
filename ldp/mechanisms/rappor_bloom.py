"""Deprecated: ``ldp.mechanisms.rappor_bloom`` moved to ``ldp.mechanisms.longitudinal.rappor_bloom``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "BloomRAPPOR": "ldp.mechanisms.longitudinal.rappor_bloom",
        "DECODE_METHODS": "ldp.mechanisms.longitudinal.rappor_bloom",
        "MAX_BITS": "ldp.mechanisms.longitudinal.rappor_bloom",
        "MAX_COHORTS": "ldp.mechanisms.longitudinal.rappor_bloom",
        "MAX_HASHES": "ldp.mechanisms.longitudinal.rappor_bloom",
        "bloom_positions": "ldp.mechanisms.longitudinal.rappor_bloom",
    },
)
