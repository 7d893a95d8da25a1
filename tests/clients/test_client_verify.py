"""The device checks the privacy it runs: the Python client's ``verify``, policy and ledger.

Independent references: the library's own ``epsilon`` of each mechanism (computed from its
parameters by its own derivation, not from the file's constants), mpmath at 400 bits for the
exact comparisons and the normal distribution function, brute-force composition of the
reports a ledger let through, and Node's ``JSON.stringify`` for the canonical text.
"""

import json
import math
import random
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import ldp
from ldp.mechanisms import GRR, LGRR, Gaussian
from ldp.mechanisms.registry import REGISTRY, example
from ldp.protocol import MarginalProtocol, Protocol
from ldp.protocol.canonical import jcs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))
import ldp_client  # noqa: E402

NODE = shutil.which("node")
mpmath.mp.prec = 400
UNCERTIFIED = {"privunit", "privunitg"}


def _protocol(name: str) -> Protocol:
    mechanism = example(name)
    return Protocol.from_mechanism(mechanism, delta=1e-6 if name == "gaussian" else 0.0)


def _pinned(protocol: Protocol) -> dict:
    return {"pinned_fingerprints": [protocol.pin], "max_delta": 0.5}


# ----------------------------------------------------------------------------- honest files
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_an_honest_file_of_every_mechanism_is_verified_as_the_library_states_it(name):
    protocol = _protocol(name)
    info = ldp_client.verify(protocol.to_dict(), _pinned(protocol))
    assert info["fingerprint"] == protocol.fingerprint
    assert info["certified"] == (info["mechanism"] not in UNCERTIFIED)
    assert info["epsilon"] <= protocol.epsilon
    assert info["epsilon"] == pytest.approx(protocol.epsilon, rel=1e-12)
    if protocol.delta == 0 and name not in {"Channel"} and info["certified"]:
        # the library's own epsilon, from the mechanism's parameters
        assert info["epsilon"] == pytest.approx(protocol.mechanism.epsilon, rel=1e-12)
    assert ldp_client.verify(protocol.to_json(), _pinned(protocol)) == info


@pytest.mark.parametrize("name", ["GRR", "OUE", "SS", "OLH", "HR", "SUE", "Channel"])
def test_the_device_ratio_is_the_exact_largest_ratio_of_the_channel(name):
    """For finite mechanisms small enough to enumerate: the device's level, from the sampler
    constants, against the largest ratio of the library's exact channel (mpmath)."""
    mechanism = example(name)
    channel = mechanism if isinstance(mechanism, ldp.Channel) else mechanism.to_channel()
    matrix = channel.matrix
    worst = mpmath.mpf(1)
    for z in range(matrix.shape[1]):
        column = [mpmath.mpf(float(v)) for v in matrix[:, z]]
        if max(column) > 0:
            worst = max(worst, max(column) / min(column))
    info = ldp_client.verify(Protocol.from_mechanism(mechanism).to_dict())
    # the channel's entries are doubles rounded from the exact law: agree to ~1e-15
    assert mpmath.log(worst) == pytest.approx(info["epsilon"], rel=1e-13)
    assert mpmath.exp(mpmath.mpf(info["epsilon"])) >= worst * (1 - mpmath.mpf(2) ** -48)


def test_grr_level_is_exact_at_the_last_bit():
    for eps in (1e-6, 0.1, 0.5, 1.0, 2.5, 10.0, 700.0):
        protocol = Protocol.from_mechanism(GRR(7, eps))
        keep = protocol.to_dict()["sampler"]["keep"]
        ratio = mpmath.mpf(keep[0]) * 6 / mpmath.mpf(keep[1])
        t = ldp_client.verify(protocol.to_dict())["epsilon"]
        assert mpmath.exp(mpmath.mpf(t)) >= ratio > mpmath.exp(mpmath.mpf(math.nextafter(t, 0)))


