"""The two databases a store runs on: SQLite (a file, the default) and PostgreSQL (by URL).

Each backend gives the store a cursor inside a transaction that holds the protocol's write
lock, a cursor for reads, and its placeholder style; the store's SQL is the same for both.

**SQLite** runs in WAL mode (readers never wait for the writer) with ``synchronous=FULL``:
every commit is on disk before the upload is acknowledged, so a report acknowledged before a
power cut is still there after it (``NORMAL`` would survive a killed process too, but not a
lost machine). A write transaction starts with ``BEGIN IMMEDIATE``, which takes the
database's one write lock at once, so two uploads never interleave.

**PostgreSQL** (psycopg 3, the ``server`` extra) takes a row lock on the protocol's row of
``ldp_protocols`` (``SELECT ... FOR UPDATE``) at the start of every write transaction:
writers of one protocol, in any number of server processes, take turns on its running
statistic, and writers of different protocols do not wait for each other.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["Backend", "PostgresBackend", "SQLiteBackend", "StoreError", "open_backend"]

#: Seconds a writer waits for SQLite's write lock before the upload fails (503).
BUSY_TIMEOUT = 10.0
#: Ids looked up per query in SQLite (its limit on bound parameters is far above this).
LOOKUP = 500


class StoreError(RuntimeError):
    """The database could not do what was asked (full, read-only, unreachable, locked):
    nothing of the operation was stored.

    Examples
    --------
    >>> import os, tempfile
    >>> from ldp.collector import Store, StoreError
    >>> try:
    ...     Store(os.path.join(tempfile.mkdtemp(), "missing", "reports.sqlite"))
    ... except StoreError as exc:
    ...     print(exc)
    the sqlite store could not open ...: unable to open database file
    """


class Backend:
    """What the store needs of a database (see the module notes)."""

    kind = "?"
    errors: tuple[type[BaseException], ...] = ()

    def __init__(self) -> None:
        self.lock = threading.RLock()

    def sql(self, text: str) -> str:
        """``text`` (with ``?`` placeholders) in this database's placeholder style."""
        return text

    @contextmanager
    def transaction(self, fingerprint: str | None = None) -> Iterator[Any]:
        """A cursor in a write transaction (committed when the block ends, rolled back on an
        exception), holding the write lock of ``fingerprint``'s protocol."""
        raise NotImplementedError  # pragma: no cover
        yield

    @contextmanager
    def reading(self) -> Iterator[Any]:
        """A cursor for reads."""
        raise NotImplementedError  # pragma: no cover
        yield

    @contextmanager
    def scanning(self) -> Iterator[Any]:
        """A cursor for a long read, fetched in chunks (by default :meth:`reading`'s)."""
        with self.reading() as cursor:
            yield cursor

    def close(self) -> None:
        raise NotImplementedError  # pragma: no cover

    def stored(self, cursor: Any, fingerprint: str, ids: Sequence[str]) -> dict[str, str]:
        """The stored report (compact JSON) of each of ``ids`` the store holds."""
        found: dict[str, str] = {}
        for start in range(0, len(ids), LOOKUP):
            part = ids[start : start + LOOKUP]
            marks = ", ".join("?" * len(part))
            cursor.execute(
                self.sql(
                    f"SELECT id, report FROM ldp_reports WHERE fingerprint = ? AND id IN ({marks})"
                ),
                (fingerprint, *part),
            )
            found.update(cursor.fetchall())
        return found

    def insert(
        self, cursor: Any, fingerprint: str, ids: Sequence[str], received: int, texts: Sequence[str]
    ) -> None:
        """Insert the reports ``texts`` with their ``ids``, all received at ``received``."""
        cursor.executemany(
            self.sql(
                "INSERT INTO ldp_reports (fingerprint, id, received, report) VALUES (?, ?, ?, ?)"
            ),
            [(fingerprint, rid, received, text) for rid, text in zip(ids, texts)],
        )

    def fail(self, exc: BaseException, what: str) -> StoreError:
        """A :class:`StoreError` saying what failed and the database's one-line reason."""
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"the {self.kind} store could not {what}: {reason}")


