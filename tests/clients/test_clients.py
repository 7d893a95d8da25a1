"""The dependency-free Python client: test vectors, standard library only, and its law.

Every vector of ``clients/test_vectors.json`` is reproduced by the library's sampler and by
the client from the same bytes (reading all of them). The client's reports follow the exact
law of the protocol: a chi-square test against the mechanism's exact channel for the finite
mechanisms, and tests against the closed-form laws for the continuous ones (1e5 reports per
input, seeded; each fails by chance with probability below ``P_FLOOR``).
"""

import io
import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ldp._random import ByteSource
from ldp.design import optimal_channel
from ldp.mechanisms import (
    BLH,
    GRR,
    LGRR,
    OLH,
    OUE,
    SUE,
    Duchi,
    DuchiL2,
    HadamardResponse,
    Hybrid,
    Laplace,
    LocalHashing,
    Piecewise,
    SquareWave,
    SubsetSelection,
)
from ldp.mechanisms.registry import PROTOCOL_IDS
from ldp.protocol import Protocol

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
P_FLOOR = 1e-4
DRAWS = 100_000

sys.path.insert(0, str(CLIENTS / "python"))
import ldp_client  # noqa: E402

VECTORS = json.loads((CLIENTS / "test_vectors.json").read_text())["vectors"]


def _same(report, expected, rtol):
    if rtol == 0:
        return report == expected
    return len(report) == len(expected) and all(
        math.isclose(a, b, rel_tol=rtol, abs_tol=0.0) for a, b in zip(report, expected)
    )


#: Memoized (longitudinal) mechanisms keep a per-client memo between rounds: their vectors
#: are histories of rounds (the ``memoized`` list), not single reports.
MEMOIZED_NAMES = {"dbitflip-pm", "l-grr", "l-osue", "l-oue", "rappor"}


def test_the_vectors_cover_every_mechanism():
    names = {v["protocol"]["mechanism"]["name"] for v in VECTORS}
    assert names == set(PROTOCOL_IDS) - MEMOIZED_NAMES
    assert {v["protocol"]["version"] for v in VECTORS + MEMOIZED} == {2}
    assert {v["protocol"]["domain"]["type"] for v in VECTORS} == {
        "categorical",
        "interval",
        "ball",
        "items",
    }


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_library_and_client_reproduce_the_vector(vector):
    data = bytes.fromhex(vector["bytes"])
    protocol = Protocol.from_dict(vector["protocol"])
    stream = io.BytesIO(data)
    native = protocol.privatize([vector["value"]], rng=ByteSource(stream.read))
    assert stream.tell() == len(data)
    library = protocol.mechanism.codec.to_rows(native)[0].tolist()
    assert _same(library, vector["report"], vector["rtol"])
    stream = io.BytesIO(data)
    record = ldp_client.privatize(
        vector["protocol"], vector["value"], policy=_pinned(protocol), randbytes=stream.read
    )
    assert stream.tell() == len(data)
    assert record["fingerprint"] == protocol.fingerprint
    assert _same(record["report"], vector["report"], vector["rtol"])


MEMOIZED = json.loads((CLIENTS / "test_vectors.json").read_text())["memoized"]
BLOOM = json.loads((CLIENTS / "test_vectors.json").read_text())["bloom_rappor"]


@pytest.mark.parametrize("vector", BLOOM, ids=[v["name"] for v in BLOOM])
def test_library_and_client_reproduce_the_bloom_rappor_vector(vector):
    """RAPPOR with Bloom filters: the same cohorts, bits and memo from the same bytes; the
    client's hash positions are the library's; the library continues from the client's memo."""
    from ldp.mechanisms import BloomRAPPOR, bloom_positions
    from ldp.mechanisms.longitudinal.memo import Memo

    data = bytes.fromhex(vector["bytes"])
    params = vector["params"]
    mech = BloomRAPPOR(**params)
    assert mech.key == vector["key"] == ldp_client.bloom_rappor_key(params)
    stream = io.BytesIO(data)
    memos, library = None, []
    for value in vector["values"]:
        bits, cohorts, memos = mech.privatize_round([value], memos, rng=ByteSource(stream.read))
        library.append((bits[0].tolist(), int(cohorts[0])))
    assert stream.tell() == len(data)
    assert library == list(zip(vector["reports"], vector["cohorts"], strict=True))
    assert memos[0].to_dict() == vector["memo"]
    stream = io.BytesIO(data)
    memo, client = None, []
    for value in vector["values"]:
        record, memo = ldp_client.bloom_rappor_round(params, value, memo, randbytes=stream.read)
        memo = json.loads(json.dumps(memo))  # stored as JSON between rounds
        client.append((record["report"], record["cohort"]))
    assert stream.tell() == len(data) and client == library
    assert memo == vector["memo"] and Memo.from_json(json.dumps(memo)) == memos[0]
    m, h, cohort = params["num_bits"], params["num_hashes"], vector["cohorts"][0]
    for value, positions in zip(vector["values"], vector["positions"], strict=True):
        assert list(bloom_positions(value, cohort, m, h)) == positions
        assert ldp_client.bloom_positions(value, cohort, m, h) == positions


