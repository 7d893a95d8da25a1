"""The report store: checked reports and their running statistic, kept in step.

:class:`Store` keeps every accepted report of the protocols it serves, keyed by the
protocol's fingerprint and the device's report id, and for each protocol and time window the
decoder's mergeable statistic of those reports (``Protocol(...).decoder.aggregate``, added
with ``+``). An upload is one transaction: the records are checked first
(:func:`~ldp.collector.records.check_records`: the library's own report checks), then the
new reports are inserted and the window's statistic is replaced by the old one plus theirs,
and both are committed together or not at all. A retry of an upload (the same ids and
reports) adds nothing and is acknowledged again; a known id with another report is refused.
Estimates therefore read a few statistic rows, never the reports. A marginals protocol
(:class:`~ldp.protocol.MarginalProtocol`) is stored the same way: its reports are
``[group, fields...]`` and its statistic each group's counts
(:mod:`ldp.collector.marginals`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ldp.collector.backends import Backend, StoreError, open_backend
from ldp.collector.marginals import MarginalDecoder
from ldp.collector.records import CheckedRecords, check_records
from ldp.collector.schema import DEFAULT_WINDOW_SECONDS, SCHEMA_VERSION, TABLES, SchemaError
from ldp.collector.statistics import dump_statistic, load_statistic
from ldp.protocol import MarginalProtocol, Protocol
from ldp.protocol.canonical import parse_document
from ldp.protocol.file import read_text
from ldp.protocol.marginals import MARGINALS

#: What a store serves: a one-question protocol or a marginals protocol.
Served = Protocol | MarginalProtocol

__all__ = [
    "ConflictError",
    "Ingested",
    "Served",
    "Store",
    "StoreError",
    "load_protocol",
    "read_protocol",
]

#: Rows fetched per round trip when reading reports back.
_FETCH = 1 << 14


class ConflictError(ValueError):
    """A report id the store holds, sent again with another report (nothing was stored).

    Examples
    --------
    >>> import os, tempfile, ldp
    >>> from ldp.collector import ConflictError, Store
    >>> from ldp.protocol import Protocol
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> store = Store(os.path.join(tempfile.mkdtemp(), "reports.sqlite"))
    >>> store.add_protocol(protocol)
    >>> record = {"id": "1" * 32, "fingerprint": protocol.fingerprint, "report": [0]}
    >>> store.ingest(protocol, [record]).accepted
    1
    >>> try:
    ...     store.ingest(protocol, [dict(record, report=[2])])
    ... except ConflictError as exc:
    ...     print(exc)
    record 0: its id is stored with another report: a retry must resend the same report ...
    >>> store.close()
    """


@dataclass(frozen=True)
class Ingested:
    """What one upload did.

    Parameters
    ----------
    accepted : int
        Reports stored by this upload.
    duplicates : int
        Reports the store already held (retries), acknowledged without counting again.
    window_start : int
        The start (seconds since the epoch) of the time window the new reports joined.

    Examples
    --------
    >>> from ldp.collector import Ingested
    >>> Ingested(accepted=3, duplicates=1, window_start=1764288000).accepted
    3
    """

    accepted: int
    duplicates: int
    window_start: int


class Store:
    """Reports of one or more protocols and their running statistics, in SQLite or PostgreSQL.

    Parameters
    ----------
    where : str or os.PathLike
        A SQLite file (created if missing) or a ``postgresql://`` URL.
    window_seconds : int, optional
        Width of the time windows of a new store (default one hour); an existing store keeps
        its own, and a different value is refused.

    Raises
    ------
    SchemaError
        For a store of another schema version.
    StoreError
        When the database cannot be opened or written.

    Examples
    --------
    >>> import os, tempfile, ldp
    >>> from ldp.collector import Store
    >>> from ldp.protocol import Protocol
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=["a", "b", "c"])
    >>> store = Store(os.path.join(tempfile.mkdtemp(), "reports.sqlite"))
    >>> store.add_protocol(protocol)
    >>> record = {"id": "0f" * 16, "fingerprint": protocol.fingerprint, "report": [1]}
    >>> store.ingest(protocol, [record]).accepted, store.ingest(protocol, [record]).duplicates
    (1, 1)
    >>> store.statistic(protocol).counts.tolist()
    [0, 1, 0]
    >>> store.close()
    """

    def __init__(self, where: str | os.PathLike[str], *, window_seconds: int | None = None) -> None:
        if window_seconds is not None and (
            isinstance(window_seconds, bool)
            or not isinstance(window_seconds, int)
            or window_seconds < 1
        ):
            raise ValueError(
                f"window_seconds must be a positive whole number of seconds, got {window_seconds!r}"
            )
        self._backend: Backend = open_backend(where)
        try:
            self.window_seconds = self._prepare(window_seconds)
        except BaseException:
            self._backend.close()
            raise
        self._decoders: dict[str, Any] = {}

    # ----------------------------------------------------------------- schema
    def _prepare(self, window_seconds: int | None) -> int:
        backend = self._backend
        try:
            with backend.transaction() as cursor:
                for statement in TABLES:
                    cursor.execute(statement)
                cursor.execute("SELECT name, value FROM ldp_meta")
                meta = dict(cursor.fetchall())
                if not meta:
                    width = DEFAULT_WINDOW_SECONDS if window_seconds is None else window_seconds
                    cursor.executemany(
                        backend.sql("INSERT INTO ldp_meta (name, value) VALUES (?, ?)"),
                        [("schema_version", str(SCHEMA_VERSION)), ("window_seconds", str(width))],
                    )
                    meta = {"schema_version": str(SCHEMA_VERSION), "window_seconds": str(width)}
        except backend.errors as exc:
            raise backend.fail(exc, "prepare its tables") from None
        version = meta.get("schema_version")
        if version != str(SCHEMA_VERSION):
            raise SchemaError(
                f"the store holds schema version {version}; this ldpkit reads version "
                f"{SCHEMA_VERSION} (refused: nothing was read or changed)"
            )
        try:
            width = int(meta["window_seconds"])
        except (KeyError, ValueError):
            raise SchemaError("the store's ldp_meta has no valid window_seconds") from None
        if window_seconds is not None and window_seconds != width:
            raise ValueError(
                f"window_seconds={window_seconds}, but this store was created with "
                f"windows of {width} seconds"
            )
        return width

    @property
    def kind(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._backend.kind

    # ----------------------------------------------------------------- protocols
    def add_protocol(self, protocol: Served) -> None:
        """Serve ``protocol``: its document is kept beside its reports (once)."""
        if not isinstance(protocol, (Protocol, MarginalProtocol)):
            raise TypeError(
                f"protocol must be a Protocol or a MarginalProtocol, got {type(protocol).__name__}"
            )
        backend = self._backend
        document = protocol.to_json(indent=None)
        try:
            with backend.transaction() as cursor:
                cursor.execute(
                    backend.sql(
                        "INSERT INTO ldp_protocols (fingerprint, document) VALUES (?, ?) "
                        "ON CONFLICT (fingerprint) DO NOTHING"
                    ),
                    (protocol.fingerprint, document),
                )
        except backend.errors as exc:
            raise backend.fail(exc, "record the protocol") from None

    def protocols(self) -> list[Served]:
        """The protocols the store has served, read back (and checked) from their documents."""
        with self._reading("list the protocols") as cursor:
            cursor.execute("SELECT document FROM ldp_protocols ORDER BY fingerprint")
            documents = [row[0] for row in cursor.fetchall()]
        return [read_protocol(text) for text in documents]

    def _decoder(self, protocol: Served) -> Any:
        decoder = self._decoders.get(protocol.fingerprint)
        if decoder is None:
            decoder = (
                MarginalDecoder(protocol)
                if isinstance(protocol, MarginalProtocol)
                else protocol.decoder
            )
            self._decoders[protocol.fingerprint] = decoder
        return decoder

    # ----------------------------------------------------------------- writing
    def ingest(
        self, protocol: Served, records: Sequence[Any], *, now: float | None = None
    ) -> Ingested:
        """Check and store client records of ``protocol`` in one transaction.

        Parameters
        ----------
        protocol : Protocol or MarginalProtocol
            A protocol added with :meth:`add_protocol`.
        records : sequence of mapping
            ``{"id": ..., "fingerprint": ..., "report": [...]}`` each.
        now : float, optional
            The arrival time in seconds since the epoch (default: the clock); it picks the
            time window.

        Returns
        -------
        Ingested

        Raises
        ------
        ValueError
            For a record that fails a check (nothing of the upload is stored).
        ConflictError
            For an id the store holds with another report (nothing is stored).
        StoreError
            When the database refuses the write (nothing is stored).
        """
        checked = check_records(protocol, records)
        received = time.time() if now is None else float(now)
        if not math.isfinite(received) or received < 0:
            raise ValueError(f"now must be a time in seconds since the epoch, got {now!r}")
        window = int(received // self.window_seconds) * self.window_seconds
        backend = self._backend
        fingerprint = protocol.fingerprint
        decoder = self._decoder(protocol)
        try:
            with backend.transaction(fingerprint) as cursor:
                if not self._known(cursor, fingerprint):
                    raise ValueError(
                        f"protocol {fingerprint} is not served by this store (add_protocol)"
                    )
                new = self._new_rows(cursor, fingerprint, checked)
                if new:
                    backend.insert(
                        cursor,
                        fingerprint,
                        [checked.ids[i] for i in new],
                        int(received),
                        [checked.texts[i] for i in new],
                    )
                    self._add_statistic(
                        cursor, fingerprint, window, decoder.aggregate(checked.reports[new])
                    )
        except backend.errors as exc:
            raise backend.fail(exc, "store the reports") from None
        return Ingested(len(new), len(checked) - len(new), window)

    def _known(self, cursor: Any, fingerprint: str) -> bool:
        cursor.execute(
            self._backend.sql("SELECT 1 FROM ldp_protocols WHERE fingerprint = ?"), (fingerprint,)
        )
        return cursor.fetchone() is not None

    def _new_rows(self, cursor: Any, fingerprint: str, checked: CheckedRecords) -> list[int]:
        """Indexes of the records the store does not hold; a held id with another report
        raises :class:`ConflictError`."""
        stored = self._backend.stored(cursor, fingerprint, checked.ids)
        if not stored:
            return list(range(len(checked)))
        new = []
        for index, rid in enumerate(checked.ids):
            held = stored.get(rid)
            if held is None:
                new.append(index)
            elif held != checked.texts[index]:
                raise ConflictError(
                    f"record {checked.positions[index]}: its id is stored with another report: "
                    "a retry must resend the same report (refused, nothing stored)"
                )
        return new

    def _add_statistic(self, cursor: Any, fingerprint: str, window: int, statistic: Any) -> None:
        sql = self._backend.sql
        cursor.execute(
            sql("SELECT statistic FROM ldp_statistics WHERE fingerprint = ? AND window_start = ?"),
            (fingerprint, window),
        )
        row = cursor.fetchone()
        total = statistic if row is None else load_statistic(row[0]) + statistic
        cursor.execute(
            sql(
                "INSERT INTO ldp_statistics (fingerprint, window_start, n, statistic) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (fingerprint, window_start) DO UPDATE SET "
                "n = excluded.n, statistic = excluded.statistic"
            ),
            (fingerprint, window, int(total.n), dump_statistic(total)),
        )

    # ----------------------------------------------------------------- reading
    @contextmanager
    def _reading(self, what: str, *, scan: bool = False) -> Iterator[Any]:
        backend = self._backend
        try:
            with backend.scanning() if scan else backend.reading() as cursor:
                yield cursor
        except backend.errors as exc:
            raise backend.fail(exc, what) from None

    def statistic(
        self, protocol: Served, *, start: float | None = None, end: float | None = None
    ) -> Any:
        """The running statistic of ``protocol``'s reports: all of them, or those of the
        time windows that start in ``[start, end)`` (seconds since the epoch).

        It reads one row per window, never the reports.
        """
        clauses, values = ["fingerprint = ?"], [protocol.fingerprint]
        for label, bound, op in (("start", start, ">="), ("end", end, "<")):
            if bound is not None:
                if (
                    isinstance(bound, bool)
                    or not isinstance(bound, (int, float))
                    or not (math.isfinite(bound))
                ):
                    raise ValueError(
                        f"{label} must be a finite number of seconds since the epoch, got {bound!r}"
                    )
                clauses.append(f"window_start {op} ?")
                values.append(math.ceil(bound))  # type: ignore[arg-type]
        decoder = self._decoder(protocol)
        with self._reading("read the statistic") as cursor:
            cursor.execute(
                self._backend.sql(
                    f"SELECT statistic FROM ldp_statistics WHERE {' AND '.join(clauses)}"
                ),
                tuple(values),
            )
            texts = [row[0] for row in cursor.fetchall()]
        total = decoder.empty_statistic()
        for text in texts:
            total = total + load_statistic(text)
        return total

    def ping(self) -> None:
        """Raise :class:`StoreError` unless the database answers a query."""
        with self._reading("answer") as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchall()

    def count(self, protocol: Served) -> int:
        """The number of stored reports of ``protocol`` (counted in the reports table)."""
        with self._reading("count the reports") as cursor:
            cursor.execute(
                self._backend.sql("SELECT COUNT(*) FROM ldp_reports WHERE fingerprint = ?"),
                (protocol.fingerprint,),
            )
            return int(cursor.fetchone()[0])

    def rows(self, protocol: Served) -> Iterator[list[tuple[str, int, str]]]:
        """The stored reports of ``protocol`` as chunks of ``(id, received, report)`` rows,
        in order of arrival (then id).

        The rows come from the database a chunk at a time (PostgreSQL: a server-side
        cursor); this store's other operations wait until the iteration ends, so export from
        a store of its own (``ldp export`` opens one) while a collector writes.
        """
        with self._reading("read the reports", scan=True) as cursor:
            cursor.execute(
                self._backend.sql(
                    "SELECT id, received, report FROM ldp_reports WHERE fingerprint = ? "
                    "ORDER BY received, id"
                ),
                (protocol.fingerprint,),
            )
            while True:
                chunk = cursor.fetchmany(_FETCH)
                if not chunk:
                    return
                yield [(str(a), int(b), str(c)) for a, b, c in chunk]

    def export(self, protocol: Served, path: str | os.PathLike[str]) -> int:
        """Write ``protocol``'s stored reports to a report table; returns the number written.

        ``.parquet``/``.pq`` writes Parquet (pyarrow; the input of
        ``ldp.distributed.aggregate`` and ``ldp estimate``), ``.jsonl``/``.ndjson`` the
        client records (with their ids), anything else CSV; tables carry the ``fingerprint``
        and report columns and the ``id`` and ``received`` of each report. A marginals
        protocol's reports (one group's fields each) are written as JSON lines only.
        """
        from ldp.collector.export import write_export

        return write_export(protocol, self.rows(protocol), path)

    def close(self) -> None:
        """Close the database connection."""
        self._backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_protocol(text: str) -> Served:
    """The protocol of a stored document: a marginals protocol or a one-question one.

    Examples
    --------
    >>> import ldp
    >>> from ldp.collector.store import read_protocol
    >>> from ldp.protocol import Protocol
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> read_protocol(protocol.to_json()) == protocol
    True
    """
    document = parse_document(text)
    mechanism = document.get("mechanism") if isinstance(document, dict) else None
    if isinstance(mechanism, dict) and mechanism.get("name") == MARGINALS:
        return MarginalProtocol.from_dict(document)
    return Protocol.from_dict(document)


def load_protocol(path: str | os.PathLike[str]) -> Served:
    """Read a protocol file of either kind (the checks of :func:`read_protocol`).

    Examples
    --------
    >>> import os, tempfile
    >>> from ldp.collector.store import load_protocol
    >>> from ldp.protocol import MarginalProtocol
    >>> from ldp.tasks.marginals import build_design
    >>> protocol = MarginalProtocol.from_design(
    ...     build_design("joint", (2, 2), [(0, 1)], 1.0), [("a", [0, 1]), ("b", [0, 1])])
    >>> path = os.path.join(tempfile.mkdtemp(), "marginals.json")
    >>> protocol.save(path)
    >>> load_protocol(path) == protocol
    True
    """
    return read_protocol(read_text(path))
