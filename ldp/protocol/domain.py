"""The domain part of a protocol file: what a question's answers are, and their encoding.

A protocol's ``domain`` field says what a device privatizes: ``categorical`` (``k`` categories,
with optional labels), ``interval`` (numeric bounds and a dimension), ``ball`` (the radius of
a ball of vectors) or ``items`` (any string, bytes or integer, for a sketch). This module writes
that field from a mechanism (:func:`domain_document`), reads it back into the arguments of
:meth:`ldp.protocol.Protocol.from_mechanism` (:func:`domain_arguments`), and maps a device's
answers onto the mechanism's input (:func:`encode_values`). Answers outside the domain are
refused without being echoed (they are private).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._items import unique_items
from ldp._validation import check_scalar
from ldp.core import Ball, Categories, Interval, Items, Mechanism

__all__ = [
    "check_labels",
    "describe_domain",
    "domain_arguments",
    "domain_document",
    "encode_values",
    "json_label",
    "label_key",
]


def json_label(value: object, index: int) -> str | int | float | bool:
    """A category label as a JSON scalar (numpy scalars become Python ones)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"labels[{index}] must be finite, got {number!r}")
        return number
    raise TypeError(
        f"labels must be strings, numbers or booleans (JSON scalars), got "
        f"{type(value).__name__} at index {index}"
    )


