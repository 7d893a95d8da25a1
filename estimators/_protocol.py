"""The privatization protocol of a table: one mechanism per column, a budget rule, a wire format.

**Budget.** ``"split"``: every row reports every column, each with ``epsilon / d`` (``d``
informative columns); by basic composition the row is ``sum_j eps_j``-LDP. ``"sample"``: every
row reports one column drawn uniformly at random (independently of the data) at the full
``epsilon``; the row's output is ``(J, Y_J)``, whose likelihood ratio between two rows is at
most ``max_j e^{eps_j}``, so the row is ``max_j eps_j``-LDP. The totals are computed from the
mechanisms' exact ``epsilon`` (recomputed from their output probabilities), not copied from
the argument.

**Wire format (the report table).** A float64 array with one block of columns per informative
column, in column order: each block holds the fields of the column's mechanism's report codec
(:attr:`ldp.core.Mechanism.codec`: the report index, the bytes of a bit-packed vector,
the hash words and the bucket, a sign, or the released float). Every field is an integer
below ``2^53`` or a double, so every value is exact in float64. With ``budget="sample"`` the
blocks of the columns a row did not report are NaN.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from estimators._schema import CATEGORICAL, NUMERIC, Column
from ldp.mechanisms import (
    Duchi,
    FrequencyMechanism,
    Hybrid,
    Interval,
    Laplace,
    MeanMechanism,
    MeanSums,
    Piecewise,
    SquareWave,
    SupportCounts,
)
from ldp.tasks import FREQUENCY_ORACLES, recommend

FREQUENCY_MECHANISMS = FREQUENCY_ORACLES
MEAN_MECHANISMS = {
    "Duchi": Duchi,
    "Laplace": Laplace,
    "Piecewise": Piecewise,
    "Hybrid": Hybrid,
    "SquareWave": SquareWave,
}
#: candidates of ``mechanism="auto"`` for numeric columns (SquareWave is for distributions)
AUTO_MEAN = ("Duchi", "Piecewise", "Hybrid", "Laplace")
BUDGETS = ("split", "sample")

Mechanism = FrequencyMechanism | MeanMechanism


def check_budget(budget: object) -> str:
    if budget not in BUDGETS:
        raise ValueError(f"budget must be 'split' or 'sample', got {budget!r}")
    return str(budget)


def _mechanism_names(mechanism: object, columns: list[Column]) -> list[str]:
    """The mechanism name of each column (``"auto"`` left for :func:`build_mechanisms`)."""
    known = {**FREQUENCY_MECHANISMS, **MEAN_MECHANISMS}
    if isinstance(mechanism, str):
        if mechanism != "auto" and mechanism not in known:
            raise ValueError(
                f"mechanism must be 'auto', one of {sorted(known)} or a dict mapping column "
                f"names to those, got {mechanism!r}"
            )
        per_column = {}
        for c in columns:
            fits = mechanism in (FREQUENCY_MECHANISMS if c.kind == CATEGORICAL else MEAN_MECHANISMS)
            per_column[c.name] = mechanism if fits else "auto"
        if mechanism != "auto" and not any(v == mechanism for v in per_column.values()):
            kind = NUMERIC if mechanism in MEAN_MECHANISMS else CATEGORICAL
            raise ValueError(f"mechanism {mechanism!r} is for {kind} columns; X has none")
    elif isinstance(mechanism, Mapping):
        names = [c.name for c in columns]
        unknown = [str(k) for k in mechanism if str(k) not in names]
        if unknown:
            raise ValueError(f"mechanism names column(s) {unknown} that are not in X")
        per_column = {c.name: "auto" for c in columns}
        for key, value in mechanism.items():
            per_column[str(key)] = value
    else:
        raise TypeError(f"mechanism must be a string or a dict, got {type(mechanism).__name__}")
    out = []
    for c in columns:
        name = per_column[c.name]
        allowed = FREQUENCY_MECHANISMS if c.kind == CATEGORICAL else MEAN_MECHANISMS
        if name != "auto" and name not in allowed:
            raise ValueError(
                f"mechanism for {c.kind} column {c.name!r} must be 'auto' or one of "
                f"{sorted(allowed)}, got {name!r}"
            )
        out.append(name)
    return out


def _auto_mean(epsilon: float) -> MeanMechanism:
    """The mean mechanism with the smallest worst-case variance on ``[-1, 1]``."""
    built = [MEAN_MECHANISMS[name](epsilon) for name in AUTO_MEAN]
    return min(built, key=lambda m: m.worst_case_variance())


def build_mechanisms(
    columns: list[Column], epsilon: float, mechanism: object, budget: str
) -> list[Any]:
    """One mechanism per column (``None`` for a single-category column) under ``budget``."""
    names = _mechanism_names(mechanism, columns)
    informative = sum(c.informative for c in columns)
    per_column = epsilon / informative if budget == "split" and informative else epsilon
    out: list[Any] = []
    for c, name in zip(columns, names):
        if not c.informative:
            out.append(None)
        elif c.kind == CATEGORICAL:
            if name == "auto":
                out.append(recommend(c.k, per_column).mechanism)
            else:
                out.append(FREQUENCY_MECHANISMS[name](c.k, per_column))
        else:
            out.append(
                _auto_mean(per_column) if name == "auto" else MEAN_MECHANISMS[name](per_column)
            )
    return out


def total_epsilon(mechanisms: list[Mechanism | None], budget: str) -> float:
    """The row-level guarantee (module docstring): sum (split) or max (sample)."""
    levels = [m.epsilon for m in mechanisms if m is not None]
    if not levels:
        return 0.0
    return float(sum(levels)) if budget == "split" else float(max(levels))


def mechanism_name(mechanism: Mechanism) -> str:
    """The registry name of a mechanism (``"GRR"``, ``"Hybrid"``, ...)."""
    return mechanism.name


def to_unit(mechanism: Mechanism, scaled: np.ndarray) -> np.ndarray:
    """Values in ``[-1, 1]`` mapped affinely onto the mechanism's interval domain."""
    domain = mechanism.domain
    if not isinstance(domain, Interval) or (domain.low, domain.high) == (-1.0, 1.0):
        return scaled
    low, high = domain.low, domain.high
    return np.clip(low + (scaled + 1.0) / 2.0 * (high - low), low, high)


