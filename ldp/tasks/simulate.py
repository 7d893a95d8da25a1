"""Draw aggregated counts directly from their exact distribution (a simulation tool).

For experiments only: this never sees or produces individual reports, so it is not a client
path. The result has exactly the law of ``mechanism.aggregate(mechanism.privatize(x))`` for
any data set with the given per-value counts, at a cost that does not grow with ``n``
(``O(k)`` for unary encoding, ``O(k^2)`` for GRR and ``O(k K)`` for Hadamard response).
"""

from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_random_state
from ldp.mechanisms.base import FrequencyOracle, SupportCounts

__all__ = ["simulate_counts"]


def _check_true_counts(true_counts: ArrayLike, k: int) -> np.ndarray:
    arr = np.asarray(true_counts)
    if arr.ndim != 1 or arr.shape[0] != k:
        raise ValueError(f"true_counts must have shape ({k},), got {arr.shape}")
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"true_counts must be integer counts, got dtype {arr.dtype}")
    if np.any(arr < 0):
        raise ValueError("true_counts must be non-negative")
    return arr.astype(np.int64)


def simulate_counts(
    mechanism: FrequencyOracle, true_counts: ArrayLike, rng: object = None
) -> SupportCounts:
    """Support counts with exactly the law of ``aggregate(privatize(x))`` (a simulation tool).

    Exact for :class:`~ldp.mechanisms.GRR` (a sum of multinomials), unary encoding
    (:class:`~ldp.mechanisms.SUE`, :class:`~ldp.mechanisms.OUE`: independent binomial sums
    ``Bin(n_v, p) + Bin(n - n_v, q)``) and :class:`~ldp.mechanisms.HadamardResponse` (a sum
    of multinomials over the output alphabet, then the Walsh-Hadamard transform). Local
    hashing and subset selection have no exact shortcut (the counts of different values are
    dependent through each user's hash or subset) and raise ``NotImplementedError``.

    Parameters
    ----------
    mechanism : FrequencyOracle
        GRR, SUE, OUE or Hadamard response.
    true_counts : array_like of int, shape (k,)
        Number of users holding each value.
    rng : None, int or numpy.random.Generator
        Randomness (a seeded generator: this is a simulation tool, not a device sampler).

    Returns
    -------
    SupportCounts
        What ``mechanism.aggregate`` would return for the reports of these users.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import OUE
    >>> from ldp.tasks import simulate_counts
    >>> oue = OUE(16, 1.0)
    >>> counts = simulate_counts(oue, np.full(16, 62_500_000), rng=0)   # 1e9 users
    >>> counts.n, bool(np.abs(oue.estimate(counts) - 1 / 16).max() < 1e-3)
    (1000000000, True)
    """
    if not isinstance(mechanism, FrequencyOracle):
        raise TypeError(f"mechanism must be a FrequencyOracle, got {type(mechanism).__name__}")
    k = mechanism.k
    n_x = _check_true_counts(true_counts, k)
    n = int(n_x.sum())
    # a numpy Generator; the OS source (rng="os") refuses binomial() with a TypeError
    gen = cast(np.random.Generator, check_random_state(rng))
    counts = mechanism.simulate_support_counts(n_x, gen)
    return SupportCounts(np.asarray(counts, dtype=np.int64), n, mechanism.key)
