"""``ldp serve``: the collector for one or more protocol files (the ``server`` extra).

``ldp serve PROTOCOL.json [MORE.json ...] --store reports.sqlite --port 8000 --min-reports
100`` checks the files (one-question protocols and marginals protocols, a table's survey),
opens (or creates) the store, and serves the endpoints of
:mod:`ldp.collector.app` with uvicorn until it gets SIGINT or SIGTERM; then it stops taking
connections, lets the requests in flight finish (their transactions commit or roll back
whole), and closes the store. Logs are JSON lines on stderr.
"""

from __future__ import annotations

import argparse

from ldp.cli._common import UserError, input_file, reading

__all__ = ["add_parser", "run"]

#: Seconds uvicorn gives requests in flight to finish after SIGINT or SIGTERM.
GRACE_SECONDS = 30


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "serve",
        help="the collector: an ingest service for the reports of protocol files",
        description="Serve PROTOCOL files to devices, take their reports (checked, stored "
        "idempotently by report id with the running statistic in one transaction) and answer "
        "running estimates once --min-reports reports are in. Needs the server extra: "
        "pip install 'ldpkit[server]'.",
    )
    parser.add_argument(
        "protocols",
        nargs="+",
        metavar="PROTOCOL",
        help="protocol files (one-question or marginals protocols)",
    )
    parser.add_argument(
        "--store",
        required=True,
        help="a SQLite file (created if missing) or a postgresql:// URL",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument(
        "--min-reports",
        type=int,
        default=100,
        help="the fewest reports (per queried window) an estimate is released from",
    )
    parser.add_argument(
        "--token-file", help="a file holding the operator token the estimate endpoint requires"
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an origin whose pages may call the service (repeatable)",
    )
    parser.add_argument(
        "--max-body", type=int, default=1 << 20, help="largest upload body in bytes"
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        default=50.0,
        help="uploads a second per client address (0: no limit)",
    )
    parser.add_argument(
        "--window-seconds",
        type=int,
        help="width of the time windows of a new store (default 3600)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON when it stops")


def _token(path: str | None) -> str | None:
    if path is None:
        return None
    source = input_file(path, "token file", "--token-file")
    with (
        reading(source, "token file", "--token-file"),
        open(source, encoding="utf-8") as handle,
    ):
        token = handle.read().strip()
    if not token:
        raise UserError(f"--token-file: {path} is empty")
    return token


def run(args: argparse.Namespace) -> tuple[dict, str]:
    import json
    import logging
    import sys

    try:
        import uvicorn

        from ldp.collector.app import LOGGER, create_app
    except ImportError:
        raise UserError("ldp serve needs the server extra: pip install 'ldpkit[server]'") from None
    from ldp.collector import SchemaError, Store, StoreError
    from ldp.collector.store import load_protocol

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be in 0..65535, got {args.port}")
    protocols = [load_protocol(input_file(path, "protocol file")) for path in args.protocols]
    token = _token(args.token_file)
    try:
        store = Store(args.store, window_seconds=args.window_seconds)
    except (StoreError, SchemaError) as exc:
        raise UserError(f"--store: {exc}") from None
    try:
        app = create_app(
            store,
            protocols,
            min_reports=args.min_reports,
            token=token,
            cors_origins=args.cors_origin,
            max_body=args.max_body,
            rate=args.rate_limit if args.rate_limit > 0 else None,
        )
    except (ValueError, StoreError) as exc:
        store.close()
        message = str(exc).replace("min_reports", "--min-reports").replace("max_body", "--max-body")
        raise UserError(message) from None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)
    LOGGER.propagate = False
    url = f"http://{args.host}:{args.port}"
    LOGGER.info(
        json.dumps(
            {
                "event": "serving",
                "url": url,
                "store": store.kind,
                "protocols": [p.fingerprint for p in protocols],
                "min_reports": args.min_reports,
            }
        )
    )
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    uvicorn.Server(config).run()
    return {"stopped": True, "url": url}, f"ldp serve: stopped ({url})"
