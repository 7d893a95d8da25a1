r"""Privacy filters: the valid GDP filter and the errors of the filters.

After Tran-Koskela-Räisä-Honkela (2025), "f-Differential Privacy Filters: Validity and
Approximate Solutions".

* :class:`PrivacyFilter` is the GDP filter (Koskela et al.; Tran-Koskela-Räisä-Honkela
  (2025), Theorem 2.11): it accepts
  mechanisms one at a time while ``sum mu_i^2 <= mu_B^2`` and refuses the one that would
  cross the budget. It is **valid under full adaptivity** (mechanisms and their ``mu_i``
  chosen from past outputs): the output is ``mu_B``-GDP. Finite channels and
  piecewise-linear curves enter through the smallest ``mu`` with ``G_mu <= f``
  (:func:`~ldp.accounting.curves.get_mu_from_tradeoff`, exact).
* The natural f-DP filter (:class:`~ldp.accounting.NaturalFDPFilter`), its counterexamples
  and Algorithm 2 (:class:`~ldp.accounting.ApproxGDPFilter`) certify or approximate
  Poisson-subsampled Gaussian curves, so they live with the central-DP machinery in
  :mod:`ldp.accounting.central.filters`; they import from :mod:`ldp.accounting` as before,
  and from :mod:`ldp.accounting.filters` through a lazy module ``__getattr__`` (with a
  ``DeprecationWarning``), so this module imports nothing of :mod:`ldp.accounting.central`.
"""

from __future__ import annotations

import math

import numpy as np

from ldp._validation import check_scalar
from ldp.accounting.curves import (
    GaussianTradeOff,
    TradeOffFunction,
    get_mu_from_tradeoff,
    tradeoff_from_channel,
)
from ldp.channel import Channel

__all__ = [
    "FilterHaltedError",
    "InvalidFilterError",
    "PrivacyFilter",
]

_RTOL = 1e-12
_EPS = float(np.finfo(np.float64).eps)


class FilterHaltedError(RuntimeError):
    """Raised when a halted filter is asked to accept another mechanism.

    Examples
    --------
    >>> from ldp.accounting import FilterHaltedError, PrivacyFilter
    >>> pf = PrivacyFilter(1.0)
    >>> pf.request(2.0), pf.halted
    (False, True)
    >>> try:
    ...     pf.request(0.1)
    ... except FilterHaltedError as error:
    ...     print(error)
    the filter has halted; no further mechanism may run
    """


def _mu_of(mechanism: object) -> float:
    if isinstance(mechanism, bool):
        raise TypeError("mechanism must be a mu, a Channel or a TradeOffFunction, got a bool")
    if isinstance(mechanism, (int, float, np.floating, np.integer)):
        return check_scalar(mechanism, "mu", low=0.0, allow_inf=True)
    if isinstance(mechanism, Channel):
        return get_mu_from_tradeoff(tradeoff_from_channel(mechanism))
    if isinstance(mechanism, TradeOffFunction):
        if mechanism.approx:
            raise ValueError("an approximate trade-off curve is not a guarantee; refused")
        level = mechanism.gdp_level()
        if level is not None:
            return level
    mu = getattr(mechanism, "mu", None)
    if isinstance(mu, float) and getattr(mechanism, "exact", False):
        return check_scalar(mu, "mu", low=0.0, allow_inf=True)
    raise TypeError(
        "mechanism must be a GDP mu, a Channel, a GaussianTradeOff or a piecewise-linear "
        f"trade-off curve, got {type(mechanism).__name__}"
    )


