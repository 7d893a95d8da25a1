"""The JavaScript client against the Python client, and the law of its reports.

``node --test clients/js/`` reproduces every vector of ``clients/test_vectors.json`` and
checks the client's errors. Here the JavaScript client (run by Node) and the Python client
(``clients/python/ldp_client.py``, the reference) are given the same inputs and must give the
same outputs: ``verify`` returns bit-identical numbers for every registered mechanism, with
and without policies; version-1 files (``tests/data/protocol_v1.json``) and hostile edits of
honest files (re-fingerprinted, as an attacker would) are accepted or refused alike, with the
same message; the same bytes give the same reports; a ledger or memo written by either client
is continued by the other with the results of either alone. Finally the client privatizes
``DRAWS`` answers with its default source (``crypto.getRandomValues``) and the counts of its
reports pass a chi-square test against the mechanism's exact channel row (each fails by
chance with probability below ``P_FLOOR``).
"""

import copy
import hashlib
import io
import json
import math
import random
import re
import shutil
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ldp.design import optimal_channel
from ldp.mechanisms import GRR, LGRR, OUE, Laplace, SubsetSelection
from ldp.mechanisms.registry import REGISTRY, example
from ldp.protocol import Protocol

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "js" / "ldp_client.mjs"
NODE = shutil.which("node")
P_FLOOR = 1e-4
DRAWS = 100_000
V1_FIXTURES = json.loads((ROOT / "tests" / "data" / "protocol_v1.json").read_text())["protocols"]

sys.path.insert(0, str(ROOT / "clients" / "python"))
import ldp_client  # noqa: E402

pytestmark = pytest.mark.skipif(NODE is None, reason="node (Node.js >= 18) is not on PATH")

#: Reads a JSON list of jobs on stdin, runs each with the JavaScript client and prints, per
#: job, ``{"ok": result}`` or ``{"error": [class, message]}`` (non-finite numbers as
#: ``{"nonfinite": "Infinity"}``, since JSON has none).
HARNESS = f"""
import * as client from {json.dumps(CLIENT.as_uri())};
let input = "";
for await (const chunk of process.stdin) input += chunk;
function source(hex) {{
  const data = Uint8Array.from(Buffer.from(hex ?? "", "hex"));
  let at = 0;
  const randbytes = (n) => {{
    const out = data.subarray(at, at + n);
    at += out.length;
    return out;
  }};
  return {{ randbytes, used: () => at }};
}}
// a record's id is 16 fresh random bytes of the platform's, never of the job's: compared as
// "32 lower-case hex digits" (the Python side does the same)
function idChecked(record) {{
  return {{ ...record, id: /^[0-9a-f]{{32}}$/.test(record.id) }};
}}
function run(job) {{
  const s = source(job.bytes);
  const policy = job.policy ?? undefined;
  switch (job.call) {{
    case "verify":
      return client.verify(job.protocol, policy);
    case "privatize": {{
      const options = {{ policy, randbytes: s.randbytes }};
      const record = client.privatize(job.protocol, job.value, options);
      return {{ ...idChecked(record), used: s.used() }};
    }}
    case "privatize_round": {{
      const out = client.privatizeRound(job.protocol, job.value,
        {{ memo: job.memo ?? undefined, policy, randbytes: s.randbytes }});
      return {{ ...out, record: idChecked(out.record), used: s.used() }};
    }}
    case "privatize_with_ledger": {{
      const out = client.privatizeWithLedger(job.protocol, job.value, job.question,
        {{ ledger: job.ledger ?? undefined, policy, now: job.now, randbytes: s.randbytes }});
      const record = idChecked(out.record);
      return {{ ...out, record, used: s.used(), stored: JSON.stringify(out.ledger) }};
    }}
    case "mechanism_key":
      return client.mechanismKey(job.protocol);
  }}
  throw new Error(`unknown call ${{job.call}}`);
}}
const results = JSON.parse(input).map((job) => {{
  try {{
    return {{ ok: run(job) }};
  }} catch (error) {{
    return {{ error: [error.constructor.name, error.message] }};
  }}
}});
console.log(JSON.stringify(results, (key, value) =>
  typeof value === "number" && !Number.isFinite(value) ? {{ nonfinite: String(value) }} : value));
"""


