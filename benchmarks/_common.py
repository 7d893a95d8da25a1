"""Shared output for the benchmark scripts: a printed table and, optionally, JSON rows."""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from collections.abc import Callable, Sequence


def parser(description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every benchmark accepts."""
    out = argparse.ArgumentParser(description=description)
    out.add_argument("--quick", action="store_true", help="a small, sub-minute configuration")
    out.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    return out


def row(
    benchmark: str, value: float, unit: str, target: str = "", ok: bool | None = None, **extra
) -> dict:
    """One result: what was measured, its value, and the target it is held to."""
    return {
        "benchmark": benchmark,
        "value": value,
        "unit": unit,
        "target": target,
        "ok": ok,
        **extra,
    }


def verdict_of(r: dict) -> str:
    """ "ok", "MISSED", "skipped (why)" or "" (a figure with no target)."""
    if r.get("status") == "skipped":
        return f"skipped ({r.get('note', '')})"
    return {True: "ok", False: "MISSED", None: ""}[r["ok"]]


def timed(fn: Callable[[], object]) -> tuple[object, float]:
    """``(fn(), CPU seconds of this process)``: for a stateful step that runs once (a store
    filled); repeatable timings use ``benchmarks/_timing.py`` (median of three)."""
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def emit(title: str, rows: Sequence[dict], json_path: str | None = None) -> None:
    """Print the rows as a table and write them as JSON when asked."""
    print(title)
    width = max(len(r["benchmark"]) for r in rows) + 2
    for r in rows:
        value = r["value"]
        shown = f"{value:.4g}" if isinstance(value, float) and math.isfinite(value) else "-"
        verdict = verdict_of(r)
        print(f"  {r['benchmark']:<{width}}{shown!s:>12} {r['unit']:<8} {r['target']:<24}{verdict}")
    said = [r["says"] for r in rows if r.get("says")]
    if said:
        print("ratios (CPU time, interleaved, median of three):")
        print("\n".join(f"  {line}" for line in said))
    if json_path:
        payload = {
            "title": title,
            "machine": platform.platform(),
            "python": platform.python_version(),
            "rows": list(rows),
        }
        with open(json_path, "w") as handle:
            json.dump(payload, handle, indent=2, default=float)
