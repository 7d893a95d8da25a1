"""Report tables: what devices send and a server reads, every row carrying its fingerprint.

A report table has a ``fingerprint`` column (the protocol's, on every row) and one column per
report field (``report``, or ``byte_0 ...``, ``hash_0 ... bucket``, ``value``, ...: the
names in the protocol file's ``report`` section). It travels as CSV (with a header row),
Parquet, or JSON lines of the records the clients return
(``{"fingerprint": ..., "report": [...]}``, with or without the report ``"id"`` the clients
add for the collector, ``ldp serve``). Reading refuses, naming the row, a report of
another protocol, a table that mixes fingerprints, and a report the mechanism cannot output;
large files are read in chunks, so memory holds one chunk at a time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ldp.protocol.document import Protocol

__all__ = [
    "FINGERPRINT_COLUMN",
    "ReportWriter",
    "iter_reports",
    "read_reports",
    "records_frame",
    "report_frame",
    "write_reports",
]

FINGERPRINT_COLUMN = "fingerprint"
#: Rows per chunk when reading files.
DEFAULT_CHUNK = 1 << 20


def report_frame(protocol: Protocol, reports: ArrayLike) -> pd.DataFrame:
    """Native reports as a report table (``fingerprint``, then the fields).

    Parameters
    ----------
    protocol : Protocol
        The protocol the reports were made under.
    reports : array_like
        Native reports of its mechanism (checked by its codec).

    Returns
    -------
    pandas.DataFrame
        One row per report: the protocol's fingerprint, then one column per report field.

    Examples
    --------
    >>> import ldp
    >>> from ldp.protocol import Protocol, report_frame
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> report_frame(protocol, [0, 2]).shape
    (2, 2)

    >>> frame = report_frame(protocol, [0, 2])
    >>> frame["report"].tolist(), set(frame["fingerprint"]) == {protocol.fingerprint}
    ([0, 2], True)
    """
    import pandas as pd

    codec = protocol.mechanism.codec
    rows = codec.to_rows(codec.from_rows(reports))
    frame = pd.DataFrame(rows, columns=codec.names)
    frame.insert(0, FINGERPRINT_COLUMN, protocol.fingerprint)
    return frame


def records_frame(protocol: Protocol, records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Client records ``{"fingerprint": ..., "report": [...]}`` as a report table.

    Records are not checked here beyond their shape; :func:`read_reports` checks them. A
    record's ``"id"`` (the report id the clients add) is allowed and not kept.

    Parameters
    ----------
    protocol : Protocol
        The protocol whose report fields name the columns.
    records : iterable of mapping
        Objects with the keys ``"fingerprint"`` and ``"report"`` (a list of numbers, one per
        report field), and optionally ``"id"``.

    Returns
    -------
    pandas.DataFrame
        The fingerprint column, then one column per report field.

    Raises
    ------
    ValueError
        When a record has other keys, the wrong number of fields or a non-number field.

    Examples
    --------
    >>> import ldp
    >>> from ldp.protocol import Protocol, records_frame
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> frame = records_frame(protocol, [{"fingerprint": "f" * 16, "report": [1]}])
    >>> frame.columns.tolist(), frame["report"].tolist()
    (['fingerprint', 'report'], [1])
    >>> records_frame(protocol, [{"fingerprint": "f" * 16, "report": [1, 2]}])
    Traceback (most recent call last):
    ...
    ValueError: record 0: the report must be a list of 1 fields
    """
    import pandas as pd

    names = protocol.mechanism.codec.names
    fingerprints, rows = [], []
    for index, record in enumerate(records):
        if not isinstance(record, Mapping) or not _record_keys(record):
            raise ValueError(
                f"record {index}: a client record is an object with 'fingerprint' and 'report' "
                "(and optionally 'id')"
            )
        report = record["report"]
        if not isinstance(report, list) or len(report) != len(names):
            raise ValueError(f"record {index}: the report must be a list of {len(names)} fields")
        for value in report:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"record {index}: report fields must be numbers")
        fingerprints.append(str(record["fingerprint"]))
        rows.append(report)
    frame = pd.DataFrame(rows, columns=names) if rows else pd.DataFrame(columns=names)
    frame.insert(0, FINGERPRINT_COLUMN, fingerprints)
    return frame


