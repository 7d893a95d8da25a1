"""The marginals protocol: the file, its privacy by brute force, records, and the estimator.

Privacy is checked against an independent derivation: the law of the report ``(G, Y_G)`` of
every row, ``P_g(y | input_g(row)) / G`` from each group's channel matrix, and the largest
likelihood ratio over all pairs of rows and all outputs, by enumeration. The estimates from
the Python client's records are checked against the truth (within 4 standard errors) and
against the estimate from the same reports bucketed by group.
"""

import copy
import hashlib
import itertools
import json
import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from estimators import MarginalEstimator
from ldp.protocol import MarginalProtocol, Protocol, load_marginals
from ldp.protocol.canonical import jcs
from ldp.tasks.marginals import build_design

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))
import ldp_client  # noqa: E402

COLUMNS = [("smoker", ["no", "yes"]), ("region", ["N", "S", "W"]), ("car", [False, True])]
SIZES = (2, 3, 2)


def _refingerprint(document: dict) -> dict:
    body = {k: v for k, v in document.items() if k != "fingerprint"}
    return {**body, "fingerprint": hashlib.sha256(jcs(body).encode()).hexdigest()[:16]}


def _report_law(protocol: MarginalProtocol, row: tuple[int, ...]) -> dict[tuple, float]:
    """``P((g, y) | row)`` by enumeration of each group's channel."""
    law = {}
    design, count = protocol.design, len(protocol.groups)
    for g, (cols, group) in enumerate(zip(design.groups, protocol.groups)):
        matrix = group.mechanism.to_channel().matrix
        if design.method == "fourier":
            x = sum(row[c] for c in cols) % 2
        else:
            sizes = protocol.design.sizes
            x = int(np.ravel_multi_index([row[c] for c in cols], [sizes[c] for c in cols]))
        for y, p in enumerate(matrix[x]):
            law[(g, y)] = p / count
    return law


@pytest.mark.parametrize(
    "method, tables, epsilon",
    [("groups", [(0, 1), (1, 2)], 1.0), ("joint", [(0, 1), (1, 2)], 0.5),
     ("fourier", [(0, 2)], 2.0), ("groups", [(0,), (0, 1, 2)], 3.0)],
)  # fmt: skip
def test_the_stated_epsilon_is_the_largest_ratio_of_the_report_law_by_enumeration(
    method, tables, epsilon
):
    sizes = (2, 2, 2) if method == "fourier" else SIZES
    columns = [(n, labels[:k]) for (n, labels), k in zip(COLUMNS, sizes)]
    protocol = MarginalProtocol.from_design(build_design(method, sizes, tables, epsilon), columns)
    rows = list(itertools.product(*[range(k) for k in sizes]))
    laws = [_report_law(protocol, row) for row in rows]
    for law in laws:
        assert abs(sum(law.values()) - 1.0) < 1e-12
    worst = max(
        a[key] / b[key] for a, b in itertools.product(laws, laws) for key in a if a[key] > 0
    )
    assert np.log(worst) <= protocol.epsilon * (1 + 1e-12)
    assert np.log(worst) == pytest.approx(epsilon, rel=1e-9)  # attained: rows differing everywhere
    device = protocol.device_privacy()
    assert device["epsilon"] <= protocol.epsilon and device["delta"] == 0.0
    assert protocol.to_dict()["privacy"] == {"epsilon": protocol.epsilon, "delta": 0.0, "tv": None}


def test_the_file_round_trips_and_pickles_and_its_fingerprint_covers_everything(tmp_path):
    design = build_design("groups", SIZES, [(0, 1), (1, 2)], 1.0)
    protocol = MarginalProtocol.from_design(design, COLUMNS, question="Smoker? Region? Car?")
    assert MarginalProtocol.from_json(protocol.to_json()) == protocol
    assert pickle.loads(pickle.dumps(protocol)) == protocol
    path = tmp_path / "m.json"
    protocol.save(path)
    assert load_marginals(path) == protocol and load_marginals(path).design == design
    other = MarginalProtocol.from_design(design, COLUMNS, question="another")
    assert other.fingerprint != protocol.fingerprint
    assert protocol.question == "Smoker? Region? Car?"
    assert [g.mechanism.name for g in protocol.groups] == ["GRR", "GRR"]
    with pytest.raises(AttributeError, match="immutable"):
        protocol.design = design  # type: ignore[misc]


def _edits():
    def group_keep(d):
        group = d["sampler"]["groups"][0]
        group["protocol"]["sampler"]["keep"] = [1.0, 0.0]
        group["protocol"] = _refingerprint(group["protocol"])

    return [
        ("lower epsilon", lambda d: d["privacy"].update(epsilon=0.5), "not the one its design"),
        ("leaky group", group_keep, "sampler section does not match its mechanism"),
        ("columns swapped", lambda d: d["sampler"]["groups"][0].update(columns=[1, 0]),
         "not the one its design"),
        ("no params", lambda d: d["mechanism"].update(params={}), "malformed"),
        ("unknown method", lambda d: d["mechanism"]["params"].update(method="x"), "malformed"),
    ]  # fmt: skip


