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
    """One theorem bound on a contraction coefficient, with the parameters it used."""

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
