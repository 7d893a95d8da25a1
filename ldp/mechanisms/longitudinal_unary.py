"""Deprecated: ``ldp.mechanisms.longitudinal_unary`` moved to ``ldp.mechanisms.longitudinal.unary``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "LOSUE": "ldp.mechanisms.longitudinal.unary",
        "LOUE": "ldp.mechanisms.longitudinal.unary",
        "RAPPOR": "ldp.mechanisms.longitudinal.unary",
    },
)
