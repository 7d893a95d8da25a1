r"""The privacy blanket bound of Balle-Bell-Gascón-Nissim (2019) for shuffled reports.

A local randomizer is written as a mixture ``R(x) = (1 - gamma) LO(x) + gamma omega``: with
probability ``gamma`` (the *blanket probability*) a report is drawn from a distribution
``omega`` that does not depend on the input. Among ``n`` shuffled reports the blanket draws
of the other users hide the victim's; the bound controls the privacy-loss of the shuffled
output through a sum over the blanket draws, with Hoeffding's or Bennett's inequality.

For k-RR with parameter ``eps0``, ``R(x) = (1 - gamma) delta_x + gamma Unif[k]`` with
``gamma = k / (e^eps0 + k - 1)``. For a level ``eps < eps0`` and ``a = e^eps - 1``:

* Hoeffding (the range of the privacy-amplification variable ``b = (1 - gamma) k (e^eps + 1)``)

  .. math:: \delta \le \frac{1}{\gamma n}\,\frac{b^2}{4a}\,
            \big(1 - \gamma (1 - e^{-2a^2/b^2})\big)^n ;

* Bennett (its maximum ``b+ = gamma (1 - e^eps) + (1 - gamma) k`` and its variance
  ``c = gamma (2 - gamma) (e^eps - 1)^2 + (1 - gamma)^2 k (e^{2 eps} + 1)``; with
  ``kappa = (c / b+^2) phi(a b+ / c)``, ``phi(u) = (1 + u) log(1 + u) - u``)

  .. math:: \delta \le \frac{b_+}{\gamma n \log(1 + a b_+/c)}\,
            \sum_{m=1}^{n} \binom{n}{m}\gamma^m (1-\gamma)^{n-m} e^{-m\kappa}
            = \frac{b_+ (1 - \gamma)^n\,\big((1 + \gamma e^{-\kappa}/(1-\gamma))^n - 1\big)}
                   {\gamma n \log(1 + a b_+/c)} .

For any ``eps0``-LDP randomizer the same inequalities hold with ``gamma = e^{-eps0}`` and the
generic range ``(e^eps + 1)(e^eps0 - e^{-eps0})``, maximum ``e^eps0 (1 - e^{eps - 2 eps0})``
and variance ``e^eps0 (e^{2 eps} + 1) - 2 gamma e^{eps - 2 eps0}``.

Source. The formulas are transcribed from the authors' reference implementation
(``shuffleddp/amplification_bounds.py`` and ``mechanisms.py`` of the paper's repository);
the paper's own statement (its theorem numbers and any range conditions) could not be read
here, so none is cited. The Bennett sum over the binomial is evaluated in the closed form
above (its probability-generating function) instead of by truncated summation. Every value is
checked in tests/accounting/amplification/test_shuffle.py against the exact ``delta(eps)`` of
shuffled k-RR, computed by enumerating every multinomial output for ``n <= 30``, and against the
values of the authors' code; the bound is loose at small ``n`` and competitive with the
clone bounds when ``k`` is large next to ``e^eps0`` (Bennett), where it can be the tightest.
Values are rounded up by a relative ``1e-10`` (far above the rounding of the evaluation).
"""

from __future__ import annotations

import math

from ldp._validation import check_epsilon, check_integer

__all__ = ["BLANKET_BOUNDS", "blanket_delta", "blanket_probability"]

#: The two concentration inequalities of the blanket bound.
BLANKET_BOUNDS = ("bennett", "hoeffding")
#: Relative allowance for the rounding of the evaluation.
_REL = 1e-10


def blanket_probability(epsilon0: float, k: int | None = None) -> float:
    """The blanket probability ``gamma``: ``k / (e^eps0 + k - 1)`` for k-RR, ``e^{-eps0}``
    for an arbitrary ``eps0``-LDP randomizer (``k=None``).

    Parameters
    ----------
    epsilon0 : float
        The local epsilon, ``> 0``.
    k : int, optional
        The alphabet of k-RR (``>= 2``); ``None`` for any ``eps0``-LDP randomizer.

    Returns
    -------
    float

    Examples
    --------
    >>> from ldp.accounting.amplification.blanket import blanket_probability
    >>> round(blanket_probability(1.0, 2), 6)   # 2 / (e + 1)
    0.537883
    """
    eps0 = check_epsilon(epsilon0, "epsilon0", positive=True, allow_inf=False)
    if k is None:
        return math.exp(-eps0)
    k = check_integer(k, "k", low=2)
    return k / (math.exp(eps0) + k - 1)


