"""The privatization protocol of a table: one mechanism per column, a budget rule, a wire format.

**Budget.** ``"split"``: every row reports every column, each with ``epsilon / d`` (``d``
informative columns); by basic composition the row is ``sum_j eps_j``-LDP. ``"sample"``: every
row reports one column drawn uniformly at random (independently of the data) at the full
``epsilon``; the row's output is ``(J, Y_J)``, whose likelihood ratio between two rows is at
most ``max_j e^{eps_j}``, so the row is ``max_j eps_j``-LDP. The totals are computed from the
mechanisms' exact ``epsilon`` (recomputed from their output probabilities), not copied from
the argument.

**Wire format (the report table).** A float64 array with one block of columns per informative
column, in column order: GRR and Hadamard response write the report index (1 column), unary
encoding and subset selection the ``ceil(k/8)`` bytes of the bit-packed vector, local hashing
each int64 hash word as two 31-bit halves and then the bucket, Duchi the sign, the other mean
mechanisms the released float. Every value is exact in float64. With ``budget="sample"`` the
blocks of the columns a row did not report are NaN.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from estimators._schema import CATEGORICAL, NUMERIC, Column
from ldp.mechanisms import (
    FREQUENCY_ORACLES,
    Duchi,
    FrequencyOracle,
    Hybrid,
    Laplace,
    LocalHashing,
    MeanMechanism,
    MeanSums,
    Piecewise,
    SquareWave,
    SubsetSelection,
    SupportCounts,
    UnaryEncoding,
    recommend,
)

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

Mechanism = FrequencyOracle | MeanMechanism


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
) -> list[Mechanism | None]:
    """One mechanism per column (``None`` for a single-category column) under ``budget``."""
    names = _mechanism_names(mechanism, columns)
    informative = sum(c.informative for c in columns)
    per_column = epsilon / informative if budget == "split" and informative else epsilon
    out: list[Mechanism | None] = []
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
    for table in (FREQUENCY_MECHANISMS, MEAN_MECHANISMS):
        for name, cls in table.items():
            if type(mechanism) is cls:
                return name
    return type(mechanism).__name__


def to_unit(mechanism: Mechanism, scaled: np.ndarray) -> np.ndarray:
    """Values in ``[-1, 1]`` mapped to the mechanism's input domain (``[0, 1]`` for SW)."""
    if isinstance(mechanism, SquareWave):
        return np.clip((scaled + 1.0) / 2.0, 0.0, 1.0)
    return scaled


def unit_scale(mechanism: Mechanism, bounds: tuple[float, float]) -> tuple[float, float]:
    """``(offset, slope)`` mapping the mechanism's domain back to ``bounds``."""
    low, high = bounds
    if isinstance(mechanism, SquareWave):
        return low, high - low
    return (low + high) / 2.0, (high - low) / 2.0


# ----------------------------------------------------------------------------- wire format
_HALF = 31
_HALF_MASK = (1 << _HALF) - 1


def report_width(mechanism: Mechanism | None) -> int:
    if mechanism is None:
        return 0
    if isinstance(mechanism, (UnaryEncoding, SubsetSelection)):
        return (mechanism.k + 7) // 8
    if isinstance(mechanism, LocalHashing):
        return 2 * mechanism._packing.n_words + 1
    return 1


def encode_reports(mechanism: Mechanism, reports: np.ndarray) -> np.ndarray:
    """Native reports -> a float64 block ``(n, report_width)``."""
    arr = np.asarray(reports)
    if isinstance(mechanism, LocalHashing):
        words = arr[:, :-1].astype(np.int64)
        halves = np.empty((arr.shape[0], 2 * words.shape[1]), dtype=np.int64)
        halves[:, 0::2] = words >> _HALF
        halves[:, 1::2] = words & _HALF_MASK
        return np.column_stack([halves, arr[:, -1]]).astype(np.float64)
    return arr.reshape(arr.shape[0], report_width(mechanism)).astype(np.float64)


def _whole(block: np.ndarray, name: str, low: float, high: float) -> np.ndarray:
    if not np.all(block == np.round(block)) or (
        block.size and (block.min() < low or block.max() > high)
    ):
        raise ValueError(
            f"reports of column {name!r} are not reports of this column's mechanism (expected "
            f"whole numbers in [{low:g}, {high:g}]); were they made with other parameters?"
        )
    return block.astype(np.int64)


def decode_reports(mechanism: Mechanism, block: np.ndarray, name: str) -> np.ndarray:
    """A float64 block (finite) -> the mechanism's native reports (range-checked later)."""
    if isinstance(mechanism, (UnaryEncoding, SubsetSelection)):
        return _whole(block, name, 0, 255).astype(np.uint8)
    if isinstance(mechanism, LocalHashing):
        halves = _whole(block[:, :-1], name, 0, _HALF_MASK)
        words = (halves[:, 0::2] << _HALF) | halves[:, 1::2]
        bucket = _whole(block[:, -1:], name, 0, np.iinfo(np.int64).max)
        return np.column_stack([words, bucket])
    if isinstance(mechanism, FrequencyOracle):
        return _whole(block[:, 0], name, 0, np.iinfo(np.int64).max)
    if isinstance(mechanism, Duchi):
        return _whole(block[:, 0], name, -1, 1).astype(np.int8)
    return block[:, 0]


def aggregate_block(mechanism: Mechanism, block: np.ndarray, name: str) -> SupportCounts | MeanSums:
    """The mergeable statistic of one column's reports, errors prefixed by the column."""
    native = decode_reports(mechanism, block, name)
    try:
        return mechanism.aggregate(native)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"reports of column {name!r}: {exc}") from None


def decoded_square_sum(mechanism: MeanMechanism, block: np.ndarray, name: str) -> float:
    """Sum of the squared per-user decoded values of one numeric column's reports."""
    native = decode_reports(mechanism, block, name)
    try:
        decoded = mechanism.decode(native)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"reports of column {name!r}: {exc}") from None
    return float(np.sum(decoded**2))


def empty_statistic(mechanism: Mechanism) -> SupportCounts | MeanSums:
    if isinstance(mechanism, FrequencyOracle):
        return SupportCounts(np.zeros(mechanism.k, dtype=np.int64), 0, mechanism._key())
    return MeanSums(np.zeros(()), 0, mechanism._key())
