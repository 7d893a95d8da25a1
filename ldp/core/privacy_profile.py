"""The :class:`PrivacyProfile` protocol: anything that states its own ``(epsilon, delta)``
privacy, and the one check that refuses what does not.

Trade-off curves (:class:`~ldp.accounting.TradeOffFunction`), mechanisms
(:class:`~ldp.core.Mechanism`) and finite channels (:class:`~ldp.Channel`) all give the
privacy profile ``delta(eps)``, its inverse ``epsilon_for_delta(delta)`` and the total
variation ``tv = delta(0)``; :func:`~ldp.accounting.compose`,
:func:`~ldp.accounting.calibrate` and the privacy filters are typed by it, and
:func:`check_privacy_profile` raises the single ``TypeError`` for anything else.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["PrivacyProfile", "check_privacy_profile"]


@runtime_checkable
class PrivacyProfile(Protocol):
    """What states its own privacy profile ``delta(eps)`` (Balle et al. (2018), the
    hockey-stick divergence ``sup D_{e^eps}`` over neighbouring inputs).

    Parameters
    ----------
    None
        A protocol: a class satisfies it by having the members below.

    Attributes
    ----------
    delta(epsilon)
        The profile ``delta(eps)``: an upper bound of the hockey-stick divergence at ``eps``.
    epsilon_for_delta(delta)
        The smallest ``eps >= 0`` with ``delta(eps) <= delta``.
    tv
        The total variation ``delta(0)`` (a property).

    Examples
    --------
    >>> from ldp.core import PrivacyProfile
    >>> from ldp.accounting import GaussianTradeOff
    >>> isinstance(GaussianTradeOff(1.0), PrivacyProfile), isinstance(0.5, PrivacyProfile)
    (True, False)
    """

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """The privacy profile ``delta(eps)``."""
        ...

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """The smallest ``eps >= 0`` whose ``delta(eps)`` is at most ``delta``."""
        ...

    @property
    def tv(self) -> float:
        """The total variation ``delta(0)``."""
        ...


_P = TypeVar("_P")


def check_privacy_profile(value: _P, name: str) -> _P:
    """``value`` itself when it is a :class:`PrivacyProfile`; the one ``TypeError`` otherwise.

    Parameters
    ----------
    value : object
        The candidate (a curve, a mechanism, a channel, ...).
    name : str
        The argument's name, for the message.

    Returns
    -------
    PrivacyProfile
        ``value``, unchanged.

    Raises
    ------
    TypeError
        ``"<name>=<value> is not a privacy profile: ..."`` when ``value`` lacks ``delta``,
        ``epsilon_for_delta`` or ``tv`` (a class rather than an instance included).

    Examples
    --------
    >>> from ldp.core import check_privacy_profile
    >>> from ldp.accounting import EpsDeltaTradeOff
    >>> check_privacy_profile(EpsDeltaTradeOff(1.0), "mechanism")
    EpsDeltaTradeOff(epsilon=1.0, delta=0.0)
    >>> check_privacy_profile("rr", "mechanism")
    Traceback (most recent call last):
    ...
    TypeError: mechanism='rr' (str) is not a privacy profile: it needs delta(epsilon), ...
    """
    if isinstance(value, PrivacyProfile) and not isinstance(value, type):
        return value
    raise TypeError(
        f"{name}={value!r} ({type(value).__name__}) is not a privacy profile: it needs "
        "delta(epsilon), epsilon_for_delta(delta) and tv (a TradeOffFunction, a Mechanism "
        "or a Channel has them)"
    )
