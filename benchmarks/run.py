"""Run every benchmark, judge the targets: ``python -m benchmarks [--quick] [--json F]``.

Each script runs in a fresh process (timings do not share warm caches or memory peaks), with
numpy's BLAS and OpenMP pools pinned to one thread by environment variables set before it
imports numpy (and by threadpoolctl inside it when installed), and prints its own table.
Timed verdicts come from CPU time of the script's own process, the contenders of a row
interleaved and each judged by its median of three (``benchmarks/_timing.py``), so they do
not flip with the load of a shared machine. ``benchmarks/bench_speed.py`` holds each
workload to its limit (the draw of the random numbers it consumes) or its peer;
``benchmarks/bench_targets.py`` measures the other targets as ratios against references run
in the same process (the peer libraries pure-ldp and multi-freq-ldpy and dp-accounting,
found by importing their packages, scikit-learn's non-private model) and peak RSS;
``benchmarks/bench_design.py`` the design LP against scipy's ``linprog``. The runner prints
a verdict per target, writes
every row as JSON (default ``benchmarks/results.json``; the README's performance table is
generated from it by ``python -m benchmarks.table --write``) and exits non-zero when a target
is missed. A peer that is not installed gives a "skipped" row, never "ok".

``--quick`` is a smoke run at small sizes: its verdicts are printed but do not set the exit
status (the sizes are too small for the targets to mean anything).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._common import verdict_of
from benchmarks._timing import children_cpu, single_thread_environment

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results.json"

#: script -> (quick arguments, full arguments); the peer ratios with verdicts are in
#: bench_targets, so bench_frequency_oracles runs without its (slower, unjudged) peer table
#: and at n = 1e5 (``python -m benchmarks.bench_frequency_oracles`` runs it all)
SUITE = {
    "bench_speed": (["--quick"], []),
    "bench_targets": (["--quick"], []),
    "bench_import": (["--quick"], []),
    "bench_contraction": (["--repeat", "1"], []),
    "bench_design": (["--quick"], []),
    "bench_frequency_oracles": (
        ["--no-peers", "--sizes", "100000"],
        ["--no-peers", "--sizes", "100000"],
    ),
    "bench_accounting": ([], []),
    "bench_streaming": (["--quick"], []),
    "bench_sketches": (["--quick"], []),
    "bench_vector_means": (["--quick"], []),
    "bench_heavy_hitters": (["--quick"], []),
    "bench_numeric_distribution": (["--quick"], []),
    "bench_collector": (["--quick"], []),
    "bench_marginals": (["--quick"], []),
}
#: scripts that write their rows with ``--json PATH``
STRUCTURED = {
    "bench_speed",
    "bench_targets",
    "bench_design",
    "bench_streaming",
    "bench_import",
    "bench_sketches",
    "bench_vector_means",
    "bench_heavy_hitters",
    "bench_numeric_distribution",
    "bench_collector",
    "bench_marginals",
}


def run_one(name: str, arguments: list[str]) -> dict:
    """Run one script in a fresh process; its rows when it writes them."""
    with tempfile.TemporaryDirectory() as tmp:
        rows_path = os.path.join(tmp, "rows.json")
        extra = ["--json", rows_path] if name in STRUCTURED else []
        command = [sys.executable, "-m", f"benchmarks.{name}", *arguments, *extra]
        env = {
            **single_thread_environment(),
            "PYTHONPATH": os.pathsep.join(
                [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
            ),
        }
        before, start = children_cpu(), time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - start  # information: the verdicts are the rows'
        cpu = children_cpu() - before
        rows = []
        if os.path.exists(rows_path):
            with open(rows_path) as handle:
                rows = json.load(handle)["rows"]
    return {
        "benchmark": name,
        "arguments": arguments,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "returncode": done.returncode,
        "output": done.stdout,
        "error": done.stderr[-2000:] if done.returncode else "",
        "rows": rows,
    }


def verdicts(results: list[dict]) -> tuple[list[str], list[str]]:
    """Printed verdict lines, and the targets missed (a failed script counts as missed)."""
    lines, missed = [], []
    for r in results:
        if r["returncode"]:
            lines.append(f"  {r['benchmark']}: FAILED (exit {r['returncode']})")
            missed.append(r["benchmark"])
        for x in r["rows"]:
            if x.get("target"):
                verdict = verdict_of(x)
                lines.append(f"  {verdict:<10} {x['benchmark']}  (target {x['target']})")
                if x["ok"] is False:
                    missed.append(x["benchmark"])
    return lines, missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run at small sizes")
    parser.add_argument(
        "--json",
        metavar="PATH",
        default=None,
        help=f"write results as JSON (default {RESULTS.relative_to(ROOT)}; "
        "--quick writes nothing unless given)",
    )
    parser.add_argument("--only", nargs="*", choices=sorted(SUITE), help="run these only")
    args = parser.parse_args(argv)
    results = []
    for name, (quick, full) in SUITE.items():
        if args.only and name not in args.only:
            continue
        r = run_one(name, quick if args.quick else full)
        print(f"===== {name} ({r['cpu_seconds']:.1f} s CPU, {r['seconds']:.1f} s wall) =====")
        print(r["output"].rstrip())
        if r["returncode"]:
            print(r["error"].rstrip())
        results.append(r)
    lines, missed = verdicts(results)
    print("===== verdicts" + (" (quick: not judged)" if args.quick else "") + " =====")
    print("\n".join(lines))
    judged = not args.quick
    if missed:
        print(f"{len(missed)} target(s) MISSED" + ("" if judged else " (quick run: ignored)"))
    path = args.json or (None if args.quick else str(RESULTS))
    if path:
        payload = {
            "quick": args.quick,
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "machine": platform.platform(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "results": results,
        }
        Path(path).write_text(json.dumps(payload, indent=2, default=float) + "\n")
    return 1 if judged and missed else 0


if __name__ == "__main__":
    sys.exit(main())
