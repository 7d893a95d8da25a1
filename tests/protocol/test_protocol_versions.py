"""Protocol format 2 beside format 1: files written by the last release still load and
decode, canonical names, the limits every reader applies, pins and upgrades."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ldp
from ldp.mechanisms import GRR
from ldp.mechanisms.registry import PROTOCOL_IDS, REGISTRY, V1_NAMES, example, protocol_id
from ldp.protocol import Protocol, read_reports
from ldp.protocol.canonical import MAX_DEPTH, MAX_PROTOCOL_BYTES

ROOT = Path(__file__).resolve().parents[2]
#: Protocol files of every mechanism written in format version 1 by the last release, with
#: reports made under them and the estimates the last release decoded from those reports.
V1 = json.loads((ROOT / "tests" / "data" / "protocol_v1.json").read_text())["protocols"]


#: Version-1 files the library no longer reads, and why.
UNREADABLE = {
    # (e^350 + 1) / (e^350 - 1) rounded C to exactly 1 and the window's width 2 / (e^350 - 1)
    # to 2e-152, where C - 1 = 0: the file did not describe the piecewise mechanism
    "Piecewise eps=700": "sampler section does not match",
}


@pytest.mark.parametrize("entry", V1, ids=[e["name"] for e in V1])
def test_version_1_files_still_load_and_decode(entry):
    document = entry["protocol"]
    if entry["name"] in UNREADABLE:
        with pytest.raises(ValueError, match=UNREADABLE[entry["name"]]):
            Protocol.from_dict(document)
        return
    protocol = Protocol.from_dict(document)
    assert protocol.version == 1 and protocol.fingerprint == document["fingerprint"]
    assert protocol.to_dict() == document  # read as written: its reports keep their fingerprint
    assert Protocol.from_json(json.dumps(document)) == protocol
    frame = pd.DataFrame(entry["rows"], columns=entry["columns"])
    reports = read_reports(protocol, frame)
    assert len(reports) == len(entry["rows"])
    if entry["estimate"] is None:
        return
    estimate = protocol.decoder.estimate(reports)
    if hasattr(estimate, "frequency"):
        values = [float(estimate.frequency(v)) for v in _answers(entry)]
    else:
        values = np.asarray(getattr(estimate, "frequencies", estimate), dtype=float).tolist()
    # the constants are calibrated a few ulps toward more privacy since: the decoder moves by
    # about 1e-15 relative
    np.testing.assert_allclose(values, entry["estimate"], rtol=1e-9, atol=1e-12)
    upgraded = protocol.upgrade()
    assert upgraded.version == 2 and upgraded.mechanism == protocol.mechanism
    assert upgraded.fingerprint != protocol.fingerprint
    assert upgraded.epsilon <= protocol.epsilon * (1 + 1e-12)  # the same privacy


def _answers(entry):
    return {
        "cms width=64 depth=16": ["apple", "café 😀", "", 12345],
        "cms width=10 depth=300 (pad bits, two-byte row)": ["x" * 100, -7],
        "hcms width=1024 depth=1024": ["apple", 0],
        "hcms width=2 depth=1 eps=0.5": ["pear"],
    }[entry["name"]]


def test_the_fixtures_cover_every_mechanism():
    names = {entry["protocol"]["mechanism"]["name"] for entry in V1}
    assert names == set(REGISTRY)


def test_every_mechanism_has_one_lowercase_protocol_id():
    assert set(V1_NAMES) == set(REGISTRY)
    assert set(V1_NAMES.values()) == set(PROTOCOL_IDS)
    for name, cls in REGISTRY.items():
        assert PROTOCOL_IDS[V1_NAMES[name]] is cls
        identifier = V1_NAMES[name]
        assert identifier == identifier.lower() and " " not in identifier
        assert protocol_id(example(name)) == identifier
        if name in ("Channel", "GRR"):  # the names the issue spells
            assert identifier in ("channel", "grr")
    assert V1_NAMES["HR"] == "hadamard-response" and V1_NAMES["SS"] == "subset-selection"


def test_a_version_2_file_names_its_mechanism_by_id():
    document = Protocol.from_mechanism(GRR(4, 1.0)).to_dict()
    assert document["version"] == 2 and document["mechanism"]["name"] == "grr"


def test_every_reader_refuses_what_is_over_the_limits():
    protocol = Protocol.from_mechanism(GRR(4, 1.0))
    text = protocol.to_json()
    with pytest.raises(ValueError, match="repeats the key 'keep'"):
        Protocol.from_json(text.replace('"keep": [', '"keep": [1.0, 0.0], "keep": [', 1))
    with pytest.raises(ValueError, match=f"deeper than {MAX_DEPTH}"):
        Protocol.from_json("[" * 5000 + "]" * 5000)
    nested: list = []
    node = nested
    for _ in range(5000):
        node.append([])
        node = node[0]
    with pytest.raises(ValueError, match="deeper"):
        Protocol.from_dict({**protocol.to_dict(), "question": nested})
    with pytest.raises(ValueError, match="larger than"):
        Protocol.from_json(" " * (MAX_PROTOCOL_BYTES + 1))
    with pytest.raises(ValueError, match="above 2\\^53"):
        Protocol.from_dict({**protocol.to_dict(), "question": 2**60})


def test_the_pin_and_the_fingerprint_name_one_content():
    a = Protocol.from_mechanism(GRR(4, 1.0), question="Q")
    b = Protocol.from_mechanism(GRR(4, 1.0), question="Q ")
    assert len(a.pin) == 64 and a.pin.startswith(a.fingerprint)
    assert a.pin != b.pin and a.mechanism == b.mechanism


def test_the_library_states_what_a_device_verifies():
    for name in sorted(REGISTRY):
        if name in ("Piecewise", "Hybrid"):
            continue
        protocol = Protocol.from_mechanism(example(name), delta=1e-6 if name == "gaussian" else 0.0)
        device = protocol.device_privacy()
        assert device["epsilon"] <= protocol.epsilon
    channel = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    assert channel.epsilon == channel.device_privacy()["epsilon"] <= 1.0


def test_a_delta_stated_for_a_mechanism_devices_cannot_check_is_refused():
    with pytest.raises(ValueError, match="channels and the Gaussian"):
        Protocol.from_mechanism(GRR(4, 1.0), delta=1e-6)
