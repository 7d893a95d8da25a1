"""The continuous draws the numeric and vector mechanisms share, one home for each sampler
the clients reproduce: exponential and normal draws from the exact byte stream, and the
unbiased randomized rounding of an output to its grid.
"""

from __future__ import annotations

import math

import numpy as np

from ldp._sampling import bernoulli, uniform, zero_bits

#: Bits of the output grid below the scale of a continuous mechanism's output.
GRID_BITS = 24


def grid_step(scale: float) -> float:
    """The power of two ``2^(floor(log2 scale) - GRID_BITS)``."""
    return math.ldexp(1.0, math.frexp(scale)[1] - 1 - GRID_BITS)


#: ``log 2`` as a double (the clients use the same literal).
LN2 = 0.6931471805599453
#: ``2 pi`` as a double (the clients use the same literal).
TWO_PI = 6.283185307179586
#: Zero bits of the exponential sampler beyond which a report cannot occur in practice
#: (probability ``2^-1100``, below the smallest double): the Laplace report range.
LAPLACE_TAIL_BITS = 1100


def snap_to_grid(y: np.ndarray, step: float, gen) -> np.ndarray:
    """Unbiased randomized rounding of ``y`` to multiples of ``step`` (a power of two): up
    with probability exactly the fractional part (an exact coin, :func:`bernoulli`)."""
    scaled = y / step  # exact: step is a power of two
    low = np.floor(scaled)
    return (low + bernoulli(gen, scaled - low)) * step


def exponential_draws(n: int, gen) -> np.ndarray:
    """``n`` standard exponential draws ``E = log(2) J + R`` with an unbounded tail.

    ``J`` (``P(J >= j) = 2^-j``) counts the zero bits before the first one bit of the byte
    stream (exact); ``R = -log1p(-U/2)`` with ``U`` uniform on ``[0, 1)`` is an exponential
    conditioned on ``[0, log 2)``. By memorylessness ``E`` is exponential, and unlike
    ``-log(u)`` of one 53-bit uniform it is not cut off at ``53 log 2``.
    """
    steps = zero_bits(gen, n).astype(np.float64)
    rest = -np.log1p(-0.5 * uniform(gen, n))
    return LN2 * steps + rest


def gaussian_draws(gen, n: int) -> np.ndarray:
    """``n`` standard normal draws by Box-Muller: ``sqrt(-2 log1p(-U1)) cos(2 pi U2)``."""
    first = uniform(gen, n)
    second = uniform(gen, n)
    return np.sqrt(-2.0 * np.log1p(-first)) * np.cos(TWO_PI * second)


#: Largest standard normal draw of :func:`gaussian_tail_draws`: ``sqrt(2 E)`` with ``E`` at most
#: ``log 2`` times ``LAPLACE_TAIL_BITS + 1``.
GAUSSIAN_REACH = math.sqrt(2.0 * LN2 * (LAPLACE_TAIL_BITS + 1))


def gaussian_tail_draws(gen, n: int) -> np.ndarray:
    """``n`` standard normal draws ``sqrt(2 E) cos(2 pi U)`` (Box-Muller in polar form) with
    ``E`` from :func:`exponential_draws`, so the radius has the untruncated tail that the
    one-uniform form ``sqrt(-2 log(u))`` lacks (it stops at ``8.6``)."""
    radius = np.sqrt(2.0 * exponential_draws(n, gen))
    return radius * np.cos(TWO_PI * uniform(gen, n))


def unit_rows(rows: np.ndarray) -> np.ndarray:
    """Rows divided by their Euclidean norms (a zero row, which the samplers draw with
    probability 0, becomes the first basis vector); ``rows`` is changed in place."""
    norms = np.sqrt((rows * rows).sum(axis=1))
    zero = norms == 0
    rows[zero] = 0.0
    rows[zero, 0] = 1.0
    norms[zero] = 1.0
    return rows / norms[:, None]