def _pinned(protocol: Protocol) -> dict:
    """A policy that pins the protocol (PrivUnit and PrivUnitG run only when pinned)."""
    return {"pinned_fingerprints": [protocol.pin], "max_delta": 0.5}


def test_the_memoized_vectors_cover_every_memoized_mechanism():
    assert {v["protocol"]["mechanism"]["name"] for v in MEMOIZED} == MEMOIZED_NAMES


@pytest.mark.parametrize("vector", MEMOIZED, ids=[v["name"] for v in MEMOIZED])
def test_library_and_client_reproduce_the_memoized_vector(vector):
    """Round after round from one byte stream: the same reports and the same final memo;
    the first round of ``privatize`` is the first round of ``privatize_round``."""
    data = bytes.fromhex(vector["bytes"])
    protocol = Protocol.from_dict(vector["protocol"])
    mechanism = protocol.mechanism
    stream = io.BytesIO(data)
    memos, library = None, []
    for value in vector["values"]:
        native, memos = mechanism.privatize_round([value], memos, rng=ByteSource(stream.read))
        library.append(mechanism.codec.to_rows(native)[0].tolist())
    assert stream.tell() == len(data) and library == vector["reports"]
    final = memos[0].to_dict()
    assert {"entries": final["entries"], "sampled": final["sampled"]} == vector["memo"]
    stream = io.BytesIO(data)
    memo, client = None, []
    for value in vector["values"]:
        record, memo = ldp_client.privatize_round(
            vector["protocol"], value, memo, randbytes=stream.read
        )
        assert record["fingerprint"] == protocol.fingerprint
        memo = json.loads(json.dumps(memo))  # stored as JSON between rounds
        client.append(record["report"])
    assert stream.tell() == len(data) and client == vector["reports"]
    assert {"entries": memo["entries"], "sampled": memo["sampled"]} == vector["memo"]
    first = ldp_client.privatize(
        vector["protocol"], vector["values"][0], randbytes=io.BytesIO(data).read
    )
    assert first["report"] == vector["reports"][0]


def test_the_client_refuses_a_foreign_or_missing_memo():
    protocol = Protocol.from_mechanism(LGRR(4, 0.5, 2.0)).to_dict()
    other = Protocol.from_mechanism(LGRR(4, 0.5, 2.5)).to_dict()
    _, memo = ldp_client.privatize_round(protocol, 1)
    with pytest.raises(ValueError, match="another mechanism"):
        ldp_client.privatize_round(other, 1, memo)
    with pytest.raises(ValueError, match="memo"):
        ldp_client.privatize_round(protocol, 1, {"entries": []})
    with pytest.raises(ValueError, match="not a memoized"):
        ldp_client.privatize_round(Protocol.from_mechanism(GRR(3, 1.0)).to_dict(), 1)


