"""The running statistic of a protocol as text a database keeps, and back.

The decoders' statistics (:class:`~ldp.mechanisms.SupportCounts`,
:class:`~ldp.mechanisms.MeanSums`, :class:`~ldp.mechanisms.SketchCounts`) are frozen
dataclasses of integers, strings and numpy arrays; they are written as JSON with every
array's dtype and shape, so that reading gives back an equal statistic (integers exactly,
floats to the bit: JSON floats are written by ``repr``). A marginals protocol's statistic
(:class:`~ldp.collector.marginals.GroupCounts`) is the list of its groups' statistics.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from ldp.collector.marginals import GroupCounts
from ldp.mechanisms import MeanSums, SketchCounts, SupportCounts

__all__ = ["STATISTICS", "dump_statistic", "load_statistic"]

#: The statistic classes a store keeps, by name.
STATISTICS: dict[str, type] = {cls.__name__: cls for cls in (SupportCounts, MeanSums, SketchCounts)}


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        kind = "int64" if value.dtype.kind in "iu" else "float64"
        return {
            "dtype": kind,
            "shape": list(value.shape),
            "data": value.astype(kind).ravel().tolist(),
        }
    if isinstance(value, np.generic):
        return value.item()
    return value


def dump_statistic(statistic: Any) -> str:
    """``statistic`` as JSON text.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.collector.statistics import dump_statistic, load_statistic
    >>> from ldp.mechanisms import GRR
    >>> statistic = GRR(3, 1.0).aggregate(np.array([0, 2, 2]))
    >>> text = dump_statistic(statistic)
    >>> load_statistic(text).counts.tolist(), load_statistic(text).n
    ([1, 0, 2], 3)
    """
    name = type(statistic).__name__
    if isinstance(statistic, GroupCounts):
        groups = [json.loads(dump_statistic(group)) for group in statistic.groups]
        return json.dumps({"type": name, "groups": groups}, separators=(",", ":"))
    cls = STATISTICS.get(name)
    if cls is None or cls is not type(statistic):
        raise TypeError(f"a store keeps {sorted(STATISTICS)}, not {name}")
    fields = {f.name: _plain(getattr(statistic, f.name)) for f in dataclasses.fields(cls)}
    return json.dumps({"type": name, "fields": fields}, separators=(",", ":"))


def load_statistic(text: str) -> Any:
    """The statistic written by :func:`dump_statistic` (checked by its class)."""
    try:
        document = json.loads(text)
        if document["type"] == GroupCounts.__name__:
            groups = tuple(_from_plain(group) for group in document["groups"])
            if not groups or not all(isinstance(group, SupportCounts) for group in groups):
                raise TypeError("the groups' statistics are SupportCounts")
            return GroupCounts(groups)
        return _from_plain(document)
    except (KeyError, TypeError, ValueError, json.JSONDecodeError):
        raise ValueError("the store holds a statistic it cannot read (damaged row)") from None


def _from_plain(document: Any) -> Any:
    cls = STATISTICS[document["type"]]
    fields = {}
    for name, value in document["fields"].items():
        if isinstance(value, dict):
            value = np.array(value["data"], dtype=value["dtype"]).reshape(value["shape"])
        fields[name] = value
    return cls(**fields)
