r"""How often an attacker can guess an individual's value, from a trade-off curve.

An attacker sees the output of an ``f``-DP mechanism run on one of two values ``x_0`` and
``x_1`` of an individual, held with prior probabilities ``1 - pi`` and ``pi``, and guesses
which one. A guess is a test; with type I error ``alpha`` (guessing ``x_1`` under ``x_0``)
and type II error ``beta >= f(alpha)`` its success probability is
``(1 - pi)(1 - alpha) + pi (1 - beta)``, so the best attacker succeeds with probability

.. math:: 1 - \min_\alpha [(1 - \pi)\alpha + \pi f(\alpha)]
          = 1 - \pi + \pi\, \delta_f\!\left(\log\tfrac{1 - \pi}{\pi}\right),

with ``delta_f`` the privacy profile (Dong-Roth-Su (2022), §2.4: ``delta_f(eps) =
1 - min_alpha [f(alpha) + e^eps alpha]``, any real ``eps``). For ``pi = 1/2`` this is
``(1 + TV)/2``. The profile is an upper bound (rounded up), so the rate is an upper bound on
every attacker's success: a privacy guarantee, as riskcal and ldp-toolbox report it.
"""

from __future__ import annotations

import math

from ldp._validation import check_scalar
from ldp.accounting.curves.tradeoff_base import TradeOffFunction
from ldp.accounting.curves.tradeoff_families import tradeoff_from_channel
from ldp.core import Mechanism

__all__ = ["attacker_success_rate"]


def attacker_success_rate(f: TradeOffFunction | Mechanism, prior: float = 0.5) -> float:
    r"""Largest probability that an attacker guesses which of two values was privatized.

    Parameters
    ----------
    f : TradeOffFunction or Mechanism
        The mechanism's trade-off curve ``T(M(x_0), M(x_1))`` (for the worst pair: its f-DP
        guarantee), or a mechanism, whose worst-pair curve is taken from its
        ``privacy_channel()``.
    prior : float, default 0.5
        Prior probability ``pi`` of the value ``x_1``, in ``[0, 1]``.

    Returns
    -------
    float
        ``1 - pi + pi delta_f(log((1 - pi) / pi))``: at least ``max(pi, 1 - pi)`` (guessing
        the likelier value), at most 1.

    Raises
    ------
    TypeError
        If ``f`` is neither a curve nor a mechanism.
    ValueError
        If ``prior`` is outside ``[0, 1]``.

    Examples
    --------
    >>> import ldp
    >>> from ldp.accounting import GaussianTradeOff, attacker_success_rate
    >>> round(attacker_success_rate(GaussianTradeOff(1.0)), 6)   # Phi(mu / 2)
    0.691462
    >>> round(attacker_success_rate(ldp.randomized_response(1.0), prior=0.5), 6)  # e/(1+e)
    0.731059
    >>> round(attacker_success_rate(GaussianTradeOff(1.0), prior=0.9), 6)
    0.901336
    """
    if isinstance(f, Mechanism):
        curve = tradeoff_from_channel(f.privacy_channel())
    elif isinstance(f, TradeOffFunction):
        curve = f  # type: ignore[assignment]
    else:
        raise TypeError(f"f must be a TradeOffFunction or a Mechanism, got {type(f).__name__}")
    pi = check_scalar(prior, "prior", low=0.0, high=1.0)
    if pi == 0.0 or pi == 1.0:
        return 1.0
    level = math.log1p(-pi) - math.log(pi)
    value = 1.0 - pi + pi * float(curve.delta(level))
    return float(min(1.0, max(value, max(pi, 1.0 - pi))))
