"""The ``ldp`` command (also ``python -m ldp``).

Subcommands, each with ``--json`` for machine-readable output:

* ``ldp report MECHANISM --epsilon E [--k K --delta D --eta H]``: the privacy of a mechanism
  computed from its matrix (epsilon, the delta profile, eta-TV) and its exact contraction
  coefficients beside the best theorem bounds.
* ``ldp design --k K --epsilon E --utility mi|tv|kl|chi2|hellinger``: the
  utility-maximising channel for a budget, certified (``--out Q.csv`` saves it).
* ``ldp bound lecam|fano|assouad|bayes PRESET --n N --epsilon E [--delta D]``: a minimax
  (or Bayes) lower bound, the theorem it comes from, its rate and, where a matching
  estimator exists, the risk that estimator achieves.
* ``ldp account compose|gdp|filter``: exact composition of repeated reports, Gaussian-DP
  conversions and what a GDP privacy filter accepts.
* ``ldp estimate``: frequency estimation, either simulated from a CSV column (privatize,
  then estimate, with the true frequencies for comparison) or from a file of reports.

Bad arguments end with exit code 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence

import numpy as np

from ldp.accounting.filters import FilterHaltedError
from ldp.channel import Channel
from ldp.mechanisms import binary_erasure, k_rr, randomized_response

__all__ = ["build_mechanism", "main", "report"]

MECHANISMS = ("rr", "k-rr", "binary-erasure")
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
ORACLES = ("grr", "sue", "oue", "olh", "blh", "hr", "ss")
_PACKED = ("sue", "oue", "ss")  # reports are bit-packed bytes


class _Parser(argparse.ArgumentParser):
    """argparse that ends with exit code 2 and one line on bad arguments."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised through main
        self.exit(2, f"{self.prog}: error: {message}\n")


class _UserError(ValueError):
    """A combination of arguments that the command itself rejects."""


# ------------------------------------------------------------------------------ argument types
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


