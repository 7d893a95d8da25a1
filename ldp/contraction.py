r"""Contraction coefficients of finite channels and the contraction bounds of the seed papers.

For a channel ``K`` (a row-stochastic matrix ``K[x, z]``) and an f-divergence ``D_f``, the
contraction coefficient is

.. math:: \eta_f(K) = \sup_{P, Q:\ 0 < D_f(P\|Q) < \infty}
          \frac{D_f(PK \| QK)}{D_f(P \| Q)} \in [0, 1]

(seed 003, eq. 3; seed 001, eq. 23). This module computes it exactly where a theorem
reduces the supremum to a finite computation, and gives the closed forms and bounds of the
seed papers as functions of ``(epsilon, delta, eta, n)``.

Exact coefficients (:func:`coefficient`)
----------------------------------------
* ``"tv"``: Dobrushin (1956), seed 003 eq. (26): the largest TV distance between two rows.
* ``"hockey_stick"``, ``gamma >= 1``: seed 003 Theorem 3 (its ref. [30], Thm 3): the largest
  :math:`E_\gamma` between two ordered rows. ``0 < gamma < 1``: seed 003 digest §1.4,
  :math:`\eta_\gamma = \eta_{1/\gamma} = \gamma^{-1}\max E_\gamma(K_x\|K_{x'})`, because
  :math:`E_\gamma(P\|Q) = \gamma E_{1/\gamma}(Q\|P)` (both forms are checked against each
  other and against a brute-force ratio search in the tests). ``gamma = 0`` raises:
  :math:`E_0 \equiv 0`, so the ratio is undefined.
* ``"chi2"``: :math:`\sup_P \sigma_2^2(\mathrm{diag}(\sqrt p) K \mathrm{diag}(pK)^{-1/2})`
  (squared maximal correlation). By Ordentlich & Polyanskiy, "Strong data processing
  constant is achieved by binary inputs" (IEEE T-IT 68(3), 2022, Thm 1; seed 001 ref. [39])
  the supremum is attained by a binary-input sub-channel ``(K_x, K_x')``, for which it is the
  Le Cam sup (seed 001 eq. 37-38)

  .. math:: \eta(K_x, K_{x'}) = \sup_{\beta\in(0,1)} \beta(1-\beta)
            \sum_z \frac{(K_x(z) - K_{x'}(z))^2}{\beta K_x(z) + (1-\beta) K_{x'}(z)} .

  The function of beta is concave (its second derivative is
  :math:`-2\sum_z d_z^2 K_x(z) K_{x'}(z) / D_z^3 \le 0`), so each 1-D problem is solved by a
  safeguarded Newton iteration, vectorised over pairs, with pairs discarded as soon as a
  tangent-line upper bound shows they cannot beat the best value found. The tests check the
  pairwise reduction against a multi-start search of :math:`\sigma_2^2` over the whole input
  simplex on random channels with up to six inputs: they agree to rounding (about 1e-14).
* ``"kl"`` and ``"hellinger"``: equal to ``"chi2"`` at channel level. For KL this is
  Ahlswede & Gács (1976) / Polyanskiy & Wu (2017); more generally
  :math:`\eta_f(K) = \eta_{\chi^2}(K)` for every operator-convex ``f`` with ``f''(1) > 0``
  (Choi, Ruskai & Seneta 1994; Makur & Zheng 2020), which covers
  :math:`t\log t` and :math:`(\sqrt t - 1)^2 = t + 1 - 2\sqrt t`. Both are checked in the tests
  by brute-force ratio searches over input pairs.
* ``"f"`` with a custom generator ``f=``: the binary-input reduction still holds (Ordentlich &
  Polyanskiy, Thm 1 covers every f), but the per-pair supremum has no closed form, so a grid
  and local search over Bernoulli input pairs gives a **lower estimate** (``method`` says
  so), unless ``operator_convex=True`` asserts the Choi-Ruskai-Seneta condition.

Closed forms and bounds
-----------------------
* :func:`phi` -- seed 003 Lemmas 1-2, :math:`\varphi_n = 1 - e^{-n\varepsilon}(1-\delta)^n`.
* :func:`worst_case_tv`, :func:`worst_case_hockey_stick` -- the exact suprema of
  :math:`\eta_{TV}` and :math:`\eta_\gamma` over all :math:`(\varepsilon,\delta)`-LDP channels
  (seed 003 digest §2.4, derived there; attained by randomized response with
  delta-disclosure).
* :func:`rr_coefficient`, :func:`k_rr_coefficient` -- RR and k-RR. Erratum followed: seed 003
  prints :math:`\eta_{KL}(\mathrm{BSC}(\omega)) = 1 - 2\omega^2`; the correct value is
  :math:`(1 - 2\omega)^2 = ((e^\varepsilon-1)/(e^\varepsilon+1))^2` (checked numerically in
  the tests: at ``eps = 1`` the printed form gives 0.8553, the channel gives 0.2136).
* :func:`max_output_tv` (seed 001 Prop. 2), :func:`max_f_divergence` (Thm 4),
  :func:`max_kl_contraction` (Thm 5; with ``delta > 0`` a derived extension, see its
  docstring), :func:`chi2_output_bound` (Thm 6), :func:`erase` (Thm 7). Erratum followed:
  seed 001 eq. (26) and Theorem 6 print the TV range as
  :math:`(e^\varepsilon+1)/(e^\varepsilon-1) > 1`; the correct level is
  :math:`\tanh(\varepsilon/2) = (e^\varepsilon-1)/(e^\varepsilon+1)` (an
  :math:`\varepsilon`-LDP channel never exceeds it; tested).
* :func:`best_bound` -- the smallest of these bounds that applies to a given channel, from
  its own ``epsilon``, ``delta(eps)`` profile and ``tv``.

Points settled numerically (each has a test)
--------------------------------------------
* Pairwise reduction = full-simplex supremum for chi2 / KL (Ordentlich-Polyanskiy): the
  multi-start simplex search never exceeds the pairwise value and reaches it.
* KL and chi2 coefficients do **not** tensorise at channel level. The seed 003 digest
  (§1.4, §2.3, item E20) states :math:`\eta_{KL}(K^{\otimes n}) = \eta_{KL}(K)`; that holds
  for product input distributions only (maximal correlation tensorises, Witsenhausen 1975).
  The channel-level supremum may use correlated inputs: for randomized response at
  ``eps = 1`` the repetition input on :math:`K\otimes K` gives 0.3519 > 0.2136, and the
  erasure channel has :math:`\eta_{KL}(\mathrm{BEC}_e^{\otimes n}) = 1 - e^n =
  \varphi_n(0, 1-e)`. So seed 003 Lemma 2's :math:`\varphi_n` (not :math:`\varphi`) is the
  right bound for ``n`` uses, as the paper has it.
* For custom ``f`` the search excludes Bernoulli pairs closer than ``1e-4`` (cancellation)
  and keeps a relative margin of ``1e-9``, so that the estimate never exceeds the true
  coefficient.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from scipy.special import expit

from ldp._pairwise import max_pairwise_hockey_stick, max_pairwise_tv
from ldp._validation import (
    check_epsilon,
    check_integer,
    check_pmf,
    check_probability,
    check_scalar,
)
from ldp.channel import Channel
from ldp.divergences import check_generator, tv
from ldp.mechanisms.channels import eta_max

__all__ = [
    "BoundCandidate",
    "ContractionBound",
    "ContractionCoefficient",
    "best_bound",
    "chi2_output_bound",
    "coefficient",
    "erase",
    "k_rr_coefficient",
    "max_f_divergence",
    "max_kl_contraction",
    "max_output_tv",
    "phi",
    "rr_coefficient",
    "worst_case_hockey_stick",
    "worst_case_tv",
]

#: Kinds accepted by :func:`coefficient` and :func:`best_bound`.
KINDS = ("tv", "hockey_stick", "chi2", "kl", "hellinger", "f")

#: Relative slack for parameters that sit on the end of their range after rounding.
_SLACK = 1e-12


# ====================================================================== result objects
def _frozen(array: np.ndarray | None) -> np.ndarray | None:
    if array is None:
        return None
    out = np.array(array, dtype=np.float64)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class ContractionCoefficient:
    r"""The contraction coefficient of a channel, with what attains it.

    Attributes
    ----------
    value : float
        The coefficient (``float(result)`` gives it too).
    kind : str
        ``"tv"``, ``"hockey_stick"``, ``"chi2"``, ``"kl"``, ``"hellinger"`` or ``"f"``.
    method : str
        ``"exact"`` when a theorem reduces the supremum to the computation performed, or
        ``"lower estimate"`` for a numerical search that only certifies ``value <= eta``.
    source : str
        The theorem or algorithm behind the value.
    p0, p1 : ndarray or None
        For two-point suprema (TV, E_gamma, custom f): input distributions whose ratio
        ``D(p0 K || p1 K) / D(p0 || p1)`` attains ``value``.
    p : ndarray or None
        For chi2 / KL / Hellinger: the input distribution maximising
        :math:`\sigma_2^2(\mathrm{diag}(\sqrt p) K \mathrm{diag}(pK)^{-1/2})`; its support is
        a pair of inputs. When the supremum is approached only as ``p`` tends to a point mass
        (possible when rows have zeros), ``p`` is that limit.
    pair : tuple of int or None
        The two inputs ``(x, x')`` whose sub-channel attains the value.
    gamma : float or None
        The order of ``E_gamma`` for ``kind="hockey_stick"``.
    """

    value: float
    kind: str
    method: str
    source: str
    p0: np.ndarray | None = None
    p1: np.ndarray | None = None
    p: np.ndarray | None = None
    pair: tuple[int, int] | None = None
    gamma: float | None = None

    def __post_init__(self) -> None:
        for name in ("p0", "p1", "p"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def __float__(self) -> float:
        return float(self.value)

    @property
    def is_exact(self) -> bool:
        """Whether ``value`` is the coefficient itself (not a lower estimate)."""
        return self.method == "exact"

    def __repr__(self) -> str:
        extra = "" if self.gamma is None else f", gamma={self.gamma:.6g}"
        return (
            f"ContractionCoefficient(kind={self.kind!r}{extra}, value={self.value:.10g}, "
            f"method={self.method!r}, pair={self.pair})"
        )


@dataclass(frozen=True)
class BoundCandidate:
    """One theorem bound on a contraction coefficient, with the parameters it used."""

    value: float
    theorem: str
    epsilon: float | None = None
    delta: float | None = None
    eta: float | None = None

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True, eq=False)
class ContractionBound:
    """The best theorem bound on ``eta_kind(K)``, and every bound that applied.

    Attributes
    ----------
    value : float
        The smallest valid bound.
    theorem : str
        The theorem that gave it.
    kind : str
        The divergence bounded.
    candidates : tuple of BoundCandidate
        Every bound that applied, each with its value and the ``(epsilon, delta, eta)`` it
        used, in the order they were tried.
    """

    value: float
    theorem: str
    kind: str
    candidates: tuple[BoundCandidate, ...] = field(default_factory=tuple)
    gamma: float | None = None

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        return (
            f"ContractionBound(kind={self.kind!r}, value={self.value:.10g}, "
            f"theorem={self.theorem!r}, {len(self.candidates)} candidates)"
        )


# ====================================================================== helpers
def _as_channel(channel: Channel | ArrayLike) -> Channel:
    return channel if isinstance(channel, Channel) else Channel(channel)


def _check_kind(kind: object) -> str:
    if not isinstance(kind, str):
        raise TypeError(f"kind must be a string, one of {KINDS}, got {kind!r}")
    name = kind.lower()
    if name in ("e_gamma", "egamma", "hockey-stick"):
        name = "hockey_stick"
    if name not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return name


def _check_gamma(gamma: object) -> float:
    if gamma is None:
        raise ValueError("gamma is required for kind='hockey_stick' (E_gamma with gamma > 0)")
    value = check_scalar(gamma, "gamma", low=0.0, allow_inf=True)
    if value == 0.0:
        raise ValueError(
            "gamma must be > 0: E_0 is identically zero, so its contraction coefficient is "
            "undefined, got gamma=0.0"
        )
    return value


def _unit(k: int, i: int) -> np.ndarray:
    out = np.zeros(k)
    out[i] = 1.0
    return out


def _th(eps: float) -> float:
    """``tanh(eps / 2) = (e^eps - 1) / (e^eps + 1)``, 1 at ``eps = inf``."""
    return math.tanh(eps / 2.0)


def _positive_part_ratio(eps: float, gamma: float, offset: float) -> float:
    """``(e^eps - gamma)_+ / (e^eps + offset)``, stable for large ``eps`` and ``gamma = inf``."""
    if math.isinf(gamma):
        return 0.0
    tail = math.exp(-eps)  # numerator and denominator divided by e^eps; 0 at eps = inf
    return max(0.0, (1.0 - gamma * tail) / (1.0 + offset * tail))


# ====================================================================== chi2 / KL solver
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


# ====================================================================== custom f search
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


def _f_search(matrix: np.ndarray, f, max_pairs: int, grid: int):
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
    p0, p1 = np.zeros(k), np.zeros(k)
    p0[x], p0[y] = best_ab[0], 1.0 - best_ab[0]
    p1[x], p1[y] = best_ab[1], 1.0 - best_ab[1]
    return best, best_pair, p0, p1


# ====================================================================== coefficient
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
        (checked by :func:`ldp.divergences.check_generator`).
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
    K = _as_channel(channel)
    name = _check_kind(kind)
    if name != "hockey_stick" and gamma is not None:
        raise ValueError(f"gamma is only used with kind='hockey_stick', got kind={kind!r}")
    if name != "f" and f is not None:
        raise ValueError(f"f is only used with kind='f', got kind={kind!r}")
    matrix = K.matrix
    k = K.n_inputs

    if name == "tv":
        value, i, j = max_pairwise_tv(matrix)
        return ContractionCoefficient(
            value=float(value),
            kind="tv",
            method="exact",
            source="Dobrushin (1956), seed 003 eq. (26): max_{x,x'} TV(K_x, K_x')",
            p0=_unit(k, i),
            p1=_unit(k, j),
            pair=(i, j),
        )

    if name == "hockey_stick":
        g = _check_gamma(gamma)
        if g == 1.0:  # E_1 = TV: the same computation as Channel.tv, so eta_1 == eta_TV
            value, i, j = max_pairwise_tv(matrix)
        else:
            value, i, j = max_pairwise_hockey_stick(matrix, g)
        if g < 1.0:
            # seed 003 digest §1.4: eta_gamma = (1/gamma) max E_gamma(K_x || K_x'), since
            # E_gamma(delta_x || delta_x') = gamma for gamma < 1; equal to eta_{1/gamma}.
            value = min(1.0, value / g)
            source = "seed 003 §1.4 [derived]: (1/gamma) max_{x,x'} E_gamma(K_x || K_x')"
        else:
            source = "seed 003 Theorem 3: max_{x,x'} E_gamma(K_x || K_x')"
        return ContractionCoefficient(
            value=float(value),
            kind="hockey_stick",
            method="exact",
            source=source,
            p0=_unit(k, i),
            p1=_unit(k, j),
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
            value, pair, p0, p1 = _f_search(matrix, f, pairs, grid=41)
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
        "the Le Cam sup (seed 001 eq. 37)",
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


# ====================================================================== closed forms
def phi(epsilon: float, delta: float = 0.0, n: int = 1) -> float:
    r"""Seed 003's universal contraction factor of ``n`` uses of an ``(eps, delta)``-LDP channel.

    .. math:: \varphi_n(\varepsilon, \delta) = 1 - e^{-n\varepsilon}(1 - \delta)^n,

    Lemma 1 (``n = 1``): every f-divergence contracts by at most :math:`\varphi` under any
    :math:`(\varepsilon,\delta)`-LDP channel; Lemma 2: by at most :math:`\varphi_n` under the
    n-fold product. Computed as ``-expm1(n (log1p(-delta) - eps))`` for accuracy when the
    value is tiny.

    Examples
    --------
    >>> from ldp.contraction import phi
    >>> round(phi(1.0, 0.05), 10)
    0.6505145309
    >>> phi(0.0, 0.1, n=2)
    0.19...
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    count = check_integer(n, "n", low=1)
    if d == 1.0 or math.isinf(eps):
        return 1.0
    if count == 1:  # delta + (1 - delta)(1 - e^-eps): both terms >= 0, exact at eps = 0
        return d + (1.0 - d) * float(-np.expm1(-eps))
    # Python floats: a huge n * eps overflows quietly to -inf, giving phi = 1
    return -math.expm1(count * (math.log1p(-d) - eps))


def worst_case_tv(epsilon: float, delta: float = 0.0) -> float:
    r"""The largest Dobrushin coefficient of any :math:`(\varepsilon,\delta)`-LDP channel.

    .. math:: \sup_{K\in\mathcal Q_{\varepsilon,\delta}} \eta_{TV}(K)
              = \frac{e^\varepsilon - 1 + 2\delta}{e^\varepsilon + 1}
              = \delta + (1-\delta)\tanh(\varepsilon/2),

    attained by randomized response with delta-disclosure (seed 003 digest §2.4, derived
    there; the same number is seed 001's :math:`\eta_{\max}`, Cor. 1, so this delegates to
    :func:`ldp.mechanisms.eta_max`). It is strictly below :func:`phi` for ``eps > 0`` and
    ``delta < 1``. It bounds :math:`\eta_f` for every ``f`` (seed 003 eq. 30).

    Examples
    --------
    >>> from ldp.contraction import worst_case_tv
    >>> round(worst_case_tv(1.0, 0.05), 10)
    0.4890112994
    """
    return eta_max(epsilon, delta)


def worst_case_hockey_stick(epsilon: float, delta: float, gamma: float) -> float:
    r"""The largest :math:`\eta_\gamma` of any :math:`(\varepsilon,\delta)`-LDP channel.

    .. math:: \sup_{K\in\mathcal Q_{\varepsilon,\delta}} \eta_\gamma(K)
              = \delta + (1-\delta)\frac{(e^\varepsilon - \gamma)_+}{e^\varepsilon + 1},
              \qquad \gamma \ge 1

    (seed 003 digest §2.4, derived there; attained by randomized response with
    delta-disclosure). ``gamma = 1`` is :func:`worst_case_tv`, ``gamma = e^eps`` gives
    ``delta`` (Theorem 1). For ``0 < gamma < 1`` the value at ``1 / gamma`` is returned, since
    :math:`\eta_\gamma = \eta_{1/\gamma}`.

    Examples
    --------
    >>> from ldp.contraction import worst_case_hockey_stick
    >>> round(worst_case_hockey_stick(1.0, 0.1, 1.5), 6)
    0.394882
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    g = _check_gamma(gamma)
    g = max(g, 1.0 / g)
    return min(1.0, d + (1.0 - d) * _positive_part_ratio(eps, g, 1.0))


_RR_KINDS = ("tv", "hockey_stick", "chi2", "kl", "hellinger")


def k_rr_coefficient(kind: str, k: int, epsilon: float, gamma: float | None = None) -> float:
    r"""Closed-form contraction coefficients of k-ary randomized response.

    With :math:`E = e^\varepsilon`:

    * ``"tv"``: :math:`(E-1)/(E+k-1)`;
    * ``"hockey_stick"``: :math:`(E-\gamma)_+/(E+k-1)` for ``gamma >= 1`` (and the value at
      ``1/gamma`` for ``gamma < 1``);
    * ``"chi2"``, ``"kl"``, ``"hellinger"``:
      :math:`(E-1)^2/((E+k-1)(E+1))`, attained by the uniform input on two symbols (seed 001
      eq. 36, tight by Asoodeh & Zhang Prop. 1; Hellinger equals chi2 at channel level).

    The tests check each against the channel :func:`ldp.k_rr` and the seed digests' tables.

    Examples
    --------
    >>> from ldp.contraction import k_rr_coefficient
    >>> round(k_rr_coefficient("kl", 4, 1.0), 6)
    0.138861
    """
    name = _check_kind(kind)
    if name not in _RR_KINDS:
        raise ValueError(f"kind must be one of {_RR_KINDS} for k-RR, got {kind!r}")
    size = check_integer(k, "k", low=2)
    eps = check_epsilon(epsilon)
    if name != "hockey_stick" and gamma is not None:
        raise ValueError(f"gamma is only used with kind='hockey_stick', got kind={kind!r}")
    tail = math.exp(-eps) if not math.isinf(eps) else 0.0
    if name == "tv":
        return -math.expm1(-eps) / (1.0 + (size - 1) * tail)
    if name == "hockey_stick":
        g = _check_gamma(gamma)
        if math.isinf(eps):  # the identity channel: E_gamma of two point masses is 1
            return 1.0
        return _positive_part_ratio(eps, max(g, 1.0 / g), size - 1.0)
    return (-math.expm1(-eps)) ** 2 / ((1.0 + (size - 1) * tail) * (1.0 + tail))


def rr_coefficient(kind: str, epsilon: float, gamma: float | None = None) -> float:
    r"""Closed-form contraction coefficients of binary randomized response, ``BSC(w)``.

    With :math:`w = 1/(1+e^\varepsilon)`: TV :math:`1 - 2w = \tanh(\varepsilon/2)`;
    :math:`E_\gamma` :math:`(e^\varepsilon-\gamma)_+/(e^\varepsilon+1)`; KL, chi2 and squared
    Hellinger :math:`(1-2w)^2 = \tanh^2(\varepsilon/2)`. Seed 003 prints
    :math:`1 - 2w^2` for KL; that is an erratum (digest E4) and the corrected
    :math:`(1-2w)^2` is used and tested. :func:`k_rr_coefficient` with ``k = 2``.

    Examples
    --------
    >>> from ldp.contraction import rr_coefficient
    >>> round(rr_coefficient("kl", 1.0), 6), round(rr_coefficient("tv", 1.0), 6)
    (0.213552, 0.462117)
    """
    return k_rr_coefficient(kind, 2, epsilon, gamma)


def _check_eta(eta: object, epsilon: float, delta: float = 0.0) -> float:
    value = check_probability(eta, "eta")
    top = delta + (1.0 - delta) * _th(epsilon)
    slack = _SLACK * max(1.0, top)
    if not (delta - slack <= value <= top + slack):
        raise ValueError(
            f"eta must lie in [delta, delta + (1 - delta) tanh(epsilon/2)] = [{delta!r}, "
            f"{top!r}] for epsilon={epsilon!r}, got {value!r}"
        )
    return min(max(value, delta), top)


def max_output_tv(epsilon: float, eta: float, p0: ArrayLike, p1: ArrayLike) -> float:
    r"""The largest output TV of an :math:`(\varepsilon,\eta)` channel on inputs ``p0``, ``p1``.

    Seed 001 Proposition 2:
    :math:`\sup_{Q\in\mathcal Q_{\varepsilon,\eta}} TV(p_0 Q, p_1 Q) = \eta\,TV(p_0, p_1)`,
    attained by :func:`ldp.binary_mechanism_with_erasure`.

    Parameters
    ----------
    epsilon : float
        Pure LDP level, ``>= 0``.
    eta : float
        TV level in ``[0, tanh(epsilon/2)]``.
    p0, p1 : array_like
        Input distributions on the same alphabet.

    Examples
    --------
    >>> from ldp.contraction import max_output_tv
    >>> round(max_output_tv(1.0, 0.3, [0.5, 0.3, 0.2], [0.1, 0.3, 0.6]), 12)
    0.12
    """
    eps = check_epsilon(epsilon)
    level = _check_eta(eta, eps)
    first = check_pmf(p0, "p0", ndim=1)
    second = check_pmf(p1, "p1", ndim=1)
    if first.shape != second.shape:
        raise ValueError(f"p0 and p1 must have the same length, got {first.size} and {second.size}")
    return level * float(tv(first, second))


_F_PRESETS = ("tv", "kl", "chi2", "hellinger", "hockey_stick")


def max_f_divergence(
    epsilon: float,
    eta: float,
    f: str | Callable[[np.ndarray], ArrayLike] = "kl",
    *,
    gamma: float | None = None,
) -> float:
    r"""The largest f-divergence between the two rows of an :math:`(\varepsilon,\eta)` channel.

    Seed 001 Theorem 4, with :math:`E = e^\varepsilon`:

    .. math:: \sup_{(P_0,P_1)\in\mathcal Q_{\varepsilon,\eta}} D_f(P_0\|P_1)
              = \eta\,\frac{f(E) + E f(1/E)}{E - 1},

    attained by the dominating pair :math:`Q^*_{\varepsilon,\eta}` (:func:`ldp.binary_erasure`).
    Presets (closed forms from the digest's §6.2 table, stable for small ``epsilon``):
    ``"tv"`` :math:`\eta`, ``"kl"`` :math:`\varepsilon\eta`, ``"chi2"``
    :math:`\eta(E-1)(1+e^{-\varepsilon})`, ``"hellinger"`` :math:`2\eta\tanh(\varepsilon/4)`,
    ``"hockey_stick"`` :math:`\eta(E-\gamma)_+/(E-1)` (``gamma >= 1``).

    Parameters
    ----------
    epsilon : float
        ``>= 0``; ``inf`` only with a preset.
    eta : float
        In ``[0, tanh(epsilon/2)]``.
    f : str or callable, default "kl"
        A preset name or a convex generator with ``f(1) = 0``.
    gamma : float, optional
        For ``f="hockey_stick"``.

    Examples
    --------
    >>> from ldp.contraction import max_f_divergence
    >>> round(max_f_divergence(1.0, 0.3, "chi2"), 12)
    0.705120716186
    >>> import numpy as np
    >>> round(max_f_divergence(1.0, 0.3, lambda t: t * np.log(t)), 12)   # = eps * eta
    0.3
    """
    eps = check_epsilon(epsilon)
    level = _check_eta(eta, eps)
    if isinstance(f, str):
        name = _check_kind(f)
        if name not in _F_PRESETS:
            raise ValueError(f"f must be one of {_F_PRESETS} or a callable, got {f!r}")
        if name != "hockey_stick" and gamma is not None:
            raise ValueError(f"gamma is only used with f='hockey_stick', got f={f!r}")
        if level == 0.0:
            if name == "hockey_stick":
                _check_gamma(gamma)
            return 0.0
        if name == "tv":
            return level
        if name == "kl":
            return eps * level
        if name == "chi2":
            return math.inf if math.isinf(eps) else level * math.expm1(eps) * (1 + math.exp(-eps))
        if name == "hellinger":
            return 2.0 * level * math.tanh(eps / 4.0)
        g = _check_gamma(gamma)
        if g < 1.0:
            raise ValueError(f"gamma must be >= 1 for f='hockey_stick' (Theorem 4), got {g!r}")
        if math.isinf(eps):
            return 0.0 if math.isinf(g) else level
        if g >= math.exp(eps):
            return 0.0
        return level * (1.0 - g * math.exp(-eps)) / (-math.expm1(-eps))
    check_generator(f)
    if math.isinf(eps):
        raise ValueError("epsilon must be finite for a callable f (the limit is not computed)")
    if level == 0.0:
        return 0.0
    big = math.exp(eps)
    with np.errstate(all="ignore"):
        values = np.asarray(f(np.array([big, 1.0 / big])), dtype=np.float64)
    out = level * (values[0] + big * values[1]) / math.expm1(eps)
    if not math.isfinite(out):
        raise ValueError(f"f returned a non-finite value at e^(+-epsilon), got {out!r}")
    return max(0.0, float(out))


def max_kl_contraction(epsilon: float, eta: float, delta: float = 0.0) -> float:
    r"""The largest KL (= chi2) contraction coefficient of an :math:`(\varepsilon,\eta)` channel.

    Seed 001 Theorem 5 (``delta = 0``):
    :math:`\sup_{Q\in\mathcal Q_{\varepsilon,\eta}} \eta_{KL}(Q) = \eta\tanh(\varepsilon/2)`,
    attained by :math:`Q^*_{\varepsilon,\eta}`. Erratum followed: eq. (26) and Theorem 6
    print the range of ``eta`` with the inverted fraction :math:`(e^\varepsilon+1)/
    (e^\varepsilon-1)`; the factor is :math:`\tanh(\varepsilon/2)`, not its reciprocal.

    With ``delta > 0`` (derived here, not in the paper): every
    :math:`(\varepsilon,\delta)`-LDP, eta-TV pair of rows is a garbling of the dominating
    pair :math:`M_{\varepsilon,\delta,\eta}` (seed 001 §1.10(b), Blackwell), whose Le Cam sup
    is :math:`\delta + (\eta - \delta)\tanh(\varepsilon/2)` (at ``beta = 1/2``); with
    Ordentlich-Polyanskiy's binary-input reduction this bounds :math:`\eta_{KL}(K)`. The tests
    check the value against the exact coefficient of :func:`ldp.binary_erasure`.

    Parameters
    ----------
    epsilon : float
        ``>= 0`` (``inf`` allowed: the bound is ``eta``).
    eta : float
        TV level in ``[delta, delta + (1 - delta) tanh(epsilon/2)]``.
    delta : float, default 0.0
        In ``[0, 1]``.

    Examples
    --------
    >>> from ldp.contraction import max_kl_contraction
    >>> round(max_kl_contraction(1.0, 0.3), 12)
    0.138635147178
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    level = _check_eta(eta, eps, d)
    return min(1.0, d + (level - d) * _th(eps))


def chi2_output_bound(epsilon: float, eta: float, tv_in: float) -> float:
    r"""Seed 001 Theorem 6: the chi2 between outputs of an :math:`(\varepsilon,\eta)` channel.

    For every :math:`Q\in\mathcal Q_{\varepsilon,\eta}` and inputs :math:`P_0, P_1`,

    .. math:: \chi^2(P_0 Q\|P_1 Q) \le 4\eta(e^\varepsilon - 1)(1 + e^{-\varepsilon})\,
              TV(P_0, P_1)^2 .

    (Duchi-Ruan Prop. 8 with Theorem 4 for :math:`f = (t-1)^2`.) The paper prints the range
    of ``eta`` as :math:`[0, (e^\varepsilon+1)/(e^\varepsilon-1)]`; the correct range is
    :math:`[0, \tanh(\varepsilon/2)]` and is enforced.

    Examples
    --------
    >>> from ldp.contraction import chi2_output_bound
    >>> round(chi2_output_bound(1.0, 0.3, 0.5), 12)   # 4 * 0.705120716186 * 0.25
    0.705120716186
    """
    eps = check_epsilon(epsilon)
    level = _check_eta(eta, eps)
    t = check_probability(tv_in, "tv_in")
    if level == 0.0 or t == 0.0:
        return 0.0
    if math.isinf(eps):
        return math.inf
    if eps > 700.0:  # e^eps overflows: the bound is above 1e300, report it as inf
        return math.inf
    return 4.0 * level * math.expm1(eps) * (1.0 + math.exp(-eps)) * t * t


def erase(channel: Channel | ArrayLike, epsilon: float, eta: float) -> Channel:
    r"""Seed 001 Theorem 7: turn an :math:`\varepsilon`-LDP channel into an
    :math:`(\varepsilon,\eta)` one by an erasure.

    Returns :math:`W_\alpha\circ Q`: the output of ``channel`` is kept with probability
    :math:`1-\alpha` and replaced by a new erasure symbol (the last output) with probability
    :math:`\alpha = 1 - \eta(e^\varepsilon+1)/(e^\varepsilon-1)`. The result is still
    :math:`\varepsilon`-LDP, its TV is :math:`(1-\alpha)\,\mathrm{tv}(Q) \le \eta`, and every
    f-divergence between outputs is scaled by exactly :math:`1-\alpha`.

    Parameters
    ----------
    channel : Channel or array_like
        An :math:`\varepsilon`-LDP channel (checked).
    epsilon : float
        ``> 0`` unless ``eta = 0``.
    eta : float
        In ``[0, tanh(epsilon/2)]``.

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.contraction import erase
    >>> q = erase(randomized_response(1.0), 1.0, 0.2)
    >>> q.shape, round(q.tv, 12), round(q.epsilon, 12)
    ((2, 3), 0.2, 1.0)
    """
    K = _as_channel(channel)
    eps = check_epsilon(epsilon)
    level = _check_eta(eta, eps)
    if not K.is_ldp(eps):
        raise ValueError(
            f"channel must be epsilon-LDP for Theorem 7; its epsilon is {K.epsilon!r} > "
            f"epsilon={eps!r}"
        )
    keep = 0.0 if level == 0.0 else min(1.0, level / _th(eps))
    matrix = np.hstack([keep * K.matrix, np.full((K.n_inputs, 1), 1.0 - keep)])
    return Channel(matrix)


# ====================================================================== best bound
#: Most likelihood-ratio levels :func:`best_bound` evaluates the profile at.
_MAX_RATIO_LEVELS = 48


def _levels(K: Channel) -> np.ndarray:
    """Privacy levels at which the channel's profile ``(eps, delta(eps))`` is used.

    A grid, plus the channel's own log-likelihood ratios: the delta profile is piecewise
    linear in ``e^eps`` with breakpoints there, which is where the bounds built from it
    tend to be smallest.
    """
    matrix = K.matrix
    k, m = matrix.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(matrix)
        if k * k * m <= 1 << 16:
            ratios = (logs[:, None, :] - logs[None, :, :]).ravel()
        else:  # column extremes only: the largest ratio each output can show
            ratios = logs.max(axis=0) - logs.min(axis=0)
    ratios = np.unique(ratios[np.isfinite(ratios) & (ratios > 0)])
    if ratios.size > _MAX_RATIO_LEVELS:
        ratios = np.quantile(ratios, np.linspace(0.0, 1.0, _MAX_RATIO_LEVELS))
    eps = K.epsilon
    if math.isfinite(eps):
        grid = eps * np.linspace(0.0, 1.0, 17)
    else:
        grid = np.concatenate(([0.0], np.geomspace(0.02, 30.0, 24), [math.inf]))
    return np.unique(np.concatenate((grid, ratios)))


def best_bound(
    channel: Channel | ArrayLike, kind: str, *, gamma: float | None = None
) -> ContractionBound:
    r"""The best theorem bound on :math:`\eta_{\text{kind}}(K)` from the channel's privacy.

    Every bound uses only the channel's exact ``tv`` and its privacy profile: the channel is
    :math:`(\varepsilon, \delta(\varepsilon))`-LDP at every level, so a theorem stated for
    :math:`\mathcal Q_{\varepsilon,\delta}` may be applied at any level. Candidates, in the
    order they are listed (on a tie, to rounding, the first one is named):

    * ``"Dobrushin (eta_f <= eta_TV)"``: ``tv`` (seed 003 eq. 30; for ``kind="tv"`` it is
      the coefficient itself);
    * KL, chi2, Hellinger only (equal at channel level), for a pure-LDP channel (finite
      ``epsilon``): ``"seed 001 Thm 5"``, :math:`\mathrm{tv}\tanh(\varepsilon/2)`, and
      ``"seed 001 eq. (34)"``, :math:`\tanh^2(\varepsilon/2)`;
    * E_gamma only: ``"seed 003 Theorem 1"``, :math:`\eta_{e^\varepsilon} =
      \delta(\varepsilon)` at :math:`\varepsilon = \log\max(\gamma, 1/\gamma)` (exact);
    * ``"tight sup over Q_{eps,delta}"``: :func:`worst_case_tv`, or
      :func:`worst_case_hockey_stick` for E_gamma;
    * KL, chi2, Hellinger only: ``"seed 001 Thm 5, (eps, delta) extension [derived]"``,
      :func:`max_kl_contraction` with ``delta``;
    * ``"seed 003 Lemma 1"``: :func:`phi`.

    Level used: the TV-type bounds (Lemma 1 and the tight TV sup) are never below ``tv`` and
    reduce to it at ``eps = 0``, so they are shown as the paper reads them, at the pure
    ``epsilon`` with ``delta = 0`` when it is finite, else minimised over the levels
    ``eps > 0`` below. The E_gamma sup and the (eps, delta) extension are minimised over
    all levels: 17 up to the pure ``epsilon`` (or 26 in ``[0, inf]`` when it is infinite)
    and the channel's own log-likelihood ratios, where the profile has its breakpoints.
    Each candidate records the ``(epsilon, delta)`` it used.

    Parameters
    ----------
    channel : Channel or array_like
    kind : {"tv", "hockey_stick", "chi2", "kl", "hellinger", "f"}
    gamma : float, optional
        Required for ``kind="hockey_stick"``.

    Returns
    -------
    ContractionBound
        ``value``, ``theorem`` and every ``candidates`` entry.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.contraction import best_bound
    >>> b = best_bound(k_rr(3, 1.0), "kl")
    >>> round(b.value, 6), b.theorem   # tv * tanh(1/2) = 0.364175 * 0.462117
    (0.168292, 'seed 001 Thm 5')
    >>> [(c.theorem, round(c.value, 4)) for c in b.candidates][-1]
    ('seed 003 Lemma 1', 0.6321)
    """
    K = _as_channel(channel)
    name = _check_kind(kind)
    if name == "hockey_stick":
        g = _check_gamma(gamma)
        g = max(g, 1.0 / g)
    elif gamma is not None:
        raise ValueError(f"gamma is only used with kind='hockey_stick', got kind={kind!r}")
    tv_level = K.tv
    pure = K.epsilon
    levels = _levels(K)
    deltas = np.atleast_1d(np.asarray(K.delta(levels), dtype=np.float64))
    deltas = np.minimum(deltas, tv_level)  # E_gamma <= TV; removes rounding excess
    if math.isfinite(pure):
        tv_type = np.array([pure]), np.array([0.0])
    else:
        inner = (levels > 0) & np.isfinite(levels)
        tv_type = levels[inner], deltas[inner]
    candidates: list[BoundCandidate] = [
        BoundCandidate(tv_level, "Dobrushin (eta_f <= eta_TV)", 0.0, tv_level, tv_level)
    ]

    def best_over(theorem: str, formula, at_levels=(levels, deltas)) -> None:
        grid, profile = at_levels
        values = [formula(float(e), float(d)) for e, d in zip(grid, profile)]
        at = int(np.argmin(values))
        candidates.append(
            BoundCandidate(float(values[at]), theorem, float(grid[at]), float(profile[at]))
        )

    kl_like = name in ("kl", "chi2", "hellinger")
    if kl_like and math.isfinite(pure):
        level = min(tv_level, _th(pure))
        candidates.append(BoundCandidate(level * _th(pure), "seed 001 Thm 5", pure, 0.0, level))
        candidates.append(BoundCandidate(_th(pure) ** 2, "seed 001 eq. (34)", pure, 0.0))
    if name == "hockey_stick":
        eps_g = math.log(g)
        theorem_one = min(float(K.delta(eps_g)), tv_level)
        candidates.append(BoundCandidate(theorem_one, "seed 003 Theorem 1", eps_g, theorem_one))
        best_over(
            "tight sup over Q_{eps,delta}",
            lambda e, d: min(1.0, d + (1.0 - d) * _positive_part_ratio(e, g, 1.0)),
        )
    elif tv_type[0].size:
        best_over("tight sup over Q_{eps,delta}", lambda e, d: d + (1.0 - d) * _th(e), tv_type)
    if kl_like:
        best_over(
            "seed 001 Thm 5, (eps, delta) extension [derived]",
            lambda e, d: min(1.0, d + max(tv_level - d, 0.0) * _th(e)),
        )
    if tv_type[0].size:
        best_over("seed 003 Lemma 1", phi, tv_type)
    smallest = min(c.value for c in candidates)
    winner = next(c for c in candidates if c.value <= smallest * (1 + 1e-12) + 1e-15)
    return ContractionBound(
        value=float(winner.value),
        theorem=winner.theorem,
        kind=name,
        candidates=tuple(candidates),
        gamma=g if name == "hockey_stick" else None,
    )
