r"""Order-optimal minimax lower bounds with explicit constants, for pure epsilon-LDP.

Every bound here is proved in ``docs/lower_bounds.md`` (sections named below) and holds at
the given ``n``; none is an asymptotic constant. Each is the best value over a family of
priors, and every prior evaluated gives a valid bound, so a coarse search only loses
tightness, never validity.

* **Distribution estimation, squared l2** (:func:`distribution_van_trees`; §2): the
  multivariate van Trees inequality (Gill-Levit 1995) with a Dirichlet prior on a shrunken
  sub-simplex of ``u <= k`` letters. The per-user Fisher information of any eps-LDP channel is
  bounded on that sub-simplex by a staircase-column maximum
  :math:`u\,C_{1-\delta}(u, \varepsilon)` (the bound is exact at the uniform point for subset
  selection, which is why the bound reaches subset selection's risk as ``n`` grows). Holds
  for sequentially interactive protocols.
* **Distribution estimation, sparse regime, l2^2 / l1 / TV** (:func:`distribution_fano`;
  §3): a block prior (one letter per block of ``b`` carries mass ``beta / s``), Fano's
  inequality in its binary-KL form per block, super-additivity of mutual information over the
  independent blocks and a chi-square bound on the information one eps-LDP report carries
  (:math:`\beta^2 h(1 - \beta(1 - e^{-\varepsilon})) T(sb, \varepsilon)/s`). This is what
  captures the ``1/sqrt(n eps^2)`` regime where ``k`` exceeds ``sqrt(n eps^2)``. Holds for
  non-interactive protocols (public coins allowed).
* **Mean estimation** (:func:`mean_estimation`; §4): van Trees on the product Rademacher
  family with three bounds on the Fisher information of one private report (variance,
  mutual information, non-private).
* **Binary testing** (:func:`binary_test_sample_size`; §5): exact. Every eps-LDP channel on a
  binary input is randomized response followed by post-processing, so the Neyman-Pearson test
  on the randomized-response count is optimal among all sequentially interactive protocols;
  the lower bound and the achieved sample size coincide.

Conventions: natural logarithms; the loss ``"tv"`` is half the l1 distance.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from scipy.special import xlogy

from ldp._numerics import first_integer
from ldp._validation import check_epsilon, check_integer, check_probability, check_scalar, compact
from ldp.risk._common import MINIMAX, Bound, check_error_rates, check_n, maximize

__all__ = [
    "DISTRIBUTION_LOSSES",
    "MEAN_DOMAINS",
    "binary_test_sample_size",
    "distribution_fano",
    "distribution_lower_bound",
    "distribution_van_trees",
    "fisher_column_bound",
    "kl_chi2_factor",
    "mean_estimation",
]

#: Losses of :func:`distribution_lower_bound`.
DISTRIBUTION_LOSSES = ("l2sq", "l1", "tv")
#: Domains of :func:`mean_estimation`.
MEAN_DOMAINS = ("interval", "box", "ball")

_VT_NAME = "van Trees, Dirichlet prior on a sub-simplex (proof: 'Lower bounds' docs page, §2)"
_FANO_NAME = (
    "Fano over a block prior, chi-square information bound (proof: 'Lower bounds' docs page, §3)"
)
_INTERACTIVE = "sequentially interactive"
_NON_INTERACTIVE = "non-interactive (public coins allowed)"


# ---------------------------------------------------------------------------- constants
def _inverse_odds(epsilon: float) -> float:
    """``1 / (e^eps - 1)``: ``inf`` at ``eps = 0`` and ``0`` at ``eps = inf``."""
    if epsilon == 0.0:
        return math.inf
    if epsilon > 700.0:  # 1 / (e^eps - 1) < 1e-304: use 0, which only enlarges the bounds
        return 0.0
    return 1.0 / math.expm1(epsilon)


def fisher_column_bound(u: int, epsilon: float, c: float | np.ndarray) -> float | np.ndarray:
    r"""``max_{1<=j<u} t^2 s(1-s) / ((1 + t s)(1 + c t s))`` with ``s = j/u``, ``t = e^eps - 1``.

    The largest value of ``t^2 Var(s_col) / ((1 + t mean)(1 + c t mean))`` over the 0/1
    staircase columns of ``u`` letters. With ``c = 1`` it is the near-uniform constant
    ``T(u, eps)`` (chi-square information of one report at the uniform law, per unit of
    variance); with ``c = 1 - delta`` it bounds the Fisher information of any eps-LDP report
    on the simplex shrunk by ``delta`` around its centre: ``tr I <= u * value``.

    The maximiser over real ``s`` solves ``1 - 2s - B s^2 = 0`` with
    ``B = t (1 + c e^eps)``, so the integer maximum is at the floor or the ceiling of
    ``u s*`` (the function is unimodal); it is computed exactly, in ``O(1)``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk.bounds.minimax import fisher_column_bound
    >>> t = math.e - 1   # T(10, 1): the j = 3 column
    >>> by_hand = 0.3 * 0.7 * t**2 / (1 + 0.3 * t) ** 2
    >>> round(float(fisher_column_bound(10, 1.0, 1.0)), 6), round(by_hand, 6)
    (0.269964, 0.269964)
    """
    tau = _inverse_odds(epsilon)  # 1 / t
    cs = np.asarray(c, dtype=np.float64)
    if u < 2 or tau == math.inf:
        out = np.zeros_like(cs)
        return float(out) if out.ndim == 0 else out
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # B = t (1 + c e^eps) = (1 + c (1 + t)) / tau
        big = (1.0 + cs * (1.0 + 1.0 / tau)) / tau if tau > 0 else np.full_like(cs, np.inf)
        star = 1.0 / (np.sqrt(1.0 + big) + 1.0)  # (sqrt(1 + B) - 1) / B, stable
        best = np.zeros_like(cs)
        for j in (np.floor(u * star), np.ceil(u * star)):
            j = np.clip(j, 1.0, u - 1.0)
            s = j / u
            # t^2 s (1 - s) / ((1 + t s)(1 + c t s)) = s (1 - s) / ((tau + s)(tau + c s))
            value = s * (1.0 - s) / ((tau + s) * (tau + cs * s))
            value = np.where(np.isnan(value), np.inf, value)
            best = np.maximum(best, value)
    return float(best) if best.ndim == 0 else best


def kl_chi2_factor(epsilon: float) -> float:
    r"""``h(e^-eps)`` with ``h(r) = (r log r - r + 1)/(r - 1)^2``: ``KL <= h chi^2`` whenever
    the likelihood ratio lies in ``[e^-eps, e^eps]``.

    ``h`` decreases from 1 (``r -> 0``) through 1/2 (``r = 1``), so on that range the ratio
    ``KL/chi^2`` is at most its value at ``r = e^-eps``. Near ``r = 1`` its series in
    ``u = 1 - r``, cut after ``u^2/12`` with the tail bounded above, is used (no cancellation).

    Examples
    --------
    >>> from ldp.risk.bounds.minimax import kl_chi2_factor
    >>> round(kl_chi2_factor(1.0), 6), kl_chi2_factor(float("inf"))
    (0.661303, 1.0)
    """
    if math.isinf(epsilon):
        return 1.0
    return float(_kl_chi2_ratio_factor(-math.expm1(-epsilon)))


def _kl_chi2_ratio_factor(gap: float | np.ndarray) -> np.ndarray:
    """``h(1 - gap)``, rounded up: ``KL <= h chi^2`` when the likelihood ratio is ``>= 1 - gap``.

    ``gap`` in ``[0, 1]``; the argument is ``1 - r`` so that ratios near 1 lose no digits.
    """
    u = np.asarray(gap, dtype=np.float64)
    r = 1.0 - u
    with np.errstate(divide="ignore", invalid="ignore"):
        # r log r - r + 1 = r log r + u, with log r = log1p(-u)
        direct = (np.where(r > 0, r * np.log1p(-np.minimum(u, 1.0)), 0.0) + u) / (u * u)
        direct = direct * (1.0 + 1e-9)
    # h(1 - u) = sum_{m >= 2} u^(m-2) / (m (m-1)): the tail after u^2/12 is <= u^3 / (20 (1-u))
    series = 0.5 + u / 6.0 + u * u / 12.0 + u**3 / (20.0 * (1.0 - np.minimum(u, 0.5)))
    return np.minimum(1.0, np.where(u < 1e-3, series, direct))


def _dirichlet_fisher(u: int | np.ndarray, alpha: float | np.ndarray) -> np.ndarray:
    r"""Fisher information (trace, in the plane of the simplex) of ``Dirichlet(alpha 1_u)``:
    :math:`(u\alpha-1)(u\alpha-2)(u-1)/(\alpha-2)`, finite for ``alpha > 2``."""
    u = np.asarray(u, dtype=np.float64)
    a = np.asarray(alpha, dtype=np.float64)
    return (u * a - 1.0) * (u * a - 2.0) * (u - 1.0) / (a - 2.0)


def _best_alpha(u: int) -> tuple[float, float]:
    """``(alpha, J)``: the Dirichlet parameter with the least Fisher information on ``u``
    letters, over a fine grid of ``alpha > 2`` (any alpha gives a valid bound)."""
    alphas = 2.0 + np.geomspace(0.02, 40.0, 400)
    values = _dirichlet_fisher(u, alphas)
    i = int(np.argmin(values))
    return float(alphas[i]), float(values[i])


def _alphabet_grid(k: int) -> np.ndarray:
    """Sub-alphabet sizes tried: all up to 64, then about 80 geometric steps to ``k``."""
    small = np.arange(2, min(k, 64) + 1)
    if k <= 64:
        return small
    big = np.unique(np.round(np.geomspace(65, k, 80)).astype(np.int64))
    return np.unique(np.concatenate([small, big, [k]]))


def _check_common(k: object, n: object, epsilon: object) -> tuple[int, int, float]:
    size = check_integer(k, "k", low=2)
    if size > 1 << 40:
        raise ValueError(f"k must be <= 2^40, got {compact(size)}")
    return size, check_n(n), check_epsilon(epsilon)


# ----------------------------------------------------------------- distribution: van Trees
def distribution_van_trees(k: int, n: int, epsilon: float) -> Bound:
    r"""Van Trees lower bound on the minimax squared l2 risk of estimating a distribution.

    .. math::
        \sup_p \mathbb E\|\hat p - p\|_2^2 \ge \max_{u \le k,\ \delta,\ \alpha}
        \frac{(u-1)^2}{n\,u\,C_{1-\delta}(u,\varepsilon) + J_u(\alpha)/\delta^2}

    with ``C`` from ``fisher_column_bound`` and ``J_u(alpha)`` the Fisher information of
    the ``Dirichlet(alpha)`` prior on ``u`` letters, placed on the sub-simplex
    :math:`\{(1-\delta)/u + \delta w\}` (proof: ``docs/lower_bounds.md`` §2). Valid for every
    ``n`` and for sequentially interactive protocols with public coins. As ``n`` grows it
    tends to subset selection's worst-case risk, :math:`(k-1)^2/(n k T(k,\varepsilon))`.

    Parameters
    ----------
    k : int
        Alphabet size, ``k >= 2``.
    n : int
        Number of users.
    epsilon : float
        Pure LDP level (``inf``: the non-private bound).

    Returns
    -------
    Bound
        ``params``: ``support`` (``u``), ``delta``, ``alpha``, ``fisher_per_user``,
        ``prior_fisher``, ``protocols``.

    Examples
    --------
    >>> from ldp.risk.bounds.minimax import distribution_van_trees
    >>> b = distribution_van_trees(10, 100_000, 1.0)
    >>> 2.2e-4 < b.value < 3.0004e-4      # below subset selection's 3.0004e-4
    True
    """
    k, n, eps = _check_common(k, n, epsilon)
    deltas = np.linspace(0.005, 1.0, 200)
    best = (0.0, 2, 1.0, 3.0, 0.0, 0.0)
    for u in _alphabet_grid(k):
        u = int(u)
        alpha, prior = _best_alpha(u)
        # at eps = inf this is the non-private u (u - 1) / (1 - delta)
        fishers = np.asarray(u * fisher_column_bound(u, eps, 1.0 - deltas))
        with np.errstate(over="ignore", invalid="ignore"):
            values = (u - 1.0) ** 2 / (n * fishers + prior / deltas**2)
        values = np.asarray(np.where(np.isnan(values), 0.0, values))
        i = int(np.argmax(values))
        if values[i] > best[0]:
            best = (float(values[i]), u, float(deltas[i]), alpha, float(fishers[i]), prior)
    value, u, delta, alpha, fisher, prior = best
    return Bound(
        value,
        _VT_NAME if math.isfinite(eps) else "non-private " + _VT_NAME,
        MINIMAX,
        {
            "support": u,
            "delta": delta,
            "alpha": alpha,
            "fisher_per_user": fisher,
            "prior_fisher": prior / delta**2,
            "protocols": _INTERACTIVE,
            "loss": "l2sq",
        },
        rate="(k-1)^2 / (n k T(k, eps)) as n -> oo; about 0.18/sqrt(n (e^(eps/2)-1)^2) for large k",
    )


# --------------------------------------------------------------------- distribution: Fano
def _binary_kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return xlogy(p, p) - xlogy(p, q) + xlogy(1.0 - p, 1.0 - p) - xlogy(1.0 - p, 1.0 - q)


def _binary_kl_inverse(information: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The largest ``P`` in ``[q, 1]`` with ``d(P || q) <= information``, from above.

    Bisection keeps ``hi`` with ``d(hi || q) > information`` (or ``hi = 1``), so the returned
    value is never below the true one: a success probability it bounds is never understated.
    """
    info = np.asarray(information, dtype=np.float64)
    q = np.broadcast_to(np.asarray(q, dtype=np.float64), info.shape)
    reach_all = info >= -np.log(q)  # d(1 || q) = log(1/q)
    lo = q.copy()
    hi = np.ones_like(q)
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        inside = _binary_kl(mid, q) <= info
        lo = np.where(inside, mid, lo)
        hi = np.where(inside, hi, mid)
    return np.where(reach_all, 1.0, hi)


