r"""Closed forms and theorem bounds on contraction coefficients (see :mod:`ldp.contraction`)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ldp import _formulas
from ldp._validation import check_epsilon, check_integer, check_pmf, check_probability
from ldp.channel import Channel
from ldp.contraction._checks import (
    as_channel,
    check_eta,
    check_gamma,
    check_kind,
    positive_part_ratio,
)
from ldp.core import Mechanism
from ldp.divergences import check_generator, tv

__all__ = [
    "chi2_output_bound",
    "erase",
    "erasure_kl_ratio_lower_bound",
    "k_rr_coefficient",
    "max_f_divergence",
    "max_kl_contraction",
    "max_output_tv",
    "phi",
    "rr_coefficient",
    "utility_proxy",
    "worst_case_hockey_stick",
    "worst_case_tv",
]


def phi(epsilon: float, delta: float = 0.0, n: int = 1) -> float:
    r"""The universal contraction factor of ``n`` uses of an ``(eps, delta)``-LDP channel.

    .. math:: \varphi_n(\varepsilon, \delta) = 1 - e^{-n\varepsilon}(1 - \delta)^n,

    Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1 (``n = 1``): every f-divergence contracts by
    at most :math:`\varphi` under any
    :math:`(\varepsilon,\delta)`-LDP channel; Lemma 2: by at most :math:`\varphi_n` under the
    n-fold product. Computed as ``-expm1(n (log1p(-delta) - eps))`` for accuracy when the
    value is tiny.

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed: the factor is 1).
    delta : float, default 0.0
        In ``[0, 1]``.
    n : int, default 1
        Number of uses of the channel, ``n >= 1``.

    Returns
    -------
    float
        The factor in ``[0, 1]``.

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

    attained by randomized response with delta-disclosure (derived here from the profile of
    Asoodeh-Aliakbarpour-Calmon (2021), Theorem 1; the same number is the
    :math:`\eta_{\max}` of Ghazi-Issa (2023), Corollary 1, so both are the one formula of
    :func:`ldp.mechanisms.eta_max`). It is strictly below :func:`phi` for ``eps > 0`` and
    ``delta < 1``. It bounds :math:`\eta_f` for every ``f``
    (Asoodeh-Aliakbarpour-Calmon (2021), eq. (30)).

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed).
    delta : float, default 0.0
        In ``[0, 1]``.

    Returns
    -------
    float
        The supremum, in ``[delta, 1]``.

    Examples
    --------
    >>> from ldp.contraction import worst_case_tv
    >>> round(worst_case_tv(1.0, 0.05), 10)
    0.4890112994

    >>> from ldp import binary_erasure
    >>> from ldp.contraction import phi
    >>> import math  # attained by RR with delta-disclosure
    >>> math.isclose(worst_case_tv(1.0, 0.05), binary_erasure(1.0, 0.05).contraction("tv").value)
    True
    >>> worst_case_tv(1.0, 0.05) < phi(1.0, 0.05)
    True
    """
    return _formulas.eta_max(check_epsilon(epsilon), check_probability(delta, "delta"))


def worst_case_hockey_stick(epsilon: float, delta: float, gamma: float) -> float:
    r"""The largest :math:`\eta_\gamma` of any :math:`(\varepsilon,\delta)`-LDP channel.

    .. math:: \sup_{K\in\mathcal Q_{\varepsilon,\delta}} \eta_\gamma(K)
              = \delta + (1-\delta)\frac{(e^\varepsilon - \gamma)_+}{e^\varepsilon + 1},
              \qquad \gamma \ge 1

    (derived here; attained by randomized response with delta-disclosure). ``gamma = 1`` is
    :func:`worst_case_tv`, ``gamma = e^eps`` gives ``delta`` (Asoodeh-Aliakbarpour-Calmon
    (2021), Theorem 1). For ``0 < gamma < 1`` the value at ``1 / gamma`` is returned, since
    :math:`\eta_\gamma = \eta_{1/\gamma}`.

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0``.
    delta : float
        In ``[0, 1]``.
    gamma : float
        ``gamma > 0``.

    Returns
    -------
    float
        The supremum, in ``[0, 1]``.

    Examples
    --------
    >>> from ldp.contraction import worst_case_hockey_stick
    >>> round(worst_case_hockey_stick(1.0, 0.1, 1.5), 6)
    0.394882

    >>> import math
    >>> worst_case_hockey_stick(1.0, 0.1, math.e)  # gamma = e^eps leaves delta
    0.1
    >>> worst_case_hockey_stick(1.0, 0.1, 1.5) == worst_case_hockey_stick(1.0, 0.1, 1 / 1.5)
    True
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    g = check_gamma(gamma)
    g = max(g, 1.0 / g)
    return min(1.0, d + (1.0 - d) * positive_part_ratio(eps, g, 1.0))


