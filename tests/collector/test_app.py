"""The collector's HTTP service through Starlette's TestClient: the endpoints of the contract,
estimates held back below the minimum and equal to their closed form above it, the token,
CORS, limits, logs without report bodies, and one-line JSON errors that leave nothing
half-stored."""

import json
import logging
import math
import secrets

import numpy as np
import pytest

from ldp.collector import Store
from ldp.mechanisms import CMS, GRR, Laplace
from ldp.protocol import Protocol

from .running import require_server_extra

require_server_extra()

from starlette.testclient import TestClient  # noqa: E402 (after the extra's check)

from ldp.collector.app import create_app  # noqa: E402

GRR3 = Protocol.from_mechanism(GRR(3, 1.0), labels=["bus", "bike", "car"])
LAPLACE = Protocol.from_mechanism(Laplace(1.0), bounds=(0.0, 100.0), question="Your age?")
BASE = f"/v1/protocols/{GRR3.fingerprint}"


def record(report, protocol=GRR3, rid=None):
    return {
        "id": rid or secrets.token_hex(16),
        "fingerprint": protocol.fingerprint,
        "report": list(np.atleast_1d(report).tolist()),
    }


def make_client(tmp_path, **options):
    options.setdefault("min_reports", 5)
    store = Store(tmp_path / "reports.sqlite")
    app = create_app(store, [GRR3, LAPLACE], **options)
    return TestClient(app), store


@pytest.fixture
def client(tmp_path):
    test_client, _ = make_client(tmp_path)
    with test_client:
        yield test_client


def one_line_error(response, status, fragment):
    assert response.status_code == status, response.text
    assert "\n" not in response.text
    body = response.json()
    assert set(body) == {"error"} and fragment in body["error"], body
    return body


# ----------------------------------------------------------------------------- the contract
def test_health_and_the_protocol_files(client):
    assert client.get("/health").json() == {"status": "ok", "store": "sqlite", "protocols": 2}
    served = client.get(BASE)
    assert served.headers["content-type"].startswith("application/json")
    assert Protocol.from_json(served.text) == GRR3
    listing = client.get("/v1/protocols").json()["protocols"]
    assert [p["fingerprint"] for p in listing] == [GRR3.fingerprint, LAPLACE.fingerprint]
    one_line_error(client.get("/v1/protocols/" + "0" * 16), 404, "no protocol with fingerprint")


def test_uploads_take_a_record_an_array_or_json_lines_and_retries_count_once(client):
    single, batch = record(0), [record(1), record(1)]
    lines = "\n".join(json.dumps(r) for r in [record(2), record(2)]) + "\n"
    assert client.post(BASE + "/reports", json=single).json()["accepted"] == 1
    assert client.post(BASE + "/reports", json=batch).json()["accepted"] == 2
    answer = client.post(
        BASE + "/reports", content=lines, headers={"content-type": "application/x-ndjson"}
    ).json()
    assert (answer["accepted"], answer["duplicates"]) == (2, 0)
    retry = client.post(BASE + "/reports", json=[single, *batch]).json()
    assert (retry["accepted"], retry["duplicates"]) == (0, 3)
    assert client.get(BASE + "/estimate").json()["n"] == 5


def test_the_estimate_is_held_back_below_the_minimum_then_is_the_closed_form(client):
    reports = np.repeat([0, 1, 2], [2, 1, 1])
    client.post(BASE + "/reports", json=[record(int(r)) for r in reports])
    held = client.get(BASE + "/estimate").json()
    assert held["n"] == 4 and held["min_reports"] == 5 and held["estimates"] is None
    assert held["privacy"]["epsilon"] == pytest.approx(1.0) and held["privacy"]["delta"] == 0
    client.post(BASE + "/reports", json=[record(2)])
    released = client.get(BASE + "/estimate?confidence=0.9").json()
    assert released["n"] == 5
    # GRR's unbiased frequencies by hand: (c / n - q) / (p - q)
    e = math.e
    p, q = e / (e + 2), 1 / (e + 2)
    counts = np.array([2, 1, 2])
    expected = (counts / 5 - q) / (p - q)
    entries = released["estimates"]
    assert [entry["label"] for entry in entries] == ["bus", "bike", "car"]
    assert [entry["estimate"] for entry in entries] == pytest.approx(expected, rel=1e-12)
    z = 1.6448536269514722  # the normal quantile of 0.95 (a two-sided 90% interval)
    for entry in entries:
        assert entry["ci_high"] - entry["estimate"] == pytest.approx(z * entry["std"])
        assert entry["estimate"] - entry["ci_low"] == pytest.approx(z * entry["std"])


