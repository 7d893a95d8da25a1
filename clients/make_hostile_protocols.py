"""Write ``clients/hostile_protocols.json``: protocol files every conforming client must refuse.

In local differential privacy the server is the adversary, and it writes the protocol file.
Each entry here is an honest file of the ldp library edited the way a collector who wants the
true answers (or to show people a false number, or to hang their device) would edit it,
then fingerprinted again with the documented rule (RFC 8785 text, SHA-256) so that only the
*content* gives it away. A conforming client (``docs/protocol.md``) refuses every one of them
before it draws a single random byte: ``privatize(protocol, value)`` raises (Python:
``ValueError``/``TypeError``; JavaScript: a thrown ``RangeError``/``TypeError``), and so does
``ldp.protocol.Protocol.from_json``. Entries whose attack lives in the text itself (a repeated
key, deep nesting) give ``protocol`` as that text; the others give the parsed document.

Each entry: ``{"name": what the attack is, "protocol": the file (object or text), "value": an
answer to privatize}``. The tests regenerate the file and compare it with the committed one,
and run every entry through the Python client, the JavaScript client (Node and headless
Chromium) and the library.

Run: ``python clients/make_hostile_protocols.py`` (from the repository root).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any

import ldp
from ldp.mechanisms import (
    CMS,
    GRR,
    HCMS,
    LGRR,
    LOUE,
    OLH,
    OUE,
    RAPPOR,
    DBitFlipPM,
    Duchi,
    DuchiL2,
    Gaussian,
    HadamardResponse,
    Hybrid,
    Laplace,
    LocalHashing,
    Piecewise,
    PrivUnit,
    SquareWave,
    Staircase,
    SubsetSelection,
)
from ldp.protocol import MarginalProtocol, Protocol
from ldp.protocol.canonical import jcs
from ldp.tasks.marginals import build_design

OUTPUT = Path(__file__).with_name("hostile_protocols.json")


def refingerprint(document: dict[str, Any]) -> dict[str, Any]:
    """The document with the fingerprint a version-2 reader computes for its content."""
    body = {key: value for key, value in document.items() if key != "fingerprint"}
    return {**body, "fingerprint": hashlib.sha256(jcs(body).encode()).hexdigest()[:16]}


def edited(protocol: Protocol | MarginalProtocol, edit) -> dict[str, Any]:
    """An honest protocol's document, edited in place by ``edit``, then re-fingerprinted."""
    document = copy.deepcopy(protocol.to_dict())
    edit(document)
    return refingerprint(document)


def _set(path: str, value: Any):
    """An edit that sets ``document[a][b]...`` for the dotted ``path``."""
    keys = path.split(".")

    def edit(document: dict[str, Any]) -> None:
        node = document
        for key in keys[:-1]:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(keys[-1])] = value
        else:
            node[keys[-1]] = value

    return edit


def _text_with_repeated_key(protocol: Protocol) -> str:
    """The file's text with a second ``keep`` that sends every true answer, fingerprinted for
    the content a parser that keeps the last key (JavaScript's JSON.parse, Python's json)
    would read."""
    hostile = edited(protocol, _set("sampler.keep", [1.0, 0.0]))
    text = json.dumps(hostile, sort_keys=True)
    honest_keep = json.dumps(protocol.to_dict()["sampler"]["keep"])
    needle = '"keep": [1.0, 0.0]'
    assert text.count(needle) == 1
    return text.replace(needle, f'"keep": {honest_keep}, {needle}')


def _deeply_nested(protocol: Protocol, depth: int) -> str:
    honest = protocol.to_dict()
    honest["question"] = "__NEST__"
    text = json.dumps(refingerprint(honest), sort_keys=True)
    return text.replace('"__NEST__"', "[" * depth + "]" * depth, 1)


def _group_edited(protocol: MarginalProtocol, g: int, edit) -> dict[str, Any]:
    """A marginals document whose group ``g``'s protocol is edited by ``edit`` and
    re-fingerprinted, the whole file then re-fingerprinted."""
    document = copy.deepcopy(protocol.to_dict())
    group = document["sampler"]["groups"][g]
    edit(group["protocol"])
    group["protocol"] = refingerprint(group["protocol"])
    return refingerprint(document)


