"""Estimators fitted from streamed chunks or Dask partitions equal the in-memory fit."""

import numpy as np
import pandas as pd
import pytest

from estimators import FrequencyEstimator, MeanEstimator, Privatizer
from ldp.datasets import make_mixed


@pytest.fixture(scope="module")
def protocol():
    frame, _ = make_mixed(30_000, rng=0)
    categorical = frame[["region", "device"]]
    privatizer = Privatizer(2.0, random_state=1).fit(categorical)
    reports = privatizer.set_output(transform="pandas").transform(categorical)
    return privatizer, reports


def fitted(privatizer, reports):
    return FrequencyEstimator(2.0, mechanism=privatizer.mechanism).fit_reports(reports, privatizer)


def counts(estimator):
    return [s.counts.tolist() for s in estimator.statistics_]


def test_chunks_and_partial_fit_equal_one_fit(protocol, tmp_path):
    privatizer, reports = protocol
    whole = fitted(privatizer, reports)
    chunks = (reports.iloc[i : i + 7000] for i in range(0, len(reports), 7000))
    streamed = fitted(privatizer, chunks)
    assert counts(streamed) == counts(whole) and streamed.n_rows_ == whole.n_rows_
    for a, b in zip(streamed.frequencies_, whole.frequencies_, strict=True):
        assert np.array_equal(a, b)
    reports.to_csv(tmp_path / "reports.csv", index=False)
    from_csv = fitted(privatizer, pd.read_csv(tmp_path / "reports.csv", chunksize=4000))
    assert counts(from_csv) == counts(whole)
    step = FrequencyEstimator(2.0, mechanism=privatizer.mechanism)
    step.partial_fit_reports(reports.iloc[:100], privatizer)
    step.partial_fit_reports(iter([reports.iloc[100:20_000], reports.iloc[20_000:]]))
    assert counts(step) == counts(whole)


def test_streaming_errors_name_the_chunk_and_change_nothing(protocol):
    privatizer, reports = protocol
    est = fitted(privatizer, reports.iloc[:1000])
    before = counts(est), est.n_rows_
    bad = reports.iloc[:10].rename(columns={reports.columns[0]: "foreign"})
    with pytest.raises(ValueError, match="chunk 1"):
        est.partial_fit_reports(iter([reports.iloc[1000:2000], bad]))
    assert (counts(est), est.n_rows_) == before
    with pytest.raises(ValueError, match="empty"):
        est.partial_fit_reports(iter([]))


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_dask_fit_equals_local_fit(protocol, client):
    dd = pytest.importorskip("dask.dataframe")
    privatizer, reports = protocol
    whole = fitted(privatizer, reports)
    remote = fitted(privatizer, dd.from_pandas(reports, npartitions=8))
    assert counts(remote) == counts(whole) and remote.n_rows_ == whole.n_rows_
    for a, b in zip(remote.frequencies_, whole.frequencies_, strict=True):
        assert np.array_equal(a, b)
    bad = pd.concat([reports.iloc[:50], reports.iloc[50:60].assign(extra=1.0)])
    with pytest.raises(ValueError, match="partition"):
        fitted(privatizer, dd.from_pandas(bad, npartitions=2, sort=False))


def test_dask_mean_estimator_matches_local(client):
    dd = pytest.importorskip("dask.dataframe")
    frame, truth = make_mixed(20_000, rng=3)
    numeric = frame[["age", "score"]]
    bounds = {"age": truth["bounds"]["age"], "score": truth["bounds"]["score"]}
    privatizer = Privatizer(2.0, bounds=bounds, random_state=4).fit(numeric)
    reports = privatizer.set_output(transform="pandas").transform(numeric)
    local = MeanEstimator(2.0, bounds=bounds).fit_reports(reports, privatizer)
    remote = MeanEstimator(2.0, bounds=bounds).fit_reports(
        dd.from_pandas(reports, npartitions=6), privatizer
    )
    assert remote.n_rows_ == local.n_rows_
    assert np.allclose(remote.mean_, local.mean_, rtol=1e-12, atol=1e-12)