def test_the_client_needs_only_the_standard_library():
    code = (
        "import sys\n"
        "for name in ('numpy', 'scipy', 'pandas', 'sklearn', 'cvxpy', 'ldp'):\n"
        "    sys.modules[name] = None\n"
        f"sys.path.insert(0, {str(CLIENTS / 'python')!r})\n"
        "import json, ldp_client\n"
        f"vector = json.loads(open({str(CLIENTS / 'test_vectors.json')!r}).read())['vectors'][0]\n"
        "print(json.dumps(ldp_client.privatize(vector['protocol'], vector['value'])))\n"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    record = json.loads(out.stdout)
    assert set(record) == {"id", "fingerprint", "report"}
    assert re.fullmatch("[0-9a-f]{32}", record["id"])


def test_each_record_gets_a_fresh_id_from_the_os_whatever_the_random_source():
    """The id (which makes a retried upload idempotent at the collector) is 16 bytes of
    os.urandom: replaying the report's random bytes replays the report, never the id."""
    protocol = Protocol.from_mechanism(GRR(3, 1.0), labels=["a", "b", "c"]).to_dict()
    records = [ldp_client.privatize(protocol, "b", randbytes=lambda n: bytes(n)) for _ in range(50)]
    assert len({r["report"][0] for r in records}) == 1
    ids = {r["id"] for r in records}
    assert len(ids) == 50 and all(re.fullmatch("[0-9a-f]{32}", i) for i in ids)
    policy = {"max_epsilon": 2.0, "budget": {"epsilon": 10.0, "delta": 0.0, "period_days": 1}}
    record, _ = ldp_client.privatize_with_ledger(protocol, "a", "q", policy=policy)
    assert set(record) == {"id", "fingerprint", "report"} and record["id"] not in ids


def test_the_client_refuses_bad_input():
    protocol = Protocol.from_mechanism(GRR(3, 1.0), labels=["a", "b", "c"]).to_dict()
    with pytest.raises(ValueError, match="not one of") as info:
        ldp_client.privatize(protocol, "secret")
    assert "secret" not in str(info.value)
    text = json.dumps(protocol)
    with pytest.raises(ValueError, match="not valid JSON"):
        ldp_client.privatize(text[:40], "a")
    with pytest.raises(ValueError, match="version"):
        ldp_client.privatize({**protocol, "version": 3}, "a")
    with pytest.raises(ValueError, match="fingerprint"):
        ldp_client.privatize({**protocol, "question": "changed"}, "a")
    numeric = Protocol.from_mechanism(Laplace(1.0), bounds=(0, 10)).to_dict()
    for bad, error in ((11.0, ValueError), (float("nan"), ValueError), ("3", TypeError)):
        with pytest.raises(error):
            ldp_client.privatize(numeric, bad)
    with pytest.raises(ValueError, match="bytes"):
        ldp_client.privatize(protocol, "a", randbytes=lambda n: b"")


# ----------------------------------------------------------------------------- the law
def _reports(protocol: Protocol, value, count: int, seed: int) -> list:
    loaded = ldp_client.load_protocol(protocol.to_dict())
    source = random.Random(seed).randbytes
    return [ldp_client.privatize(loaded, value, randbytes=source)["report"] for _ in range(count)]


def _chi_square(observed_indices: np.ndarray, law: np.ndarray) -> float:
    """Chi-square p-value, pooling outputs of small expected count into one cell."""
    counts = np.bincount(observed_indices, minlength=law.size).astype(float)
    expected = law * counts.sum()
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    keep = expected > 0
    assert counts[~keep].sum() == 0  # an impossible output never appears
    return stats.chisquare(counts[keep], expected[keep]).pvalue


FINITE = [
    ("designed channel", optimal_channel(5, 1.0, utility="mi").channel, [0, 4]),
    ("GRR", GRR(5, 1.0), [0, 3]),
    ("SUE", SUE(4, 1.0), [1]),
    ("OUE", OUE(4, 1.5), [3]),
    ("OLH", OLH(6, 1.0), [2]),
    ("BLH", BLH(5, 1.0), [4]),
    ("LH ring", LocalHashing(3, 1.0, 6), [1]),
    ("HR", HadamardResponse(6, 1.0), [0, 5]),
    ("SS", SubsetSelection(6, 1.0), [0, 5]),
    ("Duchi d=3", Duchi(1.0, d=3), [[1.0, -1.0, 1.0]]),
]


def _output_indexer(mechanism):
    """Report -> the channel output index (the to_channel order of each mechanism)."""
    name = mechanism.name
    if name in ("Channel", "GRR", "HR"):
        return lambda report: report[0]
    if name in ("SUE", "OUE", "UE", "SS"):
        weights = 1 << np.arange(mechanism.k - 1, -1, -1)
        order = {}
        if name == "SS":
            from itertools import combinations

            for index, subset in enumerate(combinations(range(mechanism.k), mechanism.d)):
                order[int(weights[list(subset)].sum())] = index

        def packed(report):
            bits = np.unpackbits(np.array(report, dtype=np.uint8))[: mechanism.k]
            value = int(bits @ weights)
            return order[value] if order else value

        return packed
    if name in ("LH", "OLH", "BLH"):
        members = {tuple(m): i for i, m in enumerate(mechanism.hash_functions().tolist())}
        return lambda report: members[tuple(report[:-1])] * mechanism.g + report[-1]
    if name == "Duchi":
        return lambda report: int("".join("1" if s > 0 else "0" for s in report), 2)
    raise AssertionError(name)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "mechanism", "values"), FINITE, ids=[f[0] for f in FINITE])
