"""Deprecated: ``ldp.mechanisms.decoding`` moved to ``ldp.tasks.decoding``
(the tasks layer).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "ChannelOracle": "ldp.tasks.decoding",
        "check_decodable": "ldp.tasks.decoding",
        "frequency_decoder": "ldp.tasks.decoding",
    },
)
