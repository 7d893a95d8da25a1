"""What four example scripts must print and draw, checked once per test session.

Each script is run as ``python script.py figure.png`` (MPLBACKEND=Agg), either by its own
test or by the documentation build for the gallery, which keeps what it printed in
``docs/gallery/_output/<name>.txt`` and its figure in ``docs/gallery/_figures/<name>.png``.
A run costs seconds to tens of seconds, so a session that builds the documentation checks
the build's outputs (:data:`DOCS_CHECK`) and the scripts' own tests skip; a session without
the build (or without Sphinx) runs each script in its own test and checks the same way.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import ldp
from ldp.accounting import shuffle_amplification

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: The test of the documentation build that applies :data:`CHECKS` to the gallery's outputs.
DOCS_CHECK = "tests/project/test_docs.py::test_the_gallery_outputs_pass_the_example_checks"


def _has_matplotlib() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def check_contraction_table(stdout: str, figure: Path) -> None:
    lines = stdout.splitlines()
    for name in ("RR", "4-RR", "16-RR", "erasure"):
        for eps in ("0.5", "1", "2", "4"):
            rows = [ln.split() for ln in lines if ln.split()[:2] == [name, eps]]
            assert {r[2] for r in rows} == {"kl", "chi2", "tv", "E_g"}, (name, eps)
    if _has_matplotlib():
        assert figure.exists() and figure.stat().st_size > 0
    else:
        assert "skipping the figure" in stdout


def _value(label: str, text: str) -> float:
    match = re.search(rf"^\s+{re.escape(label)}\s+([\d.]+)", text, flags=re.MULTILINE)
    assert match, label
    return float(match.group(1))


def check_daily_telemetry(stdout: str, figure: Path) -> None:
    """The script's numbers re-accounted independently of it."""
    day = _value("one shuffled day", stdout)
    year = _value("the year (365 shuffled rounds)", stdout)
    # one shuffled day at epsilon0 = 4: the k-RR clone bound, re-computed here
    mech = ldp.k_rr(16, 4.0)
    assert day == pytest.approx(
        shuffle_amplification(4.0, 10**6, 1e-6, mechanism=mech).epsilon, abs=1e-4
    )
    assert day < year < 1.0 < 365 * day  # composed far below basic composition
    sections = stdout.split("3. shuffler, calibrated")
    assert len(sections) == 2
    eps0 = _value("per-report epsilon meeting the policy", sections[1])
    plain_eps0 = _value("per-report epsilon meeting the policy", sections[0])
    assert eps0 > 4.0 > 100 * plain_eps0
    assert _value("the year at that epsilon", sections[1]) <= 1.0
    assert _value("noise reduction against no shuffler", stdout) > 100
    if _has_matplotlib():
        assert figure.exists() and figure.stat().st_size > 1000
    else:
        assert "skipping the figure" in stdout


def check_heavy_hitters(stdout: str, figure: Path) -> None:
    """PEM and TreeHist at eps = 4 over 10^6 users find most of the true top 20."""
    recalls = [float(v) for v in re.findall(r"recall of the true top 20\s+([\d.]+)", stdout)]
    assert len(recalls) == 2
    assert recalls[0] >= 0.85 and recalls[1] >= 0.7
    eps = [float(v) for v in re.findall(r"protocol epsilon\s+([\d.]+)", stdout)]
    assert eps and all(4.0 <= e <= 4.0 + 1e-9 for e in eps)
    assert "page-1 " in stdout  # the most frequent string, named from the dictionary


def check_risk_vs_achieved(stdout: str, figure: Path) -> None:
    rows = re.findall(
        r"^\s*([\d.]+)\s+(\d+)\s+([\d.e+-]+)\s+([\d.e+-]+)\s+([\d.]+)\s+([\w-]+)$",
        stdout,
        flags=re.MULTILINE,
    )
    assert len(rows) == 2 * 4 * 4  # two losses, four eps, four n
    for _, _, lower, achieved, ratio, route in rows:
        assert 0 < float(lower) < float(achieved)
        assert float(ratio) >= 1.0
        assert route in ("van-trees", "fano", "djw", "phi", "tanh")
    if _has_matplotlib():
        assert figure.exists() and figure.stat().st_size > 0
    else:
        assert "no figure" in stdout


#: script name -> the check of what it printed (its stdout) and drew (the figure's path)
CHECKS: dict[str, Callable[[str, Path], None]] = {
    "contraction_table.py": check_contraction_table,
    "daily_telemetry.py": check_daily_telemetry,
    "heavy_hitters.py": check_heavy_hitters,
    "risk_vs_achieved.py": check_risk_vs_achieved,
}


def skip_when_the_docs_build_checks(request: pytest.FixtureRequest, nodeid: str) -> None:
    """Skip the calling test when this session also runs ``nodeid`` of the documentation
    build (and Sphinx is installed), which runs the examples and checks them there."""
    built = any(item.nodeid == nodeid for item in request.session.items)
    if built and importlib.util.find_spec("sphinx") is not None:
        pytest.skip(f"the documentation build of this session runs and checks it ({nodeid})")


def run_example(name: str, tmp_path: Path, timeout: float = 600) -> tuple[str, Path]:
    """Run ``examples/<name>`` as the documentation build does; its stdout and figure path."""
    figure = tmp_path / f"{Path(name).stem}.png"
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), str(figure)],
        cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    return result.stdout, figure