class PrivacyFilter:
    """The GDP privacy filter: ``continue iff sum mu_i^2 <= mu_budget^2`` (valid, adaptive).

    Parameters
    ----------
    mu_budget : float
        Total GDP budget ``mu_B >= 0`` (``inf`` never halts).
    halt_on_refusal : bool, default True
        Algorithm 1 semantics: the first refusal halts the filter and further requests raise
        :class:`FilterHaltedError`. With ``False`` a refused mechanism is skipped and cheaper
        ones may still be accepted (sound for the GDP filter: a skipped step is ``Id``).

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.accounting import PrivacyFilter
    >>> pf = PrivacyFilter(1.0)
    >>> pf.request(0.6), pf.request(0.8)       # 0.36 + 0.64 = 1: exactly the budget
    (True, True)
    >>> pf.request(0.1), pf.halted
    (False, True)
    >>> pf2 = PrivacyFilter(2.0)
    >>> pf2.request(randomized_response(1.0)), round(pf2.remaining_mu, 6)
    (True, 1.575465)
    """

    def __init__(self, mu_budget: float, *, halt_on_refusal: bool = True) -> None:
        self.mu_budget = check_scalar(mu_budget, "mu_budget", low=0.0, allow_inf=True)
        self.halt_on_refusal = bool(halt_on_refusal)
        self._spent = 0.0  # an upper bound on sum mu_i^2 (rounded up at every step)
        self.history: list[float] = []
        self.halted = False

    def cost(self, mechanism: object) -> float:
        """The GDP ``mu`` charged for ``mechanism`` (without recording it)."""
        return _mu_of(mechanism)

    def _fits(self, mu: float) -> bool:
        if mu == 0.0 or math.isinf(self.mu_budget):
            return True
        square = mu * mu
        total = self._spent + square
        budget = self.mu_budget**2
        if total <= budget:
            return True
        # a request landing on the budget up to rounding is accepted (0.6 and 0.8 fill 1.0),
        # but a request that is itself below the rounding slack never is: once the budget is
        # spent, every positive request is refused
        return square > _RTOL * budget and total <= budget * (1.0 + _RTOL)

    def would_accept(self, mechanism: object) -> bool:
        """Whether :meth:`request` would accept ``mechanism`` now."""
        return self._fits(_mu_of(mechanism))

    def request(self, mechanism: object) -> bool:
        """Accept and record ``mechanism`` if it fits the budget; otherwise refuse it.

        Returns ``True`` when accepted (the caller may run it), ``False`` when refused (the
        caller must not run it). A mechanism with ``mu = 0`` (releasing nothing) always fits;
        once the budget is spent every mechanism with ``mu > 0`` is refused.
        """
        if self.halted:
            raise FilterHaltedError("the filter has halted; no further mechanism may run")
        mu = _mu_of(mechanism)
        if self._fits(mu):
            if mu > 0.0:
                self._spent = (self._spent + mu * mu) * (1.0 + 2.0 * _EPS)
            self.history.append(mu)
            return True
        if self.halt_on_refusal:
            self.halted = True
        return False

    @property
    def spent_mu(self) -> float:
        """``sqrt(sum mu_i^2)`` of the accepted mechanisms (rounded up)."""
        return math.sqrt(self._spent) * (1.0 + _EPS)

    @property
    def remaining_mu(self) -> float:
        """The largest ``mu`` the next mechanism may have: ``sqrt(mu_B^2 - sum mu_i^2)``."""
        if math.isinf(self.mu_budget):
            return math.inf
        return math.sqrt(max(0.0, self.mu_budget**2 - self._spent))

    def guarantee(self) -> GaussianTradeOff:
        """The guarantee of everything released: ``G_mu`` with ``mu = mu_budget``.

        Valid under full adaptivity. When the accepted requests fill the budget up to
        rounding (``0.6`` and ``0.8`` in ``1.0``), ``mu`` is their rounded-up total
        ``sqrt(sum mu_i^2)`` if that is larger, so the guarantee always covers what ran.
        """
        if math.isinf(self.mu_budget):
            return GaussianTradeOff(self.mu_budget)
        return GaussianTradeOff(max(self.mu_budget, self.spent_mu if self._spent else 0.0))

    def __repr__(self) -> str:
        return (
            f"PrivacyFilter(mu_budget={self.mu_budget!r}; spent {self.spent_mu:.6g}, "
            f"{len(self.history)} accepted{', halted' if self.halted else ''})"
        )


class InvalidFilterError(TypeError):
    """Raised when the natural f-DP filter is asked to run outside a family where it is valid.

    Examples
    --------
    >>> from ldp.accounting import InvalidFilterError
    >>> issubclass(InvalidFilterError, TypeError)
    True
    """