def marginal_entries() -> list[tuple[str, Any, Any]]:
    """Marginals files (a table's groups, one drawn on the device) edited to leak."""
    columns = [("smoker", ["no", "yes"]), ("region", ["N", "S", "W"]), ("car", [False, True])]
    groups = MarginalProtocol.from_design(
        build_design("groups", (2, 3, 2), [(0, 1), (1, 2)], 1.0), columns
    )
    row = {"smoker": "yes", "region": "S", "car": True}
    e50 = math.exp(50.0)

    def leak_stated(document: dict[str, Any]) -> None:
        document["sampler"]["keep"] = [e50, 5.0]
        document["privacy"]["epsilon"] = 51.0

    def memoized(document: dict[str, Any]) -> None:
        document.clear()
        document.update(Protocol.from_mechanism(LGRR(6, 0.5, 1.0)).to_dict())

    return [
        ("marginals: a group's oracle constants send the true cell (keep = [1, 0])",
         _group_edited(groups, 0, _set("sampler.keep", [1.0, 0.0])), row),
        ("marginals: a group's oracle at epsilon 50, stated so in the group, 1 in the file",
         _group_edited(groups, 0, leak_stated), row),
        ("marginals: an epsilon stated 100 times below the groups'",
         edited(groups, _set("privacy.epsilon", 0.01)), row),
        ("marginals: a group reading a column outside the table",
         edited(groups, _set("sampler.groups.1.columns", [1, 7])), row),
        ("marginals: a group reading one column twice",
         edited(groups, _set("sampler.groups.1.columns", [1, 1])), row),
        ("marginals: a group whose protocol has fewer inputs than the group's cells",
         edited(groups, _set("sampler.groups.0.columns", [0, 1, 2])), row),
        ("marginals: the parity of a column with three categories",
         edited(groups, _set("sampler.groups.0.input", "parity")), row),
        ("marginals: a memoized group (a permanent answer per cell)",
         _group_edited(groups, 1, memoized), row),
        ("marginals: a report group field that does not cover the groups",
         edited(groups, _set("report.fields.0.max", 0)), row),
        ("marginals: a group drawn otherwise than uniformly",
         edited(groups, _set("sampler.draw", "first")), row),
    ]  # fmt: skip


