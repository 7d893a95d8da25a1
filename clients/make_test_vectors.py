"""Write ``clients/test_vectors.json``: protocols, answers, random bytes and their reports.

Every vector is produced by the ldp library's own sampler (``Protocol.privatize`` with a
:class:`~ldp._random.ByteSource` reading the vector's bytes), and ``bytes`` holds exactly
the bytes it read. A client conforms when, fed those bytes, it returns ``report`` (within
``rtol`` for the float fields of mechanisms whose device algorithm calls ``log`` or ``cos``,
whose last bit may differ between platforms; ``rtol`` is 0 everywhere else) and reads every
byte. The tests regenerate the vectors and compare them with the committed file, and run the
Python and JavaScript clients against it.

Run: ``python clients/make_test_vectors.py`` (from the repository root).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import sys
from pathlib import Path

import numpy as np

import ldp
from ldp._random import ByteSource
from ldp.design import optimal_channel
from ldp.mechanisms import (
    BLH,
    CMS,
    GRR,
    HCMS,
    LGRR,
    LOSUE,
    LOUE,
    OLH,
    OUE,
    RAPPOR,
    SUE,
    BloomRAPPOR,
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
    PrivUnitG,
    SquareWave,
    Staircase,
    SubsetSelection,
    UnaryEncoding,
    bloom_positions,
)
from ldp.protocol import MarginalProtocol, Protocol
from ldp.tasks.marginals import build_design

OUTPUT = Path(__file__).with_name("test_vectors.json")
#: Seeds tried per case; the vectors keep seeds 0 and 1 and the seed that read the most bytes
#: (it goes through the rarer paths: later rounds of an exact coin, rejected integers).
SEEDS = 400
#: Relative tolerance of float reports whose device algorithm uses log or cos.
TRANSCENDENTAL_RTOL = 1e-12


def byte_stream(label: str) -> io.BytesIO:
    """A deterministic stream: SHA-256 of ``label:counter`` blocks, enough for any report."""
    blocks = [hashlib.sha256(f"{label}:{i}".encode()).digest() for i in range(512)]
    return io.BytesIO(b"".join(blocks))


def cases() -> list[tuple[str, Protocol, list[object]]]:
    """(name, protocol, answers) covering every mechanism kind and its edge cases."""
    designed = optimal_channel(5, 1.0, utility="mi").channel
    out = [
        ("k-RR channel, labels", Protocol.from_mechanism(
            ldp.k_rr(3, 1.0), labels=["bus", "bike", "car"], question="How do you commute?"
        ), ["bus", "bike", "car"]),
        ("designed channel (optimal_channel k=5 mi)", Protocol.from_mechanism(
            designed, labels=[1, 2, 3, 4, 5]), [1, 3, 5]),
        ("binary mechanism with erasure, delta = 0.1", Protocol.from_mechanism(
            ldp.binary_erasure(1.0, 0.1, 0.3), labels=[False, True], delta=0.1), [False, True]),
        ("GRR k=5 eps=1", Protocol.from_mechanism(GRR(5, 1.0)), [0, 4]),
        ("GRR k=4 eps=700", Protocol.from_mechanism(GRR(4, 700.0)), [2]),
        ("GRR k=2^40 eps=1e-6", Protocol.from_mechanism(GRR(2**40, 1e-6)), [2**40 - 1, 12345]),
        ("SUE k=10 eps=1", Protocol.from_mechanism(SUE(10, 1.0)), [0, 9]),
        ("OUE k=16 eps=2", Protocol.from_mechanism(OUE(16, 2.0)), [3]),
        ("OUE k=5 eps=700", Protocol.from_mechanism(OUE(5, 700.0)), [1]),
        ("UE k=6 p=0.6 q=0.3", Protocol.from_mechanism(UnaryEncoding(6, 1.0, 0.6, 0.3)), [2]),
        ("OLH k=100 eps=1", Protocol.from_mechanism(OLH(100, 1.0)), [0, 57]),
        ("BLH k=1000 eps=1", Protocol.from_mechanism(BLH(1000, 1.0)), [999]),
        ("LH k=50 g=6 (ring hash)", Protocol.from_mechanism(LocalHashing(50, 1.0, 6)), [49]),
        ("LH k=50 g=9 (field GF(3^2))", Protocol.from_mechanism(LocalHashing(50, 1.0, 9)), [7]),
        ("OLH k=2^40 eps=3", Protocol.from_mechanism(OLH(2**40, 3.0)), [2**40 - 2]),
        ("HR k=7 eps=1", Protocol.from_mechanism(HadamardResponse(7, 1.0)), [0, 6]),
        ("SS k=10 eps=1", Protocol.from_mechanism(SubsetSelection(10, 1.0)), [0, 9]),
        ("SS k=6 d=1", Protocol.from_mechanism(SubsetSelection(6, 1.0, d=1, encoding="bits")), [5]),
        ("SS k=40 eps=3 (Floyd)",
         Protocol.from_mechanism(SubsetSelection(40, 3.0, encoding="bits")), [0, 39]),
        ("SS k=40 eps=3 (indices)", Protocol.from_mechanism(SubsetSelection(40, 3.0)), [0, 39]),
        ("SS k=4096 eps=6 (indices)", Protocol.from_mechanism(SubsetSelection(4096, 6.0)),
         [0, 2048, 4095]),
        ("SS k=20 eps=0.1 (one row)", Protocol.from_mechanism(SubsetSelection(20, 0.1)), [7]),
        ("SS k=130 eps=2 (three rows)",
         Protocol.from_mechanism(SubsetSelection(130, 2.0, encoding="bits")), [129]),
        ("Duchi eps=1", Protocol.from_mechanism(Duchi(1.0), bounds=(0, 10)), [0.0, 3.3, 10.0]),
        ("Duchi d=3", Protocol.from_mechanism(Duchi(1.0, d=3)), [[0.1, -0.5, 1.0]]),
        ("Duchi d=4 (padded)", Protocol.from_mechanism(Duchi(1.0, d=4)), [[0.2, 0.0, -1.0, 0.7]]),
        ("DuchiL2 d=3", Protocol.from_mechanism(DuchiL2(1.0, d=3)), [[0.1, 0.2, -0.3]]),
        ("Laplace eps=1, bounds (0, 120)", Protocol.from_mechanism(
            Laplace(1.0), bounds=(0, 120), question="Your age?"), [0.0, 37.5]),
        ("Piecewise eps=1", Protocol.from_mechanism(Piecewise(1.0), bounds=(-5, 5)), [-5.0, 1.25]),
        ("Piecewise eps=700", Protocol.from_mechanism(Piecewise(700.0)), [0.5]),
        ("Hybrid eps=1", Protocol.from_mechanism(Hybrid(1.0)), [0.2, -1.0]),
        ("Hybrid eps=0.3 (Duchi only)", Protocol.from_mechanism(Hybrid(0.3)), [0.2]),
        ("SquareWave eps=1", Protocol.from_mechanism(SquareWave(1.0), bounds=(0, 1)), [0.0, 0.4]),
        ("staircase eps=1", Protocol.from_mechanism(Staircase(1.0), bounds=(0, 10)), [0.0, 7.5]),
        ("staircase eps=0.2 gamma=0.5", Protocol.from_mechanism(Staircase(0.2, 0.5)), [-1.0]),
        ("gaussian mu=1, delta=1e-6, bounds (0, 10)",
         Protocol.from_mechanism(Gaussian(1.0), bounds=(0, 10), delta=1e-6), [0.0, 7.5]),
        ("cms width=64 depth=16", Protocol.from_mechanism(
            CMS(2.0, width=64, depth=16, salt="vectors")), ["apple", "café 😀", "", 12345]),
        ("cms width=10 depth=300 (pad bits, two-byte row)", Protocol.from_mechanism(
            CMS(4.0, width=10, depth=300)), ["x" * 100, -7]),
        ("hcms width=1024 depth=1024", Protocol.from_mechanism(
            HCMS(4.0, width=1024, depth=1024, salt="ünï")), ["apple", 0]),
        ("hcms width=2 depth=1 eps=0.5", Protocol.from_mechanism(HCMS(0.5, width=2, depth=1)),
         ["pear"]),
        ("privunit d=3 eps=2", Protocol.from_mechanism(PrivUnit(2.0, d=3)),
         [[0.1, 0.2, -0.3], [0.0, 0.0, 0.0], [0.6, 0.0, 0.8]]),
        ("privunit d=3 eps=4 (envelope, k = 0)", Protocol.from_mechanism(PrivUnit(4.0, d=3)),
         [[0.0, -1.0, 0.0]]),
        ("privunit d=16 eps=8 (envelope)", Protocol.from_mechanism(
            PrivUnit(8.0, d=16, radius=2.0)), [[0.5] * 16]),
        ("privunit d=2 eps=1", Protocol.from_mechanism(PrivUnit(1.0, d=2)), [[0.6, 0.8]]),
        ("privunitg d=3 eps=2", Protocol.from_mechanism(PrivUnitG(2.0, d=3)),
         [[0.1, 0.2, -0.3], [0.0, 0.0, 0.0]]),
        ("privunitg d=16 eps=8", Protocol.from_mechanism(PrivUnitG(8.0, d=16)), [[0.25] * 16]),
    ]  # fmt: skip
    return out


def rtol_of(protocol: Protocol) -> float:
    vectors = ("DuchiL2", "privunit", "privunitg")
    return TRANSCENDENTAL_RTOL if protocol.mechanism.name in vectors else 0.0


def report_of(protocol: Protocol, answer: object, label: str) -> tuple[list, bytes]:
    """The library's report of one answer and the bytes it read."""
    stream = byte_stream(label)
    native = protocol.privatize([answer], rng=ByteSource(stream.read))
    used = stream.tell()
    row = protocol.mechanism.codec.to_rows(native)[0].tolist()
    return row, stream.getvalue()[:used]


