"""``ldp design``: the utility-maximising channel for a budget, certified, as a protocol file."""

from __future__ import annotations

import argparse

from ldp.cli._common import UserError, atomic_output, count, floats, pair, row

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "design", help="the utility-maximising channel for a budget, certified"
    )
    parser.add_argument("--k", type=count, required=True, help="input alphabet size")
    parser.add_argument("--epsilon", type=float, required=True, help="privacy level (>= 0)")
    parser.add_argument(
        "--utility",
        required=True,
        choices=("mi", "tv", "kl", "chi2", "hellinger"),
        help="mi: mutual information under --prior; others: divergence between --hypotheses",
    )
    parser.add_argument("--prior", type=floats, help="comma-separated input distribution")
    parser.add_argument(
        "--hypotheses", type=pair, help="two comma-separated distributions joined by ';'"
    )
    parser.add_argument(
        "--out",
        help="write the design: FILE.json a protocol file for devices, FILE.csv the matrix",
    )
    parser.add_argument("--labels", help="protocol file: comma-separated labels of the answers")
    parser.add_argument("--question", help="protocol file: the question's text")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> tuple[dict, str]:
    import numpy as np

    from ldp.design import optimal_channel

    out = args.out
    if out is not None and not out.lower().endswith((".json", ".csv")):
        raise UserError(f"--out must end in .json (a protocol file) or .csv (the matrix): {out}")
    protocol_file = out is not None and out.lower().endswith(".json")
    if (args.labels is not None or args.question is not None) and not protocol_file:
        raise UserError("--labels and --question describe a protocol file: give --out FILE.json")
    labels = None if args.labels is None else [v.strip() for v in args.labels.split(",")]
    result = optimal_channel(
        args.k, args.epsilon, utility=args.utility, prior=args.prior, hypotheses=args.hypotheses
    )
    # a structured optimum (subset selection too large for a matrix) is its mechanism
    matrix = None if result.channel is None else result.channel.matrix
    if matrix is None and out is not None and not protocol_file:
        raise UserError(
            f"the optimum is {result.mechanism!r} with {result.extras['n_outputs']} outputs, "
            "too large to write as a matrix: write a protocol file (--out FILE.json)"
        )
    data = {
        "utility": args.utility,
        "value": result.value,
        "method": result.method,
        "solver": result.solver,
        "certified": {"epsilon": result.epsilon, "delta": result.delta, "tv": result.tv},
        "matrix": None if matrix is None else matrix.tolist(),
        "mechanism": repr(result.mechanism),
    }
    if result.gap is not None:
        data["gap"] = result.gap
        data["upper_bound"] = result.extras["upper_bound"]
    lines = [f"optimal channel for {args.utility} at epsilon = {args.epsilon:g} ({result.method})"]
    if matrix is None:
        lines.append(f"  {result.mechanism!r}: {result.extras['n_outputs']} outputs, no matrix")
    else:
        with np.printoptions(precision=6, suppress=True):
            lines.append(str(matrix))
    lines.append(row("utility", result.value))
    lines.append(row("certified epsilon", result.epsilon))
    lines.append(row("certified eta-TV", result.tv))
    if result.gap is not None:
        lines.append(row("certified optimality gap", result.gap))
    if protocol_file:
        from ldp.protocol import Protocol

        protocol = Protocol.from_mechanism(result.mechanism, labels=labels, question=args.question)
        with atomic_output(out, "--out") as temporary:
            protocol.save(temporary)
        data["protocol"] = {"path": out, "fingerprint": protocol.fingerprint}
        lines.append(f"  protocol {protocol.fingerprint} written to {out}")
    elif out is not None and matrix is not None:
        with atomic_output(out, "--out") as temporary:
            np.savetxt(temporary, matrix, delimiter=",")
        lines.append(f"  matrix written to {out}")
    return data, "\n".join(lines)
