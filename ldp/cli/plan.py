"""``ldp plan``: how many users a target risk needs, achieved and provably necessary (or how
much epsilon with a given number of users)."""

from __future__ import annotations

import argparse
import math
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


#: problem -> (the flags it needs, the flags it also takes), by their argparse names
_FLAGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "distribution": (("k",), ("loss",)),
    "mean": ((), ("r",)),
    "mean-box": (("d",), ("r",)),
    "mean-ball": (("d",), ("r",)),
    "marginals": (("sizes",), ("way", "method", "no_consistency", "candidates")),
    "binary-test": (("p0", "p1", "alpha"), ()),
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _typed(value: object) -> str:
    """A flag's value as it would be typed (``2,3,4`` for a tuple)."""
    if isinstance(value, tuple):
        return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _check_flags(args: argparse.Namespace) -> None:
    """Every flag of ``ldp plan``: a :class:`UserError` naming the flag and its value."""
    import numpy as np

    from ldp._validation import check_epsilon, check_integer, check_pmf, check_scalar
    from ldp.tasks import FREQUENCY_ORACLES
    from ldp.tasks.marginals import MAX_JOINT_CELLS

    if (args.epsilon is None) == (args.n is None):
        raise UserError(
            "give exactly one of --epsilon (how many users?) and --n (how much epsilon?)"
        )
    needs, takes = _FLAGS[args.problem]
    for name in sorted({name for pair in _FLAGS.values() for names in pair for name in names}):
        value = getattr(args, name)
        if value is None or value is False or name in needs + takes:
            continue
        shown = "" if value is True else f" {_typed(value)}"
        flags = ", ".join(_flag(f) for f in needs + takes) or "none of these flags"
        raise UserError(
            f"{_flag(name)}{shown} does not apply to the {args.problem} problem (it takes {flags})"
        )
    missing = [_flag(name) for name in needs if getattr(args, name) is None]
    if missing:
        raise UserError(f"the {args.problem} problem needs {', '.join(missing)}")
    testing = args.problem == "binary-test"
    check_scalar(
        args.target,
        "--target (the type-II error)" if testing else "--target",
        low=0.0,
        low_open=True,
        high=1.0 if testing else None,
        high_open=True,
    )
    if args.epsilon is not None:
        check_epsilon(args.epsilon, "--epsilon", positive=True, allow_inf=False)
    else:
        check_integer(args.n, "--n", low=1)
    if args.k is not None:
        check_integer(args.k, "--k", low=2)
    if args.d is not None:
        check_integer(args.d, "--d", low=1)
    if args.r is not None:
        check_scalar(args.r, "--r", low=0.0, low_open=True)
    if testing:
        check_scalar(args.alpha, "--alpha", low=0.0, high=1.0, low_open=True, high_open=True)
        shapes = []
        for name in ("p0", "p1"):
            value = getattr(args, name)
            if isinstance(value, tuple):
                try:
                    check_pmf(np.asarray(value), _flag(name), ndim=1)
                except ValueError:
                    raise UserError(
                        f"{_flag(name)} must be a probability or a pmf (numbers >= 0 that sum "
                        f"to 1), got {_typed(value)}"
                    ) from None
                shapes.append(len(value))
            else:
                check_scalar(value, _flag(name), low=0.0, high=1.0)
                shapes.append(0)
        given = f"--p0 {_typed(args.p0)} and --p1 {_typed(args.p1)}"
        if 0 in shapes and shapes != [0, 0]:
            raise UserError(
                f"--p0 and --p1 must both be probabilities or both be pmfs, got {given}"
            )
        if shapes[0] != shapes[1]:
            raise UserError(f"--p0 and --p1 must be pmfs of the same length, got {given}")
        if args.p0 == args.p1:
            raise UserError(f"no number of users separates equal laws, got {given}")
    if args.problem == "marginals":
        sizes = args.sizes
        if not sizes or any(size < 1 for size in sizes):
            raise UserError(f"--sizes must be category counts >= 1, got {_typed(sizes)}")
        if args.way is not None and not 1 <= args.way <= len(sizes):
            raise UserError(
                f"--way must be a width in 1 .. {len(sizes)} (the columns of --sizes "
                f"{_typed(sizes)}), got {args.way}"
            )
        if args.candidates is not None:
            bad = [name for name in args.candidates if name not in FREQUENCY_ORACLES]
            if bad or not args.candidates:
                raise UserError(
                    f"--candidates must be names among {','.join(FREQUENCY_ORACLES)}, "
                    f"got {','.join(args.candidates)!r}"
                )
        # with --way every column is in some marginal, so a design needs all of them
        if args.method == "fourier" and any(size != 2 for size in sizes):
            raise UserError(
                f"--method fourier needs binary columns (2 categories each), got --sizes "
                f"{_typed(sizes)}"
            )
        cells = math.prod(sizes)
        if args.method == "joint" and cells > MAX_JOINT_CELLS:
            raise UserError(
                f"--method joint needs a joint of at most MAX_JOINT_CELLS = {MAX_JOINT_CELLS} "
                f"cells, got --sizes {_typed(sizes)} ({cells} cells)"
            )


def _refusal(args: argparse.Namespace, exc: ValueError) -> str:
    """The library's refusal of flags that each passed their own check, said with the flags."""
    from ldp.risk import TargetOutOfReach
    from ldp.risk.planning.planner import MAX_EPSILON

    if isinstance(exc, TargetOutOfReach):
        if exc.epsilon is not None:
            return (
                f"--target {args.target:g} is out of reach at --epsilon {args.epsilon:g}: the "
                "best mechanism's risk stays above it for every number of users up to 2^50"
            )
        return (
            f"--target {args.target:g} is out of reach with --n {args.n}: the best mechanism "
            f"stays above it for every epsilon up to {MAX_EPSILON:g}"
        )
    needs, takes = _FLAGS[args.problem]
    given = [
        _flag(name) + ("" if value is True else f" {_typed(value)}")
        for name in ("target", "epsilon", "n", *needs, *takes)
        if (value := getattr(args, name)) is not None and value is not False
    ]
    return f"{' '.join(given)}: {exc}"


def run(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.risk import plan

    _check_flags(args)
    names = ("k", "loss", "d", "r", "p0", "p1", "alpha", "sizes", "method", "candidates")
    options = {name: getattr(args, name) for name in names}
    options["marginals"] = args.way
    options["consistency"] = False if args.no_consistency else None
    try:
        result = plan(args.problem, args.epsilon, args.target, n=args.n, **options)
    except ValueError as exc:
        raise UserError(_refusal(args, exc)) from None
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
