"""Deprecated: ``ldp.mechanisms.memo`` moved to ``ldp.mechanisms.longitudinal.memo``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "MEMO_FORMAT": "ldp.mechanisms.longitudinal.memo",
        "Memo": "ldp.mechanisms.longitudinal.memo",
    },
)
