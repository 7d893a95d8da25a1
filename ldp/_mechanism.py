"""The protocol every local randomizer answers to: domain, reports, privacy, identity.

:class:`Mechanism` is what the rest of the library (protocol files, clients, audits,
estimators, accounting) relies on, so that a new mechanism is one class and one registry
line. A mechanism has

* a **domain** (:class:`Categories`, :class:`Interval`, :class:`Ball` or :class:`Items`):
  the values it privatizes;
* ``privatize(values, rng=None)``: one report per user, vectorised;
* a **report codec** (:class:`ReportCodec`): the report's fields (integers or floats, with
  their ranges), and the conversion between the compact numpy reports and rows of fields
  (the wire format of report files), refusing what the mechanism cannot output;
* ``epsilon``: an upper bound on its pure-LDP level *as the sampler draws it* (computed from
  the exact probabilities of ``ldp._sampling`` and rounded up);
* ``sampler()``: the constants a device needs to run it without computing a transcendental
  function (the exact weights of every coin), written into protocol files;
* ``name`` and ``params``: its identity (``REGISTRY[name](**params)`` rebuilds it), used for
  equality, fingerprints and refusing foreign reports.

The module is a leaf: it imports nothing from the rest of :mod:`ldp` but validation helpers,
so that :class:`~ldp.Channel` and the mechanisms can both build on it.
"""

from __future__ import annotations

import abc
import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ldp._plain import PlainPrivacy, plain_privacy
from ldp._validation import as_real_array

__all__ = [
    "Ball",
    "Categories",
    "Domain",
    "Field",
    "Interval",
    "Items",
    "Mechanism",
    "ReportCodec",
    "canonical_json",
]


