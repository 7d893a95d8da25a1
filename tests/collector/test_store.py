"""The report store: idempotent uploads, a running statistic equal to the aggregate of the
stored rows, whole-or-nothing batches, the schema version, time windows, and a database that
refuses writes."""

import importlib.util
import re
import secrets
import sqlite3

import numpy as np
import pytest

from ldp.collector import ConflictError, SchemaError, Store, StoreError, check_records, parse_body
from ldp.collector.statistics import dump_statistic, load_statistic
from ldp.mechanisms import CMS, GRR, OUE, Laplace
from ldp.protocol import Protocol, read_reports

GRR3 = Protocol.from_mechanism(GRR(3, 1.0), labels=["bus", "bike", "car"])
OUE4 = Protocol.from_mechanism(OUE(4, 1.0))
LAPLACE = Protocol.from_mechanism(Laplace(1.0), bounds=(0.0, 100.0))


def record(protocol, report, rid=None):
    return {
        "id": rid or secrets.token_hex(16),
        "fingerprint": protocol.fingerprint,
        "report": list(np.atleast_1d(report).tolist()),
    }


def records_of(protocol, reports):
    rows = protocol.mechanism.codec.to_rows(reports)
    return [record(protocol, row) for row in rows]


@pytest.fixture
def store(store_url):
    with Store(store_url) as opened:
        for protocol in (GRR3, OUE4, LAPLACE):
            opened.add_protocol(protocol)
        yield opened


# ----------------------------------------------------------------------------- idempotency
def test_a_retry_is_acknowledged_and_counted_once(store):
    batch = [record(GRR3, v) for v in (0, 1, 1, 2)]
    first = store.ingest(GRR3, batch, now=1000.0)
    again = store.ingest(GRR3, batch, now=1001.0)
    assert (first.accepted, first.duplicates) == (4, 0)
    assert (again.accepted, again.duplicates) == (0, 4)
    # a batch that overlaps a stored one adds only its new reports
    more = store.ingest(GRR3, [*batch[:2], record(GRR3, 2)], now=1002.0)
    assert (more.accepted, more.duplicates) == (1, 2)
    assert store.count(GRR3) == 5
    assert store.statistic(GRR3).counts.tolist() == [1, 2, 2]


def test_a_record_repeated_inside_one_upload_counts_once(store):
    twice = record(GRR3, 2)
    assert store.ingest(GRR3, [twice, twice]).accepted == 1
    assert store.statistic(GRR3).n == 1


def test_a_known_id_with_another_report_is_refused_and_nothing_is_stored(store):
    rid = secrets.token_hex(16)
    store.ingest(GRR3, [record(GRR3, 0, rid)])
    with pytest.raises(ConflictError, match="record 1: its id is stored with another report"):
        store.ingest(GRR3, [record(GRR3, 1), record(GRR3, 1, rid)])
    assert store.count(GRR3) == 1
    assert store.statistic(GRR3).counts.tolist() == [1, 0, 0]


def test_an_id_twice_in_one_upload_with_different_reports_is_refused(store):
    rid = secrets.token_hex(16)
    with pytest.raises(ValueError, match="record 2: its id is also record 0's"):
        store.ingest(GRR3, [record(GRR3, 0, rid), record(GRR3, 1), record(GRR3, 2, rid)])
    assert store.count(GRR3) == 0


# ----------------------------------------------------------------------------- the statistic
@pytest.mark.parametrize("protocol", [GRR3, OUE4, LAPLACE], ids=["grr", "oue", "laplace"])
def test_the_statistic_is_the_aggregate_of_the_stored_rows(store, protocol, tmp_path):
    rng = np.random.default_rng(3)
    values = (
        rng.uniform(0, 100, 300)
        if protocol is LAPLACE
        else rng.integers(0, protocol.k, 300)
        if protocol.labels is None
        else rng.choice(protocol.labels, 300)
    )
    reports = protocol.privatize(values, rng=4)
    batch = records_of(protocol, reports)
    for start in range(0, 300, 70):  # several uploads, one with a retry of the previous
        store.ingest(protocol, batch[max(0, start - 10) : start + 70], now=5000.0 + start)
    path = tmp_path / "export.parquet"
    assert store.export(protocol, path) == 300
    stored = read_reports(protocol, path)
    running = store.statistic(protocol)
    rescanned = protocol.decoder.aggregate(stored)
    assert running.n == rescanned.n == 300
    if protocol is LAPLACE:
        # the sum of the decoded reports (up to the order of summation), by hand
        assert float(running.total) == pytest.approx(float(np.sum(reports)), rel=1e-12)
        assert float(running.total) == pytest.approx(float(rescanned.total), rel=1e-12)
    else:
        # support counts by hand: GRR supports its report, OUE every bit set (packed in
        # bytes, the first category in the high bit)
        by_hand = (
            np.bincount(reports, minlength=3)
            if protocol is GRR3
            else np.unpackbits(reports, axis=1)[:, :4].sum(axis=0)
        )
        assert running.counts.tolist() == by_hand.tolist() == rescanned.counts.tolist()
    # the exported ids are the uploaded ones, each once
    assert sorted(r["id"] for r in batch) == sorted(
        rid for chunk in store.rows(protocol) for rid, _, _ in chunk
    )