_RR_KINDS = ("tv", "hockey_stick", "chi2", "kl", "hellinger")


def k_rr_coefficient(kind: str, k: int, epsilon: float, gamma: float | None = None) -> float:
    r"""Closed-form contraction coefficients of k-ary randomized response.

    With :math:`E = e^\varepsilon`:

    * ``"tv"``: :math:`(E-1)/(E+k-1)`;
    * ``"hockey_stick"``: :math:`(E-\gamma)_+/(E+k-1)` for ``gamma >= 1`` (and the value at
      ``1/gamma`` for ``gamma < 1``);
    * ``"chi2"``, ``"kl"``, ``"hellinger"``:
      :math:`(E-1)^2/((E+k-1)(E+1))`, attained by the uniform input on two symbols
      (Ghazi-Issa (2023), eq. (36), tight by Asoodeh & Zhang Prop. 1; Hellinger equals chi2
      at channel level).

    The tests check each against the channel :func:`ldp.k_rr` and against values computed
    independently.

    Parameters
    ----------
    kind : {"tv", "hockey_stick", "chi2", "kl", "hellinger"}
        Which contraction coefficient.
    k : int
        Alphabet size, ``k >= 2``.
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed).
    gamma : float, optional
        Required with ``kind="hockey_stick"``, refused otherwise.

    Returns
    -------
    float
        The coefficient, in ``[0, 1]``.

    Examples
    --------
    >>> from ldp.contraction import k_rr_coefficient
    >>> round(k_rr_coefficient("kl", 4, 1.0), 6)
    0.138861

    >>> from ldp import k_rr
    >>> abs(k_rr_coefficient("chi2", 4, 1.0) - k_rr(4, 1.0).contraction("chi2").value) < 1e-9
    True
    >>> round(k_rr_coefficient("tv", 4, 1.0), 12) == round(k_rr(4, 1.0).tv, 12)
    True
    """
    name = check_kind(kind)
    if name not in _RR_KINDS:
        raise ValueError(f"kind must be one of {_RR_KINDS} for k-RR, got {kind!r}")
    size = check_integer(k, "k", low=2)
    eps = check_epsilon(epsilon)
    if name != "hockey_stick" and gamma is not None:
        raise ValueError(f"gamma is only used with kind='hockey_stick', got kind={kind!r}")
    tail = math.exp(-eps) if not math.isinf(eps) else 0.0
    if name == "tv":  # keep - other, without cancellation
        return _formulas.k_rr_probabilities(size, eps)[2]
    if name == "hockey_stick":
        g = check_gamma(gamma)
        if math.isinf(eps):  # the identity channel: E_gamma of two point masses is 1
            return 1.0
        return positive_part_ratio(eps, max(g, 1.0 / g), size - 1.0)
    return (-math.expm1(-eps)) ** 2 / ((1.0 + (size - 1) * tail) * (1.0 + tail))


