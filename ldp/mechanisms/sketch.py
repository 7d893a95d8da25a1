"""Deprecated: ``ldp.mechanisms.sketch`` moved to ``ldp.mechanisms.sketches.sketch``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "CMS": "ldp.mechanisms.sketches.sketch",
        "CountMeanSketch": "ldp.mechanisms.sketches.sketch",
        "HCMS": "ldp.mechanisms.sketches.sketch",
        "MAX_DEPTH": "ldp.mechanisms.sketches.sketch",
        "MAX_SALT_BYTES": "ldp.mechanisms.sketches.sketch",
        "Sketch": "ldp.mechanisms.sketches.sketch",
        "SketchCounts": "ldp.mechanisms.sketches.sketch",
    },
)
