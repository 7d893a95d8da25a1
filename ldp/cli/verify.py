"""``ldp verify``: what a device computes for a protocol file, and whether it would run it.

It runs the dependency-free Python device client (``clients/python/ldp_client.py``, shipped
with the library) on the file's text, exactly as a device would: the limits, the fingerprint,
the privacy computed from the sampler constants in exact arithmetic, and the app's policy given
on the command line. An app developer runs it on the server's file to see the number the
device will show and to get the pin to ship with the app; a refused file ends with exit 2 and
the device's one-line reason.
"""

from __future__ import annotations

import argparse

from ldp.cli._common import UserError, input_file, reading, row

__all__ = ["add_parser", "run"]


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "verify",
        help="what a device computes for a protocol file, and whether it would run it",
        description="Run the device client's own checks on PROTOCOL (a protocol file): the "
        "privacy of one report computed from its sampler constants in exact arithmetic, under "
        "the app policy given by the options. Exit 2 when a device would refuse the file.",
    )
    parser.add_argument("protocol", metavar="PROTOCOL", help="the protocol file (JSON)")
    parser.add_argument("--max-epsilon", type=float, help="the app's largest epsilon")
    parser.add_argument(
        "--max-delta", type=float, help="the app's largest delta (default 0 with a policy)"
    )
    parser.add_argument(
        "--pin",
        action="append",
        metavar="HEX",
        help="accept only these protocols: 16-digit fingerprints or 64-digit pins (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _policy(args: argparse.Namespace) -> dict | None:
    policy: dict = {}
    if args.max_epsilon is not None:
        policy["max_epsilon"] = args.max_epsilon
    if args.max_delta is not None:
        policy["max_delta"] = args.max_delta
    if args.pin:
        policy["pinned_fingerprints"] = list(args.pin)
    return policy or None


def run(args: argparse.Namespace) -> tuple[dict, str]:
    from ldp.protocol.device import device_client

    path = input_file(args.protocol, "protocol file")
    client = device_client()
    with reading(path, "protocol file"), open(path, "rb") as handle:
        text = handle.read(client.MAX_PROTOCOL_BYTES + 1)  # a larger file is refused anyway
    try:
        proto = client.load_protocol(text)
        info = client.verify(proto, _policy(args))
    except (TypeError, ValueError) as exc:
        raise UserError(f"a device refuses {args.protocol}: {exc}") from None
    data = {**info, "pin": proto.pin, "version": proto["version"]}
    lines = [f"protocol {info['fingerprint']}: {info['mechanism']}, as a device computes it"]
    lines.append(row("epsilon (exact, rounded up)", info["epsilon"]))
    if info["delta"]:
        lines.append(row("delta (checked at that epsilon)", info["delta"]))
    if "epsilon_permanent" in info:
        lines.append(row("epsilon of the permanent response", info["epsilon_permanent"]))
    if "mu" in info:
        lines.append(row("mu (Gaussian DP)", info["mu"]))
    if not info["certified"]:
        lines.append("  not computed exactly on devices: they run it only when the app pins it")
    lines.append(row("pin (ship it to accept this file)", proto.pin))
    return data, "\n".join(lines)
