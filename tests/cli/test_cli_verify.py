"""``ldp verify``: the device client's own checks from the command line, and the device's
number in ``ldp report``."""

import json
from pathlib import Path

import pytest

from ldp.cli import main
from ldp.mechanisms import GRR, LGRR, PrivUnit
from ldp.protocol import Protocol

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = json.loads((ROOT / "clients" / "hostile_protocols.json").read_text())


def _save(protocol: Protocol, tmp_path: Path) -> str:
    path = tmp_path / "protocol.json"
    protocol.save(path)
    return str(path)


def test_verify_prints_the_device_number_and_the_pin(tmp_path, capsys):
    protocol = Protocol.from_mechanism(LGRR(4, 0.5, 1.0))
    assert main(["verify", _save(protocol, tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # the exact levels of the calibrated constants, at most the ones asked for
    assert 0.5 * (1 - 1e-12) <= data["epsilon"] <= 0.5
    assert 1.0 * (1 - 1e-12) <= data["epsilon_permanent"] <= 1.0
    assert data["pin"] == protocol.pin and data["fingerprint"] == protocol.fingerprint
    assert main(["verify", _save(protocol, tmp_path)]) == 0
    text = capsys.readouterr().out
    assert protocol.pin in text and "0.5\n" in text


def test_verify_applies_the_policy_given(tmp_path, capsys):
    path = _save(Protocol.from_mechanism(GRR(4, 1.0)), tmp_path)
    assert main(["verify", path, "--max-epsilon", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "max_epsilon = 0.5" in err
    assert main(["verify", path, "--pin", "0" * 64]) == 2
    assert "not one the app pinned" in capsys.readouterr().err
    privunit = _save(Protocol.from_mechanism(PrivUnit(2.0, d=3)), tmp_path)
    assert main(["verify", privunit]) == 2
    assert "pins the protocol" in capsys.readouterr().err
    pin = Protocol.from_mechanism(PrivUnit(2.0, d=3)).pin
    assert main(["verify", privunit, "--pin", pin]) == 0
    assert "only when the app pins it" in capsys.readouterr().out


@pytest.mark.parametrize("entry", HOSTILE[:12], ids=[e["name"] for e in HOSTILE[:12]])
def test_verify_refuses_hostile_files_in_one_line(entry, tmp_path, capsys):
    path = tmp_path / "hostile.json"
    protocol = entry["protocol"]
    path.write_text(protocol if isinstance(protocol, str) else json.dumps(protocol))
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ldp: error: a device refuses") and err.count("\n") == 1


def test_report_shows_what_a_device_computes(tmp_path, capsys):
    protocol = Protocol.from_mechanism(GRR(4, 1.0))
    assert main(["report", _save(protocol, tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["device"]["epsilon"] == 1.0 and data["pin"] == protocol.pin
    assert data["version"] == 2
