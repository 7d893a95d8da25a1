"""``ldp serve`` and ``ldp export`` for real: a uvicorn process on a free port, uploads over
HTTP, a graceful stop on SIGTERM that finishes the upload in flight, and the export decoded by
``ldp estimate``."""

import json
import secrets
import signal
import threading

import numpy as np
import pytest
import scipy.stats

from ldp.cli import main
from ldp.collector import Store
from ldp.mechanisms import GRR
from ldp.protocol import Protocol, read_reports

from .running import request, require_server_extra, serving

pytestmark = pytest.mark.slow
require_server_extra()

PROTOCOL = Protocol.from_mechanism(GRR(4, 1.0), labels=["a", "b", "c", "d"])


def records(reports):
    return [
        {"id": secrets.token_hex(16), "fingerprint": PROTOCOL.fingerprint, "report": [int(r)]}
        for r in reports
    ]


@pytest.fixture
def protocol_file(tmp_path):
    path = tmp_path / "protocol.json"
    PROTOCOL.save(path)
    return path


def test_serve_takes_uploads_answers_estimates_and_stops_gracefully(tmp_path, protocol_file):
    store = tmp_path / "reports.sqlite"
    reports = PROTOCOL.privatize(np.repeat(["a", "b", "c", "d"], 50), rng=5)
    base = None
    with serving([protocol_file], store, tmp_path, "--min-reports", "150") as server:
        base = f"{server.url}/v1/protocols/{PROTOCOL.fingerprint}"
        assert request(base + "/reports", records(reports[:100]))[1]["accepted"] == 100
        status, held = request(base + "/estimate")
        assert status == 200 and held["n"] == 100 and held["estimates"] is None
        # a large upload in flight when SIGTERM comes is finished before the process ends
        answers = []
        big = records(reports[100:])

        def upload():
            try:
                answers.append(request(base + "/reports", big))
            except OSError as exc:  # SIGTERM came before the connection was taken
                answers.append((None, str(exc)))

        worker = threading.Thread(target=upload)
        worker.start()
        worker.join(0.01)
        # uvicorn shuts down gracefully, then ends by the signal it caught
        assert server.stop(signal.SIGTERM) in (0, -signal.SIGTERM)
        worker.join(30)
        assert answers and answers[0][0] in (200, None), answers
        events = [line["event"] for line in server.logs()]
        assert events[0] == "serving" and events[-1] == "stopped"
    stored = 100 + (answers[0][1]["accepted"] if answers and answers[0][0] == 200 else 0)
    with Store(store) as opened:
        assert opened.count(PROTOCOL) == opened.statistic(PROTOCOL).n == stored
    # the same store, served again, keeps its reports
    with serving([protocol_file], store, tmp_path, "--min-reports", "1") as server:
        assert (
            request(server.url + "/v1/protocols/" + PROTOCOL.fingerprint + "/estimate")[1]["n"]
            == stored
        )


