"""Aggregate privatized reports wherever they are: in memory, streamed in chunks, or in Dask.

Every mechanism's :meth:`aggregate` returns a *mergeable* sufficient statistic
(:class:`~ldp.mechanisms.SupportCounts` for frequency oracles, :class:`~ldp.mechanisms.MeanSums`
for mean mechanisms): the statistic of all reports is the sum of the statistics of any
partition of them. :func:`aggregate` uses that to accept

* a numpy array of reports (or a pandas DataFrame / Series holding them);
* an iterable of chunks: arrays, DataFrames (``pandas.read_csv(..., chunksize=...)``), or a
  Parquet file path read row group by row group (pyarrow); memory is one chunk, whatever the
  number of reports;
* a Dask Array (chunked along users) or Dask DataFrame: each partition is aggregated where it
  lives (``map_partitions``-style, one task per partition) and the statistics are combined by
  a tree reduction, so the driver receives one small object. Dask is an optional extra
  (``pip install ".[dask]"`` from a checkout).

The result equals the in-memory ``mechanism.aggregate(all_reports)``: exactly for frequency
oracles (integer counts) and up to floating-point summation order for means.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ldp._progress import progress as show_progress

__all__ = ["aggregate", "aggregate_chunks", "is_dask_collection", "map_reduce_partitions"]


def _reports_of(chunk: Any, columns: str | list[str] | None, where: str) -> np.ndarray:
    """The report array held by one chunk (array, Series or DataFrame)."""
    if isinstance(chunk, pd.Series):
        return chunk.to_numpy()
    if isinstance(chunk, pd.DataFrame):
        if columns is None:
            if chunk.shape[1] != 1:
                raise ValueError(
                    f"{where} has columns {list(chunk.columns)}; pass columns= to say which "
                    "hold the reports"
                )
            return chunk.iloc[:, 0].to_numpy()
        names = [columns] if isinstance(columns, str) else list(columns)
        missing = [c for c in names if c not in chunk.columns]
        if missing:
            raise ValueError(f"{where} lacks the report column(s) {missing}")
        block = chunk[names].to_numpy()
        return block[:, 0] if isinstance(columns, str) else block
    if isinstance(chunk, np.ndarray):
        return chunk
    raise TypeError(f"{where} must be a numpy array or a pandas object, got {type(chunk).__name__}")


def _aggregate_one(mechanism: Any, chunk: Any, columns, where: str):
    reports = _reports_of(chunk, columns, where)
    try:
        return mechanism.aggregate(reports)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from None


def aggregate_chunks(
    chunks: Iterable[Any],
    mechanism: Any,
    *,
    columns: str | list[str] | None = None,
    progress: bool = False,
):
    """Sum the statistics of an iterable of report chunks, one chunk in memory at a time.

    Raises ``ValueError`` naming the chunk whose reports do not fit the mechanism, and for an
    empty iterable. Nothing is returned unless every chunk was aggregated.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> from ldp.distributed import aggregate_chunks
    >>> grr = GRR(3, 1.0)
    >>> stats = aggregate_chunks([np.array([0, 1]), np.array([2, 2])], grr)
    >>> stats.counts.tolist(), stats.n
    ([1, 1, 2], 4)
    """
    total = None
    for index, chunk in enumerate(show_progress(chunks, progress, desc="aggregate")):
        part = _aggregate_one(mechanism, chunk, columns, f"chunk {index}")
        total = part if total is None else total + part
    if total is None:
        raise ValueError("no chunks to aggregate: the iterable was empty")
    return total


def _parquet_chunks(path: Path, columns):
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow comes with the dask extra
        raise ImportError(
            "reading Parquet needs pyarrow: pip install pyarrow (from a checkout of ldpkit: "
            'pip install ".[dask]")'
        ) from exc
    names = None if columns is None else ([columns] if isinstance(columns, str) else columns)
    source = pq.ParquetFile(path)
    for group in range(source.num_row_groups):
        yield source.read_row_group(group, columns=names).to_pandas()


def is_dask_collection(obj: Any) -> bool:
    """Whether ``obj`` is a Dask collection (without importing Dask)."""
    return hasattr(obj, "__dask_graph__") and callable(obj.__dask_graph__)


def map_reduce_partitions(
    collection: Any,
    function: Any,
    combine: Any = operator.add,
):
    """``combine``-reduce ``function(partition, label)`` over a Dask collection's partitions.

    Each partition (a block of a Dask Array chunked along its first axis, or a partition of a
    Dask DataFrame / Series) is mapped where it lives; the results are combined by a pairwise
    tree of depth ``log2(partitions)``, so the driver receives one object. ``label`` names the
    partition for error messages (``"partition 3"``).
    """
    import dask
    import dask.array as da
    import dask.dataframe as dd

    delayed = dask.delayed
    if isinstance(collection, da.Array):
        if collection.ndim == 2 and collection.numblocks[1] != 1:
            collection = collection.rechunk({1: -1})
        blocks = list(collection.to_delayed().ravel())
        label = "block"
    elif isinstance(collection, (dd.DataFrame, dd.Series)):
        blocks = list(collection.to_delayed())
        label = "partition"
    else:
        raise TypeError(f"unsupported Dask collection {type(collection).__name__}")
    if not blocks:
        raise ValueError("the Dask collection has no partitions")
    parts = [delayed(function)(block, f"{label} {i}") for i, block in enumerate(blocks)]
    while len(parts) > 1:
        paired = [delayed(combine)(a, b) for a, b in zip(parts[::2], parts[1::2])]
        if len(parts) % 2:
            paired.append(parts[-1])
        parts = paired
    return parts[0].compute()


def _aggregate_dask(reports: Any, mechanism: Any, columns):
    return map_reduce_partitions(
        reports, lambda block, where: _aggregate_one(mechanism, block, columns, where)
    )


def aggregate(
    reports: Any,
    mechanism: Any,
    *,
    columns: str | list[str] | None = None,
    progress: bool = False,
):
    """The mergeable statistic of privatized reports held in memory, in chunks or in Dask.

    Parameters
    ----------
    reports : array, DataFrame, iterable of chunks, Parquet path, or Dask Array / DataFrame
        The reports, exactly as the mechanism's ``privatize`` produced them (one row per
        user); in tables, ``columns`` names the column(s) holding them.
    mechanism : object with ``aggregate``
        A frequency oracle or mean mechanism of :mod:`ldp.mechanisms`.
    columns : str or list of str, optional
        Report column(s) of a table; a single name gives 1-D reports.
    progress : bool
        tqdm progress over chunks (streaming only).

    Returns
    -------
    SupportCounts or MeanSums
        Equal to ``mechanism.aggregate`` of all reports at once; decode it with
        ``mechanism.estimate``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from ldp.mechanisms import GRR
    >>> from ldp.distributed import aggregate
    >>> grr = GRR(4, 1.0)
    >>> reports = grr.privatize(np.arange(4).repeat(25), rng=0)
    >>> frame = pd.DataFrame({"report": reports})
    >>> chunks = (frame.iloc[i : i + 30] for i in range(0, 100, 30))
    >>> bool((aggregate(chunks, grr, columns="report").counts
    ...       == grr.aggregate(reports).counts).all())
    True
    """
    if not hasattr(mechanism, "aggregate"):
        raise TypeError(
            f"mechanism must have an aggregate method (an ldp.mechanisms oracle), got "
            f"{type(mechanism).__name__}"
        )
    if is_dask_collection(reports):
        return _aggregate_dask(reports, mechanism, columns)
    if isinstance(reports, (np.ndarray, pd.DataFrame, pd.Series)):
        return _aggregate_one(mechanism, reports, columns, "reports")
    if isinstance(reports, (str, Path)):
        path = Path(reports)
        if path.suffix != ".parquet":
            raise ValueError(f"a path must name a .parquet file, got {str(path)!r}")
        return aggregate_chunks(
            _parquet_chunks(path, columns), mechanism, columns=columns, progress=progress
        )
    if isinstance(reports, Iterable):
        return aggregate_chunks(reports, mechanism, columns=columns, progress=progress)
    raise TypeError(
        "reports must be an array, a DataFrame, an iterable of chunks, a Parquet path or a "
        f"Dask collection, got {type(reports).__name__}"
    )
