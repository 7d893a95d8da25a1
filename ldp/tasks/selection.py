"""Choose a frequency oracle by its exact variance, its cost and its report size."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ldp._validation import check_epsilon, check_integer, check_scalar, describe
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.categorical.grr import GRR
from ldp.mechanisms.categorical.hadamard import HadamardResponse
from ldp.mechanisms.categorical.local_hashing import BLH, OLH
from ldp.mechanisms.categorical.subset import SubsetSelection
from ldp.mechanisms.categorical.unary import OUE, SUE
from ldp.mechanisms.limits import MAX_STATISTIC_ENTRIES
from ldp.mechanisms.sketches.sketch import CMS, HCMS, MAX_DEPTH, CountMeanSketch

__all__ = [
    "FREQUENCY_ORACLES",
    "SKETCHES",
    "VARIANCE_TOLERANCE",
    "Recommendation",
    "recommend",
    "sketch_shape",
    "work_per_report",
]

#: The frequency oracles by short name (one registry for recommend, the estimators and the CLI):
#: each builds the oracle from ``(k, epsilon)``.
FREQUENCY_ORACLES: Mapping[str, Callable[..., FrequencyOracle]] = {
    "GRR": GRR,
    "SUE": SUE,
    "OUE": OUE,
    "OLH": OLH,
    "BLH": BLH,
    "HR": HadamardResponse,
    "SS": SubsetSelection,
}

#: The sketches for items of an open or huge domain, by registry name (``recommend`` with
#: ``k=None`` or ``k`` beyond what a frequency oracle's server can decode).
SKETCHES: Mapping[str, type[CountMeanSketch]] = {"cms": CMS, "hcms": HCMS}


#: Default relative tolerance on the variance: a cheaper oracle within it is preferred.
VARIANCE_TOLERANCE = 0.05


def work_per_report(mechanism: FrequencyOracle | CountMeanSketch) -> float:
    """An approximate count of elementary operations per report, client and server.

    The model behind ``recommend``'s cost-aware choice (measured in ``benchmarks/``, not a
    guarantee): one random draw or table update costs 1. GRR and Hadamard response draw a
    coin and an index; local hashing draws its hash words and evaluates the hash, and the
    server scatters into ``g`` buckets (``k`` values for hash families over a ring, decoded in
    ``O(n k)``); unary encoding draws ``k`` coins and the server counts ``k`` bits; subset
    selection draws ``d`` members and the server counts ``k`` bits; a sketch hashes the item
    once and draws its row, then the bits (CMS) or one sign (HCMS).

    Examples
    --------
    >>> from ldp.mechanisms import CMS, GRR
    >>> from ldp.tasks.selection import work_per_report
    >>> work_per_report(GRR(4, 1.0)), work_per_report(CMS(1.0, width=16))
    (2.0, 35.0)
    """
    return mechanism.work_per_report


@dataclass(frozen=True)
class Recommendation:
    """The chosen oracle, why, and the table it was chosen from (what :func:`recommend`
    returns; printing it shows the table).

    Parameters
    ----------
    mechanism : FrequencyOracle or CountMeanSketch
        The chosen oracle (a sketch for an open or huge domain).
    reason : str
        Sentences naming the criterion, the runner-up and what the choice saves.
    table : tuple of (name, variance, report_bits, admissible, work)
        Every candidate: ``variance`` is the fixed-data variance of one frequency estimate at
        ``f = 0`` for ``n`` users (per user if ``n`` is None); ``work`` the approximate
        operations per report (``work_per_report``).

    Examples
    --------
    >>> from ldp.tasks import recommend
    >>> choice = recommend(4, 1.0, candidates=("GRR", "OUE"))
    >>> print(choice)  # doctest: +NORMALIZE_WHITESPACE
    GRR has the smallest fixed-data variance at f -> 0, 1.59807 per user (divide by n);
    runner-up OUE at 3.68269 (2.304x). GRR beats OUE iff k < 3e^eps + 2 = 10.15.
    oracle     variance     bits     work
    GRR         1.59807      2.0        2
    OUE         3.68269      4.0        8
    """

    mechanism: FrequencyOracle | CountMeanSketch
    reason: str
    table: tuple[tuple[str, float, float, bool, float], ...]

    def __str__(self) -> str:
        lines = [self.reason, f"{'oracle':<6} {'variance':>12} {'bits':>8} {'work':>8}"]
        for name, var, bits, ok, work in self.table:
            mark = "" if ok else "  (over the communication budget)"
            lines.append(f"{name:<6} {var:12.6g} {bits:8.1f} {work:8.0f}{mark}")
        return "\n".join(lines)


def _noise_per_user(cls: type[CountMeanSketch], epsilon: float) -> float:
    """The sketch's noise variance per user at ``f -> 0`` (one row: no collision term; a
    wide sketch: the ``r^2`` factor and HCMS's ``1/m`` vanish)."""
    width = 1 << 20
    return float(cls(epsilon, width=width, depth=1).variance(1)) * (1 - 1 / width) ** 2