# ----------------------------------------------------------------------------- hostile files
HOSTILE = json.loads((ROOT / "clients" / "hostile_protocols.json").read_text())


@pytest.mark.parametrize("entry", HOSTILE, ids=[e["name"] for e in HOSTILE])
def test_every_hostile_file_is_refused_by_the_client_and_the_library(entry):
    protocol = entry["protocol"]
    calls = []

    def source(n):
        calls.append(n)
        return bytes(n)

    with pytest.raises((TypeError, ValueError)) as caught:
        ldp_client.privatize(protocol, entry["value"], randbytes=source)
    assert calls == [], "bytes were drawn before the refusal"
    assert "\n" not in str(caught.value)
    marginals = isinstance(protocol, dict) and protocol["mechanism"]["name"] == "marginals"
    with pytest.raises((TypeError, ValueError)) as refused:
        if isinstance(protocol, str):
            Protocol.from_json(protocol)
        elif marginals:
            MarginalProtocol.from_dict(protocol)
        else:
            Protocol.from_dict(protocol)
    assert "read it with" not in str(refused.value)  # refused for its content


def test_the_hostile_file_is_up_to_date():
    sys.path.insert(0, str(ROOT / "clients"))
    import make_hostile_protocols

    assert make_hostile_protocols.render(make_hostile_protocols.entries()) == (
        ROOT / "clients" / "hostile_protocols.json"
    ).read_text(encoding="utf-8")


def test_a_file_stating_less_than_its_constants_is_refused_naming_both_numbers():
    document = Protocol.from_mechanism(GRR(4, 1.0)).to_dict()
    document["privacy"]["epsilon"] = 0.01
    body = {k: v for k, v in document.items() if k != "fingerprint"}
    document["fingerprint"] = ldp_client._hash_hex(body)[:16]
    with pytest.raises(ValueError, match=r"^grr: .*epsilon = 1\.0 .*epsilon = 0\.01 "):
        ldp_client.verify(document)


def test_files_over_the_limits_are_refused_in_one_line():
    text = Protocol.from_mechanism(GRR(4, 1.0)).to_json()
    big = text[:-2] + ', "padding": "' + "x" * ldp_client.MAX_PROTOCOL_BYTES + '"}'
    for bad, match in [
        (big, "larger than"),
        ("[" * 5000 + "]" * 5000, "deeper"),
        ('{"a": 1, "a": 2}', "repeats the key"),
        ('{"a": NaN}', "not a finite"),
        ("{", "not valid JSON"),
    ]:
        with pytest.raises(ValueError, match=match):
            ldp_client.load_protocol(bad)
    deep: list = []
    node = deep
    for _ in range(5000):
        node.append([])
        node = node[0]
    with pytest.raises(ValueError, match="deeper"):
        ldp_client.load_protocol({"format": "ldp-protocol", "nested": deep})


@pytest.mark.parametrize("byte", [0x00, 0xFF])
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_broken_random_source_raises_instead_of_hanging(name, byte):
    protocol = _protocol(name)
    mechanism = protocol.mechanism
    value = _answer(protocol)
    try:
        ldp_client.privatize(
            protocol.to_dict(),
            value,
            policy=_pinned(protocol),
            randbytes=lambda n: bytes([byte]) * n,
        )
    except ValueError as exc:
        assert "random source is broken" in str(exc) or "did not accept" in str(exc)
    del mechanism  # some mechanisms decide every draw from constant bytes: no loop to break


def _answer(protocol: Protocol):
    kind = protocol.kind
    if kind == "categorical":
        return 0 if protocol.labels is None else protocol.labels[0]
    if kind == "items":
        return "apple"
    if kind == "interval":
        d = protocol.to_dict()["domain"]["dimension"]
        low = protocol.bounds[0]
        return low if d == 1 else [low] * d
    d = protocol.to_dict()["domain"]["dimension"]
    return [0.0] * d


