"""The domains a mechanism privatizes: :class:`Categories`, :class:`Interval`, :class:`Ball`
and :class:`Items`, and the check of numeric input against them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import as_real_array

__all__ = ["Ball", "Categories", "Domain", "Interval", "Items", "check_unit_values"]


# ----------------------------------------------------------------------------- domains
@dataclass(frozen=True)
class Categories:
    """The categories ``0 .. k - 1`` (labels are attached by a protocol file).

    Parameters
    ----------
    k : int
        Number of categories.

    Examples
    --------
    >>> from ldp.mechanisms import GRR, Categories
    >>> GRR(4, 1.0).domain == Categories(4)
    True
    >>> Categories(4).describe(), Categories(4).to_dict()
    ('categories 0..3', {'type': 'categorical', 'k': 4})
    """

    k: int
    kind: ClassVar[str] = "categorical"

    def describe(self) -> str:
        return f"categories 0..{self.k - 1}"

    def to_dict(self) -> dict[str, object]:
        return {"type": "categorical", "k": self.k}


@dataclass(frozen=True)
class Interval:
    """Numbers in ``[low, high]`` (``d > 1``: vectors with every coordinate in it).

    Parameters
    ----------
    low, high : float
        The inclusive bounds of each coordinate.
    d : int, default 1
        Dimension.

    Examples
    --------
    >>> from ldp.mechanisms import Interval, Laplace
    >>> Laplace(1.0).domain == Interval(-1.0, 1.0)
    True
    >>> Interval(0.0, 1.0, d=3).describe()
    '[0, 1]^3'
    """

    low: float
    high: float
    d: int = 1
    kind: ClassVar[str] = "interval"

    def describe(self) -> str:
        box = f"[{self.low:g}, {self.high:g}]"
        return box if self.d == 1 else f"{box}^{self.d}"

    def to_dict(self) -> dict[str, object]:
        return {"type": "interval", "low": self.low, "high": self.high, "dimension": self.d}


@dataclass(frozen=True)
class Ball:
    """Vectors of ``R^d`` with Euclidean norm at most ``radius``.

    Parameters
    ----------
    radius : float
        Largest Euclidean norm of an input.
    d : int
        Dimension.

    Examples
    --------
    >>> from ldp.mechanisms import Ball, DuchiL2
    >>> DuchiL2(1.0, d=3, radius=2.0).domain == Ball(2.0, 3)
    True
    >>> Ball(2.0, 3).describe()
    'l2 ball of radius 2 in R^3'
    """

    radius: float
    d: int
    kind: ClassVar[str] = "ball"

    def describe(self) -> str:
        return f"l2 ball of radius {self.radius:g} in R^{self.d}"

    def to_dict(self) -> dict[str, object]:
        return {"type": "ball", "radius": self.radius, "dimension": self.d}


@dataclass(frozen=True)
class Items:
    """Items of an open domain: strings, byte strings or integers, never enumerated.

    Sketches (:class:`~ldp.mechanisms.CMS`, :class:`~ldp.mechanisms.HCMS`) hash them into a
    few buckets with a public hash (``docs/protocol.md``); any item can be queried after
    collection. A string and its UTF-8 bytes are the same item, and so are an integer and its
    decimal text.

    Examples
    --------
    >>> from ldp.mechanisms import CMS, Items
    >>> CMS(2.0, width=64, depth=4).domain == Items()
    True
    >>> Items().describe(), Items().to_dict()
    ('items (strings, bytes or integers)', {'type': 'items'})
    """

    kind: ClassVar[str] = "items"

    def describe(self) -> str:
        return "items (strings, bytes or integers)"

    def to_dict(self) -> dict[str, object]:
        return {"type": "items"}


Domain = Categories | Interval | Ball | Items


def check_unit_values(domain: Domain, values: ArrayLike, name: str = "values") -> np.ndarray:
    """Numeric mechanism input checked against an :class:`Interval` or :class:`Ball`."""
    arr = as_real_array(values, name, quote=False)
    if isinstance(domain, Interval):
        if domain.d == 1:
            if arr.ndim != 1:
                raise ValueError(f"{name} must be 1-D (one number per user), got {arr.shape}")
        elif arr.ndim != 2 or arr.shape[1] != domain.d:
            raise ValueError(f"{name} must have shape (n, {domain.d}), got {arr.shape}")
        if arr.size and (arr.min() < domain.low or arr.max() > domain.high):
            raise ValueError(
                f"{name} must lie in [{domain.low:g}, {domain.high:g}] (rescale first); some do not"
            )
        return arr
    if isinstance(domain, Ball):
        if arr.ndim != 2 or arr.shape[1] != domain.d:
            raise ValueError(f"{name} must have shape (n, {domain.d}), got {arr.shape}")
        norms = np.sqrt((arr**2).sum(axis=1))
        if norms.size and norms.max() > domain.radius * (1 + 1e-12):
            raise ValueError(
                f"{name} must lie in the l2 ball of radius {domain.radius:g}; some do not"
            )
        return arr
    raise TypeError(f"not a numeric domain: {domain!r}")
