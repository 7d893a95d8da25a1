"""Protocol files: round trips, fingerprints, the checks on loading, and report tables."""

import hashlib
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.design import optimal_channel
from ldp.mechanisms import GRR, OLH, Laplace, SubsetSelection
from ldp.mechanisms.registry import REGISTRY, example
from ldp.protocol import (
    Protocol,
    fingerprint_of,
    iter_reports,
    load,
    read_reports,
    write_reports,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
import ldp_client


def _refingerprint(document: dict) -> dict:
    """An edited document with a matching fingerprint (so that the other checks are reached),
    by the version-2 rule computed with the device client's own canonical JSON."""
    body = {k: v for k, v in document.items() if k != "fingerprint"}
    text = ldp_client.canonical_json(body)
    return {**body, "fingerprint": hashlib.sha256(text.encode()).hexdigest()[:16]}


@pytest.fixture(params=sorted(REGISTRY))
def protocol(request):
    mechanism = example(request.param)
    delta = 1e-6 if mechanism.epsilon == float("inf") else 0.0  # the Gaussian states a delta
    return Protocol.from_mechanism(mechanism, delta=delta)


def test_round_trips_exactly(protocol, tmp_path):
    text = protocol.to_json()
    again = Protocol.from_json(text)
    assert again == protocol and again.to_json() == text
    assert again.fingerprint == protocol.fingerprint
    path = tmp_path / "protocol.json"
    protocol.save(path)
    assert load(path) == protocol and path.read_text() == text
    assert again.mechanism == protocol.mechanism
    assert again.epsilon >= (
        protocol.mechanism.epsilon_for_delta(protocol.delta)
        if protocol.delta
        else protocol.mechanism.epsilon
    )


def test_fingerprint_is_the_spec_hash_and_the_same_in_another_process():
    protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=["a", "b", "c"], question="Q?")
    document = protocol.to_dict()
    body = {k: v for k, v in document.items() if k != "fingerprint"}
    text = ldp_client.canonical_json(body)  # RFC 8785, the client's own implementation
    assert '"question":"Q?"' in text and '"version":2' in text and " " not in text
    assert protocol.pin == hashlib.sha256(text.encode()).hexdigest()
    assert protocol.fingerprint == protocol.pin[:16]
    assert fingerprint_of(document) == protocol.fingerprint
    code = (
        "import ldp; from ldp.protocol import Protocol; "
        "print(Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=['a','b','c'], "
        "question='Q?').fingerprint)"
    )
    other = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
    )
    assert other.stdout.strip() == protocol.fingerprint


def test_any_change_changes_the_fingerprint():
    base = Protocol.from_mechanism(GRR(4, 1.0), labels=["a", "b", "c", "d"])
    variants = [
        Protocol.from_mechanism(GRR(4, 1.0 + 1e-12), labels=["a", "b", "c", "d"]),
        Protocol.from_mechanism(GRR(4, 1.0), labels=["a", "b", "d", "c"]),
        Protocol.from_mechanism(GRR(4, 1.0), labels=["a", "b", "c", "d"], question="?"),
        Protocol.from_mechanism(ldp.k_rr(4, 1.0), labels=["a", "b", "c", "d"]),
        Protocol.from_mechanism(OLH(4, 1.0), labels=["a", "b", "c", "d"]),
    ]
    prints = {p.fingerprint for p in variants} | {base.fingerprint}
    assert len(prints) == len(variants) + 1


def test_a_designed_channel_becomes_a_protocol():
    result = optimal_channel(5, 1.0, utility="mi")
    protocol = Protocol.from_mechanism(result, labels=list("abcde"))
    assert protocol.mechanism == result.channel
    assert protocol.epsilon <= 1.0 and protocol.tv == pytest.approx(result.channel.tv)
    assert Protocol.from_json(protocol.to_json()).mechanism.matrix.tolist() == (
        result.channel.matrix.tolist()
    )


def test_an_undecodable_design_is_refused_with_advice():
    binary = optimal_channel(
        5, 1.0, utility="tv", hypotheses=(np.ones(5) / 5, [0.4, 0.3, 0.1, 0.1, 0.1])
    )
    with pytest.raises(
        ValueError, match=r"design for estimation: ldp\.design\.optimal_frequency_channel\(5, "
    ):
        Protocol.from_mechanism(binary)


def test_approximate_channels_state_delta():
    erasure = ldp.binary_erasure(1.0, 0.1, 0.3)
    with pytest.raises(ValueError, match="delta"):
        Protocol.from_mechanism(erasure)
    protocol = Protocol.from_mechanism(erasure, delta=0.1)
    assert protocol.delta == 0.1
    assert erasure.delta(protocol.epsilon) <= 0.1
    assert protocol.epsilon == pytest.approx(erasure.epsilon_for_delta(0.1), rel=1e-12)


