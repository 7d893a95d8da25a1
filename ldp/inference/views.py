"""What a fitted estimator hands to a test: the views :class:`CellEstimate` and
:class:`MeanSample`.

The tests of :mod:`ldp.inference` never see an estimator's internals: a frequency estimator
gives a :class:`CellEstimate` (``cell_estimate(column)``, or ``cell_estimate(columns)`` for a
two-way table), a mean estimator a :class:`MeanSample` (``mean_sample(column)``). ``ldp``
does not import the estimators; any object with those methods can be tested.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ldp._validation import as_real_array, check_integer

__all__ = ["CellEstimate", "MeanSample"]


def _fits(value: object) -> frozenset[str]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (set, frozenset, tuple, list)):
        raise TypeError(f"fits must be a set of fit identifiers, got {type(value).__name__}")
    return frozenset(str(v) for v in value)


def _frozen_array(value: np.ndarray) -> np.ndarray:
    out = np.array(value, dtype=np.float64, copy=True)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class CellEstimate:
    """Unbiased linear estimate of a table's cell probabilities, with its exact covariance law.

    Parameters
    ----------
    value : ndarray
        The unbiased estimate of the cell probabilities, flattened in C order over ``shape``
        (it may be negative and sums to one only in expectation).
    shape : tuple of int
        ``(k,)`` for one column, ``(k1, k2)`` for a two-way table.
    n : int
        Number of reports the estimate is built from.
    covariance : callable
        ``covariance(f)``: the exact covariance matrix of ``value`` (i.i.d. users, flattened)
        when the true cell probabilities are ``f`` (flattened, a distribution).
    labels : tuple of tuples
        The category labels of each axis.
    protocol : str
        Identity of the collection (the protocol's fingerprint and the column): two samples
        can be compared only when it is the same.
    fits : frozenset of str, optional
        Identifiers of the fits the reports come from (an estimator's fits, united by a
        merge): two samples that share one share reports, and :func:`two_sample` refuses
        them.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.inference import CellEstimate
    >>> from ldp.mechanisms import GRR
    >>> grr = GRR(3, 1.0)
    >>> counts = grr.aggregate(grr.privatize(np.repeat([0, 1, 2], [500, 300, 200]), rng=0))
    >>> view = CellEstimate(grr.estimate(counts), (3,), counts.n,
    ...                     lambda f: grr.covariance(counts.n, f), (("a", "b", "c"),), grr.key)
    >>> view.covariance(np.full(3, 1 / 3)).shape, view.size
    ((3, 3), 3)
    """

    value: np.ndarray
    shape: tuple[int, ...]
    n: int
    covariance: Callable[[np.ndarray], np.ndarray]
    labels: tuple[tuple, ...]
    protocol: str
    fits: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        shape = tuple(check_integer(s, "shape", low=1) for s in self.shape)
        if len(shape) not in (1, 2):
            raise ValueError(f"shape must have one or two axes, got {self.shape!r}")
        value = as_real_array(self.value, "value").ravel()
        if value.size != int(np.prod(shape)):
            raise ValueError(f"value must have {int(np.prod(shape))} cells for shape {shape}")
        if not callable(self.covariance):
            raise TypeError("covariance must be a callable f -> covariance matrix")
        labels = tuple(tuple(axis) for axis in self.labels)
        if tuple(len(axis) for axis in labels) != shape:
            raise ValueError(f"labels must have {shape} entries per axis")
        object.__setattr__(self, "value", _frozen_array(value))
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "n", check_integer(self.n, "n", low=0))
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "protocol", str(self.protocol))
        object.__setattr__(self, "fits", _fits(self.fits))

    @property
    def size(self) -> int:
        """Number of cells."""
        return int(self.value.size)


@dataclass(frozen=True, eq=False)
class MeanSample:
    """The unbiased mean of ``n`` reports with the sample variance of one report.

    Parameters
    ----------
    value : float
        The unbiased estimate of the mean (in the column's units).
    variance : float
        The sample variance of one decoded report (``ddof = 1``, in squared column units):
        it estimates the i.i.d. variance of a report, noise and spread of the values together.
    n : int
        Number of reports.
    protocol : str
        Identity of the collection (the protocol's fingerprint and the column).
    fits : frozenset of str, optional
        Identifiers of the fits the reports come from (an estimator's fits, united by a
        merge): two samples that share one share reports, and :func:`two_sample` refuses
        them.

    Examples
    --------
    >>> from ldp.inference import MeanSample
    >>> MeanSample(0.4, 2.5, 1000, "duchi").variance
    2.5
    """

    value: float
    variance: float
    n: int
    protocol: str
    fits: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        value = as_real_array(self.value, "value")
        variance = as_real_array(self.variance, "variance")
        if value.ndim or variance.ndim:
            raise ValueError("value and variance must be scalars (one numeric column)")
        if variance < 0:
            raise ValueError(f"variance must be >= 0, got {float(variance)!r}")
        object.__setattr__(self, "value", float(value))
        object.__setattr__(self, "variance", float(variance))
        object.__setattr__(self, "n", check_integer(self.n, "n", low=0))
        object.__setattr__(self, "protocol", str(self.protocol))
        object.__setattr__(self, "fits", _fits(self.fits))
