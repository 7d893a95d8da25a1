"""Shared test configuration: hypothesis profiles, small helpers (a seeded generator, the
wheel built once per session) and the trust summary."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# "ci" (the default) is derandomized: the examples are a fixed function of each test, so a
# run passes or fails the same way every time (and no example database is kept). "dev"
# (HYPOTHESIS_PROFILE=dev) draws fresh random examples, about eight times as many, to explore.
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng():
    """A seeded generator, fresh for each test."""
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> Path:
    """The ldpkit wheel, built from this checkout once per session (``pip wheel --no-deps``,
    a few seconds) and shared by the tests that inspect or install it."""
    root = Path(__file__).resolve().parents[1]
    folder = tmp_path_factory.mktemp("wheel")
    # nothing of the calling environment leaks into the build
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(root)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, f"pip wheel failed:\n{build.stdout}\n{build.stderr}"
    (wheel,) = folder.glob("ldpkit-*.whl")
    return wheel


#: Numbers the audit and fuzz suites report at the end of the session.
TRUST = {"fuzz_inputs": 0, "audited": {}, "caught": {}}


@pytest.fixture(scope="session")
def trust():
    """The session's audit and fuzz record: ``fuzz_inputs`` (calls made on generated inputs),
    ``audited`` (mechanism -> (eps_lower, eps)) and ``caught`` (broken mechanism -> bound)."""
    return TRUST


def pytest_terminal_summary(terminalreporter):
    audited, caught = TRUST["audited"], TRUST["caught"]
    if not (TRUST["fuzz_inputs"] or audited or caught):
        return
    terminalreporter.write_sep("=", "trust: privacy audits and fuzzing")
    terminalreporter.write_line(f"fuzz inputs tried: {TRUST['fuzz_inputs']}")
    if audited:
        name, (lower, eps) = max(audited.items(), key=lambda item: item[1][0] / item[1][1])
        terminalreporter.write_line(f"mechanisms audited: {len(audited)}")
        terminalreporter.write_line(
            f"largest eps_lower / eps: {lower / eps:.4f} ({name}: {lower:.4f} / {eps:.4f})"
        )
    for name, (lower, eps) in caught.items():
        terminalreporter.write_line(
            f"broken mechanism caught: {name}: eps_lower {lower:.4f} > claimed {eps:.4f}"
        )
