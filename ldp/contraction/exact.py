r"""Exact contraction coefficients of a finite channel (see :mod:`ldp.contraction`)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from scipy.special import expit

from ldp._pairwise import max_pairwise_hockey_stick, max_pairwise_tv, symmetric_pair
from ldp._validation import check_integer
from ldp.channel import Channel
from ldp.contraction._checks import as_channel, check_gamma, check_kind, unit
from ldp.contraction.results import ContractionCoefficient
from ldp.divergences import check_generator

__all__ = ["coefficient"]

# ---------------------------------------------------------------- chi2 / KL solver
#: Work (pairs x outputs) processed per chunk of the pairwise search.
_CHUNK = 1 << 18


def _pair_values_at_half(rows: np.ndarray, i: np.ndarray, j: np.ndarray):
    """``g(1/2)`` and ``g'(1/2)`` of the Le Cam function for the pairs ``(i, j)``."""
    a, b = rows[i], rows[j]
    s = a + b
    d = a - b
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        safe = np.where(s > 0, s, 1.0)
        q = d * d / safe
        g = 0.5 * q.sum(axis=1)
        slope = -(q * d / safe).sum(axis=1)
    return g, slope


def _le_cam_terms(a: np.ndarray, b: np.ndarray, u: np.ndarray):
    """``g(u), g'(u), g''(u)`` of ``u(1-u) sum d^2 / ((1-u) b + u a)`` for each row pair."""
    uu = u[:, None]
    d2 = (a - b) ** 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        den = (1.0 - uu) * b + uu * a
        live = den > 0
        safe = np.where(live, den, 1.0)
        w = np.where(live, d2 / safe, 0.0)
        g = (u * (1.0 - u)) * w.sum(axis=1)
        w2 = w / safe
        slope = (w2 * (b * (1.0 - uu) ** 2 - a * uu * uu)).sum(axis=1)
        curve = -2.0 * (w2 * (a * b) / safe).sum(axis=1)
    return g, slope, curve


def _boundary_terms(a: np.ndarray, b: np.ndarray):
    """Limits of ``g`` and ``g'`` at ``u -> 0+`` and ``u -> 1-``."""
    d2 = (a - b) ** 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g0 = np.where(b == 0, a, 0.0).sum(axis=1)  # K_x mass where K_x' = 0
        g1 = np.where(a == 0, b, 0.0).sum(axis=1)
        slope0 = np.where(b > 0, d2 / np.where(b > 0, b, 1.0), 0.0).sum(axis=1) - g0
        slope1 = g1 - np.where(a > 0, d2 / np.where(a > 0, a, 1.0), 0.0).sum(axis=1)
    return g0, g1, slope0, slope1


