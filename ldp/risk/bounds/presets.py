r"""Closed-form minimax lower bounds for standard problems, each a specialisation of a generic
calculator of :mod:`ldp.risk` (and tested against it).

* :func:`bernoulli_mean`: Le Cam with the pair :math:`\mathrm{Bern}(1/2 \mp s)`, squared loss,
  optimised over ``s`` (the routes of :func:`~ldp.risk.le_cam`). In the
  Duchi-Jordan-Wainwright route the optimum is closed-form: with
  :math:`c = \sqrt n(e^\varepsilon-1)`, :math:`s^* = \min\{1/2, 1/(3c)\}` and the bound is
  :math:`w^2 s^{*2}(1 - 2cs^*)`, i.e. :math:`w^2/(27n(e^\varepsilon-1)^2)` for large ``n``
  (``w`` the width of the support). This is twice the
  :math:`2/(27n(e^\varepsilon-1)^2)` that the :math:`\Phi(\delta)/2` reduction of
  Duchi-Jordan-Wainwright (2018) gives for :math:`X \in \{\pm1\}` (``w = 2``), because the
  two-point average keeps the factor that reduction loses (see :mod:`ldp.risk.bounds.lecam`).
* :func:`moment_mean`: Example 2 / Corollary 1 of Asoodeh-Aliakbarpour-Calmon (2021)
  **repaired**: :math:`\omega^{2(k-1)/k}[1 - \sqrt{2(1-(1-\omega\varphi)^n)}]_+` with
  :math:`\omega = \min\{1, (1 - (7/8)^{1/n})/\varphi\}`, so at least
  :math:`\tfrac12\omega^{2(k-1)/k} \gtrsim \min\{1, (n\varphi)^{-2(k-1)/k}\}`. This is
  :func:`~ldp.risk.le_cam` on the construction's pair (the Hellinger route, eqs. (38)-(39)),
  whose squared separation is :math:`4\omega^{2(k-1)/k}`. The paper's proof prints that
  separation as :math:`2\omega^{2(k-1)/k}`, drops the factor :math:`\tfrac12` of Le Cam's
  bound in (37), and picks :math:`\omega` with :math:`(7/8)^{1/\sqrt n}`, for which the
  bracket is negative for every ``n >= 27``; so the printed rate (8) is not supported by
  its proof (and fails as epsilon grows). It is available only through
  :func:`moment_mean_paper_rate`, which warns. The repair is checked in
  ``tests/risk/test_risk.py``.
* :func:`ball_mean`: Example 3 / Corollary 2 of Asoodeh-Aliakbarpour-Calmon (2021), with the
  proof's chain of inequalities corrected (see :func:`ball_mean`):
  :math:`\max_{16\le k\le d} \frac{r^2\omega^2}{4k}[1 - 16(1+n\omega\varphi_n)\log 2/k]_+`,
  :math:`\omega = \min\{1, k/(50n\varphi_n)\}` (the private Fano of Lemma 4 with
  :math:`\tau = r^2\omega^2/(4k)` for squared loss), together with the one-dimensional Le Cam
  bound of :func:`bernoulli_mean` on :math:`\{\pm r e_1\}` (valid for every ``d``); the larger
  is reported.
* :func:`distribution_estimation`: private Assouad over the Paninski family
  (:func:`paninski_family`: Paninski (2008), as used by Duchi-Jordan-Wainwright (2018),
  Acharya-Canonne-Tyagi (2020) and Ye-Barg (2018)) on ``u <= k`` letters. Squared l2 loss
  has Hamming separation :math:`2\gamma^2/u^2`, l1 loss :math:`2\gamma/u`. In the DJW route
  :math:`\sum_j\mathrm{TV}_j \le \gamma(e^\varepsilon-1)\sqrt{2n}` and the optimum is
  closed-form: for l2^2, :math:`k/(108n(e^\varepsilon-1)^2)` once :math:`k \le 3c`,
  :math:`c = (e^\varepsilon-1)\sqrt{2n}` (and :math:`1/(16c)` with ``u = 4c`` letters when
  ``k`` is larger); for l1, :math:`k/(16c)` once :math:`k \le 4c`. These match the orders
  :math:`\min\{1, 1/\sqrt{n\varepsilon^2}, k/(n\varepsilon^2)\}` and
  :math:`\min\{1, k/\sqrt{n\varepsilon^2}\}` of DJW, with explicit constants.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ldp._validation import check_integer, check_scalar, compact
from ldp.references import cite
from ldp.risk._common import (
    MINIMAX,
    Bound,
    Privacy,
    check_n,
    check_support,
    maximize,
    resolve_privacy,
)
from ldp.risk.bounds.assouad import ROUTE_NAMES as ASSOUAD_NAMES
from ldp.risk.bounds.assouad import hypercube_index
from ldp.risk.bounds.lecam import ROUTE_NAMES as LECAM_NAMES
from ldp.risk.bounds.minimax import (
    DISTRIBUTION_LOSSES,
    distribution_fano,
    distribution_lower_bound,
    distribution_van_trees,
)

__all__ = [
    "ball_mean",
    "bernoulli_mean",
    "distribution_estimation",
    "moment_mean",
    "moment_mean_paper_rate",
    "paninski_family",
]

_ROUTES = ("best", "kl", "hellinger", "djw", "kl-tanh", "hellinger-tanh")


# ------------------------------------------------------------------------ Bernoulli mean
#: The order of each route's bound, with the factor its value uses. With ``u = n f s^2``
#: (``f`` the route's contraction factor) the KL route's TV bound is ``2 sqrt(u)`` and the
#: Hellinger route's ``sqrt(2 (1 - e^{-2u}))``; maximising ``u (1 - TV)`` gives the
#: constants ``1/27`` and ``1/23.7``.
_BERNOULLI_RATES = {
    "djw": "(high - low)^2 / (27 n (e^eps - 1)^2) once sqrt(n) (e^eps - 1) >= 2/3",
    "kl": "(high - low)^2 / (27 n phi(eps, delta)), asymptotically",
    "hellinger": "(high - low)^2 / (23.7 n phi(eps, delta)), asymptotically",
    "kl-tanh": "(high - low)^2 / (27 n tanh^2(eps/2)), asymptotically",
    "hellinger-tanh": "(high - low)^2 / (23.7 n tanh^2(eps/2)), asymptotically",
}


def _bernoulli_tv_routes(s: np.ndarray, n: int, priv: Privacy) -> dict[str, np.ndarray]:
    """TV(M0^n, M1^n) bounds for the pair Bern(1/2 -+ s), as in ``le_cam``."""

    def routes_with(factor: float) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            kl = 2.0 * s * (np.log1p(2.0 * s) - np.log1p(-2.0 * s))
            kl_tv = np.sqrt(np.minimum(n * factor * kl if factor > 0 else 0.0 * s, 4.0) / 2.0)
            h2 = 2.0 - 2.0 * np.sqrt(np.maximum(0.0, 1.0 - 4.0 * s * s))
            affinity = np.maximum(0.0, 1.0 - factor * h2 / 2.0)
            h_tv = np.sqrt(np.maximum(0.0, -2.0 * np.expm1(n * np.log(affinity))))
            h_tv = np.where(affinity > 0, h_tv, 1.0)
        return np.minimum(kl_tv, 1.0), np.minimum(h_tv, 1.0)

    kl_route, h_route = routes_with(priv.factor())
    routes = {"kl": kl_route, "hellinger": h_route}
    if priv.djw:
        routes["djw"] = np.minimum(math.sqrt(n) * math.expm1(priv.epsilon) * 2.0 * s, 1.0)
        routes["kl-tanh"], routes["hellinger-tanh"] = routes_with(priv.tanh_factor)
    return routes


def bernoulli_mean(
    n: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    support: tuple[float, float] = (0.0, 1.0),
    method: str = "best",
) -> Bound:
    r"""Minimax lower bound for the mean of a two-valued variable under squared loss.

    Le Cam's two-point bound (:func:`~ldp.risk.le_cam`, same ``method`` routes) over the pairs
    :math:`\Pr(X=\mathrm{high}) = 1/2 \mp s`, maximised over ``s``.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon, delta : float
        The LDP budget (``epsilon=inf``: non-private).
    support : (float, float)
        The two values of ``X``: ``(0, 1)`` for a Bernoulli, ``(-1, 1)`` for a sign.
    method : {"best", "kl", "hellinger", "djw"}
        The total-variation route (``"djw"`` needs ``delta = 0``).

    Returns
    -------
    Bound
        ``params``: ``s`` (optimal half-gap), ``separation``, ``route``, ``factor`` (the
        contraction factor of that route: ``phi(eps, delta)``, ``tanh^2(eps/2)`` or
        ``(e^eps - 1)^2``); ``rate``, the order of the bound with that same factor.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import bernoulli_mean, rr_mean_risk
    >>> lb = bernoulli_mean(1000, 1.0, support=(-1, 1), method="djw")
    >>> math.isclose(lb.value, 4 / (27 * 1000 * (math.e - 1) ** 2))
    True
    >>> lb.value < rr_mean_risk(1000, 1.0, support=(-1, 1)).value
    True
    """
    n = check_n(n)
    priv = resolve_privacy(epsilon, delta, None)
    _, _, width = check_support(support)
    if method not in _ROUTES:
        raise ValueError(f"method must be one of {_ROUTES}, got {method!r}")
    if method == "djw" and not priv.djw:
        raise ValueError("method='djw' needs pure LDP: a finite epsilon and delta = 0")

    def tv_of(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        routes = _bernoulli_tv_routes(s, n, priv)
        names = list(routes) if method == "best" else [method]
        stack = np.stack([routes[r] for r in names])
        pick = np.argmin(stack, axis=0)
        return np.take_along_axis(stack, pick[None], axis=0)[0], np.array(names)[pick]

    def objective(s: np.ndarray) -> np.ndarray:
        return width**2 * s * s * np.maximum(0.0, 1.0 - tv_of(s)[0])

    grid = np.concatenate([np.geomspace(1e-9, 0.5, 1500), np.linspace(0.0, 0.5, 1001)[1:]])
    if priv.djw:  # the DJW optimum in closed form
        # a grid candidate only: capping e^eps at e^700 (no overflow) keeps it below 1e-300
        c = math.sqrt(n) * math.expm1(min(priv.epsilon, 700.0))
        grid = np.append(grid, min(0.5, 1.0 / (3.0 * c)) if c > 0 else 0.5)
    s, value = maximize(objective, grid)
    tv_s, routes = tv_of(np.array([s]))
    route = str(routes[0])
    if priv.private:
        name = LECAM_NAMES[route]
    elif route == "kl":
        name = f"non-private Le Cam ({cite('asoodeh2021', 'eq. (7)')})"
    else:
        name = "non-private Le Cam via Hellinger tensorization"
    rate = _BERNOULLI_RATES[route]
    factor = (
        priv.djw_factor
        if route == "djw"
        else priv.tanh_factor
        if route.endswith("-tanh")
        else priv.factor()
    )
    return Bound(
        max(0.0, value),
        name + ", Bernoulli mean",
        MINIMAX,
        {
            "s": s,
            "separation": width**2 * 4 * s * s,
            "tv_bound": float(tv_s[0]),
            "route": route,
            "factor": factor,
        },
        rate=rate,
    )


# ------------------------------------------------------------- 1-D mean, k-th moment (Cor. 1)
def _moment_order(k: object) -> float:
    return check_scalar(k, "k", low=1.0, low_open=True)


def moment_mean(
    n: int, epsilon: float, delta: float = 0.0, *, k: float, omega: float | None = None
) -> Bound:
    r"""Corollary 1 of Asoodeh-Aliakbarpour-Calmon (2021), repaired: 1-D mean under
    :math:`E|X|^k \le 1`, squared loss.

    :math:`\omega^{2(k-1)/k}[1 - \sqrt{2(1-(1-\omega\varphi)^n)}]_+` with, by default,
    :math:`\omega = \min\{1, (1-(7/8)^{1/n})/\varphi\}`. The paper's proof picks
    :math:`\omega` with :math:`(7/8)^{1/\sqrt n}`, which makes the bracket negative for every
    ``n >= 27``; with :math:`(7/8)^{1/n}` the bracket stays positive (checked in
    ``tests/risk/test_risk.py``).

    This is :func:`le_cam` (Hellinger route) on the construction's two-point pair, whose
    squared separation is :math:`4\omega^{2(k-1)/k}` (the proof prints
    :math:`2\omega^{2(k-1)/k}`): the two-point average of squared errors is at least
    ``separation / 4 * (1 - TV)``. The constant :math:`\tfrac14` that the reduction through
    a metric (:math:`\tau = s^2`) gives, 5.2776e-4 at ``n = 100, eps = 1, k = 2``, is loose
    by exactly 2; this function reports the tighter valid bound, twice that value.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon, delta : float
        The LDP budget.
    k : float
        Moment order, ``k > 1``.
    omega : float, optional
        The mass of the construction's outer atoms, in ``(0, 1]``.

    Returns
    -------
    Bound
        ``params``: ``omega``, ``bracket``, ``separation`` (:math:`4\omega^{2(k-1)/k}`);
        ``rate``.

    Examples
    --------
    >>> from ldp.risk import moment_mean
    >>> f"{moment_mean(100, 1.0, k=2).value:.4e}"   # twice the metric reduction's 5.2776e-4
    '1.0555e-03'
    """
    n = check_n(n)
    priv = resolve_privacy(epsilon, delta, None)
    order = _moment_order(k)
    factor = priv.factor()
    if omega is None:
        w = 1.0 if factor == 0 else min(1.0, -math.expm1(math.log(7.0 / 8.0) / n) / factor)
    else:
        w = check_scalar(omega, "omega", low=0.0, high=1.0, low_open=True)
    spread = -math.expm1(n * math.log1p(-w * factor)) if w * factor < 1 else 1.0
    bracket = max(0.0, 1.0 - math.sqrt(2.0 * spread))
    power = 2.0 * (order - 1.0) / order
    return Bound(
        w**power * bracket,
        "private Le Cam via Hellinger, "
        f"{cite('asoodeh2021', 'Corollary 1')} with the proof's choice of omega repaired",
        MINIMAX,
        {"omega": w, "bracket": bracket, "separation": 4.0 * w**power, "k": order},
        rate="min{1, (n phi(eps, delta))^(-2(k-1)/k)}",
    )


def moment_mean_paper_rate(n: int, epsilon: float, delta: float = 0.0, *, k: float) -> Bound:
    r"""The rate :math:`\min\{1, (n\varphi^2)^{-(k-1)/k}\}` printed in Corollary 1 of
    Asoodeh-Aliakbarpour-Calmon (2021).

    **Not a certified bound**: its proof picks an :math:`\omega` for which the Le Cam bracket
    is negative for every ``n >= 27``, and the rate cannot hold uniformly in epsilon (it fails
    as epsilon grows). Emits a ``UserWarning``; use :func:`moment_mean`.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon, delta : float
        The LDP budget.
    k : float
        Moment order, ``k > 1``.

    Returns
    -------
    Bound
        The printed rate's value, with ``quantity`` saying that it is not a certified
        bound.

    Examples
    --------
    >>> import warnings
    >>> from ldp.risk import moment_mean_paper_rate
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     round(moment_mean_paper_rate(100, 1.0, k=2).value, 6)
    0.158198
    """
    warnings.warn(
        f"the rate printed in {cite('asoodeh2021', 'Corollary 1')} is not supported by its "
        "proof (its choice of omega makes the Le Cam bracket negative for n >= 27); it is "
        "not a certified lower bound. Use ldp.risk.moment_mean.",
        UserWarning,
        stacklevel=2,
    )
    n = check_n(n)
    priv = resolve_privacy(epsilon, delta, None)
    order = _moment_order(k)
    factor = priv.factor()
    base = n * factor * factor
    value = 1.0 if base == 0 else min(1.0, base ** (-(order - 1.0) / order))
    return Bound(
        value,
        f"{cite('asoodeh2021', 'Corollary 1')} rate as printed (not supported by its proof)",
        "rate expression (not a certified bound)",
        {"k": order, "factor": factor},
        rate="min{1, (n phi^2)^(-(k-1)/k)}",
    )


# ---------------------------------------------------------------- mean in an l2 ball (Cor. 2)
def ball_mean(
    n: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    d: int,
    r: float = 1.0,
    method: str = "best",
) -> Bound:
    r"""Corollary 2 of Asoodeh-Aliakbarpour-Calmon (2021): d-dimensional mean in the l2
    ball of radius ``r``, squared loss.

    ``method="fano"``: the private Fano construction of Corollary 2 (needs ``d >= 16``, else
    ``0``). Its proof prints the chain (43) with the second inequality reversed; the valid
    chain is :math:`I(Z^n;V) \le \varphi_n I(X^n;V) \le \varphi_n n I(X;V)`, and the final
    (44) stands. The hypotheses :math:`P_v(r e_j)` carry a factor :math:`1/k`, so for squared
    loss :math:`\tau = r^2\omega^2/(4k)`, and the construction needs :math:`16 \le k \le d`
    (these constants are checked in ``tests/risk/test_risk.py``). ``method="lecam"``: the 1-D Le
    Cam bound of :func:`bernoulli_mean` on :math:`\{\pm r e_1\}`, valid in every dimension.
    ``method="best"``: the larger.

    Corollary 2's rate :math:`r^2\min\{1/(n\varphi_n), d/(n^2\varphi_n^2)\}` never exceeds
    :math:`r^2/(n\varphi)`, the order of the 1-D bound, and its explicit constants are
    small (bracket ``>= 0.085``, ``tau = r^2 omega^2 / (4k)``), so in practice the 1-D Le Cam
    bound is the larger one; the Fano form is kept to reproduce the paper.

    Parameters
    ----------
    n : int
        Number of users (non-interactive).
    epsilon, delta : float
        The LDP budget.
    d : int
        Dimension, ``d >= 1``.
    r : float
        Radius, ``> 0``.
    method : {"best", "fano", "lecam"}
        Which construction to report.

    Returns
    -------
    Bound
        For the Fano part, ``params`` hold ``k`` (packing dimension), ``omega``, ``bracket``
        and ``n_hypotheses`` (the packing size bound :math:`e^{k/16}`); ``rate``.

    Examples
    --------
    With ``d = 16`` and ``omega < 1`` the bracket is the constant
    ``1 - ln 2 - 16 ln 2 / 50``:

    >>> from ldp.risk import ball_mean
    >>> fano_part = ball_mean(1000, 0.5, 1e-3, d=16, method="fano")
    >>> fano_part.k, round(fano_part.bracket, 6)
    (16, 0.085046)
    >>> ball_mean(1000, 0.5, 1e-3, d=16).value >= fano_part.value
    True
    """
    n = check_n(n)
    priv = resolve_privacy(epsilon, delta, None)
    dim = check_integer(d, "d", low=1)
    if dim > 1 << 24:  # the Assouad bound scans every support size up to d
        raise ValueError(f"d must be <= 2^24, got {compact(dim)}")
    radius = check_scalar(r, "r", low=0.0, low_open=True)
    if method not in ("best", "fano", "lecam"):
        raise ValueError(f"method must be 'best', 'fano' or 'lecam', got {method!r}")
    rate = "r^2 min{1/(n phi_n), d/(n^2 phi_n^2)}"
    if method == "fano":
        best = Bound(
            0.0,
            f"private Fano ({cite('asoodeh2021', 'Lemma 4')}): needs d >= 16",
            MINIMAX,
            {},
            rate=rate,
        )
    else:
        lecam = bernoulli_mean(n, priv.epsilon, priv.delta, support=(-radius, radius))
        best = Bound(
            lecam.value,
            lecam.method.replace("Bernoulli mean", "1-D projection of the ball"),
            MINIMAX,
            dict(lecam.params),
            rate="r^2 / (n phi(eps, delta))",
        )
    if dim < 16 or method == "lecam":
        return best
    factor_n = priv.factor(n)
    ks = np.arange(16, dim + 1, dtype=np.float64)
    with np.errstate(over="ignore"):  # a subnormal factor: ks / (50 n factor) is inf, omega 1
        omega = np.ones_like(ks) if factor_n == 0 else np.minimum(1.0, ks / (50.0 * n * factor_n))
    bracket = np.maximum(0.0, 1.0 - 16.0 * (1.0 + n * omega * factor_n) * math.log(2.0) / ks)
    values = radius**2 * omega**2 / (4.0 * ks) * bracket
    i = int(np.argmax(values))
    if values[i] > best.value or method == "fano":
        kk = float(ks[i])
        best = Bound(
            float(values[i]),
            f"private Fano ({cite('asoodeh2021', 'Lemma 4')}), Corollary 2 with the "
            "constants of its corrected proof",
            MINIMAX,
            {
                "k": int(kk),
                "omega": float(omega[i]),
                "bracket": float(bracket[i]),
                "tau": radius**2 * float(omega[i]) ** 2 / (4.0 * kk),
                "n_hypotheses": math.exp(kk / 16.0),
                "information": n * float(omega[i]) * factor_n * math.log(2.0),
                "factor": factor_n,
            },
            rate=rate,
        )
    return best


# ------------------------------------------------------- k-ary distribution estimation
def paninski_family(support: int, gamma: float, *, k: int | None = None) -> np.ndarray:
    r"""The Paninski hypercube family for distribution estimation (Assouad).

    For :math:`v \in \{-1,+1\}^{u/2}` (rows in the order of
    :func:`~ldp.risk.hypercube_index`), letters ``2j`` and ``2j + 1`` get probabilities
    :math:`(1 \pm \gamma v_j)/u`; letters ``u, ..., k - 1`` get zero.

    Parameters
    ----------
    support : int
        ``u``, the even number of letters used (``2 <= u <= 40``).
    gamma : float
        Perturbation in ``[0, 1]``.
    k : int, optional
        Alphabet size (``>= u``; default ``u``).

    Returns
    -------
    ndarray, shape (2**(u/2), k)
        One pmf per vertex of the hypercube.

    Examples
    --------
    >>> from ldp.risk import paninski_family
    >>> paninski_family(2, 0.5)
    array([[0.25, 0.75],
           [0.75, 0.25]])
    """
    u = check_integer(support, "support", low=2)
    if u % 2 or u > 40:
        raise ValueError(f"support must be even and at most 40, got {u}")
    g = check_scalar(gamma, "gamma", low=0.0, high=1.0)
    size = u if k is None else check_integer(k, "k", low=u)
    signs = hypercube_index(u // 2)
    fam = np.zeros((signs.shape[0], size))
    fam[:, 0:u:2] = (1.0 + g * signs) / u
    fam[:, 1:u:2] = (1.0 - g * signs) / u
    return fam


def _even_supports(k: int, limit: int = 4000) -> np.ndarray:
    top = k - (k % 2)
    if top // 2 <= limit:
        return np.arange(2, top + 1, 2, dtype=np.float64)
    grid = np.unique(2 * np.round(np.geomspace(1, float(top // 2), limit)))
    return grid.astype(np.float64)


def distribution_estimation(
    k: int, n: int, epsilon: float, delta: float = 0.0, *, loss: str = "l2sq", method: str = "best"
) -> Bound:
    r"""Minimax lower bound for estimating a distribution on ``k`` letters under LDP.

    For pure LDP (``delta = 0``) the default is the larger of the two bounds of
    ``ldp.risk.bounds.minimax``, which are within a small factor of what subset selection achieves
    (``docs/lower_bounds.md``): the van Trees bound
    (:func:`~ldp.risk.distribution_van_trees`, squared l2, sequentially interactive
    protocols) and the Fano bound over a block prior
    (:func:`~ldp.risk.distribution_fano`, every loss, non-interactive protocols), and
    of the private Assouad bound below. With ``delta > 0`` the larger of those bounds at
    ``epsilon = inf`` (a non-private bound holds under any privacy) and private Assouad:
    :func:`~ldp.risk.assouad` over :func:`paninski_family` on ``u`` of the ``k`` letters,
    maximised over ``u`` and the perturbation ``gamma``.

    Parameters
    ----------
    k : int
        Alphabet size, ``k >= 2``.
    n : int
        Number of users.
    epsilon, delta : float
        The LDP budget (``epsilon=inf``: non-private).
    loss : {"l2sq", "l1", "tv"}
        Squared l2, l1, or total variation (half the l1 distance).
    method : {"best", "van-trees", "fano", "assouad", "djw", "phi", "tanh"}
        ``"van-trees"`` and ``"fano"``: the bounds of ``ldp.risk.bounds.minimax`` (pure LDP;
        van Trees for ``l2sq`` only). ``"assouad"``: the best of the Assouad routes;
        ``"phi"`` Lemma 1 of Asoodeh-Aliakbarpour-Calmon (2021); ``"tanh"`` the pure-LDP
        contraction ``tanh^2(eps/2)`` (Ghazi-Issa (2023), Theorem 5); ``"djw"``
        Duchi-Jordan-Wainwright (2018) (the last two need ``delta = 0``).

    Returns
    -------
    Bound
        ``params``: ``route`` (``"van-trees"``, ``"fano"``, ``"djw"``, ``"phi"`` or
        ``"tanh"``) and the route's parameters (for Assouad: ``support`` (``u``), ``gamma``,
        ``separation`` (Hamming)); ``rate``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import distribution_estimation, krr_distribution_risk
    >>> lb = distribution_estimation(10, 10_000, 1.0, method="djw")
    >>> math.isclose(lb.value, 10 / (108 * 10_000 * (math.e - 1) ** 2))
    True
    >>> best = distribution_estimation(10, 10_000, 1.0)
    >>> best.route, best.value > 10 * lb.value
    ('van-trees', True)
    >>> best.value < krr_distribution_risk(10, 10_000, 1.0).value
    True
    """
    k = check_integer(k, "k", low=2)
    n = check_n(n)
    priv = resolve_privacy(epsilon, delta, None)
    if loss not in DISTRIBUTION_LOSSES:
        raise ValueError(f"loss must be one of {DISTRIBUTION_LOSSES}, got {loss!r}")
    if method not in _DISTRIBUTION_METHODS:
        raise ValueError(f"method must be one of {_DISTRIBUTION_METHODS}, got {method!r}")
    if method in ("van-trees", "fano") and priv.delta > 0:
        raise ValueError(f"method={method!r} needs pure LDP (delta = 0), got delta={delta!r}")
    if method == "van-trees" and loss != "l2sq":
        raise ValueError(f"method='van-trees' bounds the l2sq loss only, got loss={loss!r}")
    if k > 1 << 40:
        raise ValueError(f"k must be <= 2^40, got {compact(k)}")
    tight = None
    if method in ("best", "van-trees", "fano") and priv.delta == 0.0:
        if method == "van-trees":
            tight = distribution_van_trees(k, n, priv.epsilon)
        elif method == "fano":
            tight = distribution_fano(k, n, priv.epsilon, loss=loss)
        else:
            tight = distribution_lower_bound(k, n, priv.epsilon, loss=loss)
        route = "van-trees" if "van Trees" in tight.method else "fano"
        params = {"route": route, **tight.params}
        tight = Bound(tight.value, tight.method, tight.quantity, params, rate=tight.rate)
        if method != "best":
            return tight
    elif method == "best":  # delta > 0: the non-private bound still holds (privacy only hurts)
        public = distribution_lower_bound(k, n, math.inf, loss=loss)
        route = "van-trees" if "van Trees" in public.method else "fano"
        params = {"route": route, **public.params}
        tight = Bound(public.value, public.method, public.quantity, params, rate=public.rate)
    if loss == "tv":  # Assouad bounds l1; TV is half of it
        half = _distribution_assouad(k, n, priv, "l1", method)
        params = {**half.params, "loss": "tv", "separation": float(half.params["separation"]) / 2}  # type: ignore[arg-type]
        assouad = Bound(half.value / 2, half.method, half.quantity, params, rate=half.rate)
    else:
        assouad = _distribution_assouad(k, n, priv, loss, method)
    if tight is not None and tight.value >= assouad.value:
        return tight
    return assouad


_DISTRIBUTION_METHODS = ("best", "van-trees", "fano", "assouad", "djw", "phi", "tanh")


def _distribution_assouad(k: int, n: int, priv: Privacy, loss: str, method: str) -> Bound:
    """Private Assouad over the Paninski family (the routes ``best|djw|phi|tanh``)."""
    if method in ("van-trees", "fano", "assouad"):
        method = "best"  # the best Assouad route
    if method in ("djw", "tanh") and not priv.djw:
        raise ValueError(f"method={method!r} needs pure LDP: a finite epsilon and delta = 0")
    factor = priv.factor()
    c = math.expm1(priv.epsilon) * math.sqrt(2.0 * n) if priv.djw else math.inf

    def pinsker_sum(u: np.ndarray, g: np.ndarray, scale: float) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_ratio = np.log1p(g) - np.log1p(-g)
            per = np.sqrt(np.minimum(n * scale * g * log_ratio / u, 4.0)) if scale > 0 else 0 * g
            per = np.where(np.isnan(per), 1.0, per)
        return u / 2.0 * np.minimum(per, 1.0)

    def tv_sum(u: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        routes = {"phi": pinsker_sum(u, g, factor)}
        if priv.djw:
            routes["djw"] = np.minimum(u / 2.0, g * c)
            routes["tanh"] = pinsker_sum(u, g, priv.tanh_factor)
        names = list(routes) if method == "best" else [method]
        stack = np.stack([np.broadcast_to(routes[r], np.broadcast(u, g).shape) for r in names])
        pick = np.argmin(stack, axis=0)
        return np.take_along_axis(stack, pick[None], axis=0)[0], np.array(names)[pick]

    def value(u: np.ndarray, g: np.ndarray) -> np.ndarray:
        sep = 2.0 * g * g / (u * u) if loss == "l2sq" else 2.0 * g / u
        return sep / 2.0 * np.maximum(0.0, u / 2.0 - tv_sum(u, g)[0])

    supports = _even_supports(k)
    gammas = np.geomspace(1e-7, 1.0, 400)[None, :]
    grid_values = value(supports[:, None], gammas)
    extra = np.full(supports.shape, 1.0)
    if priv.djw:  # the DJW optimum in gamma, in closed form, for each support size
        with np.errstate(divide="ignore", over="ignore"):  # c -> 0 at tiny epsilon: 1
            extra = np.minimum(1.0, supports / ((3.0 if loss == "l2sq" else 4.0) * c))
    extra_values = value(supports, extra)
    i, j = np.unravel_index(int(np.argmax(grid_values)), grid_values.shape)
    if extra_values.max() >= grid_values[i, j]:
        best = int(np.argmax(extra_values))
        u_best, g_best = float(supports[best]), float(extra[best])
    else:
        u_best, g_best = float(supports[i]), float(gammas[0, j])
    local = np.concatenate([np.geomspace(max(g_best / 1.5, 1e-9), min(g_best * 1.5, 1.0), 41)])
    g_ref, v_ref = maximize(lambda g: value(np.full_like(g, u_best), g), np.append(local, g_best))
    if v_ref > float(value(np.array(u_best), np.array(g_best))):
        g_best = g_ref
    best_value = float(value(np.array(u_best), np.array(g_best)))
    tv_best, routes = tv_sum(np.array(u_best), np.array(g_best))
    route = str(np.asarray(routes).ravel()[0])
    name = ASSOUAD_NAMES[route] if priv.private else "non-private Assouad"
    if loss == "l2sq":
        rate = (
            "min{1, 1/sqrt(n (e^eps-1)^2), k/(n (e^eps-1)^2)}"
            if route == "djw"
            else "min{1, 1/(n tanh^2(eps/2))}"
            if route == "tanh"
            else "min{1, 1/(n phi(eps, delta))}"
        )
    else:
        rate = (
            "min{1, k/sqrt(n (e^eps-1)^2)}"
            if route == "djw"
            else "min{1, sqrt(k/(n tanh^2(eps/2)))}"
            if route == "tanh"
            else "min{1, sqrt(k/(n phi(eps, delta)))}"
        )
    sep = 2.0 * g_best**2 / u_best**2 if loss == "l2sq" else 2.0 * g_best / u_best
    return Bound(
        max(0.0, best_value),
        name + ", Paninski family",
        MINIMAX,
        {
            "support": int(u_best),
            "gamma": g_best,
            "separation": sep,
            "tv_sum": float(np.asarray(tv_best).ravel()[0]),
            "route": route,
            "factor": priv.tanh_factor if route == "tanh" else factor,
            "loss": loss,
        },
        rate=rate,
    )
