"""The collector's store: batched ingest throughput and the time of a running estimate.

* ingest: JSON-lines upload bodies of 1,000 GRR records each, parsed, checked and stored
  (:func:`ldp.collector.parse_body`, :meth:`ldp.collector.Store.ingest`: one transaction per
  upload, reports and running statistic together), in one process on one core: reports a
  second into SQLite (target >= 20,000/s) and into PostgreSQL (when a server is given by
  ``LDP_BENCH_POSTGRES_URL`` or ``LDP_TEST_POSTGRES_URL``; else a skipped row);
* estimate: the estimate endpoint's work (:meth:`~ldp.collector.Store.statistic` and
  :func:`~ldp.collector.estimates.estimate_document`) over 1e6 stored reports (1e5 with
  ``--quick``): it reads the running statistic, never the reports (target < 1 s).

Run: ``python -m benchmarks.bench_collector [--quick] [--json out.json]``.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile

import numpy as np

from benchmarks._common import emit, parser, row, timed
from ldp.collector import Store, check_records, parse_body
from ldp.collector.estimates import estimate_document
from ldp.mechanisms import GRR
from ldp.protocol import Protocol

PROTOCOL = Protocol.from_mechanism(GRR(5, 1.0), labels=["a", "b", "c", "d", "e"])
BATCH = 1000


def bodies(n: int, seed: int) -> list[bytes]:
    """Upload bodies (JSON lines) of ``n`` records in batches of ``BATCH``."""
    reports = np.random.default_rng(seed).integers(0, 5, n)
    out = []
    for start in range(0, n, BATCH):
        lines = [
            json.dumps(
                {"id": secrets.token_hex(16), "fingerprint": PROTOCOL.fingerprint, "report": [r]}
            )
            for r in reports[start : start + BATCH].tolist()
        ]
        out.append(("\n".join(lines) + "\n").encode())
    return out


def ingest(store: Store, uploads: list[bytes]) -> float:
    """Seconds to parse, check and store every upload."""

    def run() -> None:
        for body in uploads:
            store.ingest(PROTOCOL, parse_body(body))

    return timed(run)[1]


def ingest_rows(where: str, kind: str, n: int) -> list[dict]:
    with Store(where) as store:
        store.add_protocol(PROTOCOL)
        seconds = ingest(store, bodies(n, 1))
        assert store.statistic(PROTOCOL).n == n
    rate = n / seconds
    target, ok = (">= 20,000/s", rate >= 20_000) if kind == "SQLite" else ("", None)
    return [
        row(f"ingest {n:.0e} reports into {kind} (batches of {BATCH})", rate, "rep/s", target, ok)
    ]


def estimate_rows(where: str, n: int) -> list[dict]:
    with Store(where) as store:
        store.add_protocol(PROTOCOL)
        seconds = ingest(store, bodies(n, 2))

        def answer() -> dict:
            return estimate_document(PROTOCOL, store.statistic(PROTOCOL), min_reports=100)

        answer()  # warm (imports, the decoder)
        document, took = timed(answer)
    assert isinstance(document, dict) and document["n"] == n
    return [
        row(f"  (store {n:.0e} reports for it)", n / seconds, "rep/s"),
        row(f"estimate over {n:.0e} stored reports (SQLite)", took, "s", "< 1 s", took < 1.0),
    ]


def postgres_url() -> str | None:
    return os.environ.get("LDP_BENCH_POSTGRES_URL") or os.environ.get("LDP_TEST_POSTGRES_URL")


def postgres_rows(n: int) -> list[dict]:
    url = postgres_url()
    name = f"ingest {n:.0e} reports into PostgreSQL (batches of {BATCH})"
    if url is None:
        return [
            row(
                name,
                float("nan"),
                "rep/s",
                status="skipped",
                note="no PostgreSQL server: set LDP_BENCH_POSTGRES_URL",
            )
        ]
    import psycopg

    database = f"ldp_bench_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    try:
        return ingest_rows(url.rpartition("/")[0] + "/" + database, "PostgreSQL", n)
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def warm() -> None:
    """Import what the checks use (pandas) before anything is timed."""
    check_records(PROTOCOL, parse_body(bodies(1, 9)[0]))


def run(quick: bool = False) -> list[dict]:
    warm()
    n_ingest = 20_000 if quick else 200_000
    n_estimate = 100_000 if quick else 1_000_000
    with tempfile.TemporaryDirectory() as folder:
        rows = ingest_rows(os.path.join(folder, "ingest.sqlite"), "SQLite", n_ingest)
        rows += postgres_rows(n_ingest)
        rows += estimate_rows(os.path.join(folder, "estimate.sqlite"), n_estimate)
    return rows


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    emit("The collector's store", run(args.quick), args.json)


if __name__ == "__main__":
    main()
