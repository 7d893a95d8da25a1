"""Maxima of divergences over all ordered pairs of rows of a row-stochastic matrix.

These reductions are the exact privacy of a finite channel (Asoodeh-Aliakbarpour-Calmon
(2021), Theorems 1 and 3): ``delta(eps) = max_{x, x'} E_{e^eps}(K_x || K_x')`` and the
Dobrushin coefficient ``tv = max_{x, x'} TV(K_x, K_x')``. Every pair is evaluated exactly, as
a sum of positive parts (no cancellation), in one of two ways:

* **structure first.** Identical rows are kept once (their divergence is 0 and they have the
  same divergences to every other row) and identical columns are merged by summing (both
  divergences are sums of positively homogeneous terms, one per column). Then, when most
  entries of each column equal a common *background* value (its majority value: the ``q`` of
  every column of k-RR), a row differs from the background in a few columns only. A pair of rows
  that deviate in disjoint columns has divergence ``u_i + v_j``, a term of each row, and the
  maximum over such pairs is found from the sorted terms; the few pairs that share a
  deviating column are evaluated on the union of their columns. For k-RR this is
  ``O(k log k)`` instead of ``O(k^3)`` (``k_rr(4096).tv`` took 19 minutes).
* **pairwise.** Otherwise tile by tile, so that memory stays ``O(tile)`` whatever the number of
  inputs. Large matrices are split over threads (numpy and scipy release the GIL inside the
  kernels). The work, distinct row pairs times distinct outputs, is bounded by
  :data:`MAX_PAIRWISE_WORK`.
"""

from __future__ import annotations

import hashlib
import math
import os
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse
from scipy.spatial.distance import cdist

#: Number of float64 entries processed per tile (512 KiB, about an L2 cache).
TILE = 1 << 16
#: Work (pairs x outputs) above which the rows are split over threads.
PARALLEL_WORK = 1 << 22
#: Work (pairs x outputs) above which a matrix is first reduced to its distinct rows and
#: columns, and its structure (rows that deviate from a common background in few columns)
#: is looked for; below it, the pairwise maximum is faster than the search.
STRUCTURE_WORK = 1 << 18
#: Largest number of ordered row pairs that share a deviating column for the structured
#: maximum to be used (each is evaluated on the union of its columns).
OVERLAP_PAIRS = 1 << 22
#: Largest work (distinct row pairs x distinct outputs, ``k^2 m``) of the pairwise maximum:
#: about a minute for the total variation of 4096 distinct rows of 4096 outputs on two cores.
#: A channel that large and without the structure above raises ``ValueError``.
MAX_PAIRWISE_WORK = 1 << 36

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


# ----------------------------------------------------------------------------- structure
class _Reduced:
    """A matrix reduced to its distinct rows (``rows``: an original index of each) and its
    distinct columns merged by summing, with its background structure if it has one."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.rows, _ = _distinct(matrix)
        unique = matrix[self.rows]
        columns, group = _distinct(np.ascontiguousarray(unique.T))
        counts = np.bincount(group, minlength=columns.size)
        self.matrix = unique[:, columns] * counts[None, :] if np.any(counts > 1) else unique
        self.structure = _background(self.matrix)


def _distinct(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first index of each distinct row of ``vectors``, and each row's group.

    Rows are grouped by a 128-bit hash of their bytes and checked against their group's
    first row, so a hash shared by different rows (never seen) costs speed, not exactness.
    """
    seen: dict[bytes, int] = {}
    first: list[int] = []
    group = np.empty(len(vectors), dtype=np.int64)
    for index, row in enumerate(vectors):
        key = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
        g = seen.setdefault(key, len(first))
        if g == len(first):
            first.append(index)
        elif not np.array_equal(row, vectors[first[g]]):  # pragma: no cover - a collision
            seen[key + index.to_bytes(8, "little")] = g = len(first)
            first.append(index)
        group[index] = g
    return np.array(first, dtype=np.int64), group


def _majority(matrix: np.ndarray) -> np.ndarray:
    """Per column, the value held by more than half of the rows if there is one (else some
    value; Boyer-Moore's vote, one pass over the rows)."""
    candidate = matrix[0].copy()
    count = np.ones(matrix.shape[1], dtype=np.int64)
    for row in matrix[1:]:
        empty = count == 0
        candidate = np.where(empty, row, candidate)
        count = np.where(empty | (row == candidate), count + 1, count - 1)
    return candidate


def _background(matrix: np.ndarray):
    """``(background, deviating, overlap)`` when few rows deviate from each column's majority
    value and few row pairs deviate in a common column; else ``None``."""
    k, m = matrix.shape
    if k < 3:
        return None
    background = _majority(matrix)
    deviating = matrix != background[None, :]
    per_column = deviating.sum(axis=0, dtype=np.int64)
    if int(per_column.sum()) > (k * m) // 4 or int((per_column**2).sum()) > OVERLAP_PAIRS:
        return None
    d = sparse.csr_matrix(deviating, dtype=np.int64)
    overlap = (d @ d.T).tocsr()
    overlap.setdiag(0)
    overlap.eliminate_zeros()
    return background, d, overlap


# The reduced form of read-only matrices (a Channel's), kept while the matrix lives (by id,
# checked through a weak reference): the privacy profile asks for many levels of one matrix.
_REDUCED: dict[int, tuple[weakref.ref, _Reduced]] = {}


def _reduced(matrix: np.ndarray) -> _Reduced:
    if matrix.flags.writeable:
        return _Reduced(matrix)
    key = id(matrix)
    cached = _REDUCED.get(key)
    if cached is not None and cached[0]() is matrix:
        return cached[1]
    out = _Reduced(matrix)
    _REDUCED[key] = (weakref.ref(matrix), out)
    weakref.finalize(matrix, _REDUCED.pop, key, None)
    return out