def sketch_shape(
    cls: type[CountMeanSketch], epsilon: float, n: int | None = None
) -> tuple[int, int]:
    """``(width, depth)`` of a sketch for ``n`` users at ``epsilon``.

    ``width``: the smallest power of two ``>= 16`` at which the sketch costs at most 5% over
    its noise variance per user ``V``: ``(r^2 - 1) V + 1 / (width - 1) <= 0.05 V`` with
    ``r = width / (width - 1)`` (the estimator's scale and the collisions of thinly spread
    data).
    ``depth``: the smallest power of two with ``1 / (depth (width - 1)) <= V / n``, so that
    the collisions of even the most concentrated data (``sum f(x)^2 <= 1``) add at most the
    noise variance; capped by ``65536`` and by ``MAX_STATISTIC_ENTRIES / width``; ``16`` when
    ``n`` is not given.

    Parameters
    ----------
    cls : type
        :class:`~ldp.mechanisms.CMS` or :class:`~ldp.mechanisms.HCMS`.
    epsilon : float
        Privacy level.
    n : int, optional
        Number of users.

    Returns
    -------
    (int, int)

    Examples
    --------
    >>> from ldp.mechanisms import CMS
    >>> from ldp.tasks.selection import sketch_shape
    >>> sketch_shape(CMS, 4.0, 10**6)
    (256, 32768)
    """
    noise = _noise_per_user(cls, epsilon)
    width = 16
    while ((width / (width - 1)) ** 2 - 1) * noise + 1.0 / (width - 1) > 0.05 * noise:
        width *= 2
    cap = min(MAX_DEPTH, MAX_STATISTIC_ENTRIES // width)
    if n is None:
        return width, min(16, cap)
    depth = 1
    while depth < cap and n / (depth * (width - 1)) > noise:
        depth *= 2
    return width, depth


def _recommend_sketch(
    eps: float, n: int | None, budget: float, names: tuple[str, ...], slack: float
) -> Recommendation:
    unknown = [c for c in names if c not in SKETCHES]
    if unknown or not names:
        raise ValueError(
            f"for an open or huge domain the candidates are the sketches {tuple(SKETCHES)}, "
            f"got {names!r}"
        )
    users = 1 if n is None else n
    rows, built = [], {}
    for name in names:
        cls = SKETCHES[name]
        width, depth = sketch_shape(cls, eps, n)
        mech = cls(eps, width=width, depth=depth)
        built[name] = mech
        ok = mech.report_bits <= budget + 1e-9
        var = float(mech.variance(users))
        rows.append((name, var, mech.report_bits, ok, work_per_report(mech)))
    admissible = [r for r in rows if r[3]]
    if not admissible:
        raise ValueError(
            f"no sketch fits the communication budget; smallest report is "
            f"{min(r[2] for r in rows):.1f} bits"
        )
    lowest = min(admissible, key=lambda r: (r[1], r[2]))
    near = [r for r in admissible if r[1] <= lowest[1] * (1.0 + slack)]
    best = min(near, key=lambda r: (r[4], r[2], r[1]))
    mech = built[best[0]]
    per = f" for n = {users}" if n is not None else " per user (divide by n)"
    reason = (
        f"the domain is open or too large to decode value by value: a count-mean sketch. "
        f"{best[0]} (width {mech.width}, depth {mech.depth}) has variance {best[1]:.6g}{per} "
        "at f -> 0 with thinly spread data"
    )
    if best is not lowest:
        reason += f", within {slack:.0%} of {lowest[0]} with smaller reports"
    if n is None:
        reason += "; give n to size the depth against heavy items"
    return Recommendation(mech, reason + ".", tuple(rows))


def recommend(
    k: int | None,
    epsilon: float,
    n: int | None = None,
    communication: float | None = None,
    candidates: tuple[str, ...] | None = None,
    tolerance: float = VARIANCE_TOLERANCE,
) -> Recommendation:
    """The frequency oracle to use for ``k`` values at ``epsilon``: smallest variance, unless
    a much cheaper one is almost as accurate.

    The accuracy criterion is the fixed-data variance of one frequency estimate at
    ``f -> 0`` (:meth:`~ldp.mechanisms.FrequencyOracle.variance` with ``f=None``), the
    comparison of Wang-Blocki-Li-Jha (2017): with it GRR beats OUE iff ``k < 3 e^eps + 2``.
    Among the candidates whose variance is within ``tolerance`` (relative) of the smallest, the
    one with the least work per report (``work_per_report``), then the smallest report,
    is chosen: subset selection's 0.5-5% gain over local hashing at ``k >= 64`` costs tens of
    times the computation and the report size. ``tolerance=0`` chooses by variance alone.

    An open domain (``k=None``: strings of unknown range) or one too large for a server to
    decode value by value (``k`` above ``MAX_STATISTIC_ENTRIES``) gets a count-mean sketch
    instead (:class:`~ldp.mechanisms.CMS` or :class:`~ldp.mechanisms.HCMS`, sized by
    ``sketch_shape``), chosen by the same rule among ``SKETCHES``.

    Parameters
    ----------
    k : int or None
        Number of values; ``None`` for an open domain of items.
    epsilon : float
        Privacy level, ``> 0``.
    n : int, optional
        Number of users; only scales the variances shown.
    communication : float, optional
        Largest admissible ``report_bits`` (``log2`` of the number of possible reports).
    candidates : tuple of str, optional
        Subset of ``("GRR", "SUE", "OUE", "OLH", "BLH", "HR", "SS")``.
    tolerance : float, default 0.05
        Relative variance a cheaper oracle may give up.

    Returns
    -------
    Recommendation
        The chosen oracle (``mechanism``), the reason, and the table of every candidate.

    Examples
    --------
    >>> from ldp.tasks import recommend
    >>> recommend(8, 1.0, candidates=("GRR", "OUE")).mechanism   # 8 < 3e + 2
    GRR(k=8, epsilon=1.0)
    >>> recommend(1024, 1.0).mechanism   # SS is 1.4% better at ~70 times the work
    OLH(k=1024, epsilon=1.0, g=4)
    >>> recommend(1024, 1.0, tolerance=0).mechanism.name
    'SS'
    >>> recommend(None, 4.0, n=10**6).mechanism   # an open domain of strings
    cms(epsilon=4.0, width=256, depth=32768, salt='')
    """
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    users = 1 if n is None else check_integer(n, "n", low=1)
    budget = math.inf if communication is None else check_scalar(communication, "communication")
    slack = check_scalar(tolerance, "tolerance", low=0.0)
    if k is None or check_integer(k, "k", low=2) > MAX_STATISTIC_ENTRIES:
        names = tuple(SKETCHES) if candidates is None else tuple(candidates)
        return _recommend_sketch(eps, n, budget, names, slack)
    size = check_integer(k, "k", low=2)
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
        ok = mech.report_bits <= budget + 1e-9
        rows.append((name, var, mech.report_bits, ok, work_per_report(mech)))
    admissible = [r for r in rows if r[3]]
    if not admissible:
        raise ValueError(
            f"no candidate fits communication={describe(communication)} bits; smallest report is "
            f"{min(r[2] for r in rows):.1f} bits"
        )
    by_variance = sorted(admissible, key=lambda r: (r[1], r[2]))
    lowest = by_variance[0]
    near = [r for r in admissible if r[1] <= lowest[1] * (1.0 + slack)]
    best = min(near, key=lambda r: (r[4], r[2], r[1]))
    per = f" for n = {users}" if n is not None else " per user (divide by n)"
    if best is lowest:
        reason = f"{best[0]} has the smallest fixed-data variance at f -> 0, {best[1]:.6g}{per}"
        if len(by_variance) > 1:
            second = by_variance[1]
            reason += f"; runner-up {second[0]} at {second[1]:.6g} ({second[1] / best[1]:.3f}x)"
    else:
        reason = (
            f"{best[0]} is chosen: its variance, {best[1]:.6g}{per}, is within "
            f"{slack:.0%} of the smallest ({lowest[0]}, {best[1] / lowest[1]:.3f}x) at "
            f"{lowest[4] / best[4]:.3g} times less work per report and "
            f"{lowest[2] / max(best[2], 1e-9):.3g} times smaller reports"
        )
    if communication is not None:
        reason += f"; candidates limited to reports of at most {communication:g} bits"
    reason += f". GRR beats OUE iff k < 3e^eps + 2 = {3 * math.exp(eps) + 2:.4g}."
    return Recommendation(built[best[0]], reason, tuple(rows))
