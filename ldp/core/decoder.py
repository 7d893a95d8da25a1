"""What the server decodes reports with: the :class:`Decoder` protocol and its :class:`Estimate`.

Every registered mechanism's decoder (the mechanism itself, or a
:class:`~ldp.tasks.ChannelOracle` for a :class:`~ldp.Channel`) answers the same three
questions, so that the command line, the estimators and the reports need not know its family:

* ``aggregate(reports)``: the mergeable statistic of the reports (chunks add with ``+``;
  ``empty_statistic()`` is the statistic of none);
* ``estimate(statistic_or_reports)``: the unbiased estimate;
* ``interval(statistic, confidence=0.95, ...)``: an :class:`Estimate`, the estimate with its
  standard error and a two-sided normal interval at ``confidence``, and a short text saying
  how the interval was built.

The intervals are normal approximations (the statistics are sums of independent reports, so
the central limit theorem applies) with the decoder's own variance: the exact variance of a
frequency oracle at the clipped estimate, the worst-case variance of a mean mechanism, the
variance of a sketch over the noise and the hash draw.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_integer, check_scalar

__all__ = ["Decoder", "Estimate", "check_confidence", "normal_z"]


def check_confidence(confidence: object) -> float:
    """``confidence`` as a float in the open interval ``(0, 1)``.

    Raises ``TypeError`` for anything but a real number and ``ValueError`` naming
    ``confidence`` and its value outside ``(0, 1)``.

    Examples
    --------
    >>> from ldp.core import check_confidence
    >>> check_confidence(0.9)
    0.9
    >>> check_confidence(1.5)
    Traceback (most recent call last):
    ...
    ValueError: confidence must be < 1.0, got 1.5
    """
    return check_scalar(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)


def normal_z(confidence: object) -> float:
    """``z``: the normal quantile of a two-sided interval at ``confidence`` (checked).

    The one home of the quantile every normal interval of the library multiplies its
    standard error by: ``Phi^-1(1/2 + confidence/2)``.

    Examples
    --------
    >>> from ldp.core import normal_z
    >>> round(normal_z(0.95), 6)
    1.959964
    """
    from scipy.special import ndtri

    return float(ndtri(0.5 + check_confidence(confidence) / 2.0))


def _frozen(value: ArrayLike, name: str) -> np.ndarray | float:
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or an array of numbers") from None
    if array.ndim == 0:
        return float(array)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Estimate:
    """An estimate with its standard error and a two-sided normal interval (frozen).

    Built by a :class:`Decoder`'s ``interval``. ``lower``, ``upper`` and ``half_width``
    follow from the fields: ``half_width = z * standard_error`` with ``z`` the normal
    quantile of ``confidence`` (:func:`normal_z`), ``lower = value - half_width`` and
    ``upper = value + half_width``.

    Parameters
    ----------
    value : float or ndarray
        The (unbiased) estimate: one number, or one per category, item or coordinate.
    standard_error : float or ndarray
        The standard error the interval uses (broadcast against ``value``).
    confidence : float
        The level of the interval, in ``(0, 1)``.
    n : int
        Number of reports decoded.
    method : str
        How the interval was built, in a few words.
    names : tuple, optional
        A label per entry of ``value`` (categories, items), where the decoder knows them.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> grr = GRR(3, 2.0)
    >>> statistic = grr.aggregate(grr.privatize(np.repeat([0, 1, 2], [600, 300, 100]), rng=0))
    >>> est = grr.interval(statistic, confidence=0.9)
    >>> est.n, est.confidence, est.method
    (1000, 0.9, 'normal, exact fixed variance at the clipped estimate')
    >>> bool(np.all(est.lower < est.value) and np.all(est.value < est.upper))
    True
    >>> list(est.to_frame().columns)
    ['estimate', 'std', 'ci_low', 'ci_high']
    """

    value: np.ndarray | float
    standard_error: np.ndarray | float
    confidence: float
    n: int
    method: str
    names: tuple[Any, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        value = _frozen(self.value, "value")
        error = _frozen(self.standard_error, "standard_error")
        try:
            np.broadcast_shapes(np.shape(value), np.shape(error))
        except ValueError:
            raise ValueError(
                f"standard_error of shape {np.shape(error)} does not broadcast against value "
                f"of shape {np.shape(value)}"
            ) from None
        if np.any(np.asarray(error) < 0):
            raise ValueError("standard_error must be non-negative")
        if not isinstance(self.method, str) or not self.method:
            raise TypeError(f"method must be a non-empty string, got {self.method!r}")
        names = self.names
        if names is not None:
            names = tuple(names)
            if len(names) != np.size(value) or np.ndim(value) != 1:
                raise ValueError(
                    f"names must hold one label per entry of value ({np.size(value)}), got "
                    f"{len(names)}"
                )
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "standard_error", error)
        object.__setattr__(self, "confidence", check_confidence(self.confidence))
        object.__setattr__(self, "n", check_integer(self.n, "n", low=0))
        object.__setattr__(self, "names", names)

    @property
    def z(self) -> float:
        """The normal quantile of ``confidence`` (:func:`normal_z`)."""
        return normal_z(self.confidence)

    @property
    def half_width(self) -> np.ndarray | float:
        """``z * standard_error``."""
        return self.z * self.standard_error

    @property
    def lower(self) -> np.ndarray | float:
        """``value - half_width``."""
        return self.value - self.half_width

    @property
    def upper(self) -> np.ndarray | float:
        """``value + half_width``."""
        return self.value + self.half_width

    def named(self, names: Iterable[Any]) -> Estimate:
        """The same estimate with a label per entry (categories the decoder does not know)."""
        return Estimate(
            self.value, self.standard_error, self.confidence, self.n, self.method, tuple(names)
        )

    def to_frame(self) -> Any:
        """A pandas table, one row per entry: ``name`` (when named), ``estimate``, ``std``,
        ``ci_low`` and ``ci_high``; ``confidence``, ``n`` and ``method`` are in its
        ``attrs``."""
        import pandas as pd

        value = np.atleast_1d(self.value)
        error = np.broadcast_to(self.standard_error, value.shape)
        columns: dict[str, Any] = {} if self.names is None else {"name": list(self.names)}
        columns.update(
            estimate=value,
            std=error,
            ci_low=np.atleast_1d(self.lower),
            ci_high=np.atleast_1d(self.upper),
        )
        frame = pd.DataFrame(columns)
        frame.attrs.update(confidence=self.confidence, n=self.n, method=self.method)
        return frame


@runtime_checkable
class Decoder(Protocol):
    """What decodes a mechanism's reports (see the module notes).

    Implemented by :class:`~ldp.mechanisms.FrequencyMechanism` (every frequency oracle and
    :class:`~ldp.tasks.ChannelOracle`), :class:`~ldp.mechanisms.MeanMechanism` and
    :class:`~ldp.mechanisms.CountMeanSketch`; ``Protocol(...).decoder`` is one for every
    registered mechanism.

    Examples
    --------
    >>> from ldp.core import Decoder
    >>> from ldp.mechanisms import CMS, OUE, Laplace
    >>> all(isinstance(m, Decoder) for m in (OUE(4, 1.0), Laplace(1.0), CMS(1.0)))
    True
    """

    def empty_statistic(self) -> Any:
        """The statistic of zero reports (the neutral element of ``+``)."""
        ...

    def aggregate(self, reports: ArrayLike, /) -> Any:
        """The mergeable statistic of ``reports``."""
        ...

    def estimate(self, reports_or_statistic: Any, /) -> Any:
        """The unbiased estimate from reports or their statistic."""
        ...

    def interval(self, statistic: Any, /, confidence: float = 0.95) -> Estimate:
        """The estimate with a two-sided normal interval at ``confidence``."""
        ...
