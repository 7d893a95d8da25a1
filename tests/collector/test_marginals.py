"""Marginals surveys in the collector: records made by the device client, posted over HTTP,
stored in SQLite and PostgreSQL, and estimated exactly as ``MarginalEstimator.fit_reports``
estimates the same records; hostile records refused with nothing stored; the estimate of a
simulated table covers the truth."""

import json
import secrets
import sys
from pathlib import Path

import numpy as np
import pytest

from estimators import MarginalEstimator
from ldp.collector import Store, check_records
from ldp.collector.marginals import GroupCounts, GroupReports
from ldp.collector.statistics import dump_statistic, load_statistic
from ldp.mechanisms import GRR
from ldp.protocol import MarginalProtocol, Protocol

from .running import require_server_extra

require_server_extra()

from starlette.testclient import TestClient  # noqa: E402 (after the extra's check)

from ldp.collector.app import create_app  # noqa: E402

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
sys.path.insert(0, str(CLIENTS / "python"))
import ldp_client  # noqa: E402

CATEGORIES = {
    "smoker": ["no", "yes"],
    "region": ["N", "S", "W"],
    "age": ["<30", "30-50", "50-70", "70+"],
}
TABLES = [("smoker", "region"), ("region", "age"), ("smoker",)]


def estimator(method="groups"):
    return MarginalEstimator(1.0, categories=CATEGORIES, marginals=TABLES, method=method)


PROTOCOL = estimator().device_protocol(question="Do you smoke? Where? How old?")
GRR3 = Protocol.from_mechanism(GRR(3, 1.0))
BASE = f"/v1/protocols/{PROTOCOL.fingerprint}"


def rows(n, seed):
    """``n`` rows of a table whose columns depend on each other (codes per column)."""
    rng = np.random.default_rng(seed)
    smoker = (rng.random(n) < 0.3).astype(int)
    region = np.where(smoker == 1, rng.integers(0, 2, n), rng.integers(0, 3, n))
    age = np.minimum(3, region + rng.integers(0, 2, n))
    return [smoker, region, age]


def client_records(protocol, n, seed):
    """Records of ``n`` devices, each made by the stdlib Python device client."""
    rng = np.random.default_rng(seed)
    text = protocol.to_json()
    checked = ldp_client.load_protocol(text)
    out = []
    for codes in zip(*rows(n, seed)):
        row = {name: CATEGORIES[name][c] for name, c in zip(CATEGORIES, codes)}
        out.append(ldp_client.privatize(checked, row, randbytes=rng.bytes))
    return out


def with_ids(records):
    return [{"id": secrets.token_hex(16), **r} for r in records]


def post(client, records, base=BASE):
    return client.post(base + "/reports", content="\n".join(json.dumps(r) for r in records))


def served_table(document, columns):
    (table,) = [t for t in document["marginals"] if tuple(t["columns"]) == columns]
    return table


def assert_equals_the_library(document, records, protocol=PROTOCOL, confidence=0.95):
    fitted = estimator(protocol.design.method).set_params(confidence=confidence)
    fitted.fit_reports([{k: r[k] for k in ("fingerprint", "report")} for r in records], protocol)
    assert document["n"] == fitted.n_rows_ == len(records)
    assert document["group_reports"] == fitted.n_reports_.tolist()
    for columns in fitted.tables_:
        frame = fitted.marginal(list(columns))
        table = served_table(document, columns)
        assert table["method"] == fitted.method_[columns]
        assert [tuple(c["labels"]) for c in table["cells"]] == [
            tuple(row) for row in frame[list(columns)].itertuples(index=False)
        ]
        for key in ("estimate", "ci_low", "ci_high", "unbiased", "std"):
            assert [c[key] for c in table["cells"]] == frame[key].tolist(), key


