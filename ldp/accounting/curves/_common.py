"""Small helpers shared by the accounting modules (argument checks, scalar/array output)."""

from __future__ import annotations

import numpy as np

from ldp._validation import as_levels
from ldp._validation import scalar_or_array as out

__all__ = ["SHAPE_TOLERANCE", "as_levels", "cumulants_from_moments", "out"]

#: Relative tolerance used when checking user-supplied trade-off values (convexity, order).
SHAPE_TOLERANCE = 1e-9


def cumulants_from_moments(m: np.ndarray) -> np.ndarray:
    """The first four cumulants from the first four raw moments."""
    m1, m2, m3, m4 = m
    return np.array(
        [
            m1,
            m2 - m1**2,
            m3 - 3 * m2 * m1 + 2 * m1**3,
            m4 - 4 * m3 * m1 - 3 * m2**2 + 12 * m2 * m1**2 - 6 * m1**4,
        ]
    )
