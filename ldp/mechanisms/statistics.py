"""The mergeable statistics of the mechanisms' reports: :class:`SupportCounts` (frequency
oracles) and :class:`MeanSums` (mean mechanisms).

Both are frozen values that add with ``+`` (statistics of chunks of reports add up to the
statistic of all of them) and refuse to mix mechanisms. They are importable from
``ldp.mechanisms`` and, as before, from ``ldp.mechanisms.base``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp._validation import check_integer

__all__ = ["MeanSums", "SupportCounts"]


def _freeze(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class SupportCounts:
    """Support counts ``C_v`` of ``n`` reports of one frequency oracle (mergeable).

    Parameters
    ----------
    counts : ndarray of int64, shape (k,)
        ``counts[v]`` is the number of reports that support value ``v``.
    n : int
        Number of reports.
    mechanism : str
        Identifies the mechanism and its parameters; statistics of different mechanisms
        cannot be added or decoded by each other.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> grr = GRR(4, 1.0)
    >>> a = grr.aggregate(np.array([0, 1, 1]))
    >>> b = grr.aggregate(np.array([3]))
    >>> (a + b).counts, (a + b).n
    (array([1, 2, 0, 1]), 4)
    """

    counts: np.ndarray
    n: int
    mechanism: str

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.ndim != 1 or counts.dtype.kind not in "iu":
            raise ValueError(
                f"counts must be a 1-D integer array, got {counts.dtype} {counts.shape}"
            )
        n = check_integer(self.n, "n", low=0)
        if counts.size and (counts.min() < 0 or counts.max() > n):
            raise ValueError(f"counts must lie in [0, n = {n}]")
        object.__setattr__(self, "counts", _freeze(counts.astype(np.int64)))
        object.__setattr__(self, "n", n)

    def __add__(self, other: SupportCounts) -> SupportCounts:
        if not isinstance(other, SupportCounts):
            return NotImplemented
        if other.mechanism != self.mechanism:
            raise ValueError(
                f"cannot add counts of {other.mechanism} to counts of {self.mechanism}"
            )
        return SupportCounts(self.counts + other.counts, self.n + other.n, self.mechanism)

    def __radd__(self, other: object) -> SupportCounts:
        if isinstance(other, int) and other == 0:  # sum([...]) starts from 0
            return self
        return NotImplemented


@dataclass(frozen=True, eq=False)
class MeanSums:
    """Sum and sum of squares of ``n`` decoded reports of one mean mechanism (mergeable with
    ``+``).

    Parameters
    ----------
    total : ndarray
        Sum of the decoded reports (a scalar array, or one entry per coordinate).
    n : int
        Number of reports summed.
    mechanism : str
        Key of the mechanism that made them (sums of different mechanisms do not add).
    squares : ndarray, optional
        Sum of the squared decoded reports (the shape of ``total``), from which
        :attr:`sample_variance` follows. ``None`` when unknown (a statistic written before it
        was kept, or built from the total alone); a sum with an unknown part is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import Laplace
    >>> lap = Laplace(1.0)
    >>> s = lap.aggregate(np.array([0.5, -0.25])) + lap.aggregate(np.array([1.0]))
    >>> s.total, s.n
    (array(1.25), 3)
    >>> reports = lap.privatize(np.array([0.5, -0.25, 1.0]), rng=0)
    >>> stat = lap.aggregate(reports)
    >>> bool(np.isclose(stat.sample_variance, lap.decode(reports).var(ddof=1)))
    True
    """

    total: np.ndarray
    n: int
    mechanism: str
    squares: np.ndarray | None = None

    def __post_init__(self) -> None:
        total = _finite(self.total, "total")
        object.__setattr__(self, "total", _freeze(total))
        object.__setattr__(self, "n", check_integer(self.n, "n", low=0))
        if self.squares is not None:
            squares = _finite(self.squares, "squares")
            if squares.shape != total.shape or np.any(squares < 0):
                raise ValueError(
                    f"squares must be non-negative with the shape of total {total.shape}, got "
                    f"shape {squares.shape}"
                )
            object.__setattr__(self, "squares", _freeze(squares))

    @property
    def sample_variance(self) -> np.ndarray | None:
        """The sample variance of the decoded reports (``ddof = 1``, per coordinate), or
        ``None`` when the sum of squares is unknown; ``ValueError`` below two reports."""
        if self.squares is None:
            return None
        if self.n < 2:
            raise ValueError(f"the sample variance needs at least 2 reports, got n = {self.n}")
        spread = self.squares - self.total * self.total / self.n
        return np.maximum(spread, 0.0) / (self.n - 1)

    def __add__(self, other: MeanSums) -> MeanSums:
        if not isinstance(other, MeanSums):
            return NotImplemented
        if other.mechanism != self.mechanism:
            raise ValueError(f"cannot add sums of {other.mechanism} to sums of {self.mechanism}")
        mine, theirs = getattr(self, "squares", None), getattr(other, "squares", None)
        squares = None if mine is None or theirs is None else mine + theirs
        return MeanSums(self.total + other.total, self.n + other.n, self.mechanism, squares)

    def __radd__(self, other: object) -> MeanSums:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def _finite(value: object, name: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or a vector of numbers") from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (a sum of decoded reports is never NaN or inf)")
    return array
