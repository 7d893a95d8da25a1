"""The code base is ruff clean (lint and format) and mypy clean.

ruff and mypy run as ``python -m ruff`` / ``python -m mypy`` with the interpreter running the
tests, so they run whether or not its environment is activated (its ``bin`` need not be on
``PATH``). They are in the test extras: missing, the tests are skipped, and fail under CI.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module(name: str) -> None:
    if importlib.util.find_spec(name) is None:
        reason = f"{name} (in the test extras) is not installed for {sys.executable}"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the {name} test: {reason}")
        pytest.skip(reason)


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff(command):
    _module("ruff")
    extra = ["--output-format", "concise"] if command[0] == "check" else []
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy():
    _module("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
