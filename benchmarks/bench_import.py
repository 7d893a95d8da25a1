"""Start-up time: ``import ldp`` and ``ldp --help`` in fresh processes.

Targets: both under 1 s of wall time (the issue "Speak to the user"), measured in a new
interpreter each time and reported as the median of the runs, beside the time the same
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

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 1.0
HEAVY = ("cvxpy", "pandas", "sklearn", "matplotlib", "scipy")


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def wall_seconds(arguments: list[str], runs: int) -> float:
    """Median wall time of ``python <arguments>`` in a fresh process."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, *arguments],
            cwd=ROOT,
            env=_environment(),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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
    baseline = wall_seconds(["-c", "pass"], runs)
    rows = [row("python -c pass (interpreter start)", baseline, "s", "reference")]
    for name, arguments in (
        ("import ldp", ["-c", "import ldp"]),
        ("ldp --help", ["-m", "ldp", "--help"]),
        ("ldp --version", ["-m", "ldp", "--version"]),
        ("import ldp; ldp.k_rr(4, 1.0)", ["-c", "import ldp; ldp.k_rr(4, 1.0)"]),
    ):
        seconds = wall_seconds(arguments, runs)
        target = name in ("import ldp", "ldp --help")
        rows.append(
            row(
                name,
                seconds,
                "s",
                f"< {TARGET_SECONDS:g} s" if target else "",
                (seconds < TARGET_SECONDS) if target else None,
                above_interpreter=seconds - baseline,
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
    emit("Start-up time (fresh processes, median)", run(args.quick), args.json)


if __name__ == "__main__":
    main()
