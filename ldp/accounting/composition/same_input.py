r"""The same-input composition of one finite channel: the pairs that can be the worst.

``compose(channel, n)`` is the maximum over ordered input pairs ``(x, x')`` of the profile
of the product pair ``(K_x^n, K_{x'}^n)``. Composing every pair exactly costs one long
convolution chain per pair; most pairs of a channel are nowhere the worst, and a cheap
upper bound proves it for them.

The bound. For a pair's (pessimistically rounded) privacy-loss distribution with finite
losses ``l_j`` of masses ``m_j`` and a ``+inf`` atom ``pi``, the ``n``-fold hockey-stick
profile satisfies, for every ``lambda >= 0`` (a Chernoff bound),

.. math:: \delta_n(\varepsilon) \le 1 - (1 - \pi)^n
          + c(\lambda)\, e^{-\lambda \varepsilon} \Big(\sum_j m_j e^{\lambda l_j}\Big)^n,
          \qquad c(\lambda) = \sup_{x \ge 0} (1 - e^{-x}) e^{-\lambda x}
          = \frac{1}{1 + \lambda}\Big(\frac{\lambda}{1 + \lambda}\Big)^{\lambda},

since ``(1 - e^{eps - L})_+ <= c(lambda) e^{lambda (L - eps)}`` pointwise (the supremum is
attained at ``e^{-x} = lambda / (1 + lambda)``; ``c(0) = 1``), and the finite part is
``0`` once ``eps`` is at or above ``n max_j l_j``. The minimum over a grid of ``lambda`` is a
non-increasing function of ``eps``. The masses are those the exact composition convolves
(rounded up), the losses their lattice points raised by the lattice's ``shift``, so the
bound holds for the pair's true profile.

A second upper bound is the pair composed on a coarser lattice (``COARSE_INTERVALS``, losses
rounded up as always), read at the same levels; a pair's bound is the smaller of the two,
and the finer coarse lattice is tried only for a pair that the first did not settle.

The pruning. Pairs are composed exactly one at a time, the most threatening first, and the
pointwise maximum ``M`` of the composed (reported) profiles is kept on a grid
``g_0 < ... < g_G`` of levels. A pair is dropped once its bound ``U`` satisfies
``U(g_j) <= M(g_{j+1})`` for every ``j`` and ``U(inf) <= M(inf)``: on ``[g_j, g_{j+1}]``
both are non-increasing, so ``U(eps) <= U(g_j) <= M(g_{j+1}) <= M(eps)``, and the grid
ends past every pair's largest ``n``-fold loss, where ``U`` is ``U(inf)``; the maximum of
the composed pairs is then at or above every dropped pair's true profile at every level,
so the reported profile is still an upper bound on the exact same-input privacy. Every
composed pair is composed exactly as without the pruning (``prune=False``; a pair is powered
from the top bit down, which agrees with ``PrivacyLossDistribution.self_compose`` within
the allowances of the two), so the result is the same curve
wherever a composed pair is the worst (elsewhere only the floating-point allowances of the
dropped pairs' compositions, around ``1e-13``, are no longer added).
"""

from __future__ import annotations

import math

import numpy as np

from ldp._progress import progress as show_progress
from ldp.accounting.curves.pld import PrivacyLossDistribution

__all__ = ["COARSE_INTERVALS", "PRUNE_GRID", "chernoff_profile_bound", "same_input_plds"]

#: Levels of the grid on which the pruning compares bounds with the composed profiles.
PRUNE_GRID = 1024
#: The coarser lattices on which a pair is composed (losses rounded up) before it is
#: composed exactly, each an upper bound that may already rule the pair out.
COARSE_INTERVALS = (0.2, 0.05)
_UNIT = float(np.finfo(np.float64).eps) / 2.0
#: The ``lambda`` of the Chernoff bound: ``0`` and a geometric grid up to ``256``.
_LAMBDAS = np.concatenate(([0.0], np.geomspace(1e-3, 256.0, 95)))


