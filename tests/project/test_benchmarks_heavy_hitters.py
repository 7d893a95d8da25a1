"""benchmarks/bench_heavy_hitters.py runs end to end at tiny sizes (not its timings), and a
missing peer gives skipped rows, never "ok"."""

import importlib.util

import numpy as np
import pytest

from benchmarks import bench_heavy_hitters as bench


def test_missing_peer_gives_skipped_rows(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    rows = bench.compare(1000, 12, "OLH")
    assert len(rows) == 2 and all(r["status"] == "skipped" and r["ok"] is None for r in rows)


def test_zipf_strings_and_recall():
    codes = bench.zipf_strings(5000, 12, seed=0)
    assert codes.min() >= 0 and codes.max() < 2**12
    top = bench.true_top(codes, 3)
    assert bench.recall([int(v) for v in top], top) == 1.0
    assert bench.recall([], top) == 0.0


@pytest.mark.slow  # pure-ldp, one user at a time
def test_compare_runs_at_tiny_size():
    pytest.importorskip("pure_ldp")
    rows = bench.compare(2000, 12, "OLH") + bench.compare(2000, 32, "CMS")
    assert all(np.isfinite(r["value"]) and r["ok"] is not None for r in rows)
