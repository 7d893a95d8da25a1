"""The Python client on marginals protocols: the vectors, the law of its draws, its refusals.

A marginals file lists a table's columns and the groups of a collection design; the client
draws one group uniformly (an exact integer draw), privatizes the group's cell (or parity
bit) with the group's protocol and sends ``[group, fields...]``. The vectors pin the bytes;
the law is checked by a seeded chi-square test against the exact law of ``(G, Y_G)``,
``P(g, y | row) = P_g(y | input_g(row)) / G`` built from each group's GRR matrix.
"""

import io
import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ldp._random import ByteSource
from ldp.protocol import MarginalProtocol
from ldp.tasks.marginals import build_design

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
P_FLOOR = 1e-4

sys.path.insert(0, str(CLIENTS / "python"))
import ldp_client  # noqa: E402

VECTORS = json.loads((CLIENTS / "test_vectors.json").read_text())["marginals"]
COLUMNS = [("smoker", ["no", "yes"]), ("region", ["N", "S", "W"]), ("car", [False, True])]


def _codes(protocol: MarginalProtocol, row: dict) -> list[int]:
    return [labels.index(row[name]) for name, labels in protocol.columns]


def test_the_vectors_cover_every_design():
    methods = {v["protocol"]["mechanism"]["params"]["method"] for v in VECTORS}
    assert methods == {"joint", "groups", "fourier"}
    oracles = {
        g["protocol"]["mechanism"]["name"]
        for v in VECTORS
        for g in v["protocol"]["sampler"]["groups"]
    }
    assert oracles == {"grr", "oue"}
    assert len({v["report"][0] for v in VECTORS}) > 3  # several groups drawn


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_library_and_client_reproduce_the_marginal_vector(vector):
    data = bytes.fromhex(vector["bytes"])
    protocol = MarginalProtocol.from_dict(vector["protocol"])
    stream = io.BytesIO(data)
    library = protocol.privatize_row(_codes(protocol, vector["value"]), rng=ByteSource(stream.read))
    assert stream.tell() == len(data) and library == vector["report"]
    stream = io.BytesIO(data)
    record = ldp_client.privatize(vector["protocol"], vector["value"], randbytes=stream.read)
    assert stream.tell() == len(data)
    assert record["fingerprint"] == protocol.fingerprint and record["report"] == vector["report"]
    in_order = [vector["value"][name] for name, _ in protocol.columns]  # the same answer
    stream = io.BytesIO(data)
    again = ldp_client.privatize(vector["protocol"], in_order, randbytes=stream.read)
    assert again["report"] == vector["report"]


def _exact_law(protocol: MarginalProtocol, codes: list[int]) -> dict[tuple[int, int], float]:
    """``P(g, y)`` from each group's GRR parameters (independent of the client's code)."""
    out = {}
    sizes = [len(labels) for _, labels in protocol.columns]
    count = len(protocol.groups)
    for g, (cols, group) in enumerate(zip(protocol.design.groups, protocol.groups)):
        k = group.k
        cell = int(np.ravel_multi_index([codes[c] for c in cols], [sizes[c] for c in cols]))
        e = np.exp(group.mechanism.epsilon)
        for y in range(k):
            out[(g, y)] = (e if y == cell else 1.0) / (e + k - 1) / count
    return out


@pytest.mark.parametrize("row", [["yes", "S", True], ["no", "W", False]])
def test_client_reports_follow_the_exact_law_of_group_and_report(row):
    design = build_design("groups", (2, 3, 2), [(0, 1), (1, 2), (0, 2)], 1.0)
    protocol = MarginalProtocol.from_design(design, COLUMNS)
    assert all(g.mechanism.name == "GRR" for g in protocol.groups)
    law = _exact_law(protocol, _codes(protocol, dict(zip(["smoker", "region", "car"], row))))
    assert abs(sum(law.values()) - 1.0) < 1e-12
    rng = np.random.default_rng(20)
    text = protocol.to_json()
    checked = ldp_client.load_protocol(text)
    counts = dict.fromkeys(law, 0)
    for _ in range(20_000):
        report = ldp_client.privatize(checked, row, randbytes=rng.bytes)["report"]
        counts[tuple(report)] += 1
    keys = sorted(law)
    observed = np.array([counts[k] for k in keys])
    expected = np.array([law[k] for k in keys]) * observed.sum()
    assert stats.chisquare(observed, expected).pvalue > P_FLOOR


def test_the_client_computes_the_largest_group_epsilon_and_refuses_a_lower_statement():
    design = build_design("groups", (2, 3, 2), [(0, 1), (1, 2)], 0.7)
    protocol = MarginalProtocol.from_design(design, COLUMNS)
    privacy = ldp_client.verify(protocol.to_json())
    each = [ldp_client.verify(g.to_json())["epsilon"] for g in protocol.groups]
    assert privacy["mechanism"] == "marginals" and privacy["groups"] == 2
    assert privacy["epsilon"] == max(each) and abs(privacy["epsilon"] - 0.7) < 1e-12
    assert privacy["delta"] == 0.0
    with pytest.raises(ValueError, match="above the app's max_epsilon"):
        ldp_client.verify(protocol.to_json(), {"max_epsilon": 0.5})


def test_the_client_refuses_bad_rows_before_drawing():
    protocol = MarginalProtocol.from_design(
        build_design("groups", (2, 3, 2), [(0, 1)], 1.0), COLUMNS
    ).to_json()
    calls = []

    def source(n):
        calls.append(n)
        return bytes(n)

    for row, match in [
        ({"smoker": "yes", "region": "S"}, "exactly the protocol's 3 columns"),
        ({"smoker": "yes", "region": "X", "car": True}, "column 'region'"),
        (["yes", "S"], "dict or list of 3"),
        ("yes", "dict or list of 3"),
        ({"smoker": "yes", "region": "S", "car": 1}, "column 'car'"),  # 1 is not True
    ]:
        with pytest.raises(ValueError, match=match) as caught:
            ldp_client.privatize(protocol, row, randbytes=source)
        assert "X" not in str(caught.value).replace("X'", "")  # the answer is not echoed
    assert calls == []


def test_the_group_draw_is_uniform_whatever_the_row():
    """Every group is drawn with probability 1/G: a seeded chi-square test over 6 groups."""
    design = build_design("fourier", (2, 2, 2), [(0, 1, 2)], 1.0)
    protocol = MarginalProtocol.from_design(design, [("a", [0, 1]), ("b", [0, 1]), ("c", [0, 1])])
    checked = ldp_client.load_protocol(protocol.to_json())
    count = len(protocol.groups)
    assert count == 7
    rng = np.random.default_rng(21)
    groups = np.zeros(count)
    for row in itertools.islice(itertools.cycle([[0, 0, 0], [1, 1, 1], [1, 0, 1]]), 14_000):
        groups[ldp_client.privatize(checked, row, randbytes=rng.bytes)["report"][0]] += 1
    assert stats.chisquare(groups).pvalue > P_FLOOR
