"""Privacy-loss distributions of the closed-form curves (Gaussian, Laplace) on a lattice.

The formulas behind :meth:`GaussianTradeOff.pld <ldp.accounting.GaussianTradeOff.pld>` and
:meth:`LaplaceTradeOff.pld <ldp.accounting.LaplaceTradeOff.pld>`: each is pessimistic (the
losses are rounded up to the lattice, so the profile is never below the true one).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from ldp.accounting.curves.pld import PrivacyLossDistribution

__all__ = ["gaussian_pld", "laplace_pld"]


def gaussian_pld(mu: float, interval: float) -> PrivacyLossDistribution:
    """Pessimistic PLD of ``N(mu, 1)`` against ``N(0, 1)``: the loss is ``N(mu^2/2, mu^2)``.

    Parameters
    ----------
    mu : float
        The GDP parameter, ``mu >= 0`` (``inf`` allowed).
    interval : float
        Lattice step.

    Returns
    -------
    PrivacyLossDistribution
        Losses rounded up to the lattice, so its ``delta(eps)`` is at least the true one.

    Examples
    --------
    >>> from ldp.accounting.curves.curve_plds import gaussian_pld
    >>> from ldp.accounting import GaussianTradeOff
    >>> pld = gaussian_pld(1.0, 1e-3)
    >>> bool(pld.delta(1.0) >= GaussianTradeOff(1.0).delta(1.0))
    True
    """
    if mu == 0.0:
        return PrivacyLossDistribution(np.ones(1), 0, interval, exact=True)
    if math.isinf(mu):
        return PrivacyLossDistribution(np.zeros(1), 0, interval, 1.0, exact=True)
    m, s = mu * mu / 2.0, mu  # loss ~ N(mu^2/2, mu^2) under N(mu, 1)
    return PrivacyLossDistribution.from_loss_cdf(
        lambda x: ndtr((x - m) / s),
        lambda x: ndtr((m - x) / s),
        m - 9.0 * s,
        m + 9.0 * s,
        interval,
    )


def laplace_pld(mu: float, interval: float) -> PrivacyLossDistribution:
    """Pessimistic PLD of ``Lap(mu, 1)`` against ``Lap(0, 1)``.

    ``L = |y| - |y - mu|``: an atom ``1/2`` at ``+mu``, an atom ``e^{-mu}/2`` at ``-mu`` and
    the density in between; ``P(L <= l) = e^{(l - mu)/2} / 2`` on ``[-mu, mu)``.

    Parameters
    ----------
    mu : float
        The shift (the epsilon of the Laplace mechanism), ``mu >= 0``.
    interval : float
        Lattice step.

    Returns
    -------
    PrivacyLossDistribution
        Losses rounded up to the lattice, so its ``delta(eps)`` is at least the true one.

    Examples
    --------
    >>> from ldp.accounting.curves.curve_plds import laplace_pld
    >>> from ldp.accounting import LaplaceTradeOff
    >>> bool(laplace_pld(1.0, 1e-3).delta(0.5) >= LaplaceTradeOff(1.0).delta(0.5))
    True
    """
    if mu == 0.0:
        return PrivacyLossDistribution(np.ones(1), 0, interval, exact=True)
    if math.isinf(mu):
        return PrivacyLossDistribution(np.zeros(1), 0, interval, 1.0, exact=True)

    def cdf(x):
        with np.errstate(over="ignore"):
            return np.where(x >= mu, 1.0, np.where(x < -mu, 0.0, 0.5 * np.exp((x - mu) / 2)))

    return PrivacyLossDistribution.from_loss_cdf(cdf, lambda x: 1.0 - cdf(x), -mu, mu, interval)