def rr_coefficient(kind: str, epsilon: float, gamma: float | None = None) -> float:
    r"""Closed-form contraction coefficients of binary randomized response, ``BSC(w)``.

    With :math:`w = 1/(1+e^\varepsilon)`: TV :math:`1 - 2w = \tanh(\varepsilon/2)`;
    :math:`E_\gamma` :math:`(e^\varepsilon-\gamma)_+/(e^\varepsilon+1)`; KL, chi2 and squared
    Hellinger :math:`(1-2w)^2 = \tanh^2(\varepsilon/2)`. Asoodeh-Aliakbarpour-Calmon (2021) print
    :math:`1 - 2w^2` for KL; the correct value is :math:`(1-2w)^2`, which is used here
    (see tests/contraction/test_contraction.py). :func:`k_rr_coefficient` with ``k = 2``.

    Parameters
    ----------
    kind : {"tv", "hockey_stick", "chi2", "kl", "hellinger"}
        Which contraction coefficient.
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed).
    gamma : float, optional
        Required with ``kind="hockey_stick"``, refused otherwise.

    Returns
    -------
    float
        The coefficient, in ``[0, 1]``.

    Examples
    --------
    >>> from ldp.contraction import rr_coefficient
    >>> round(rr_coefficient("kl", 1.0), 6), round(rr_coefficient("tv", 1.0), 6)
    (0.213552, 0.462117)

    >>> import math
    >>> math.isclose(rr_coefficient("kl", 1.0), math.tanh(0.5) ** 2)  # (1 - 2w)^2
    True
    """
    return k_rr_coefficient(kind, 2, epsilon, gamma)


def max_output_tv(epsilon: float, eta: float, p0: ArrayLike, p1: ArrayLike) -> float:
    r"""The largest output TV of an :math:`(\varepsilon,\eta)` channel on inputs ``p0``, ``p1``.

    Ghazi-Issa (2023), Proposition 2:
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

    Returns
    -------
    float
        ``eta * TV(p0, p1)``.

    Examples
    --------
    >>> from ldp.contraction import max_output_tv
    >>> round(max_output_tv(1.0, 0.3, [0.5, 0.3, 0.2], [0.1, 0.3, 0.6]), 12)
    0.12
    """
    eps = check_epsilon(epsilon)
    level = check_eta(eta, eps)
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

    Ghazi-Issa (2023), Theorem 4, with :math:`E = e^\varepsilon`:

    .. math:: \sup_{(P_0,P_1)\in\mathcal Q_{\varepsilon,\eta}} D_f(P_0\|P_1)
              = \eta\,\frac{f(E) + E f(1/E)}{E - 1},

    attained by the dominating pair :math:`Q^*_{\varepsilon,\eta}` (:func:`ldp.binary_erasure`).
    Presets (closed forms of Theorem 4, stable for small ``epsilon``):
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

    Returns
    -------
    float
        The supremum (``inf`` for chi2 at ``epsilon = inf``).

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
    level = check_eta(eta, eps)
    if isinstance(f, str):
        name = check_kind(f)
        if name not in _F_PRESETS:
            raise ValueError(f"f must be one of {_F_PRESETS} or a callable, got {f!r}")
        if name != "hockey_stick" and gamma is not None:
            raise ValueError(f"gamma is only used with f='hockey_stick', got f={f!r}")
        if level == 0.0:
            if name == "hockey_stick":
                check_gamma(gamma)
            return 0.0
        if name == "tv":
            return level
        if name == "kl":
            return eps * level
        if name == "chi2":
            return math.inf if math.isinf(eps) else level * math.expm1(eps) * (1 + math.exp(-eps))
        if name == "hellinger":
            return 2.0 * level * math.tanh(eps / 4.0)
        g = check_gamma(gamma)
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

    Ghazi-Issa (2023), Theorem 5 (``delta = 0``):
    :math:`\sup_{Q\in\mathcal Q_{\varepsilon,\eta}} \eta_{KL}(Q) = \eta\tanh(\varepsilon/2)`,
    attained by :math:`Q^*_{\varepsilon,\eta}`. Correction followed: eq. (26) and Theorem 6
    print the range of ``eta`` with the inverted fraction :math:`(e^\varepsilon+1)/
    (e^\varepsilon-1)`; the factor is :math:`\tanh(\varepsilon/2)`, not its reciprocal.

    With ``delta > 0`` (derived here, not in the paper): every
    :math:`(\varepsilon,\delta)`-LDP, eta-TV pair of rows is a garbling of the dominating
    pair :math:`M_{\varepsilon,\delta,\eta}` (Ghazi-Issa (2023), Theorem 2, and Blackwell's
    theorem), whose Le Cam sup is :math:`\delta + (\eta - \delta)\tanh(\varepsilon/2)`
    (at ``beta = 1/2``); with Ordentlich-Polyanskiy's binary-input reduction this bounds
    :math:`\eta_{KL}(K)`. The tests check the value against the exact coefficient of
    :func:`ldp.binary_erasure`.

    Parameters
    ----------
    epsilon : float
        ``>= 0`` (``inf`` allowed: the bound is ``eta``).
    eta : float
        TV level in ``[delta, delta + (1 - delta) tanh(epsilon/2)]``.
    delta : float, default 0.0
        In ``[0, 1]``.

    Returns
    -------
    float
        The bound, in ``[0, 1]``.

    Examples
    --------
    >>> from ldp.contraction import max_kl_contraction
    >>> round(max_kl_contraction(1.0, 0.3), 12)
    0.138635147178
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    level = check_eta(eta, eps, d)
    return min(1.0, d + (level - d) * _formulas.eta_max(eps))


