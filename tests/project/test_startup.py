"""Start-up: ``import ldp`` loads nothing heavy, the lazy names behave like eager ones, and
``ldp --help`` / ``ldp --version`` answer without importing the subcommands.

The import checks run in fresh interpreters (this process has everything loaded already);
``benchmarks/bench_import.py`` measures the times."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ldp
from ldp import cli

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("cvxpy", "pandas", "sklearn", "matplotlib", "scipy")


def _fresh(code: str) -> subprocess.CompletedProcess:
    """``code`` run in a fresh interpreter using this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _modules_after(code: str) -> list[str]:
    """Top-level packages loaded by ``code`` in a fresh interpreter using this checkout."""
    done = _fresh(f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_import_ldp_loads_no_heavy_library():
    loaded = _modules_after("import ldp")
    assert [m for m in HEAVY if m in loaded] == []
    assert "numpy" not in loaded  # nothing at all until a name is used


def test_help_and_version_load_no_subcommand():
    code = (
        "import contextlib, io\n"
        "from ldp.cli import main\n"
        "for argv in (['--help'], ['--version']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        main(argv)"
    )
    loaded = _modules_after(code)
    assert [m for m in (*HEAVY, "numpy") if m in loaded] == []
    commands = {f"ldp.cli.{module}" for module, _ in cli._COMMANDS.values()}
    assert commands.isdisjoint(loaded)


#: What no subcommand's parser may load: ``ldp account --help`` once took 14 s importing the
#: optimizer and the accounting peers at parse time.
PARSE_HEAVY = (*HEAVY, "numpy", "scipy.optimize", "dp_accounting")


def test_ldp_account_help_imports_nothing_heavy():
    """``python -m ldp account --help`` in a fresh process, which lists the modules it
    loaded when it exits (after argparse has printed the help and exited)."""
    done = _fresh(
        "import atexit, json, runpy, sys\n"
        "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
        "sys.argv = ['ldp', 'account', '--help']\n"
        "runpy.run_module('ldp', run_name='__main__', alter_sys=True)"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "compose" in done.stdout and "calibrate" in done.stdout  # the help was printed
    loaded = json.loads(done.stderr.splitlines()[-1])
    assert "ldp.cli.account" in loaded
    assert [m for m in PARSE_HEAVY if m in loaded] == []


def test_every_subcommand_help_imports_nothing_heavy():
    commands = [[c] for c in cli._COMMANDS] + [
        ["account", task] for task in ("compose", "gdp", "filter", "shuffle", "calibrate")
    ]
    code = (
        "import contextlib, io\n"
        "from ldp.cli import main\n"
        f"for argv in {commands!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        main([*argv, '--help'])"
    )
    loaded = _modules_after(code)
    assert {f"ldp.cli.{module}" for module, _ in cli._COMMANDS.values()} <= set(loaded)
    assert [m for m in PARSE_HEAVY if m in loaded] == []


def test_lazy_names_resolve_like_eager_ones():
    for name in ldp.__all__:
        assert getattr(ldp, name) is not None
    assert ldp.accounting is importlib.import_module("ldp.accounting")
    assert ldp.Channel is importlib.import_module("ldp.channel").Channel
    from ldp import Channel, k_rr, risk  # noqa: F401 - `from ldp import` goes through __getattr__

    assert risk.le_cam is importlib.import_module("ldp.risk").le_cam
    assert set(ldp.__all__) <= set(dir(ldp))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ldp.nope


def test_version_option(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"ldp {ldp.__version__}"


def test_light_parser_lists_the_same_help_as_the_subcommands():
    def helps(parser):
        (action,) = [a for a in parser._actions if a.dest == "command"]
        return {choice.dest: choice.help for choice in action._choices_actions}

    light, full = helps(cli._build_parser(full=())), helps(cli._build_parser())
    assert light == full
    assert list(light) == list(cli._COMMANDS)


def test_reexports_of_the_cli_package():
    privacy = importlib.import_module("ldp.cli.privacy")
    assert cli.report is privacy.report and cli.build_mechanism is privacy.build_mechanism
    with pytest.raises(AttributeError):
        cli.nope
