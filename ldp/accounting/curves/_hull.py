"""Convex-hull geometry of piecewise-linear trade-off curves.

The lower convex hull of points and the upper envelope of lines on ``[0, 1]``: how a curve
is built from vertices or from a family of supporting lines (a privacy profile).
"""

from __future__ import annotations

import numpy as np

__all__ = ["lower_hull", "upper_envelope"]


def _monotone_chain(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain over the points ``idx`` (sorted by ``x``): the lower hull."""
    hull: list[int] = []
    for i in idx.tolist():
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            cross = (x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a])
            if cross <= 0.0:
                hull.pop()
            else:
                break
        hull.append(i)
    return np.array(hull, dtype=np.int64)


def lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the lower convex hull of points, sorted by ``x``: ``O(N log N)``.

    After sorting, every point on or above the chord of its two neighbours is not a hull
    vertex, so such points are dropped at once (vectorised; of two flagged neighbours only
    one per pass) until none is left; curves that are convex up to rounding need a few
    passes. More than 64 passes hand the
    survivors to the monotone chain (linear after the sort).
    """
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    keep = np.ones(len(x), dtype=bool)
    keep[1:] = x[1:] != x[:-1]  # same x: keep the smallest y (first after lexsort)
    x, y = x[keep], y[keep]
    idx = np.arange(len(x))
    for _ in range(64):
        if idx.size <= 2:
            break
        xa, xb, xc = x[idx[:-2]], x[idx[1:-1]], x[idx[2:]]
        ya, yb, yc = y[idx[:-2]], y[idx[1:-1]], y[idx[2:]]
        drop = (xb - xa) * (yc - ya) - (yb - ya) * (xc - xa) <= 0.0
        if not np.any(drop):
            break
        # never two neighbours in one pass: each test assumes both neighbours stay, and two
        # near-coincident points can each look on the chord through the other (rounding),
        # which would drop a true vertex; of a run of flagged points every other one goes
        pos = np.arange(drop.size)
        first = drop & ~np.concatenate(([False], drop[:-1]))
        run_start = np.maximum.accumulate(np.where(first, pos, 0))
        drop &= (pos - run_start) % 2 == 0
        survive = np.ones(idx.size, dtype=bool)
        survive[1:-1] = ~drop
        idx = idx[survive]
    else:
        idx = _monotone_chain(x, y, idx)
    return x[idx], y[idx]


def upper_envelope(slopes: np.ndarray, intercepts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices on ``[0, 1]`` of ``max(0, max_i slopes_i * x + intercepts_i)``.

    The lines of the upper envelope are the lower hull of the dual points
    ``(slope, -intercept)``, in order of increasing slope; consecutive ones cross at
    increasing ``x``, and between two crossings one line is the maximum. ``O(N log N)``
    time and ``O(N)`` memory.
    """
    slopes = np.append(np.asarray(slopes, dtype=np.float64), 0.0)
    intercepts = np.append(np.asarray(intercepts, dtype=np.float64), 0.0)
    a, minus_b = lower_hull(slopes, -intercepts)
    b = -minus_b
    if a.size == 1:
        grid = np.array([0.0, 1.0])
        return grid, np.clip(a[0] * grid + b[0], 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cuts = (b[:-1] - b[1:]) / (a[1:] - a[:-1])
    inside = np.isfinite(cuts) & (cuts > 0.0) & (cuts < 1.0)
    grid = np.union1d([0.0, 1.0], cuts[inside])
    j = np.clip(np.searchsorted(cuts, grid, side="left"), 0, a.size - 1)
    values = a[j] * grid + b[j]
    before = np.maximum(j - 1, 0)  # at a crossing both lines are the maximum
    values = np.maximum(values, a[before] * grid + b[before])
    return grid, np.clip(values, 0.0, 1.0)
