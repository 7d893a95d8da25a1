"""``ldp serve`` and ``ldp export`` for real: a uvicorn process on a free port, uploads over
HTTP, a graceful stop on SIGTERM that finishes the upload in flight, and the export decoded by
``ldp estimate``."""

import json
import secrets
import signal
import threading

import numpy as np
import pytest

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
