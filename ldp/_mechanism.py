"""Deprecated home of the core abstraction, now :mod:`ldp.core`.

Kept for one release so that old imports and pickles naming ``ldp._mechanism`` still load;
every name read from here warns with a :class:`DeprecationWarning` naming its new module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "Ball": "ldp.core.domains",
        "Categories": "ldp.core.domains",
        "Domain": "ldp.core.domains",
        "Interval": "ldp.core.domains",
        "Items": "ldp.core.domains",
        "check_unit_values": "ldp.core.domains",
        "Field": "ldp.core.codec",
        "ReportCodec": "ldp.core.codec",
        "default_where": "ldp.core.codec",
        "float_codec": "ldp.core.codec",
        "index_codec": "ldp.core.codec",
        "Mechanism": "ldp.core.mechanism",
        "finite_or_none": "ldp.core.mechanism",
        "canonical_json": "ldp.core.canonical",
    },
)
