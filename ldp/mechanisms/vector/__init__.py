"""Vector randomizers: mean estimation on the unit ball (PrivUnit, PrivUnitG)."""

from ldp.mechanisms.vector.privunit import PrivUnit, PrivUnitG
from ldp.mechanisms.vector.privunit_design import PrivUnitDesign, privunit_design

__all__ = [
    "PrivUnit",
    "PrivUnitDesign",
    "PrivUnitG",
    "privunit_design",
]