def test_time_windows_split_the_statistic(tmp_path):
    with Store(tmp_path / "w.sqlite", window_seconds=60) as store:
        store.add_protocol(GRR3)
        store.ingest(GRR3, [record(GRR3, 0)], now=59.9)
        store.ingest(GRR3, [record(GRR3, 1), record(GRR3, 1)], now=60.0)
        store.ingest(GRR3, [record(GRR3, 2)], now=185.0)
        assert store.statistic(GRR3).counts.tolist() == [1, 2, 1]
        assert store.statistic(GRR3, start=60).counts.tolist() == [0, 2, 1]
        assert store.statistic(GRR3, start=60, end=120).counts.tolist() == [0, 2, 0]
        assert store.statistic(GRR3, end=60).counts.tolist() == [1, 0, 0]
        assert store.statistic(GRR3, start=1e6).n == 0
        for bad, message in [
            (
                {"start": "soon"},
                "start must be a finite number of seconds since the epoch, got 'soon'",
            ),
            (
                {"end": float("nan")},
                "end must be a finite number of seconds since the epoch, got nan",
            ),
        ]:
            with pytest.raises(ValueError, match=re.escape(message) + "$"):
                store.statistic(GRR3, **bad)
    with pytest.raises(ValueError, match="created with windows of 60 seconds"):
        Store(tmp_path / "w.sqlite", window_seconds=3600)
    with pytest.raises(ValueError, match="window_seconds must be a positive"):
        Store(tmp_path / "x.sqlite", window_seconds=0)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (lambda r: dict(r, fingerprint="0" * 16), "record 1: the report carries fingerprint"),
        (lambda r: dict(r, report=[3]), "record 1: the report has report outside 0..2"),
        (lambda r: dict(r, report=[1.5]), "record 1: the report is not a whole number"),
        (lambda r: dict(r, report=[1, 1]), "record 1: the report must be a list of 1 fields"),
        (lambda r: dict(r, id="XY"), "record 1: 'id' must be 32 lower-case hexadecimal"),
        (lambda r: dict(r, id="AB" * 16), "record 1: 'id' must be 32 lower-case hexadecimal"),
        (lambda r: {k: v for k, v in r.items() if k != "id"}, "record 1: a record is an object"),
        (lambda r: dict(r, extra=1), "record 1: a record is an object"),
        (lambda r: [r], "record 1: a record is an object"),
    ],
)
def test_a_bad_record_leaves_nothing_of_its_upload(store, bad, message):
    batch = [record(GRR3, 0), bad(record(GRR3, 1)), record(GRR3, 2)]
    with pytest.raises(ValueError, match=message):
        store.ingest(GRR3, batch)
    assert store.count(GRR3) == 0 and store.statistic(GRR3).n == 0


def test_records_of_an_unserved_protocol_are_refused(store):
    other = Protocol.from_mechanism(GRR(3, 2.0))
    with pytest.raises(ValueError, match="not served by this store"):
        store.ingest(other, [record(other, 0)])
    assert not any(p.fingerprint == other.fingerprint for p in store.protocols())


def test_an_upload_body_is_a_record_an_array_or_json_lines():
    one = record(GRR3, 1)
    text = parse_body(f"{_dump(one)}\n\n{_dump(one)}\n".encode())
    assert text == [one, one]
    assert parse_body(_dump([one, one]).encode()) == [one, one]
    for body, message in [
        (b"", "the body is empty"),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"id": 1}\n{"id"', "line 2 is not a JSON value"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_body(body)
    with pytest.raises(ValueError, match="the upload holds no record"):
        check_records(GRR3, [])


def _dump(value):
    import json

    return json.dumps(value)


# ----------------------------------------------------------------------------- the schema
def test_a_store_of_another_schema_version_is_refused(tmp_path):
    path = tmp_path / "old.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE ldp_meta SET value = '99' WHERE name = 'schema_version'")
    with pytest.raises(SchemaError, match="schema version 99; this ldpkit reads version 1"):
        Store(path)
    with sqlite3.connect(path) as connection:  # and left as it was
        assert connection.execute("SELECT value FROM ldp_meta WHERE name = 'schema_version'")
        assert dict(connection.execute("SELECT * FROM ldp_meta"))["schema_version"] == "99"