def canonical_json(value: object) -> str:
    """Sorted keys, no spaces, shortest round-trip floats, no NaN: the form that is hashed."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


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


# ----------------------------------------------------------------------------- reports
def default_where(index: int) -> str:
    return f"reports row {index}"


@dataclass(frozen=True)
class Field:
    """One field of a report: an integer or a float, with its inclusive range.

    ``step``: float fields released on a grid are multiples of ``step`` (a power of two).

    Parameters
    ----------
    name : str
        Column name in report files.
    kind : {"int", "float"}
        Integer or float field.
    low, high : float
        Inclusive range of the field.
    step : float, optional
        Grid of a float field (a power of two); ``None`` for any float in the range.

    Examples
    --------
    >>> from ldp.mechanisms import GRR, Field
    >>> field = GRR(4, 1.0).codec.fields[0]
    >>> field == Field("report", "int", 0, 3)
    True
    >>> field.to_dict()
    {'name': 'report', 'type': 'int', 'min': 0, 'max': 3}
    """

    name: str
    kind: str
    low: float
    high: float
    step: float | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "type": self.kind}
        if self.kind == "int":
            out["min"], out["max"] = int(self.low), int(self.high)
        else:
            out["min"], out["max"] = float(self.low), float(self.high)
            if self.step is not None:
                out["step"] = float(self.step)
        return out


@dataclass(frozen=True)
class ReportCodec:
    """The wire form of a mechanism's reports: rows of fields, and back.

    Parameters
    ----------
    fields : tuple of Field
        All integer or all float.
    native_dtype : str
        The numpy dtype of the mechanism's own reports.
    vector : bool
        Native reports are ``(n, width)`` arrays (else ``(n,)``, one field).
    check : callable, optional
        Structural validation of native reports beyond each field's range (for example
        "exactly ``d`` bits set"): ``check(reports, where)`` raises ``ValueError`` naming the
        row through ``where(index)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> grr = GRR(5, 1.0)
    >>> codec = grr.codec
    >>> codec.width, codec.vector, codec.is_float, codec.names
    (1, False, False, ['report'])
    >>> reports = grr.privatize(np.arange(5), rng=0)
    >>> bool(np.array_equal(codec.from_rows(codec.to_rows(reports)), reports))  # round trip
    True
    >>> codec.from_rows([7])
    Traceback (most recent call last):
    ...
    ValueError: reports row 0: the report has report outside 0..4 (not a report of this mechanism)
    """

    fields: tuple[Field, ...]
    native_dtype: str
    vector: bool
    check: Callable[[np.ndarray, Callable[[int], str]], None] | None = field(
        default=None, compare=False, repr=False
    )

    @property
    def width(self) -> int:
        """Number of fields."""
        return len(self.fields)

    @property
    def is_float(self) -> bool:
        """Whether the fields are floats (else integers)."""
        return self.fields[0].kind == "float"

    @property
    def names(self) -> list[str]:
        """The field names (column names of report files)."""
        return [f.name for f in self.fields]

    def to_dict(self) -> dict[str, object]:
        return {"fields": [f.to_dict() for f in self.fields]}

    def to_rows(self, reports: ArrayLike) -> np.ndarray:
        """Native reports as an ``(n, width)`` array (int64, or float64 for float fields)."""
        arr = np.asarray(reports)
        rows = arr.reshape(arr.shape[0], self.width) if arr.ndim else arr.reshape(1, 1)
        return rows.astype(np.float64 if self.is_float else np.int64)

    def from_rows(
        self, rows: ArrayLike, *, where: Callable[[int], str] = default_where
    ) -> np.ndarray:
        """Rows of fields as native reports, refusing anything the mechanism cannot output.

        Integer fields must be whole numbers in their range (booleans are refused); float
        fields finite numbers in their range (on their grid, if any); the mechanism's
        structural check runs last.
        Errors name the first bad row through ``where(index)`` and never echo a value.
        """
        try:
            arr = np.asarray(rows)
        except (TypeError, ValueError):
            raise TypeError("reports must be a numeric array of report fields") from None
        if arr.ndim == 1 and self.width == 1:
            arr = arr[:, None]
        if arr.ndim != 2 or arr.shape[1] != self.width:
            raise ValueError(
                f"reports must have {self.width} field(s) per row "
                f"({', '.join(self.names[:4])}{', ...' if self.width > 4 else ''}), "
                f"got shape {arr.shape}"
            )
        if arr.dtype.kind not in "iuf":  # booleans too: no mechanism outputs True or False
            raise TypeError(f"reports must be numbers, got dtype {arr.dtype}")
        lows = np.array([f.low for f in self.fields])
        highs = np.array([f.high for f in self.fields])
        if self.is_float or arr.dtype.kind == "f":
            values = arr.astype(np.float64, copy=False)
            for chunk in _row_chunks(values):
                finite = np.isfinite(values[chunk])
                self._raise_first(~finite, where, "is not a finite number", chunk)
                if not self.is_float:
                    block = values[chunk]
                    self._raise_first(
                        block != np.floor(block), where, "is not a whole number", chunk
                    )
        if arr.size and not _dtype_within(arr.dtype, lows, highs):
            mins, maxs = arr.min(axis=0), arr.max(axis=0)
            if np.any(mins < lows) or np.any(maxs > highs):
                for chunk in _row_chunks(arr):
                    block = arr[chunk]
                    bad = (block < lows) | (block > highs)
                    if np.any(bad):
                        field_index = int(np.argmax(bad.any(axis=0)))
                        f = self.fields[field_index]
                        span = (
                            f"[{f.low:g}, {f.high:g}]"
                            if self.is_float
                            else f"{int(f.low)}..{int(f.high)}"
                        )
                        self._raise_first(bad, where, f"has {f.name} outside {span}", chunk)
        if self.is_float:
            for j, f in enumerate(self.fields):
                if f.step is not None:
                    scaled = arr[:, j] / f.step
                    self._raise_first(
                        scaled != np.floor(scaled), where, f"has {f.name} off its grid"
                    )
        native = arr.astype(self.native_dtype, copy=False)
        if not self.vector:
            native = native[:, 0]
        if self.check is not None and native.shape[0]:
            self.check(native, where)
        return native

    @staticmethod
    def _raise_first(
        bad: np.ndarray, where: Callable[[int], str], what: str, rows: slice | None = None
    ) -> None:
        bad = np.asarray(bad)
        if bad.ndim > 1:
            bad = np.asarray(bad.any(axis=tuple(range(1, bad.ndim))))
        if np.any(bad):
            index = int(np.argmax(bad)) + (rows.start if rows is not None else 0)
            raise ValueError(f"{where(index)}: the report {what} (not a report of this mechanism)")


def _dtype_within(dtype: np.dtype, lows: np.ndarray, highs: np.ndarray) -> bool:
    """Whether every value of the integer ``dtype`` lies in every field's range (then the
    range check cannot fail: e.g. ``uint8`` bytes of a bit-packed report)."""
    if dtype.kind not in "iu":
        return False
    info = np.iinfo(dtype)
    return bool(info.min >= lows.max() and info.max <= highs.min())


def _row_chunks(arr: np.ndarray, elements: int = 1 << 22) -> Iterator[slice]:
    """Slices of rows holding at most about ``elements`` entries."""
    step = max(1, elements // max(1, arr.shape[1] if arr.ndim > 1 else 1))
    for start in range(0, arr.shape[0], step):
        yield slice(start, min(start + step, arr.shape[0]))


def index_codec(size: int, dtype: str = "int64", name: str = "report") -> ReportCodec:
    """One integer field in ``0 .. size - 1``."""
    return ReportCodec((Field(name, "int", 0, size - 1),), dtype, vector=False)


def float_codec(low: float, high: float, step: float | None, name: str = "value") -> ReportCodec:
    """One float field in ``[low, high]`` (on a grid of ``step``)."""
    return ReportCodec((Field(name, "float", low, high, step),), "float64", vector=False)


# ----------------------------------------------------------------------------- protocol
class Mechanism(abc.ABC):
    """A local randomizer: the protocol shared by :class:`~ldp.Channel`, every frequency
    oracle and every mean mechanism (see the module notes).

    Subclasses set ``name`` and implement ``params``, ``domain``, ``epsilon``,
    ``privatize``, ``codec`` and ``sampler``; the privacy profile (``delta``,
    ``epsilon_for_delta``, ``tv``) defaults to the exact finite channel of
    :meth:`to_channel` where the mechanism has one.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.mechanisms import GRR, Laplace, Mechanism
    >>> all(isinstance(m, Mechanism) for m in (GRR(4, 1.0), Laplace(1.0), k_rr(4, 1.0)))
    True
    >>> grr = GRR(4, 1.0)
    >>> type(grr).from_params(grr.params) == grr
    True
    """

    __slots__ = ()

    #: The registry name (``ldp.mechanisms.REGISTRY[name]`` is the class).
    name: ClassVar[str] = ""

    # ----------------------------------------------------------------- identity
    @property
    @abc.abstractmethod
    def params(self) -> dict[str, Any]:
        """The defining parameters: ``type(self).from_params(params) == self``."""

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Mechanism:
        """Rebuild the mechanism from :attr:`params`."""
        if not isinstance(params, Mapping):
            raise TypeError(f"params must be a mapping, got {type(params).__name__}")
        return cls(**dict(params))

    @property
    def key(self) -> str:
        """A string that identifies the mechanism and its parameters."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({args})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mechanism):
            return NotImplemented
        return type(self) is type(other) and self.key == other.key

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.key))

    # ----------------------------------------------------------------- what it does
    @property
    @abc.abstractmethod
    def domain(self) -> Domain:
        """The values the mechanism privatizes."""

    @abc.abstractmethod
    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        """One report per user (vectorised); ``rng="os"`` on devices."""

    @property
    @abc.abstractmethod
    def codec(self) -> ReportCodec:
        """The report fields and their conversion from and to rows."""

    @abc.abstractmethod
    def sampler(self) -> dict[str, Any]:
        """The constants a device needs to run :meth:`privatize` (JSON-able)."""

    # ----------------------------------------------------------------- privacy
    @property
    @abc.abstractmethod
    def epsilon(self) -> float:
        """An upper bound on the pure-LDP level of the mechanism as sampled (rounded up)."""

    def to_channel(self):
        """The exact finite channel (input -> report), where the mechanism has one."""
        raise NotImplementedError(f"{type(self).__name__} has no finite channel")

    #: Whether :meth:`privacy_channel` has exactly the mechanism's privacy profile (``True``)
    #: or only dominates it (its profile is a certified upper bound).
    privacy_exact: ClassVar[bool] = True

    def privacy_channel(self):
        """A small :class:`~ldp.Channel` with the mechanism's privacy profile.

        Its delta profile ``max_{x != x'} E_{e^eps}(K_x || K_x')``, eta-TV, trade-off curve
        and n-fold same-input composition are the mechanism's (where
        :attr:`privacy_exact`), or upper bounds of them. Mechanisms reduce their worst pair of
        inputs to the few likelihood-ratio classes of its outputs (a 2-row channel: every
        other pair is a garbling of it); the default is :meth:`to_channel`.
        """
        return self.to_channel()

    @property
    def tv(self) -> float:
        """The eta-TV level ``max_{x, x'} TV(K_x, K_x')`` (from :meth:`privacy_channel`)."""
        return self.privacy_channel().tv

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """The tight delta at level ``epsilon`` (from :meth:`privacy_channel`)."""
        return self.privacy_channel().delta(epsilon)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """The smallest epsilon at which the delta profile is ``<= delta``."""
        return self.privacy_channel().epsilon_for_delta(delta)

    def summary(self, delta: float = 0.0) -> PlainPrivacy:
        """The privacy of one report in plain terms (:class:`~ldp.mechanisms.PlainPrivacy`):
        how often the true answer is sent, how far one report can move the odds, and how
        well an observer can guess the answer.

        Examples
        --------
        >>> import ldp
        >>> plain = ldp.k_rr(3, 1.0).summary()
        >>> round(plain.p_true_report, 3), round(plain.odds_factor, 3)
        (0.576, 2.718)
        >>> plain.lines()[0]
        'The true answer is sent with probability at least 0.576.'
        """
        return plain_privacy(self, delta)

    def audit_statistic(self, x0: Any, x1: Any) -> Callable[[np.ndarray], np.ndarray] | None:
        """Reports -> one integer per report keeping the likelihood ratio of ``x0`` and ``x1``.

        Empirical audits (:func:`ldp.audit.epsilon_lower_bound`) compare the two output laws
        through this statistic; a sufficient statistic of the pair makes the audit tight.
        ``None`` means the reports are already small integers (an output index).
        """
        return None


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


def finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