def test_export_feeds_ldp_estimate_with_the_same_numbers(tmp_path, protocol_file, capsys):
    store = tmp_path / "reports.sqlite"
    reports = PROTOCOL.privatize(np.repeat(["a", "b", "c", "d"], [40, 30, 20, 10]), rng=6)
    with Store(store) as opened:
        opened.add_protocol(PROTOCOL)
        opened.ingest(PROTOCOL, records(reports))
    out = tmp_path / "export.parquet"
    assert (
        main(
            [
                "export",
                "--store",
                str(store),
                "--protocol",
                str(protocol_file),
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["reports"] == 100
    assert sorted(read_reports(PROTOCOL, out).tolist()) == sorted(reports.tolist())
    assert main(["estimate", "--protocol", str(protocol_file), str(out), "--json"]) == 0
    estimated = json.loads(capsys.readouterr().out)
    from starlette.testclient import TestClient

    from ldp.collector.app import create_app

    with (
        Store(store) as opened,
        TestClient(create_app(opened, [PROTOCOL], min_reports=1, close_store=False)) as client,
    ):
        served = client.get(f"/v1/protocols/{PROTOCOL.fingerprint}/estimate").json()
    assert served["n"] == estimated["n"] == 100
    for entry, row in zip(served["estimates"], estimated["frequencies"], strict=True):
        assert entry["label"] == row["category"]
        assert entry["estimate"] == pytest.approx(row["estimate"], rel=1e-12)
        assert entry["ci_high"] - entry["estimate"] == pytest.approx(row["half_width"])


def test_serve_refuses_bad_settings_with_one_line(tmp_path, protocol_file, capsys):
    token = tmp_path / "token"
    token.write_text("\n")
    for extra, message in [
        (["--store", str(tmp_path / "no" / "dir.sqlite")], "--store: the sqlite store could not"),
        (["--store", str(tmp_path / "r.sqlite"), "--min-reports", "0"], "--min-reports must be"),
        (["--store", str(tmp_path / "r.sqlite"), "--token-file", str(token)], "is empty"),
        (["--store", str(tmp_path / "r.sqlite"), "--port", "70000"], "--port must be in"),
    ]:
        assert main(["serve", str(protocol_file), *extra]) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and message in error, error


@pytest.mark.long  # its twin in the default run: tests/collector/test_marginals.py
def test_serve_collects_a_marginals_survey_and_its_export_feeds_ldp_estimate(tmp_path, capsys):
    """A table's survey end to end: the device client's records over HTTP to ``ldp serve``,
    the served marginals equal to the library's fit of the same records, and ``ldp export``
    (JSON lines) decoded by ``ldp estimate`` to the same unbiased cells."""
    import sys
    from pathlib import Path

    from estimators import MarginalEstimator

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
    import ldp_client

    categories = {"smoker": ["no", "yes"], "region": ["N", "S", "W"]}
    estimator = MarginalEstimator(
        1.0, categories=categories, marginals=[("smoker", "region"), ("region",)], method="groups"
    )
    protocol = estimator.device_protocol(question="Do you smoke? Where do you live?")
    path = tmp_path / "marginals.json"
    protocol.save(path)
    rng = np.random.default_rng(12)
    answers = zip(rng.choice(["no", "yes"], 300), rng.choice(["N", "S", "W"], 300))
    checked = ldp_client.load_protocol(path.read_text())
    records = [
        ldp_client.privatize(checked, {"smoker": s, "region": r}, randbytes=rng.bytes)
        for s, r in answers
    ]
    store = tmp_path / "reports.sqlite"
    with serving([path], store, tmp_path, "--min-reports", "100") as server:
        base = f"{server.url}/v1/protocols/{protocol.fingerprint}"
        assert request(base + "/reports", records)[1]["accepted"] == 300
        status, served = request(base + "/estimate")
    assert status == 200 and served["n"] == 300
    fitted = estimator.fit_reports(
        [{"fingerprint": r["fingerprint"], "report": r["report"]} for r in records], protocol
    )
    for table in served["marginals"]:
        frame = fitted.marginal(table["columns"])
        assert [c["estimate"] for c in table["cells"]] == frame["estimate"].tolist()
        assert [c["ci_high"] for c in table["cells"]] == frame["ci_high"].tolist()
    out = tmp_path / "export.jsonl"
    command = ["export", "--store", str(store), "--protocol", str(path), "--json"]
    assert main([*command, "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["reports"] == 300
    assert main([*command, "--out", str(tmp_path / "export.csv")]) == 2
    assert "name a .jsonl file" in capsys.readouterr().err
    assert main(["estimate", "--protocol", str(path), str(out), "--json"]) == 0
    estimated = json.loads(capsys.readouterr().out)
    assert estimated["n"] == 300
    z = scipy.stats.norm.ppf(0.975)  # the two-sided 95% normal quantile, from scipy
    for table, rows in zip(served["marginals"], estimated["marginals"], strict=True):
        assert rows["columns"] == table["columns"]
        for cell, row in zip(table["cells"], rows["frequencies"], strict=True):
            assert row["estimate"] == pytest.approx(cell["unbiased"], rel=1e-12, abs=1e-15)
            assert row["half_width"] == pytest.approx(z * cell["std"], rel=1e-9)