def test_reopening_a_store_keeps_its_reports_and_protocols(store_url):
    with Store(store_url) as store:
        store.add_protocol(GRR3)
        store.add_protocol(GRR3)  # once
        store.ingest(GRR3, [record(GRR3, 2)])
    with Store(store_url) as store:
        assert store.protocols() == [GRR3]
        assert store.statistic(GRR3).counts.tolist() == [0, 0, 1]


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("pragma", ["query_only = 1", "max_page_count = 1"])
def test_a_database_that_refuses_writes_stores_nothing_and_the_store_goes_on(tmp_path, pragma):
    path = tmp_path / "refusing.sqlite"
    with Store(path) as store:
        store.add_protocol(GRR3)
        store.ingest(GRR3, [record(GRR3, 0)])
        connection = store._backend.connection
        if pragma.startswith("max_page_count"):  # full: no page beyond the ones in use
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
            pragma = f"max_page_count = {pages}"
        connection.execute(f"PRAGMA {pragma}")
        batch = [record(GRR3, 1) for _ in range(2000)]
        with pytest.raises(StoreError, match="the sqlite store could not store the reports"):
            store.ingest(GRR3, batch)
        assert store.count(GRR3) == 1 and store.statistic(GRR3).n == 1
        connection.execute("PRAGMA query_only = 0")
        connection.execute("PRAGMA max_page_count = 1073741823")
        assert store.ingest(GRR3, batch).accepted == 2000  # and it serves again
        assert store.statistic(GRR3).counts.tolist() == [1, 2000, 0]


def test_a_store_that_cannot_be_opened_says_why(tmp_path):
    with pytest.raises(StoreError, match="could not open"):
        Store(tmp_path / "no" / "such" / "dir" / "r.sqlite")
    with pytest.raises(ValueError, match="store must be"):
        Store("")
    unreachable = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    if importlib.util.find_spec("psycopg") is None:  # without the server extra: says which
        with pytest.raises(ImportError, match=r"needs psycopg 3: pip install 'ldpkit\[server\]'"):
            Store(unreachable)
    else:
        with pytest.raises(StoreError, match="the postgresql store could not connect"):
            Store(unreachable)


# ----------------------------------------------------------------------------- statistics
@pytest.mark.parametrize(
    "statistic",
    [
        GRR(3, 1.0).aggregate(np.array([0, 2, 2])),
        Laplace(1.0).aggregate(Laplace(1.0).privatize(np.array([0.1, -0.7, 1 / 3]), rng=0)),
        CMS(2.0, width=8, depth=3).aggregate(CMS(2.0, width=8, depth=3).privatize(["a"], rng=0)),
    ],
    ids=["counts", "sums", "sketch"],
)
def test_statistics_round_trip_to_the_bit(statistic):
    back = load_statistic(dump_statistic(statistic))
    assert type(back) is type(statistic) and back.n == statistic.n
    assert back.mechanism == statistic.mechanism
    for name in ("counts", "total", "rows"):
        if hasattr(statistic, name):
            assert np.array_equal(getattr(back, name), getattr(statistic, name))
            assert getattr(back, name).dtype == getattr(statistic, name).dtype
    with pytest.raises(ValueError, match="cannot read"):
        load_statistic('{"type": "SupportCounts", "fields": {}}')
    with pytest.raises(TypeError, match="a store keeps"):
        dump_statistic(3)


def test_readers_take_records_with_or_without_their_id(tmp_path, store):
    with_id = [record(GRR3, v) for v in (0, 2, 2)]
    without = [{k: v for k, v in r.items() if k != "id"} for r in with_id]
    assert read_reports(GRR3, with_id).tolist() == read_reports(GRR3, without).tolist()
    store.ingest(GRR3, with_id)
    path = tmp_path / "records.jsonl"
    assert store.export(GRR3, path) == 3
    assert '"id"' in path.read_text()
    assert sorted(read_reports(GRR3, path).tolist()) == [0, 2, 2]
    csv = tmp_path / "records.csv"
    store.export(GRR3, csv)
    assert sorted(read_reports(GRR3, csv).tolist()) == [0, 2, 2]


def test_many_writers_keep_the_statistic_equal_to_the_stored_rows(store_url):
    """Four connections (as four server processes would) upload overlapping batches at once:
    every report is stored once and the statistic counts each once."""
    import threading

    with Store(store_url) as first:
        first.add_protocol(GRR3)
    rng = np.random.default_rng(11)
    batches = [records_of(GRR3, rng.integers(0, 3, 150)) for _ in range(8)]
    errors = []

    def writer(index):
        try:
            with Store(store_url) as mine:
                for turn in range(4):  # each batch twice, by different writers
                    mine.ingest(GRR3, batches[(index + 2 * turn) % 8])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    with Store(store_url) as store:
        sent = [r["report"][0] for batch in batches for r in batch]
        assert store.count(GRR3) == len(sent) == 1200
        assert store.statistic(GRR3).counts.tolist() == np.bincount(sent, minlength=3).tolist()


def test_a_read_only_postgresql_session_stores_nothing_and_the_store_goes_on(postgres_url):
    with Store(postgres_url) as store:
        store.add_protocol(GRR3)
        store.ingest(GRR3, [record(GRR3, 0)])
        connection = store._backend.connection
        connection.execute("SET default_transaction_read_only = on")
        with pytest.raises(StoreError, match="the postgresql store could not store the reports"):
            store.ingest(GRR3, [record(GRR3, 1) for _ in range(50)])
        assert store.count(GRR3) == 1 and store.statistic(GRR3).n == 1
        connection.execute("SET default_transaction_read_only = off")
        assert store.ingest(GRR3, [record(GRR3, 1)]).accepted == 1
        assert store.statistic(GRR3).counts.tolist() == [1, 1, 0]