# ----------------------------------------------------------------------------- refusals
def _document():
    return Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=["a", "b", "c"]).to_dict()


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda d: d.update(version=3), "version '3'"),
        (lambda d: d.update(version=2.0), "version '2.0'"),
        (lambda d: d.update(version="2"), "version '2'"),
        (lambda d: d.update(version=True), "version 'True'"),
        (lambda d: d["mechanism"].update(name="Channel"), "unknown mechanism 'Channel'"),
        (lambda d: d.update(format="other"), "not an ldp protocol"),
        (lambda d: d.pop("sampler"), "lacks"),
        (lambda d: d.update(extra=1), "unknown field"),
        (lambda d: d["privacy"].update(epsilon=0.9), "below the epsilon recomputed"),
        (lambda d: d["privacy"].update(tv=0.01), "below the eta-TV"),
        (lambda d: d["domain"].update(labels=["a", "a", "c"]), "distinct"),
        (lambda d: d["domain"].update(labels=["a", "b"]), "one entry per category"),
        (lambda d: d["mechanism"].update(name="Nope"), "unknown mechanism"),
        (lambda d: d["mechanism"]["params"]["matrix"][0].__setitem__(0, 0.9), "sum to 1"),
        (lambda d: d["mechanism"]["params"]["matrix"][0].__setitem__(0, -0.1), "non-negative"),
        (lambda d: d["report"]["fields"][0].update(max=99), "report section"),
        (lambda d: d.update(question=3), "question"),
    ],
)
def test_loading_refuses_inconsistent_files(edit, match):
    document = _document()
    edit(document)
    with pytest.raises(ValueError, match=match):
        Protocol.from_dict(_refingerprint(document))


def test_loading_refuses_edited_truncated_or_non_finite_files(tmp_path):
    document = _document()
    document["privacy"]["epsilon"] = 5.0  # a larger epsilon is honest, but the hash is off
    with pytest.raises(ValueError, match="fingerprint"):
        Protocol.from_dict(document)
    text = Protocol.from_dict(_document()).to_json()
    with pytest.raises(ValueError, match="not valid JSON"):
        Protocol.from_json(text[: len(text) // 2])
    with pytest.raises(ValueError, match="not a finite number"):
        Protocol.from_json(text.replace('"delta": 0.0', '"delta": NaN'))
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="UTF-8"):
        load(path)
    with pytest.raises(TypeError):
        Protocol.from_json(3)


def test_bad_construction_arguments():
    with pytest.raises(ValueError, match="one entry per category"):
        Protocol.from_mechanism(GRR(3, 1.0), labels=["a", "b"])
    with pytest.raises(ValueError, match="distinct"):
        Protocol.from_mechanism(GRR(3, 1.0), labels=[1, 1.0, 2])
    with pytest.raises(TypeError, match="JSON scalars"):
        Protocol.from_mechanism(GRR(3, 1.0), labels=[1, None, 2])
    with pytest.raises(ValueError, match="low < high"):
        Protocol.from_mechanism(Laplace(1.0), bounds=(1, 1))
    with pytest.raises(ValueError, match="bounds apply"):
        Protocol.from_mechanism(GRR(3, 1.0), bounds=(0, 1))
    with pytest.raises(TypeError, match="mechanism must be"):
        Protocol.from_mechanism("GRR")
    with pytest.raises(TypeError, match="question"):
        Protocol.from_mechanism(GRR(3, 1.0), question=3)


# ----------------------------------------------------------------------------- answers
def test_answers_are_encoded_and_checked_without_echo():
    protocol = Protocol.from_mechanism(GRR(3, 1.0), labels=["x", 7, True])
    assert protocol.encode(["x", 7.0, True]).tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="not among") as info:
        protocol.encode(["x", "secret-answer"])
    assert "secret-answer" not in str(info.value)
    with pytest.raises(ValueError, match="not among"):
        protocol.encode([1])  # True is a boolean label, not the number 1
    numeric = Protocol.from_mechanism(Laplace(1.0), bounds=(0, 100))
    np.testing.assert_allclose(numeric.encode([0, 50, 100]), [-1, 0, 1])
    with pytest.raises(ValueError, match="outside") as info:
        numeric.encode([101.5])
    assert "101.5" not in str(info.value)
    indices = Protocol.from_mechanism(GRR(2**40, 1.0))
    assert indices.encode([2**40 - 1]).tolist() == [2**40 - 1]
    assert indices.labels is None and indices.k == 2**40  # never materialised


def test_privatize_defaults_to_the_os_generator(monkeypatch):
    import ldp.protocol.document as document

    seen = []
    original = document.check_random_state

    def spy(rng):
        seen.append(rng)
        return original(rng)

    monkeypatch.setattr(document, "check_random_state", spy)
    Protocol.from_mechanism(GRR(3, 1.0)).privatize([0, 1])
    assert seen == ["os"]