def _phi_lower(u: float) -> float:
    """A lower bound on ``(1 + u) log(1 + u) - u`` (``u > 0``)."""
    if u < 1e-2:  # alternating series u^2/2 - u^3/6 + u^4/12 - ...: stop after a minus
        return (u * u / 2.0 - u**3 / 6.0) * (1.0 - _REL)
    return ((1.0 + u) * math.log1p(u) - u) * (1.0 - _REL)


def blanket_delta(
    epsilon: float,
    epsilon0: float,
    n: int,
    *,
    k: int | None = None,
    bound: str = "bennett",
) -> float:
    """Upper bound on ``delta(epsilon)`` of ``n`` shuffled reports by the privacy blanket.

    Parameters
    ----------
    epsilon : float
        Central level, ``>= 0``.
    epsilon0 : float
        Local epsilon of each report, ``> 0``.
    n : int
        Number of users shuffled together, ``>= 1``.
    k : int, optional
        k-RR's alphabet; ``None`` for an arbitrary ``eps0``-LDP randomizer.
    bound : {"bennett", "hoeffding"}
        The concentration inequality (see the module notes).

    Returns
    -------
    float
        The bound, in ``[0, 1]`` (``0`` for ``epsilon >= epsilon0``).

    Examples
    --------
    >>> from ldp.accounting.amplification.blanket import blanket_delta
    >>> d = blanket_delta(0.05, 1.0, 10_000, k=100)
    >>> bool(0.0 < d < 1e-6)
    True
    """
    eps = check_epsilon(epsilon, allow_inf=False)
    eps0 = check_epsilon(epsilon0, "epsilon0", positive=True, allow_inf=False)
    n = check_integer(n, "n", low=1)
    if bound not in BLANKET_BOUNDS:
        raise ValueError(f"bound must be one of {BLANKET_BOUNDS}, got {bound!r}")
    gamma = blanket_probability(eps0, k)
    return _delta(eps, eps0, n, k, gamma, bound)


def _delta(eps: float, eps0: float, n: int, k: int | None, gamma: float, bound: str) -> float:
    if eps >= eps0:
        return 0.0  # the shuffled output is a post-processing of one eps0-LDP report
    if eps <= 0.0:
        return 1.0
    a = math.expm1(eps)
    e = math.exp(eps)
    if bound == "hoeffding":
        if k is None:
            b = (e + 1.0) * (math.exp(eps0) - math.exp(-eps0))
        else:
            b = (1.0 - gamma) * k * (e + 1.0)
        if b <= 0.0:
            return 0.0
        ratio = 2.0 * a * a / (b * b)
        log_term = n * math.log1p(-gamma * -math.expm1(-ratio))
        log_value = log_term + math.log(b * b / (4.0 * a)) - math.log(gamma * n)
        return min(1.0, math.exp(min(log_value, 0.0)) * (1.0 + _REL))
    if k is None:
        b_plus = math.exp(eps0) * -math.expm1(eps - 2.0 * eps0)
        c = math.exp(eps0) * (math.exp(2.0 * eps) + 1.0) - 2.0 * gamma * math.exp(eps - 2 * eps0)
    else:
        b_plus = gamma * (1.0 - e) + (1.0 - gamma) * k
        c = gamma * (2.0 - gamma) * a * a + (1.0 - gamma) ** 2 * k * (math.exp(2.0 * eps) + 1.0)
    if b_plus <= 0.0 or c <= 0.0:
        return 1.0
    beta = a * b_plus / c
    kappa = c / (b_plus * b_plus) * _phi_lower(beta)
    # sum_{m >= 1} Bin(n, gamma)(m) e^{-m kappa} = (1 - g)^n ((1 + g e^{-kappa}/(1 - g))^n - 1)
    if gamma >= 1.0:
        log_sum = -n * kappa
    else:
        inner = n * math.log1p(gamma * math.exp(-kappa) / (1.0 - gamma))
        log_expm1 = inner + math.log1p(-math.exp(-inner)) if inner > 30.0 else None
        if log_expm1 is None:
            log_expm1 = math.log(math.expm1(inner)) if inner > 0.0 else -math.inf
        log_sum = n * math.log1p(-gamma) + log_expm1
    if log_sum == -math.inf:
        return 0.0
    log_value = log_sum + math.log(b_plus) - math.log(gamma * n) - math.log(math.log1p(beta))
    return min(1.0, math.exp(min(log_value, 0.0)) * (1.0 + _REL))
