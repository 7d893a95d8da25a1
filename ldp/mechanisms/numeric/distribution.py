"""Distributions of a numeric column from square-wave reports: EM and EMS (Li et al. (2020)).

:class:`~ldp.mechanisms.SquareWave` reports estimate more than a mean. Li et al. (2020)
bucket the input ``[0, 1]`` into ``bins`` equal bins and the reports into ``output_bins``
bins, and fit the histogram by expectation maximisation (EM) on the transition matrix
``M[j, i] = P(report in output bin j | input in bin i)``; EMS adds a smoothing step
(binomial weights ``1/4, 1/2, 1/4``, edge rows ``2/3, 1/3``) after every M-step, which
trades a little bias for much less variance (the EM histogram is spiky).

**The transition as the code samples it.** The library's square wave releases its output
on a grid of step ``s`` (``resolution``) by unbiased randomized rounding (module notes of
``ldp.mechanisms.numeric``). For a real ``y`` and a grid point ``k s``,
``P(report <= k s | y) = clip(k + 1 - y/s, 0, 1) = P(y + U <= (k + 1/2) s)`` with ``U``
uniform on ``[-s/2, s/2]``: binned reports have the law of ``Y + U`` cut at the half-grid
points. Output bins here are therefore sets of consecutive grid points, and the model's
input is uniform within its bin, so ``M[j, i]`` is the probability that the sum of three
independent uniforms (the input in its bin, the square wave's window of half-width ``b``,
and ``U``) plus the ``q``-floor's uniform part falls between two half-grid points. Each
term is the average over a window of width ``s`` of a piecewise quadratic CDF, computed
piece by piece (no cancellation: ``s`` is ``2^-24`` of the scale), so every column sums to
one to rounding. The reference code of Li et al. approximates the same matrix by a
trapezoid rule and ignores the grid; the difference is of order ``s`` per bin.

**Stopping rule (the reference code of Li et al.).** Iterate while the l1 change of the
histogram exceeds ``1/N`` (``N`` reports) and fewer than ``max_iter`` rounds have run; stop
once more than two rounds have run and the log-likelihood ``sum_j c_j log (M theta)_j``
(counts ``c_j``, in nats) changes by less than ``tol`` (``1e-3``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import as_real_array, check_integer, check_scalar

__all__ = ["METHODS", "NumericDistribution", "em_histogram", "square_wave_transition"]

#: The reconstruction methods: plain EM, or EM with a smoothing step (EMS).
METHODS = ("ems", "em")

#: Largest number of input or output bins (the dense transition has bins x output_bins
#: entries; 4096^2 doubles are 128 MiB).
MAX_BINS = 4096


def _freeze(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=np.float64, copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class NumericDistribution:
    """A histogram estimate of a numeric distribution: bin edges and probabilities.

    The distribution is taken uniform within each bin, so the CDF is piecewise linear and
    ``quantile`` its inverse.

    Parameters
    ----------
    edges : ndarray, shape (bins + 1,)
        Increasing bin edges (the domain's ends first and last).
    probabilities : ndarray, shape (bins,)
        Non-negative, summing to one.
    method : str
        How it was estimated (``"ems"`` or ``"em"``).
    iterations : int
        Rounds of EM run.
    converged : bool
        Whether a stopping criterion was met before ``max_iter``.
    n : int
        Number of reports it was estimated from.

    Examples
    --------
    >>> from ldp.mechanisms import NumericDistribution
    >>> dist = NumericDistribution([0.0, 0.5, 1.0], [0.25, 0.75], "ems", 10, True, 100)
    >>> float(dist.cdf(0.5)), float(dist.quantile(0.5)), float(dist.mean())
    (0.25, 0.6666666666666666, 0.625)
    """

    edges: np.ndarray
    probabilities: np.ndarray
    method: str
    iterations: int
    converged: bool
    n: int

    def __post_init__(self) -> None:
        edges = as_real_array(self.edges, "edges")
        probs = as_real_array(self.probabilities, "probabilities")
        if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError(f"edges must be an increasing 1-D array of >= 2 entries, got {edges}")
        if probs.shape != (edges.size - 1,):
            raise ValueError(
                f"probabilities must have {edges.size - 1} entries (one per bin), got {probs.shape}"
            )
        if np.any(probs < 0) or abs(probs.sum() - 1.0) > 1e-9:
            raise ValueError("probabilities must be non-negative and sum to 1")
        object.__setattr__(self, "edges", _freeze(edges))
        object.__setattr__(self, "probabilities", _freeze(probs / probs.sum()))
        object.__setattr__(self, "iterations", check_integer(self.iterations, "iterations", low=0))
        object.__setattr__(self, "n", check_integer(self.n, "n", low=0))

    @property
    def bins(self) -> int:
        """Number of bins."""
        return int(self.probabilities.size)

    @property
    def centers(self) -> np.ndarray:
        """Midpoints of the bins."""
        return (self.edges[:-1] + self.edges[1:]) / 2.0

    def _cumulative(self) -> np.ndarray:
        cum = np.concatenate([[0.0], np.cumsum(self.probabilities)])
        return np.minimum(cum / cum[-1], 1.0)

    def cdf(self, x: ArrayLike) -> float | np.ndarray:
        """``P(X <= x)`` (linear within a bin; 0 below the domain, 1 above)."""
        arr = as_real_array(x, "x")
        out = np.interp(arr, self.edges, self._cumulative())
        return float(out) if out.ndim == 0 else out

    def quantile(self, q: ArrayLike) -> float | np.ndarray:
        """The smallest ``x`` with ``cdf(x) >= q``, for ``q`` in ``[0, 1]``."""
        arr = as_real_array(q, "q")
        if np.any(arr < 0) or np.any(arr > 1):
            raise ValueError(f"q must lie in [0, 1], got {q!r}")
        cum = self._cumulative()
        index = np.clip(np.searchsorted(cum[1:], arr, side="left"), 0, self.bins - 1)
        mass = self.probabilities[index]
        with np.errstate(divide="ignore", invalid="ignore"):
            fraction = np.where(mass > 0, (arr - cum[index]) / np.where(mass > 0, mass, 1.0), 0.0)
        width = self.edges[index + 1] - self.edges[index]
        out = self.edges[index] + np.clip(fraction, 0.0, 1.0) * width
        return float(out) if out.ndim == 0 else out

    def mean(self) -> float:
        """The mean of the histogram (bin midpoints weighted by their probabilities)."""
        return float(self.probabilities @ self.centers)

    def rescaled(self, low: float, high: float) -> NumericDistribution:
        """The same distribution with its domain mapped linearly onto ``[low, high]`` (the
        original scale of values that were rescaled to ``[0, 1]`` before privatizing)."""
        a = check_scalar(low, "low")
        b = check_scalar(high, "high")
        if not b > a:
            raise ValueError(f"high must be > low, got low={a!r}, high={b!r}")
        start, stop = self.edges[0], self.edges[-1]
        edges = a + (self.edges - start) * ((b - a) / (stop - start))
        edges[0], edges[-1] = a, b
        return NumericDistribution(
            edges, self.probabilities, self.method, self.iterations, self.converged, self.n
        )

    def range_probability(self, low: float, high: float) -> float:
        """``P(low < X <= high)`` = ``cdf(high) - cdf(low)``."""
        a = check_scalar(low, "low")
        b = check_scalar(high, "high")
        if b < a:
            raise ValueError(f"high must be >= low, got low={a!r}, high={b!r}")
        return float(self.cdf(b)) - float(self.cdf(a))


# ----------------------------------------------------------------------------- transition
def _window_average(
    alpha: np.ndarray, beta: np.ndarray, start: np.ndarray, w1: np.ndarray, w2: float
) -> np.ndarray:
    """Average over ``[alpha, beta]`` of the CDF of ``start + U[0, w1] + U[0, w2]``.

    The CDF is piecewise quadratic with breakpoints ``0, min, max, w1 + w2`` (relative to
    ``start``); on each piece the average of a quadratic over ``[lo, hi]`` is its value at
    the midpoint plus ``curvature (hi - lo)^2 / 24``. ``w1 = 0`` (a single uniform) gives the
    piecewise linear CDF.
    """
    small = np.minimum(w1, w2)
    large = np.maximum(w1, w2)
    knots = [np.full_like(alpha, -np.inf), start, start + small, start + large]
    knots += [start + small + large, np.full_like(alpha, np.inf)]
    product = small * large
    with np.errstate(divide="ignore", invalid="ignore"):
        curvature = np.where(product > 0, 1.0 / np.where(product > 0, product, 1.0), 0.0)
    curvatures = [0.0 * curvature, curvature, 0.0 * curvature, -curvature, 0.0 * curvature]

    def cdf(x: np.ndarray) -> np.ndarray:
        t = np.clip(x - start, 0.0, small + large)
        with np.errstate(divide="ignore", invalid="ignore"):
            safe = np.where(product > 0, product, 1.0)
            rise = np.where(product > 0, t * t / (2.0 * safe), 0.0)
            flat = (t - small / 2.0) / large
            fall = np.where(product > 0, 1.0 - (small + large - t) ** 2 / (2.0 * safe), 1.0)
        return np.where(t <= small, rise, np.where(t <= large, flat, fall))

    total = np.zeros_like(alpha)
    for piece in range(5):
        lo = np.maximum(alpha, knots[piece])
        hi = np.minimum(beta, knots[piece + 1])
        length = np.maximum(hi - lo, 0.0)
        middle = np.where(length > 0, (lo + hi) / 2.0, alpha)
        total += length * (cdf(middle) + curvatures[piece] * length**2 / 24.0)
    return total / (beta - alpha)


def output_grid_edges(b: float, step: float, output_bins: int) -> np.ndarray:
    """Grid indices ``k_0 < ... < k_m`` bounding the output bins: bin ``j`` holds the
    reports ``k s`` with ``k_j <= k < k_{j+1}``; ``k_0 s <= -b`` and ``(k_m - 1) s >= 1 + b``
    cover every possible report.

    Parameters
    ----------
    b : float
        The square wave's half-width.
    step : float
        The output grid (a power of two).
    output_bins : int
        Number of output bins.

    Returns
    -------
    ndarray of int64
        ``output_bins + 1`` increasing grid indices.

    Examples
    --------
    >>> from ldp.mechanisms.numeric.distribution import output_grid_edges
    >>> output_grid_edges(0.25, 0.25, 2).tolist()   # reports -0.25 .. 1.25
    [-1, 3, 6]
    """
    first = math.floor(-b / step)
    last = math.ceil((1.0 + b) / step)
    total = last - first + 1
    if total < output_bins:
        raise ValueError(f"output_bins must be <= {total} (grid points), got {output_bins}")
    cuts = np.round(np.arange(output_bins + 1) * (total / output_bins)).astype(np.int64)
    return first + cuts


def square_wave_transition(
    b: float, p: float, q: float, step: float, bins: int, output_bins: int
) -> np.ndarray:
    """``M[j, i] = P(report in output bin j | input uniform in bin i)`` of the square wave
    released on a grid of ``step`` by randomized rounding (module notes).

    Parameters
    ----------
    b, p, q : float
        Half-width and the two densities of the square wave (``2 b p + q = 1``).
    step : float
        The output grid.
    bins : int
        Equal input bins on ``[0, 1]``.
    output_bins : int
        Output bins (:func:`output_grid_edges`).

    Returns
    -------
    ndarray, shape (output_bins, bins)
        Column-stochastic.

    Examples
    --------
    >>> from ldp.mechanisms import SquareWave
    >>> from ldp.mechanisms.numeric.distribution import square_wave_transition
    >>> sw = SquareWave(1.0)
    >>> m = square_wave_transition(sw.b, sw.p_density, sw.q_density, sw.resolution, 4, 6)
    >>> m.shape, bool(abs(m.sum(axis=0) - 1).max() < 1e-12)
    ((6, 4), True)
    """
    index_edges = output_grid_edges(b, step, output_bins)
    cuts = (index_edges.astype(np.float64) - 0.5) * step  # half-grid points
    width = 1.0 / bins
    lows = np.arange(bins) * width
    alpha = cuts[:, None] - step / 2.0  # G(t) averages the CDF of Y over [t - s/2, t + s/2]
    beta = cuts[:, None] + step / 2.0
    shape = (cuts.size, bins)
    alpha, beta = np.broadcast_to(alpha, shape), np.broadcast_to(beta, shape)
    floor_part = _window_average(
        alpha, beta, np.full(shape, -b), np.zeros(shape), 1.0 + 2.0 * b
    )  # Y uniform on [-b, 1 + b]
    window_part = _window_average(
        alpha, beta, np.broadcast_to(lows - b, shape), np.full(shape, width), 2.0 * b
    )  # V uniform on the bin plus the window [-b, b]
    cdf = q * (1.0 + 2.0 * b) * floor_part + 2.0 * b * (p - q) * window_part
    matrix = np.diff(cdf, axis=0)
    return np.maximum(matrix, 0.0)


def report_histogram(reports: np.ndarray, b: float, step: float, output_bins: int) -> np.ndarray:
    """Counts of grid reports in the output bins of :func:`output_grid_edges`.

    Parameters
    ----------
    reports : ndarray
        Validated reports (multiples of ``step``).
    b, step : float
        Half-width and grid of the square wave.
    output_bins : int
        Number of output bins.

    Returns
    -------
    ndarray of int64, shape (output_bins,)

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.numeric.distribution import report_histogram
    >>> report_histogram(np.array([-0.25, 0.25, 1.25]), 0.25, 0.25, 2).tolist()
    [2, 1]
    """
    index = np.rint(np.asarray(reports, dtype=np.float64) / step).astype(np.int64)
    edges = output_grid_edges(b, step, output_bins)
    which = np.searchsorted(edges, index, side="right") - 1
    outside = (which < 0) | (which >= output_bins)
    if np.any(outside):
        raise ValueError(
            f"reports row {int(np.argmax(outside))}: the report lies outside the square wave's "
            f"reach [-b, 1 + b] rounded to the grid (not a report of this mechanism)"
        )
    return np.bincount(which, minlength=output_bins)


# ----------------------------------------------------------------------------- EM / EMS
def _smoothing_matrix(bins: int) -> np.ndarray:
    """Rows of binomial weights ``(1, 2, 1)`` normalised; edge rows ``(2, 1)/3``."""
    smooth = np.zeros((bins, bins))
    idx = np.arange(bins)
    smooth[idx, idx] = 2.0
    smooth[idx[1:], idx[:-1]] = 1.0
    smooth[idx[:-1], idx[1:]] = 1.0
    return smooth / smooth.sum(axis=1, keepdims=True)


def em_histogram(
    transition: ArrayLike,
    counts: ArrayLike,
    *,
    method: str = "ems",
    max_iter: int = 10_000,
    tol: float = 1e-3,
) -> tuple[np.ndarray, int, bool]:
    """EM (or EMS) estimate of the input histogram from output counts (Li et al. (2020)).

    Each round sets ``theta <- theta * M^T (c / (M theta))``, normalised; EMS then replaces
    ``theta`` by its binomial smoothing (weights ``1/4, 1/2, 1/4``; ``2/3, 1/3`` at the
    edges), normalised. The stopping rule is the reference code's (module notes).

    Parameters
    ----------
    transition : array_like, shape (outputs, inputs)
        Column-stochastic ``M[j, i] = P(output j | input i)``.
    counts : array_like, shape (outputs,)
        Non-negative output counts with a positive total.
    method : {"ems", "em"}
        With or without the smoothing step.
    max_iter : int, default 10000
        Largest number of rounds.
    tol : float, default 1e-3
        Stop when the log-likelihood (nats, summed over the counts) changes by less.

    Returns
    -------
    theta : ndarray
        The estimated input histogram (sums to one).
    iterations : int
        Rounds run.
    converged : bool
        Whether a criterion other than ``max_iter`` stopped it.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp import k_rr
    >>> from ldp.mechanisms.numeric.distribution import em_histogram
    >>> m = k_rr(3, 2.0).matrix.T
    >>> theta, rounds, done = em_histogram(m, m @ [0.6, 0.3, 0.1] * 1e6, method="em", tol=1e-9)
    >>> theta.round(4), done
    (array([0.6, 0.3, 0.1]), True)
    """
    matrix = as_real_array(transition, "transition")
    obs = as_real_array(counts, "counts")
    if matrix.ndim != 2 or obs.shape != (matrix.shape[0],):
        raise ValueError(
            f"counts must have one entry per row of transition {matrix.shape}, got {obs.shape}"
        )
    if np.any(matrix < 0) or np.any(np.abs(matrix.sum(axis=0) - 1.0) > 1e-9):
        raise ValueError("transition must be column-stochastic (non-negative, columns sum to 1)")
    if np.any(obs < 0) or not obs.sum() > 0:
        raise ValueError("counts must be non-negative with a positive total")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    rounds_cap = check_integer(max_iter, "max_iter", low=1)
    tolerance = check_scalar(tol, "tol", low=0.0)
    inputs = matrix.shape[1]
    smooth = _smoothing_matrix(inputs) if method == "ems" and inputs > 1 else None
    total = float(obs.sum())
    theta = np.full(inputs, 1.0 / inputs)
    old = np.zeros(inputs)
    previous = 0.0
    rounds = 0
    seen = obs > 0

    def log_likelihood(t: np.ndarray) -> float:
        fitted = matrix[seen] @ t
        return float(obs[seen] @ np.log(np.maximum(fitted, np.finfo(float).tiny)))

    converged = False
    while rounds < rounds_cap:
        if np.abs(old - theta).sum() <= 1.0 / total:
            converged = True
            break
        old = theta
        fitted = matrix @ old
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(fitted > 0, obs / np.where(fitted > 0, fitted, 1.0), 0.0)
        theta = old * (matrix.T @ ratio)
        theta /= theta.sum()
        if smooth is not None:
            theta = smooth @ theta
            theta /= theta.sum()
        current = log_likelihood(theta)
        if rounds > 1 and abs(current - previous) < tolerance:
            rounds += 1
            converged = True
            break
        previous = current
        rounds += 1
    return theta, rounds, converged