class SQLiteBackend(Backend):
    """A SQLite file in WAL mode (see the module notes)."""

    kind = "sqlite"
    errors = (sqlite3.Error,)

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        try:
            self.connection = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT
            )
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as exc:
            raise self.fail(exc, f"open {path}") from None

    @contextmanager
    def transaction(self, fingerprint: str | None = None) -> Iterator[sqlite3.Cursor]:
        with self.lock:
            cursor = self.connection.cursor()
            cursor.execute("BEGIN IMMEDIATE")
            try:
                yield cursor
                cursor.execute("COMMIT")
            except BaseException:
                if self.connection.in_transaction:
                    self.connection.execute("ROLLBACK")
                raise

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Cursor]:
        with self.lock:
            yield self.connection.cursor()

    def close(self) -> None:
        with self.lock:
            self.connection.close()


class PostgresBackend(Backend):
    """A PostgreSQL database by URL, through psycopg 3 (see the module notes)."""

    kind = "postgresql"

    def __init__(self, url: str) -> None:
        super().__init__()
        try:
            import psycopg
        except ImportError:
            raise ImportError(
                "a postgresql:// store needs psycopg 3: pip install 'ldpkit[server]'"
            ) from None
        self._psycopg = psycopg
        self.errors = (psycopg.Error,)
        self.url = url
        try:
            self.connection = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            raise self.fail(exc, "connect") from None

    def sql(self, text: str) -> str:
        return text.replace("?", "%s")

    # one statement with an array parameter each: a plan that does not depend on the number
    # of ids (psycopg prepares statements it runs often) and one round trip
    def stored(self, cursor: Any, fingerprint: str, ids: Sequence[str]) -> dict[str, str]:
        cursor.execute(
            "SELECT id, report FROM ldp_reports WHERE fingerprint = %s AND id = ANY(%s)",
            (fingerprint, list(ids)),
        )
        return dict(cursor.fetchall())

    def insert(
        self, cursor: Any, fingerprint: str, ids: Sequence[str], received: int, texts: Sequence[str]
    ) -> None:
        cursor.execute(
            "INSERT INTO ldp_reports (fingerprint, id, received, report) "
            "SELECT %s, i, %s, r FROM unnest(%s::text[], %s::text[]) AS t(i, r)",
            (fingerprint, received, list(ids), list(texts)),
        )

    def _live(self) -> Any:
        if self.connection.closed or self.connection.broken:
            self.connection = self._psycopg.connect(self.url, autocommit=True)
        return self.connection

    @contextmanager
    def transaction(self, fingerprint: str | None = None) -> Iterator[Any]:
        with self.lock:
            connection = self._live()
            with connection.transaction(), connection.cursor() as cursor:
                if fingerprint is None:  # the schema: one creator at a time
                    cursor.execute("SELECT pg_advisory_xact_lock(7163428931)")
                else:
                    cursor.execute(
                        "SELECT 1 FROM ldp_protocols WHERE fingerprint = %s FOR UPDATE",
                        (fingerprint,),
                    )
                yield cursor

    @contextmanager
    def reading(self) -> Iterator[Any]:
        with self.lock:
            connection = self._live()
            with connection.transaction(), connection.cursor() as cursor:
                yield cursor

    @contextmanager
    def scanning(self) -> Iterator[Any]:
        # a server-side cursor: the rows come in chunks, not all at once into memory
        with self.lock:
            connection = self._live()
            with connection.transaction(), connection.cursor(name="ldp_scan") as cursor:
                yield cursor

    def close(self) -> None:
        with self.lock:
            self.connection.close()


def open_backend(where: str | os.PathLike[str]) -> Backend:
    """The backend of ``where``: a ``postgresql://`` (or ``postgres://``) URL, else a SQLite
    file path (created if missing)."""
    text = os.fspath(where)
    if not isinstance(text, str) or not text:
        raise ValueError(f"store must be a SQLite file path or a postgresql:// URL, got {where!r}")
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresBackend(text)
    return SQLiteBackend(text)
