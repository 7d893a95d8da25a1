"""Unbiased mean mechanisms for bounded numbers and vectors under pure LDP (and the
Gaussian mechanism, which is ``mu``-GDP).

Inputs lie in ``[-1, 1]`` (``[0, 1]`` for :class:`SquareWave`; the ball of radius
``radius`` for :class:`DuchiL2`); rescale first. Values outside the domain raise, they are
never clipped. Each class cites the paper its formulas come from.

**Floating point (Mironov 2012).** A continuous mechanism implemented naively on doubles
leaks: ``x + scale * log(u)`` reaches a set of doubles that depends on ``x`` (so some outputs
are impossible under one input and possible under another), and a uniform ``u`` with 53 bits
truncates the tails. The continuous mechanisms here (:class:`Laplace`, :class:`Piecewise`,
:class:`SquareWave`, and :class:`Hybrid` through its piecewise part) therefore release
their output rounded to a fixed grid, ``resolution`` = a power of two ``2^-24`` times the
output's scale, by *unbiased randomized rounding* (up with probability equal to the
fractional part). Rounding the exact continuous output this way is post-processing, so the
idealised released law is exactly ``epsilon``-LDP and unbiased, and every grid point is
reachable from every input; Laplace noise comes from an exponential sampler with an
unbounded tail (a geometric number of ``log 2`` steps plus a 53-bit remainder). What remains
is the rounding of the double computed before snapping: at most a few ulps, i.e. a relative
error of about ``2^-28`` in the probability of a grid cell near the input (growing with
``|y| / scale`` in the Laplace tail), which changes the privacy loss by about ``1e-8``, not
the set of possible outputs. The variance formulas omit the rounding's own variance, at most
``resolution^2 / 4`` (about ``1e-15`` relative).

**Calibrated constants.** The constants of every sampler are doubles chosen so that the law
they realise is ``epsilon``-LDP *exactly*, not up to rounding: a coin's odds ``e^eps`` is the
largest double at most ``e^eps`` (:func:`ldp._exact.exp_down`), a scale ``2 / eps`` is the
smallest double whose level ``2 / scale`` is at most ``eps``, and any other constant moves
from its nominal value, one double at a time towards more privacy, until the largest
likelihood ratio it realises (an exact rational of the doubles) is at most ``e^eps``. Each
``epsilon`` is then the level asked for (:func:`ldp._exact.certified_epsilon`), and the
decoders, bounds and variances are computed from the calibrated constants, so that the
estimates are unbiased for the law actually sampled.
"""

from ldp._deprecation import forward
from ldp.mechanisms.numeric.distribution import (
    METHODS,
    NumericDistribution,
    em_histogram,
    square_wave_transition,
)
from ldp.mechanisms.numeric.duchi import Duchi, DuchiL2
from ldp.mechanisms.numeric.gaussian import Gaussian
from ldp.mechanisms.numeric.laplace import Laplace
from ldp.mechanisms.numeric.piecewise import Hybrid, Piecewise, hybrid_threshold
from ldp.mechanisms.numeric.square_wave import SquareWave
from ldp.mechanisms.numeric.staircase import Staircase, staircase_tv

__all__ = [
    "METHODS",
    "Duchi",
    "DuchiL2",
    "Gaussian",
    "Hybrid",
    "Laplace",
    "NumericDistribution",
    "Piecewise",
    "SquareWave",
    "Staircase",
    "em_histogram",
    "hybrid_threshold",
    "square_wave_transition",
    "staircase_tv",
]

#: Other names of the old module ``ldp.mechanisms.numeric``, now in their own homes.
__getattr__ = forward(
    __name__,
    {
        "GAUSSIAN_REACH": "ldp.mechanisms.draws",
        "GRID_BITS": "ldp.mechanisms.draws",
        "LAPLACE_TAIL_BITS": "ldp.mechanisms.draws",
        "LN2": "ldp.mechanisms.draws",
        "MAX_BINS": "ldp.mechanisms.numeric.distribution",
        "TWO_PI": "ldp.mechanisms.draws",
        "exponential_draws": "ldp.mechanisms.draws",
        "gaussian_draws": "ldp.mechanisms.draws",
        "gaussian_tail_draws": "ldp.mechanisms.draws",
        "grid_step": "ldp.mechanisms.draws",
        "report_histogram": "ldp.mechanisms.numeric.distribution",
        "snap_to_grid": "ldp.mechanisms.draws",
    },
)
