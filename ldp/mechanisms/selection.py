"""Choose a frequency oracle by its exact variance (and, optionally, report size)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ldp._validation import _describe, check_integer, check_scalar
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.frequency import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    HadamardResponse,
    SubsetSelection,
)

__all__ = ["FREQUENCY_ORACLES", "Recommendation", "recommend"]

#: The frequency oracles by short name (one registry for recommend, the estimators and the CLI).
FREQUENCY_ORACLES = {
    "GRR": GRR,
    "SUE": SUE,
    "OUE": OUE,
    "OLH": OLH,
    "BLH": BLH,
    "HR": HadamardResponse,
    "SS": SubsetSelection,
}


@dataclass(frozen=True)
class Recommendation:
    """The chosen oracle, why, and the table it was chosen from.

    Attributes
    ----------
    mechanism : FrequencyOracle
        The oracle with the smallest variance among the admissible candidates.
    reason : str
        One sentence naming the criterion and the runner-up.
    table : tuple of (name, variance, report_bits, admissible)
        Every candidate: ``variance`` is the fixed-data variance of one frequency estimate at
        ``f = 0`` for ``n`` users (per user if ``n`` is None).
    """

    mechanism: FrequencyOracle
    reason: str
    table: tuple[tuple[str, float, float, bool], ...]

    def __str__(self) -> str:
        lines = [self.reason, f"{'oracle':<6} {'variance':>12} {'bits':>8}"]
        for name, var, bits, ok in self.table:
            mark = "" if ok else "  (over the communication budget)"
            lines.append(f"{name:<6} {var:12.6g} {bits:8.1f}{mark}")
        return "\n".join(lines)


def recommend(
    k: int,
    epsilon: float,
    n: int | None = None,
    communication: float | None = None,
    candidates: tuple[str, ...] | None = None,
) -> Recommendation:
    """The frequency oracle with the smallest exact variance for ``k`` values at ``epsilon``.

    The criterion is the fixed-data variance of one frequency estimate at ``f -> 0``
    (:meth:`~ldp.mechanisms.base.FrequencyOracle.variance` with ``f=None``), the comparison
    of Wang et al. (2017): with it GRR beats OUE iff ``k < 3 e^eps + 2``. Ties go to the
    smaller report.

    Parameters
    ----------
    k : int
        Number of values.
    epsilon : float
        Privacy level, ``> 0``.
    n : int, optional
        Number of users; only scales the variances shown.
    communication : float, optional
        Largest admissible ``report_bits`` (``log2`` of the number of possible reports).
    candidates : tuple of str, optional
        Subset of ``("GRR", "SUE", "OUE", "OLH", "BLH", "HR", "SS")``.

    Examples
    --------
    >>> from ldp.mechanisms import recommend
    >>> recommend(8, 1.0, candidates=("GRR", "OUE")).mechanism   # 8 < 3e + 2
    GRR(k=8, epsilon=1.0)
    >>> recommend(8, 1.0).mechanism
    SS(k=8, epsilon=1.0, d=2)
    >>> recommend(1024, 1.0, communication=24).mechanism
    OLH(k=1024, epsilon=1.0, g=4)
    """
    size = check_integer(k, "k", low=2)
    eps = check_scalar(epsilon, "epsilon", low=0.0, low_open=True)
    users = 1 if n is None else check_integer(n, "n", low=1)
    budget = math.inf if communication is None else check_scalar(communication, "communication")
    names = tuple(FREQUENCY_ORACLES) if candidates is None else tuple(candidates)
    unknown = [c for c in names if c not in FREQUENCY_ORACLES]
    if unknown or not names:
        raise ValueError(f"candidates must be among {tuple(FREQUENCY_ORACLES)}, got {candidates!r}")
    rows = []
    built = {}
    for name in names:
        mech = FREQUENCY_ORACLES[name](size, eps)
        built[name] = mech
        var = float(mech.variance(users))
        rows.append((name, var, mech.report_bits, mech.report_bits <= budget + 1e-9))
    admissible = sorted((r for r in rows if r[3]), key=lambda r: (r[1], r[2]))
    if not admissible:
        raise ValueError(
            f"no candidate fits communication={_describe(communication)} bits; smallest report is "
            f"{min(r[2] for r in rows):.1f} bits"
        )
    best = admissible[0]
    reason = f"{best[0]} has the smallest fixed-data variance at f -> 0, {best[1]:.6g}" + (
        f" for n = {users}" if n is not None else " per user (divide by n)"
    )
    if len(admissible) > 1:
        second = admissible[1]
        reason += f"; runner-up {second[0]} at {second[1]:.6g} ({second[1] / best[1]:.3f}x)"
    if communication is not None:
        reason += f"; candidates limited to reports of at most {communication:g} bits"
    reason += f". GRR beats OUE iff k < 3e^eps + 2 = {3 * math.exp(eps) + 2:.4g}."
    return Recommendation(built[best[0]], reason, tuple(rows))
