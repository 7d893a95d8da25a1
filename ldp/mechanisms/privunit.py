"""Deprecated: ``ldp.mechanisms.privunit`` moved to ``ldp.mechanisms.vector``
(its family package).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "ENVELOPE_CAP": "ldp.mechanisms.vector.privunit_design",
        "GAUSSIAN_REACH": "ldp.mechanisms.draws",
        "MAX_DIMENSION": "ldp.mechanisms.vector.privunit_design",
        "MAX_STANDARDIZED_GAMMA": "ldp.mechanisms.vector.privunit_design",
        "MIN_CAP": "ldp.mechanisms.vector.privunit_design",
        "PrivUnit": "ldp.mechanisms.vector.privunit",
        "PrivUnitDesign": "ldp.mechanisms.vector.privunit_design",
        "PrivUnitG": "ldp.mechanisms.vector.privunit",
        "SPECIAL_FUNCTION_ERROR": "ldp.mechanisms.vector.privunit_design",
        "angle_constants": "ldp.mechanisms.vector.privunit",
        "envelope_constants": "ldp.mechanisms.vector.privunit",
        "privunit_design": "ldp.mechanisms.vector.privunit_design",
    },
)