# ----------------------------------------------------------------------------- the policy
def test_the_policy_caps_epsilon_and_delta_and_pins_files():
    grr = Protocol.from_mechanism(GRR(4, 1.0))
    gauss = Protocol.from_mechanism(Gaussian(1.0), delta=1e-6)
    assert ldp_client.verify(grr.to_dict(), {"max_epsilon": 1.0})["epsilon"] == 1.0
    with pytest.raises(ValueError, match=r"above the app's max_epsilon = 0\.5"):
        ldp_client.privatize(grr.to_dict(), 0, policy={"max_epsilon": 0.5})
    with pytest.raises(ValueError, match=r"max_delta = 0\.0"):
        ldp_client.verify(gauss.to_dict(), {"max_epsilon": 10.0})
    assert ldp_client.verify(gauss.to_dict(), {"max_delta": 1e-6})["delta"] == 1e-6
    for pin in (grr.fingerprint, grr.pin):
        ldp_client.verify(grr.to_dict(), {"pinned_fingerprints": [pin]})
    with pytest.raises(ValueError, match="not one the app pinned"):
        ldp_client.verify(grr.to_dict(), {"pinned_fingerprints": [gauss.pin]})
    for bad in ({"max_epsilon": -1}, {"max_epsilon": math.nan}, {"max_epsilo": 1.0},
                {"pinned_fingerprints": ["XYZ"]}, {"budget": {"epsilon": 0}}):  # fmt: skip
        with pytest.raises(ValueError, match="policy"):
            ldp_client.verify(grr.to_dict(), bad)
    with pytest.raises(TypeError, match="policy"):
        ldp_client.verify(grr.to_dict(), [1.0])


def test_privunit_runs_only_when_pinned():
    protocol = _protocol("privunit")
    with pytest.raises(ValueError, match="privunit: this client cannot bound its privacy"):
        ldp_client.privatize(protocol.to_dict(), [0.1, 0.2, 0.3])
    record = ldp_client.privatize(
        protocol.to_dict(), [0.1, 0.2, 0.3], policy={"pinned_fingerprints": [protocol.pin]}
    )
    assert record["fingerprint"] == protocol.fingerprint
    info = ldp_client.verify(protocol.to_dict(), {"pinned_fingerprints": [protocol.fingerprint]})
    assert info["certified"] is False and info["epsilon"] == protocol.epsilon


# ----------------------------------------------------------------------------- memos, ledger
def _republished(protocol: Protocol, spaces: int) -> dict:
    """The same mechanism under a question text that differs by trailing spaces."""
    return Protocol.from_mechanism(
        protocol.mechanism, question="How do you commute?" + " " * spaces
    ).to_dict()


def test_thirty_republications_keep_one_memo():
    base = Protocol.from_mechanism(LGRR(5, 0.5, 1.0))
    files = [_republished(base, i) for i in range(30)]
    assert len({f["fingerprint"] for f in files}) == 30
    assert len({ldp_client.mechanism_key(f) for f in files}) == 1
    memo, ledger = None, None
    permanent, charged = set(), []
    policy = {"budget": {"epsilon": 1.0}}  # all time: the whole history is charged
    for day, document in enumerate(files):
        _, memo = ldp_client.privatize_round(document, 2, memo)
        permanent.add(tuple(memo["entries"][0][1]))
        _, ledger = ldp_client.privatize_with_ledger(
            document, 2, "commute", ledger, policy, now=day * 86400.0
        )
        charged.append(len(ledger["questions"]["commute"]["charges"]))
        memos = ledger["questions"]["commute"]["memos"]
        assert len(memos) == 1 and len(next(iter(memos.values()))["entries"]) == 1
    assert len(permanent) == 1 and len(memo["entries"]) == 1
    assert charged == [1] * 30  # the permanent epsilon once, however often it is republished
    charges = ledger["questions"]["commute"]["charges"]
    assert charges[0][1] == pytest.approx(1.0, rel=1e-12) and charges[0][1] <= 1.0
    # the library's exact loss of the 30 reports of one unchanged value is below it
    assert base.mechanism.epsilon_repeated(30) <= charges[0][1]


