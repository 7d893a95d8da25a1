"""Start-up time: ``import ldp`` and ``ldp --help`` in fresh processes.

Targets: both under 1 s of CPU time (the issue "Speak to the user"; the child's user +
system time, so a loaded machine does not flip the verdict), measured in a new interpreter
each time, the commands interleaved round after round, and reported as the median of the
runs (wall time is recorded as information), beside the time the same
interpreter needs to start and do nothing (``python -c pass``), which no package can save.
Also reports which heavy libraries ``import ldp`` loads (none of cvxpy, pandas, scikit-learn,
matplotlib or scipy should be). Run: ``python -m benchmarks.bench_import [--quick]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._common import emit, parser, row
from benchmarks._timing import children_cpu

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 1.0
HEAVY = ("cvxpy", "pandas", "sklearn", "matplotlib", "scipy")


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def start_up_seconds(commands: list[list[str]], runs: int) -> list[tuple[float, float]]:
    """``(median CPU seconds, median wall seconds)`` of ``python <arguments>`` in a fresh
    process, for each command; the commands interleaved, round after round.

    CPU time is the child's user + system time (``benchmarks/_timing.children_cpu``), which
    waiting for a core on a loaded machine does not inflate; wall time is information."""
    cpu: list[list[float]] = [[] for _ in commands]
    wall: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for i, arguments in enumerate(commands):
            before, start = children_cpu(), time.perf_counter()
            subprocess.run(
                [sys.executable, *arguments],
                cwd=ROOT,
                env=_environment(),
                check=True,
                stdout=subprocess.DEVNULL,
            )
            wall[i].append(time.perf_counter() - start)
            cpu[i].append(children_cpu() - before)
    return [(statistics.median(c), statistics.median(w)) for c, w in zip(cpu, wall)]


def heavy_modules_after_import() -> list[str]:
    """The heavy libraries present in ``sys.modules`` after ``import ldp``."""
    code = (
        "import json, sys, ldp; "
        f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_environment(),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def run(quick: bool) -> list[dict]:
    runs = 3 if quick else 9
    named = (
        ("python -c pass (interpreter start)", ["-c", "pass"]),
        ("import ldp", ["-c", "import ldp"]),
        ("ldp --help", ["-m", "ldp", "--help"]),
        ("ldp --version", ["-m", "ldp", "--version"]),
        ("import ldp; ldp.k_rr(4, 1.0)", ["-c", "import ldp; ldp.k_rr(4, 1.0)"]),
    )
    timings = start_up_seconds([arguments for _, arguments in named], runs)
    baseline, baseline_wall = timings[0]
    rows = [row(named[0][0] + ", CPU", baseline, "s", "reference", wall_seconds=baseline_wall)]
    for (name, _), (seconds, wall) in zip(named[1:], timings[1:]):
        target = name in ("import ldp", "ldp --help")
        rows.append(
            row(
                f"{name}, CPU",
                seconds,
                "s",
                f"< {TARGET_SECONDS:g} s" if target else "",
                (seconds < TARGET_SECONDS) if target else None,
                above_interpreter=seconds - baseline,
                wall_seconds=wall,
            )
        )
    heavy = heavy_modules_after_import()
    rows.append(
        row(
            "heavy modules after import ldp",
            len(heavy),
            "modules",
            "0 (" + ", ".join(HEAVY) + ")",
            not heavy,
            modules=heavy,
        )
    )
    return rows


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    emit("Start-up time (fresh processes, CPU time, median)", run(args.quick), args.json)


if __name__ == "__main__":
    main()
