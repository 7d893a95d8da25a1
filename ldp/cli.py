"""The ``ldp`` command (also ``python -m ldp``).

``ldp report MECHANISM --epsilon E [--k K --delta D --eta H] [--json]`` prints the privacy
of a mechanism computed from its matrix: epsilon, the delta profile, eta-TV, and its
contraction coefficients.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

import numpy as np

from ldp.channel import Channel
from ldp.mechanisms import binary_erasure, k_rr, randomized_response

MECHANISMS = ("rr", "k-rr", "binary-erasure")


class _Parser(argparse.ArgumentParser):
    """argparse that ends with exit code 2 and one line on bad arguments."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised through main
        self.exit(2, f"ldp: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ldp", description="Local differential privacy toolkit.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    report = commands.add_parser(
        "report", help="privacy and contraction of a mechanism, computed from its matrix"
    )
    report.add_argument("mechanism", choices=MECHANISMS)
    report.add_argument("--epsilon", type=float, required=True, help="privacy level (>= 0)")
    report.add_argument("--k", type=int, default=2, help="alphabet size for k-rr")
    report.add_argument("--delta", type=float, default=0.0, help="binary-erasure delta")
    report.add_argument("--eta", type=float, default=None, help="binary-erasure eta-TV")
    report.add_argument("--json", action="store_true", help="print JSON instead of a table")

    design = commands.add_parser(
        "design", help="the utility-maximising channel for a budget, certified"
    )
    design.add_argument("--k", type=int, required=True, help="input alphabet size")
    design.add_argument("--epsilon", type=float, required=True, help="privacy level (>= 0)")
    design.add_argument(
        "--utility",
        required=True,
        choices=("mi", "tv", "kl", "chi2", "hellinger"),
        help="mi: mutual information under --prior; others: divergence between --hypotheses",
    )
    design.add_argument("--prior", type=_floats, help="comma-separated input distribution")
    design.add_argument(
        "--hypotheses", type=_pair, help="two comma-separated distributions joined by ';'"
    )
    design.add_argument("--out", help="write the channel matrix to this CSV file")
    design.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def _floats(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got {text!r}"
        ) from None


def _pair(text: str) -> tuple[list[float], list[float]]:
    parts = text.split(";")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected two distributions joined by ';', got {text!r}")
    return _floats(parts[0]), _floats(parts[1])


def build_mechanism(args: argparse.Namespace) -> Channel:
    """The channel named on the command line."""
    if args.mechanism == "rr":
        return randomized_response(args.epsilon)
    if args.mechanism == "k-rr":
        return k_rr(args.k, args.epsilon)
    return binary_erasure(args.epsilon, args.delta, args.eta)


def report(channel: Channel, epsilon: float) -> dict:
    """The numbers of ``ldp report`` as a dictionary.

    Contraction coefficients are exact (computed from the matrix); each comes with the best
    theorem bound that the channel's own epsilon, delta profile and eta-TV imply.
    """
    levels = sorted({0.0, epsilon / 2.0, epsilon} - {math.inf})
    contraction = {}
    for kind in ("tv", "chi2", "kl", "hellinger", "hockey_stick"):
        extra = {"gamma": math.exp(epsilon / 2.0)} if kind == "hockey_stick" else {}
        label = f"hockey_stick(gamma=e^{epsilon / 2:g})" if extra else kind
        bound = channel.contraction_bound(kind, **extra)
        contraction[label] = {
            "exact": float(channel.contraction(kind, **extra)),
            "bound": float(bound),
            "theorem": bound.theorem,
        }
    return {
        "shape": list(channel.shape),
        "epsilon": channel.epsilon,
        "tv": channel.tv,
        "delta": {f"{e:g}": channel.delta(e) for e in levels},
        "contraction": contraction,
    }


def _format(name: str, data: dict) -> str:
    def number(x: float) -> str:
        return "inf" if math.isinf(x) else f"{x:.6g}"

    lines = [f"{name}: {data['shape'][0]} inputs x {data['shape'][1]} outputs"]
    lines.append(f"  {'epsilon (tight, pure)':<34}{number(data['epsilon'])}")
    lines.append(f"  {'eta-TV':<34}{number(data['tv'])}")
    for level, value in data["delta"].items():
        lines.append(f"  {'delta(' + level + ')':<34}{number(value)}")
    lines.append(f"  {'contraction coefficient':<34}{'exact':<10}{'bound':<10}theorem")
    for kind, value in data["contraction"].items():
        lines.append(
            f"    {kind:<32}{number(value['exact']):<10}{number(value['bound']):<10}"
            f"{value['theorem']}"
        )
    return "\n".join(lines)


def _design(args: argparse.Namespace) -> int:
    from ldp.design import DesignError, optimal_channel

    try:
        result = optimal_channel(
            args.k,
            args.epsilon,
            utility=args.utility,
            prior=args.prior,
            hypotheses=args.hypotheses,
        )
    except (TypeError, ValueError, DesignError) as exc:
        print(f"ldp: error: {exc}", file=sys.stderr)
        return 2
    matrix = result.channel.matrix
    if args.out:
        np.savetxt(args.out, matrix, delimiter=",")
    data = {
        "utility": args.utility,
        "value": result.value,
        "method": result.method,
        "solver": result.solver,
        "certified": {"epsilon": result.epsilon, "delta": result.delta, "tv": result.tv},
        "matrix": matrix.tolist(),
    }
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"optimal channel for {args.utility} at epsilon = {args.epsilon:g} ({result.method})")
    with np.printoptions(precision=6, suppress=True):
        print(matrix)
    print(f"  {'utility':<34}{result.value:.6g}")
    print(f"  {'certified epsilon':<34}{result.epsilon:.6g}")
    print(f"  {'certified eta-TV':<34}{result.tv:.6g}")
    if args.out:
        print(f"  matrix written to {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ldp`` command; returns the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command == "design":
        return _design(args)
    try:
        channel = build_mechanism(args)
        data = report(channel, args.epsilon)
    except (TypeError, ValueError) as exc:
        print(f"ldp: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(data, indent=2, default=lambda x: float(np.float64(x))))
    else:
        print(_format(args.mechanism, data))
    return 0