def vectors() -> list[dict]:
    out = []
    for name, protocol, answers in cases():
        for answer in answers:
            tried = {}
            for seed in range(SEEDS):
                label = f"{name}|{answer!r}|{seed}"
                tried[seed] = report_of(protocol, answer, label)
            longest = max(tried, key=lambda s: (len(tried[s][1]), -s))
            for seed in sorted({0, 1, longest}):
                report, data = tried[seed]
                out.append(
                    {
                        "name": f"{name}, answer {answer!r}, seed {seed}",
                        "protocol": protocol.to_dict(),
                        "value": answer,
                        "bytes": data.hex(),
                        "report": report,
                        "rtol": rtol_of(protocol),
                    }
                )
    return out


#: Memoized (longitudinal) mechanisms: a history of answers of one client, reported round
#: after round with the memo kept in between.
MEMOIZED_SEEDS = 40


def memoized_cases() -> list[tuple[str, Protocol, list[int]]]:
    return [
        ("L-GRR k=5", Protocol.from_mechanism(LGRR(5, 1.0, 2.0)), [0, 0, 3, 0, 3]),
        ("L-GRR k=1000", Protocol.from_mechanism(LGRR(1000, 0.5, 4.0)), [999, 999, 5]),
        ("L-OSUE k=10", Protocol.from_mechanism(LOSUE(10, 1.0, 2.0)), [0, 0, 9, 0]),
        ("L-OUE k=6", Protocol.from_mechanism(LOUE(6, 1.0, 2.5)), [2, 2, 5]),
        ("RAPPOR k=12", Protocol.from_mechanism(RAPPOR(12, 0.5, 0.25, 0.75)), [11, 11, 0]),
        ("RAPPOR p=0 q=1", Protocol.from_mechanism(RAPPOR(5, 0.3, 0.0, 1.0)), [1, 1, 4]),
        ("dBitFlipPM k=16 b=8 d=3", Protocol.from_mechanism(DBitFlipPM(16, 1.0, 8, 3)),
         [0, 0, 15, 7, 0]),
        ("dBitFlipPM d=b=4", Protocol.from_mechanism(DBitFlipPM(4, 2.0, 4, 4)), [1, 2, 1]),
    ]  # fmt: skip