def label_key(value: object) -> tuple[str, object]:
    """Labels match by kind and value: a boolean is not a number, ``1`` is ``1.0``."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, numbers.Real):
        return ("number", float(value))
    return ("string", value)


def check_labels(labels: object, k: int) -> list[str | int | float | bool]:
    """``labels`` as ``k`` distinct JSON scalars, or a ``TypeError``/``ValueError``.

    Examples
    --------
    >>> check_labels(["no", "yes", 1, True], 4)
    ['no', 'yes', 1, True]
    """
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence | np.ndarray):
        raise TypeError(f"labels must be a list of {k} labels, got {type(labels).__name__}")
    out = [json_label(v, i) for i, v in enumerate(labels)]
    if len(out) != k:
        raise ValueError(f"labels must have one entry per category (k = {k}), got {len(out)}")
    seen: dict[tuple[str, object], int] = {}
    for i, value in enumerate(out):
        key = label_key(value)
        if key in seen:
            raise ValueError(
                f"labels must be distinct: labels[{seen[key]}] and labels[{i}] are equal"
            )
        seen[key] = i
    return out


def domain_document(mechanism: Mechanism, labels: object, bounds: object) -> dict[str, Any]:
    """The ``domain`` field for ``mechanism``, with the labels or bounds of its question.

    Examples
    --------
    >>> from ldp.mechanisms import GRR
    >>> domain_document(GRR(2, 1.0), ["no", "yes"], None)
    {'type': 'categorical', 'k': 2, 'labels': ['no', 'yes']}
    """
    domain = mechanism.domain
    if isinstance(domain, Categories):
        if bounds is not None:
            raise ValueError("bounds apply to numeric mechanisms; give labels for categories")
        checked = None if labels is None else check_labels(labels, domain.k)
        return {"type": "categorical", "k": domain.k, "labels": checked}
    if isinstance(domain, Items):
        if labels is not None or bounds is not None:
            raise ValueError("a sketch privatizes any item: labels and bounds do not apply")
        return {"type": "items"}
    if labels is not None:
        raise ValueError("labels apply to categorical mechanisms; give bounds for numbers")
    if isinstance(domain, Interval):
        if bounds is None:
            low, high = domain.low, domain.high
        else:
            if not isinstance(bounds, Sequence) or isinstance(bounds, str) or len(bounds) != 2:
                raise TypeError(f"bounds must be a pair (low, high), got {bounds!r}")
            low = check_scalar(bounds[0], "bounds[0]")
            high = check_scalar(bounds[1], "bounds[1]")
            if not low < high:
                raise ValueError(f"bounds must have low < high, got ({low!r}, {high!r})")
        return {"type": "interval", "low": float(low), "high": float(high), "dimension": domain.d}
    if isinstance(domain, Ball):
        if bounds is not None:
            raise ValueError(
                "a ball's radius is the mechanism's own (DuchiL2(..., radius=)); bounds do not "
                "apply"
            )
        return {"type": "ball", "radius": float(domain.radius), "dimension": domain.d}
    raise TypeError(f"unsupported domain {domain!r}")  # pragma: no cover


def domain_arguments(domain: object, mechanism: Mechanism) -> dict[str, Any]:
    """The ``labels=``/``bounds=`` arguments a ``domain`` field was written from (a
    ``ValueError`` for a malformed field).

    Examples
    --------
    >>> from ldp.mechanisms import Laplace
    >>> field = {"type": "interval", "low": 0, "high": 9, "dimension": 1}
    >>> domain_arguments(field, Laplace(1.0))
    {'bounds': (0, 9)}
    """
    if not isinstance(domain, Mapping) or "type" not in domain:
        raise ValueError("the domain field must be an object with a 'type'")
    kind = domain["type"]
    if kind == "categorical":
        if set(domain) != {"type", "k", "labels"} or not (
            domain["labels"] is None or isinstance(domain["labels"], list)
        ):
            raise ValueError("a categorical domain has 'type', 'k' and 'labels' (a list or null)")
        return {"labels": domain["labels"]}
    if kind == "interval":
        if set(domain) != {"type", "low", "high", "dimension"}:
            raise ValueError("an interval domain has 'type', 'low', 'high' and 'dimension'")
        for key in ("low", "high"):
            if isinstance(domain[key], bool) or not isinstance(domain[key], (int, float)):
                raise ValueError(f"the domain's {key} must be a number")
        return {"bounds": (domain["low"], domain["high"])}
    if kind == "ball":
        if set(domain) != {"type", "radius", "dimension"}:
            raise ValueError("a ball domain has 'type', 'radius' and 'dimension'")
        return {}
    if kind == "items":
        if set(domain) != {"type"}:
            raise ValueError("an items domain has only 'type'")
        return {}
    raise ValueError(f"unknown domain type {kind!r}")


def _encode_labels(labels: list[Any], values: ArrayLike) -> np.ndarray:
    lookup = {label_key(label): index for index, label in enumerate(labels)}
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"values must be 1-D (one answer per user), got shape {arr.shape}")
    out = np.empty(arr.size, dtype=np.int64)
    unknown = 0
    for i, value in enumerate(arr.tolist()):
        try:
            key = label_key(json_label(value, i))
        except (TypeError, ValueError):
            key = None
        index = lookup.get(key) if key is not None else None
        if index is None:
            unknown += 1
            out[i] = -1
        else:
            out[i] = index
    if unknown:
        raise ValueError(
            f"values: {unknown} answer(s) are not among the protocol's {len(labels)} labels "
            "(the values are not shown)"
        )
    return out


def _encode_indices(k: int, values: ArrayLike) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype == object:
        items = arr.tolist()
        if any(isinstance(v, (bool, np.bool_)) for v in items):
            raise TypeError("values must be category indices 0 .. k - 1 (integers)")
        try:
            arr = np.asarray(items, dtype=np.float64 if arr.size else np.int64)
        except (TypeError, ValueError):
            raise TypeError("values must be category indices 0 .. k - 1 (integers)") from None
    if arr.ndim != 1:
        raise ValueError(f"values must be 1-D (one answer per user), got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.floor(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError("values must be category indices 0 .. k - 1 (integers)")
    bad = (arr < 0) | (arr >= k)
    if np.any(bad):
        raise ValueError(
            f"values: {int(bad.sum())} answer(s) are not categories 0 .. {k - 1} "
            "(the values are not shown)"
        )
    return arr.astype(np.int64)


def _encode_interval(target: object, domain: Mapping[str, Any], values: ArrayLike) -> np.ndarray:
    assert isinstance(target, Interval)
    low, high, dimension = float(domain["low"]), float(domain["high"]), int(domain["dimension"])
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("values must be numbers") from None
    expected = 1 if dimension == 1 else 2
    if arr.ndim != expected or (dimension > 1 and arr.shape[1] != dimension):
        shape = "(n,)" if dimension == 1 else f"(n, {dimension})"
        raise ValueError(f"values must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("values must be finite numbers")
    if arr.size and (arr.min() < low or arr.max() > high):
        count = int(np.sum((arr < low) | (arr > high)))
        raise ValueError(
            f"values: {count} answer(s) lie outside the protocol's bounds [{low:g}, {high:g}] "
            "(values are never clipped; the values are not shown)"
        )
    scale = (target.high - target.low) / (high - low)
    mapped = target.low + (arr - low) * scale
    return np.clip(mapped, target.low, target.high)  # absorbs rounding only


def _encode_ball(domain: Mapping[str, Any], values: ArrayLike) -> np.ndarray:
    radius, dimension = float(domain["radius"]), int(domain["dimension"])
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("values must be numbers") from None
    if arr.ndim != 2 or arr.shape[1] != dimension:
        raise ValueError(f"values must have shape (n, {dimension}), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("values must be finite numbers")
    norms = np.sqrt((arr**2).sum(axis=1))
    if norms.size and norms.max() > radius * (1 + 1e-12):
        count = int(np.sum(norms > radius * (1 + 1e-12)))
        raise ValueError(
            f"values: {count} vector(s) lie outside the ball of radius {radius:g} "
            "(the values are not shown)"
        )
    return arr


def encode_values(domain: Mapping[str, Any], target: object, values: ArrayLike) -> np.ndarray:
    """Answers as the mechanism's input: label indices, numbers mapped onto the mechanism's
    domain ``target``, or items as their byte strings (``ldp._items``).

    Parameters
    ----------
    domain : mapping
        The protocol's ``domain`` field.
    target : Domain
        The mechanism's own domain (an interval of the file is mapped onto it).
    values : array_like
        One answer per user.

    Returns
    -------
    numpy.ndarray
        The mechanism's inputs.

    Raises
    ------
    ValueError
        For an answer outside the domain (without echoing it).

    Examples
    --------
    >>> from ldp.core import Interval
    >>> field = {"type": "interval", "low": 0.0, "high": 100.0, "dimension": 1}
    >>> encode_values(field, Interval(-1.0, 1.0), [0, 50, 100]).tolist()
    [-1.0, 0.0, 1.0]
    """
    if domain["type"] == "categorical":
        if domain["labels"] is None:
            return _encode_indices(domain["k"], values)
        return _encode_labels(domain["labels"], values)
    if domain["type"] == "items":
        unique, inverse = unique_items(values)
        distinct = np.empty(len(unique), dtype=object)
        distinct[:] = unique
        return distinct[inverse]
    if domain["type"] == "interval":
        return _encode_interval(target, domain, values)
    return _encode_ball(domain, values)


def describe_domain(domain: Mapping[str, Any]) -> str:
    """The protocol's ``domain`` field in words.

    Examples
    --------
    >>> describe_domain({"type": "interval", "low": 0.0, "high": 1.0, "dimension": 2})
    '[0, 1]^2'
    """
    if domain["type"] == "categorical":
        return f"{domain['k']} categories"
    if domain["type"] == "items":
        return "items (strings, bytes or integers)"
    if domain["type"] == "interval":
        span = f"[{domain['low']:g}, {domain['high']:g}]"
        return span if domain["dimension"] == 1 else f"{span}^{domain['dimension']}"
    return f"the l2 ball of radius {domain['radius']:g} in R^{domain['dimension']}"
