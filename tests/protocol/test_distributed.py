"""ldp.distributed: streamed and Dask aggregation equal the in-memory statistic."""

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from ldp.distributed import aggregate, aggregate_chunks
from ldp.mechanisms import GRR, OLH, OUE, Laplace


def test_in_memory_forms_agree():
    grr = GRR(16, 1.0)
    reports = grr.privatize(np.random.default_rng(0).integers(0, 16, 5000), rng=1)
    expected = grr.aggregate(reports)
    for form in (reports, pd.Series(reports), pd.DataFrame({"r": reports})):
        got = aggregate(form, grr)
        assert np.array_equal(got.counts, expected.counts) and got.n == expected.n


@pytest.mark.parametrize("mechanism", [GRR(32, 1.0), OUE(32, 1.0), OLH(32, 2.0)], ids=repr)
def test_chunks_equal_one_shot(mechanism):
    rng = np.random.default_rng(2)
    reports = mechanism.privatize(rng.integers(0, 32, 3001), rng=rng)
    chunks = (reports[i : i + 400] for i in range(0, len(reports), 400))
    streamed = aggregate(chunks, mechanism)
    one = mechanism.aggregate(reports)
    assert np.array_equal(streamed.counts, one.counts) and streamed.n == one.n
    assert np.array_equal(mechanism.estimate(streamed), mechanism.estimate(one))


def test_multi_column_reports_in_tables():
    oue = OUE(20, 1.0)
    reports = oue.privatize(np.arange(20).repeat(10), rng=3)  # bit-packed bytes
    frame = pd.DataFrame(reports, columns=[f"b{i}" for i in range(reports.shape[1])])
    frame["user"] = np.arange(len(frame))
    got = aggregate(frame, oue, columns=[f"b{i}" for i in range(reports.shape[1])])
    assert np.array_equal(got.counts, oue.aggregate(reports).counts)
    with pytest.raises(ValueError, match="pass columns="):
        aggregate(frame, oue)


def test_means_stream_up_to_rounding():
    lap = Laplace(1.0)
    reports = lap.privatize(np.random.default_rng(4).uniform(-1, 1, 10_000), rng=5)
    streamed = aggregate(np.array_split(reports, 7), lap)
    assert lap.estimate(streamed) == pytest.approx(lap.estimate(reports), rel=1e-12)


def test_csv_and_parquet_chunks(tmp_path):
    grr = GRR(10, 1.0)
    reports = grr.privatize(np.random.default_rng(6).integers(0, 10, 20_000), rng=7)
    frame = pd.DataFrame({"id": np.arange(reports.size), "report": reports})
    frame.to_csv(tmp_path / "reports.csv", index=False)
    expected = grr.aggregate(reports).counts
    csv = aggregate(pd.read_csv(tmp_path / "reports.csv", chunksize=3000), grr, columns="report")
    assert np.array_equal(csv.counts, expected)
    pytest.importorskip("pyarrow")
    frame.to_parquet(tmp_path / "reports.parquet", row_group_size=2500)
    parquet = aggregate(tmp_path / "reports.parquet", grr, columns="report")
    assert np.array_equal(parquet.counts, expected) and parquet.n == reports.size


def test_streaming_memory_does_not_grow_with_n():
    grr = GRR(1024, 1.0)
    rng = np.random.default_rng(8)

    def chunks(count):
        for _ in range(count):
            yield grr.privatize(rng.integers(0, 1024, 100_000), rng=rng)

    peaks = []
    for count in (3, 30):
        tracemalloc.start()
        stats = aggregate_chunks(chunks(count), grr)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert stats.n == count * 100_000
    assert peaks[1] < 1.5 * peaks[0]  # ten times the reports, the same peak


def test_errors_name_the_chunk_and_leave_nothing_half_merged():
    grr = GRR(5, 1.0)
    good = grr.privatize(np.arange(5), rng=0)
    with pytest.raises(ValueError, match="chunk 1"):
        aggregate([good, np.array([0, 9])], grr)  # 9 is not a report of GRR(5)
    with pytest.raises(TypeError, match="chunk 1"):
        aggregate([good, GRR(9, 1.0).aggregate(good)], grr)
    with pytest.raises(ValueError, match="empty"):
        aggregate(iter([]), grr)
    with pytest.raises(ValueError, match="lacks the report column"):
        aggregate(
            [pd.DataFrame({"report": good}), pd.DataFrame({"other": good})], grr, columns="report"
        )
    with pytest.raises(TypeError, match="aggregate method"):
        aggregate(good, object())
    with pytest.raises(ValueError, match=r"\.parquet"):
        aggregate("reports.csv", grr)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_dask_dataframe_matches_local(client):
    dd = pytest.importorskip("dask.dataframe")
    grr = GRR(64, 1.0)
    rng = np.random.default_rng(9)
    reports = grr.privatize(rng.integers(0, 64, 1_000_000), rng=rng)
    frame = pd.DataFrame({"report": reports, "region": rng.integers(0, 3, reports.size)})
    ddf = dd.from_pandas(frame, npartitions=8)
    distributed_stats = aggregate(ddf, grr, columns="report")
    local = grr.aggregate(reports)
    assert np.array_equal(distributed_stats.counts, local.counts)
    assert np.array_equal(grr.estimate(distributed_stats), grr.estimate(local))


def test_dask_array_and_foreign_partitions(client):
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    oue = OUE(40, 1.0)
    reports = oue.privatize(np.arange(40).repeat(500), rng=10)
    darr = da.from_array(reports, chunks=(2500, 2))  # also chunked across bytes
    assert np.array_equal(aggregate(darr, oue).counts, oue.aggregate(reports).counts)
    grr = GRR(4, 1.0)
    bad = pd.concat([pd.DataFrame({"report": [0, 1, 2, 3]}), pd.DataFrame({"report": [7]})])
    with pytest.raises(ValueError, match="partition 1"):
        aggregate(dd.from_pandas(bad, npartitions=2, sort=False), grr, columns="report")