@pytest.mark.parametrize("name, edit, match", _edits(), ids=[e[0] for e in _edits()])
def test_the_library_refuses_an_edited_file(name, edit, match):
    protocol = MarginalProtocol.from_design(
        build_design("groups", SIZES, [(0, 1), (1, 2)], 1.0), COLUMNS
    )
    document = copy.deepcopy(protocol.to_dict())
    edit(document)
    with pytest.raises(ValueError, match=match):
        MarginalProtocol.from_dict(_refingerprint(document))
    with pytest.raises(ValueError, match="fingerprint does not match"):
        MarginalProtocol.from_dict({**document, "fingerprint": protocol.fingerprint})


def test_bad_input_gives_one_line_errors():
    design = build_design("groups", SIZES, [(0, 1)], 1.0)
    with pytest.raises(ValueError, match="design's 3 columns"):
        MarginalProtocol.from_design(design, COLUMNS[:2])
    with pytest.raises(ValueError, match="'region' has 2 categories; the design has 3"):
        MarginalProtocol.from_design(design, [COLUMNS[0], ("region", ["N", "S"]), COLUMNS[2]])
    with pytest.raises(TypeError, match="design must be a MarginalDesign"):
        MarginalProtocol.from_design("groups", COLUMNS)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="strings, finite numbers or booleans"):
        MarginalProtocol.from_design(design, [("smoker", [None, 1]), *COLUMNS[1:]])
    one = build_design("groups", (1, 3), [(0,), (0, 1)], 1.0)
    with pytest.raises(ValueError, match=r"\['a'\] has a single cell"):
        MarginalProtocol.from_design(one, [("a", ["only"]), ("b", [1, 2, 3])])
    protocol = MarginalProtocol.from_design(design, COLUMNS)
    with pytest.raises(ValueError, match="load_marginals"):
        Protocol.from_dict(protocol.to_dict())
    with pytest.raises(TypeError, match="JSON object"):
        MarginalProtocol.from_dict([1])


def _records_of(protocol: MarginalProtocol, frame: pd.DataFrame, seed: int) -> list[dict]:
    """Records made by the Python client (seeded bytes: simulation only)."""
    checked = ldp_client.load_protocol(protocol.to_json())
    rng = np.random.default_rng(seed)
    return [
        ldp_client.privatize(checked, row, randbytes=rng.bytes)
        for row in frame.to_dict(orient="records")
    ]


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    smoker = rng.random(n) < 0.3
    region = np.where(smoker, rng.integers(0, 2, n), rng.integers(0, 3, n))
    car = rng.random(n) < np.where(region == 2, 0.8, 0.4)
    return pd.DataFrame(
        {
            "smoker": np.array(["no", "yes"])[smoker.astype(int)],
            "region": np.array(["N", "S", "W"])[region],
            "car": car,
        }
    )


CATEGORIES = dict(COLUMNS)


@pytest.mark.parametrize("method", ["groups", "joint"])
def test_estimates_from_client_records_are_within_four_standard_errors_of_the_truth(method):
    frame = _table(6000, 1)
    est = MarginalEstimator(
        2.0, categories=CATEGORIES, marginals=[("smoker", "region"), ("region", "car")],
        method=method, consistency=False,
    )  # fmt: skip
    protocol = est.device_protocol(question="Smoker? Region? Car?")
    records = json.loads(json.dumps(_records_of(protocol, frame, 2)))  # as sent
    est.fit_reports(records, protocol)
    assert est.n_rows_ == len(frame) and est.n_reports_.sum() == len(frame)
    for table in est.tables_:
        truth = (
            frame.groupby(list(table)).size().reindex(
                pd.MultiIndex.from_product([CATEGORIES[c] for c in table]), fill_value=0
            ).to_numpy() / len(frame)
        )  # fmt: skip
        got = est.marginal(list(table))
        z = np.abs(got["unbiased"].to_numpy() - truth) / got["std"].to_numpy()
        assert z.max() < 4, (table, z)
    # the same reports bucketed by group give the same estimate
    buckets = protocol.read_records(records)
    again = MarginalEstimator(**est.get_params()).fit_reports(buckets)
    for table in est.tables_:
        assert np.array_equal(again.unbiased_[table], est.unbiased_[table])
    assert "one report" in est.privacy_


def test_fourier_design_deploys_and_decodes():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 4000)
    frame = pd.DataFrame({"a": a, "b": (a + (rng.random(4000) < 0.1)) % 2})
    est = MarginalEstimator(2.0, categories={"a": [0, 1], "b": [0, 1]}, method="fourier",
                            marginals=[("a", "b")], consistency=False)  # fmt: skip
    protocol = est.device_protocol()
    assert {g["input"] for g in protocol.to_dict()["sampler"]["groups"]} == {"parity"}
    est.fit_reports(_records_of(protocol, frame, 4))
    truth = frame.groupby(["a", "b"]).size().to_numpy() / len(frame)
    got = est.marginal(["a", "b"])
    assert np.all(np.abs(got["unbiased"] - truth) < 4 * got["std"])