def test_the_ledger_refuses_the_report_over_budget_and_never_undercounts():
    """A ledger under a budget lets reports through until the next would exceed it; its total
    is never below the library's exact composition of what was sent."""
    lgrr = Protocol.from_mechanism(LGRR(4, 0.5, 1.0))
    grr = Protocol.from_mechanism(GRR(4, 0.7))
    policy = {"budget": {"epsilon": 3.0}}
    ledger, sent = None, {"lgrr": [], "grr": 0}
    rng = random.Random(5)
    refused = 0
    for step in range(40):
        use_memo = rng.random() < 0.5
        document = lgrr if use_memo else grr
        value = rng.randrange(4)
        try:
            _, ledger = ldp_client.privatize_with_ledger(
                document.to_dict(), value, "q", ledger, policy, now=float(step)
            )
        except ValueError as exc:
            assert "over the app's budget" in str(exc) and "\n" not in str(exc)
            refused += 1
            continue
        if use_memo:
            sent["lgrr"].append(value)
        else:
            sent["grr"] += 1
    assert refused > 0
    charged = sum(Fraction(c[1]) for c in ledger["questions"]["q"]["charges"])
    assert charged <= 3
    # the library's composition of what was sent: the memoized history (same pattern of values)
    # plus basic composition of the GRR reports (each exactly its epsilon)
    history = sent["lgrr"]
    distinct = sorted(set(history))
    exact = sum(lgrr.mechanism.epsilon_repeated(history.count(v)) for v in distinct)
    exact += sent["grr"] * grr.mechanism.epsilon
    assert float(charged) >= exact - 1e-12


def test_a_changed_mechanism_for_the_same_question_starts_a_new_memo_charged_in_full():
    first = Protocol.from_mechanism(LGRR(4, 0.5, 1.0)).to_dict()
    second = Protocol.from_mechanism(LGRR(4, 0.5, 1.5)).to_dict()
    policy = {"budget": {"epsilon": 10.0}}
    _, ledger = ldp_client.privatize_with_ledger(first, 1, "q", None, policy, now=0.0)
    _, ledger = ldp_client.privatize_with_ledger(first, 1, "q", ledger, policy, now=1.0)
    _, ledger = ldp_client.privatize_with_ledger(second, 1, "q", ledger, policy, now=2.0)
    charges = [c[1] for c in ledger["questions"]["q"]["charges"]]
    assert charges == pytest.approx([1.0, 1.5], rel=1e-12)
    assert len(ledger["questions"]["q"]["memos"]) == 2
    again = json.loads(json.dumps(ledger))  # stored as JSON between uses
    _, later = ldp_client.privatize_with_ledger(first, 1, "q", again, policy, now=3.0)
    assert len(later["questions"]["q"]["charges"]) == 2


def test_the_budget_period_rolls():
    grr = Protocol.from_mechanism(GRR(4, 1.0)).to_dict()
    policy = {"budget": {"epsilon": 2.0, "period_days": 1}}
    ledger = None
    for t in (0.0, 3600.0):
        _, ledger = ldp_client.privatize_with_ledger(grr, 0, "q", ledger, policy, now=t)
    with pytest.raises(ValueError, match=r"per 1 day\)"):
        ldp_client.privatize_with_ledger(grr, 0, "q", ledger, policy, now=7200.0)
    _, ledger = ldp_client.privatize_with_ledger(grr, 0, "q", ledger, policy, now=86400.5)
    # the exact times passed above
    assert [c[0] for c in ledger["questions"]["q"]["charges"]] == [3600.0, 86400.5]


@pytest.mark.parametrize(
    "bad",
    [{"format": "ldp-ledger/1"}, {"format": "other", "questions": {}}, "{", 3,
     {"format": "ldp-ledger/1", "questions": {"q": {"memos": {}, "charges": [[0, "x", 0]]}}}],
)  # fmt: skip
def test_a_malformed_ledger_is_refused(bad):
    grr = Protocol.from_mechanism(GRR(4, 1.0)).to_dict()
    with pytest.raises(ValueError, match="ledger"):
        ldp_client.privatize_with_ledger(grr, 0, "q", bad)


