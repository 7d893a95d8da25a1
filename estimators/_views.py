"""The column lookup and collection identity behind the estimators' views for tests
(:class:`ldp.inference.CellEstimate`, :class:`ldp.inference.MeanSample`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted


def column_index(estimator: Any, column: object) -> int:
    """The position of ``column`` (a name or an index) among the fitted columns; ``None``
    when there is exactly one."""
    check_is_fitted(estimator)
    names = [c.name for c in estimator.columns_]
    if column is None:
        if len(names) != 1:
            raise ValueError(f"column must be given: the estimator has columns {names}")
        return 0
    if isinstance(column, str):
        if column not in names:
            raise ValueError(f"column {column!r} is not one of the fitted columns {names}")
        return names.index(column)
    if isinstance(column, (int, np.integer)) and not isinstance(column, (bool, np.bool_)):
        if not 0 <= column < len(names):
            raise ValueError(f"column {column!r} is out of range for {len(names)} columns")
        return int(column)
    if isinstance(column, (tuple, list)):
        raise TypeError(
            f"column must be one column's name or index, got {column!r}: "
            f"{type(estimator).__name__} estimates each column on its own and holds no joint "
            "table of several columns (MarginalEstimator estimates joint tables)"
        )
    raise TypeError(f"column must be a column name or index, got {type(column).__name__}")


def collection_id(estimator: Any, j: int) -> str:
    """Who collected column ``j``: the protocol's fingerprint (or the mechanism and the
    budget rule), the column's name and its public domain. Two samples compare only when
    they are equal."""
    column, mech = estimator.columns_[j], estimator.mechanisms_[j]
    protocol = getattr(estimator.privatizer_, "protocol_", None)
    if protocol is not None:
        head = f"protocol {protocol.fingerprint}"
    else:
        head = f"{mech.key}, budget {estimator.privatizer_.budget!r}"
    if column.categories is not None:
        domain = f"categories {[str(c) for c in column.categories]}"
    else:
        domain = f"bounds {column.bounds}"
    return f"{head}; column {column.name!r}; {domain}"