def test_records_are_checked_and_round_trip_through_a_file(tmp_path):
    est = MarginalEstimator(1.0, categories=CATEGORIES, method="groups")
    protocol = est.device_protocol()
    records = protocol.records([np.zeros(300, int), np.full(300, 2), np.ones(300, int)], rng=5)
    path = tmp_path / "reports.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    from_file = protocol.read_records(path)
    from_list = protocol.read_records(records)
    assert all(np.array_equal(a, b) for a, b in zip(from_file, from_list))
    assert sum(len(b) for b in from_list) == 300
    fitted = MarginalEstimator(1.0, categories=CATEGORIES, method="groups").fit_reports(path)
    assert fitted.n_rows_ == 300
    bad = [
        ({**records[0], "fingerprint": "0" * 16}, "fingerprint '0000000000000000'"),
        ({**records[0], "report": [7, 0]}, "group index in 0 .. 2"),
        ({**records[0], "report": [True, 0]}, "group index"),
        ({**records[0], "report": [float("inf"), 0]}, "record 1: the report must start"),
        ({**records[0], "report": [float("nan"), 0]}, "record 1: the report must start"),
        ({**records[0], "report": [0.5, 0]}, "group index"),
        ({**records[0], "report": []}, "group index"),
        ({**records[0], "report": "0"}, "group index"),
        ({**records[0], "report": [0, 99]}, "group 0"),
        ({**records[0], "extra": 1}, "a client record is an object"),
    ]
    for record, match in bad:
        with pytest.raises(ValueError, match=match):
            protocol.read_records([records[1], record])
    with pytest.raises(TypeError, match="list of client records"):
        protocol.read_records(42)
    other = MarginalEstimator(1.5, categories=CATEGORIES, method="groups").device_protocol()
    with pytest.raises(ValueError, match="is not this estimator's"):
        MarginalEstimator(1.0, categories=CATEGORIES, method="groups").fit_reports(records, other)
    with pytest.raises(ValueError, match="fingerprint"):
        MarginalEstimator(1.5, categories=CATEGORIES, method="groups").fit_reports(records)


def test_partial_fit_reports_adds_records():
    est = MarginalEstimator(1.0, categories=CATEGORIES, method="joint")
    protocol = est.device_protocol()
    codes = [np.zeros(200, int), np.full(200, 1), np.ones(200, int)]
    first, second = protocol.records(codes, rng=6), protocol.records(codes, rng=7)
    est.partial_fit_reports(first)
    est.partial_fit_reports(second, protocol)
    whole = MarginalEstimator(1.0, categories=CATEGORIES, method="joint").fit_reports(
        first + second
    )
    assert est.n_rows_ == 400
    for table in est.tables_:
        assert np.allclose(est.unbiased_[table], whole.unbiased_[table])


def test_device_protocol_needs_declared_columns():
    with pytest.raises(ValueError, match="declared"):
        MarginalEstimator(1.0).device_protocol()


def test_a_group_with_a_non_default_oracle_runs_end_to_end_through_the_python_client(tmp_path):
    """``candidates`` with subset selection: the file is written, read back, pickled, run by
    the Python client row by row, and its records decoded to the truth (4 standard errors
    per cell) and to the estimate of the same reports bucketed by group."""
    cats = {"a": list(range(4)), "b": ["x", "y", "z", "w"]}
    params = {"marginals": [("a", "b")], "method": "groups", "candidates": ("GRR", "SS")}
    server = MarginalEstimator(1.0, categories=cats, **params)
    protocol = server.device_protocol(question="a and b?")
    assert [g.mechanism.name for g in protocol.groups] == ["SS"]
    assert protocol.device_privacy()["epsilon"] == pytest.approx(1.0, rel=1e-12)
    path = tmp_path / "ss.json"
    protocol.save(path)
    assert load_marginals(path) == protocol and pickle.loads(pickle.dumps(protocol)) == protocol
    default = MarginalEstimator(1.0, categories=cats, **{**params, "candidates": ("GRR",)})
    with pytest.raises(ValueError, match="is not this estimator's"):
        default.fit_reports([], path)
    rng = np.random.default_rng(31)
    joint = rng.dirichlet(np.full(16, 2.0))
    cells = rng.choice(16, size=6_000, p=joint)
    checked = ldp_client.load_protocol(path.read_text())
    records = [
        ldp_client.privatize(checked, [int(c // 4), cats["b"][c % 4]], randbytes=rng.bytes)
        for c in cells
    ]
    table = server.fit_reports(records, path).marginal(["a", "b"])
    assert np.all(np.abs(table.unbiased.to_numpy() - joint) < 4 * table["std"].to_numpy())
    buckets = protocol.read_records(records)
    again = MarginalEstimator(1.0, categories=cats, **params).fit_reports(buckets)
    assert np.array_equal(again.unbiased_[("a", "b")], table.unbiased.to_numpy())