def _js(jobs: list[dict]) -> list[dict]:
    """The JavaScript client's results for ``jobs`` (one Node process), as JSON values."""
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", HARNESS],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout)


def _id_checked(record: dict) -> dict:
    """``record`` with its id replaced by whether it is 32 lower-case hex digits (ids are
    fresh random bytes, so the two clients' never agree)."""
    return {**record, "id": re.fullmatch("[0-9a-f]{32}", record["id"]) is not None}


def _py(job: dict) -> dict:
    """The Python client's result for one job, in the harness's form (as JSON values)."""
    stream = io.BytesIO(bytes.fromhex(job.get("bytes", "")))
    policy = job.get("policy")
    call = job["call"]
    try:
        if call == "verify":
            out = ldp_client.verify(job["protocol"], policy)
        elif call == "privatize":
            record = ldp_client.privatize(job["protocol"], job["value"], policy, stream.read)
            out = {**_id_checked(record), "used": stream.tell()}
        elif call == "privatize_round":
            record, memo = ldp_client.privatize_round(
                job["protocol"], job["value"], job.get("memo"), policy, stream.read
            )
            out = {"record": _id_checked(record), "memo": memo, "used": stream.tell()}
        elif call == "privatize_with_ledger":
            record, ledger = ldp_client.privatize_with_ledger(
                job["protocol"],
                job["value"],
                job["question"],
                job.get("ledger"),
                policy,
                job["now"],
                stream.read,
            )
            out = {
                "record": _id_checked(record),
                "ledger": ledger,
                "used": stream.tell(),
                "stored": json.dumps(ledger),
            }
        else:
            out = ldp_client.mechanism_key(job["protocol"])
    except ValueError as exc:
        return {"error": ["RangeError", str(exc)]}
    except TypeError as exc:
        return {"error": ["TypeError", str(exc)]}
    except Exception as exc:  # shown in the comparison, never expected
        return {"error": [f"Python {type(exc).__name__}", str(exc)]}
    return {"ok": json.loads(json.dumps(out))}


