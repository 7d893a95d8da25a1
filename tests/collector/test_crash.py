"""SIGKILL during a stream of uploads: no acknowledged report is lost, none counts twice.

Two clients stream batches to a real ``ldp serve``; the server is killed (SIGKILL: no
shutdown, no flush) while uploads are in flight. Then every acknowledged report is in the
store, the running statistic equals the aggregate of the stored rows (so nothing was counted
twice or half-committed), nothing unknown was stored, and the batches whose answer was lost
are retried on a restarted server: their reports that were stored come back as duplicates.
On SQLite and on PostgreSQL."""

import http.client
import secrets
import signal
import threading
import time

import numpy as np
import pytest

from ldp.collector import Store
from ldp.mechanisms import GRR
from ldp.protocol import Protocol

from .running import request, require_server_extra, serving

pytestmark = pytest.mark.slow
require_server_extra()

PROTOCOL = Protocol.from_mechanism(GRR(5, 1.0))
BATCH = 25


def test_a_killed_server_loses_no_acknowledged_report_and_counts_none_twice(store_url, tmp_path):
    path = tmp_path / "protocol.json"
    PROTOCOL.save(path)
    acknowledged, unanswered = [], []
    lock = threading.Lock()
    stop = threading.Event()

    def stream(url):
        while not stop.is_set():
            batch = [
                {
                    "id": secrets.token_hex(16),
                    "fingerprint": PROTOCOL.fingerprint,
                    "report": [secrets.randbelow(5)],
                }
                for _ in range(BATCH)
            ]
            try:
                status, answer = request(url, batch, timeout=10)
            except (OSError, http.client.HTTPException):  # refused, reset, or cut mid-answer
                with lock:
                    unanswered.append(batch)
                return
            with lock:
                assert status == 200, answer
                acknowledged.extend(batch)

    options = ("--min-reports", "1", "--rate-limit", "0")
    with serving([path], store_url, tmp_path, *options) as server:
        url = f"{server.url}/v1/protocols/{PROTOCOL.fingerprint}/reports"
        clients = [threading.Thread(target=stream, args=(url,)) for _ in range(2)]
        for client in clients:
            client.start()
        deadline = time.monotonic() + 30
        while len(acknowledged) < 20 * BATCH and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.stop(signal.SIGKILL) == -signal.SIGKILL
        stop.set()
        for client in clients:
            client.join(30)
    assert len(acknowledged) >= 20 * BATCH

    sent = {r["id"]: r["report"][0] for r in acknowledged}
    maybe = {r["id"]: r["report"][0] for batch in unanswered for r in batch}
    with Store(store_url) as store:
        rows = [row for chunk in store.rows(PROTOCOL) for row in chunk]
        stored = {rid: int(text.strip("[]")) for rid, _, text in rows}
        assert len(stored) == len(rows)  # each report once
        assert set(sent) <= set(stored), "an acknowledged report was lost"
        assert set(stored) <= set(sent) | set(maybe), "a report nobody sent was stored"
        assert all(stored[rid] == sent[rid] for rid in sent)
        statistic = store.statistic(PROTOCOL)
        assert statistic.n == len(stored)
        assert statistic.counts.tolist() == np.bincount(list(stored.values()), minlength=5).tolist()

    # the batches whose answer was lost are sent again: a report that was stored counts once
    with serving([path], store_url, tmp_path, *options) as server:
        url = f"{server.url}/v1/protocols/{PROTOCOL.fingerprint}"
        for batch in unanswered:
            status, answer = request(url + "/reports", batch)
            assert status == 200
            held = sum(r["id"] in stored for r in batch)
            assert (answer["accepted"], answer["duplicates"]) == (BATCH - held, held)
        total = len(stored) + sum(r["id"] not in stored for b in unanswered for r in b)
        assert request(url + "/estimate")[1]["n"] == total
