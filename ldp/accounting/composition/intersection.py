r"""Composition of a mechanism known to satisfy several ``(eps_r, delta_r)`` guarantees.

A mechanism may be ``(eps_r, delta_r)``-DP for several ``r`` (a Gaussian is, for every
``eps``) while having one TV level ``eta``. Each guarantee gives a valid Theorem 2 bound of
Ghazi-Issa (2023) on the ``k``-fold composition, so the composition satisfies all of them:

.. math:: \delta'(\varepsilon') \le \min_r \delta'_{(\varepsilon_r, \delta_r, \eta)}(\varepsilon')

(Ghazi-Issa (2023), §VI-D, used with the Gaussian mechanism). An outer bound: it need not be
tight jointly.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldp._frozen import Frozen
from ldp._validation import check_integer, check_probability
from ldp.accounting.composition.exact import Composition, compose_eps_delta_eta
from ldp.accounting.curves import TradeOffFunction, get_tradeoff_from_profile
from ldp.accounting.curves._common import as_levels, out

__all__ = ["IntersectedComposition", "compose_eps_delta_eta_intersection"]


class IntersectedComposition(Frozen):
    """The ``k``-fold composition under several ``(eps_r, delta_r, eta)`` guarantees at once.

    Built by :func:`compose_eps_delta_eta_intersection`; ``delta(eps')`` is the smallest of
    the per-guarantee Theorem 2 profiles, ``epsilon_for_delta`` the smallest level.

    Parameters
    ----------
    parts : sequence of Composition
        One tight composition per guarantee.

    Attributes
    ----------
    parts : tuple of Composition
        The per-guarantee compositions.

    Examples
    --------
    >>> from ldp.accounting import compose_eps_delta_eta_intersection
    >>> c = compose_eps_delta_eta_intersection([0.5, 1.0], [0.1, 0.01], eta=0.3, k=3)
    >>> len(c.parts), round(c.delta(1.5), 6) <= round(c.parts[0].delta(1.5), 6)
    (2, True)
    """

    def __init__(self, parts) -> None:
        self.parts = tuple(parts)
        if not self.parts or not all(isinstance(p, Composition) for p in self.parts):
            raise TypeError("parts must be a non-empty sequence of Composition objects")

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """``min_r delta'_r(eps')`` for ``eps' >= 0`` (an upper bound on the true profile)."""
        e, scalar = as_levels(epsilon, "epsilon", low=0.0)
        values = np.min([np.asarray(p.delta(e), dtype=np.float64) for p in self.parts], axis=0)
        return out(values, scalar)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """Smallest ``eps' >= 0`` with ``delta(eps') <= delta``: ``min_r eps'_r(delta)``."""
        d, scalar = as_levels(delta, "delta", low=0.0, high=1.0)
        values = np.min(
            [np.asarray(p.epsilon_for_delta(d), dtype=np.float64) for p in self.parts], axis=0
        )
        return out(values, scalar)

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        """Synonym of :meth:`epsilon_for_delta`."""
        return self.epsilon_for_delta(delta)

    @property
    def tv(self) -> float:
        """``delta(0)``: a bound on the TV of the composed output laws."""
        return float(self.delta(0.0))

    @property
    def tradeoff(self) -> TradeOffFunction:
        """``max_j f_{eps_j, delta(eps_j)}`` over the lattice levels of every part."""
        levels = np.unique(
            np.concatenate([[0.0]] + [p.pld.levels for p in self.parts if p.pld is not None])
        )
        levels = levels[np.isfinite(levels) & (levels >= 0.0)]
        return get_tradeoff_from_profile(levels, self.delta(levels))

    def __repr__(self) -> str:
        return f"<IntersectedComposition of {len(self.parts)} guarantees>"


def compose_eps_delta_eta_intersection(
    epsilons: ArrayLike, deltas: ArrayLike, eta: float, k: int
) -> IntersectedComposition:
    r"""``k``-fold composition of a mechanism that is ``(eps_r, delta_r)``-DP for every ``r``
    and ``eta``-TV: the intersection of the Theorem 2 regions (Ghazi-Issa (2023), §VI-D).

    Parameters
    ----------
    epsilons, deltas : array_like
        The guarantees ``(eps_r, delta_r)``, 1-D of one length (or broadcastable).
    eta : float
        The mechanism's TV level, in ``[0, 1]``.
    k : int
        Number of compositions, ``>= 0``.

    Returns
    -------
    IntersectedComposition
        ``delta(eps')``, ``epsilon_for_delta(delta')``, ``tv`` and ``tradeoff``.

    Examples
    --------
    >>> from ldp.accounting import compose_eps_delta_eta_intersection, get_delta_from_gdp
    >>> from ldp.accounting import get_tv_from_gdp
    >>> mu = 1 / 1.3   # a Gaussian mechanism: (eps, delta_mu(eps))-DP for every eps
    >>> eps = [0.5, 1.0, 2.0]
    >>> c = compose_eps_delta_eta_intersection(eps, get_delta_from_gdp(mu, eps),
    ...                                        eta=get_tv_from_gdp(mu), k=4)
    >>> round(c.delta(2.0), 6)
    0.282372
    """
    e, _ = as_levels(epsilons, "epsilons", low=0.0)
    d, _ = as_levels(deltas, "deltas", low=0.0, high=1.0)
    try:
        e, d = np.broadcast_arrays(np.atleast_1d(e), np.atleast_1d(d))
    except ValueError:
        raise ValueError(
            f"epsilons and deltas must have one length, got {np.shape(e)} and {np.shape(d)}"
        ) from None
    if e.ndim != 1 or e.size == 0:
        raise ValueError(f"epsilons and deltas must be 1-D and non-empty, got shape {e.shape}")
    h = check_probability(eta, "eta")
    k = check_integer(k, "k", low=0)
    return IntersectedComposition(
        compose_eps_delta_eta(float(a), float(b), h, k) for a, b in zip(e, d)
    )
