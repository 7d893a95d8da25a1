"""Packaging: one version source, the licence, the changelog and the type markers, in the
checkout and in the wheel (built once per session by the ``built_wheel`` fixture)."""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

import pytest

import ldp

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_has_one_source():
    project = _pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert _pyproject()["tool"]["hatch"]["version"]["path"] == "ldp/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|rc\d+)?", ldp.__version__)


def test_licence_changelog_and_type_markers_exist():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and "The ldpkit developers" in licence
    assert _pyproject()["project"]["license"] == "MIT"
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## Unreleased" in changelog
    assert re.search(rf"^## {re.escape(ldp.__version__)}\b", changelog, re.M)
    assert (ROOT / "ldp" / "py.typed").is_file() and (ROOT / "estimators" / "py.typed").is_file()


def test_docs_extra_is_installed_by_ci():
    extras = _pyproject()["project"]["optional-dependencies"]
    assert any(req.startswith("sphinx") for req in extras["docs"])
    assert "docs" in next(r for r in extras["dev"] if r.startswith("ldpkit["))
    ci = (ROOT / ".ci" / "run").read_text()
    assert '".[test,docs]"' in ci and "python -m sphinx -W" in ci


def test_ci_runs_the_readme_test_command_with_the_newest_dependencies():
    # the README's first bash block: the install command and the test command
    readme = (ROOT / "README.md").read_text()
    first_block = re.search(r"```bash\n(.*?)```", readme, flags=re.S).group(1)
    (command,) = [line for line in first_block.splitlines() if "pytest" in line]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert command.strip() in ci_lines  # verbatim, as a line of its own
    # a machine with an older pytest or hypothesis preinstalled still tests what a new user
    # gets: the newest versions the constraints allow
    assert re.search(r"pip install -U --upgrade-strategy eager -e \S*\[test,docs\]", command)


@pytest.mark.slow  # builds the wheel (shared with test_install.py): a few seconds
def test_the_wheel_carries_version_licence_and_type_markers(built_wheel):
    with zipfile.ZipFile(built_wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert {"ldp/py.typed", "estimators/py.typed"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert f"\nVersion: {ldp.__version__}\n" in metadata.decode()
    assert built_wheel.name.startswith(f"ldpkit-{ldp.__version__}-")