def unit_scale(mechanism: Mechanism, bounds: tuple[float, float]) -> tuple[float, float]:
    """``(offset, slope)`` mapping the mechanism's interval domain back to ``bounds``."""
    domain = mechanism.domain
    low, high = domain.low, domain.high  # type: ignore[union-attr]
    slope = (bounds[1] - bounds[0]) / (high - low)
    return bounds[0] - low * slope, slope


# ----------------------------------------------------------------------------- wire format
def report_width(mechanism: Mechanism | None) -> int:
    """Columns of a mechanism's block in the report table (its codec's fields)."""
    return 0 if mechanism is None else mechanism.codec.width


def encode_reports(mechanism: Any, reports: np.ndarray) -> np.ndarray:
    """Native reports -> a float64 block ``(n, report_width)`` (every field is exact)."""
    return mechanism.codec.to_rows(reports).astype(np.float64)


def _column_errors(name: str):
    """Run a decoding step with errors prefixed by the column's name."""

    class _Prefix:
        def __enter__(self):
            return self

        def __exit__(self, kind, exc, tb):
            if exc is not None and isinstance(exc, (TypeError, ValueError)):
                raise type(exc)(f"reports of column {name!r}: {exc}") from None
            return False

    return _Prefix()


def aggregate_block(mechanism: Mechanism, block: np.ndarray, name: str) -> SupportCounts | MeanSums:
    """The mergeable statistic of one column's reports, errors prefixed by the column."""
    with _column_errors(name):
        return mechanism.aggregate(block)


def decoded_square_sum(mechanism: MeanMechanism, block: np.ndarray, name: str) -> float:
    """Sum of the squared per-user decoded values of one numeric column's reports."""
    with _column_errors(name):
        decoded = mechanism.decode(block)
    return float(np.sum(decoded**2))


def empty_statistic(mechanism: Mechanism) -> SupportCounts | MeanSums:
    """The statistic of zero reports."""
    return mechanism.empty_statistic()