def _count(text: str) -> int:
    """An integer, also written like ``1e4``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(value)


def _eta(text: str) -> float | None:
    if text.lower() == "max":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'max', got {text!r}") from None


# ---------------------------------------------------------------------------------- the parser
def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ldp", description="Local differential privacy toolkit.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    report_ = commands.add_parser(
        "report", help="privacy and contraction of a mechanism, computed from its matrix"
    )
    report_.add_argument("mechanism", choices=MECHANISMS)
    report_.add_argument("--epsilon", type=float, required=True, help="privacy level (>= 0)")
    report_.add_argument("--k", type=_count, default=2, help="alphabet size for k-rr")
    report_.add_argument("--delta", type=float, default=0.0, help="binary-erasure delta")
    report_.add_argument("--eta", type=float, default=None, help="binary-erasure eta-TV")
    report_.add_argument("--json", action="store_true", help="print JSON instead of a table")

    design = commands.add_parser(
        "design", help="the utility-maximising channel for a budget, certified"
    )
    design.add_argument("--k", type=_count, required=True, help="input alphabet size")
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

    bound = commands.add_parser(
        "bound",
        help="a risk lower bound for a standard problem, and the risk achieved",
        description="Valid pairs: "
        + "; ".join(f"{m}: {', '.join(p)}" for m, p in BOUND_PRESETS.items())
        + ".",
    )
    bound.add_argument("method", choices=tuple(BOUND_PRESETS))
    bound.add_argument("preset", choices=sorted({p for v in BOUND_PRESETS.values() for p in v}))
    bound.add_argument("--n", type=_count, required=True, help="number of users")
    bound.add_argument("--epsilon", type=float, required=True, help="privacy level (inf: none)")
    bound.add_argument("--delta", type=float, default=0.0, help="approximate-LDP delta")
    bound.add_argument("--moment", type=float, help="moment-mean: E|X|^moment <= 1 (> 1)")
    bound.add_argument("--d", type=_count, help="ball-mean: dimension")
    bound.add_argument("--r", type=float, help="ball-mean: radius (default 1)")
    bound.add_argument("--k", type=_count, help="distribution: alphabet size")
    bound.add_argument("--loss", choices=("l2sq", "l1"), help="distribution: loss (l2sq)")
    bound.add_argument(
        "--support",
        type=_floats,
        help="bernoulli-mean: LOW,HIGH (default 0,1; write --support=-1,1 when LOW < 0)",
    )
    bound.add_argument(
        "--route",
        help="bernoulli-mean: best|kl|hellinger|djw; distribution: best|djw|phi; "
        "beta-bernoulli: theorem2|corollary3",
    )
    bound.add_argument(
        "--envelope", action="store_true", help="beta-bernoulli: sup over eps' >= eps"
    )
    bound.add_argument("--json", action="store_true", help="print JSON instead of a table")

    account = commands.add_parser("account", help="composition, Gaussian DP and privacy filters")
    tasks = account.add_subparsers(dest="task", required=True, parser_class=_Parser)
    compose = tasks.add_parser("compose", help="exact privacy of repeated reports")
    what = compose.add_mutually_exclusive_group(required=True)
    what.add_argument("--mechanism", choices=MECHANISMS, help="a finite channel (exact)")
    what.add_argument(
        "--eps-delta-eta",
        nargs=3,
        metavar=("E", "D", "H"),
        help="any (E, D)-LDP, H-TV mechanism (seed 001 Thm 2; H may be 'max')",
    )
    what.add_argument("--gdp", type=float, metavar="MU", help="a mu-GDP mechanism")
    compose.add_argument("--epsilon", type=float, help="--mechanism: its epsilon")
    compose.add_argument("--k", type=_count, default=2, help="--mechanism k-rr: alphabet size")
    compose.add_argument(
        "--mechanism-delta", type=float, default=0.0, help="--mechanism binary-erasure: delta"
    )
    compose.add_argument("--eta", type=float, help="--mechanism binary-erasure: eta-TV")
    compose.add_argument("--folds", type=_count, required=True, help="number of reports")
    compose.add_argument(
        "--delta", type=float, nargs="+", default=[1e-5], help="report epsilon at these deltas"
    )
    compose.add_argument(
        "--at-epsilon", type=float, nargs="+", default=[1.0], help="report delta at these levels"
    )
    compose.add_argument("--progress", action="store_true", help="show a progress bar (tqdm)")
    compose.add_argument("--json", action="store_true", help="print JSON instead of a table")

    gdp = tasks.add_parser(
        "gdp", help="mu-GDP to (epsilon, delta), or (epsilon, delta) to the smallest mu"
    )
    gdp.add_argument("--mu", type=float, help="GDP parameter; without it, find mu")
    gdp.add_argument("--delta", type=float, nargs="+", help="epsilon at these deltas")
    gdp.add_argument("--epsilon", type=float, nargs="+", help="delta at these levels")
    gdp.add_argument("--json", action="store_true", help="print JSON instead of a table")

    filt = tasks.add_parser("filter", help="which requests a GDP privacy filter accepts")
    filt.add_argument("--mu-budget", type=float, required=True, help="total GDP budget")
    filt.add_argument(
        "--request",
        nargs="+",
        required=True,
        metavar="SPEC",
        help="each a GDP mu, 'rr:EPS' or 'k-rr:K:EPS', in order",
    )
    filt.add_argument(
        "--skip-refused",
        action="store_true",
        help="keep going after a refusal (default: the first refusal halts the filter)",
    )
    filt.add_argument("--json", action="store_true", help="print JSON instead of a table")

    estimate = commands.add_parser(
        "estimate",
        help="frequency estimation: simulated from a CSV column, or from a reports file",
    )
    estimate.add_argument("data", nargs="?", help="CSV file with a header row (simulation)")
    estimate.add_argument("--column", help="the column of DATA to privatize")
    estimate.add_argument("--reports", help="CSV of privatized reports, one per row")
    estimate.add_argument("--mechanism", choices=ORACLES, required=True, help="frequency oracle")
    estimate.add_argument("--epsilon", type=float, required=True, help="privacy level (> 0)")
    estimate.add_argument("--k", type=_count, help="--reports: number of categories")
    estimate.add_argument("--categories", help="--reports: comma-separated category names")
    estimate.add_argument("--rng", type=int, help="seed of the simulation")
    estimate.add_argument("--confidence", type=float, default=0.95, help="of the intervals")
    estimate.add_argument("--save-reports", help="simulation: write the reports to this CSV")
    estimate.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


# ---------------------------------------------------------------------------------- formatting
def _number(x: object) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return "inf" if math.isinf(x) else f"{float(x):.6g}"
    return str(x)


def _row(label: str, value: object, width: int = 34) -> str:
    return f"  {label:<{width}}{_number(value)}"


def _jsonable(x: object) -> object:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if x is None or isinstance(x, str):
        return x
    return str(x)


# ------------------------------------------------------------------------------------- report
def build_mechanism(args: argparse.Namespace) -> Channel:
    """The channel named on the command line (``mechanism``, ``epsilon``, ``k``, ...)."""
    if args.mechanism == "rr":
        return randomized_response(args.epsilon)
    if args.mechanism == "k-rr":
        return k_rr(args.k, args.epsilon)
    return binary_erasure(args.epsilon, args.delta, args.eta)


def report(channel: Channel, epsilon: float) -> dict:
    """The numbers of ``ldp report`` as a dictionary.

    Contraction coefficients are exact (computed from the matrix); each comes with the best
    theorem bound that the channel's own epsilon, delta profile and eta-TV imply.

    Parameters
    ----------
    channel : Channel
        The mechanism.
    epsilon : float
        The level at which the delta profile is shown (with ``0`` and ``epsilon / 2``).

    Returns
    -------
    dict
        ``shape``, ``epsilon``, ``tv``, ``delta`` (level -> delta) and ``contraction``
        (kind -> ``exact``, ``bound``, ``theorem``).

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.cli import report
    >>> data = report(k_rr(4, 1.0), 1.0)
    >>> round(data["contraction"]["kl"]["exact"], 6), data["contraction"]["kl"]["theorem"]
    (0.138861, 'seed 001 Thm 5')
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