# ----------------------------------------------------------------------------- end to end
def test_device_records_over_http_are_stored_and_estimated_as_the_library_does(store_url):
    records = client_records(PROTOCOL, 400, seed=1)
    with Store(store_url) as store:
        app = create_app(store, [PROTOCOL, GRR3], min_reports=50, rate=None, close_store=False)
        with TestClient(app) as client:
            listing = client.get("/v1/protocols").json()["protocols"]
            assert {p["kind"] for p in listing} == {"marginals", "categorical"}
            served = MarginalProtocol.from_json(client.get(BASE).content)
            assert served == PROTOCOL
            assert post(client, records[:30]).json()["accepted"] == 30
            held = client.get(BASE + "/estimate").json()
            assert held["marginals"] is None and held["n"] == 30
            assert "fewer than the minimum of 50" in held["held_back"]
            answer = post(client, records[30:])
            assert answer.status_code == 200 and answer.json()["accepted"] == 370
            # a retry of the whole upload counts once
            assert post(client, records[30:]).json() == {
                **answer.json(),
                "accepted": 0,
                "duplicates": 370,
            }
            document = client.get(BASE + "/estimate").json()
            assert document["privacy"]["epsilon"] == pytest.approx(1.0, abs=1e-12)
            assert document["privacy"]["mechanism"] == "marginals"
            assert document["method"] == "groups" and document["held_back"] is None
            assert_equals_the_library(document, records)
            narrow = client.get(BASE + "/estimate?confidence=0.5").json()
            assert_equals_the_library(narrow, records, confidence=0.5)
        assert store.count(PROTOCOL) == store.statistic(PROTOCOL).n == 400
        # the statistic is the groups' aggregate of the stored rows
        stored = [json.loads(text) for chunk in store.rows(PROTOCOL) for _, _, text in chunk]
        again = [{"fingerprint": PROTOCOL.fingerprint, "report": r} for r in stored]
        buckets = PROTOCOL.read_records(again)
        for mine, theirs in zip(
            store.statistic(PROTOCOL).groups, PROTOCOL.design.aggregate(buckets)
        ):
            assert np.array_equal(mine.counts, theirs.counts) and mine.n == theirs.n
    with Store(store_url) as reopened:
        assert PROTOCOL in reopened.protocols() and GRR3 in reopened.protocols()
        assert reopened.statistic(PROTOCOL).n == 400


def test_a_simulated_table_is_covered_by_its_intervals(tmp_path):
    """Truth within the intervals: the true marginals of a simulated table (computed from its
    rows) against the served intervals; 95% intervals cover most cells and no cell is more than
    4.5 standard errors off."""
    protocol = estimator("joint").device_protocol()
    codes = rows(12_000, seed=2)
    records = with_ids(protocol.records(codes, rng=3))
    with Store(tmp_path / "r.sqlite") as store:
        app = create_app(store, [protocol], min_reports=1, rate=None, close_store=False)
        base = f"/v1/protocols/{protocol.fingerprint}"
        with TestClient(app) as client:
            for start in range(0, len(records), 6000):
                assert post(client, records[start : start + 6000], base).status_code == 200
            document = client.get(base + "/estimate").json()
    assert_equals_the_library(document, records, protocol)
    covered = []
    names = list(CATEGORIES)
    for table in document["marginals"]:
        index = [names.index(c) for c in table["columns"]]
        sizes = [len(CATEGORIES[c]) for c in table["columns"]]
        flat = np.ravel_multi_index([codes[i] for i in index], sizes)
        truth = np.bincount(flat, minlength=int(np.prod(sizes))) / len(records)
        for cell, p in zip(table["cells"], truth):
            covered.append(cell["ci_low"] <= p <= cell["ci_high"])
            assert abs(cell["unbiased"] - p) < 4.5 * cell["std"]
        assert sum(c["estimate"] for c in table["cells"]) == pytest.approx(1.0, abs=1e-9)
    assert np.mean(covered) >= 0.8, covered


def test_a_group_short_of_reports_holds_the_estimate_back(tmp_path):
    records = with_ids(PROTOCOL.records(rows(40, seed=4), rng=5))
    records = [r for r in records if r["report"][0] != 1][:10]  # no report of group 1
    with Store(tmp_path / "r.sqlite") as store:
        app = create_app(store, [PROTOCOL], min_reports=1, rate=None, close_store=False)
        with TestClient(app) as client:
            post(client, records)
            document = client.get(BASE + "/estimate").json()
    assert document["marginals"] is None and document["n"] == 10
    assert "('region', 'age') has 0 reports, fewer than its 12 cells" in document["held_back"]
    with pytest.raises(ValueError, match=r"\('region', 'age'\) has 0 reports"):
        estimator().fit_reports(
            [{k: r[k] for k in ("fingerprint", "report")} for r in records], PROTOCOL
        )


