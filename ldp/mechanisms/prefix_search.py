"""Deprecated: ``ldp.mechanisms.prefix_search`` moved to ``ldp.tasks.prefix_search``
(the tasks layer).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "HeavyHitterLevel": "ldp.tasks.hitters",
        "HeavyHitters": "ldp.tasks.hitters",
        "MAX_BITS": "ldp.mechanisms.longitudinal.rappor_bloom",
        "PEM": "ldp.tasks.prefix_search",
        "TreeHist": "ldp.tasks.prefix_search",
        "decode_strings": "ldp.tasks.strings",
        "encode_strings": "ldp.tasks.strings",
        "heavy_hitters": "ldp.tasks.prefix_search",
    },
)