def _block_grid(k: int) -> np.ndarray:
    top = k // 2
    small = np.arange(1, min(top, 64) + 1)
    if top <= 64:
        return small
    big = np.unique(np.round(np.geomspace(65, top, 100)).astype(np.int64))
    return np.unique(np.concatenate([small, big]))


def distribution_fano(k: int, n: int, epsilon: float, *, loss: str = "l2sq") -> Bound:
    r"""Fano lower bound over a block prior, for distribution estimation under eps-LDP.

    Split ``s * b <= k`` letters into ``s`` blocks of ``b``; in each block one letter, chosen
    uniformly and independently, gets extra mass ``beta / s`` over the uniform law
    ``(1 - beta)/(s b)``. One eps-LDP report carries at most
    :math:`\beta^2 h(1 - \beta(1 - e^{-\varepsilon})) T(sb,\varepsilon)/s` nats about the
    choice (``kl_chi2_factor``, ``fisher_column_bound`` with ``c = 1``), so with ``n``
    reports the average probability ``P`` of naming a block's letter obeys
    :math:`d(P\,\|\,1/b) \le n\beta^2 h T / s^2`, and

    * l2^2: :math:`\ge \beta^2 (1 - P)/s`;
    * l1: :math:`\ge \beta (1 - P)/(1 - 1/b)`; TV: half of it.

    Proof: ``docs/lower_bounds.md`` §3. Valid for every ``n`` and non-interactive protocols
    (each user's channel fixed in advance; public coins allowed). At ``epsilon = 0`` with
    ``s = 1, b = k`` it is the zero-information risk ``1 - 1/k`` (l2^2).

    Parameters
    ----------
    k, n, epsilon
        As in :func:`distribution_van_trees`.
    loss : {"l2sq", "l1", "tv"}

    Returns
    -------
    Bound
        ``params``: ``blocks`` (``s``), ``block_size`` (``b``), ``beta``,
        ``information_per_block``, ``success_probability`` (``P``), ``protocols``.

    Examples
    --------
    >>> from ldp.risk.bounds.minimax import distribution_fano
    >>> b = distribution_fano(1024, 1000, 0.1)   # k far above sqrt(n eps^2)
    >>> 0.5 < b.value < 1 - 1 / 1024
    True
    """
    k, n, eps = _check_common(k, n, epsilon)
    if loss not in DISTRIBUTION_LOSSES:
        raise ValueError(f"loss must be one of {DISTRIBUTION_LOSSES}, got {loss!r}")
    blocks = _block_grid(k).astype(np.float64)
    sizes = np.floor(k / blocks)
    keep = sizes >= 2
    blocks, sizes = blocks[keep], sizes[keep]
    if blocks.size == 0:
        return Bound(0.0, _FANO_NAME, MINIMAX, {"protocols": _NON_INTERACTIVE, "loss": loss})
    chi2 = np.array([fisher_column_bound(int(s * b), eps, 1.0) for s, b in zip(blocks, sizes)])
    per_user = kl_chi2_factor(eps) * chi2 / blocks**2  # nats per block per user at beta = 1
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        critical = np.where(per_user > 0, 1.0 / np.sqrt(n * per_user), np.inf)
    scales = np.geomspace(0.02, 50.0, 48)
    betas = np.minimum(1.0, critical[:, None] * scales[None, :])
    betas = np.concatenate([betas, np.ones((blocks.size, 1))], axis=1)
    # the likelihood ratio of Q p_J to Q U is at least 1 - beta (1 - e^-eps), not only e^-eps,
    # so the KL/chi-square factor shrinks with beta (docs §3, Step 5)
    spread = 1.0 if math.isinf(eps) else -math.expm1(-eps)
    shrink = _kl_chi2_ratio_factor(betas * spread) / kl_chi2_factor(eps)
    with np.errstate(over="ignore", invalid="ignore"):
        info = np.where(per_user[:, None] > 0, n * betas**2 * per_user[:, None] * shrink, 0.0)
    q = 1.0 / sizes[:, None]
    success = _binary_kl_inverse(info, np.broadcast_to(q, info.shape))
    if loss == "l2sq":
        values = betas**2 * (1.0 - success) / blocks[:, None]
    else:
        values = betas * (1.0 - success) / (1.0 - q)
        if loss == "tv":
            values = values / 2.0
    i, j = np.unravel_index(int(np.argmax(values)), values.shape)
    return Bound(
        float(values[i, j]),
        _FANO_NAME if math.isfinite(eps) else "non-private " + _FANO_NAME,
        MINIMAX,
        {
            "blocks": int(blocks[i]),
            "block_size": int(sizes[i]),
            "beta": float(betas[i, j]),
            "information_per_block": float(info[i, j]),
            "success_probability": float(success[i, j]),
            "protocols": _NON_INTERACTIVE,
            "loss": loss,
        },
        rate="min{1, 1/sqrt(n eps^2)} up to a log factor when k >> sqrt(n eps^2)",
    )


