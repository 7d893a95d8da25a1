"""Shared test configuration: hypothesis profiles, small helpers (a seeded generator, the
wheel built once per session), the trust summary, and signs of life during long runs."""

import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
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


# ------------------------------------------------------------------------------- progress
def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


class Progress:
    """Signs of life, so that a slow run is told from a hung one.

    Under pytest-xdist the terminal shows a dot per test, and nothing while both workers sit
    in long tests (the documentation build, the clean-venv install). This plugin, on the
    process that reports, prints a line when a test file that took at least
    :attr:`SLOW_FILE` seconds finishes, and, after :attr:`QUIET` seconds without any test
    finishing, a line naming the files still running; ``--durations`` (in the project's
    pytest options) lists the slowest tests at the end.
    """

    QUIET = 30.0
    SLOW_FILE = 10.0

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.start = self.last = time.monotonic()
        self.lock = threading.Lock()
        self.running: dict[str, str] = {}  # test -> its file
        self.file_start: dict[str, float] = {}
        self.file_total: Counter = Counter()
        self.file_done: Counter = Counter()
        self.total: int | None = None
        self.done = 0
        self.stopped = threading.Event()
        self.watcher = threading.Thread(target=self._watch, name="progress", daemon=True)

    def _write(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"[{_clock(time.monotonic() - self.start)}] {line}")

    def _count(self, ids) -> None:
        if self.total is None:
            self.total = len(ids)
            self.file_total.update(i.split("::")[0] for i in ids)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        with self.lock:
            self._count(ids)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not hasattr(self.config, "workerinput"):
            with self.lock:
                self._count([item.nodeid for item in session.items])

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.watcher.start()

    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        with self.lock:
            path = nodeid.split("::")[0]
            self.running[nodeid] = path
            self.file_start.setdefault(path, time.monotonic())

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        with self.lock:
            now = self.last = time.monotonic()
            path = self.running.pop(report.nodeid, report.nodeid.split("::")[0])
            self.done += 1
            self.file_done[path] += 1
            took = now - self.file_start.get(path, now)
            if self.file_done[path] == self.file_total.get(path) and took >= self.SLOW_FILE:
                tests = f"{self.done} of {self.total} tests done"
                count = self.file_done[path]
                self._write(f"{path}: {count} test{'s' * (count != 1)} in {took:.0f} s ({tests})")

    def _watch(self) -> None:
        while not self.stopped.wait(2.0):
            with self.lock:
                now = time.monotonic()
                if now - self.last < self.QUIET or not self.running:
                    continue
                self.last = now
                files = sorted(set(self.running.values()))
                shown = ", ".join(files[:4]) + (" ..." if len(files) > 4 else "")
                self._write(f"still running: {shown} ({self.done} of {self.total} tests done)")

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.stopped.set()


#: The files that take the most time (the sum of their tests' durations, measured with
#: ``--durations=0`` under ``-n 2``: about 5 s or more), largest first: they are handed out
#: first (``--no-loadscope-reorder``), so that under ``-n auto`` the short files fill in around
#: them instead of a long one running alone at the end. Re-measure when a file grows or
#: shrinks; a path that names no file stops the run (a moved file would lose its place).
LONG_POLES = (
    "tests/project/test_docs.py",  # the documentation build, with every example (75 s)
    "tests/clients/test_js_client.py",  # Node.js runs (22 s)
    "tests/project/test_readme.py",  # the README's command-line blocks (20 s)
    "tests/accounting/amplification/test_shuffle.py",  # (19 s)
    "tests/project/test_install.py",  # the clean-venv install (18 s)
    "tests/clients/test_clients.py",  # (17 s)
    "tests/core/test_decoders.py",  # (15 s)
    "tests/mechanisms/test_longitudinal.py",  # (15 s)
    "tests/project/test_lint.py",  # mypy (13 s)
    "tests/design/test_design_colgen.py",  # (12 s)
    "tests/inference/test_tests.py",  # (12 s)
    "tests/helpers/test_fuzz.py",  # (11 s)
    "tests/risk/bounds/test_minimax.py",  # (10 s)
    "tests/accounting/central/test_natural_filter.py",  # (8 s)
    "tests/tasks/test_plausibility.py",  # (8 s)
    "tests/collector/test_survey.py",  # (7 s)
    "tests/clients/test_web_survey.py",  # Chromium (7 s)
    "tests/audit/test_audit.py",  # (6 s)
    "tests/tasks/test_range_queries.py",  # (6 s)
    "tests/mechanisms/test_calibration.py",  # (6 s)
    "tests/accounting/comparisons/test_comparison.py",  # (5 s)
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the tests marked ``long`` unless ``-m`` names them (``-m long`` runs only
    them): their smaller twins keep every check in the default run, and CI runs both. Then
    put the :data:`LONG_POLES` first (the order of the tests within a file is kept)."""
    if not re.search(r"\blong\b", config.option.markexpr or ""):
        long = [item for item in items if item.get_closest_marker("long")]
        if long:
            config.hook.pytest_deselected(items=long)
            items[:] = [item for item in items if not item.get_closest_marker("long")]
    root = Path(__file__).resolve().parents[1]
    missing = [path for path in LONG_POLES if not (root / path).is_file()]
    if missing:
        raise pytest.UsageError(f"LONG_POLES in tests/conftest.py names no file: {missing}")
    rank = {path: i for i, path in enumerate(LONG_POLES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def pytest_configure(config: pytest.Config) -> None:
    # the process that reports: the controller under pytest-xdist, else the only one
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Progress(config), "ldp-progress")
