"""``ldp account``: exact composition of repeated reports, Gaussian-DP conversions, what a
GDP privacy filter accepts, shuffle amplification and calibration of a per-report epsilon."""

from __future__ import annotations

import argparse

# the parser needs nothing heavy (``ldp account --help`` loads no scipy): the library is
# imported by the task that runs
from ldp.cli._common import Parser, UserError, count, eta, number, row
from ldp.cli.privacy import MECHANISMS, alphabet_size, build_mechanism

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    account = commands.add_parser(
        "account", help="composition, Gaussian DP, privacy filters, shuffling, calibration"
    )
    tasks = account.add_subparsers(dest="task", required=True, parser_class=Parser)
    compose = tasks.add_parser("compose", help="exact privacy of repeated reports")
    what = compose.add_mutually_exclusive_group(required=True)
    what.add_argument("--mechanism", choices=MECHANISMS, help="a finite channel (exact)")
    what.add_argument(
        "--eps-delta-eta",
        nargs=3,
        metavar=("E", "D", "H"),
        help="any (E, D)-LDP, H-TV mechanism (Ghazi-Issa (2023), Theorem 2; H may be 'max')",
    )
    what.add_argument("--gdp", type=float, metavar="MU", help="a mu-GDP mechanism")
    compose.add_argument("--epsilon", type=float, help="--mechanism: its epsilon")
    compose.add_argument("--k", type=count, help="--mechanism k-rr: alphabet size (required)")
    compose.add_argument(
        "--mechanism-delta", type=float, help="--mechanism binary-erasure: delta (default 0)"
    )
    compose.add_argument("--eta", type=float, help="--mechanism binary-erasure: eta-TV")
    compose.add_argument("--folds", type=count, required=True, help="number of reports")
    compose.add_argument(
        "--delta", type=float, nargs="+", default=[1e-5], help="report epsilon at these deltas"
    )
    compose.add_argument(
        "--at-epsilon", type=float, nargs="+", default=[1.0], help="report delta at these levels"
    )
    compose.add_argument(
        "--adaptive",
        action="store_true",
        help="--mechanism: the worst case over a new input pair at every report (default: "
        "the same answer reported every time)",
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

    shuffle = tasks.add_parser(
        "shuffle", help="central (epsilon, delta) of n shuffled epsilon0-LDP reports"
    )
    shuffle.add_argument(
        "--mechanism",
        choices=SHUFFLE_MECHANISMS,
        default="any",
        help="the local randomizer: any epsilon0-LDP one (default), rr or k-rr",
    )
    shuffle.add_argument("--k", type=count, help="--mechanism k-rr: alphabet size (required)")
    shuffle.add_argument("--epsilon0", type=float, required=True, help="per-report epsilon")
    shuffle.add_argument("--n", type=count, required=True, help="users shuffled together")
    shuffle.add_argument("--delta", type=float, required=True, help="central delta")
    shuffle.add_argument("--rounds", type=count, default=1, help="shuffled rounds composed")
    shuffle.add_argument("--json", action="store_true", help="print JSON instead of a table")

    cal = tasks.add_parser(
        "calibrate",
        help="largest per-report epsilon meeting a central (epsilon, delta) or mu-GDP target",
    )
    cal.add_argument("--target-epsilon", type=float, help="central epsilon (with --target-delta)")
    cal.add_argument("--target-delta", type=float, help="central delta")
    cal.add_argument(
        "--target-mu", type=float, help="central mu-GDP (instead of --target-epsilon/-delta)"
    )
    cal.add_argument(
        "--mechanism",
        choices=("rr", "k-rr"),
        help="the per-report mechanism (default: k-rr with --k, else rr)",
    )
    cal.add_argument("--k", type=count, help="k-rr: alphabet size")
    cal.add_argument("--folds", type=count, help="reports per user (default 1)")
    cal.add_argument("--n", type=count, help="users shuffled together (default: no shuffler)")
    cal.add_argument(
        "--rtol",
        type=float,
        default=1e-6,
        help="relative precision of the answer (larger is faster; the answer always meets "
        "the target)",
    )
    cal.add_argument("--json", action="store_true", help="print JSON instead of a table")


#: ``ldp account shuffle --mechanism``: ``any`` is the generic bound for every randomizer.
SHUFFLE_MECHANISMS = ("any", "rr", "k-rr")


def run(args: argparse.Namespace) -> tuple[dict, str]:
    tasks = {
        "compose": _compose,
        "gdp": _gdp,
        "filter": _filter,
        "shuffle": _shuffle,
        "calibrate": _calibrate,
    }
    return tasks[args.task](args)


def _up(x: float) -> float:
    """``x`` rounded up to six significant digits (a privacy loss is never shown smaller)."""
    import math

    if not (x > 0.0 and math.isfinite(x)):
        return x
    scale = 10.0 ** (math.floor(math.log10(x)) - 5)
    return math.ceil(x / scale * (1.0 - 1e-15)) * scale


def _down(x: float) -> float:
    """``x`` rounded down to six significant digits (a per-report budget is never shown
    larger than the one computed)."""
    import math

    if not (x > 0.0 and math.isfinite(x)):
        return x
    scale = 10.0 ** (math.floor(math.log10(x)) - 5)
    return math.floor(x / scale * (1.0 + 1e-15)) * scale


def _shuffle(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.accounting import shuffle_amplification
    from ldp.mechanisms import k_rr

    if args.mechanism == "any":
        alphabet_size("any", args.k)  # refuses a --k
        mechanism, name = None, f"any {args.epsilon0:g}-LDP randomizer"
    else:
        k = alphabet_size(args.mechanism, args.k)
        mechanism = k_rr(k, args.epsilon0)
        name = f"{k}-RR (epsilon0 = {args.epsilon0:g})"
    result = shuffle_amplification(
        args.epsilon0, args.n, args.delta, mechanism=mechanism, rounds=args.rounds
    )
    data = {
        "mechanism": name,
        "epsilon0": args.epsilon0,
        "n": args.n,
        "delta": args.delta,
        "rounds": args.rounds,
        "epsilon": result.epsilon,
        "method": result.method,
        "citation": result.citation,
        "clone_probability": result.clone_probability,
    }
    closed = None
    others = []
    if args.rounds == 1:
        for method in ("clones", "blanket"):
            other = shuffle_amplification(
                args.epsilon0, args.n, args.delta, mechanism=mechanism, method=method
            )
            data[method] = other.epsilon
            if method != result.method:
                others.append(other)
        try:
            closed = shuffle_amplification(args.epsilon0, args.n, args.delta, method="closed-form")
        except ValueError as exc:
            data["closed_form"] = None
            data["closed_form_note"] = " ".join(str(exc).split(";")[0].split())
        else:
            data["closed_form"] = closed.epsilon
    rounds = "" if args.rounds == 1 else f", {args.rounds} rounds"
    lines = [f"{args.n} shuffled reports of {name}{rounds}: upper bounds at delta = {args.delta:g}"]
    lines.append(row(f"central epsilon ({result.citation})", _up(result.epsilon), 60))
    for other in others:
        lines.append(row(f"{other.method} ({other.citation})", _up(other.epsilon), 60))
    if closed is not None:
        lines.append(row(f"closed form ({closed.citation})", _up(closed.epsilon), 60))
    elif "closed_form_note" in data:
        lines.append(f"  closed form: not applicable ({data['closed_form_note']})")
    return data, "\n".join(lines)


def _calibrate(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.accounting import calibrate

    k = alphabet_size(args.mechanism or ("rr" if args.k is None else "k-rr"), args.k)
    pair = (args.target_epsilon, args.target_delta)
    if args.target_mu is not None:
        if pair != (None, None):
            raise UserError("give --target-mu or --target-epsilon/--target-delta, not both")
    elif None in pair:
        raise UserError("--target-epsilon and --target-delta are needed (or --target-mu)")
    eps0 = calibrate(
        args.target_epsilon,
        args.target_delta,
        target_mu=args.target_mu,
        mechanism="k-rr",
        k=k,
        folds=args.folds,
        n_shuffled=args.n,
        rtol=args.rtol,
    )
    folds = 1 if args.folds is None else args.folds
    data: dict[str, object] = {"mechanism": f"{k}-RR"}
    if args.target_mu is None:
        data.update(target_epsilon=args.target_epsilon, target_delta=args.target_delta)
        target = f"(epsilon = {args.target_epsilon:g}, delta = {args.target_delta:g})"
    else:
        data["target_mu"] = args.target_mu
        target = f"mu = {args.target_mu:g} (Gaussian DP)"
    data.update(folds=folds, n_shuffled=args.n, epsilon0=eps0)
    how = f"{folds} report{'s' if folds != 1 else ''} per user"
    if args.n is not None:
        how += f", shuffled among {args.n} users"
    lines = [
        f"{k}-RR, {how}: target {target}",
        row("largest per-report epsilon", _down(eps0)),
    ]
    return data, "\n".join(lines)


def _compose(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.accounting import (
        EpsDeltaEtaComposition,
        GaussianTradeOff,
        compose,
        compose_eps_delta_eta,
    )

    if args.adaptive and args.mechanism is None:
        raise UserError("--adaptive applies to --mechanism (the other inputs are adaptive)")
    if args.mechanism is None:
        for name in ("epsilon", "k", "mechanism_delta", "eta"):
            if getattr(args, name) is not None:
                flag = "--" + name.replace("_", "-")
                raise UserError(f"{flag} describes --mechanism; it is not used here")
    elif args.mechanism != "binary-erasure" and args.mechanism_delta is not None:
        raise UserError(f"--mechanism-delta describes binary-erasure; {args.mechanism} has none")
    if args.eps_delta_eta is not None:
        e, d, h = args.eps_delta_eta
        try:
            e, d, h = float(e), float(d), eta(h)
        except (ValueError, argparse.ArgumentTypeError):
            raise UserError(
                f"--eps-delta-eta needs three numbers (H may be 'max'), got {args.eps_delta_eta}"
            ) from None
        result = compose_eps_delta_eta(e, d, h, args.folds, progress=args.progress)
        name = f"(eps={e:g}, delta={d:g}, eta={'max' if h is None else f'{h:g}'}) mechanism"
        assert isinstance(result, EpsDeltaEtaComposition)  # scalar parameters
        single = {"epsilon": e, "delta": d, "eta": result.params[2]}
    elif args.gdp is not None:
        result = compose(GaussianTradeOff(args.gdp), args.folds, progress=args.progress)
        name = f"{args.gdp:g}-GDP mechanism"
        single = {"mu": args.gdp}
    else:
        if args.epsilon is None:
            raise UserError("--mechanism needs --epsilon")
        channel = build_mechanism(
            argparse.Namespace(
                mechanism=args.mechanism,
                epsilon=args.epsilon,
                k=args.k,
                delta=args.mechanism_delta,
                eta=args.eta,
            )
        )
        result = compose(channel, args.folds, adaptive=args.adaptive, progress=args.progress)
        name = f"{args.mechanism} (epsilon = {args.epsilon:g})"
        single = {"epsilon": channel.epsilon, "tv": channel.tv}
    data = {
        "mechanism": name,
        "single": single,
        "folds": args.folds,
        "exact": result.exact,
        "kind": result.kind,
        "tv": result.tv,
        "epsilon": {f"{d:g}": float(result.epsilon_for_delta(d)) for d in args.delta},
        "delta": {f"{e:g}": float(result.delta(e)) for e in args.at_epsilon},
    }
    if result.mu is not None:
        data["mu"] = result.mu
    kind = "exact" if result.exact else "upper bound"
    kind += ", same input every report" if result.kind == "same-input" else ", adaptive"
    lines = [f"{args.folds} reports of a {name}: {kind}"]
    if result.mu is not None:
        lines.append(row("GDP mu", result.mu))
    lines.append(row("eta-TV", result.tv))
    lines += [row(f"epsilon at delta = {d}", v) for d, v in data["epsilon"].items()]
    lines += [row(f"delta at epsilon = {e}", v) for e, v in data["delta"].items()]
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
            raise UserError("without --mu, give one --epsilon and one --delta to find mu")
        mu = float(get_mu_from_epsilon_delta(args.epsilon[0], args.delta[0]))
        data = {"epsilon": args.epsilon[0], "delta": args.delta[0], "mu": mu}
        text = "\n".join(
            [
                f"smallest mu with ({args.epsilon[0]:g}, {args.delta[0]:g})-DP from mu-GDP",
                row("mu", mu),
            ]
        )
        return data, text
    if not args.epsilon and not args.delta:
        raise UserError("with --mu, give --epsilon and/or --delta to convert")
    data = {
        "mu": args.mu,
        "tv": float(get_tv_from_gdp(args.mu)),
        "epsilon": {f"{d:g}": float(get_epsilon_from_gdp(args.mu, d)) for d in args.delta or []},
        "delta": {f"{e:g}": float(get_delta_from_gdp(args.mu, e)) for e in args.epsilon or []},
    }
    lines = [f"{args.mu:g}-GDP", row("eta-TV", data["tv"])]
    lines += [row(f"epsilon at delta = {d}", v) for d, v in data["epsilon"].items()]
    lines += [row(f"delta at epsilon = {e}", v) for e, v in data["delta"].items()]
    return data, "\n".join(lines)


def _request(spec: str) -> object:
    """A filter request: a GDP mu, ``rr:EPS`` or ``k-rr:K:EPS``."""
    from ldp.mechanisms import k_rr, randomized_response

    parts = spec.split(":")
    kind = parts[0]
    k: int | None = None
    try:
        if len(parts) == 1:
            return float(spec)  # a GDP mu; its range is checked by the filter
        if kind == "rr" and len(parts) == 2:
            epsilon = float(parts[1])
        elif kind == "k-rr" and len(parts) == 3:
            k, epsilon = count(parts[1]), float(parts[2])
        else:
            raise ValueError(spec)
    except (ValueError, argparse.ArgumentTypeError):
        raise UserError(
            f"--request: expected a mu, 'rr:EPS' or 'k-rr:K:EPS', got {spec!r}"
        ) from None
    return randomized_response(epsilon) if k is None else k_rr(k, epsilon)


def _filter(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.accounting import PrivacyFilter
    from ldp.accounting.filters import FilterHaltedError

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
    lines += [f"  {r['request']:<20}{number(r['mu']):<12}{r['decision']}" for r in rows]
    lines.append(row("spent mu", pf.spent_mu))
    lines.append(row("remaining mu", pf.remaining_mu))
    lines.append(row("halted", pf.halted))
    return data, "\n".join(lines)