def distribution_lower_bound(k: int, n: int, epsilon: float, *, loss: str = "l2sq") -> Bound:
    """The larger of :func:`distribution_van_trees` (l2^2 only) and :func:`distribution_fano`.

    The result names the bound that won; its ``protocols`` entry says which protocols it
    covers (the van Trees bound also holds for sequentially interactive ones).

    Parameters
    ----------
    k, n, epsilon
        As in :func:`distribution_van_trees`.
    loss : {"l2sq", "l1", "tv"}

    Returns
    -------
    Bound
        The larger bound, with its own ``params``.

    Examples
    --------
    >>> from ldp.risk.bounds.minimax import distribution_lower_bound
    >>> distribution_lower_bound(4, 100_000, 1.0).protocols
    'sequentially interactive'
    """
    fano = distribution_fano(k, n, epsilon, loss=loss)
    if loss != "l2sq":
        return fano
    trees = distribution_van_trees(k, n, epsilon)
    return trees if trees.value >= fano.value else fano


# ------------------------------------------------------------------------------- means
def _sinh_half_squared(eps: float) -> float:
    """``(e^eps - 1)^2 / (4 e^eps) = sinh(eps/2)^2`` (``inf`` when it overflows)."""
    if eps > 1400.0:
        return math.inf
    return math.sinh(eps / 2.0) ** 2