def _log_c(lam: np.ndarray) -> np.ndarray:
    """``log c(lambda)``, ``c(lambda) = (lambda / (1 + lambda))^lambda / (1 + lambda)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = np.where(lam > 0.0, lam * (np.log(lam) - np.log1p(lam)), 0.0)
    return inner - np.log1p(lam)


_LOG_C = _log_c(_LAMBDAS)


def chernoff_profile_bound(pld: PrivacyLossDistribution, n: int, levels: np.ndarray) -> np.ndarray:
    """An upper bound on the ``n``-fold composition's profile of ``pld`` at ``levels``.

    The Chernoff bound of the module docstring, minimised over a fixed grid of
    ``lambda``, with every floating-point step rounded outward; non-increasing in the
    level. It bounds the exact profile of the ``n``-fold product of the pair that ``pld``
    describes (masses as held, losses up to ``shift`` above their lattice points).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        One pair's distribution (not yet composed).
    n : int
        Number of folds (``n >= 1``).
    levels : numpy.ndarray
        Levels ``eps`` (any reals, ``inf`` allowed).

    Returns
    -------
    numpy.ndarray
        The bound at each level, in ``[0, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.accounting.curves.pld import PrivacyLossDistribution
    >>> e = np.exp(1.0)
    >>> rr = PrivacyLossDistribution.from_pair([e / (1 + e), 1 / (1 + e)],
    ...                                        [1 / (1 + e), e / (1 + e)])
    >>> levels = np.array([0.0, 3.0, 10.5])
    >>> bound = chernoff_profile_bound(rr, 10, levels)
    >>> bool(np.all(bound >= rr.self_compose(10).delta(levels))), float(bound[-1])
    (True, 0.0)
    """
    eps = np.asarray(levels, dtype=np.float64)
    nz = np.flatnonzero(pld.probs)
    # 1 - (1 - pi)^n, rounded up
    inf_part = -math.expm1(n * math.log1p(-pld.inf_mass)) if pld.inf_mass < 1.0 else 1.0
    inf_part = min(1.0, inf_part * (1.0 + 1e-12))
    if nz.size == 0:
        return np.full(eps.shape, inf_part)
    raw = (pld.offset + nz) * pld.interval
    losses = raw + pld.shift + 4.0 * _UNIT * (np.abs(raw) + pld.shift)  # rounded up
    log_m = np.log(pld.probs[nz])
    # log sum_j m_j e^{lambda l_j}, raised by far more than its rounding (relative 1e-12)
    exponents = log_m[None, :] + _LAMBDAS[:, None] * losses[None, :]
    top = exponents.max(axis=1)
    log_mgf = top + np.log(np.exp(exponents - top[:, None]).sum(axis=1))
    log_mgf = log_mgf + 1e-12 * (np.abs(log_mgf) + 1.0)
    intercept = _LOG_C + n * log_mgf
    intercept = intercept + 1e-12 * (np.abs(intercept) + 1.0)
    flat = eps.ravel()
    finite = np.isfinite(flat)
    exponent = np.full(flat.shape, -np.inf)
    at = flat[finite]
    exponent[finite] = np.min(intercept[:, None] - _LAMBDAS[:, None] * at[None, :], axis=0)
    # the finite part vanishes at and above n times the largest loss
    ceiling = n * float(losses.max()) * (1.0 + 4.0 * _UNIT * n)
    ceiling = ceiling + 4.0 * _UNIT * n * abs(float(losses.max()))
    exponent[flat >= ceiling] = -np.inf
    with np.errstate(over="ignore"):
        value = np.exp(exponent) * (1.0 + 1e-12)
    return np.minimum(1.0, inf_part + value).reshape(eps.shape)


def _compose_pair(pld: PrivacyLossDistribution, n: int, exact_limit: int):
    """The ``n``-fold composition of one pair, powering from the top bit down.

    Each step squares the running power and, for a set bit, multiplies it by the pair's
    own distribution; a pair has as many atoms as the channel has outputs, so that product
    takes the direct path and the only long convolutions are squares (one forward
    transform each), where the usual powering multiplies long powers together.
    """
    if n == 1:
        return pld
    tau = 1e-15 if pld.probs.size * n > exact_limit or not pld.exact else 0.0
    pld.check_span(n, tau)
    result = pld
    for bit in bin(n)[3:]:
        result = result.compose(result, truncation=tau)
        if bit == "1":
            result = result.compose(pld, truncation=tau)
    return result


def same_input_plds(
    matrix: np.ndarray,
    n: int,
    fallback: float,
    exact_limit: int,
    *,
    progress: bool = False,
    prune: bool = True,
) -> tuple[list[PrivacyLossDistribution], int]:
    """The composed distributions of the input pairs that can be the worst.

    Parameters
    ----------
    matrix : numpy.ndarray
        The channel's ``k x m`` row-stochastic matrix (``k >= 2``).
    n : int
        Number of reports (``n >= 1``).
    fallback : float
        Lattice spacing for losses that are not commensurate.
    exact_limit : int
        Lattice size above which a composition truncates its tails pessimistically.
    progress : bool, default False
        Show a tqdm bar over the composed pairs.
    prune : bool, default True
        Drop the pairs whose bound lies below the composed maximum at every level (module
        docstring); ``False`` composes every distinct pair.

    Returns
    -------
    plds : list of PrivacyLossDistribution
        The composed pairs; the pointwise maximum of their profiles bounds every pair's.
    distinct : int
        The number of distinct ordered pairs (up to relabelling the outputs).

    Examples
    --------
    >>> import numpy as np
    >>> matrix = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    >>> plds, distinct = same_input_plds(matrix, 5, 1e-4, 1 << 22)
    >>> distinct, len(plds) <= distinct
    (6, True)
    """
    k = matrix.shape[0]
    pairs: dict = {}
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            p, q = matrix[i], matrix[j]
            order = np.lexsort((q, p))  # the PLD depends on the multiset of (p_z, q_z)
            key = (p[order].tobytes(), q[order].tobytes())
            pairs.setdefault(key, (p, q))
    bases = [
        PrivacyLossDistribution.from_pair(p / p.sum(), q / q.sum(), fallback=fallback)
        for p, q in pairs.values()
    ]
    if not prune or len(bases) <= 1:
        composed = [
            _compose_pair(b, n, exact_limit)
            for b in show_progress(bases, progress, desc="input pairs")
        ]
        return composed, len(bases)
    pairs_p = list(pairs.values())
    tops = []
    for b in bases:
        nz = np.flatnonzero(b.probs)
        tops.append(0.0 if nz.size == 0 else n * ((b.offset + nz[-1]) * b.interval + b.shift))
    grid = np.linspace(0.0, max(1.0, 1.001 * max(tops) + 1.0), PRUNE_GRID)
    both = np.array([chernoff_profile_bound(b, n, np.append(grid, math.inf)) for b in bases])
    upper, at_inf = both[:, :-1], both[:, -1]
    # the coarse lattices each pair may still be bounded on before its exact composition
    coarse = [[h for h in COARSE_INTERVALS if h > 4.0 * b.interval] for b in bases]
    best = np.zeros(grid.size)
    best_inf = 0.0
    left = np.ones(len(bases), dtype=bool)
    composed = []
    # each step refines one pair's bound or composes one pair: at most this many steps
    steps = len(bases) * (len(COARSE_INTERVALS) + 1)
    for _ in show_progress(range(steps), progress, desc="input pairs (bound or compose)"):
        threat = (upper[:, :-1] > best[None, 1:]).any(axis=1) | (at_inf > best_inf)
        threat &= left
        if not np.any(threat):
            break
        floor = max(float(best.min()), 1e-300)
        excess = np.log(np.maximum(upper[:, :-1], 1e-300)) - np.log(
            np.maximum(best[None, 1:], floor)
        )
        score = np.where(threat, np.clip(excess, 0.0, None).sum(axis=1), -np.inf)
        i = int(np.argmax(score))
        if coarse[i]:  # a cheaper, looser composition first: it may settle the pair
            h = coarse[i].pop(0)
            p, q = pairs_p[i]
            rough = PrivacyLossDistribution.from_pair(p / p.sum(), q / q.sum(), interval=h)
            rough_delta = np.asarray(rough.self_compose(n, truncation=1e-15).delta(grid))
            upper[i] = np.minimum(upper[i], rough_delta)
            continue
        left[i] = False
        pld = _compose_pair(bases[i], n, exact_limit)
        composed.append((i, pld))
        best = np.maximum(best, np.asarray(pld.delta(grid)))
        best_inf = max(best_inf, float(pld.delta(math.inf)))
    return [pld for _, pld in sorted(composed, key=lambda item: item[0])], len(bases)
