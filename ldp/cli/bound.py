"""``ldp bound``: a minimax (or Bayes) lower bound for a standard problem, and the risk
achieved where a matching estimator exists."""

from __future__ import annotations

import argparse
import math

from ldp.cli._common import UserError, count, floats, number, row

__all__ = ["add_parser", "run"]

BOUND_PRESETS = {
    "lecam": ("bernoulli-mean", "moment-mean", "ball-mean"),
    "fano": ("ball-mean",),
    "assouad": ("distribution",),
    "bayes": ("beta-bernoulli",),
}
#: options of ``ldp bound`` that each preset needs (first) and accepts (second)
_PRESET_OPTIONS = {
    "bernoulli-mean": ((), ("support", "route")),
    "moment-mean": (("moment",), ()),
    "ball-mean": (("d",), ("r",)),
    "distribution": (("k",), ("loss", "route")),
    "beta-bernoulli": ((), ("route", "envelope")),
}


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "bound",
        help="a risk lower bound for a standard problem, and the risk achieved",
        description="Valid pairs: "
        + "; ".join(f"{m}: {', '.join(p)}" for m, p in BOUND_PRESETS.items())
        + ".",
    )
    parser.add_argument("method", choices=tuple(BOUND_PRESETS))
    parser.add_argument("preset", choices=sorted({p for v in BOUND_PRESETS.values() for p in v}))
    parser.add_argument("--n", type=count, required=True, help="number of users")
    parser.add_argument("--epsilon", type=float, required=True, help="privacy level (inf: none)")
    parser.add_argument("--delta", type=float, default=0.0, help="approximate-LDP delta")
    parser.add_argument("--moment", type=float, help="moment-mean: E|X|^moment <= 1 (> 1)")
    parser.add_argument("--d", type=count, help="ball-mean: dimension")
    parser.add_argument("--r", type=float, help="ball-mean: radius (default 1)")
    parser.add_argument("--k", type=count, help="distribution: alphabet size")
    parser.add_argument("--loss", choices=("l2sq", "l1"), help="distribution: loss (l2sq)")
    parser.add_argument(
        "--support",
        type=floats,
        help="bernoulli-mean: LOW,HIGH (default 0,1; write --support=-1,1 when LOW < 0)",
    )
    parser.add_argument(
        "--route",
        help="bernoulli-mean: best|kl|hellinger|djw; distribution: best|djw|phi; "
        "beta-bernoulli: theorem2|corollary3",
    )
    parser.add_argument(
        "--envelope", action="store_true", help="beta-bernoulli: sup over eps' >= eps"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.risk import preset

    if args.preset not in BOUND_PRESETS[args.method]:
        valid = ", ".join(BOUND_PRESETS[args.method])
        raise UserError(f"{args.method} has no preset {args.preset!r}; choose from: {valid}")
    needs, accepts = _PRESET_OPTIONS[args.preset]
    options = {}
    for name in ("moment", "d", "r", "k", "loss", "support", "route", "envelope"):
        value = getattr(args, name)
        if value is None or value is False:
            continue
        if name not in needs + accepts:
            raise UserError(f"--{name} does not apply to the {args.preset} preset")
        options[name] = value
    for name in needs:
        if name not in options:
            raise UserError(f"the {args.preset} preset needs --{name}")
    if args.preset == "ball-mean":
        options["route"] = args.method  # "lecam" or "fano"
    if "support" in options:
        if len(options["support"]) != 2:
            raise UserError(f"--support must be LOW,HIGH, got {args.support}")
        options["support"] = tuple(options["support"])
    lower, achieved = preset(args.preset, args.n, args.epsilon, args.delta, **options)
    data = {
        "method": args.method,
        "preset": args.preset,
        "n": args.n,
        "epsilon": args.epsilon,
        "delta": args.delta,
        "bound": {
            "value": lower.value,
            "quantity": lower.quantity,
            "theorem": lower.method,
            "rate": lower.rate,
            "params": dict(lower.params),
        },
        "achieved": None,
    }
    lines = [
        f"{args.method} bound, {args.preset}: n = {args.n}, epsilon = {args.epsilon:g}, "
        f"delta = {args.delta:g}",
        row(lower.quantity, lower.value),
        row("theorem", lower.method),
        row("rate", lower.rate),
    ]
    params = ", ".join(f"{k}={number(v)}" for k, v in lower.params.items())
    if params:
        lines.append(row("parameters", params))
    if achieved is not None:
        ratio = achieved.value / lower.value if lower.value > 0 else math.inf
        data["achieved"] = {
            "value": achieved.value,
            "estimator": achieved.method,
            "rate": achieved.rate,
            "ratio_to_bound": ratio,
        }
        lines.append(row("achieved risk", achieved.value))
        lines.append(row("  by", achieved.method))
        lines.append(row("  achieved / bound", ratio))
    else:
        lines.append(row("achieved risk", "(no matching estimator in ldp.risk)"))
    return data, "\n".join(lines)