def mean_estimation(
    n: int, epsilon: float, *, d: int = 1, domain: str = "interval", r: float = 1.0
) -> Bound:
    r"""Van Trees lower bound on the minimax squared-error risk of mean estimation.

    Product Rademacher family :math:`X \in \{\pm1\}^d`, :math:`E X = \theta`, with the
    product prior :math:`\prod_j h^{-1}\cos^2(\pi\theta_j/2h)` on :math:`[-h,h]^d`
    (Fisher information :math:`d\pi^2/h^2`). The Fisher information of one eps-LDP report is
    at most

    * (i) :math:`\sinh^2(\varepsilon/2)/(1-h^2)` (variance bound for ratios in
      ``[a, e^eps a]``);
    * (ii) :math:`2\varepsilon\tanh(\varepsilon/2)/(1-h^2)^2` (mutual information and a
      sub-Gaussian score);
    * (iii) :math:`d/(1-h^2)` (no privacy);
    * (iv) for ``d = 1``: :math:`\tanh^2(\varepsilon/2)/(1-\tanh^2(\varepsilon/2)h^2)`, the
      information of randomized response, which every eps-LDP report of a binary input
      post-processes,

    none of which grows with ``d`` except (iii). Then

    * ``"interval"`` (``d = 1``, :math:`X\in[-r, r]`) and ``"box"`` (:math:`[-r,r]^d`, loss
      :math:`\|\cdot\|_2^2`): :math:`r^2 d^2/(n\min\{(i),(ii),(iii)\} + d\pi^2/h^2)`;
    * ``"ball"`` (l2 ball of radius ``r``; the family scaled by :math:`r/\sqrt d`): the box
      bound times :math:`1/d`.

    Maximised over ``h``. Proof: ``docs/lower_bounds.md`` §4. Valid for every ``n`` and
    sequentially interactive protocols.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon : float
        Pure LDP level (``inf``: non-private).
    d : int
        Dimension (``1`` for ``"interval"``).
    domain : {"interval", "box", "ball"}
    r : float
        Half-width of the interval/box, or radius of the ball.

    Returns
    -------
    Bound
        ``params``: ``h``, ``fisher_per_user``, ``fisher_route`` (``"variance"``,
        ``"information"``, ``"non-private"`` or ``"binary"``), ``protocols``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk.bounds.minimax import mean_estimation
    >>> c2 = ((math.e + 1) / (math.e - 1)) ** 2   # Duchi's worst-case i.i.d. risk C^2 / n
    >>> b = mean_estimation(100_000, 1.0)
    >>> 0.85 * c2 / 1e5 < b.value < c2 / 1e5
    True
    """
    n = check_n(n)
    eps = check_epsilon(epsilon)
    dim = check_integer(d, "d", low=1)
    if dim > 1 << 40:
        raise ValueError(f"d must be <= 2^40, got {compact(dim)}")
    if domain not in MEAN_DOMAINS:
        raise ValueError(f"domain must be one of {MEAN_DOMAINS}, got {domain!r}")
    if domain == "interval" and dim != 1:
        raise ValueError(f"domain='interval' has d = 1, got d = {dim}")
    radius = check_scalar(r, "r", low=0.0, low_open=True)
    variance_route = _sinh_half_squared(eps)
    information_route = 2.0 * eps * math.tanh(eps / 2.0) if math.isfinite(eps) else math.inf

    gain = math.tanh(eps / 2.0) ** 2 if dim == 1 else math.inf  # randomized response's

    def routes(h: np.ndarray) -> np.ndarray:
        shrink = 1.0 - h * h
        binary = gain / (1.0 - gain * h * h) if dim == 1 else np.full_like(h, np.inf)
        return np.stack(
            [variance_route / shrink, information_route / shrink**2, dim / shrink, binary]
        )

    def objective(h: np.ndarray) -> np.ndarray:
        fisher = routes(h).min(axis=0)
        return dim * dim / (n * fisher + dim * math.pi**2 / (h * h))

    grid = np.concatenate([np.linspace(1e-4, 0.9999, 2000), 1.0 - np.geomspace(1e-8, 1e-4, 50)])
    h, value = maximize(objective, grid)
    stack = routes(np.array([h]))[:, 0]
    route = ("variance", "information", "non-private", "binary")[int(np.argmin(stack))]
    scale = radius**2 / dim if domain == "ball" else radius**2
    return Bound(
        max(0.0, value * scale),
        "van Trees, product Rademacher family (proof: 'Lower bounds' docs page, §4)",
        MINIMAX,
        {
            "h": h,
            "fisher_per_user": float(stack.min()),
            "fisher_route": route,
            "d": dim,
            "domain": domain,
            "protocols": _INTERACTIVE,
        },
        rate=(
            "r^2 d / (n min{(e^eps-1)^2/(4e^eps), 2 eps tanh(eps/2), d})"
            if domain == "ball"
            else "r^2 d^2 / (n min{(e^eps-1)^2/(4e^eps), 2 eps tanh(eps/2), d})"
        ),
    )