def _chi2_pairwise(matrix: np.ndarray, rtol: float = 1e-13, max_iter: int = 200):
    """``max_{x < x'} sup_beta LC_beta(K_x || K_x')`` with the maximising ``(x, x', beta)``.

    Branch and bound over pairs: a first vectorised pass evaluates every pair at
    ``beta = 1/2``; by concavity ``g(u) <= g(1/2) + |g'(1/2)| / 2`` on ``[0, 1]``, so pairs
    whose bound does not exceed the best value are dropped. Survivors are solved by Newton's
    method safeguarded by bisection, each step again dropping pairs whose tangent bound on
    their bracket cannot beat the best value by more than ``rtol``.
    """
    k, m = matrix.shape
    if k < 2:
        return 0.0, 0, 0, 0.5
    iu, ju = np.triu_indices(k, 1)
    chunk = max(1, _CHUNK // m)
    g_half = np.empty(iu.size)
    upper = np.empty(iu.size)
    for start in range(0, iu.size, chunk):
        sl = slice(start, start + chunk)
        g, slope = _pair_values_at_half(matrix, iu[sl], ju[sl])
        g_half[sl] = g
        upper[sl] = g + 0.5 * np.abs(slope)
    best_at = int(np.argmax(g_half))
    best = float(g_half[best_at])
    best_pair, best_u = (int(iu[best_at]), int(ju[best_at])), 0.5

    def tol() -> float:
        return rtol * max(best, 1e-300) + 1e-300

    alive = np.flatnonzero(upper > best + tol())
    if alive.size == 0:
        return best, *best_pair, best_u
    i, j = iu[alive], ju[alive]
    a, b = matrix[i], matrix[j]
    # boundary maxima (only with zeros in the rows) and the initial bracket
    g0, g1, slope0, slope1 = _boundary_terms(a, b)
    for values, u_end in ((g0, 0.0), (g1, 1.0)):
        at = int(np.argmax(values))
        if values[at] > best:
            best, best_pair, best_u = float(values[at]), (int(i[at]), int(j[at])), u_end
    interior = (slope0 > 0) & (slope1 < 0)
    i, j, a, b = i[interior], j[interior], a[interior], b[interior]
    lo = np.zeros(i.size)
    hi = np.ones(i.size)
    u = np.full(i.size, 0.5)
    for _ in range(max_iter):
        if i.size == 0:
            break
        g, slope, curve = _le_cam_terms(a, b, u)
        at = int(np.argmax(g))
        if g[at] > best:
            best, best_pair, best_u = float(g[at]), (int(i[at]), int(j[at])), float(u[at])
        with np.errstate(invalid="ignore", over="ignore"):
            bound = g + np.maximum(slope * (hi - u), slope * (lo - u))
        rising = slope > 0
        lo = np.where(rising, u, lo)
        hi = np.where(rising, hi, u)
        keep = ~(bound <= best + tol()) & (hi - lo > 4e-16)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step = u - slope / curve
        ok = np.isfinite(step) & (step > lo) & (step < hi)
        u = np.where(ok, step, 0.5 * (lo + hi))
        i, j, a, b, lo, hi, u = (x[keep] for x in (i, j, a, b, lo, hi, u))
    return best, best_pair[0], best_pair[1], best_u


# ---------------------------------------------------------------- custom f search
def _centred_generator(f: Callable[[np.ndarray], ArrayLike]) -> Callable[[np.ndarray], np.ndarray]:
    """``f(t) - c (t - 1)`` with ``c`` a central difference at 1: same divergence between
    mutually covering distributions, without the first-order cancellation."""
    h = 1e-6
    with np.errstate(all="ignore"):
        ends = np.asarray(f(np.array([1.0 - h, 1.0 + h])), dtype=np.float64)
    c = float((ends[1] - ends[0]) / (2 * h))
    if not math.isfinite(c):
        c = 0.0

    def centred(t: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(f(t), dtype=np.float64) - c * (t - 1.0)

    return centred


#: Smallest ``|a - b|`` between the Bernoulli inputs of the custom-f search: closer pairs
#: lose too many digits to cancellation for the ratio to be trusted as a lower estimate.
_MIN_SEPARATION = 1e-4
#: Relative margin taken off the custom-f estimate: the ratios it maximises are accurate to
#: about 1e-12 relative, and a lower estimate must not exceed the coefficient.
_ROUNDING_MARGIN = 1e-9


def _binary_ratio(g, row0, row1, a, b):
    """``D_g(P K || Q K) / D_g(P || Q)`` for ``P = (a, 1-a)``, ``Q = (b, 1-b)`` on a pair.

    ``a`` and ``b`` lie in ``(0, 1)``, so ``PK`` and ``QK`` share their support and no
    ``f'(inf)`` term arises. ``PK`` is formed as ``QK + (a - b)(K_x - K_x')`` so that the
    difference carries no cancellation; pairs closer than ``_MIN_SEPARATION`` score 0.
    """
    used = (row0 + row1) > 0
    row0, row1 = row0[used], row1[used]
    qk = b[:, None] * row0 + (1.0 - b)[:, None] * row1
    pk = qk + (a - b)[:, None] * (row0 - row1)
    with np.errstate(all="ignore"):
        top = (qk * g(pk / qk)).sum(axis=1)
        bottom = b * g(a / b) + (1.0 - b) * g((1.0 - a) / (1.0 - b))
        valid = (np.abs(a - b) >= _MIN_SEPARATION) & (bottom > 0)
        ratio = np.where(valid, top / np.where(valid, bottom, 1.0), 0.0)
    return np.where(np.isfinite(ratio), np.clip(ratio, 0.0, 1.0), 0.0)


def _f_search(matrix: np.ndarray, f, max_pairs: int, grid: int, n_inputs: int):
    """Lower estimate of ``eta_f``: grid plus local search over Bernoulli input pairs of the
    binary sub-channels, visiting pairs by decreasing TV and stopping when a pair's TV (an
    upper bound on its coefficient) cannot beat the best ratio found."""
    k = matrix.shape[0]
    g = _centred_generator(f)
    iu, ju = np.triu_indices(k, 1)
    tvs = 0.5 * np.abs(matrix[iu] - matrix[ju]).sum(axis=1)
    order = np.argsort(-tvs, kind="stable")
    levels = expit(np.linspace(-9.0, 9.0, grid))
    aa, bb = (x.ravel() for x in np.meshgrid(levels, levels, indexing="ij"))
    off = aa != bb
    aa, bb = aa[off], bb[off]
    best, best_pair, best_ab = 0.0, (0, min(1, k - 1)), (1.0, 0.0)
    for n, index in enumerate(order):
        if n >= max_pairs or tvs[index] <= best:
            break
        x, y = int(iu[index]), int(ju[index])
        ratios = _binary_ratio(g, matrix[x], matrix[y], aa, bb)
        at = int(np.argmax(ratios))
        if ratios[at] > best:
            best, best_pair, best_ab = float(ratios[at]), (x, y), (aa[at], bb[at])

            def objective(z, x=x, y=y):
                pa, pb = expit(z[:1]), expit(z[1:])
                return -float(_binary_ratio(g, matrix[x], matrix[y], pa, pb)[0])

            start = np.log(np.array(best_ab)) - np.log1p(-np.array(best_ab))
            res = minimize(objective, start, method="Nelder-Mead", options={"maxiter": 400})
            if -res.fun > best:
                best, best_ab = float(-res.fun), (float(expit(res.x[0])), float(expit(res.x[1])))
    x, y = best_pair
    p0, p1 = np.zeros(n_inputs), np.zeros(n_inputs)
    p0[x], p0[y] = best_ab[0], 1.0 - best_ab[0]
    p1[x], p1[y] = best_ab[1], 1.0 - best_ab[1]
    return best, best_pair, p0, p1


# ---------------------------------------------------------------- coefficient
def coefficient(
    channel: Channel | ArrayLike,
    kind: str,
    *,
    gamma: float | None = None,
    f: Callable[[np.ndarray], ArrayLike] | None = None,
    operator_convex: bool = False,
    max_pairs: int = 64,
) -> ContractionCoefficient:
    r"""The contraction coefficient :math:`\eta_{\text{kind}}(K)` of a finite channel.

    Parameters
    ----------
    channel : Channel or array_like
        The channel ``K[x, z]``.
    kind : {"tv", "hockey_stick", "chi2", "kl", "hellinger", "f"}
        The divergence. ``"tv"``, ``"hockey_stick"``, ``"chi2"``, ``"kl"`` and
        ``"hellinger"`` are exact (see the module docstring for the theorems); ``"f"`` with a
        custom generator is a lower estimate unless ``operator_convex=True``.
    gamma : float, optional
        Order of :math:`E_\gamma` for ``kind="hockey_stick"``: ``gamma > 0`` (``inf``
        allowed). ``gamma = 0`` raises (``E_0 = 0`` identically). For ``gamma < 1`` the value
        is :math:`\eta_{1/\gamma}`.
    f : callable, optional
        For ``kind="f"``: a convex generator with ``f(1) = 0``, evaluated on arrays
        (checked by ``check_generator``).
    operator_convex : bool, default False
        For ``kind="f"``: assert that ``f`` is operator convex with ``f''(1) > 0``, in which
        case :math:`\eta_f = \eta_{\chi^2}` exactly (Choi, Ruskai & Seneta 1994). This
        property cannot be checked numerically; the caller vouches for it.
    max_pairs : int, default 64
        For the numerical search of ``kind="f"``: the number of input pairs (largest TV
        first) searched.

    Returns
    -------
    ContractionCoefficient
        Float-like; carries the maximising inputs and the method.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.contraction import coefficient
    >>> krr = k_rr(3, 1.0)
    >>> c = coefficient(krr, "kl")
    >>> round(float(c), 6), c.method, c.pair      # (e - 1)^2 / ((e + 2)(e + 1))
    (0.168292, 'exact', (0, 1))
    >>> c.p.round(6)
    array([0.5, 0.5, 0. ])
    >>> round(float(coefficient(krr, "hockey_stick", gamma=2.0)), 6)   # (e - 2) / (e + 2)
    0.152234
    """
    K = as_channel(channel)
    name = check_kind(kind)
    if name != "hockey_stick" and gamma is not None:
        raise ValueError(f"gamma is only used with kind='hockey_stick', got kind={kind!r}")
    if name != "f" and f is not None:
        raise ValueError(f"f is only used with kind='f', got kind={kind!r}")
    matrix = K.matrix
    k = K.n_inputs
    reduced = symmetric_pair(matrix)
    if reduced is not None:  # every pair of rows alike (k-RR): the pair (0, 1) speaks for all
        matrix = reduced

    if name == "tv":
        value, i, j = max_pairwise_tv(matrix)
        return ContractionCoefficient(
            value=float(value),
            kind="tv",
            method="exact",
            source=(
                "Dobrushin (1956), Asoodeh-Aliakbarpour-Calmon (2021), eq. (26): "
                "max_{x,x'} TV(K_x, K_x')"
            ),
            p0=unit(k, i),
            p1=unit(k, j),
            pair=(i, j),
        )

    if name == "hockey_stick":
        g = check_gamma(gamma)
        if g == 1.0:  # E_1 = TV: the same computation as Channel.tv, so eta_1 == eta_TV
            value, i, j = max_pairwise_tv(matrix)
        else:
            value, i, j = max_pairwise_hockey_stick(matrix, g)
        if g < 1.0:
            # derived here: eta_gamma = (1/gamma) max E_gamma(K_x || K_x'), since
            # E_gamma(delta_x || delta_x') = gamma for gamma < 1; equal to eta_{1/gamma}.
            value = min(1.0, value / g)
            source = (
                "derived from E_gamma(P || Q) = gamma E_{1/gamma}(Q || P): "
                "(1/gamma) max_{x,x'} E_gamma(K_x || K_x')"
            )
        else:
            source = (
                "Asoodeh-Aliakbarpour-Calmon (2021), Theorem 3: max_{x,x'} E_gamma(K_x || K_x')"
            )
        return ContractionCoefficient(
            value=float(value),
            kind="hockey_stick",
            method="exact",
            source=source,
            p0=unit(k, i),
            p1=unit(k, j),
            pair=(i, j),
            gamma=g,
        )

    if name == "f":
        if f is None:
            raise ValueError("kind='f' needs a generator: pass f=callable")
        check_generator(f)
        if not isinstance(operator_convex, (bool, np.bool_)):
            raise TypeError(f"operator_convex must be a bool, got {operator_convex!r}")
        pairs = check_integer(max_pairs, "max_pairs", low=1)
        if not operator_convex:
            if k < 2:
                return ContractionCoefficient(0.0, "f", "exact", "single input: eta = 0")
            value, pair, p0, p1 = _f_search(matrix, f, pairs, grid=41, n_inputs=k)
            return ContractionCoefficient(
                # less a relative 1e-9 for rounding, so that it stays below eta_f
                value=value * (1.0 - _ROUNDING_MARGIN),
                kind="f",
                method="lower estimate",
                source=(
                    "numerical sup over Bernoulli input pairs of binary sub-channels "
                    "(Ordentlich-Polyanskiy 2022: binary inputs suffice); a lower estimate"
                ),
                p0=p0,
                p1=p1,
                pair=pair,
            )

    value, i, j, u = _chi2_pairwise(matrix)
    p = np.zeros(k)
    p[i] += u
    p[j] += 1.0 - u
    sources = {
        "chi2": "sup_p sigma_2^2 via binary sub-channels (Ordentlich-Polyanskiy 2022) and "
        "the Le Cam sup (Ghazi-Issa (2023), eq. (37))",
        "kl": "eta_KL = eta_chi2 (Ahlswede-Gacs 1976; Polyanskiy-Wu 2017), computed as chi2",
        "hellinger": "eta_H2 = eta_chi2 for operator-convex f (Choi-Ruskai-Seneta 1994; "
        "Makur-Zheng 2020), computed as chi2",
        "f": "eta_f = eta_chi2 for operator-convex f with f''(1) > 0 (Choi-Ruskai-Seneta "
        "1994), as asserted by operator_convex=True",
    }
    return ContractionCoefficient(
        value=float(min(max(value, 0.0), 1.0)),
        kind=name,
        method="exact",
        source=sources[name],
        p=p,
        pair=(i, j) if k > 1 else None,
    )