def _record_keys(record: Mapping[str, Any]) -> bool:
    """Whether a client record has the keys of one: ``fingerprint``, ``report``, maybe ``id``."""
    keys = set(record)
    return keys == {"fingerprint", "report"} or keys == {"id", "fingerprint", "report"}


def _check_fingerprints(
    protocol: Protocol, fingerprints: np.ndarray, where: Callable[[int], str]
) -> None:
    mine = protocol.fingerprint
    foreign = fingerprints != mine
    if not np.any(foreign):
        return
    index = int(np.argmax(foreign))
    other = str(fingerprints[index])[:32]
    if np.all(foreign) and np.all(fingerprints == fingerprints[0]):
        raise ValueError(
            f"{where(index)}: the reports carry fingerprint {other!r}, not this protocol's "
            f"{mine!r}: they were made under another protocol (refused)"
        )
    raise ValueError(
        f"{where(index)}: the report carries fingerprint {other!r}, not this protocol's "
        f"{mine!r}: the table mixes reports of different protocols (refused)"
    )


def _frame_chunk(
    protocol: Protocol, frame: pd.DataFrame, where: Callable[[int], str]
) -> np.ndarray:
    codec = protocol.mechanism.codec
    if FINGERPRINT_COLUMN not in frame.columns:
        raise ValueError(
            f"the report table has no {FINGERPRINT_COLUMN!r} column: reports must carry the "
            "protocol's fingerprint"
        )
    missing = [name for name in codec.names if name not in frame.columns]
    if missing:
        raise ValueError(f"the report table lacks the report column(s) {missing[:5]}")
    fingerprints = frame[FINGERPRINT_COLUMN].astype(str).to_numpy()
    _check_fingerprints(protocol, fingerprints, where)
    values = frame[codec.names]
    try:
        rows = values.to_numpy(dtype=np.float64 if codec.is_float else None)
    except (TypeError, ValueError):
        rows = None
    if rows is None or rows.dtype.kind not in "iuf":
        try:
            rows = values.apply(lambda column: _numeric(column)).to_numpy()
        except ValueError:
            bad = _first_non_numeric(values)
            raise ValueError(
                f"{where(bad)}: the report is not a number (not a report of this mechanism)"
            ) from None
    return codec.from_rows(rows, where=where)


def _numeric(column):
    import pandas as pd

    return pd.to_numeric(column, errors="raise")


def _first_non_numeric(values: pd.DataFrame) -> int:
    import pandas as pd

    coerced = values.apply(lambda column: pd.to_numeric(column, errors="coerce"))
    bad = coerced.isna().to_numpy().any(axis=1)
    return int(np.argmax(bad))


def _file_chunks(
    path: str, chunksize: int, names: list[str]
) -> Generator[tuple[pd.DataFrame, Callable[[int], str]], None, None]:
    import pandas as pd

    lower = path.lower()
    if lower.endswith((".parquet", ".pq")):
        import pyarrow.parquet as pq

        handle = pq.ParquetFile(path)
        offset = 0
        for batch in handle.iter_batches(batch_size=chunksize):
            frame = batch.to_pandas()
            start = offset
            yield frame, _row_namer(f"{os.path.basename(path)} row", start)
            offset += len(frame)
        return
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        yield from _json_chunks(path, chunksize, names)
        return
    with pd.read_csv(
        path,
        chunksize=chunksize,
        dtype={FINGERPRINT_COLUMN: str},
        skipinitialspace=True,
    ) as reader:
        offset = 0
        for frame in reader:
            start = offset
            # the header is line 1: data row i of this chunk is line start + i + 2
            yield frame, _row_namer(f"{os.path.basename(path)} line", start + 2)
            offset += len(frame)