def rounds_of(protocol: Protocol, history: list[int], label: str) -> tuple[list, bytes, list]:
    """The library's reports of one client's history, the bytes read and the final memo."""
    stream = byte_stream(label)
    memos = None
    reports = []
    for value in history:
        native, memos = protocol.mechanism.privatize_round(
            [value], memos, rng=ByteSource(stream.read)
        )
        reports.append(protocol.mechanism.codec.to_rows(native)[0].tolist())
    memo = memos[0].to_dict()
    final = {"entries": memo["entries"], "sampled": memo["sampled"]}
    return reports, stream.getvalue()[: stream.tell()], final


def memoized_vectors() -> list[dict]:
    out = []
    for name, protocol, history in memoized_cases():
        tried = {
            seed: rounds_of(protocol, history, f"{name}|{history!r}|{seed}")
            for seed in range(MEMOIZED_SEEDS)
        }
        longest = max(tried, key=lambda s: (len(tried[s][1]), -s))
        for seed in sorted({0, longest}):
            reports, data, memo = tried[seed]
            out.append(
                {
                    "name": f"{name}, answers {history!r}, seed {seed}",
                    "protocol": protocol.to_dict(),
                    "values": history,
                    "bytes": data.hex(),
                    "reports": reports,
                    "memo": memo,
                }
            )
    return out


