"""``ldp estimate``: estimates with confidence intervals from the reports of a protocol file,
or a simulation that privatizes a CSV column and compares the estimates with the truth."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ldp.cli._common import (
    UserError,
    atomic_output,
    count,
    input_file,
    jsonable,
    reading,
    row,
)

if TYPE_CHECKING:  # the parser needs no numpy: the library is imported when it runs
    import numpy as np

__all__ = ["CONSISTENCY", "ORACLES", "add_parser", "run"]

ORACLES = ("grr", "sue", "oue", "olh", "blh", "hr", "ss")
#: ``--consistency``: the post-processing of :mod:`ldp.tasks.consistency` that turns the
#: unbiased frequencies (which can be negative) into a distribution; ``none`` keeps them.
CONSISTENCY = ("none", "project", "norm-sub", "norm-mul", "ibu")

#: Largest alphabet whose estimates ``ldp estimate`` prints: one row per category, held as a
#: table and as JSON. Larger protocols are decoded with the library
#: (``Protocol.aggregate`` and its decoder's ``estimate``), which keeps only the counts.
MAX_TABLE_CATEGORIES = 1 << 16


def _check_table_size(k: int, what: str) -> None:
    from ldp._validation import compact

    if k > MAX_TABLE_CATEGORIES:
        raise UserError(
            f"{what} has k = {compact(k)} categories; ldp estimate prints one row per category, "
            f"up to MAX_TABLE_CATEGORIES = {MAX_TABLE_CATEGORIES} (decode larger alphabets "
            "with the library: Protocol.aggregate and the decoder's estimate)"
        )


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "estimate",
        help="estimates from the reports of a protocol file, or a simulation from a CSV column",
        description="Server: ldp estimate --protocol protocol.json reports.csv (CSV with a "
        "header, Parquet, or JSON lines of client records; every report must carry the "
        "protocol's fingerprint). Simulation: ldp estimate data.csv --column C --mechanism M "
        "--epsilon E.",
    )
    parser.add_argument(
        "data", nargs="?", help="the reports file (with --protocol), or a CSV file to simulate"
    )
    parser.add_argument("--protocol", help="the protocol file the reports were made under")
    parser.add_argument("--reports", help="the reports file (same as DATA with --protocol)")
    parser.add_argument("--column", help="simulation: the column of DATA to privatize")
    parser.add_argument("--mechanism", choices=ORACLES, help="simulation: frequency oracle")
    parser.add_argument("--epsilon", type=float, help="simulation: privacy level (> 0)")
    parser.add_argument("--rng", type=int, help="simulation: seed of the noise")
    parser.add_argument(
        "--items", help="a sketch protocol (cms, hcms): the comma-separated items to query"
    )
    parser.add_argument("--confidence", type=float, default=0.95, help="of the intervals")
    parser.add_argument(
        "--consistency",
        choices=CONSISTENCY,
        default="none",
        help="frequencies: make the estimates a distribution by simplex projection, norm-sub, "
        "norm-mul or iterative Bayesian update (default none: the unbiased estimates, which "
        "can be negative); the intervals stay those of the unbiased estimates",
    )
    parser.add_argument(
        "--chunksize", type=count, default=1 << 20, help="reports read per chunk (memory bound)"
    )
    parser.add_argument("--save-reports", help="simulation: write the report table here")
    parser.add_argument("--save-protocol", help="simulation: write its protocol file here")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse (exit 2) reports that fail the goodness-of-fit test against the "
        "mechanism, instead of warning",
    )


def _read_column(path: str, column: str) -> tuple[np.ndarray, list, int]:
    """Category codes of ``column``, the sorted categories and the number of missing rows."""
    import numpy as np
    import pandas as pd

    with reading(input_file(path, "data file"), "data file"):
        frame = pd.read_csv(path)
    if column not in frame.columns:
        names = ", ".join(map(str, frame.columns))
        raise UserError(f"column {column!r} is not in {path} (columns: {names})")
    values = frame[column]
    missing = int(values.isna().sum())
    values = values.dropna()
    categories = list(pd.unique(values))
    try:
        categories.sort()
    except TypeError:  # mixed kinds: order by their text
        categories.sort(key=str)
    if len(categories) < 2:
        raise UserError(f"column {column!r} needs at least 2 distinct values")
    codes = pd.Categorical(values, categories=categories).codes.astype(np.int64)
    return codes, categories, missing


def _consistent(method: str, unbiased, decoder, statistic):
    """The unbiased frequencies after ``--consistency`` (a distribution unless ``none``)."""
    from ldp.tasks import ibu, norm_mul, norm_sub, project_simplex

    if method == "ibu":
        return ibu(decoder, statistic)
    processing = {"project": project_simplex, "norm-sub": norm_sub, "norm-mul": norm_mul}
    return processing[method](unbiased) if method in processing else unbiased


def _frequency_rows(labels, estimate, half, truth=None, unbiased=None) -> list[dict]:
    return [
        {
            "category": label if isinstance(label, str) else jsonable(label),
            "estimate": float(estimate[i]),
            **({"unbiased": float(unbiased[i])} if unbiased is not None else {}),
            "half_width": float(half[i]),
            **({"true": float(truth[i])} if truth is not None else {}),
        }
        for i, label in enumerate(labels)
    ]


def _frequency_table(rows: list[dict], confidence: float) -> list[str]:
    has_truth = bool(rows) and "true" in rows[0]
    processed = bool(rows) and "unbiased" in rows[0]
    lines = [
        f"  {'category':<24}{'estimate':>10}"
        + (f"{'unbiased':>10}" if processed else "")
        + f"   {'+/- ' + f'{confidence:.0%}':<12}"
        + ("true" if has_truth else "")
    ]
    for r in rows:
        true = f"{r['true']:.4f}" if has_truth else ""
        unbiased = f"{r['unbiased']:>10.4f}" if processed else ""
        label = str(r["category"])[:23]
        lines.append(
            f"  {label:<24}{r['estimate']:>10.4f}{unbiased}   {r['half_width']:<12.4f}{true}"
        )
    return lines


def _frequencies(
    args: argparse.Namespace, labels, unbiased, half, decoder, statistic, truth=None
) -> tuple[list[dict], list[str], dict]:
    """The rows, table lines and summary of frequency estimates under ``--consistency``;
    negative unbiased estimates are pointed out when they are shown as they are."""
    import numpy as np

    method = args.consistency
    negative = int(np.sum(unbiased < 0))
    if method == "none":
        rows = _frequency_rows(labels, unbiased, half, truth)
    else:
        estimate = _consistent(method, unbiased, decoder, statistic)
        rows = _frequency_rows(labels, estimate, half, truth, unbiased=unbiased)
    lines = _frequency_table(rows, args.confidence)
    if method != "none":
        lines.append(f"  estimates after --consistency {method} (a distribution);")
        lines.append("  the intervals are those of the unbiased estimates")
    elif negative:
        lines.append(
            f"  {negative} of {len(rows)} estimates are negative (unbiased estimates scatter "
            "around small shares);"
        )
        lines.append("  --consistency project, norm-sub, norm-mul or ibu makes them a distribution")
    return rows, lines, {"consistency": method, "negative_unbiased_estimates": negative}


def _server(args: argparse.Namespace, path: str) -> tuple[dict, str]:
    import numpy as np

    from ldp.core import check_confidence
    from ldp.mechanisms import Interval
    from ldp.protocol import load
    from ldp.protocol.answers import answer_estimate

    for name in ("column", "mechanism", "epsilon", "rng", "save_reports", "save_protocol"):
        if getattr(args, name) is not None:
            flag = "--" + name.replace("_", "-")
            raise UserError(f"{flag} applies to a simulation; the protocol file fixes the rest")
    check_confidence(args.confidence)
    if _is_marginals(input_file(args.protocol, "protocol file", "--protocol")):
        return _server_marginals(args, path)
    protocol = load(args.protocol)
    if protocol.kind == "categorical":
        _check_table_size(protocol.k or 0, f"the protocol {args.protocol}")
    decoder = protocol.decoder
    with reading(input_file(path, "reports file"), "reports file"):
        statistic = protocol.aggregate(path, chunksize=args.chunksize)
    if statistic.n == 0:
        raise UserError(f"{path} holds no reports")
    fit = _check_fit(decoder, statistic, path, strict=args.strict)
    data: dict = {
        "source": path,
        "protocol": protocol.fingerprint,
        "mechanism": protocol.mechanism.key,
        "epsilon": protocol.epsilon,
        "n": statistic.n,
        "confidence": args.confidence,
    }
    if fit is not None:
        data["report_fit"] = {"test": fit.test, "statistic": fit.statistic, "p_value": fit.p_value}
    lines = [
        f"{protocol.mechanism.key} (protocol {protocol.fingerprint}) on {path}",
        row("reports", statistic.n),
        row("epsilon (stated)", protocol.epsilon),
    ]
    if (args.items is not None) != (protocol.kind == "items"):
        raise UserError(
            "--items queries a sketch protocol (cms, hcms); a sketch protocol needs --items"
        )
    options: dict = {}
    if protocol.kind == "items":
        if args.consistency != "none":
            raise UserError(
                "--consistency applies to the frequencies of a whole alphabet, not to queried "
                "items of a sketch"
            )
        options["items"] = [item for item in args.items.split(",") if item]
        if not options["items"]:
            raise UserError("--items names no item")
    # the decoder answers for itself: its estimate, standard error and how it got them
    estimate = decoder.interval(statistic, args.confidence, **options)
    if protocol.kind == "items":
        # thinly spread other items; a heavy item that shares buckets adds to the error
        rows = _frequency_rows(estimate.names, estimate.value, estimate.half_width)
        data["frequencies"] = rows
        lines += _frequency_table(rows, args.confidence)
    elif protocol.kind == "categorical":
        labels = protocol.labels if protocol.labels is not None else range(np.size(estimate.value))
        rows, table, summary = _frequencies(
            args, list(labels), estimate.value, estimate.half_width, decoder, statistic
        )
        data.update(summary, frequencies=rows)
        lines += table
    else:
        target = protocol.mechanism.domain
        if (
            not isinstance(target, Interval)
            or np.ndim(estimate.value) != 0
            or protocol.bounds is None
        ):
            raise UserError("estimating vector means from the command line is not supported")
        low, high = protocol.bounds
        answer = answer_estimate(protocol, estimate)
        mean, half_width = float(answer.value), float(answer.half_width)
        if args.consistency != "none":
            raise UserError("--consistency applies to frequencies, not to a mean")
        data["mean"] = {"estimate": mean, "half_width": half_width, "bounds": [low, high]}
        lines.append(row("mean", mean))
        lines.append(row(f"+/- {args.confidence:.0%} (worst-case variance)", half_width))
    return data, "\n".join(lines)


def _is_marginals(path: str) -> bool:
    """Whether the protocol file is a marginals protocol (a table's groups)."""
    import json

    with reading(path, "protocol file", "--protocol"), open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        mechanism = json.loads(text).get("mechanism")
    except (ValueError, AttributeError):
        return False  # the protocol reader says what is wrong
    return isinstance(mechanism, dict) and mechanism.get("name") == "marginals"


def _server_marginals(args: argparse.Namespace, path: str) -> tuple[dict, str]:
    """The requested marginals of a marginals protocol from its client records (JSON lines):
    each table's unbiased cells with their exact ``iid`` intervals."""
    import itertools

    import numpy as np

    from ldp.core import normal_z
    from ldp.protocol import load_marginals

    given = [f"--items {args.items}"] * (args.items is not None)
    given += [f"--consistency {args.consistency}"] * (args.consistency != "none")
    if given:
        raise UserError(
            f"{' and '.join(given)}: --items and --consistency do not apply to a marginals "
            "protocol (its tables are made consistent by MarginalEstimator, not here)"
        )
    protocol = load_marginals(args.protocol)
    design = protocol.design
    with reading(input_file(path, "reports file"), "reports file"):
        buckets = protocol.read_records(path)
    stats = design.aggregate(buckets)
    n = sum(len(b) for b in buckets)
    if n == 0:
        raise UserError(f"{path} holds no reports")
    empty = [g for g, b in enumerate(buckets) if len(b) == 0]
    if empty:
        raise UserError(f"groups {empty[:10]} of the protocol have no reports in {path}")
    z = normal_z(args.confidence)
    columns = protocol.columns
    data: dict = {
        "source": path,
        "protocol": protocol.fingerprint,
        "mechanism": "marginals",
        "method": design.method,
        "epsilon": protocol.epsilon,
        "n": n,
        "confidence": args.confidence,
        "marginals": [],
    }
    lines = [
        f"marginals ({design.method}, {len(protocol.groups)} groups; protocol "
        f"{protocol.fingerprint}) on {path}",
        row("reports", n),
        row("epsilon (stated)", protocol.epsilon),
    ]
    for table in design.tables:
        estimate, variance, _ = design.estimate(stats, table)
        half = z * np.sqrt(variance)
        names = [columns[c][0] for c in table]
        cells = list(itertools.product(*[columns[c][1] for c in table]))
        rows = _frequency_rows(
            [", ".join(f"{a}={v}" for a, v in zip(names, cell)) for cell in cells],
            estimate,
            half,
        )
        data["marginals"].append({"columns": names, "frequencies": rows})
        lines.append(f"  marginal of {', '.join(names)} (unbiased)")
        lines += _frequency_table(rows, args.confidence)
    return data, "\n".join(lines)


def _check_fit(decoder, statistic, path: str, *, strict: bool):
    """The goodness-of-fit test of the reports against the mechanism
    (:func:`ldp.tasks.check_reports`): a one-line warning on stderr, or an error under
    ``--strict``."""
    import sys
    import warnings

    from ldp import ImplausibleReportsWarning
    from ldp.tasks import check_reports

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ImplausibleReportsWarning)
        fit = check_reports(decoder, statistic, strict=strict, what=f"the reports in {path}")
    for warning in caught:
        print(f"ldp: warning: {warning.message}", file=sys.stderr)
    return fit