def test_a_mean_is_one_entry_on_the_scale_of_the_answers(client):
    rng = np.random.default_rng(8)
    reports = LAPLACE.privatize(rng.uniform(20, 60, 40), rng=9)
    url = f"/v1/protocols/{LAPLACE.fingerprint}"
    client.post(url + "/reports", json=[record(r, LAPLACE) for r in reports])
    (entry,) = client.get(url + "/estimate").json()["estimates"]
    # reports estimate the mean on [-1, 1]; answers x in [0, 100] were mapped to x / 50 - 1
    assert entry["label"] == "mean"
    assert entry["estimate"] == pytest.approx(50 * (np.mean(reports) + 1), rel=1e-9)


def test_time_windows_are_chosen_with_start_and_end(client):
    client.post(BASE + "/reports", json=[record(0) for _ in range(6)])
    assert client.get(BASE + "/estimate?end=0").json()["n"] == 0
    assert client.get(BASE + "/estimate?start=0").json()["n"] == 6
    later = client.get(BASE + "/estimate?start=1e12").json()
    assert later["n"] == 0 and later["estimates"] is None
    assert later["window"] == {"start": 1e12, "end": None, "window_seconds": 3600}


# ----------------------------------------------------------------------------- bad input
def test_bad_uploads_get_a_one_line_json_error_and_leave_nothing(tmp_path):
    test_client, store = make_client(tmp_path, max_body=2000)
    good = record(0)
    known = record(1)
    with test_client as client:
        client.post(BASE + "/reports", json=known)
        cases = [
            (b"x" * 2001, 413, "over the limit of 2000 bytes"),
            (b'{"id": "ab",', 400, "the body is not JSON"),
            (b"", 400, "the body is empty"),
            (json.dumps([good, record(0, LAPLACE)]), 422, "record 1: the report carries"),
            (json.dumps([good, record(3)]), 422, "record 1: the report has report outside"),
            (json.dumps([good, dict(known, report=[2])]), 409, "stored with another report"),
            (json.dumps([good, dict(good, id=42)]), 422, "record 1: 'id' must be 32"),
        ]
        for body, status, fragment in cases:
            one_line_error(client.post(BASE + "/reports", content=body), status, fragment)
        assert store.count(GRR3) == 1
        one_line_error(client.post(BASE + "/estimate"), 405, "Method Not Allowed")
        one_line_error(client.get("/nothing/here"), 404, "Not Found")
        one_line_error(
            client.post("/v1/protocols/" + "f" * 16 + "/reports", json=good), 404, "no protocol"
        )
        for query, fragment in [
            ("?task=mean", "unknown query parameter(s) ['task']"),
            ("?confidence=2", "confidence must be < 1.0"),
            ("?start=soon", "start must be a number"),
            ("?items=a", "items are queried in sketch protocols only, got items=['a'] for a"),
        ]:
            one_line_error(client.get(BASE + "/estimate" + query), 400, fragment)
        assert client.get("/health").status_code == 200


def test_a_database_that_refuses_writes_answers_503_and_the_service_goes_on(tmp_path):
    test_client, store = make_client(tmp_path)
    with test_client as client:
        store._backend.connection.execute("PRAGMA query_only = 1")
        one_line_error(
            client.post(BASE + "/reports", json=record(0)), 503, "could not store the reports"
        )
        assert client.get(BASE + "/estimate").json()["n"] == 0
        store._backend.connection.execute("PRAGMA query_only = 0")
        assert client.post(BASE + "/reports", json=record(0)).json()["accepted"] == 1


def test_a_sketch_protocol_is_estimated_for_the_queried_items(tmp_path):
    sketch = Protocol.from_mechanism(CMS(2.0, width=16, depth=4))
    with (
        Store(tmp_path / "s.sqlite") as store,
        TestClient(create_app(store, [sketch], min_reports=1, close_store=False)) as client,
    ):
        url = f"/v1/protocols/{sketch.fingerprint}"
        rows = sketch.mechanism.codec.to_rows(sketch.privatize(["a", "b", "a"], rng=1))
        client.post(url + "/reports", json=[record(row, sketch) for row in rows])
        one_line_error(client.get(url + "/estimate"), 400, "needs items")
        entries = client.get(url + "/estimate?items=a,zz").json()["estimates"]
        assert [entry["label"] for entry in entries] == ["a", "zz"]