def _row_namer(prefix: str, start: int) -> Callable[[int], str]:
    """``where(i)`` naming row ``i`` of a chunk that starts at ``start``."""
    return lambda i: f"{prefix} {start + i}"


def _json_chunks(path: str, chunksize: int, names: list[str]):
    import pandas as pd

    name = os.path.basename(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
        lines = list(enumerate(records))
    else:
        lines = []
        for number, line in enumerate(text.splitlines()):
            if not line.strip():
                continue
            try:
                lines.append((number, json.loads(line)))
            except json.JSONDecodeError:
                raise ValueError(f"{name} line {number + 1}: not a JSON record") from None
    for start in range(0, max(len(lines), 1), chunksize):
        part = lines[start : start + chunksize]
        numbers = [n for n, _ in part]
        rows, prints = [], []
        for n, record in part:
            if (
                not isinstance(record, Mapping)
                or not _record_keys(record)
                or not isinstance(record["report"], list)
            ):
                raise ValueError(
                    f"{name} line {n + 1}: a record is an object with 'fingerprint' and a "
                    "'report' list"
                )
            prints.append(str(record["fingerprint"]))
            rows.append(record["report"])
        for n, row in zip(numbers, rows):
            if len(row) != len(names):
                raise ValueError(
                    f"{name} line {n + 1}: the report has {len(row)} fields; this protocol's "
                    f"have {len(names)}"
                )
        table = pd.DataFrame(rows, columns=names) if rows else pd.DataFrame(columns=names)
        table.insert(0, FINGERPRINT_COLUMN, prints)
        yield table, (lambda i, ns=numbers: f"{name} line {ns[i] + 1}")


def _check_claims(protocol: Protocol, trusted: object, fingerprint: object) -> None:
    """``trusted`` is a bool; a ``fingerprint`` the caller states must be the protocol's."""
    if not isinstance(trusted, (bool, np.bool_)):
        raise TypeError(f"trusted must be True or False, got {type(trusted).__name__}")
    if fingerprint is None:
        return
    if not isinstance(fingerprint, str):
        raise TypeError(f"fingerprint must be a string, got {type(fingerprint).__name__}")
    if fingerprint != protocol.fingerprint:
        raise ValueError(
            f"fingerprint {fingerprint[:32]!r} is not this protocol's {protocol.fingerprint!r}: "
            "the reports were made under another protocol (refused)"
        )


def iter_reports(
    protocol: Protocol,
    source: object,
    *,
    chunksize: int = DEFAULT_CHUNK,
    trusted: bool = False,
    fingerprint: str | None = None,
) -> Iterator[np.ndarray]:
    """Checked native reports of ``protocol`` from ``source``, one chunk at a time.

    Parameters
    ----------
    protocol : Protocol
    source : path, DataFrame, list of client records, ndarray, or iterator of DataFrames
        A CSV file with a header row, a Parquet file or a JSON-lines file of client records
        (by suffix: ``.csv``, ``.parquet``/``.pq``, ``.jsonl``/``.ndjson``/``.json``); a
        report table; the records the clients return; or an array of report fields.
    chunksize : int
        Rows per chunk when reading files.
    trusted : bool
        An array of report fields carries no fingerprint, so nothing in it shows which
        protocol made it: it is read only with ``trusted=True`` (the caller vouches for it,
        for instance reports it has just made with this protocol) or with ``fingerprint``.
        Sources that carry fingerprints are checked whatever ``trusted`` says.
    fingerprint : str, optional
        The fingerprint of the protocol the reports were made under, as the caller knows
        it; it must be this protocol's. It lets an array be read without ``trusted``.

    Raises
    ------
    ValueError
        For a report of another protocol, a table that mixes fingerprints, a report the
        mechanism cannot output, an array without ``trusted`` or ``fingerprint``, or a
        ``fingerprint`` that is not this protocol's.

    Yields
    ------
    ndarray
        Native reports of the mechanism, validated.

    Examples
    --------
    >>> import numpy as np, ldp
    >>> from ldp.protocol import Protocol, iter_reports, report_frame
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> table = report_frame(protocol, [0, 1, 2, 2])
    >>> chunks = list(iter_reports(protocol, iter([table[:2], table[2:]])))
    >>> [chunk.tolist() for chunk in chunks]
    [[0, 1], [2, 2]]
    """
    import pandas as pd

    _check_claims(protocol, trusted, fingerprint)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise ValueError(f"no such reports file: {path}")
        names = protocol.mechanism.codec.names
        chunks = _file_chunks(path, chunksize, names)
        try:
            for frame, where in chunks:
                if frame.shape[0]:
                    yield _frame_chunk(protocol, frame, where)
        finally:
            chunks.close()  # closes the file at once, also when a chunk is refused
        return
    if isinstance(source, pd.DataFrame):
        yield _frame_chunk(protocol, source, lambda i: f"row {i}")
        return
    if isinstance(source, np.ndarray):
        if not trusted and fingerprint is None:
            raise ValueError(
                "an array of report fields carries no fingerprint, so nothing shows which "
                "protocol made it: pass fingerprint= (of the protocol the reports were made "
                "under) or trusted=True, or read a report table, file or client records"
            )
        yield protocol.mechanism.codec.from_rows(source)
        return
    if isinstance(source, list) and (not source or isinstance(source[0], Mapping)):
        frame = records_frame(protocol, source)
        yield _frame_chunk(protocol, frame, lambda i: f"record {i}")
        return
    if isinstance(source, Iterator):
        offset = 0
        for index, chunk in enumerate(source):
            if not isinstance(chunk, pd.DataFrame):
                raise TypeError(f"chunk {index} of the reports is not a DataFrame")
            start = offset
            yield _frame_chunk(protocol, chunk, _row_namer("row", start))
            offset += len(chunk)
        return
    raise TypeError(
        "reports must be a file path, a report table (DataFrame), a list of client records, "
        f"an array of report fields or an iterator of tables; got {type(source).__name__}"
    )


def read_reports(
    protocol: Protocol,
    source: object,
    *,
    trusted: bool = False,
    fingerprint: str | None = None,
) -> np.ndarray:
    """All checked native reports of ``protocol`` in ``source`` (see :func:`iter_reports`).

    Parameters
    ----------
    protocol : Protocol
        The protocol the reports must have been made under (fingerprints are checked).
    source : path, DataFrame, list of client records, ndarray, or iterator of DataFrames
        As for :func:`iter_reports`.
    trusted : bool
        Read an array of report fields (which carries no fingerprint) as this protocol's.
    fingerprint : str, optional
        The fingerprint the reports were made under; it must be this protocol's, and it
        lets an array be read without ``trusted``.

    Returns
    -------
    ndarray
        The native reports, validated, in their order in ``source``.

    Examples
    --------
    >>> import numpy as np, ldp
    >>> from ldp.protocol import Protocol, read_reports
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=["a", "b", "c"])
    >>> records = [{"fingerprint": protocol.fingerprint, "report": [2]}]
    >>> read_reports(protocol, records).tolist()
    [2]
    >>> read_reports(protocol, [{"fingerprint": "0" * 16, "report": [2]}])
    Traceback (most recent call last):
    ...
    ValueError: record 0: the reports carry fingerprint '0000000000000000', not this protocol's ...
    >>> read_reports(protocol, np.array([2, 0]))
    Traceback (most recent call last):
    ...
    ValueError: an array of report fields carries no fingerprint, so nothing shows which ...
    >>> read_reports(protocol, np.array([2, 0]), fingerprint=protocol.fingerprint).tolist()
    [2, 0]
    """
    chunks = list(iter_reports(protocol, source, trusted=trusted, fingerprint=fingerprint))
    codec = protocol.mechanism.codec
    if not chunks:
        return codec.from_rows(np.zeros((0, codec.width)))
    return np.concatenate(chunks, axis=0)


class ReportWriter:
    """Write report tables chunk by chunk: CSV, Parquet or JSON lines (by suffix).

    Parameters
    ----------
    protocol : Protocol
        The protocol whose reports are written (its fingerprint goes in every row).
    path : str or os.PathLike
        The file; ``.parquet``/``.pq`` writes Parquet, ``.jsonl``/``.ndjson`` JSON lines of
        client records, anything else CSV with a header row.

    Examples
    --------
    >>> import os, tempfile, ldp
    >>> from ldp.protocol import Protocol, ReportWriter, read_reports
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> path = os.path.join(tempfile.mkdtemp(), "reports.parquet")
    >>> with ReportWriter(protocol, path) as writer:
    ...     writer.write([0, 1])
    ...     writer.write([2])
    >>> read_reports(protocol, path).tolist()
    [0, 1, 2]
    """

    def __init__(self, protocol: Protocol, path: str | os.PathLike[str]) -> None:
        self.protocol = protocol
        self.path = os.fspath(path)
        lower = self.path.lower()
        self.kind = (
            "parquet"
            if lower.endswith((".parquet", ".pq"))
            else "jsonl"
            if lower.endswith((".jsonl", ".ndjson"))
            else "csv"
        )
        self._parquet: Any = None
        self._handle: Any = None
        self._rows = 0

    def __enter__(self) -> ReportWriter:
        if self.kind != "parquet":
            self._handle = open(self.path, "w", encoding="utf-8", newline="")
        return self

    def write(self, reports: ArrayLike) -> None:
        """Append native reports of the protocol (checked by its codec)."""
        frame = report_frame(self.protocol, reports)
        if self.kind == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self._parquet is None:
                self._parquet = pq.ParquetWriter(self.path, table.schema)
            self._parquet.write_table(table)
        elif self.kind == "jsonl":
            names = self.protocol.mechanism.codec.names
            for row in frame[names].itertuples(index=False):
                record = {
                    "fingerprint": self.protocol.fingerprint,
                    "report": [_plain(v) for v in row],
                }
                self._handle.write(json.dumps(record) + "\n")
        else:
            frame.to_csv(self._handle, index=False, header=self._rows == 0)
        self._rows += len(frame)

    def __exit__(self, *exc: object) -> None:
        if self._parquet is not None:
            self._parquet.close()
        elif self.kind == "parquet" and self._rows == 0:
            report_frame(
                self.protocol, np.zeros((0, self.protocol.mechanism.codec.width))
            ).to_parquet(self.path, index=False)
        if self._handle is not None:
            if self._rows == 0 and self.kind == "csv":
                self._handle.write(
                    ",".join([FINGERPRINT_COLUMN, *self.protocol.mechanism.codec.names]) + "\n"
                )
            self._handle.close()


def write_reports(protocol: Protocol, reports: ArrayLike, path: str | os.PathLike[str]) -> None:
    """Write native reports as a report table: CSV, Parquet or JSON lines (by suffix).

    Parameters
    ----------
    protocol : Protocol
        The protocol the reports were made under.
    reports : array_like
        Native reports of its mechanism (checked by its codec).
    path : str or os.PathLike
        The file; the format follows the suffix as for :class:`ReportWriter`.

    Examples
    --------
    >>> import os, tempfile, ldp
    >>> from ldp.protocol import Protocol, read_reports, write_reports
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> path = os.path.join(tempfile.mkdtemp(), "reports.csv")
    >>> write_reports(protocol, [0, 1, 1], path)
    >>> read_reports(protocol, path).tolist()
    [0, 1, 1]
    """
    with ReportWriter(protocol, path) as writer:
        writer.write(reports)


def _plain(value: object) -> int | float:
    if isinstance(value, np.integer):
        return int(value)
    return float(value) if isinstance(value, np.floating) else value  # type: ignore[return-value]
