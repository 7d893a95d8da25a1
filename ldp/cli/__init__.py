"""The ``ldp`` command (also ``python -m ldp``).

Subcommands, each with ``--json`` for machine-readable output (pure JSON on stdout):

* ``ldp design --k K --epsilon E --utility U [--out protocol.json]``: the certified
  utility-maximising channel, written as a protocol file for devices (or the matrix as CSV);
* ``ldp report MECHANISM|protocol.json``: the privacy of a mechanism or a protocol file,
  computed from the mechanism (epsilon, the delta profile, eta-TV) with its exact contraction
  coefficients beside the best theorem bounds;
* ``ldp privatize --protocol protocol.json answers.csv --out reports.csv``: a device
  simulator;
* ``ldp estimate --protocol protocol.json reports.csv``: estimates with confidence intervals
  (reports of another protocol are refused); or a simulation from a CSV column;
* ``ldp bound lecam|fano|assouad|bayes PRESET --n N --epsilon E``: a lower bound on the risk
  and the risk achieved;
* ``ldp plan PROBLEM --target T --epsilon E`` (or ``--n N``): the users (or epsilon) a target
  risk needs with the library's best mechanism, and the fewest any protocol needs;
* ``ldp account compose|gdp|filter``: composition, Gaussian DP and privacy filters.

Bad arguments end with exit code 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from ldp.accounting.filters import FilterHaltedError
from ldp.cli import account, bound, design, estimate, plan, privacy, privatize
from ldp.cli._common import Parser, jsonable
from ldp.cli.privacy import build_mechanism, report

__all__ = ["build_mechanism", "main", "report"]

#: subcommand -> its module (each has ``add_parser(commands)`` and ``run(args)``)
_COMMANDS = {
    "report": privacy,
    "design": design,
    "privatize": privatize,
    "estimate": estimate,
    "bound": bound,
    "plan": plan,
    "account": account,
}


def _build_parser() -> Parser:
    parser = Parser(prog="ldp", description="Local differential privacy toolkit.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in _COMMANDS.values():
        module.add_parser(commands)
    return parser


def _is_user_error(exc: BaseException) -> bool:
    if isinstance(exc, (TypeError, ValueError, LookupError, OSError, FilterHaltedError)):
        return True
    design_module = sys.modules.get("ldp.design")
    return design_module is not None and isinstance(exc, design_module.DesignError)


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
    try:
        data, text = _COMMANDS[args.command].run(args)
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