# ----------------------------------------------------------------------------- time windows
def test_a_window_is_estimated_from_exactly_its_records(store_url):
    """Three uploads in three one-minute windows; each ``?start=&end=`` range is estimated
    as ``fit_reports`` estimates the records of the windows that start in it, and the
    store's statistic of a range is the groups' aggregate of those records."""
    batches = [with_ids(PROTOCOL.records(rows(300, seed=20 + b), rng=30 + b)) for b in range(3)]
    arrivals = [30.0, 90.0, 200.0]  # windows starting at 0, 60 and 180
    with Store(store_url, window_seconds=60) as store:
        app = create_app(store, [PROTOCOL], min_reports=1, rate=None, close_store=False)
        for batch, now in zip(batches, arrivals):
            assert store.ingest(PROTOCOL, batch, now=now).window_start == int(now // 60) * 60
        ranges = [
            ("", [0, 1, 2]),
            ("?start=60", [1, 2]),
            ("?end=60", [0]),
            ("?start=60&end=180", [1]),
            ("?start=0&end=180", [0, 1]),
            ("?start=59.5&end=181", [1, 2]),  # a window counts when it starts in [start, end)
            ("?start=61", [2]),
        ]
        with TestClient(app) as client:
            for query, chosen in ranges:
                records = [r for b in chosen for r in batches[b]]
                document = client.get(BASE + "/estimate" + query).json()
                assert document["n"] == len(records), query
                assert_equals_the_library(document, records)
                bounds = dict(part.split("=") for part in query[1:].split("&") if part)
                expected = {
                    key: float(bounds[key]) if key in bounds else None for key in ("start", "end")
                }
                assert document["window"] == {**expected, "window_seconds": 60}
                statistic = store.statistic(
                    PROTOCOL, **{k: v for k, v in expected.items() if v is not None}
                )
                stripped = [{k: r[k] for k in ("fingerprint", "report")} for r in records]
                aggregate = PROTOCOL.design.aggregate(PROTOCOL.read_records(stripped))
                for mine, theirs in zip(statistic.groups, aggregate):
                    assert mine.n == theirs.n and np.array_equal(mine.counts, theirs.counts)
            empty = client.get(BASE + "/estimate?start=240").json()
            assert empty["n"] == 0 and empty["marginals"] is None
            refused = client.get(BASE + "/estimate?items=a")
            assert refused.status_code == 400
            assert refused.json()["error"] == (
                "items are queried in sketch protocols only, got items=['a'] for a marginals "
                "protocol"
            )


# ----------------------------------------------------------------------------- hostile input
def hostile_cases(good):
    fingerprint = PROTOCOL.fingerprint
    oue = next(g for g, p in enumerate(PROTOCOL.groups) if p.mechanism.codec.width > 1)
    width = PROTOCOL.groups[oue].mechanism.codec.width
    grr = next(g for g, p in enumerate(PROTOCOL.groups) if p.mechanism.codec.width == 1)
    k = PROTOCOL.groups[grr].k

    def rec(report, **extra):
        return {"id": secrets.token_hex(16), "fingerprint": fingerprint, "report": report, **extra}

    return [
        (rec([3, 0]), "record 1: the report must start with a group index in 0 .. 2"),
        (rec([-1, 0]), "record 1: the report must start with a group index"),
        (rec([True, 0]), "record 1: the report must start with a group index"),
        (rec([0.5, 0]), "record 1: the report must start with a group index"),
        (rec([]), "record 1: the report must start with a group index"),
        (rec("0"), "record 1: the report must start with a group index"),
        (rec([grr, k]), f"record 1 (group {grr}): "),
        (rec([grr, 0, 0]), f"record 1 (group {grr}): "),
        (rec([grr, "0"]), f"record 1 (group {grr}): "),
        (rec([oue, *([0] * (width - 1))]), f"record 1 (group {oue}): "),
        (rec([oue, 256, *([0] * (width - 1))]), f"record 1 (group {oue}): "),
        (dict(rec([grr, 0]), fingerprint=PROTOCOL.groups[grr].fingerprint), "record 1: the"),
        (rec([grr, 0], extra=1), "record 1: a record is an object with exactly"),
        ({"id": "x", "fingerprint": fingerprint, "report": [grr, 0]}, "record 1: 'id' must be"),
    ]


def test_hostile_records_are_refused_whole_with_one_line(store_url):
    grr = next(g for g, p in enumerate(PROTOCOL.groups) if p.mechanism.codec.width == 1)
    good = next(
        r for r in with_ids(PROTOCOL.records(rows(20, seed=6), rng=7)) if r["report"][0] == grr
    )
    with Store(store_url) as store:
        app = create_app(
            store, [PROTOCOL], min_reports=1, rate=None, close_store=False, max_body=4000
        )
        with TestClient(app) as client:
            for bad, fragment in hostile_cases(good):
                response = post(client, [good, bad])
                assert response.status_code == 422, (bad, response.text)
                assert fragment in response.json()["error"], (bad, response.json())
            for body, fragment in [
                (
                    f'[{json.dumps(good)}, {{"id": "{"a" * 32}", "fingerprint": '
                    f'"{PROTOCOL.fingerprint}", "report": [Infinity, 0]}}]',
                    "group index",
                ),
                (
                    f'[{json.dumps(good)}, {{"id": "{"a" * 32}", "fingerprint": '
                    f'"{PROTOCOL.fingerprint}", "report": [NaN, 0]}}]',
                    "group index",
                ),
            ]:
                response = client.post(BASE + "/reports", content=body)
                assert response.status_code == 422 and fragment in response.json()["error"]
            too_big = client.post(BASE + "/reports", content=json.dumps([good] * 60))
            assert too_big.status_code == 413
            assert store.count(PROTOCOL) == 0 and store.statistic(PROTOCOL).n == 0
            assert post(client, [good]).json()["accepted"] == 1
            other = dict(good, report=[grr, (good["report"][1] + 1) % PROTOCOL.groups[grr].k])
            conflict = post(client, [other])
            assert conflict.status_code == 409 and "stored with another report" in conflict.text
            assert store.count(PROTOCOL) == store.statistic(PROTOCOL).n == 1


def test_a_record_repeated_in_an_upload_is_named_by_its_upload_index():
    good = with_ids(PROTOCOL.records(rows(3, seed=8), rng=9))
    bad = dict(good[2], report=[7, 0])
    with pytest.raises(ValueError, match="record 4: the report must start"):
        check_records(PROTOCOL, [good[0], good[1], good[0], good[1], bad])
    grr = next(g for g, p in enumerate(PROTOCOL.groups) if p.mechanism.codec.width == 1)
    wrong = dict(good[2], report=[grr, 99])
    with pytest.raises(
        ValueError, match=rf"record 3 \(group {grr}\): the report has report outside"
    ):
        check_records(PROTOCOL, [good[0], good[1], good[0], wrong])


# ----------------------------------------------------------------------------- the statistic
def test_group_counts_round_trip_and_a_damaged_row_is_refused():
    records = PROTOCOL.records(rows(300, seed=10), rng=11)
    checked = check_records(PROTOCOL, with_ids(records))
    assert isinstance(checked.reports, GroupReports)
    from ldp.collector.marginals import MarginalDecoder

    decoder = MarginalDecoder(PROTOCOL)
    statistic = decoder.aggregate(checked.reports)
    # the statistic of a subset, and of the rest, add up to the whole
    half = list(range(0, 300, 2))
    rest = list(range(1, 300, 2))
    total = decoder.aggregate(checked.reports[half]) + decoder.aggregate(checked.reports[rest])
    expected = PROTOCOL.design.aggregate(PROTOCOL.read_records(records))
    for a, b, c in zip(statistic.groups, total.groups, expected):
        assert np.array_equal(a.counts, c.counts) and np.array_equal(b.counts, c.counts)
    back = load_statistic(dump_statistic(statistic))
    assert isinstance(back, GroupCounts) and back.n == 300
    for a, b in zip(back.groups, statistic.groups):
        assert np.array_equal(a.counts, b.counts) and a.n == b.n and a.mechanism == b.mechanism
    damaged = json.loads(dump_statistic(statistic))
    damaged["groups"][0] = {"type": "MeanSums", "fields": {}}
    with pytest.raises(ValueError, match="damaged row"):
        load_statistic(json.dumps(damaged))
    with pytest.raises(ValueError, match="damaged row"):
        load_statistic(json.dumps({"type": "GroupCounts", "groups": []}))
    with pytest.raises(TypeError, match="one marginals protocol"):
        statistic + GroupCounts(statistic.groups[:1])


def test_the_collector_docs_marginals_example_prints_what_it_says(capsys):
    import re

    text = (Path(__file__).resolve().parents[2] / "docs" / "collector.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "marginals" in b]
    exec(compile(block, "docs/collector.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    promised = [line.split("# ", 1)[1] for line in block.splitlines() if "print(" in line]
    assert printed == promised


def test_a_store_made_for_one_question_takes_a_marginals_protocol_later(store_url):
    with Store(store_url) as store:
        store.add_protocol(GRR3)
        store.ingest(GRR3, [{"id": "ab" * 16, "fingerprint": GRR3.fingerprint, "report": [2]}])
    with Store(store_url) as store:
        store.add_protocol(PROTOCOL)
        records = with_ids(PROTOCOL.records(rows(50, seed=12), rng=13))
        assert store.ingest(PROTOCOL, records).accepted == 50
        assert store.count(GRR3) == 1 and store.statistic(PROTOCOL).n == 50
    with Store(store_url) as store:
        assert set(store.protocols()) == {GRR3, PROTOCOL}
        assert store.statistic(GRR3).counts.tolist() == [0, 0, 1]
