r"""The Blackwell order: of channels (is ``L`` a garbling of ``K``?) and of privacy curves.

One home for both sides of Blackwell's theorem: :func:`blackwell_dominates` decides the
order of two channels by a linear program, :func:`blackwell_compare` and
:func:`is_blackwell_chain` the order of two trade-off curves (or profiles) on a grid.

Channels
--------

A channel ``L`` (inputs ``x``, outputs ``w``) is a *garbling* (post-processing) of ``K``
(same inputs, outputs ``z``) when a row-stochastic ``G`` with ``K G = L`` exists: whatever
``L`` reveals, ``K`` reveals too. For two inputs this is the order of trade-off functions:
``T(K_0, K_1) <= T(L_0, L_1)`` iff ``L`` is a garbling of ``K`` (Blackwell's theorem,
Dong-Roth-Su (2022), Theorem 2.7). So ``blackwell_dominates(K, L)`` also compares
mechanisms: if it holds for the worst pairs, ``L`` is at least as private as ``K`` in every
sense that obeys post-processing (every epsilon, delta profile, eta-TV, f-divergence).

The garbling is a linear feasibility problem, solved with ``scipy.optimize.linprog``
(HiGHS) as: minimise ``t`` subject to ``|K G - L| <= t`` entrywise, ``G >= 0`` and rows of
``G`` summing to 1. The solver's ``G`` is never returned as it is: it is cleaned (negative
entries set to 0, rows renormalised) and ``K G - L`` is recomputed **exactly** in rational
arithmetic from the cleaned matrix; only a residual within ``atol`` is a yes.

Curves
------
``f >= g`` everywhere iff ``H_f <= H_g`` everywhere, for the remove-direction profiles
``H(gamma) = D_gamma(P || Q)`` (Tran-Koskela-Räisä-Honkela (2025), Appendix A); curves that
are not ordered cross at *calibration points* (their §3). A family is a Blackwell chain
when every pair is ordered, the condition of their Theorem 3.6 under which the natural f-DP
filter is valid. These are numerical comparisons on a grid of ``log gamma`` refined by root
finding; they are not privacy guarantees and are not rounded outward.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy.optimize import brentq

from ldp._quiet import quiet_stdout
from ldp._validation import check_scalar
from ldp.accounting.comparisons._profiles import LOG_GAMMA, as_profile
from ldp.accounting.comparisons.comparison import delta_divergence
from ldp.channel import Channel
from ldp.core import Mechanism

__all__ = [
    "BlackwellComparison",
    "BlackwellResult",
    "blackwell_compare",
    "blackwell_dominates",
    "is_blackwell_chain",
]

#: Above this many multiply-adds the exact re-check is done in float with an error bound.
_EXACT_LIMIT = 200_000


@dataclass(frozen=True)
class BlackwellResult:
    """Answer of :func:`blackwell_dominates`; truthy iff ``L`` is a garbling of ``K``.

    Parameters
    ----------
    dominates : bool
        ``True`` when the garbling was found and re-checked.
    garbling : ndarray or None
        The row-stochastic ``G`` (``K.n_outputs x L.n_outputs``, read-only) with
        ``K G = L`` within ``residual``; ``None`` when there is none.
    residual : float
        ``max |K G - L|`` recomputed exactly from the cleaned ``G`` (yes), or the smallest
        such maximum the linear program found (no).
    reason : str
        Why the answer is what it is.

    Examples
    --------
    >>> import ldp
    >>> from ldp.accounting import BlackwellResult
    >>> res = ldp.blackwell_dominates(ldp.randomized_response(1.0), ldp.randomized_response(2.0))
    >>> isinstance(res, BlackwellResult), bool(res), res.garbling is None
    (True, False, True)
    """

    dominates: bool
    garbling: np.ndarray | None = field(repr=False)
    residual: float
    reason: str

    def __bool__(self) -> bool:
        return self.dominates


def _as_channel(value: object, name: str) -> Channel:
    if isinstance(value, Channel):
        return value
    if isinstance(value, Mechanism):
        try:
            return value.to_channel()
        except NotImplementedError:
            raise TypeError(
                f"{name} is a {type(value).__name__}, which has no finite channel; pass its "
                "privacy_channel() to compare privacy"
            ) from None
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a Channel, a Mechanism or a matrix, got {value!r}")
    return Channel(value)  # type: ignore[arg-type]


def _exact_residual(k: np.ndarray, g: np.ndarray, target: np.ndarray) -> float:
    """``max(max |K G - L|, max |G 1 - 1|)``, rounded up, computed exactly when small."""
    n, m = k.shape
    w = g.shape[1]
    if n * m * w <= _EXACT_LIMIT:
        kf = [[Fraction(v) for v in row] for row in k.tolist()]
        gf = [[Fraction(v) for v in row] for row in g.tolist()]
        worst = Fraction(0)
        for i in range(n):
            for j in range(w):
                total = sum((kf[i][z] * gf[z][j] for z in range(m) if kf[i][z]), Fraction(0))
                worst = max(worst, abs(total - Fraction(float(target[i, j]))))
        for z in range(m):
            worst = max(worst, abs(sum(gf[z], Fraction(0)) - 1))
        return float(np.nextafter(float(worst), np.inf)) if worst else 0.0
    # float with a forward error bound of the products (m + 2 roundings per entry)
    prod = k @ g
    bound = (m + 2) * np.finfo(np.float64).eps * (np.abs(k) @ np.abs(g) + np.abs(target))
    rows = np.abs(g.sum(axis=1) - 1.0) + (w + 1) * np.finfo(np.float64).eps
    return float(max(np.max(np.abs(prod - target) + bound), np.max(rows)))


def blackwell_dominates(K: object, L: object, *, atol: float = 1e-9) -> BlackwellResult:
    """Whether ``L`` is a garbling of ``K`` (``L = K G``), with the garbling ``G`` if so.

    Parameters
    ----------
    K, L : Channel, Mechanism with a finite channel, or array_like
        Row-stochastic matrices with the same inputs (rows); outputs may differ.
    atol : float, default 1e-9
        Largest entrywise ``|K G - L|`` (and row-sum error of ``G``) accepted, checked
        exactly on the cleaned ``G``.

    Returns
    -------
    BlackwellResult
        Truthy with ``garbling`` when ``L`` is a garbling of ``K``; falsy with ``reason``
        and the smallest residual the linear program reached otherwise.

    Raises
    ------
    ValueError
        If the channels have different numbers of inputs, or ``atol`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> import ldp
    >>> rr1, rr2 = ldp.randomized_response(1.0), ldp.randomized_response(2.0)
    >>> res = ldp.blackwell_dominates(rr2, rr1)   # RR(1) is a garbling of RR(2)
    >>> bool(res), np.allclose(rr2.matrix @ res.garbling, rr1.matrix)
    (True, True)
    >>> bool(ldp.blackwell_dominates(rr1, rr2))
    False
    """
    k = _as_channel(K, "K")
    target_channel = _as_channel(L, "L")
    tol = check_scalar(atol, "atol", low=0.0, low_open=True)
    if k.n_inputs != target_channel.n_inputs:
        raise ValueError(
            f"K and L must have the same inputs, got {k.n_inputs} and "
            f"{target_channel.n_inputs} rows"
        )
    km, lm = k.matrix, target_channel.matrix
    m = km.shape[1]
    w = lm.shape[1]
    solved = _solve(km, lm)
    if solved is None:
        return BlackwellResult(False, None, float("inf"), "the linear program failed")
    g, lp_residual = solved
    residual = _exact_residual(km, g, lm)
    if residual <= tol:
        g.setflags(write=False)
        return BlackwellResult(
            True,
            g,
            residual,
            f"L = K G for a row-stochastic G ({m} x {w}); max |K G - L| = {residual:.3g} "
            f"(exact re-check) <= atol = {tol:g}",
        )
    best = max(lp_residual, 0.0)
    return BlackwellResult(
        False,
        None,
        best,
        f"no row-stochastic G gives K G = L: the closest has max |K G - L| = {best:.3g} "
        f"> atol = {tol:g}",
    )


def _solve(km: np.ndarray, lm: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``min t`` s.t. ``-t <= K G - L <= t``, ``G >= 0``, ``G 1 = 1``; the cleaned ``G``."""
    from scipy import sparse
    from scipy.optimize import linprog

    n, m = km.shape
    w = lm.shape[1]
    nv = m * w + 1  # G row-major, then t
    # (K G)_{ij} = sum_z K[i, z] G[z, j]: the row of variable G[z, j] is i*w + j
    kron = sparse.kron(sparse.csr_matrix(km), sparse.identity(w), format="csr")
    ones = sparse.csr_matrix(np.ones((n * w, 1)))
    a_ub = sparse.vstack(
        [sparse.hstack([kron, -ones]), sparse.hstack([-kron, -ones])], format="csr"
    )
    b_ub = np.concatenate([lm.ravel(), -lm.ravel()])
    a_eq = sparse.hstack(
        [sparse.kron(sparse.identity(m), np.ones((1, w))), sparse.csr_matrix((m, 1))],
        format="csr",
    )
    cost = np.zeros(nv)
    cost[-1] = 1.0
    with quiet_stdout():
        res = linprog(
            cost,
            A_ub=a_ub,
            b_ub=b_ub,
            A_eq=a_eq,
            b_eq=np.ones(m),
            bounds=[(0, None)] * nv,
            method="highs",
        )
    if res.status != 0 or res.x is None:
        return None
    g = np.clip(np.asarray(res.x[:-1], dtype=np.float64).reshape(m, w), 0.0, None)
    sums = g.sum(axis=1, keepdims=True)
    g = np.where(sums > 0, g / np.where(sums > 0, sums, 1.0), 1.0 / w)
    return g, float(res.fun)


@dataclass(frozen=True)
class BlackwellComparison:
    """How two curves compare in the Blackwell order; made by :func:`blackwell_compare`.

    Parameters
    ----------
    order : {"ge", "le", "equal", None}
        ``"ge"``: ``f >= g`` everywhere (``f`` is at least as private); ``"le"``: ``f <= g``;
        ``None``: neither (the curves cross).
    calibration_points : tuple of float
        The ``gamma`` where ``H_f - H_g`` changes sign (empty when ordered).
    max_gap : float
        ``Delta(f, g)``.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, blackwell_compare
    >>> blackwell_compare(GaussianTradeOff(1.0), GaussianTradeOff(2.0)).order
    'ge'
    """

    order: str | None
    calibration_points: tuple[float, ...]
    max_gap: float

    def __bool__(self) -> bool:
        return self.order is not None


def blackwell_compare(f: object, g: object, *, tol: float = 1e-9) -> BlackwellComparison:
    r"""Blackwell order of two curves and their calibration points.

    ``f >= g`` everywhere iff ``H_f <= H_g`` everywhere (Tran-Koskela-Räisä-Honkela (2025),
    Appendix A). Curves that are not ordered cross at calibration points: the ``gamma``
    where ``H_f - H_g`` changes sign (located by root finding). Differences within ``tol``
    count as ties.

    Parameters
    ----------
    f, g : TradeOffFunction or callable
        Curves or remove-direction profiles.
    tol : float, default 1e-9

    Returns
    -------
    BlackwellComparison

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff
    >>> from ldp.accounting.central import SubsampledGaussianTradeOff
    >>> from ldp.accounting import blackwell_compare
    >>> r = blackwell_compare(GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0))
    >>> r.order, [round(x, 3) for x in r.calibration_points]
    (None, [8.966])
    """
    t = check_scalar(tol, "tol", low=0.0)
    hf, hg = as_profile(f, "f"), as_profile(g, "g")
    gamma = np.exp(LOG_GAMMA)
    diff = hf(gamma) - hg(gamma)
    above, below = diff > t, diff < -t
    gap = delta_divergence(hf, hg)
    if not above.any() and not below.any():
        return BlackwellComparison("equal", (), gap)
    if not above.any():
        return BlackwellComparison("ge", (), gap)
    if not below.any():
        return BlackwellComparison("le", (), gap)
    sign = np.where(above, 1, np.where(below, -1, 0))
    idx = np.nonzero(sign)[0]
    points = []
    for a, b in itertools.pairwise(idx):
        if sign[a] != sign[b]:

            def d(u: float) -> float:
                x = np.array([math.exp(u)])
                return float(hf(x)[0] - hg(x)[0])

            u = brentq(d, LOG_GAMMA[a], LOG_GAMMA[b], xtol=1e-12)
            points.append(math.exp(u))
    return BlackwellComparison(None, tuple(points), gap)


def is_blackwell_chain(family: Sequence[object], *, tol: float = 1e-9) -> bool:
    r"""Whether every pair of the family is Blackwell-ordered (a chain).

    Theorem 3.6 of Tran-Koskela-Räisä-Honkela (2025): the natural f-DP filter is valid for
    ``T`` steps when the family ``F^(T-2)`` of the curves available (closed under the
    tensor-with-limits operation of their Definition 3.5) is a chain; Theorem 3.8: outside
    pure-DP first steps it is invalid otherwise.

    Parameters
    ----------
    family : sequence of TradeOffFunction or callable
    tol : float, default 1e-9

    Returns
    -------
    bool

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff
    >>> from ldp.accounting.central import SubsampledGaussianTradeOff
    >>> from ldp.accounting import is_blackwell_chain
    >>> is_blackwell_chain([GaussianTradeOff(m) for m in (0.5, 1.0, 3.0)])
    True
    >>> is_blackwell_chain([GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0)])
    False
    """
    members = list(family)
    return all(
        blackwell_compare(members[i], members[j], tol=tol).order is not None
        for i in range(len(members))
        for j in range(i + 1, len(members))
    )
