"""Deprecated: ``ldp.mechanisms.numeric_distribution`` moved to
``ldp.mechanisms.numeric.distribution`` (its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "MAX_BINS": "ldp.mechanisms.numeric.distribution",
        "METHODS": "ldp.mechanisms.numeric.distribution",
        "NumericDistribution": "ldp.mechanisms.numeric.distribution",
        "em_histogram": "ldp.mechanisms.numeric.distribution",
        "output_grid_edges": "ldp.mechanisms.numeric.distribution",
        "report_histogram": "ldp.mechanisms.numeric.distribution",
        "square_wave_transition": "ldp.mechanisms.numeric.distribution",
    },
)
