"""Scale: streaming aggregation of 1e8 GRR reports (peak RSS) and Dask vs in-memory.

* 1e8 GRR reports (k = 1024) privatized by a client-side Privatizer and streamed through
  ``FrequencyEstimator.partial_fit_reports`` in chunks of 1e6: peak resident memory
  (target < 1 GB) and counts equal to the sum of the per-chunk counts;
* aggregation throughput of 1e7 reports: in memory vs a local Dask cluster (threads).

Run: ``python benchmarks/bench_streaming.py [--quick] [--json out.json]``.
"""

from __future__ import annotations

import resource

import numpy as np

from benchmarks._common import emit, parser, row, timed
from ldp.distributed import aggregate
from ldp.mechanisms import GRR


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def streaming(total: int, chunk: int) -> list[dict]:
    import pandas as pd

    from estimators import FrequencyEstimator, Privatizer

    categories = {"answer": list(range(1024))}
    schema = pd.DataFrame({"answer": [0]})
    privatizer = Privatizer(1.0, categories=categories, mechanism="GRR", random_state=0)
    privatizer.fit(schema)
    estimator = FrequencyEstimator(1.0, categories=categories, mechanism="GRR")
    rng = np.random.default_rng(1)
    per_chunk = []

    def stream() -> None:
        for _ in range(total // chunk):
            values = pd.DataFrame({"answer": rng.integers(0, 1024, chunk)})
            reports = privatizer.transform(values)
            per_chunk.append(np.bincount(reports[:, 0].astype(np.int64), minlength=1024))
            estimator.partial_fit_reports(reports, privatizer)

    _, seconds = timed(stream)
    exact = bool(np.array_equal(estimator.statistics_[0].counts, np.sum(per_chunk, axis=0)))
    rss = peak_rss_mb()
    return [
        row(f"stream {total:.0e} GRR reports (partial_fit)", seconds, "s", "", None),
        row("  peak RSS", rss, "MB", "< 1024 MB", rss < 1024),
        row("  counts equal the per-chunk sum", float(exact), "bool", "1", exact),
    ]


def dask_vs_memory(n: int) -> list[dict]:
    import dask.array as da
    import distributed

    grr = GRR(1024, 1.0)
    reports = grr.privatize(np.random.default_rng(1).integers(0, 1024, n), rng=2)
    local, t_local = timed(lambda: aggregate(reports, grr))
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        darr = da.from_array(reports, chunks=n // 8)
        remote, t_dask = timed(lambda: aggregate(darr, grr))
    same = bool(np.array_equal(local.counts, remote.counts))
    return [
        row(f"aggregate {n:.0e} in memory", n / t_local / 1e6, "M/s"),
        row(f"aggregate {n:.0e} on Dask (8 blocks)", n / t_dask / 1e6, "M/s"),
        row("  Dask counts identical", float(same), "bool", "1", same),
    ]


def run(quick: bool = False) -> list[dict]:
    total = 10**7 if quick else 10**8
    rows = streaming(total, 10**6)
    try:
        rows += dask_vs_memory(10**6 if quick else 10**7)
    except ImportError:
        rows.append(row("Dask (extra not installed)", float("nan"), "", "", None))
    return rows


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    emit("Streaming and Dask aggregation", run(args.quick), args.json)


if __name__ == "__main__":
    main()
