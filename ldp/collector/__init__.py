"""The collector: an ingest service for the reports of published protocols (``ldp serve``).

Devices fetch a protocol, privatize an answer and upload the record
``{"id": ..., "fingerprint": ..., "report": [...]}``; the collector checks every record with
the library's own report checks, stores it in SQLite or PostgreSQL with the running
statistic of its protocol in the same transaction (:class:`Store`), and releases estimates
only once a window holds an operator-set minimum number of reports. The HTTP service
(:mod:`ldp.collector.app`, Starlette run by uvicorn) is the ``server`` extra:
``pip install 'ldpkit[server]'``. See ``docs/collector.md``.
"""

from ldp.collector.backends import StoreError
from ldp.collector.records import CheckedRecords, check_records, parse_body
from ldp.collector.schema import SCHEMA_VERSION, SchemaError
from ldp.collector.store import ConflictError, Ingested, Store

__all__ = [
    "SCHEMA_VERSION",
    "CheckedRecords",
    "ConflictError",
    "Ingested",
    "SchemaError",
    "Store",
    "StoreError",
    "check_records",
    "parse_body",
]
