"""Estimators on a published protocol: the link between ``ldp.protocol`` and the estimators.

A protocol file fixes everything a device does (mechanism, domain, epsilon), so an estimator
given one (``protocol=``, or a ``Channel``/mechanism as ``mechanism=``) decodes exactly that
protocol's reports: it never picks a mechanism ("auto") or reads a domain from data, and its
report tables carry the protocol's fingerprint.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from estimators._schema import CATEGORICAL, NUMERIC, Column
from ldp.protocol import Protocol

__all__ = ["as_protocol", "protocol_column", "single_column_name", "single_column_values"]


def as_protocol(spec: object, kind: str) -> Protocol:
    """``spec`` (a Protocol, Channel, design result or mechanism) as a Protocol of ``kind``."""
    protocol = spec if isinstance(spec, Protocol) else Protocol.from_mechanism(spec)
    wanted = "categorical" if kind == CATEGORICAL else "interval"
    if protocol.kind != wanted:
        what = "categorical answers" if kind == CATEGORICAL else "numbers in an interval"
        raise ValueError(
            f"this estimator needs a protocol for {what}; got one for {protocol.describe_domain()}"
        )
    if protocol.kind == "interval" and getattr(protocol.mechanism.domain, "d", 1) != 1:
        raise ValueError("MeanEstimator decodes one number per report; this protocol has vectors")
    return protocol


def protocol_column(protocol: Protocol, name: str) -> Column:
    """The one column a protocol privatizes, with the protocol's public domain."""
    if protocol.kind == "categorical":
        labels = protocol.labels
        categories = (
            np.arange(protocol.k or 0) if labels is None else np.asarray(labels, dtype=object)
        )
        return Column(name, CATEGORICAL, categories=categories, source="declared")
    return Column(name, NUMERIC, bounds=protocol.bounds, source="declared")


def single_column_name(X: object) -> str | None:
    """The name (if any) of the one column of ``X``, from its metadata where it has some (a
    DataFrame's columns, a Series' name, an array's shape): fitting a published protocol
    reads no answer."""
    if isinstance(X, pd.DataFrame):
        if X.shape[1] != 1:
            raise ValueError(
                f"a protocol privatizes one answer per row; X has {X.shape[1]} columns"
            )
        return str(X.columns[0])
    if isinstance(X, pd.Series):
        return None if X.name is None else str(X.name)
    shape = getattr(X, "shape", None)
    if getattr(X, "dtype", None) is not None and isinstance(shape, tuple):
        if len(shape) == 1 or (len(shape) == 2 and shape[1] == 1):
            return None
        raise ValueError(f"a protocol privatizes one answer per row; X has shape {shape}")
    return single_column_values(X)[0]


def single_column_values(X: object) -> tuple[str | None, np.ndarray]:
    """The name (if any) and the values of the one column of ``X``; never echoes a value."""
    if isinstance(X, pd.DataFrame):
        if X.shape[1] != 1:
            raise ValueError(
                f"a protocol privatizes one answer per row; X has {X.shape[1]} columns"
            )
        return str(X.columns[0]), X.iloc[:, 0].to_numpy()
    if isinstance(X, pd.Series):
        return (None if X.name is None else str(X.name)), X.to_numpy()
    if isinstance(X, Mapping):
        raise TypeError("X must be a table with one column or a 1-D array of answers")
    arr = np.asarray(X, dtype=object)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"a protocol privatizes one answer per row; X has shape {arr.shape}")
    return None, arr
