"""Small helpers shared by the accounting modules (argument checks, scalar/array output)."""

from __future__ import annotations

from ldp._validation import as_levels
from ldp._validation import scalar_or_array as out

__all__ = ["SHAPE_TOLERANCE", "as_levels", "out"]

#: Relative tolerance used when checking user-supplied trade-off values (convexity, order).
SHAPE_TOLERANCE = 1e-9
