"""The ``ldp`` command (also ``python -m ldp``).

Subcommands, each with ``--json`` for machine-readable output (pure JSON on stdout):

* ``ldp design --k K --epsilon E --utility U [--out protocol.json]``: the certified
  utility-maximising channel, written as a protocol file for devices (or the matrix as CSV);
* ``ldp report MECHANISM|protocol.json``: the privacy of a mechanism or a protocol file,
  computed from the mechanism (epsilon, the delta profile, eta-TV) with its exact contraction
  coefficients beside the best theorem bounds;
* ``ldp verify protocol.json [--max-epsilon E] [--pin HEX]``: the device client's own
  checks on a protocol file (the privacy a device computes from its constants, whether an
  app with that policy runs it, and the pin to ship);
* ``ldp privatize --protocol protocol.json answers.csv --out reports.csv``: a device
  simulator;
* ``ldp estimate --protocol protocol.json reports.csv``: estimates with confidence intervals
  (reports of another protocol are refused); or a simulation from a CSV column;
* ``ldp bound lecam|fano|assouad|bayes PRESET --n N --epsilon E``: a lower bound on the risk
  and the risk achieved;
* ``ldp plan PROBLEM --target T --epsilon E`` (or ``--n N``): the users (or epsilon) a target
  risk needs with the library's best mechanism, and the fewest any protocol needs;
* ``ldp account compose|gdp|filter|shuffle|calibrate``: composition, Gaussian DP, privacy
  filters, shuffle amplification and calibration of a per-report epsilon;
* ``ldp serve protocol.json --store reports.sqlite --port N --min-reports M``: the collector
  (:mod:`ldp.collector`, the ``server`` extra); ``ldp export --store reports.sqlite
  --protocol protocol.json --out reports.parquet``: the reports it stored.

``ldp --version`` prints the version. Bad arguments end with exit code 2 and a one-line
message, never a traceback. Only the module of the subcommand that runs is imported, so
``ldp --help`` answers before numpy and scipy would have loaded; a subcommand's module
imports the library only when the command runs, so ``ldp account --help`` is as quick.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from ldp.cli._common import Parser, jsonable

__all__ = ["build_mechanism", "main", "report"]

#: subcommand -> (its module in ``ldp.cli``, its one-line help). Each module has
#: ``add_parser(commands)`` and ``run(args)``; a module is imported only when its command
#: runs or its help is asked for, so ``ldp --help`` starts without numpy or scipy.
_COMMANDS = {
    "report": ("privacy", "privacy and contraction of a mechanism or a protocol file"),
    "verify": ("verify", "what a device computes for a protocol file, and whether it would run it"),
    "design": ("design", "the utility-maximising channel for a budget, certified"),
    "privatize": (
        "privatize",
        "run a protocol file on a CSV of answers, as devices would (a simulator)",
    ),
    "estimate": (
        "estimate",
        "estimates from the reports of a protocol file, or a simulation from a CSV column",
    ),
    "bound": ("bound", "a risk lower bound for a standard problem, and the risk achieved"),
    "plan": (
        "plan",
        "users (or epsilon) a target risk needs: the best mechanism and the lower bound",
    ),
    "account": (
        "account",
        "composition, Gaussian DP, privacy filters, shuffling, calibration",
    ),
    "serve": ("serve", "the collector: an ingest service for the reports of protocol files"),
    "export": ("export", "the reports a collector stored for a protocol, as a report table"),
}


def _command_module(command: str) -> Any:
    return importlib.import_module(f"{__name__}.{_COMMANDS[command][0]}")


def _version() -> str:
    from ldp import __version__

    return f"%(prog)s {__version__}"


def _build_parser(full: Iterable[str] | None = None) -> Parser:
    """The ``ldp`` parser. ``full`` names the subcommands whose own arguments are added
    (default: all); the others get only their name and help line."""
    full = set(_COMMANDS) if full is None else set(full)
    parser = Parser(prog="ldp", description="Local differential privacy toolkit.")
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command, (_, summary) in _COMMANDS.items():
        if command in full:
            _command_module(command).add_parser(commands)
        else:
            commands.add_parser(command, help=summary)
    return parser


def _is_user_error(exc: BaseException) -> bool:
    if isinstance(exc, (TypeError, ValueError, LookupError, OSError)):
        return True
    # the library's own error types, if their modules were loaded by the command
    for module, name in (
        ("ldp.design", "DesignError"),
        ("ldp.accounting.filters", "FilterHaltedError"),
    ):
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return True
    return False


def __getattr__(name: str) -> Any:
    if name in ("build_mechanism", "report"):  # re-exported from ldp.cli.privacy, lazily
        return getattr(importlib.import_module(f"{__name__}.privacy"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    argv = sys.argv[1:] if argv is None else list(argv)
    # top-level options come before the command, so the command is the first argument
    command = argv[0] if argv and argv[0] in _COMMANDS else None
    parser = _build_parser(full=() if command is None else (command,))
    args = parser.parse_args(argv)
    try:
        data, text = _command_module(args.command).run(args)
    except Exception as exc:
        if not _is_user_error(exc):
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"ldp: error: {message}", file=sys.stderr)
        return 2
    if args.json:
        output = json.dumps(jsonable(data), indent=2)
    else:
        output = "\n".join(line.rstrip() for line in text.splitlines())
    try:
        print(output, flush=True)
    except BrokenPipeError:  # `ldp ... | head`: the reader left; no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
