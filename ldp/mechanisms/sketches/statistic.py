"""What a sketch server holds: the mergeable counts of reports and the estimated sketch.

:class:`SketchCounts` is the integer statistic that :meth:`CountMeanSketch.aggregate
<ldp.mechanisms.CountMeanSketch.aggregate>` sums reports into (counts of different batches
add); :class:`Sketch` is Apple's matrix ``M`` that :meth:`CountMeanSketch.estimate
<ldp.mechanisms.CountMeanSketch.estimate>` builds from it, queried for the count or
frequency of any item after collection. The randomizers themselves are in
:mod:`ldp.mechanisms.sketches.sketch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ldp._frozen import Frozen, frozen_array
from ldp._validation import check_integer, scalar_or_array

if TYPE_CHECKING:
    from ldp.mechanisms.sketches.sketch import CountMeanSketch

__all__ = ["Sketch", "SketchCounts", "is_single_item"]


@dataclass(frozen=True, eq=False)
class SketchCounts:
    """The mergeable statistic of sketch reports: integer sums per row and bucket.

    Parameters
    ----------
    counts : ndarray of int64, shape (depth, width)
        :class:`~ldp.mechanisms.CMS`: the number of reports of row ``j`` with bit ``a`` set;
        :class:`~ldp.mechanisms.HCMS`: the sum of the signs (``+1``/``-1``) of the reports
        of row ``j`` and coefficient ``a``.
    rows : ndarray of int64, shape (depth,)
        Number of reports of each row.
    n : int
        Number of reports (``rows.sum()``).
    mechanism : str
        Key of the mechanism that made them (statistics of different mechanisms do not add).

    Examples
    --------
    >>> from ldp.mechanisms import CMS
    >>> cms = CMS(2.0, width=16, depth=4)
    >>> a = cms.aggregate(cms.privatize(["apple", "pear"], rng=0))
    >>> b = cms.aggregate(cms.privatize(["fig"], rng=1))
    >>> (a + b).n, (a + b).counts.shape
    (3, (4, 16))
    """

    counts: np.ndarray
    rows: np.ndarray
    n: int
    mechanism: str

    def __post_init__(self) -> None:
        counts, rows = np.asarray(self.counts), np.asarray(self.rows)
        if counts.ndim != 2 or counts.dtype.kind not in "iu":
            raise ValueError(
                f"counts must be a 2-D integer array, got {counts.dtype} {counts.shape}"
            )
        if rows.shape != (counts.shape[0],) or rows.dtype.kind not in "iu":
            raise ValueError(f"rows must hold one integer per row of counts, got {rows.shape}")
        n = check_integer(self.n, "n", low=0)
        if rows.size and (rows.min() < 0 or int(rows.sum()) != n):
            raise ValueError(f"rows must be non-negative and sum to n = {n}")
        if counts.size and np.any(np.abs(counts) > rows[:, None]):
            raise ValueError("counts must not exceed the number of reports of their row")
        object.__setattr__(self, "counts", frozen_array(counts.astype(np.int64, copy=False)))
        object.__setattr__(self, "rows", frozen_array(rows.astype(np.int64, copy=False)))
        object.__setattr__(self, "n", n)

    def __add__(self, other: SketchCounts) -> SketchCounts:
        if not isinstance(other, SketchCounts):
            return NotImplemented
        if other.mechanism != self.mechanism:
            raise ValueError(
                f"cannot add counts of {other.mechanism} to counts of {self.mechanism}"
            )
        return SketchCounts(
            self.counts + other.counts, self.rows + other.rows, self.n + other.n, self.mechanism
        )

    def __radd__(self, other: object) -> SketchCounts:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def is_single_item(items: object) -> bool:
    """Whether ``items`` is one item (a string, bytes or integer), not a sequence of them.

    Examples
    --------
    >>> is_single_item("apple"), is_single_item(["apple"]), is_single_item(True)
    (True, False, False)
    """
    return isinstance(items, (str, bytes, bytearray, int, np.integer)) and not isinstance(
        items, (bool, np.bool_)
    )


class Sketch(Frozen):
    """The server's sketch: Apple's matrix ``M`` (count scale), queried for any item.

    Built by :meth:`CountMeanSketch.estimate <ldp.mechanisms.CountMeanSketch.estimate>`.
    ``np.asarray(sketch)`` is the matrix.

    Parameters
    ----------
    matrix : ndarray, shape (depth, width)
        ``M[l, a]``: ``depth`` times the sum, over the reports of row ``l``, of the unbiased
        indicator that the report's bucket is ``a``.
    n : int
        Number of reports.
    mechanism : CountMeanSketch
        The sketch mechanism (its public hash functions).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import CMS
    >>> cms = CMS(4.0, width=256, depth=8, salt="2026")
    >>> items = np.array(["apple"] * 6000 + ["pear"] * 3000 + ["fig"] * 1000)
    >>> sketch = cms.estimate(cms.privatize(items, rng=0))
    >>> sketch.n, np.asarray(sketch).shape
    (10000, (8, 256))
    >>> bool(abs(sketch.frequency("apple") - 0.6) < 0.05)
    True
    >>> (np.round(sketch.frequency(["pear", "fig", "kiwi"]), 1) + 0.0).tolist()
    [0.3, 0.1, 0.0]
    """

    def __init__(self, matrix: np.ndarray, n: int, mechanism: CountMeanSketch) -> None:
        self.matrix = frozen_array(np.asarray(matrix, dtype=np.float64))
        self.n = int(n)
        self.mechanism = mechanism

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.array(self.matrix, dtype=dtype, copy=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sketch):
            return NotImplemented
        return (
            self.n == other.n
            and self.mechanism == other.mechanism
            and np.array_equal(self.matrix, other.matrix)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Sketch of {self.n} reports: {self.mechanism.key}>"

    def count(self, items: object) -> float | np.ndarray:
        """Unbiased (over the hash draw) estimates of the number of users holding each item.

        Parameters
        ----------
        items : str, bytes, int or 1-D sequence of them
            The items to query (any item, collected or not).

        Returns
        -------
        float or ndarray
            A float for one item, else one estimate per item (may be negative).

        Examples
        --------
        >>> from ldp.mechanisms import CMS
        >>> cms = CMS(4.0, width=128, depth=4)
        >>> sketch = cms.estimate(cms.privatize(["a"] * 500 + ["b"] * 500, rng=1))
        >>> bool(abs(sketch.count("a") - 500) < 100)
        True
        """
        scalar = is_single_item(items)
        mech = self.mechanism
        buckets = mech.buckets([items] if scalar else items)
        rows = np.arange(mech.depth)
        picked = self.matrix[rows[None, :], buckets]
        width = mech.width
        out = width / (width - 1) * (picked.mean(axis=1) - self.n / width)
        return scalar_or_array(out, scalar)

    def frequency(self, items: object) -> float | np.ndarray:
        """:meth:`count` divided by the number of reports ``n``.

        Parameters
        ----------
        items : str, bytes, int or 1-D sequence of them
            The items to query.

        Returns
        -------
        float or ndarray

        Examples
        --------
        >>> from ldp.mechanisms import HCMS
        >>> hcms = HCMS(4.0, width=64, depth=4)
        >>> sketch = hcms.estimate(hcms.privatize(["a"] * 3000 + ["b"] * 1000, rng=2))
        >>> bool(abs(sketch.frequency("a") - 0.75) < 0.1)
        True
        """
        if self.n == 0:  # pragma: no cover - estimate refuses zero reports
            raise ValueError("cannot estimate frequencies from zero reports")
        return scalar_or_array(np.asarray(self.count(items)) / self.n, is_single_item(items))
