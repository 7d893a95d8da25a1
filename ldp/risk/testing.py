r"""Private hypothesis testing: the Chernoff-Stein bound of Asoodeh-Aliakbarpour-Calmon (2021),
Corollary 4, and the sample size it implies.

Corollary 4: for a test of :math:`P_0` against :math:`P_1` at type-I level :math:`\alpha`
through :math:`(\varepsilon,\delta)`-LDP channels, the type-II error satisfies
:math:`\liminf_n \frac1n \log\beta_n \ge -\varphi(\varepsilon,\delta)\,\mathrm{KL}(P_0\|P_1)`
(the paper writes ``lim``; without a strong-converse argument only the ``liminf`` is shown).
As proved, Corollary 4 covers non-interactive mechanisms, although the paper's setup allows
sequential interaction.

Non-asymptotic form (derived here, not in the paper): data processing of the binary KL, the
chain rule and Lemma 1 give, for every ``n`` and sequentially interactive mechanisms,
:math:`(1-\alpha)\log(1/\beta) - \log 2 \le n\,\varphi\,\mathrm{KL}(P_0\|P_1)`.
The type-II error is :math:`\Pr(T = 0 \mid H_1)`, as the paper's definition of
:math:`\beta` confirms (its Section VI prints :math:`\Pr(T = 1 \mid H_1)`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_scalar
from ldp.channel import Channel
from ldp.divergences import kl as kl_divergence
from ldp.references import cite
from ldp.risk._common import (
    Bound,
    Privacy,
    as_pmf,
    check_nonnegative,
    push,
    resolve_privacy,
    scaled,
)

__all__ = ["min_sample_size", "stein_exponent"]


def _contracted_kl(
    p0: ArrayLike | None, p1: ArrayLike | None, kl: float | None, priv: Privacy
) -> tuple[float, float]:
    """``(factor * KL, factor)``: the per-sample privatized KL or its worst-case bound."""
    if kl is not None:
        if p0 is not None or p1 is not None:
            raise ValueError("pass either p0 and p1 or kl, not both")
        if priv.channel is not None:
            raise ValueError("a concrete channel needs the distributions p0 and p1, not kl")
        value = check_nonnegative(kl, "kl")
    else:
        if p0 is None or p1 is None:
            raise TypeError("pass the two hypotheses p0 and p1 (pmfs), or their kl")
        a, b = as_pmf(p0, "p0"), as_pmf(p1, "p1")
        if a.size != b.size:
            raise ValueError(f"p0 and p1 must have the same length, got {a.size} and {b.size}")
        if priv.channel is not None:
            m0, m1 = push(priv.channel, a, "p0"), push(priv.channel, b, "p1")
            return float(kl_divergence(m0, m1)), 1.0
        value = float(kl_divergence(a, b))
    factor = priv.factor()
    return scaled(factor, value), factor


def stein_exponent(
    p0: ArrayLike | None = None,
    p1: ArrayLike | None = None,
    *,
    epsilon: float | None = None,
    delta: float = 0.0,
    channel: Channel | None = None,
    kl: float | None = None,
) -> Bound:
    r"""Lower bound on the private Chernoff-Stein exponent (Asoodeh-Aliakbarpour-Calmon (2021),
    Corollary 4).

    ``value`` :math:`= -\varphi(\varepsilon,\delta)\,\mathrm{KL}(P_0\|P_1)`, a lower bound on
    :math:`\liminf_n \frac1n\log\beta_n` for every ``(epsilon, delta)``-LDP channel. With a
    concrete ``channel`` it is Stein's exponent of that channel,
    :math:`-\mathrm{KL}(P_0K\|P_1K)`, exactly. ``-inf`` when the KL is infinite.

    Parameters
    ----------
    p0, p1 : array_like, optional
        The two hypotheses as pmfs on the same finite alphabet.
    epsilon, delta : float
        Worst case over all ``(epsilon, delta)``-LDP channels.
    channel : Channel, optional
        A concrete channel; replaces ``epsilon``.
    kl : float, optional
        Instead of ``p0, p1``: the per-sample ``KL(P0 || P1)``.

    Returns
    -------
    Bound
        The exponent (``<= 0``), with the contraction factor used in ``params``.

    Examples
    --------
    >>> from ldp.risk import stein_exponent
    >>> b = stein_exponent([0.5, 0.5], [0.25, 0.75], epsilon=1.0)
    >>> round(b.value, 6)   # -(1 - e^-1) * KL
    -0.090925
    """
    priv = resolve_privacy(epsilon, delta, channel)
    value, factor = _contracted_kl(p0, p1, kl, priv)
    name = (
        "Chernoff-Stein exponent of a concrete channel (exact)"
        if priv.channel is not None
        else f"private Chernoff-Stein ({cite('asoodeh2021', 'Corollary 4')})"
    )
    return Bound(
        -value if value > 0 else 0.0,
        name,
        "type-II error exponent lower bound",
        {"factor": factor, "kl": value / factor if factor > 0 else 0.0},
    )


def min_sample_size(
    p0: ArrayLike | None = None,
    p1: ArrayLike | None = None,
    *,
    alpha: float,
    beta: float,
    epsilon: float | None = None,
    delta: float = 0.0,
    channel: Channel | None = None,
    kl: float | None = None,
) -> Bound:
    r"""Minimum number of users to test :math:`P_0` vs :math:`P_1` at errors ``(alpha, beta)``.

    :math:`n \ge [(1-\alpha)\log(1/\beta) - \log 2]_+ / (\varphi\,\mathrm{KL}(P_0\|P_1))`
    (derived from Lemma 1 of Asoodeh-Aliakbarpour-Calmon (2021); valid for every ``n`` and
    sequentially interactive ``(epsilon, delta)``-LDP mechanisms). With a concrete ``channel``
    the exact privatized KL replaces :math:`\varphi\,\mathrm{KL}` (non-interactive). ``inf``
    when the privatized information is zero, ``0`` when it is infinite.

    Parameters
    ----------
    p0, p1 : array_like, optional
        The two hypotheses as pmfs on the same finite alphabet.
    alpha : float
        Type-I error, :math:`\Pr(T=1\mid H_0) \le \alpha`, in ``[0, 1)``.
    beta : float
        Target type-II error :math:`\Pr(T=0\mid H_1)`, in ``(0, 1]``.
    epsilon, delta : float
        Worst case over all ``(epsilon, delta)``-LDP mechanisms.
    channel : Channel, optional
        A concrete mechanism used by every user; replaces ``epsilon``.
    kl : float, optional
        Instead of ``p0, p1``: the per-sample ``KL(P0 || P1)``.

    Returns
    -------
    Bound
        The smallest number of users (``params["n_min"]`` rounded up), ``inf`` when the
        privatized information is zero.

    Examples
    --------
    >>> from ldp.risk import min_sample_size
    >>> b = min_sample_size([0.5, 0.5], [0.4, 0.6], alpha=0.05, beta=0.05, epsilon=1.0)
    >>> b.value > min_sample_size([0.5, 0.5], [0.4, 0.6], alpha=0.05, beta=0.05,
    ...                               epsilon=float("inf")).value
    True
    """
    a = check_scalar(alpha, "alpha", low=0.0, high=1.0, high_open=True)
    b = check_scalar(beta, "beta", low=0.0, high=1.0, low_open=True)
    priv = resolve_privacy(epsilon, delta, channel)
    rate, factor = _contracted_kl(p0, p1, kl, priv)
    need = (1.0 - a) * math.log(1.0 / b) - math.log(2.0)
    if need <= 0:
        value = 0.0
    elif rate == 0:
        value = math.inf
    else:
        value = need / rate
    return Bound(
        value,
        f"private testing sample size ({cite('asoodeh2021', 'Lemma 1')} + binary-KL data "
        "processing)",
        "sample size lower bound",
        {"factor": factor, "information_per_user": rate, "n_min": _ceil(value)},
    )


def _ceil(value: float) -> float:
    return value if np.isinf(value) else float(math.ceil(value - 1e-12))
