"""``ldp report``: the privacy of a mechanism or a protocol file, computed from the mechanism."""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING

from ldp.cli._common import UserError, count, input_file, number, row

if TYPE_CHECKING:  # the parser needs no numpy or scipy: the library is imported when it runs
    from ldp.channel import Channel

__all__ = ["MECHANISMS", "add_parser", "alphabet_size", "build_mechanism", "report", "run"]

MECHANISMS = ("rr", "k-rr", "binary-erasure")
#: Largest channel (k^2 m entries of work) whose contraction coefficients are reported.
_CONTRACTION_WORK = 1 << 22


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "report",
        help="privacy and contraction of a mechanism or a protocol file",
        description="MECHANISM is rr, k-rr, binary-erasure, or the path of a protocol file "
        "(its privacy is recomputed from its mechanism).",
    )
    parser.add_argument("mechanism", metavar="MECHANISM", help="rr, k-rr, binary-erasure or FILE")
    parser.add_argument("--epsilon", type=float, help="privacy level (>= 0); a file states its own")
    parser.add_argument("--k", type=count, help="k-rr: alphabet size (required)")
    parser.add_argument("--delta", type=float, help="binary-erasure: delta (default 0)")
    parser.add_argument("--eta", type=float, help="binary-erasure: eta-TV (default the largest)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def alphabet_size(mechanism: str, k: int | None) -> int:
    """``--k`` checked against the mechanism it describes: k-rr needs it (there is no
    default alphabet), randomized response has two inputs and takes none.

    Raises :class:`~ldp.cli._common.UserError` instead of a silent ``k = 2`` or a ``--k``
    that is quietly ignored.
    """
    if mechanism == "k-rr":
        if k is None:
            raise UserError("k-rr needs --k, its alphabet size")
        return k
    if k is not None:
        raise UserError(f"--k is the alphabet size of k-rr, not of {mechanism}")
    return 2


def build_mechanism(args: argparse.Namespace) -> Channel:
    """The channel named on the command line (``mechanism``, ``epsilon``, ``k``, ``delta``,
    ``eta``; options the mechanism does not take are ``None``, else refused)."""
    from ldp.mechanisms import binary_erasure, k_rr, randomized_response

    k = alphabet_size(args.mechanism, args.k)
    if args.mechanism != "binary-erasure":
        for name in ("delta", "eta"):
            if getattr(args, name) is not None:
                raise UserError(f"--{name} describes binary-erasure; {args.mechanism} has none")
    if args.mechanism == "rr":
        return randomized_response(args.epsilon)
    if args.mechanism == "k-rr":
        return k_rr(k, args.epsilon)
    return binary_erasure(args.epsilon, args.delta or 0.0, args.eta)


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
    >>> round(data["contraction"]["kl"]["exact"], 6)
    0.138861
    """
    levels = sorted({0.0, epsilon / 2.0, epsilon} - {math.inf})
    contraction = {}
    k, m = channel.shape
    if k * k * m <= _CONTRACTION_WORK:
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
        "plain": channel.summary().to_dict(),
        "shape": list(channel.shape),
        "epsilon": channel.epsilon,
        "tv": channel.tv,
        "delta": {f"{e:g}": channel.delta(e) for e in levels},
        "contraction": contraction,
    }


def _plain_lines(plain) -> list[str]:
    return ["In plain terms:", *(f"  {line}" for line in plain.lines())]


def _table(title: str, data: dict) -> list[str]:
    lines = [title, "In detail:"]
    lines.append(row("epsilon (tight, pure)", data["epsilon"]))
    lines.append(row("eta-TV (most any event can move)", data["tv"]))
    for level, value in data["delta"].items():
        lines.append(row(f"delta at epsilon = {level}", value))
    if data["contraction"]:
        lines.append(f"  {'contraction coefficient':<34}{'exact':<10}{'bound':<10}theorem")
        for kind, value in data["contraction"].items():
            lines.append(
                f"    {kind:<32}{number(value['exact']):<10}{number(value['bound']):<10}"
                f"{value['theorem']}"
            )
    return lines


def _protocol_report(path: str, args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.channel import Channel
    from ldp.protocol import load

    for name in ("k", "delta", "eta"):
        if getattr(args, name) is not None:
            raise UserError(f"--{name} describes a named mechanism; a protocol file states its own")
    protocol = load(input_file(path, "protocol file"))
    level = protocol.epsilon if args.epsilon is None else args.epsilon
    plain = protocol.summary()
    data: dict = {
        "plain": plain.to_dict(),
        "protocol": path,
        "fingerprint": protocol.fingerprint,
        "question": protocol.question,
        "mechanism": protocol.mechanism.key,
        "domain": protocol.describe_domain(),
        "stated": {"epsilon": protocol.epsilon, "delta": protocol.delta, "tv": protocol.tv},
    }
    lines = [
        f"protocol {protocol.fingerprint}: {protocol.mechanism.key} on "
        f"{protocol.describe_domain()}",
    ]
    if protocol.question:
        lines.append(row("question", protocol.question))
    lines += _plain_lines(plain)
    lines.append("In detail:")
    lines.append(row("stated epsilon (>= recomputed)", protocol.epsilon))
    if protocol.delta:
        lines.append(row("stated delta", protocol.delta))
    try:
        device = protocol.device_privacy()
    except ValueError as exc:
        device = {"refused": " ".join(str(exc).split())}
        lines.append(f"  {exc}")
    else:
        label = "on a device (exact)" if device["certified"] else "on a device (only if pinned)"
        lines.append(row(label, device["epsilon"]))
    data["device"] = device
    data["pin"] = protocol.pin
    data["version"] = protocol.version
    channel = protocol.mechanism if isinstance(protocol.mechanism, Channel) else None
    if channel is None:
        try:
            channel = protocol.mechanism.to_channel()
        except (NotImplementedError, ValueError):
            channel = None
    if channel is not None:
        data.update({key: v for key, v in report(channel, level).items() if key != "plain"})
        lines.append(f"  the channel ({channel.n_inputs} x {channel.n_outputs}):")
        lines += _table("", data)[2:]
    else:
        data["epsilon"] = protocol.mechanism.epsilon
        lines.append(row("epsilon (recomputed)", data["epsilon"]))
    return data, "\n".join(lines)


def run(args: argparse.Namespace) -> tuple[dict, str]:
    if args.mechanism not in MECHANISMS:
        if args.mechanism.endswith(".json") or os.path.isfile(args.mechanism):
            return _protocol_report(args.mechanism, args)
        raise UserError(
            f"MECHANISM must be one of {', '.join(MECHANISMS)} or a protocol file, got "
            f"{args.mechanism!r}"
        )
    if args.epsilon is None:
        raise UserError(f"{args.mechanism} needs --epsilon")
    channel = build_mechanism(args)
    data = report(channel, args.epsilon)
    title = f"{args.mechanism}: {data['shape'][0]} inputs x {data['shape'][1]} outputs"
    plain = channel.summary(delta=args.delta or 0.0)
    data["plain"] = plain.to_dict()
    return data, "\n".join([title, *_plain_lines(plain), *_table("", data)[1:]])
