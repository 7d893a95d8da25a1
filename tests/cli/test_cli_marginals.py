"""``ldp estimate`` on a marginals protocol: the requested tables from client records."""

import json

import numpy as np
import pytest
from scipy.special import ndtri

from estimators import MarginalEstimator
from ldp.cli import main

CATEGORIES = {"a": ["x", "y"], "b": [0, 1, 2]}


@pytest.fixture
def deployed(tmp_path):
    est = MarginalEstimator(
        2.0, categories=CATEGORIES, method="groups", marginals=[("a", "b"), ("b",)],
        consistency=False,
    )  # fmt: skip
    protocol = est.device_protocol(question="a and b?")
    rng = np.random.default_rng(0)
    records = protocol.records([rng.integers(0, 2, 3000), rng.integers(0, 3, 3000)], rng=1)
    path, reports = tmp_path / "m.json", tmp_path / "r.jsonl"
    protocol.save(path)
    reports.write_text("".join(json.dumps(r) + "\n" for r in records))
    return est.fit_reports(records, protocol), str(path), str(reports)


def test_estimate_prints_the_estimators_unbiased_tables(capsys, deployed):
    est, path, reports = deployed
    assert main(["estimate", "--protocol", path, reports, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mechanism"] == "marginals" and data["n"] == 3000 and data["method"] == "groups"
    assert [m["columns"] for m in data["marginals"]] == [["a", "b"], ["b"]]
    for table, printed in zip(est.tables_, data["marginals"]):
        frame = est.marginal(list(table))
        got = [r["estimate"] for r in printed["frequencies"]]
        np.testing.assert_allclose(got, frame["unbiased"], rtol=1e-12)
        half = [r["half_width"] for r in printed["frequencies"]]
        np.testing.assert_allclose(half, ndtri(0.975) * frame["std"], rtol=1e-12)
    assert data["marginals"][0]["frequencies"][0]["category"] == "a=x, b=0"
    assert main(["estimate", "--protocol", path, reports]) == 0
    assert "marginal of a, b (unbiased)" in capsys.readouterr().out


def test_estimate_refuses_foreign_records_and_options(capsys, deployed, tmp_path):
    _, path, reports = deployed
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"fingerprint": "0" * 16, "report": [0, 1]}) + "\n")
    assert main(["estimate", "--protocol", path, str(bad)]) == 2
    assert "not this protocol's" in capsys.readouterr().err
    assert main(["estimate", "--protocol", path, reports, "--consistency", "project"]) == 2
    assert "--consistency project: --items and --consistency do not apply to a marginals" in (
        capsys.readouterr().err
    )