def test_client_reports_follow_the_exact_law(name, mechanism, values):
    protocol = Protocol.from_mechanism(mechanism)
    channel = mechanism.to_channel()
    for seed, value in enumerate(values):
        reports = _reports(protocol, value, DRAWS, seed)
        indexer = _output_indexer(mechanism)
        indices = np.array([indexer(r) for r in reports])
        if name == "Duchi d=3":  # the answer is a vertex of the cube: row = its sign pattern
            row = int("".join("1" if v > 0 else "0" for v in value), 2)
        else:
            row = value
        assert _chi_square(indices, channel.matrix[row]) > P_FLOOR, (name, value)


def _piecewise_cdf(mechanism: Piecewise, x: float):
    c, width, z = mechanism.C, mechanism.width, math.exp(mechanism.epsilon / 2)
    left = (c + 1) * x / 2 - width / 2
    tail, window = 1 / ((z + 1) * (c + 1)), z / ((z + 1) * width)
    points = np.array([-c, left, left + width, c])
    masses = np.array([tail * (left + c), window * width, tail * (c - left - width)])
    cumulative = np.concatenate([[0.0], np.cumsum(masses)])
    return lambda y: np.interp(y, points, cumulative)


@pytest.mark.slow
def test_continuous_client_reports_follow_their_laws():
    # Laplace: x + Lap(2/eps), then a 2^-24-grid rounding far below the KS resolution
    lap = Laplace(1.0)
    protocol = Protocol.from_mechanism(lap)
    y = np.array(_reports(protocol, 0.25, DRAWS, 1))[:, 0]
    assert stats.kstest(y - 0.25, stats.laplace(scale=lap.scale).cdf).pvalue > P_FLOOR
    # Piecewise: its three uniform pieces
    pm = Piecewise(1.0)
    y = np.array(_reports(Protocol.from_mechanism(pm), -0.4, DRAWS, 2))[:, 0]
    assert stats.kstest(y, _piecewise_cdf(pm, -0.4)).pvalue > P_FLOOR
    # Square wave: density p within b of v, q elsewhere on [-b, 1 + b]
    sw = SquareWave(1.0)
    y = np.array(_reports(Protocol.from_mechanism(sw), 0.3, DRAWS, 3))[:, 0]
    b, p, q = sw.b, sw.p_density, sw.q_density
    points = np.array([-b, 0.3 - b, 0.3 + b, 1 + b])
    cumulative = np.concatenate([[0.0], np.cumsum([q * 0.3, p * 2 * b, q * (1 - 0.3)])])
    assert stats.kstest(y, lambda t: np.interp(t, points, cumulative)).pvalue > P_FLOOR
    # Hybrid: Duchi atoms at +-bound with mass 1 - alpha, piecewise otherwise
    hy = Hybrid(2.0)
    y = np.array(_reports(Protocol.from_mechanism(hy), 0.5, DRAWS, 4))[:, 0]
    atoms = np.abs(y) == hy.sampler()["bound"]
    assert stats.binomtest(int(atoms.sum()), y.size, 1 - hy.alpha).pvalue > P_FLOOR
    assert stats.kstest(y[~atoms], _piecewise_cdf(Piecewise(2.0), 0.5)).pvalue > P_FLOOR
    # Duchi (1-D): P(+) = 1/2 + x (e^eps - 1) / (2 (e^eps + 1))
    du = Duchi(1.0)
    y = np.array(_reports(Protocol.from_mechanism(du), 0.6, DRAWS, 5))[:, 0]
    plus = 0.5 + 0.6 * math.tanh(0.5) / 2
    assert stats.binomtest(int((y > 0).sum()), y.size, plus).pvalue > P_FLOOR
    # DuchiL2 in R^3: the component along x is uniform on [0, 1] (agreeing side) or [-1, 0]
    l2 = DuchiL2(1.0, d=3)
    x = np.array([0.3, 0.0, -0.4])
    z = np.array(_reports(Protocol.from_mechanism(l2), x.tolist(), DRAWS, 6)) / l2.bound
    assert np.allclose(np.linalg.norm(z, axis=1), 1.0)
    t = z @ (x / np.linalg.norm(x))
    e = math.exp(1.0)
    agree = (0.5 + 0.25) * e / (e + 1) + (0.5 - 0.25) / (e + 1)
    assert stats.binomtest(int((t > 0).sum()), t.size, agree).pvalue > P_FLOOR
    assert stats.kstest(np.abs(t), "uniform").pvalue > P_FLOOR