# ----------------------------------------------------------------------------- operations
def test_the_estimate_can_require_the_operator_token_and_uploads_never_do(tmp_path):
    test_client, _ = make_client(tmp_path, token="s3cret\n")
    with test_client as client:
        assert client.post(BASE + "/reports", json=record(0)).status_code == 200
        denied = client.get(BASE + "/estimate")
        one_line_error(denied, 401, "needs the operator's token")
        assert denied.headers["www-authenticate"] == "Bearer"
        wrong = client.get(BASE + "/estimate", headers={"Authorization": "Bearer s3cre"})
        assert wrong.status_code == 401
        right = client.get(BASE + "/estimate", headers={"Authorization": "Bearer s3cret"})
        assert right.json()["n"] == 1


def test_cors_lets_the_surveys_origin_in_and_no_other(tmp_path):
    test_client, _ = make_client(tmp_path, cors_origins=["https://survey.example"])
    with test_client as client:
        ask = {
            "Origin": "https://survey.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        }
        allowed = client.options(BASE + "/reports", headers=ask)
        assert allowed.headers["access-control-allow-origin"] == "https://survey.example"
        other = client.options(BASE + "/reports", headers=dict(ask, Origin="https://evil.example"))
        assert "access-control-allow-origin" not in other.headers


def test_uploads_over_the_rate_limit_are_told_when_to_come_back(tmp_path):
    test_client, store = make_client(tmp_path, rate=0.5)
    with test_client as client:
        answers = [client.post(BASE + "/reports", json=record(0)) for _ in range(2)]
        assert answers[0].status_code == 200
        one_line_error(answers[1], 429, "too many uploads")
        assert int(answers[1].headers["retry-after"]) >= 1
        assert store.count(GRR3) == 1


def test_each_request_is_one_json_log_line_without_the_report(tmp_path, caplog):
    test_client, _ = make_client(tmp_path)
    secret = record(2)
    with caplog.at_level(logging.INFO, logger="ldp.collector"), test_client as client:
        client.post(BASE + "/reports", json=secret)
        client.post(BASE + "/reports", json=dict(secret, report=[0]))  # a conflict
        client.post(BASE + "/reports", content=b"[1, 2")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "ldp.collector"]
    requests = [line for line in lines if line["event"] == "request"]
    assert [line["status"] for line in requests] == [200, 409, 400]
    assert requests[0]["accepted"] == 1 and requests[0]["path"] == BASE + "/reports"
    assert "another report" in requests[1]["error"]
    assert {"started", "stopped"} <= {line["event"] for line in lines}
    text = caplog.text
    assert secret["id"] not in text and '"report"' not in text and "[1, 2" not in text


def test_the_survey_pages_and_the_client_are_served(client):
    home = client.get("/", follow_redirects=False)
    assert home.status_code == 303
    assert home.headers["location"] == f"/survey/?protocol={GRR3.fingerprint}"
    assert "<html" in client.get("/survey/").text
    for name in ("app.mjs", "results.html", "results.mjs"):
        assert client.get(f"/survey/{name}").status_code == 200, name
    script = client.get("/clients/js/ldp_client.mjs")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "export function privatize" in script.text
    one_line_error(client.get("/survey/protocol.json"), 404, "no such page")
    one_line_error(client.get("/survey/..%2F..%2Fpyproject.toml"), 404, "")


def test_a_crash_inside_is_a_one_line_500_and_the_service_goes_on(tmp_path, monkeypatch, caplog):
    test_client, store = make_client(tmp_path)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug, with a report [2] in its message")

    with test_client as client:
        with monkeypatch.context() as patch:
            patch.setattr(store, "ingest", broken)
            one_line_error(client.post(BASE + "/reports", json=record(0)), 500, "internal error")
        assert client.post(BASE + "/reports", json=record(0)).json()["accepted"] == 1
    logged = [json.loads(r.getMessage()) for r in caplog.records if r.name == "ldp.collector"]
    assert any(line.get("error") == "internal error (RuntimeError)" for line in logged)
    assert "a bug" not in caplog.text


def test_create_app_refuses_bad_settings(tmp_path):
    with Store(tmp_path / "x.sqlite") as store:
        for options, message in [
            ({"protocols": []}, "at least one protocol"),
            ({"protocols": [GRR3, GRR3]}, "distinct"),
            ({"min_reports": 0}, "min_reports must be"),
            ({"max_body": 0}, "max_body must be"),
            ({"token": " "}, "token must be"),
        ]:
            arguments = {"protocols": [GRR3], "min_reports": 1, **options}
            with pytest.raises(ValueError, match=message):
                create_app(store, **arguments)
