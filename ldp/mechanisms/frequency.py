"""Deprecated: ``ldp.mechanisms.frequency`` moved to ``ldp.mechanisms.categorical``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "BLH": "ldp.mechanisms.categorical.local_hashing",
        "GRR": "ldp.mechanisms.categorical.grr",
        "HadamardResponse": "ldp.mechanisms.categorical.hadamard",
        "LocalHashing": "ldp.mechanisms.categorical.local_hashing",
        "MAX_CHANNEL_ENTRIES": "ldp.mechanisms.categorical._common",
        "OLH": "ldp.mechanisms.categorical.local_hashing",
        "OUE": "ldp.mechanisms.categorical.unary",
        "SUE": "ldp.mechanisms.categorical.unary",
        "SubsetSelection": "ldp.mechanisms.categorical.subset",
        "UnaryEncoding": "ldp.mechanisms.categorical.unary",
        "olh_buckets": "ldp.mechanisms.categorical.local_hashing",
        "optimal_subset_size": "ldp.mechanisms.categorical.subset",
        "packed_bit": "ldp.mechanisms.categorical._common",
        "packed_codec": "ldp.mechanisms.categorical.unary",
        "subset_bernoulli_bits": "ldp.mechanisms.categorical.subset",
        "unary_ratio": "ldp.mechanisms.categorical._common",
    },
)
