"""Stored reports written out as a report table, for ``ldp estimate`` and the Dask path.

The table is what :mod:`ldp.protocol.reports` reads: the ``fingerprint`` column and one
column per report field (Parquet or CSV), or the client records themselves (JSON lines),
with each report's ``id`` and ``received`` time besides. A marginals protocol's reports
(each device's group, then that group's fields) are written as client records only: the
input of ``ldp estimate`` and ``MarginalEstimator.fit_reports``. Rows are read and written
in chunks, so memory holds one chunk whatever the size of the store.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

import numpy as np

from ldp.protocol import FINGERPRINT_COLUMN, MarginalProtocol, Protocol

__all__ = ["write_export"]


def _frame(protocol: Protocol, chunk: list[tuple[str, int, str]]) -> Any:
    import pandas as pd

    codec = protocol.mechanism.codec
    rows = np.array([json.loads(text) for _, _, text in chunk], dtype=np.float64).reshape(
        len(chunk), codec.width
    )
    reports = codec.from_rows(rows if codec.is_float else rows.astype(np.int64))
    frame = pd.DataFrame(codec.to_rows(reports), columns=codec.names)
    frame.insert(0, FINGERPRINT_COLUMN, protocol.fingerprint)
    frame["id"] = [rid for rid, _, _ in chunk]
    frame["received"] = np.array([t for _, t, _ in chunk], dtype=np.int64)
    return frame


def write_export(
    protocol: Protocol | MarginalProtocol,
    chunks: Iterable[list[tuple[str, int, str]]],
    path: str | os.PathLike[str],
) -> int:
    """Write chunks of stored ``(id, received, report)`` rows to ``path`` (format by suffix:
    Parquet, JSON lines, else CSV); returns the number of reports written.

    Examples
    --------
    >>> import os, tempfile, ldp
    >>> from ldp.collector.export import write_export
    >>> from ldp.protocol import Protocol, read_reports
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> path = os.path.join(tempfile.mkdtemp(), "reports.csv")
    >>> write_export(protocol, [[("a" * 32, 1700000000, "[2]")]], path)
    1
    >>> read_reports(protocol, path).tolist()
    [2]
    """
    target = os.fspath(path)
    lower = target.lower()
    written = 0
    if lower.endswith((".jsonl", ".ndjson")):
        with open(target, "w", encoding="utf-8") as handle:
            for chunk in chunks:
                for rid, _, text in chunk:
                    handle.write(
                        f'{{"id":"{rid}","fingerprint":"{protocol.fingerprint}","report":{text}}}\n'
                    )
                written += len(chunk)
        return written
    if isinstance(protocol, MarginalProtocol):
        raise ValueError(
            f"a marginals protocol's reports are exported as JSON lines (.jsonl), not {target}"
        )
    parquet = lower.endswith((".parquet", ".pq"))
    writer: Any = None
    with open(target, "wb") as handle:
        for chunk in chunks:
            if not chunk:
                continue
            frame = _frame(protocol, chunk)
            if parquet:
                import pyarrow as pa
                import pyarrow.parquet as pq

                table = pa.Table.from_pandas(frame, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(handle, table.schema)
                writer.write_table(table)
            else:
                handle.write(frame.to_csv(index=False, header=written == 0).encode("utf-8"))
            written += len(frame)
        if written == 0:
            frame = _frame(protocol, [])
            if parquet:
                frame.to_parquet(handle, index=False)
            else:
                handle.write(frame.to_csv(index=False).encode("utf-8"))
        if writer is not None:
            writer.close()
    return written
