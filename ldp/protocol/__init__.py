"""Deploying a privatizer: protocol files, report tables and their checks.

The path a privatizer travels: a mechanism (often a designed :class:`~ldp.Channel`) becomes a
:class:`Protocol` (a versioned JSON file with a fingerprint, its privacy recomputed whenever
it is read); devices run it with the dependency-free clients in ``clients/`` (or
:meth:`Protocol.privatize`); their reports come back as report tables carrying the
fingerprint, which :func:`read_reports` (and the estimators' ``fit_reports``) check before
decoding. The file format and the exact sampling algorithm are specified in
``docs/protocol.md``.
"""

from ldp.protocol.clients import client_source
from ldp.protocol.document import FORMAT, VERSION, Protocol, load
from ldp.protocol.file import ProtocolFile, fingerprint_of
from ldp.protocol.marginals import MarginalProtocol, load_marginals
from ldp.protocol.reports import (
    FINGERPRINT_COLUMN,
    ReportWriter,
    iter_reports,
    read_reports,
    records_frame,
    report_frame,
    write_reports,
)

__all__ = [
    "FINGERPRINT_COLUMN",
    "FORMAT",
    "VERSION",
    "MarginalProtocol",
    "Protocol",
    "ProtocolFile",
    "ReportWriter",
    "client_source",
    "fingerprint_of",
    "iter_reports",
    "load",
    "load_marginals",
    "read_reports",
    "records_frame",
    "report_frame",
    "write_reports",
]
