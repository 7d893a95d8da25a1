"""The two-row channels of a mechanism's worst input pair (its ``privacy_channel``).

A mechanism too large to hold as a matrix states its privacy through the channel of the two
inputs that differ most, with the reports reduced to their likelihood-ratio classes: that
channel has the mechanism's epsilon, its delta at every epsilon and its total variation.
"""

from __future__ import annotations

import numpy as np

from ldp.channel import Channel

__all__ = ["pair_channel", "window_channel"]


def pair_channel(first: list[float], second: list[float]) -> Channel:
    """The 2-row channel with rows ``first`` and ``second`` (the report classes' masses
    under each input of the worst pair), classes of mass 0 under both dropped.

    Examples
    --------
    >>> pair_channel([0.5, 0.25, 0.25, 0.0], [0.25, 0.5, 0.25, 0.0]).matrix.shape
    (2, 3)
    """
    matrix = np.array([first, second], dtype=np.float64)
    return Channel(matrix[:, matrix.sum(axis=0) > 0])


def window_channel(near: float, far: float) -> Channel:
    """Two inputs whose high-probability regions (windows, caps) are disjoint: mass
    ``near`` of each region under its own input, ``far`` under the other, the rest alike.

    Examples
    --------
    >>> window_channel(0.5, 0.125).matrix.tolist()
    [[0.5, 0.125, 0.375], [0.125, 0.5, 0.375]]
    """
    rest = max(0.0, 1.0 - near - far)
    return Channel([[near, far, rest], [far, near, rest]])
