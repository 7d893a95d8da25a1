"""``ldp export``: the reports a collector stored for one protocol, as a report table.

``ldp export --store reports.sqlite --protocol protocol.json --out reports.parquet`` writes
Parquet (the input of the Dask path and of ``ldp estimate``), ``.jsonl`` the client records
(the only format of a marginals protocol's reports), anything else CSV; it reads the store
while a collector writes to it (SQLite in WAL mode, PostgreSQL), and exports the reports
committed when it starts reading.
"""

from __future__ import annotations

import argparse

from ldp.cli._common import UserError, atomic_output, input_file, row

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "export",
        help="the reports a collector stored for a protocol, as a report table",
        description="Write the stored reports of the protocol file PROTOCOL from the "
        "collector's store to OUT (.parquet, .jsonl or .csv).",
    )
    parser.add_argument("--store", required=True, help="the SQLite file or postgresql:// URL")
    parser.add_argument("--protocol", required=True, help="the protocol file")
    parser.add_argument("--out", required=True, help="the report table to write")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.collector import SchemaError, Store, StoreError
    from ldp.collector.store import load_protocol
    from ldp.protocol import MarginalProtocol

    protocol = load_protocol(input_file(args.protocol, "protocol file", "--protocol"))
    if isinstance(protocol, MarginalProtocol) and not args.out.lower().endswith(
        (".jsonl", ".ndjson")
    ):
        raise UserError(
            "--out: a marginals protocol's reports are exported as client records: name a "
            ".jsonl file (ldp estimate --protocol PROTOCOL decodes it)"
        )
    try:
        with Store(args.store) as store, atomic_output(args.out, "--out") as out:
            written = store.export(protocol, out)
    except (StoreError, SchemaError) as exc:
        raise UserError(f"--store: {exc}") from None
    data = {"protocol": protocol.fingerprint, "reports": written, "out": args.out}
    text = "\n".join(
        [f"exported to {args.out}", row("protocol", protocol.fingerprint), row("reports", written)]
    )
    return data, text