def _simulate(args: argparse.Namespace) -> tuple[dict, str]:
    import numpy as np

    from ldp.core import check_confidence
    from ldp.tasks import FREQUENCY_ORACLES

    check_confidence(args.confidence)
    if args.items is not None:
        raise UserError("--items queries the reports of a sketch protocol (give --protocol)")
    if args.column is None:
        raise UserError("a data file needs --column (or give --protocol to decode reports)")
    if args.mechanism is None or args.epsilon is None:
        raise UserError("a simulation needs --mechanism and --epsilon")
    if (args.save_reports is None) != (args.save_protocol is None):
        raise UserError(
            "--save-reports and --save-protocol go together: reports are only decoded with "
            "their protocol"
        )
    codes, categories, missing = _read_column(args.data, args.column)
    _check_table_size(len(categories), f"column {args.column!r}")
    oracle = FREQUENCY_ORACLES[args.mechanism.upper()](len(categories), args.epsilon)
    reports = oracle.privatize(codes, rng=args.rng)
    truth = np.bincount(codes, minlength=len(categories)) / codes.size
    if args.save_reports is not None:
        from ldp.protocol import Protocol, write_reports

        labels = [c if isinstance(c, (str, bool)) else jsonable(c) for c in categories]
        protocol = Protocol.from_mechanism(oracle, labels=labels)
        # both files or neither: each goes into place only when both were written
        with (
            atomic_output(args.save_protocol, "--save-protocol") as protocol_file,
            atomic_output(args.save_reports, "--save-reports") as reports_file,
        ):
            protocol.save(protocol_file)
            write_reports(protocol, reports, reports_file)
    counts = oracle.aggregate(reports)
    # the simulation knows the truth: the intervals use the exact variance there
    interval = oracle.interval(counts, args.confidence, at=truth)
    estimate, half = interval.value, interval.half_width
    rows, table, summary = _frequencies(args, categories, estimate, half, oracle, counts, truth)
    source = f"{args.data}, column {args.column} (simulated reports)"
    data = {
        "source": source,
        "mechanism": repr(oracle),
        "epsilon": oracle.epsilon,
        "n": counts.n,
        "missing": missing,
        "confidence": args.confidence,
        **summary,
        "frequencies": rows,
    }
    lines = [
        f"{oracle!r} on {source}",
        row("reports", counts.n) + (f" ({missing} missing values skipped)" if missing else ""),
        row("epsilon (exact)", oracle.epsilon),
        *table,
    ]
    # the error of the estimates shown; the intervals are around the unbiased ones
    error = np.abs(np.array([r["estimate"] for r in rows]) - truth)
    covered = int(np.sum(np.abs(estimate - truth) <= half))
    data["max_abs_error"] = float(error.max())
    data["covered"] = covered
    lines.append(row("max |estimate - true|", float(error.max())))
    lines.append(row("true value inside the interval", f"{covered} of {len(categories)}"))
    if args.save_reports is not None:
        lines.append(f"  reports written to {args.save_reports}, protocol to {args.save_protocol}")
    return data, "\n".join(lines)


def run(args: argparse.Namespace) -> tuple[dict, str]:
    if args.protocol is not None:
        if args.data is not None and args.reports is not None:
            raise UserError("give the reports file once (DATA or --reports)")
        path = args.reports if args.reports is not None else args.data
        if path is None:
            raise UserError("--protocol needs the reports file to decode")
        return _server(args, path)
    if args.reports is not None:
        raise UserError(
            "reports are decoded with the protocol they were made under: pass --protocol FILE"
        )
    if args.data is None:
        raise UserError("give --protocol FILE REPORTS, or a data file with --column to simulate")
    return _simulate(args)