def _terms(kind: str, gamma: float | None):
    """``term(x, y)``: the divergence's term of one column, ``x`` from the first row of the
    pair and ``y`` from the second (already scaled by ``gamma`` where it applies)."""
    if kind == "tv":
        return lambda x, y: np.abs(x - y)
    if gamma is not None and gamma < 1.0:
        return lambda x, y: np.maximum(y - x, 0.0)
    return lambda x, y: np.maximum(x - y, 0.0)


def _scale(values: np.ndarray, kind: str, gamma: float | None) -> np.ndarray:
    if kind == "tv":
        return values
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(values > 0, gamma * values, 0.0)


def _structured(reduced: _Reduced, kind: str, gamma: float | None) -> Best:
    """The maximum over ordered pairs of distinct rows, through the background structure."""
    matrix = reduced.matrix
    background, deviating, overlap = reduced.structure
    k = matrix.shape[0]
    term = _terms(kind, gamma)
    scaled_background = _scale(background, kind, gamma)
    rows, cols = deviating.nonzero()
    entries = matrix[rows, cols]
    # u_i: row i against the background where i deviates; v_j: the background against row j
    u = np.bincount(rows, weights=term(entries, scaled_background[cols]), minlength=k)
    v = np.bincount(rows, weights=term(background[cols], _scale(entries, kind, gamma)), minlength=k)
    # pairs deviating in disjoint columns: u_i + v_j, from the largest v not excluded for i
    degree = np.diff(overlap.indptr)
    top = min(k, int(degree.max(initial=0)) + 2)
    candidates = np.argsort(-v, kind="stable")[:top]
    excluded = overlap[:, candidates].toarray() != 0
    excluded |= candidates[None, :] == np.arange(k)[:, None]
    sums = np.where(excluded, -np.inf, u[:, None] + v[candidates][None, :])
    flat = int(np.argmax(sums))
    a, b = divmod(flat, top)
    best: Best = (float(sums[a, b]), a, int(candidates[b]))
    # pairs sharing a deviating column: evaluated on the union of their columns
    indptr, indices = deviating.indptr, deviating.indices
    for i in np.flatnonzero(degree):
        partners = overlap.indices[overlap.indptr[i] : overlap.indptr[i + 1]]
        columns = np.unique(
            np.concatenate([indices[indptr[j] : indptr[j + 1]] for j in (i, *partners)])
        )
        left = matrix[i, columns]
        right = _scale(matrix[np.ix_(partners, columns)], kind, gamma)
        values = term(left[None, :], right).sum(axis=1)
        j = int(np.argmax(values))
        if values[j] > best[0]:
            best = (float(values[j]), int(i), int(partners[j]))
    value, a, b = best
    if kind == "tv":
        value *= 0.5
    return min(max(value, 0.0), 1.0), int(reduced.rows[a]), int(reduced.rows[b])


def _check_work(k: int, m: int) -> None:
    work = k * k * m
    if work > MAX_PAIRWISE_WORK:
        raise ValueError(
            f"matrix: the exact pairwise maximum over {k} distinct rows of {m} distinct "
            f"outputs needs about 2^{math.floor(math.log2(work))} operations; the limit is "
            f"MAX_PAIRWISE_WORK = 2^{MAX_PAIRWISE_WORK.bit_length() - 1} (ldp._pairwise)"
        )


def _maximum(matrix: np.ndarray, kind: str, gamma: float | None, dense) -> Best:
    k, m = matrix.shape
    if k * k * m <= STRUCTURE_WORK:
        return dense(matrix)
    reduced = _reduced(matrix)
    small = reduced.matrix
    if small.shape[0] == 1:
        return 0.0, 0, 0  # every row alike
    if reduced.structure is not None:
        return _structured(reduced, kind, gamma)
    _check_work(*small.shape)
    value, a, b = dense(small)
    return value, int(reduced.rows[a]), int(reduced.rows[b])


# ----------------------------------------------------------------------------- divergences
def max_pairwise_hockey_stick(matrix: np.ndarray, gamma: float) -> Best:
    """``max_{i, j} E_gamma(K_i || K_j)`` and a maximising ordered pair ``(i, j)``.

    ``gamma`` may be any value in ``[0, inf]``; for ``gamma < 1`` the divergence is
    evaluated as ``sum (gamma K_j - K_i)_+`` (equal to ``E_gamma`` for distributions).
    Large matrices are screened first (:func:`_screened_candidates`); the maximum is always
    a sum of positive parts evaluated pair by pair.
    """
    return _maximum(matrix, "hockey_stick", gamma, lambda m: _dense_hockey_stick(m, gamma))


def max_pairwise_tv(matrix: np.ndarray) -> Best:
    """``max_{i, j} TV(K_i, K_j)`` (the Dobrushin coefficient) and a maximising pair."""
    return _maximum(matrix, "tv", None, _dense_tv)


def _dense_hockey_stick(matrix: np.ndarray, gamma: float) -> Best:
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


def _dense_tv(matrix: np.ndarray) -> Best:
    k, m = matrix.shape
    rows_per_tile = min(k, max(1, (TILE * 4) // k))

    def task(start: int, stop: int) -> Best:
        distances = cdist(matrix[start:stop], matrix, "cityblock")
        flat = int(np.argmax(distances))
        a, b = divmod(flat, k)
        return 0.5 * float(distances.flat[flat]), start + a, b

    return _over_row_blocks(k, k * k * m, rows_per_tile, task)