def chi2_output_bound(epsilon: float, eta: float, tv_in: float) -> float:
    r"""Ghazi-Issa (2023), Theorem 6: chi2 between the outputs of an :math:`(\varepsilon,\eta)`
    channel.

    For every :math:`Q\in\mathcal Q_{\varepsilon,\eta}` and inputs :math:`P_0, P_1`,

    .. math:: \chi^2(P_0 Q\|P_1 Q) \le 4\eta(e^\varepsilon - 1)(1 + e^{-\varepsilon})\,
              TV(P_0, P_1)^2 .

    (Duchi-Ruan Prop. 8 with Theorem 4 for :math:`f = (t-1)^2`.) The paper prints the range
    of ``eta`` as :math:`[0, (e^\varepsilon+1)/(e^\varepsilon-1)]`; the correct range is
    :math:`[0, \tanh(\varepsilon/2)]` and is enforced.

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed: the bound is ``inf`` unless it is 0).
    eta : float
        TV level in ``[0, tanh(epsilon/2)]``.
    tv_in : float
        ``TV(P0, P1)`` of the inputs, in ``[0, 1]``.

    Returns
    -------
    float
        The upper bound on the output chi2 (``inf`` where ``e^eps`` overflows).

    Examples
    --------
    >>> from ldp.contraction import chi2_output_bound
    >>> round(chi2_output_bound(1.0, 0.3, 0.5), 12)   # 4 * 0.705120716186 * 0.25
    0.705120716186
    """
    eps = check_epsilon(epsilon)
    level = check_eta(eta, eps)
    t = check_probability(tv_in, "tv_in")
    if level == 0.0 or t == 0.0:
        return 0.0
    if math.isinf(eps):
        return math.inf
    if eps > 700.0:  # e^eps overflows: the bound is above 1e300, report it as inf
        return math.inf
    return 4.0 * level * math.expm1(eps) * (1.0 + math.exp(-eps)) * t * t


def erase(channel: Channel | ArrayLike, epsilon: float, eta: float) -> Channel:
    r"""Ghazi-Issa (2023), Theorem 7: turn an :math:`\varepsilon`-LDP channel into an
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

    Returns
    -------
    Channel
        ``channel`` with one more output column, the erasure symbol.

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.contraction import erase
    >>> q = erase(randomized_response(1.0), 1.0, 0.2)
    >>> q.shape, round(q.tv, 12), round(q.epsilon, 12)
    ((2, 3), 0.2, 1.0)
    """
    K = as_channel(channel)
    eps = check_epsilon(epsilon)
    level = check_eta(eta, eps)
    if not K.is_ldp(eps):
        raise ValueError(
            f"channel must be epsilon-LDP for Theorem 7; its epsilon is {K.epsilon!r} > "
            f"epsilon={eps!r}"
        )
    keep = 0.0 if level == 0.0 else min(1.0, level / _formulas.eta_max(eps))
    matrix = np.hstack([keep * K.matrix, np.full((K.n_inputs, 1), 1.0 - keep)])
    return Channel(matrix)


