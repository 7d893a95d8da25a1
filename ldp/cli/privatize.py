"""``ldp privatize``: a device simulator that runs a protocol file on a CSV of answers."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from ldp.cli._common import UserError, atomic_output, count, input_file, reading, row

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "privatize",
        help="run a protocol file on a CSV of answers, as devices would (a simulator)",
        description="Reads ANSWERS (CSV with a header row) in chunks and writes one report per "
        "answer, with the protocol's fingerprint, to --out (CSV, Parquet or JSON lines by "
        "suffix). The noise comes from the operating system's CSPRNG unless --rng is given.",
    )
    parser.add_argument("answers", help="CSV file with a header row, one answer per row")
    parser.add_argument("--protocol", required=True, help="the protocol file to run")
    parser.add_argument("--out", required=True, help="reports file (.csv, .parquet or .jsonl)")
    parser.add_argument(
        "--column", help="the answers' column (comma-separated columns for vector answers)"
    )
    parser.add_argument("--rng", type=int, help="seed the noise (simulations and tests only)")
    parser.add_argument("--chunksize", type=count, default=1 << 18, help="answers per chunk")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _chunks(reader: Iterator, path: str) -> Iterator:
    """The reader's chunks; an error of reading them (not of writing the reports) names the
    answers file."""
    chunks = iter(reader)
    while True:
        with reading(path, "answers file"):
            chunk = next(chunks, None)
        if chunk is None:
            return
        yield chunk


def run(args: argparse.Namespace) -> tuple[dict, str]:
    import numpy as np
    import pandas as pd

    from ldp._validation import check_random_state
    from ldp.mechanisms import Ball, Interval
    from ldp.protocol import ReportWriter, load

    protocol = load(input_file(args.protocol, "protocol file", "--protocol"))
    input_file(args.answers, "answers file")
    with reading(args.answers, "answers file"):
        header = pd.read_csv(args.answers, nrows=0).columns.tolist()
    domain = protocol.mechanism.domain
    dimension = domain.d if isinstance(domain, (Interval, Ball)) else 1
    if args.column is not None:
        columns = [c.strip() for c in args.column.split(",")]
    elif len(header) == dimension:
        columns = header
    else:
        raise UserError(f"{args.answers} has columns {header[:6]}: choose them with --column")
    unknown = [c for c in columns if c not in header]
    if unknown:
        raise UserError(f"column(s) {unknown} are not in {args.answers}")
    if len(columns) != dimension:
        raise UserError(f"the protocol takes {dimension} column(s) per answer, got {columns}")
    labels = protocol.labels
    # items of a sketch are read as text: "007" is not the integer 7
    as_text = protocol.kind == "items" or (
        labels is not None and all(isinstance(v, str) for v in labels)
    )
    dtype = dict.fromkeys(columns, str) if as_text else None
    rng = check_random_state("os" if args.rng is None else args.rng)
    total = 0
    with reading(args.answers, "answers file"):
        reader = pd.read_csv(args.answers, usecols=columns, dtype=dtype, chunksize=args.chunksize)
    with (
        reader,
        atomic_output(args.out, "--out") as temporary,
        ReportWriter(protocol, temporary) as writer,
    ):
        for chunk in _chunks(reader, args.answers):
            if chunk.isna().to_numpy().any():
                line = total + int(np.argmax(chunk.isna().to_numpy().any(axis=1))) + 2
                raise UserError(f"{args.answers} line {line}: the answer is missing")
            values = chunk[columns[0]].to_numpy() if dimension == 1 else chunk[columns].to_numpy()
            try:
                reports = protocol.privatize(values, rng=rng)
            except (TypeError, ValueError) as exc:
                raise UserError(f"{args.answers}, rows {total + 2}..: {exc}") from None
            writer.write(reports)
            total += len(chunk)
    data = {
        "protocol": protocol.fingerprint,
        "answers": args.answers,
        "reports": args.out,
        "n": total,
        "epsilon": protocol.epsilon,
    }
    text = "\n".join(
        [
            f"{total} reports of protocol {protocol.fingerprint} written to {args.out}",
            row("epsilon per answer", protocol.epsilon),
        ]
    )
    return data, text
