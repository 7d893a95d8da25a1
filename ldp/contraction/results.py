"""Result objects of :mod:`ldp.contraction`: immutable, float-like values with provenance."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["BoundCandidate", "ContractionBound", "ContractionCoefficient"]


def _read_only(array: np.ndarray | None) -> np.ndarray | None:
    if array is None:
        return None
    out = np.array(array, dtype=np.float64)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class ContractionCoefficient:
    r"""The contraction coefficient of a channel, with what attains it.

    Parameters
    ----------
    value, kind, method, source, p0, p1, p, pair, gamma
        As the attributes below (results are made by :func:`ldp.contraction.coefficient`
        and :meth:`ldp.Channel.contraction`, rarely by hand).

    Attributes
    ----------
    value : float
        The coefficient (``float(result)`` gives it too).
    kind : str
        ``"tv"``, ``"hockey_stick"``, ``"chi2"``, ``"kl"``, ``"hellinger"`` or ``"f"``.
    method : str
        ``"exact"`` when a theorem reduces the supremum to the computation performed, or
        ``"lower estimate"`` for a numerical search that only certifies ``value <= eta``.
    source : str
        The theorem or algorithm behind the value.
    p0, p1 : ndarray or None
        For two-point suprema (TV, E_gamma, custom f): input distributions whose ratio
        ``D(p0 K || p1 K) / D(p0 || p1)`` attains ``value``.
    p : ndarray or None
        For chi2 / KL / Hellinger: the input distribution maximising
        :math:`\sigma_2^2(\mathrm{diag}(\sqrt p) K \mathrm{diag}(pK)^{-1/2})`; its support is
        a pair of inputs. When the supremum is approached only as ``p`` tends to a point mass
        (possible when rows have zeros), ``p`` is that limit.
    pair : tuple of int or None
        The two inputs ``(x, x')`` whose sub-channel attains the value.
    gamma : float or None
        The order of ``E_gamma`` for ``kind="hockey_stick"``.

    Examples
    --------
    >>> import math
    >>> from ldp import k_rr
    >>> c = k_rr(3, 1.0).contraction("kl")
    >>> c.kind, c.is_exact, c.pair
    ('kl', True, (0, 1))
    >>> math.isclose(float(c), (math.e - 1) ** 2 / ((math.e + 2) * (math.e + 1)))
    True
    >>> c.p  # the uniform input on the pair attains it
    array([0.5, 0.5, 0. ])
    """

    value: float
    kind: str
    method: str
    source: str
    p0: np.ndarray | None = None
    p1: np.ndarray | None = None
    p: np.ndarray | None = None
    pair: tuple[int, int] | None = None
    gamma: float | None = None

    def __post_init__(self) -> None:
        for name in ("p0", "p1", "p"):
            object.__setattr__(self, name, _read_only(getattr(self, name)))

    def __float__(self) -> float:
        return float(self.value)

    @property
    def is_exact(self) -> bool:
        """Whether ``value`` is the coefficient itself (not a lower estimate)."""
        return self.method == "exact"

    def __repr__(self) -> str:
        extra = "" if self.gamma is None else f", gamma={self.gamma:.6g}"
        return (
            f"ContractionCoefficient(kind={self.kind!r}{extra}, value={self.value:.10g}, "
            f"method={self.method!r}, pair={self.pair})"
        )


@dataclass(frozen=True)
class BoundCandidate:
    """One theorem bound on a contraction coefficient, with the parameters it used.

    Parameters
    ----------
    value : float
        The bound.
    theorem : str
        Author-year citation of the theorem (or the name of the argument) behind it.
    epsilon, delta, eta : float, optional
        The privacy parameters the bound was evaluated at.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.contraction import best_bound
    >>> first = best_bound(k_rr(3, 1.0), "kl").candidates[0]
    >>> first.theorem, round(float(first), 6) == round(k_rr(3, 1.0).tv, 6)
    ('Dobrushin (eta_f <= eta_TV)', True)
    """

    value: float
    theorem: str
    epsilon: float | None = None
    delta: float | None = None
    eta: float | None = None

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True, eq=False)
class ContractionBound:
    """The best theorem bound on ``eta_kind(K)``, and every bound that applied.

    Parameters
    ----------
    value, theorem, kind, candidates
        As the attributes below.
    gamma : float, optional
        The order of ``E_gamma`` for ``kind="hockey_stick"``.

    Attributes
    ----------
    value : float
        The smallest valid bound.
    theorem : str
        The theorem that gave it.
    kind : str
        The divergence bounded.
    candidates : tuple of BoundCandidate
        Every bound that applied, each with its value and the ``(epsilon, delta, eta)`` it
        used, in the order they were tried.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.contraction import best_bound
    >>> bound = best_bound(k_rr(3, 1.0), "kl")
    >>> bound.theorem
    'Ghazi-Issa (2023), Theorem 5'
    >>> bound.value >= k_rr(3, 1.0).contraction("kl").value - 1e-12  # a valid upper bound
    True
    >>> abs(bound.value - min(c.value for c in bound.candidates)) < 1e-12
    True
    """

    value: float
    theorem: str
    kind: str
    candidates: tuple[BoundCandidate, ...] = field(default_factory=tuple)
    gamma: float | None = None

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        return (
            f"ContractionBound(kind={self.kind!r}, value={self.value:.10g}, "
            f"theorem={self.theorem!r}, {len(self.candidates)} candidates)"
        )
