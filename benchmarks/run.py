"""Run every benchmark and collect the figures: ``python -m benchmarks [--quick] [--json F]``.

Each script prints its own table of figures and targets; this runner runs them one after the
other in fresh processes (so timings do not share warm caches or memory peaks), prints their
output, a summary of wall times, and writes everything as JSON so runs can be compared.

``--quick`` is a sub-minute smoke run (smaller sizes, no peer libraries). The full run takes a
few minutes on a 2-core machine; the frequency-oracle comparison against pure-ldp and
multi-freq-ldpy runs when their environment exists (see bench_frequency_oracles.py).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: script -> (quick arguments, full arguments)
SUITE = {
    "bench_import": (["--quick"], []),
    "bench_channel": ([], []),
    "bench_contraction": (["--repeat", "1"], []),
    "bench_design": (["--quick"], []),
    "bench_frequency_oracles": (["--no-peers", "--sizes", "100000"], ["--peers", "/tmp/peers"]),
    "bench_accounting": ([], []),
    "bench_streaming": (["--quick"], []),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sub-minute smoke run")
    parser.add_argument("--json", metavar="PATH", default=None, help="write results as JSON")
    parser.add_argument("--only", nargs="*", choices=sorted(SUITE), help="run these only")
    args = parser.parse_args(argv)
    results = []
    for name, (quick, full) in SUITE.items():
        if args.only and name not in args.only:
            continue
        command = [sys.executable, "-m", f"benchmarks.{name}", *(quick if args.quick else full)]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        print(f"===== {name} ({seconds:.1f} s) =====")
        print(done.stdout.rstrip())
        if done.returncode:
            print(done.stderr.rstrip()[-2000:])
        results.append(
            {
                "benchmark": name,
                "arguments": command[3:],
                "seconds": seconds,
                "returncode": done.returncode,
                "output": done.stdout,
            }
        )
    print("===== summary =====")
    for r in results:
        status = "ok" if r["returncode"] == 0 else f"FAILED ({r['returncode']})"
        print(f"  {r['benchmark']:<28}{r['seconds']:8.1f} s  {status}")
    if args.json:
        payload = {
            "quick": args.quick,
            "machine": platform.platform(),
            "python": platform.python_version(),
            "results": results,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2))
    return 0 if all(r["returncode"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