#: RAPPOR with Bloom filters (strings, cohorts): parameters and one client's history.
BLOOM_CASES = [
    ("m=32 h=2 4 cohorts", (32, 2, 4, 0.5, 0.5, 0.75), ["a.com", "a.com", "b.org", "a.com"]),
    ("m=13 h=3 64 cohorts, UTF-8", (13, 3, 64, 0.25, 0.25, 0.75), ["été", "日本語", "été"]),
    ("m=16 h=1 one cohort p=0 q=1", (16, 1, 1, 0.3, 0.0, 1.0), ["x", "y", "x"]),
    ("m=200 h=8 1000 cohorts", (200, 8, 1000, 0.125, 0.4, 0.6), ["", "long " * 40]),
]


def bloom_vectors() -> list[dict]:
    out = []
    for name, (m, h, c, f, p, q), history in BLOOM_CASES:
        mech = BloomRAPPOR(m, h, c, f, p, q)
        tried = {}
        for seed in range(MEMOIZED_SEEDS):
            stream = byte_stream(f"{name}|{history!r}|{seed}")
            memos = None
            reports, cohorts = [], []
            for value in history:
                bits, cohort, memos = mech.privatize_round(
                    [value], memos, rng=ByteSource(stream.read)
                )
                reports.append(bits[0].tolist())
                cohorts.append(int(cohort[0]))
            memo = memos[0].to_dict()
            tried[seed] = (reports, cohorts, stream.getvalue()[: stream.tell()], memo)
        longest = max(tried, key=lambda s: (len(tried[s][2]), -s))
        for seed in sorted({0, longest}):
            reports, cohorts, data, memo = tried[seed]
            out.append(
                {
                    "name": f"{name}, answers {history!r}, seed {seed}",
                    "params": mech.params,
                    "key": mech.key,
                    "values": history,
                    "bytes": data.hex(),
                    "reports": reports,
                    "cohorts": cohorts,
                    "memo": memo,
                    "positions": [list(bloom_positions(v, cohorts[0], m, h)) for v in history],
                }
            )
    return out


#: Marginals protocols (a table's groups, one drawn on the device): rows of a table.
MARGINAL_SEEDS = 40


