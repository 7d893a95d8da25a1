"""``ldp plan``: how many users a target risk needs, achieved and provably necessary (or how
much epsilon with a given number of users)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from ldp.cli._common import UserError, count
from ldp.cli._common import row as _row

__all__ = ["add_parser", "run"]

_PROBLEMS = ("distribution", "mean", "mean-box", "mean-ball", "marginals", "binary-test")


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "plan",
        help="users (or epsilon) a target risk needs: the best mechanism and the lower bound",
        description="Give --epsilon to ask for the number of users, or --n to ask for epsilon.",
    )
    parser.add_argument("problem", choices=_PROBLEMS)
    parser.add_argument(
        "--target",
        type=float,
        required=True,
        help="worst-case risk to reach (binary-test: the type-II error)",
    )
    parser.add_argument("--epsilon", type=float, help="privacy level: how many users?")
    parser.add_argument("--n", type=count, help="number of users: how much epsilon?")
    parser.add_argument("--k", type=count, help="distribution: number of categories")
    parser.add_argument("--loss", choices=("l2sq", "l1", "tv"), help="distribution: loss (l2sq)")
    parser.add_argument("--d", type=count, help="mean-box, mean-ball: dimension")
    parser.add_argument("--r", type=float, help="means: half-width or radius (default 1)")
    parser.add_argument(
        "--p0",
        type=_probabilities,
        help="binary-test: success probability under H0, or a comma-separated pmf",
    )
    parser.add_argument(
        "--p1",
        type=_probabilities,
        help="binary-test: success probability under H1, or a comma-separated pmf",
    )
    parser.add_argument("--alpha", type=float, help="binary-test: type-I error")
    parser.add_argument(
        "--sizes", type=_sizes, help="marginals: the columns' category counts, e.g. 2,3,4"
    )
    parser.add_argument(
        "--way", type=count, help="marginals: every k-way marginal of the columns (default 2)"
    )
    parser.add_argument(
        "--method",
        choices=("auto", "joint", "groups", "fourier"),
        help="marginals: the collection design (default: the one MarginalEstimator's "
        "method='auto' fits)",
    )
    parser.add_argument(
        "--no-consistency",
        action="store_true",
        help="marginals: the tables will not be made consistent (MarginalEstimator("
        "consistency=False)); auto then ranks the designs by their unbiased tables",
    )
    parser.add_argument(
        "--candidates",
        type=_names,
        help="marginals: the oracles a group may use, e.g. GRR,OUE,SS (MarginalEstimator's "
        "candidates; default GRR,OUE)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _probabilities(text: str) -> float | tuple[float, ...]:
    """One probability, or a pmf written ``0.5,0.3,0.2``."""
    parts = [part.strip() for part in text.split(",")]
    try:
        values = tuple(float(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None
    return values[0] if len(values) == 1 else values


def _names(text: str) -> tuple[str, ...]:
    """Oracle names written ``GRR,OUE,SS``."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _sizes(text: str) -> tuple[int, ...]:
    """Category counts written ``2,3,4``."""
    try:
        return tuple(int(part.strip()) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected integers separated by commas, got {text!r}"
        ) from None


def row(label: str, value: object) -> str:
    return _row(label, value, width=40)


def run(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.risk import plan

    if (args.epsilon is None) == (args.n is None):
        raise UserError(
            "give exactly one of --epsilon (how many users?) and --n (how much epsilon?)"
        )
    names = ("k", "loss", "d", "r", "p0", "p1", "alpha", "sizes", "method", "candidates")
    options = {name: getattr(args, name) for name in names}
    options["marginals"] = args.way
    options["consistency"] = False if args.no_consistency else None
    result = plan(args.problem, args.epsilon, args.target, n=args.n, **options)
    pair = result.gap
    data = {
        "problem": result.problem,
        "target_risk": result.target_risk,
        "epsilon": result.epsilon,
        "n": result.n,
        "n_required": result.n_required,
        "n_lower_bound": result.n_lower_bound,
        "epsilon_required": result.epsilon_required,
        "epsilon_lower_bound": result.epsilon_lower_bound,
        "mechanism": result.mechanism,
        "protocols": result.protocols,
        "lower_bound": {
            "value": pair.lower.value,
            "theorem": pair.lower.method,
            "params": dict(pair.lower.params),
        },
        "achieved": {"value": pair.achieved.value, "estimator": pair.achieved.method},
        **_totals(pair.achieved.params),
        "ratio": pair.ratio,
    }
    given = [f"{k} = {v}" for k, v in options.items() if v is not None]
    lines = [
        f"plan, {result.problem}: target risk {result.target_risk:g}"
        + (f" ({', '.join(given)})" if given else "")
    ]
    if result.n_required is not None:
        lines += [
            row("epsilon", result.epsilon),
            row(f"users needed ({result.mechanism})", result.n_required),
            row("users no protocol can do without", result.n_lower_bound),
        ]
        where = f"at n = {result.n_required}"
    else:
        lines += [
            row("users", result.n),
            row(f"epsilon needed ({result.mechanism})", result.epsilon_required),
            row("epsilon no protocol can do without", result.epsilon_lower_bound),
        ]
        where = f"at epsilon = {result.epsilon_required:.6g}"
    testing = result.problem == "binary-test"  # the pair holds sample sizes, not risks
    lower = pair.lower.value
    lines += [
        row("users needed" if testing else f"achieved risk {where}", pair.achieved.value),
        row("  by", pair.achieved.method),
        row("users no protocol can do without" if testing else "lower bound there", lower),
        row("  theorem", pair.lower.method),
        row("  holds for", f"{result.protocols} protocols"),
        row("achieved / bound", pair.ratio),
    ]
    labels = {
        "total_unbiased": "total variance, unbiased marginals",
        "total_consistent": "total variance, after consistency",
        "consistency": "  consistency (auto ranks by that total)",
    }
    for key, value in _totals(pair.achieved.params).items():
        lines.append(row(labels[key], value))
    return data, "\n".join(lines)


def _totals(params: Mapping[str, object]) -> dict[str, object]:
    """A marginals plan's total variance over the marginals, before and after consistency."""
    keys = ("total_unbiased", "total_consistent", "consistency")
    return {key: params[key] for key in keys if key in params}
