"""Deprecated: ``ldp.mechanisms.dbitflip`` moved to ``ldp.mechanisms.longitudinal.dbitflip``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "DBitFlipPM": "ldp.mechanisms.longitudinal.dbitflip",
    },
)