# ------------------------------------------------------------------------ binary testing
def _rr_output(p: float, epsilon: float) -> float:
    """``P(RR_eps(X) = 1)`` for ``X ~ Bern(p)``."""
    if math.isinf(epsilon):
        return p
    keep = 1.0 / (1.0 + math.exp(-epsilon))
    return keep * p + (1.0 - keep) * (1.0 - p)


def _upper_tail(c: int, n: int, r: float) -> float:
    """``P(Bin(n, r) >= c)``."""
    if c <= 0:
        return 1.0
    if c > n:
        return 0.0
    return float(stats.binom.sf(c - 1, n, r))


def _type_two(n: int, r0: float, r1: float, alpha: float) -> float:
    """Smallest type-II error of a (randomized) test of Bin(n, r0) against Bin(n, r1) with
    type-I error at most ``alpha`` (Neyman-Pearson on the count; ``r1 > r0``).

    Reject when the count is ``>= c``, with ``c`` the smallest threshold whose type-I error is
    at most ``alpha``, and with probability ``gamma`` at ``c - 1`` to spend the rest."""
    guess = int(stats.binom.isf(alpha, n, r0)) if 0.0 < r0 < 1.0 else 0
    c = max(0, guess - 2)
    while _upper_tail(c, n, r0) > alpha:
        c += 1
    while c > 0 and _upper_tail(c - 1, n, r0) <= alpha:
        c -= 1
    if c == 0:
        return 0.0
    spare = alpha - _upper_tail(c, n, r0)
    at = float(stats.binom.pmf(c - 1, n, r0))
    gamma = min(1.0, spare / at) if at > 0 else 0.0
    power = _upper_tail(c, n, r1) + gamma * float(stats.binom.pmf(c - 1, n, r1))
    return max(0.0, 1.0 - power)