def _normal(value):
    """Every number as the hex of its double (bit for bit; 1 and 1.0 alike); the stored
    text of a ledger (whose numbers each language writes its own way) left out."""
    if isinstance(value, dict):
        if set(value) == {"nonfinite"}:
            return float(value["nonfinite"].replace("Infinity", "inf")).hex()
        return {key: _normal(item) for key, item in value.items() if key != "stored"}
    if isinstance(value, list):
        return [_normal(item) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    return float(value).hex()


#: The one message that names a language's own type.
WORDING = {
    "protocol must be an object or its JSON text": "protocol must be a dict or its JSON text"
}


#: Python's reader adds where the text stopped being JSON; the JavaScript reader does not.
NOT_JSON = "the protocol is not valid JSON (truncated?)"


def _both(jobs: list[dict]) -> list[tuple[dict, dict]]:
    """Each job's results from both clients, numbers normalized."""
    out = []
    for js, job in zip(_js(jobs), jobs, strict=True):
        if "error" in js:
            js["error"][1] = WORDING.get(js["error"][1], js["error"][1])
        py = _py(job)
        if "error" in py and py["error"][1].startswith(NOT_JSON + ": "):
            py["error"][1] = NOT_JSON
        out.append((_normal(js), _normal(py)))
    return out


def _assert_same(jobs, names):
    differences = [
        f"{name}:\n  js {js}\n  py {py}"
        for name, (js, py) in zip(names, _both(jobs), strict=True)
        if js != py
    ]
    assert not differences, "\n".join(differences)


def test_node_tests_pass():
    result = subprocess.run(
        [NODE, "--test", "clients/js/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
    assert "# pass " in result.stdout and "# pass 0\n" not in result.stdout


# ----------------------------------------------------------------------------- protocols
def _document(name: str) -> dict:
    """The version-2 protocol document of the registry's example of ``name``."""
    mechanism = example(name)
    try:
        protocol = Protocol.from_mechanism(mechanism, delta=1e-6 if name == "gaussian" else 0.0)
    except ValueError as exc:
        if name in ("Piecewise", "Hybrid") and "width be C - 1" in str(exc):
            pytest.skip(
                f"{name} protocols do not build yet: their constants must have width = C - 1 "
                "exactly (fixed on another branch; the device refuses them meanwhile)"
            )
        raise
    return protocol.to_dict()


def _fingerprinted(document: dict) -> dict:
    """``document`` with the version-2 fingerprint of its content, as anyone can compute it."""
    body = {key: value for key, value in document.items() if key != "fingerprint"}
    digest = hashlib.sha256(ldp_client.canonical_json(body).encode("utf-8")).hexdigest()
    return {**body, "fingerprint": digest[:16]}


def _pin(document: dict) -> str:
    body = {key: value for key, value in document.items() if key != "fingerprint"}
    return hashlib.sha256(ldp_client.canonical_json(body).encode("utf-8")).hexdigest()


def _answer(document: dict):
    """A valid answer of the document's domain."""
    domain = document["domain"]
    if domain["type"] == "categorical":
        return domain["labels"][-1] if domain["labels"] else domain["k"] - 1
    if domain["type"] == "interval":
        middle = (domain["low"] + domain["high"]) / 2
        return middle if domain["dimension"] == 1 else [middle] * domain["dimension"]
    if domain["type"] == "ball":
        return [domain["radius"] / (2 * domain["dimension"])] * domain["dimension"]
    return "café"


def _uncertified(document: dict) -> bool:
    return ldp_client.V1_NAMES.get(
        document["mechanism"]["name"], document["mechanism"]["name"]
    ) in (
        "privunit",
        "privunitg",
    )


# ----------------------------------------------------------------------------- verify
@pytest.mark.parametrize("name", list(REGISTRY))
def test_verify_is_bit_identical_for_every_registered_mechanism(name):
    document = _document(name)
    text = json.dumps(document)
    pins = [document["fingerprint"]]
    policies = [
        None,
        {"max_epsilon": 100, "max_delta": 1e-5, "pinned_fingerprints": pins},
        {"max_epsilon": 0.5},
        {"max_epsilon": 2.5, "max_delta": 1e-7},
        {"pinned_fingerprints": [_pin(document)]},
        {"pinned_fingerprints": ["0" * 16]},
        {"max_epsilon": 3, "budget": {"epsilon": 4, "period_days": 1}},
        {"max_epsilon": -1},
        {"unknown": 1},
    ]
    jobs, names = [], []
    for form, protocol in (("text", text), ("object", document)):
        for policy in policies:
            jobs.append({"call": "verify", "protocol": protocol, "policy": policy})
            names.append(f"{form} {policy}")
    _assert_same(jobs, names)
    # the device's number: the library's (rounded up), to 1e-12 relative
    info = _js(
        [
            {
                "call": "verify",
                "protocol": text,
                "policy": {"pinned_fingerprints": pins, "max_epsilon": 1e9, "max_delta": 1},
            }
        ]
    )
    epsilon = info[0]["ok"]["epsilon"]
    stated = document["privacy"]["epsilon"]
    assert epsilon <= stated and math.isclose(epsilon, stated, rel_tol=1e-12), (epsilon, stated)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_reports_from_the_same_bytes_are_the_same(name):
    document = _document(name)
    policy = {"pinned_fingerprints": [document["fingerprint"]], "max_epsilon": 1e9, "max_delta": 1}
    jobs = []
    for seed in range(5):
        data = random.Random(seed).randbytes(1 << 14).hex()
        call = (
            "privatize_round"
            if ldp_client.load_protocol(document).mechanism_id
            in ("l-grr", "l-osue", "l-oue", "rappor", "dbitflip-pm")
            else "privatize"
        )
        jobs.append(
            {
                "call": call,
                "protocol": json.dumps(document),
                "value": _answer(document),
                "policy": policy,
                "bytes": data,
            }
        )
    for js, py in _both(jobs):
        assert "ok" in js and "ok" in py, (js, py)
        if name in ("DuchiL2", "privunit", "privunitg"):  # libm's cos and log1p: last bit
            js_report = [float.fromhex(v) for v in js["ok"]["report"]]
            py_report = [float.fromhex(v) for v in py["ok"]["report"]]
            assert np.allclose(js_report, py_report, rtol=1e-12, atol=0)
            assert js["ok"]["used"] == py["ok"]["used"]
        else:
            assert js == py


# ----------------------------------------------------------------------------- version 1
def test_version_1_files_are_read_alike():
    """Every fixture of format version 1 (as the last release wrote it): the same privacy or
    the same refusal from its text; the same report from the same bytes."""
    jobs, names = [], []
    for index, fixture in enumerate(V1_FIXTURES):
        document = fixture["protocol"]
        text = json.dumps(document)
        policy = (
            {"pinned_fingerprints": [document["fingerprint"]]} if _uncertified(document) else None
        )
        jobs.append({"call": "verify", "protocol": text, "policy": policy})
        names.append(f"verify {fixture['name']}")
        jobs.append({"call": "verify", "protocol": text, "policy": {"max_epsilon": 1.5}})
        names.append(f"verify with a policy {fixture['name']}")
        jobs.append({"call": "mechanism_key", "protocol": text})
        names.append(f"mechanism key {fixture['name']}")
        if not _uncertified(document) and document["mechanism"]["name"] != "DuchiL2":
            data = random.Random(index).randbytes(1 << 13).hex()
            call = (
                "privatize_round"
                if document["mechanism"]["name"]
                in ("l-grr", "l-osue", "l-oue", "rappor", "dbitflip-pm")
                else "privatize"
            )
            jobs.append({"call": call, "protocol": text, "value": _answer(document), "bytes": data})
            names.append(f"privatize {fixture['name']}")
    _assert_same(jobs, names)
    results = _js(jobs[::3])
    accepted = sum("ok" in result for result in results)
    assert accepted >= len(V1_FIXTURES) - 3, results  # all but Piecewise (2) and Hybrid (1)


def test_a_version_1_object_needs_its_text_in_javascript():
    document = V1_FIXTURES[3]["protocol"]  # GRR
    js, py = _both([{"call": "verify", "protocol": document}])[0]
    assert "ok" in py  # Python reads a dict: its ints and floats are told apart
    assert js["error"][0] == "TypeError"
    assert "must be given as its JSON text" in js["error"][1]


# ----------------------------------------------------------------------------- hostile files
def _honest() -> dict[str, dict]:
    def make(mechanism, **kwargs):
        return Protocol.from_mechanism(mechanism, **kwargs).to_dict()

    return {
        "grr": make(GRR(4, 1.0), labels=["a", "b", "c", "d"], question="Which?"),
        "channel": make(optimal_channel(5, 1.0, utility="mi").channel),
        "oue": make(OUE(6, 1.0)),
        "laplace": make(Laplace(1.0), bounds=(0, 120)),
        "l-grr": make(LGRR(4, 0.5, 2.0)),
        "cms": make(example("cms")),
        "hr": make(example("HR")),
        "ss": make(example("SS")),
        "olh": make(example("OLH")),
        "duchi": make(example("Duchi")),
        "staircase": make(example("staircase")),
        "gaussian": make(example("gaussian"), delta=1e-6),
        "rappor": make(example("rappor")),
        "dbitflip": make(example("dbitflip-pm")),
        "square-wave": make(example("SquareWave")),
        "hcms": make(example("hcms")),
        "privunit": make(example("privunit")),
    }


def _hostile() -> list[tuple[str, dict]]:
    """Edits of honest files an attacker could publish, each with a valid fingerprint."""
    honest = _honest()
    out = []

    def edit(name, base, change):
        document = copy.deepcopy(honest[base])
        change(document)
        out.append((name, _fingerprinted(document)))

    def setter(path, value):
        def change(document):
            *parents, last = path.split(".")
            target = document
            for part in parents:
                target = target[part]
            target[last] = value

        return change

    edit("GRR keep = [1, 0]", "grr", setter("sampler.keep", [1, 0]))
    edit("GRR keep = [e^50, 3]", "grr", setter("sampler.keep", [math.exp(50), 3]))
    edit("GRR epsilon stated 100 times too small", "grr", setter("privacy.epsilon", 0.01))
    edit("GRR with an extra label", "grr", setter("domain.labels", ["a", "b", "c", "d", "e"]))
    edit(
        "channel replaced by the identity",
        "channel",
        setter("mechanism.params.matrix", np.eye(5).tolist()),
    )
    edit("channel epsilon 100 times too small", "channel", setter("privacy.epsilon", 0.01))
    edit(
        "OUE that sends the one-hot vector",
        "oue",
        lambda d: d["sampler"].update(own=[1, 0], other=[0, 1]),
    )
    edit("Laplace scale = 1e-12", "laplace", setter("sampler.scale", 1e-12))
    edit("Laplace scale = 5e-324", "laplace", setter("sampler.scale", 5e-324))
    edit("Laplace epsilon 100 times too small", "laplace", setter("privacy.epsilon", 0.01))
    edit(
        "L-GRR rounds [1, 0]",
        "l-grr",
        lambda d: d["sampler"].update(permanent=[1, 0], instant=[1, 0]),
    )
    edit(
        "CMS that reveals the hashed item",
        "cms",
        lambda d: d["sampler"].update(own=[1, 0], other=[0, 1]),
    )
    edit("HR that always lands inside", "hr", setter("sampler.keep", [1, 0]))
    edit("HR with K not a power of two", "hr", setter("sampler.K", 12))
    edit("SS that always includes x", "ss", setter("sampler.include", [1, 0]))
    edit("SS with d = k", "ss", lambda d: d["sampler"].update(d=d["mechanism"]["params"]["k"]))
    edit("OLH keep [1, 0]", "olh", setter("sampler.keep", [1, 0]))
    edit("OLH with an unknown hash family", "olh", setter("sampler.hash.family", "xor"))
    edit("Duchi keep [1, 0]", "duchi", setter("sampler.keep", [1, 0]))
    edit("staircase b = 1", "staircase", setter("sampler.b", 1.0))
    edit("staircase gamma = 1 with mass elsewhere", "staircase", setter("sampler.gamma", 1.0))
    edit(
        "gaussian sigma halved",
        "gaussian",
        lambda d: d["sampler"].update(sigma=d["sampler"]["sigma"] / 2),
    )
    edit("gaussian stated as pure", "gaussian", setter("privacy.delta", 0.0))
    edit("gaussian epsilon 1e9", "gaussian", setter("privacy.epsilon", 1e9))
    edit(
        "RAPPOR reports the permanent bits",
        "rappor",
        lambda d: d["sampler"].update(one=[1, 0], zero=[0, 1], own=[1, 0], other=[0, 1]),
    )
    edit(
        "dBitFlipPM own [1, 0] other [0, 1]",
        "dbitflip",
        lambda d: d["sampler"].update(own=[1, 0], other=[0, 1]),
    )
    edit("square wave keep [1, 0]", "square-wave", setter("sampler.keep", [1, 0]))
    edit("HCMS with width 3", "hcms", lambda d: d["mechanism"]["params"].update(width=3))
    edit("PrivUnit, unpinned, gamma 2", "privunit", setter("sampler.gamma", 2.0))
    edit("version 3", "grr", setter("version", 3))
    edit("version '2'", "grr", setter("version", "2"))
    edit("a version-1 name in version 2", "grr", setter("mechanism.name", "GRR"))
    edit("an unknown mechanism", "grr", setter("mechanism.name", "magic"))
    edit("k as a float", "grr", setter("mechanism.params.k", 4.5))
    edit("negative epsilon", "grr", setter("privacy.epsilon", -1.0))
    edit("no sampler", "grr", lambda d: d.pop("sampler"))
    edit("a string where a number goes", "laplace", setter("sampler.scale", "1"))
    out.append(("a question changed, fingerprint kept", {**honest["grr"], "question": "Other?"}))
    return out


def test_hostile_edits_are_refused_alike():
    hostile = [(name, document) for name, document in _hostile() if name != "gaussian epsilon 1e9"]
    jobs, names = [], []
    for name, document in hostile:
        for form, protocol in (("text", json.dumps(document)), ("object", document)):
            jobs.append({"call": "verify", "protocol": protocol})
            names.append(f"{name} ({form})")
            jobs.append(
                {
                    "call": "privatize",
                    "protocol": protocol,
                    "value": _answer(document),
                    "bytes": "00" * 64,
                }
            )
            names.append(f"{name} ({form}, privatize)")
    _assert_same(jobs, names)
    results = _js(jobs)
    refused = {name for name, result in zip(names, results, strict=True) if "error" in result}
    for name, _ in hostile:
        assert f"{name} (text)" in refused and f"{name} (object, privatize)" in refused, name


def test_the_shipped_hostile_suite_is_refused_alike():
    suite = json.loads((ROOT / "clients" / "hostile_protocols.json").read_text())
    jobs = [
        {"call": "privatize", "protocol": entry["protocol"], "value": entry["value"], "bytes": ""}
        for entry in suite
    ]
    _assert_same(jobs, [entry["name"] for entry in suite])
    assert all("error" in result for result in _js(jobs))


def test_marginals_files_are_verified_privatized_and_refused_alike():
    """Marginals protocols (a table's groups): the vectors, and edits of their content."""
    vectors = json.loads((ROOT / "clients" / "test_vectors.json").read_text())["marginals"]
    jobs, names = [], []
    for vector in vectors[::3]:
        jobs.append({"call": "verify", "protocol": json.dumps(vector["protocol"])})
        jobs.append(
            {
                "call": "privatize",
                "protocol": vector["protocol"],
                "value": vector["value"],
                "bytes": vector["bytes"],
            }
        )
        names += [f"{vector['name']} (verify)", f"{vector['name']} (privatize)"]
    honest = vectors[0]["protocol"]
    row = vectors[0]["value"]

    def edited(change):
        document = copy.deepcopy(honest)
        change(document)
        body = {k: v for k, v in document.items() if k != "fingerprint"}
        return {**body, "fingerprint": ldp_client._hash_hex(body)[:16]}

    edits = {
        "a float column index": lambda d: d["sampler"]["groups"][0].update(columns=[0, 1.0]),
        "a label repeated": lambda d: d["domain"]["columns"][0].update(labels=["no", "no"]),
        "labels 1 and 1.0": lambda d: d["domain"]["columns"][2].update(labels=[1, 1.0]),
        "no groups": lambda d: d["sampler"].update(groups=[]),
        "a stated delta": lambda d: d["privacy"].update(delta=0.1),
        "an unknown method": lambda d: d["mechanism"]["params"].update(method="magic"),
        "a group's protocol as text": lambda d: d["sampler"]["groups"][0].update(
            protocol=json.dumps(d["sampler"]["groups"][0]["protocol"])
        ),
        "a group's protocol of version 1": lambda d: d["sampler"]["groups"][0]["protocol"].update(
            version=1
        ),
        "an extra field": lambda d: d.update(extra=1),
        "a column k of 0": lambda d: d["domain"]["columns"][0].update(k=0, labels=[]),
    }
    for name, change in edits.items():
        document = edited(change)
        jobs.append({"call": "verify", "protocol": json.dumps(document)})
        names.append(name)
    for name, value in [
        ("a row missing a column", {"smoker": "yes"}),
        ("a row with an unknown category", {**row, "region": "Mars"}),
        ("a row as a string", "yes"),
    ]:
        jobs.append({"call": "privatize", "protocol": honest, "value": value, "bytes": "00" * 64})
        names.append(name)
    _assert_same(jobs, names)
    results = _js(jobs)
    assert all("ok" in r for r in results[: 2 * len(vectors[::3])])
    assert all("error" in r for r in results[2 * len(vectors[::3]) :])


def test_marginals_groups_with_non_default_oracles_are_run_alike():
    """A marginals protocol whose groups use subset selection and local hashing (the
    estimator's ``candidates``): both clients verify it and privatize rows to the same
    records from the same bytes."""
    from ldp.protocol import MarginalProtocol
    from ldp.tasks.marginals import build_design

    columns = [("a", list(range(4))), ("b", ["x", "y", "z", "w"]), ("c", [False, True])]
    rng = random.Random(7)
    jobs = []
    for oracle in ("SS", "OLH"):
        design = build_design("groups", (4, 4, 2), [(0, 1), (1, 2), (0,)], 1.0, (oracle,))
        assert {o.name for o in design.oracles} == {oracle}
        document = MarginalProtocol.from_design(design, columns).to_dict()
        jobs.append({"call": "verify", "protocol": json.dumps(document)})
        for _ in range(20):
            row = {"a": rng.randrange(4), "b": rng.choice("xyzw"), "c": rng.random() < 0.5}
            data = rng.randbytes(256).hex()
            jobs.append({"call": "privatize", "protocol": document, "value": row, "bytes": data})
    _assert_same(jobs, [f"job {i}" for i in range(len(jobs))])
    results = _js(jobs)
    assert all("ok" in r for r in results)
    groups = {r["ok"]["report"][0] for r in results if "report" in r["ok"]}
    assert groups == {0, 1, 2}


def test_the_edge_cases_both_clients_once_disagreed_on():
    hostile = dict(_hostile())
    names = ["GRR with an extra label", "Laplace scale = 5e-324", "gaussian epsilon 1e9"]
    jobs = [{"call": "verify", "protocol": json.dumps(hostile[name])} for name in names]
    _assert_same(jobs, names)
    results = dict(zip(names, _js(jobs), strict=True))
    assert results["GRR with an extra label"]["error"] == [
        "RangeError",
        "the protocol's domain.labels must be null or a list of 4 labels (strings, finite "
        "numbers or booleans)",
    ]
    assert results["Laplace scale = 5e-324"]["error"] == [
        "RangeError",
        "laplace: the sampler constants give epsilon = inf (computed on this device), above "
        "the epsilon = 1.0 the protocol states: refused",
    ]
    # a loose statement is a true one: e^(1e9) is bounded below by e^2000 and Phi(-1e9)
    # is far below delta
    assert results["gaussian epsilon 1e9"]["ok"]["epsilon"] == 1e9


def test_hostile_text_is_refused_alike():
    honest = _honest()["grr"]
    text = json.dumps(honest)
    texts = {
        "a repeated key": text.replace('"format":', '"question": "x", "format":'),
        "a repeated key in a nested object": text.replace('"k": 4', '"k": 4, "k": 2'),
        "nesting 5000 deep": '{"a": ' + "[" * 5000 + "]" * 5000 + "}",
        "NaN": text.replace('"k": 4', '"k": NaN'),
        "-Infinity": text.replace('"k": 4', '"k": -Infinity'),
        "1e400": text.replace('"k": 4', '"k": 1e400'),
        "version 2.0": text.replace('"version": 2', '"version": 2.0'),
        "k = 4.0": text.replace('"k": 4', '"k": 4.0'),
        "an integer above 2^53": text.replace('"k": 4', '"k": 9007199254740993'),
        "truncated": text[:100],
        "a byte order mark": "\ufeff" + text,
        "a list": "[" + text + "]",
        "a lone surrogate escape": text.replace('"Which?"', '"\\ud800"'),
        "too large": text[:-1] + ', "pad": "' + "x" * (8 << 20) + '"}',
        "4301 digits": text.replace('"k": 4', '"k": ' + "1" * 4301),
    }
    jobs = [{"call": "verify", "protocol": value} for value in texts.values()]
    _assert_same(jobs, list(texts))
    assert all("error" in result for result in _js(jobs))


# ----------------------------------------------------------------------------- memos, ledger
def _ledger_run(document, steps, writers, policy):
    """Run ``steps`` (value, question, now, seed) alternating clients as ``writers`` says
    ("js"/"py" per step), each passing on the JSON text it stored: the normalized records,
    refusals and final ledger."""
    ledger, outputs = None, []
    for (value, question, now, seed), writer in zip(steps, writers, strict=True):
        job = {
            "call": "privatize_with_ledger",
            "protocol": json.dumps(document),
            "value": value,
            "question": question,
            "now": now,
            "ledger": ledger,
            "policy": policy,
            "bytes": random.Random(seed).randbytes(4096).hex(),
        }
        out = _js([job])[0] if writer == "js" else _py(job)
        if "ok" in out:
            ledger = out["ok"]["stored"]
        outputs.append(_normal(out))
    return outputs, _normal(json.loads(ledger)) if ledger else None


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("l-grr", [1, 1, 2, 0, 3, 4, 1]),
        ("rappor", [0, 0, 1, 2, 3]),
        ("dbitflip-pm", [0, 5, 0, 9, 2]),
        ("GRR", [0, 1, 2, 3, 4]),
        ("gaussian", [0.1, 0.2, 0.3, 0.4, 0.5]),
    ],
)
def test_each_client_continues_the_others_ledger(name, values):
    document = (
        _document(name)
        if name != "gaussian"
        else Protocol.from_mechanism(example("gaussian"), delta=1e-6).to_dict()
    )
    info = ldp_client.verify(document)
    each = info.get("epsilon_permanent", info["epsilon"])  # what one charge costs
    budget = {"epsilon": 2.5 * each, "delta": 2.5e-6, "period_days": 1}
    policy = {"max_epsilon": 100, "max_delta": 1e-5, "budget": budget}
    # one day holds three steps; the fourth step is another question
    steps = [(v, "q2" if i % 4 == 3 else "q1", 1000.5 + 20000 * i, i) for i, v in enumerate(values)]
    runs = {}
    for writers in (
        ["py"] * len(steps),
        ["js"] * len(steps),
        ["py", "js"] * len(steps),
        ["js", "py"] * len(steps),
    ):
        runs[tuple(writers[: len(steps)])] = _ledger_run(
            document, steps, writers[: len(steps)], policy
        )
    outputs = list(runs.values())
    for other in outputs[1:]:
        assert other == outputs[0]
    records, ledger = outputs[0]
    assert any("ok" in r for r in records)
    # the third charge within a day is over the budget
    assert any("error" in r and "over the app's budget" in r["error"][1] for r in records)
    assert ledger["format"] == "ldp-ledger/1"


def test_each_client_continues_the_others_memo():
    document = Protocol.from_mechanism(LGRR(6, 0.5, 2.0)).to_dict()
    text = json.dumps(document)
    values = [1, 1, 4, 1, 4, 0]
    results = {}
    for writers in (("py",) * 6, ("js",) * 6, ("py", "js") * 3, ("js", "py") * 3):
        memo, reports = None, []
        for i, (value, writer) in enumerate(zip(values, writers, strict=True)):
            job = {
                "call": "privatize_round",
                "protocol": text,
                "value": value,
                "memo": memo,
                "bytes": random.Random(i).randbytes(256).hex(),
            }
            out = _js([job])[0] if writer == "js" else _py(job)
            memo = out["ok"]["memo"]
            reports.append(out["ok"]["record"])
        results[writers] = (reports, memo)
    first = next(iter(results.values()))
    assert all(value == first for value in results.values())
    assert first[1]["format"] == "ldp-memo/2"
    # a republication of the same mechanism keeps the memo in both clients
    republished = _fingerprinted({**document, "question": "Again? "})
    job = {
        "call": "privatize_round",
        "protocol": json.dumps(republished),
        "value": 1,
        "memo": first[1],
        "bytes": "00" * 64,
    }
    js, py = _both([job])[0]
    assert js == py and "ok" in js


# ----------------------------------------------------------------------------- the law
#: Reads {"protocol": ..., "value": ..., "draws": n} on stdin and prints the count of each
#: distinct report (as its JSON text), drawn with the client's default randomness.
SAMPLER = f"""
import {{ loadProtocol, privatize }} from {json.dumps(CLIENT.as_uri())};
let text = "";
for await (const chunk of process.stdin) text += chunk;
const job = JSON.parse(text);
const protocol = loadProtocol(job.protocol);
const counts = {{}};
for (let i = 0; i < job.draws; i++) {{
  const key = JSON.stringify(privatize(protocol, job.value).report);
  counts[key] = (counts[key] || 0) + 1;
}}
console.log(JSON.stringify(counts));
"""


def _js_counts(protocol: Protocol, value, draws: int) -> dict[str, int]:
    job = json.dumps({"protocol": protocol.to_dict(), "value": value, "draws": draws})
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", SAMPLER],
        input=job,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def _subset_index(k: int, d: int):
    order = {subset: i for i, subset in enumerate(combinations(range(k), d))}

    def index(report: list[int]) -> int:
        bits = np.unpackbits(np.array(report, dtype=np.uint8))[:k]
        return order[tuple(np.flatnonzero(bits).tolist())]

    return index


def _chi_square(counts: np.ndarray, law: np.ndarray) -> float:
    """Chi-square p-value, pooling outputs of small expected count into one cell."""
    expected = law * counts.sum()
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    keep = expected > 0
    assert counts[~keep].sum() == 0  # an impossible output never appears
    return stats.chisquare(counts[keep], expected[keep]).pvalue


@pytest.mark.parametrize(
    ("mechanism", "value"),
    [(GRR(5, 1.0), 3), (SubsetSelection(6, 1.0), 5)],
    ids=["GRR k=5", "SS k=6"],
)
def test_js_reports_follow_the_exact_law(mechanism, value):
    protocol = Protocol.from_mechanism(mechanism)
    row = mechanism.to_channel().matrix[value]
    if mechanism.name == "GRR":
        index = lambda report: report[0]  # noqa: E731
    else:
        index = _subset_index(mechanism.k, mechanism.d)
    counts = np.zeros(row.size)
    for key, count in _js_counts(protocol, value, DRAWS).items():
        counts[index(json.loads(key))] += count
    assert counts.sum() == DRAWS
    assert _chi_square(counts, row) > P_FLOOR
