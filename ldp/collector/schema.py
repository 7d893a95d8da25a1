"""The collector's tables, in SQL that SQLite and PostgreSQL both run, and their version.

Four tables, all prefixed ``ldp_`` so that a store can live in a database shared with other
applications:

* ``ldp_meta (name, value)``: ``schema_version`` and ``window_seconds`` (the width of the
  time windows of the running statistic, fixed when the store is created);
* ``ldp_protocols (fingerprint, document)``: the protocol files served, as canonical JSON;
* ``ldp_reports (fingerprint, id, received, report)``: one row per accepted report, keyed by
  the protocol's fingerprint and the device's report id (a retry finds its row and adds
  nothing); ``received`` is the arrival in seconds since the epoch, ``report`` the fields as
  compact JSON (a marginals protocol's: ``[group, fields...]``);
* ``ldp_statistics (fingerprint, window_start, n, statistic)``: the running statistic of each
  protocol and time window (:mod:`ldp.collector.statistics`; a marginals protocol's is each
  group's counts), updated in the transaction that inserts the reports, so it always equals
  the aggregate of the stored rows.

Marginals protocols use these tables as they are (version 1): a store made before them opens
and serves them too.

A store written by another version of the schema is refused (:class:`SchemaError`), never
read or changed.
"""

from __future__ import annotations

__all__ = ["DEFAULT_WINDOW_SECONDS", "SCHEMA_VERSION", "TABLES", "SchemaError"]

#: The version of the tables this library reads and writes.
SCHEMA_VERSION = 1
#: Width of the time windows of a new store: one hour.
DEFAULT_WINDOW_SECONDS = 3600

#: ``CREATE TABLE`` statements, in order.
TABLES = (
    "CREATE TABLE IF NOT EXISTS ldp_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS ldp_protocols "
    "(fingerprint TEXT PRIMARY KEY, document TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS ldp_reports (fingerprint TEXT NOT NULL, id TEXT NOT NULL, "
    "received BIGINT NOT NULL, report TEXT NOT NULL, PRIMARY KEY (fingerprint, id))",
    "CREATE TABLE IF NOT EXISTS ldp_statistics (fingerprint TEXT NOT NULL, "
    "window_start BIGINT NOT NULL, n BIGINT NOT NULL, statistic TEXT NOT NULL, "
    "PRIMARY KEY (fingerprint, window_start))",
)


class SchemaError(RuntimeError):
    """The database holds a store of another schema version (or a damaged one).

    Examples
    --------
    >>> import os, sqlite3, tempfile
    >>> from ldp.collector import SchemaError, Store
    >>> path = os.path.join(tempfile.mkdtemp(), "reports.sqlite")
    >>> Store(path).close()
    >>> with sqlite3.connect(path) as db:
    ...     _ = db.execute("UPDATE ldp_meta SET value = '7' WHERE name = 'schema_version'")
    >>> try:
    ...     Store(path)
    ... except SchemaError as exc:
    ...     print(exc)
    the store holds schema version 7; this ldpkit reads version 1 (refused: nothing was ...
    """