def entries() -> list[dict[str, Any]]:
    grr = Protocol.from_mechanism(GRR(4, 1.0), labels=["a", "b", "c", "d"], question="Q?")
    channel = Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=["bus", "bike", "car"])
    oue = Protocol.from_mechanism(OUE(8, 1.0))
    olh = Protocol.from_mechanism(OLH(16, 1.0))
    ring = Protocol.from_mechanism(LocalHashing(50, 1.0, 6))  # the ring hash, g = 6
    field = Protocol.from_mechanism(LocalHashing(50, 1.0, 9))  # the field hash, GF(3^2)
    hr = Protocol.from_mechanism(HadamardResponse(6, 1.0))
    ss = Protocol.from_mechanism(SubsetSelection(8, 1.0))
    laplace = Protocol.from_mechanism(Laplace(1.0), bounds=(0, 120), question="Your age?")
    piecewise = Protocol.from_mechanism(Piecewise(1.0))
    hybrid = Protocol.from_mechanism(Hybrid(1.0))
    square = Protocol.from_mechanism(SquareWave(1.0))
    staircase = Protocol.from_mechanism(Staircase(1.0))
    gaussian = Protocol.from_mechanism(Gaussian(1.0), bounds=(0, 10), delta=1e-6)
    duchi = Protocol.from_mechanism(Duchi(1.0, d=3))
    duchi_l2 = Protocol.from_mechanism(DuchiL2(1.0, d=3))
    lgrr = Protocol.from_mechanism(LGRR(5, 0.5, 1.0))
    loue = Protocol.from_mechanism(LOUE(6, 1.0, 2.0))
    rappor = Protocol.from_mechanism(RAPPOR(6, f=0.5, p=0.5, q=0.75))
    dbit = Protocol.from_mechanism(DBitFlipPM(8, 1.0, b=4, d=2))
    cms = Protocol.from_mechanism(CMS(1.0, width=16, depth=4, salt="s"))
    hcms = Protocol.from_mechanism(HCMS(1.0, width=16, depth=4, salt="s"))
    privunit = Protocol.from_mechanism(PrivUnit(2.0, d=3))
    e50 = math.exp(50.0)
    stated_low = grr.epsilon / 100
    out: list[tuple[str, Any, Any]] = [
        ("grr: keep = [1, 0] sends every true answer",
         edited(grr, _set("sampler.keep", [1.0, 0.0])), "b"),
        ("grr: keep = [e^50, 3] (a realised epsilon of 50 under a stated 1)",
         edited(grr, _set("sampler.keep", [e50, 3.0])), "b"),
        ("grr: an epsilon stated 100 times below the mechanism's",
         edited(grr, _set("privacy.epsilon", stated_low)), "b"),
        ("grr: the domain has more categories than the mechanism (an answer reported as itself)",
         edited(grr, lambda d: d["domain"].update(k=5, labels=["a", "b", "c", "d", "e"])), "e"),
        ("grr: a version-1 name in a version-2 file",
         edited(grr, _set("mechanism.name", "GRR")), "a"),
        ("grr: the content edited, the fingerprint left as it was",
         {**grr.to_dict(), "sampler": {"keep": [1.0, 0.0]}}, "b"),
        ("grr: version 2.5", edited(grr, _set("version", 2.5)), "a"),
        ('grr: version "2" (a string)', edited(grr, _set("version", "2")), "a"),
        ("grr: version true", edited(grr, _set("version", True)), "a"),
        ("grr: a repeated sampler key whose last value sends the truth",
         _text_with_repeated_key(grr), "b"),
        ("grr: 5000 levels of nesting", _deeply_nested(grr, 5000), "a"),
        ("grr: 17 levels of nesting (above the limit of 16)", _deeply_nested(grr, 16), "a"),
        ("channel: the matrix replaced by the identity",
         edited(channel, _set("mechanism.params.matrix",
                              [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])), "bike"),
        ("channel: one output only the first answer can produce",
         edited(channel, _set("mechanism.params.matrix",
                              [[0.5, 0.25, 0.25], [0.0, 0.5, 0.5], [0.0, 0.5, 0.5]])), "bus"),
        ("oue: constants that send the one-hot vector",
         edited(oue, lambda d: d["sampler"].update(own=[1.0, 0.0], other=[0.0, 1.0])), 3),
        ("olh: keep = [1, 0]", edited(olh, _set("sampler.keep", [1.0, 0.0])), 5),
        ("local-hashing: a ring hash modulus above g (buckets only the true answer reaches)",
         edited(ring, _set("sampler.hash.modulus", 1 << 20)), 5),
        ("local-hashing: a field hash whose p^power is not g",
         edited(field, _set("sampler.hash.power", 3)), 5),
        ("hadamard-response: K not above k (a report outside the range)",
         edited(hr, _set("sampler.K", 4)), 5),
        ("hadamard-response: keep = [1, 0]", edited(hr, _set("sampler.keep", [1.0, 0.0])), 2),
        ("subset-selection: include = [1, 0] (the answer always in the subset)",
         edited(ss, _set("sampler.include", [1.0, 0.0])), 2),
        ("subset-selection: d = k (every value in every subset but the answer's)",
         edited(ss, _set("sampler.d", 8)), 2),
        ("laplace: scale = 1e-12", edited(laplace, _set("sampler.scale", 1e-12)), 37.5),
        ("piecewise: keep = [1, 0] (always the window around the answer)",
         edited(piecewise, _set("sampler.keep", [1.0, 0.0])), 0.5),
        ("piecewise: a window wider than C - 1 (it leaves the support)",
         edited(piecewise, lambda d: d["sampler"].update(width=d["sampler"]["C"] + 1.0)), 0.5),
        ("hybrid: the Duchi part with keep = [1, 0]",
         edited(hybrid, _set("sampler.duchi.keep", [1.0, 0.0])), 0.5),
        ("square-wave: keep = [1, 0]", edited(square, _set("sampler.keep", [1.0, 0.0])), 0.5),
        ("square-wave: b = 1e-12 (a tiny window around the answer)",
         edited(square, _set("sampler.b", 1e-12)), 0.5),
        ("staircase: b = 1e-12 (noise that never leaves the first period)",
         edited(staircase, _set("sampler.b", 1e-12)), 0.5),
        ("staircase: a continuation probability 1 - 2^-53 (sampling would never end)",
         edited(staircase, _set("sampler.b", 1.0 - 2.0**-53)), 0.5),
        ("gaussian: sigma = 1e-9 under a stated (epsilon, delta)",
         edited(gaussian, _set("sampler.sigma", 1e-9)), 7.5),
        ("duchi: keep = [1, 0]", edited(duchi, _set("sampler.keep", [1.0, 0.0])), [0.1, 0.2, 0.3]),
        ("duchi-l2: keep = [1, 0]", edited(duchi_l2, _set("sampler.keep", [1.0, 0.0])),
         [0.1, 0.2, 0.3]),
        ("l-grr: permanent and instantaneous rounds with [1, 0]",
         edited(lgrr, lambda d: d["sampler"].update(permanent=[1.0, 0.0], instant=[1.0, 0.0])),
         3),
        ("l-oue: instantaneous rounds that copy the permanent bits exactly and permanent bits "
         "that copy the answer",
         edited(loue, lambda d: d["sampler"].update(own=[1.0, 0.0], other=[0.0, 1.0],
                                                     one=[1.0, 0.0], zero=[0.0, 1.0])), 2),
        ("rappor: p = 0, q = 1 and f = 0 (the Bloom bits themselves)",
         edited(rappor, lambda d: d["sampler"].update(own=[1.0, 0.0], other=[0.0, 1.0],
                                                       one=[1.0, 0.0], zero=[0.0, 1.0])), 4),
        ("dbitflip-pm: bits that are never flipped",
         edited(dbit, lambda d: d["sampler"].update(own=[1.0, 0.0], other=[0.0, 1.0])), 5),
        ("cms: constants that reveal the hashed item",
         edited(cms, lambda d: d["sampler"].update(own=[1.0, 0.0], other=[0.0, 1.0])), "apple"),
        ("hcms: keep = [1, 0]", edited(hcms, _set("sampler.keep", [1.0, 0.0])), "apple"),
        ("privunit: a cap gamma = 1.5 that no draw can reach (a sampler that never ends)",
         edited(privunit, _set("sampler.gamma", 1.5)), [0.1, 0.2, 0.3]),
    ]  # fmt: skip
    out += marginal_entries()
    return [{"name": name, "protocol": protocol, "value": value} for name, protocol, value in out]


def render(items: list[dict[str, Any]]) -> str:
    return json.dumps(items, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def main() -> int:
    items = entries()
    OUTPUT.write_text(render(items), encoding="utf-8")
    print(f"wrote {len(items)} hostile protocols to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
