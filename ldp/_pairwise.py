"""Maxima of divergences over all ordered pairs of rows of a row-stochastic matrix.

These reductions are the exact privacy of a finite channel (Asoodeh-Aliakbarpour-Calmon
(2021), Theorem 1 and Theorem 3): ``delta(eps) = max_{x, x'} E_{e^eps}(K_x || K_x')`` and the
Dobrushin coefficient ``tv = max_{x, x'} TV(K_x, K_x')``. They are computed tile by tile so
that memory stays ``O(tile)`` whatever the number of inputs, with every pair evaluated
exactly (positive parts summed, no cancellation). Large matrices are split over threads
(numpy and scipy release the GIL inside the kernels).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.spatial.distance import cdist

#: Number of float64 entries processed per tile (512 KiB, about an L2 cache).
TILE = 1 << 16
#: Work (pairs x outputs) above which the rows are split over threads.
PARALLEL_WORK = 1 << 22

Best = tuple[float, int, int]


def symmetric_pair(matrix: np.ndarray) -> np.ndarray | None:
    """The two-row reduction of a randomized-response-like matrix, or ``None``.

    A square matrix with one value ``d`` on the diagonal and one value ``o`` off it (k-ary
    randomized response, and the identity) looks the same from every ordered pair of rows:
    rows ``x`` and ``x'`` differ only at outputs ``x`` and ``x'``, and the other ``k - 2``
    outputs have likelihood ratio 1. Merging outputs of equal likelihood ratio is a
    sufficient statistic for the pair, so every divergence between mixtures of the two rows,
    and hence every pairwise reduction (tv, hockey stick, chi2 contraction), is that of

        ``[[d, o, (k - 2) o], [o, d, (k - 2) o]]``

    (the third column is dropped when ``k = 2``). Returns ``None`` for any other matrix.
    """
    k, m = matrix.shape
    if k != m or k < 3:
        return None
    diagonal = np.diagonal(matrix)
    d, o = float(diagonal[0]), float(matrix[0, 1])
    if not bool(np.all(diagonal == d)):
        return None
    if int(np.count_nonzero(matrix != o)) != (k if d != o else 0):
        return None
    rest = (k - 2) * o
    return np.array([[d, o, rest], [o, d, rest]])


def _reduce(results: list[Best]) -> Best:
    value, i, j = max(results, key=lambda r: r[0])
    return min(max(value, 0.0), 1.0), i, j


def _over_row_blocks(k: int, work: int, block: int, task: Callable[[int, int], Best]) -> Best:
    starts = range(0, k, block)
    workers = min(len(starts), os.cpu_count() or 1)
    if work < PARALLEL_WORK or workers < 2:
        return _reduce([task(s, min(s + block, k)) for s in starts])
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return _reduce(list(pool.map(lambda s: task(s, min(s + block, k)), starts)))


def max_pairwise_hockey_stick(matrix: np.ndarray, gamma: float) -> Best:
    """``max_{i, j} E_gamma(K_i || K_j)`` and a maximising ordered pair ``(i, j)``.

    ``gamma`` may be any value in ``[0, inf]``; for ``gamma < 1`` the divergence is
    evaluated as ``sum (gamma K_j - K_i)_+`` (equal to ``E_gamma`` for distributions).
    Large matrices are screened first (:func:`_screened_candidates`); the maximum is always
    a sum of positive parts evaluated pair by pair.
    """
    k, m = matrix.shape
    if k * k * m >= SCREEN_WORK and 0.0 < gamma <= SCREEN_MAX_GAMMA:
        candidates = _screened_candidates(matrix, gamma)
        if candidates is not None:
            return _exact_over_pairs(matrix, gamma, *candidates)
    return _exact_hockey_stick_tiles(matrix, gamma)


#: Work (pairs x outputs) from which the hockey stick is screened through an L1 distance.
SCREEN_WORK = 1 << 24
#: Largest gamma screened (beyond it the identity below loses too much to cancellation).
SCREEN_MAX_GAMMA = 1e6
#: Most candidate pairs evaluated exactly after screening (else the full exact pass runs).
SCREEN_MAX_CANDIDATES = 1 << 14

UNIT = 2.0**-53


def _screened_candidates(matrix: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The pairs that can attain ``max E_gamma``, found through one L1 distance per pair.

    For nonnegative rows ``p, q`` with sums ``s_p, s_q``: ``sum (p - g q)_+ =
    (|p - g q|_1 + s_p - g s_q) / 2`` (and ``sum (g q - p)_+`` with the signs of the sums
    swapped), and SciPy's ``cdist`` computes every L1 distance in compiled code. That identity
    cancels, so it only screens: each approximate value is within ``err`` of the exact one
    (``(2m + 16)`` units of ``s_p + g s_q``: the products, the sums and the accumulation), so
    every pair whose approximate value is ``2 err`` below the best cannot be the maximum. The
    remaining pairs are evaluated exactly by the caller. ``None`` when too many remain.
    """
    k, m = matrix.shape
    sums = matrix.sum(axis=1)
    scaled = gamma * matrix
    sign = 1.0 if gamma >= 1.0 else -1.0
    err = (2 * m + 16) * UNIT * (1.0 + gamma) * float(sums.max()) * (1.0 + 1e-9)
    rows_per_tile = min(k, max(1, (TILE * 4) // k))
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def task(start: int, stop: int) -> Best:
        distance = cdist(matrix[start:stop], scaled, "cityblock")
        approx = 0.5 * (distance + sign * (sums[start:stop, None] - gamma * sums[None, :]))
        top = float(approx.max())
        rows, cols = np.nonzero(approx >= top - 2.0 * err)
        kept.append((rows + start, cols, approx[rows, cols]))  # each block's top is kept
        return (top, 0, 0)

    _over_row_blocks(k, k * k * m, rows_per_tile, task)
    rows = np.concatenate([r for r, _, _ in kept])
    cols = np.concatenate([c for _, c, _ in kept])
    values = np.concatenate([v for _, _, v in kept])
    keep = values >= float(values.max()) - 2.0 * err
    if int(np.count_nonzero(keep)) > SCREEN_MAX_CANDIDATES:
        return None
    return rows[keep], cols[keep]


def _exact_over_pairs(matrix: np.ndarray, gamma: float, rows: np.ndarray, cols: np.ndarray) -> Best:
    """``max E_gamma(K_i || K_j)`` over the listed pairs, positive parts summed."""
    m = matrix.shape[1]
    best: Best = (-1.0, 0, 0)
    step = max(1, TILE // m)
    for start in range(0, len(rows), step):
        i, j = rows[start : start + step], cols[start : start + step]
        if gamma >= 1.0:
            terms = matrix[i] - gamma * matrix[j]
        else:
            terms = gamma * matrix[j] - matrix[i]
        sums = np.maximum(terms, 0.0).sum(axis=1)
        at = int(np.argmax(sums))
        if sums[at] > best[0]:
            best = (float(sums[at]), int(i[at]), int(j[at]))
    return _reduce([best])


def _exact_hockey_stick_tiles(matrix: np.ndarray, gamma: float) -> Best:
    k, m = matrix.shape
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.where(matrix > 0, gamma * matrix, 0.0)
    below_one = gamma < 1.0
    rows_per_tile = min(k, max(1, TILE // m))
    cols_per_tile = min(k, max(1, TILE // (rows_per_tile * m)))

    def task(start: int, stop: int) -> Best:
        left = matrix[start:stop]
        buffer = np.empty((len(left), cols_per_tile, m))
        best: Best = (-1.0, 0, 0)
        for j0 in range(0, k, cols_per_tile):
            right = scaled[j0 : j0 + cols_per_tile]
            block = buffer[:, : len(right)]
            if below_one:
                np.subtract(right[None, :, :], left[:, None, :], out=block)
            else:
                np.subtract(left[:, None, :], right[None, :, :], out=block)
            np.maximum(block, 0.0, out=block)
            sums = block.sum(axis=-1)
            flat = int(np.argmax(sums))
            if sums.flat[flat] > best[0]:
                a, b = divmod(flat, sums.shape[1])
                best = (float(sums.flat[flat]), start + a, j0 + b)
        return best

    return _over_row_blocks(k, k * k * m, rows_per_tile, task)


def max_pairwise_tv(matrix: np.ndarray) -> Best:
    """``max_{i, j} TV(K_i, K_j)`` (the Dobrushin coefficient) and a maximising pair."""
    k, m = matrix.shape
    rows_per_tile = min(k, max(1, (TILE * 4) // k))

    def task(start: int, stop: int) -> Best:
        distances = cdist(matrix[start:stop], matrix, "cityblock")
        flat = int(np.argmax(distances))
        a, b = divmod(flat, k)
        return 0.5 * float(distances.flat[flat]), start + a, b

    return _over_row_blocks(k, k * k * m, rows_per_tile, task)