def binary_test_sample_size(
    p0: float, p1: float, epsilon: float, *, alpha: float, beta: float
) -> Bound:
    r"""Exact minimax sample size to test :math:`\mathrm{Bern}(p_0)` against
    :math:`\mathrm{Bern}(p_1)` under eps-LDP with type-I error ``<= alpha`` and type-II error
    ``<= beta``.

    Any eps-LDP channel ``K`` on a binary input equals randomized response followed by the
    channel ``G_0 = (r K_0 - (1-r) K_1)/(2r - 1)``, ``G_1 = (r K_1 - (1-r) K_0)/(2r - 1)``
    (``r = e^eps/(1+e^eps)``; both are probability laws because ``K_0 >= e^-eps K_1`` and
    ``K_1 >= e^-eps K_0``). So the transcript of any sequentially interactive protocol is a
    randomized function of ``n`` randomized-response reports, whose count is sufficient; the
    Neyman-Pearson test on the count is optimal, and randomized response achieves it.
    ``value`` is the smallest ``n`` for which that test meets ``(alpha, beta)``: it is both
    the lower bound and the sample size of randomized response (``docs/lower_bounds.md``
    §5). ``inf`` when no ``n`` can (``p0 == p1`` or ``epsilon == 0``), ``0`` when
    ``alpha + beta >= 1``.

    Parameters
    ----------
    p0, p1 : float
        The two success probabilities.
    epsilon : float
        Pure LDP level (``inf``: non-private).
    alpha, beta : float
        Type-I and type-II error targets, in ``(0, 1)``.

    Returns
    -------
    Bound
        ``quantity`` ``"sample size (exact minimax)"``; ``params``: ``n`` (int or inf),
        ``type_two`` (achieved at ``n``), ``rr_probabilities``.

    Examples
    --------
    >>> from ldp.risk.bounds.minimax import binary_test_sample_size
    >>> b = binary_test_sample_size(0.5, 0.6, 1.0, alpha=0.05, beta=0.2)
    >>> b.n, b.type_two <= 0.2
    (723, True)
    """
    a = check_probability(p0, "p0")
    b = check_probability(p1, "p1")
    eps = check_epsilon(epsilon)
    size_one, size_two = check_error_rates(alpha, beta)
    r0, r1 = _rr_output(a, eps), _rr_output(b, eps)
    if r1 < r0:  # test the complements: the same problem with the labels of the outcome swapped
        r0, r1 = 1.0 - r0, 1.0 - r1
    name = "randomized response + Neyman-Pearson (exact; proof: 'Lower bounds' docs page, §5)"
    params = {"rr_probabilities": (r0, r1), "alpha": size_one, "beta": size_two}
    if size_one + size_two >= 1.0:
        return Bound(
            0.0, name, "sample size (exact minimax)", {**params, "n": 0, "type_two": 1 - size_one}
        )
    if r1 == r0:
        return Bound(
            math.inf,
            name,
            "sample size (exact minimax)",
            {**params, "n": math.inf, "type_two": 1 - size_one},
        )
    hi = first_integer(lambda n: _type_two(n, r0, r1, size_one) <= size_two, 1, 1 << 40)
    if hi is None:
        raise ValueError(
            f"more than 2^40 users are needed to separate p0={a} and p1={b} at "
            f"epsilon={eps}; no sample size is reported"
        )
    return Bound(
        float(hi),
        name,
        "sample size (exact minimax)",
        {**params, "n": hi, "type_two": _type_two(hi, r0, r1, size_one)},
        rate="(z_alpha + z_beta)^2 r(1-r) / (r1 - r0)^2 for small gaps",
    )