def marginal_cases() -> list[tuple[str, MarginalProtocol, list[dict]]]:
    columns = [("smoker", ["no", "yes"]), ("region", ["N", "S", "W", "E"]), ("car", [0, 1])]
    binary = [("a", [False, True]), ("b", ["x", "y"]), ("c", [0, 1])]
    row = {"smoker": "yes", "region": "W", "car": 1}
    wide = [("x", list(range(12))), ("y", ["p", "q", "r", "s", "t"])]

    def design(method: str, sizes: tuple, tables: list, epsilon: float):
        return build_design(method, sizes, tables, epsilon)

    return [
        ("groups (GRR cells), 3 groups", MarginalProtocol.from_design(
            design("groups", (2, 4, 2), [(0, 1), (1, 2), (0, 2)], 1.0), columns,
            question="Smoker? Region? Car?"), [row, {"smoker": "no", "region": "N", "car": 0}]),
        ("joint (OUE over 16 cells)", MarginalProtocol.from_design(
            design("joint", (2, 4, 2), [(0, 1), (1, 2)], 1.0), columns), [row]),
        ("fourier (parity bits), 5 groups", MarginalProtocol.from_design(
            design("fourier", (2, 2, 2), [(0, 1), (1, 2)], 2.0), binary),
         [{"a": True, "b": "y", "c": 1}, {"a": False, "b": "x", "c": 1}]),
        ("groups (OUE over 60 cells), one group", MarginalProtocol.from_design(
            design("groups", (12, 5), [(0, 1)], 0.5), wide), [{"x": 11, "y": "t"}]),
    ]  # fmt: skip


def marginal_vectors() -> list[dict]:
    out = []
    for name, protocol, rows in marginal_cases():
        labels = [list(c[1]) for c in protocol.columns]
        names = [c[0] for c in protocol.columns]
        for row in rows:
            codes = [labels[j].index(row[n]) for j, n in enumerate(names)]
            tried = {}
            for seed in range(MARGINAL_SEEDS):
                stream = byte_stream(f"{name}|{row!r}|{seed}")
                report = protocol.privatize_row(codes, rng=ByteSource(stream.read))
                tried[seed] = (report, stream.getvalue()[: stream.tell()])
            longest = max(tried, key=lambda s: (len(tried[s][1]), -s))
            for seed in sorted({0, 1, longest}):
                report, data = tried[seed]
                out.append(
                    {
                        "name": f"{name}, row {row!r}, seed {seed}",
                        "protocol": protocol.to_dict(),
                        "value": row,
                        "bytes": data.hex(),
                        "report": report,
                    }
                )
    return out


def document() -> dict:
    return {
        "format": "ldp-test-vectors",
        "version": 1,
        "description": (
            "For each vector, a client fed exactly these bytes (hex) as its randomness must "
            "read all of them and return this report for this answer under this protocol "
            "(float fields within rtol; rtol is 0 except where the device algorithm calls "
            "log or cos). Produced by the ldp library; see docs/protocol.md."
        ),
        "vectors": vectors(),
        "memoized": memoized_vectors(),
        "memoized_description": (
            "Memoized (longitudinal) mechanisms: a client answers 'values' round after round, "
            "keeping its memo between rounds (starting from none). Fed exactly these bytes in "
            "order, it must read all of them, return these reports and end with this memo "
            "(entries and sampled buckets). Its first round is also what privatize returns."
        ),
        "marginals": marginal_vectors(),
        "marginals_description": (
            "Marginals protocols: a row (an object by column name) is privatized by drawing "
            "its group (a uniform integer, the first bytes) and then its group's report from "
            "the same bytes; the report is the group index followed by the group's fields. "
            "Fed exactly these bytes a client must read all of them and return this report."
        ),
        "bloom_rappor": bloom_vectors(),
        "bloom_rappor_description": (
            "RAPPOR with Bloom filters (ldp.mechanisms.BloomRAPPOR): a new client answers "
            "'values' round after round keeping its memo. Fed exactly these bytes it must read "
            "all of them, report these cohorts and bits, and end with this memo; 'positions' "
            "are the Bloom-filter bits of each value in the client's cohort."
        ),
    }


def render(doc: dict) -> str:
    for vector in doc["vectors"]:
        for value in vector["report"]:
            assert not (isinstance(value, float) and not math.isfinite(value))
    return json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n"


def main() -> int:
    text = render(document())
    OUTPUT.write_text(text, encoding="utf-8")
    count = len(json.loads(text)["vectors"])
    print(f"wrote {count} vectors to {OUTPUT}")
    return 0


if __name__ == "__main__":
    np.seterr(all="raise")
    sys.exit(main())