# ----------------------------------------------------------------------------- reports
@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_report_files_round_trip(tmp_path, suffix):
    protocol = Protocol.from_mechanism(OLH(50, 1.0))
    reports = protocol.privatize(np.arange(50) % 50, rng=1)
    path = tmp_path / f"reports{suffix}"
    write_reports(protocol, reports, path)
    np.testing.assert_array_equal(read_reports(protocol, path), reports)
    total = protocol.aggregate(path, chunksize=7)
    assert total.n == 50 and total == total  # chunked aggregation adds up
    np.testing.assert_array_equal(total.counts, protocol.decoder.aggregate(reports).counts)


def test_reports_of_another_protocol_are_refused_naming_the_line(tmp_path):
    server = Protocol.from_mechanism(GRR(5, 2.0))
    device = Protocol.from_mechanism(GRR(5, 1.9))
    path = tmp_path / "reports.csv"
    write_reports(device, device.privatize([0, 1, 2], rng=0), path)
    with pytest.raises(ValueError, match=r"reports\.csv line 2: .*another protocol"):
        read_reports(server, path)
    frame = pd.concat(
        [
            server.report_frame(server.privatize([0, 1], rng=0)),
            device.report_frame(device.privatize([2], rng=0)),
        ],
        ignore_index=True,
    )
    with pytest.raises(ValueError, match=r"row 2: .*mixes"):
        read_reports(server, frame)


def test_a_bare_array_is_read_only_when_trusted_or_with_the_fingerprint():
    """An array carries no fingerprint: another protocol's reports would decode silently
    (GRR(5, 1.9) reports are valid GRR(5, 2.0) reports), so the caller must vouch for them."""
    server = Protocol.from_mechanism(GRR(5, 2.0))
    device = Protocol.from_mechanism(GRR(5, 1.9))
    reports = device.privatize([0, 1, 2], rng=0)
    with pytest.raises(ValueError, match=r"carries no fingerprint.*trusted=True"):
        read_reports(server, reports)
    with pytest.raises(ValueError, match="carries no fingerprint"):
        list(iter_reports(server, reports))
    with pytest.raises(ValueError, match=r"not this protocol's .*another protocol"):
        read_reports(server, reports, fingerprint=device.fingerprint)
    np.testing.assert_array_equal(
        read_reports(device, reports, fingerprint=device.fingerprint), reports
    )
    np.testing.assert_array_equal(read_reports(server, reports, trusted=True), reports)
    # sources that carry fingerprints are checked whatever the caller says
    with pytest.raises(ValueError, match="another protocol"):
        read_reports(server, device.report_frame(reports), trusted=True)
    with pytest.raises(ValueError, match="another protocol"):
        read_reports(server, server.report_frame(reports), fingerprint=device.fingerprint)
    with pytest.raises(TypeError, match="trusted"):
        read_reports(server, reports, trusted="yes")
    with pytest.raises(TypeError, match="fingerprint"):
        read_reports(server, reports, fingerprint=123)


def test_reports_the_mechanism_cannot_output_are_refused(tmp_path):
    protocol = Protocol.from_mechanism(SubsetSelection(10, 1.0))
    frame = protocol.report_frame(protocol.privatize(np.arange(10), rng=2))
    frame.loc[4, "byte_1"] = 0  # drops members of the subset
    frame.loc[4, "byte_0"] = 0
    with pytest.raises(ValueError, match=r"row 4: .*exactly d"):
        read_reports(protocol, frame)
    frame = protocol.report_frame(protocol.privatize(np.arange(10), rng=2))
    frame.loc[1, "byte_0"] = 300
    with pytest.raises(ValueError, match=r"row 1: .*outside 0..255"):
        read_reports(protocol, frame)
    path = tmp_path / "bad.csv"
    path.write_text(f"fingerprint,byte_0,byte_1\n{protocol.fingerprint},abc,0\n")
    with pytest.raises(ValueError, match=r"line 2: .*not a number"):
        read_reports(protocol, path)
    with pytest.raises(ValueError, match="no 'fingerprint' column"):
        read_reports(protocol, frame.drop(columns="fingerprint"))
    with pytest.raises(ValueError, match="no such reports file"):
        read_reports(protocol, tmp_path / "missing.csv")


def test_client_records_are_read(tmp_path):
    protocol = Protocol.from_mechanism(Laplace(1.0), bounds=(0, 10))
    reports = protocol.privatize([1.0, 5.0], rng=0)
    records = [{"fingerprint": protocol.fingerprint, "report": [float(v)]} for v in reports]
    np.testing.assert_array_equal(read_reports(protocol, records), reports)
    with pytest.raises(ValueError, match="record 0"):
        read_reports(protocol, [{"fingerprint": protocol.fingerprint}])
    assert not math.isnan(float(read_reports(protocol, records)[0]))


def test_is_frequency_follows_the_domain_not_the_mechanism_class():
    from ldp.channel import Channel

    channel = Channel(np.array([[0.75, 0.25], [0.25, 0.75]]))
    assert Protocol.from_mechanism(channel).is_frequency()
    assert Protocol.from_mechanism(OLH(5, 1.0)).is_frequency()
    assert not Protocol.from_mechanism(Laplace(1.0), bounds=(0, 1)).is_frequency()