def _report(args: argparse.Namespace) -> tuple[dict, str]:
    data = report(build_mechanism(args), args.epsilon)
    lines = [f"{args.mechanism}: {data['shape'][0]} inputs x {data['shape'][1]} outputs"]
    lines.append(_row("epsilon (tight, pure)", data["epsilon"]))
    lines.append(_row("eta-TV", data["tv"]))
    for level, value in data["delta"].items():
        lines.append(_row(f"delta({level})", value))
    lines.append(f"  {'contraction coefficient':<34}{'exact':<10}{'bound':<10}theorem")
    for kind, value in data["contraction"].items():
        lines.append(
            f"    {kind:<32}{_number(value['exact']):<10}{_number(value['bound']):<10}"
            f"{value['theorem']}"
        )
    return data, "\n".join(lines)


# ------------------------------------------------------------------------------------- design
def _design(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.design import optimal_channel

    result = optimal_channel(
        args.k, args.epsilon, utility=args.utility, prior=args.prior, hypotheses=args.hypotheses
    )
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
    lines = [f"optimal channel for {args.utility} at epsilon = {args.epsilon:g} ({result.method})"]
    with np.printoptions(precision=6, suppress=True):
        lines.append(str(matrix))
    lines.append(_row("utility", result.value))
    lines.append(_row("certified epsilon", result.epsilon))
    lines.append(_row("certified eta-TV", result.tv))
    if args.out:
        lines.append(f"  matrix written to {args.out}")
    return data, "\n".join(lines)


# -------------------------------------------------------------------------------------- bound
def _bound(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.plotting import _preset_risk

    if args.preset not in BOUND_PRESETS[args.method]:
        valid = ", ".join(BOUND_PRESETS[args.method])
        raise _UserError(f"{args.method} has no preset {args.preset!r}; choose from: {valid}")
    needs, accepts = _PRESET_OPTIONS[args.preset]
    options = {}
    for name in ("moment", "d", "r", "k", "loss", "support", "route", "envelope"):
        value = getattr(args, name)
        if value is None or value is False:
            continue
        if name not in needs + accepts:
            raise _UserError(f"--{name} does not apply to the {args.preset} preset")
        options[name] = value
    for name in needs:
        if name not in options:
            raise _UserError(f"the {args.preset} preset needs --{name}")
    if args.preset == "ball-mean":
        options["route"] = args.method  # "lecam" or "fano"
    if "support" in options:
        if len(options["support"]) != 2:
            raise _UserError(f"--support must be LOW,HIGH, got {args.support}")
        options["support"] = tuple(options["support"])
    lower, achieved = _preset_risk(args.preset, args.n, args.epsilon, args.delta, **options)
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
        _row(lower.quantity, lower.value),
        _row("theorem", lower.method),
        _row("rate", lower.rate),
    ]
    params = ", ".join(f"{k}={_number(v)}" for k, v in lower.params.items())
    if params:
        lines.append(_row("parameters", params))
    if achieved is not None:
        ratio = achieved.value / lower.value if lower.value > 0 else math.inf
        data["achieved"] = {
            "value": achieved.value,
            "estimator": achieved.method,
            "rate": achieved.rate,
            "ratio_to_bound": ratio,
        }
        lines.append(_row("achieved risk", achieved.value))
        lines.append(_row("  by", achieved.method))
        lines.append(_row("  achieved / bound", ratio))
    else:
        lines.append(_row("achieved risk", "(no matching estimator in ldp.risk)"))
    return data, "\n".join(lines)


# ------------------------------------------------------------------------------------ account
def _account(args: argparse.Namespace) -> tuple[dict, str]:
    return {"compose": _compose, "gdp": _gdp, "filter": _filter}[args.task](args)


def _compose(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.accounting import GaussianTradeOff, compose, compose_eps_delta_eta

    if args.mechanism is None:
        for name in ("epsilon", "eta"):
            if getattr(args, name) is not None:
                raise _UserError(f"--{name} describes --mechanism; it is not used here")
    if args.eps_delta_eta is not None:
        e, d, h = args.eps_delta_eta
        try:
            e, d, h = float(e), float(d), _eta(h)
        except (ValueError, argparse.ArgumentTypeError):
            raise _UserError(
                f"--eps-delta-eta needs three numbers (H may be 'max'), got {args.eps_delta_eta}"
            ) from None
        result = compose_eps_delta_eta(e, d, h, args.folds, progress=args.progress)
        name = f"(eps={e:g}, delta={d:g}, eta={'max' if h is None else f'{h:g}'}) mechanism"
        single = {"epsilon": e, "delta": d, "eta": result.params[2]}
    elif args.gdp is not None:
        result = compose(GaussianTradeOff(args.gdp), args.folds, progress=args.progress)
        name = f"{args.gdp:g}-GDP mechanism"
        single = {"mu": args.gdp}
    else:
        if args.epsilon is None:
            raise _UserError("--mechanism needs --epsilon")
        channel = build_mechanism(
            argparse.Namespace(
                mechanism=args.mechanism,
                epsilon=args.epsilon,
                k=args.k,
                delta=args.mechanism_delta,
                eta=args.eta,
            )
        )
        result = compose(channel, args.folds, progress=args.progress)
        name = f"{args.mechanism} (epsilon = {args.epsilon:g})"
        single = {"epsilon": channel.epsilon, "tv": channel.tv}
    data = {
        "mechanism": name,
        "single": single,
        "folds": args.folds,
        "exact": result.exact,
        "tv": result.tv,
        "epsilon": {f"{d:g}": float(result.epsilon(d)) for d in args.delta},
        "delta": {f"{e:g}": float(result.delta(e)) for e in args.at_epsilon},
    }
    if result.mu is not None:
        data["mu"] = result.mu
    kind = "exact" if result.exact else "upper bound"
    lines = [f"{args.folds} reports of a {name}: {kind}"]
    if result.mu is not None:
        lines.append(_row("GDP mu", result.mu))
    lines.append(_row("eta-TV", result.tv))
    lines += [_row(f"epsilon at delta = {d}", v) for d, v in data["epsilon"].items()]
    lines += [_row(f"delta at epsilon = {e}", v) for e, v in data["delta"].items()]
    return data, "\n".join(lines)


def _gdp(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.accounting import (
        get_delta_from_gdp,
        get_epsilon_from_gdp,
        get_mu_from_epsilon_delta,
        get_tv_from_gdp,
    )

    if args.mu is None:
        if not args.epsilon or not args.delta or len(args.epsilon) != 1 or len(args.delta) != 1:
            raise _UserError("without --mu, give one --epsilon and one --delta to find mu")
        mu = float(get_mu_from_epsilon_delta(args.epsilon[0], args.delta[0]))
        data = {"epsilon": args.epsilon[0], "delta": args.delta[0], "mu": mu}
        text = "\n".join(
            [
                f"smallest mu with ({args.epsilon[0]:g}, {args.delta[0]:g})-DP from mu-GDP",
                _row("mu", mu),
            ]
        )
        return data, text
    if not args.epsilon and not args.delta:
        raise _UserError("with --mu, give --epsilon and/or --delta to convert")
    data = {
        "mu": args.mu,
        "tv": float(get_tv_from_gdp(args.mu)),
        "epsilon": {f"{d:g}": float(get_epsilon_from_gdp(args.mu, d)) for d in args.delta or []},
        "delta": {f"{e:g}": float(get_delta_from_gdp(args.mu, e)) for e in args.epsilon or []},
    }
    lines = [f"{args.mu:g}-GDP", _row("eta-TV", data["tv"])]
    lines += [_row(f"epsilon at delta = {d}", v) for d, v in data["epsilon"].items()]
    lines += [_row(f"delta at epsilon = {e}", v) for e, v in data["delta"].items()]
    return data, "\n".join(lines)


def _request(spec: str) -> object:
    """A filter request: a GDP mu, ``rr:EPS`` or ``k-rr:K:EPS``."""
    parts = spec.split(":")
    kind, numbers = parts[0], None
    try:
        if len(parts) == 1:
            return float(spec)  # a GDP mu; its range is checked by the filter
        if kind == "rr" and len(parts) == 2:
            numbers = (float(parts[1]),)
        elif kind == "k-rr" and len(parts) == 3:
            numbers = (_count(parts[1]), float(parts[2]))
    except (ValueError, argparse.ArgumentTypeError):
        numbers = None
    if numbers is None:
        raise _UserError(f"--request: expected a mu, 'rr:EPS' or 'k-rr:K:EPS', got {spec!r}")
    return randomized_response(*numbers) if kind == "rr" else k_rr(*numbers)


def _filter(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.accounting import PrivacyFilter

    pf = PrivacyFilter(args.mu_budget, halt_on_refusal=not args.skip_refused)
    mechanisms = [_request(spec) for spec in args.request]
    rows = []
    for spec, mechanism in zip(args.request, mechanisms, strict=True):
        cost = pf.cost(mechanism)
        try:
            decision = "accepted" if pf.request(mechanism) else "refused"
        except FilterHaltedError:
            decision = "not run (filter halted)"
        rows.append({"request": spec, "mu": cost, "decision": decision})
    data = {
        "mu_budget": args.mu_budget,
        "requests": rows,
        "spent_mu": pf.spent_mu,
        "remaining_mu": pf.remaining_mu,
        "halted": pf.halted,
    }
    lines = [f"GDP privacy filter, budget mu = {args.mu_budget:g}"]
    lines.append(f"  {'request':<20}{'mu':<12}decision")
    lines += [f"  {r['request']:<20}{_number(r['mu']):<12}{r['decision']}" for r in rows]
    lines.append(_row("spent mu", pf.spent_mu))
    lines.append(_row("remaining mu", pf.remaining_mu))
    lines.append(_row("halted", pf.halted))
    return data, "\n".join(lines)


# ----------------------------------------------------------------------------------- estimate
def _oracle(name: str, k: int, epsilon: float):
    from ldp.mechanisms import FREQUENCY_ORACLES

    return FREQUENCY_ORACLES[name.upper()](k, epsilon)


def _read_column(path: str, column: str) -> tuple[np.ndarray, list, int]:
    """Category codes of ``column``, the sorted categories and the number of missing rows."""
    import pandas as pd

    frame = pd.read_csv(path)
    if column not in frame.columns:
        names = ", ".join(map(str, frame.columns))
        raise _UserError(f"column {column!r} is not in {path} (columns: {names})")
    values = frame[column]
    missing = int(values.isna().sum())
    values = values.dropna()
    categories = list(pd.unique(values))
    try:
        categories.sort()
    except TypeError:  # mixed kinds: order by their text
        categories.sort(key=str)
    if len(categories) < 2:
        raise _UserError(f"column {column!r} needs at least 2 distinct values")
    codes = pd.Categorical(values, categories=categories).codes.astype(np.int64)
    return codes, categories, missing


def _read_reports(path: str, mechanism: str) -> np.ndarray:
    import pandas as pd

    frame = pd.read_csv(path, header=None, comment="#")
    reports = frame.to_numpy()
    if reports.dtype.kind not in "iu":
        raise _UserError(f"{path} must hold integer reports, one per row")
    if mechanism in _PACKED:
        if reports.size and (reports.min() < 0 or reports.max() > 255):
            raise _UserError(f"{mechanism} reports are bytes in 0..255, one column per byte")
        return reports.astype(np.uint8)
    reports = reports.astype(np.int64)
    return reports[:, 0] if reports.shape[1] == 1 else reports


def _estimate(args: argparse.Namespace) -> tuple[dict, str]:
    from scipy.special import ndtri

    from ldp._validation import check_scalar

    confidence = check_scalar(
        args.confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True
    )
    z = float(ndtri(0.5 + confidence / 2.0))
    if args.data is not None and args.reports is not None:
        raise _UserError("give a data file (simulation) or --reports, not both")
    if args.data is None and args.reports is None:
        raise _UserError("give a data file with --column (simulation) or --reports FILE")
    truth = None
    missing = 0
    if args.data is not None:
        if args.column is None:
            raise _UserError("a data file needs --column")
        for name in ("k", "categories"):
            if getattr(args, name) is not None:
                raise _UserError(f"--{name} is read from the data; use it with --reports")
        codes, categories, missing = _read_column(args.data, args.column)
        oracle = _oracle(args.mechanism, len(categories), args.epsilon)
        reports = oracle.privatize(codes, rng=args.rng)
        truth = np.bincount(codes, minlength=len(categories)) / codes.size
        if args.save_reports:
            rows = reports.reshape(reports.shape[0], -1)
            header = f"ldp reports: {oracle!r}; categories: {','.join(map(str, categories))}"
            np.savetxt(args.save_reports, rows, fmt="%d", delimiter=",", header=header)
        source = f"{args.data}, column {args.column} (simulated reports)"
    else:
        for name in ("column", "save_reports", "rng"):
            if getattr(args, name) is not None:
                flag = "--" + name.replace("_", "-")
                raise _UserError(f"{flag} applies to a simulation from a data file")
        if args.k is None:
            raise _UserError("--reports needs --k, the number of categories")
        oracle = _oracle(args.mechanism, args.k, args.epsilon)
        reports = _read_reports(args.reports, args.mechanism)
        categories = list(range(args.k))
        if args.categories is not None:
            categories = args.categories.split(",")
            if len(categories) != args.k:
                raise _UserError(f"--categories lists {len(categories)} names for k = {args.k}")
        source = args.reports
    counts = oracle.aggregate(reports)
    estimate = oracle.estimate(counts)
    # exact variance of the estimator (fixed population); at the true frequencies in a
    # simulation, at the clipped estimates otherwise (plug-in)
    at = truth if truth is not None else np.clip(estimate, 0.0, 1.0)
    half = z * np.sqrt(oracle.variance(counts.n, at, convention="fixed"))
    rows = [
        {
            "category": c if isinstance(c, str) else _jsonable(c),
            "estimate": float(estimate[i]),
            "half_width": float(half[i]),
            **({"true": float(truth[i])} if truth is not None else {}),
        }
        for i, c in enumerate(categories)
    ]
    data = {
        "source": source,
        "mechanism": repr(oracle),
        "epsilon": oracle.epsilon,
        "n": counts.n,
        "missing": missing,
        "confidence": confidence,
        "frequencies": rows,
    }
    lines = [
        f"{oracle!r} on {source}",
        _row("reports", counts.n) + (f" ({missing} missing values skipped)" if missing else ""),
        _row("epsilon (exact)", oracle.epsilon),
        f"  {'category':<24}{'estimate':>10}   {'+/- ' + f'{confidence:.0%}':<12}"
        + ("true" if truth is not None else ""),
    ]
    for row in rows:
        true = f"{row['true']:.4f}" if truth is not None else ""
        lines.append(
            f"  {str(row['category'])[:23]:<24}{row['estimate']:>10.4f}   "
            f"{row['half_width']:<12.4f}{true}"
        )
    if truth is not None:
        error = np.abs(estimate - truth)
        covered = int(np.sum(error <= half))
        data["max_abs_error"] = float(error.max())
        data["covered"] = covered
        lines.append(_row("max |estimate - true|", float(error.max())))
        lines.append(_row("true value inside the interval", f"{covered} of {len(categories)}"))
    if args.save_reports:
        lines.append(f"  reports written to {args.save_reports}")
    return data, "\n".join(lines)


# ---------------------------------------------------------------------------------------- main
def _is_user_error(exc: BaseException) -> bool:
    if isinstance(exc, (TypeError, ValueError, LookupError, OSError, FilterHaltedError)):
        return True
    design = sys.modules.get("ldp.design")
    return design is not None and isinstance(exc, design.DesignError)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ldp`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        ``0`` on success, ``2`` on bad arguments (after a one-line message on stderr).

    Examples
    --------
    >>> from ldp.cli import main
    >>> main(["account", "gdp", "--mu", "1", "--delta", "1e-5"])
    1-GDP
      eta-TV                            0.382925
      epsilon at delta = 1e-05          4.3...
    0
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    handlers = {
        "report": _report,
        "design": _design,
        "bound": _bound,
        "account": _account,
        "estimate": _estimate,
    }
    try:
        data, text = handlers[args.command](args)
    except Exception as exc:
        if not _is_user_error(exc):
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"ldp: error: {message}", file=sys.stderr)
        return 2
    if args.json:
        output = json.dumps(_jsonable(data), indent=2)
    else:
        output = "\n".join(line.rstrip() for line in text.splitlines())
    try:
        print(output, flush=True)
    except BrokenPipeError:  # `ldp ... | head`: the reader left; no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
