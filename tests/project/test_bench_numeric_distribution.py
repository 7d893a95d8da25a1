"""The numeric-distribution benchmark runs end to end at tiny sizes (not its timings)."""

from benchmarks import bench_numeric_distribution as bench


def test_benchmark_runs_at_tiny_sizes():
    rows = bench.distribution(2_000, [2.0], 16, 1) + bench.ranges(2_000, 64, 1.0, 4, 1)
    assert all(r["value"] > 0 for r in rows)
    judged = [r for r in rows if r["target"]]
    assert len(judged) == 2 and all(isinstance(r["ok"], bool) for r in judged)