def erasure_kl_ratio_lower_bound(epsilon: float, eta: float) -> float:
    r"""Lower bound on ``KL(be) / KL(opt)``: how close the binary mechanism with erasure is to
    the best ``(eps, eta)`` channel for a pair of input laws (Ghazi-Issa (2023), eq. (41)).

    For input laws ``P_0, P_1``, ``Q^{(be)}`` (:func:`~ldp.binary_mechanism_with_erasure`) and
    the channel ``Q^{opt}`` in ``Q_{eps,eta}`` that maximises ``D(M_0 || M_1)``:

    .. math:: \frac{D(M_0^{(be)} \| M_1^{(be)})}{D(M_0^{opt} \| M_1^{opt})} \ge
              \frac{\eta}{2 (e^\varepsilon - 1)(1 + e^{-\varepsilon})}

    (Pinsker on ``Q^{(be)}``, whose output TV is ``eta * TV(P_0, P_1)``, against the
    chi-square bound of their Theorem 6). With ``eta >= c eps`` and ``eps -> 0`` it tends to
    ``c / 4``: the mechanism with erasure is order-optimal in the high-privacy regime.

    Parameters
    ----------
    epsilon : float
        ``> 0`` (finite).
    eta : float
        TV level in ``[0, tanh(epsilon/2)]``.

    Returns
    -------
    float
        The bound (at most 1 where it is informative).

    Examples
    --------
    >>> from ldp.contraction import erasure_kl_ratio_lower_bound
    >>> round(erasure_kl_ratio_lower_bound(0.01, 0.2 * 0.01), 6)   # c = 0.2: near c / 4
    0.049999
    """
    eps = check_epsilon(epsilon)
    if eps == 0.0 or math.isinf(eps):
        raise ValueError(f"epsilon must be positive and finite, got {eps!r}")
    level = check_eta(eta, eps)
    return level / (2.0 * math.expm1(eps) * (1.0 + math.exp(-eps)))


def utility_proxy(epsilon: float | object, eta: float | None = None) -> float:
    r"""The utility proxy ``eta tanh(eps/2)`` of an ``(eps, eta)`` channel (Ghazi-Issa (2023),
    §VII-C).

    The largest KL contraction coefficient of an ``eps``-LDP, ``eta``-TV channel (their
    Theorem 5): a single number to rank two privatization mechanisms when neither is a
    garbling of the other (larger keeps more information and leaks more).

    Parameters
    ----------
    epsilon : float or Channel or Mechanism
        ``eps >= 0``; or a mechanism, whose ``epsilon`` and ``tv`` are used.
    eta : float, optional
        TV level in ``[0, tanh(epsilon/2)]`` (required with a number).

    Returns
    -------
    float
        ``eta * tanh(eps / 2)`` in ``[0, 1)``.

    Examples
    --------
    >>> import ldp
    >>> from ldp.contraction import utility_proxy
    >>> round(utility_proxy(1.0, 0.3), 12)
    0.138635147178
    >>> rr = ldp.randomized_response(1.0)
    >>> round(utility_proxy(rr), 12) == round(rr.tv * rr.tv, 12)   # tanh(1/2)^2
    True
    """
    if isinstance(epsilon, Mechanism):
        if eta is not None:
            raise TypeError("give eta only with a number epsilon, not with a mechanism")
        eps = float(epsilon.epsilon)
        level = min(float(epsilon.tv), _formulas.eta_max(eps))
    else:
        eps = check_epsilon(epsilon)
        if eta is None:
            raise TypeError("eta is required when epsilon is a number")
        level = check_eta(eta, eps)
    return float(level * _formulas.eta_max(eps)) if math.isfinite(eps) else float(level)