# ----------------------------------------------------------------------------- exact numbers
def test_the_normal_bounds_enclose_mpmath():
    rng = random.Random(11)
    for x in [0.0, 1e-9, 0.5, 2.9, 3.0, 3.1, 7.5, 20.0, 38.0, -0.5, -4.0, -30.0] + [
        rng.uniform(-40, 40) for _ in range(40)
    ]:
        lo, hi = ldp_client._phi_bounds(Fraction(x), 64)
        with mpmath.workprec(4000):  # Phi(38) = 1 - 3e-316 needs more than 400 bits
            low, high = (mpmath.mpf(v.numerator) / v.denominator for v in (lo, hi))
            exact = mpmath.ncdf(mpmath.mpf(x))
            assert low <= exact <= high
            tail = min(exact, 1 - exact)
            assert high - low <= tail * mpmath.mpf(2) ** -50


def test_the_gaussian_profile_check_agrees_with_mpmath():
    rng = random.Random(12)
    for _ in range(60):
        mu = rng.choice([rng.uniform(0.05, 0.5), rng.uniform(0.5, 3.0)])
        eps = rng.uniform(0.0, 8.0)
        exact = mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)
        for factor in (0.999, 1.001):
            delta = float(exact * factor)
            if delta <= 0:
                continue
            holds = ldp_client._gaussian_delta_within(Fraction(mu), Fraction(eps), Fraction(delta))
            assert holds == (factor > 1)


# ----------------------------------------------------------------------------- canonical text
def test_canonical_json_is_rfc_8785():
    assert ldp_client.canonical_json({"b": 1.0, "a": [1e21, 1e-7, 0.1, -0.0, 5e-324]}) == (
        '{"a":[1e+21,1e-7,0.1,0,5e-324],"b":1}'
    )
    # keys in UTF-16 code-unit order: U+1F600 is D83D DE00, below U+FF01 (code points differ)
    assert ldp_client.canonical_json({"\uff01": 1, "\U0001f600": 2, "z": 3}) == (
        '{"z":3,"\U0001f600":2,"\uff01":1}'
    )
    with pytest.raises(ValueError, match="Unicode"):
        ldp_client.canonical_json("\ud800")
    with pytest.raises(ValueError, match="2\\^53"):
        ldp_client.canonical_json(2**53 + 1)


@pytest.mark.skipif(NODE is None, reason="node (Node.js >= 18) is not on PATH")
def test_canonical_numbers_and_strings_match_javascript():
    rng = random.Random(13)
    numbers = [rng.uniform(-1e6, 1e6) for _ in range(300)]
    numbers += [math.ldexp(rng.random(), rng.randrange(-1074, 1024)) for _ in range(300)]
    numbers += [1e21, 1e-7, 1e-6, 123456789012345680000.0, 0.1, 100.0, 5e-324, 2.0**53]
    strings = ["", "é", "\u2028", "\x00\x1f\x7f", '"\\/', "\U0001f600", "a\tb\nc"]
    value = {"numbers": numbers, "strings": strings, "keys": {s: i for i, s in enumerate(strings)}}
    script = (
        "let t='';process.stdin.on('data',d=>t+=d).on('end',()=>{"
        "const sort=v=>Array.isArray(v)?v.map(sort):(v&&typeof v==='object')?"
        "Object.fromEntries(Object.keys(v).sort().map(k=>[k,sort(v[k])])):v;"
        "process.stdout.write(JSON.stringify(sort(JSON.parse(t))))})"
    )
    result = subprocess.run(
        [NODE, "-e", script], input=json.dumps(value), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert ldp_client.canonical_json(value) == result.stdout == jcs(value)
