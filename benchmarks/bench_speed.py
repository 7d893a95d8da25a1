"""The speed limits: each workload timed against its limit or peer, by CPU time, interleaved,
median of three (``benchmarks/_timing.py``), with the baseline of every ratio named.

* **the draw**: a frequency oracle cannot privatize faster than numpy draws the random
  numbers it consumes, so privatize + aggregate is held to a multiple of exactly that draw
  (each row's baseline spells it out): GRR (k = 1024, within 2x; also the temporaries
  ``privatize`` allocates per user, traced by :mod:`tracemalloc`, at most 4 bytes), HCMS
  (width 1024, end to end with a query of every item, within 3x), OLH and BLH (k = 1024,
  within 3x; the peak of ``privatize`` over the report's size is recorded; other ``g``
  are timed against ``g = 4``, reported), subset
  selection (k = 64 and 1024, within 2x);
* the peer libraries (every oracle end to end against pure-ldp and multi-freq-ldpy) are
  compared in ``bench_targets``, by the one definition in ``benchmarks/_peers.py``;
* **same-input composition** ``compose(channel, 20).delta(1)`` of a random 8 x 8 channel
  (compose and answer one query): at most 5x the adaptive bound
  ``compose(channel, 20, adaptive=True).delta(1)``; a loop over dp-accounting's PLDs of the
  56 ordered input pairs and the two compositions without the query are timed alongside
  (reported, not judged).

Run: ``python -m benchmarks.bench_speed [--quick] [--json out.json]``.
"""

from __future__ import annotations

import importlib.util
import tracemalloc

import numpy as np

from benchmarks._common import emit, parser, row
from benchmarks._peers import zipf
from benchmarks._timing import Contender, compare, interleaved, steady_process

EPS = 1.0


def traced_peak(fn) -> tuple[object, int]:
    """``(fn(), peak bytes traced while it ran)``: numpy's allocations are traced too."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak - before


# ----------------------------------------------------------------- against the draw
def grr(n: int) -> list[dict]:
    from ldp.mechanisms import GRR

    k = 1024
    mech = GRR(k, EPS)
    x = zipf(n, k, 0)
    mech.aggregate(mech.privatize(x[:1000], rng=0))  # warm-up

    def draw():
        gen = np.random.default_rng(2)
        gen.random(n)
        gen.integers(0, k - 1, size=n)

    what = f"GRR k={k} n={n:.0e} privatize + aggregate"
    judged, _ = compare(
        what,
        Contender("ldpkit", lambda: mech.aggregate(mech.privatize(x, rng=1))),
        Contender("the draw of its random numbers: rng.random(n), rng.integers(0, k - 1, n)", draw),
        2.0,
    )
    report, peak = traced_peak(lambda: mech.privatize(x, rng=1))
    per_user = (peak - np.asarray(report).nbytes) / n
    temporaries = row(
        f"GRR k={k} n={n:.0e} privatize: temporaries (traced peak - report) per user",
        per_user,
        "bytes",
        "<= 4 bytes/user",
        per_user <= 4.0,
    )
    return [judged, temporaries]


def hcms(n: int) -> list[dict]:
    from ldp.mechanisms import HCMS

    width, depth, items = 1024, 16, 1024
    mech = HCMS(EPS, width=width, depth=depth, salt="bench")
    names = np.array([f"item-{i}" for i in range(items)])
    data = names[zipf(n, items, 1)]
    queries = names.tolist()

    def ours():
        mech.estimate(mech.aggregate(mech.privatize(data, rng=1))).frequency(queries)

    def draw():
        gen = np.random.default_rng(2)
        gen.integers(0, depth, size=n)
        gen.integers(0, width, size=n)
        gen.random(n)

    mech.estimate(mech.aggregate(mech.privatize(data[:1000], rng=0)))  # warm-up
    judged, _ = compare(
        f"HCMS width={width} depth={depth} {items} items n={n:.0e} end to end, every item queried",
        Contender("ldpkit", ours),
        Contender(
            "the draw of its random numbers: rng.integers(0, depth, n), "
            "rng.integers(0, width, n), rng.random(n)",
            draw,
        ),
        3.0,
    )
    return [judged]


def local_hashing(n: int) -> list[dict]:
    from ldp.mechanisms import BLH, OLH

    k = 1024
    x = zipf(n, k, 3)
    out = []
    for cls in (OLH, BLH):
        mech = cls(k, EPS)
        sizes = tuple(int(s) for s in mech._packing.word_sizes)
        g = int(mech.g)

        def draw(sizes=sizes, g=g):
            gen = np.random.default_rng(2)
            for size in sizes:
                gen.integers(0, size, size=n)
            gen.random(n)
            gen.integers(0, g - 1, size=n)

        mech.aggregate(mech.privatize(x[:1000], rng=0))  # warm-up
        words = ", ".join(f"rng.integers(0, {s}, n)" for s in sizes)
        judged, _ = compare(
            f"{cls.__name__} k={k} n={n:.0e} privatize + aggregate",
            Contender("ldpkit", lambda mech=mech: mech.aggregate(mech.privatize(x, rng=1))),
            Contender(
                f"the draw of its random numbers: {words}, rng.random(n), "
                f"rng.integers(0, g - 1, n) (g = {g})",
                draw,
            ),
            3.0,
        )
        report, peak = traced_peak(lambda mech=mech: mech.privatize(x, rng=1))
        out += [
            judged,
            row(
                f"{cls.__name__} k={k} n={n:.0e} privatize: traced peak / report size",
                peak / np.asarray(report).nbytes,
                "x",
            ),
        ]
    return out


def local_hashing_every_g(n: int) -> list[dict]:
    """Local hashing with ``g`` not a power of two (the field family of an odd prime, the
    ring family) against ``g = 4`` (the binary family OLH takes at eps = 1), k = 1024,
    privatize + aggregate: reported, not judged."""
    from ldp.mechanisms import LocalHashing

    k = 1024
    x = zipf(n, k, 3)
    binary = LocalHashing(k, EPS, 4)
    out = []
    for g in (3, 5, 6, 8):
        mech = LocalHashing(k, EPS, g)
        mech.aggregate(mech.privatize(x[:1000], rng=0))  # warm-up
        kind = mech.sampler()["hash"]["family"]
        times = interleaved(
            [
                Contender("ldpkit", lambda mech=mech: mech.aggregate(mech.privatize(x, rng=1))),
                Contender("g = 4", lambda: binary.aggregate(binary.privatize(x, rng=1))),
            ]
        )
        out.append(
            row(
                f"LocalHashing k={k} n={n:.0e} g={g} ({kind}) privatize + aggregate: CPU "
                "time as a multiple of g=4's",
                times[0] / max(times[1], 1e-12),
                "x",
                cpu_seconds=times[0],
                reference_cpu_seconds=times[1],
            )
        )
    return out


def subset_selection(n: int) -> list[dict]:
    from ldp.mechanisms import SubsetSelection

    out = []
    for k in (64, 1024):
        mech = SubsetSelection(k, EPS)
        bits = int(mech.sampler()["bernoulli_bits"])
        width = (k + 7) // 8
        x = zipf(n, k, 4)
        if bits:
            said = f"rng.random(n), rng.bytes(n * {bits} * {width}) ({bits} packed rows of k bits)"
            if k <= 64:  # a Generator draws a quarter and one 64-bit word a user instead
                said = f"the byte protocol's draw: {said}"

            def draw(bits=bits, width=width):
                gen = np.random.default_rng(2)
                gen.random(n)
                gen.bytes(n * bits * width)

        else:  # Floyd's algorithm: d integers per user, drawn in rounds
            said = f"rng.random(n), d = {mech.d} rounds of rng.integers(0, k - 1, n)"

            def draw(mech=mech, k=k):
                gen = np.random.default_rng(2)
                gen.random(n)
                for _ in range(mech.d):
                    gen.integers(0, k - 1, size=n)

        mech.aggregate(mech.privatize(x[:1000], rng=0))  # warm-up
        judged, _ = compare(
            f"subset selection k={k} d={mech.d} n={n:.0e} privatize + aggregate",
            Contender("ldpkit", lambda mech=mech, x=x: mech.aggregate(mech.privatize(x, rng=1))),
            Contender(f"the draw of its random numbers: {said}", draw),
            2.0,
        )
        out.append(judged)
    return out


# ----------------------------------------------------------------- same-input composition
def composition(k: int, folds: int) -> list[dict]:
    from ldp import Channel
    from ldp.accounting import compose

    matrix = np.random.default_rng(0).dirichlet(np.ones(k), size=k)
    channel = Channel(matrix)
    others = []
    seen: dict[str, float] = {}
    dp_present = importlib.util.find_spec("dp_accounting") is not None
    if dp_present:
        from dp_accounting.pld import privacy_loss_distribution as dpl

        def google() -> float:
            worst = 0.0
            for a in range(k):
                for b in range(k):
                    if a != b:
                        pld = dpl.from_two_probability_mass_functions(
                            dict(enumerate(np.log(matrix[a]))),
                            dict(enumerate(np.log(matrix[b]))),
                            symmetric=False,
                        )
                        worst = max(worst, pld.self_compose(folds).get_delta_for_epsilon(1.0))
            seen["delta_1"] = worst
            return worst

        others.append(Contender("a loop over dp-accounting's PLDs of the ordered pairs", google))
    same = compose(channel, folds).delta(1.0)
    adaptive = compose(channel, folds, adaptive=True).delta(1.0)
    what = f"compose(random {k}x{k} channel, {folds}) same-input, then delta(1)"
    # each contender composes and answers one query: a composition is read through its
    # profile, and the same-input one reads its pairs' profiles while it prunes them
    judged, times = compare(
        what,
        Contender("ldpkit", lambda: compose(channel, folds).delta(1.0)),
        Contender(
            f"the adaptive bound compose(channel, {folds}, adaptive=True).delta(1)",
            lambda: compose(channel, folds, adaptive=True).delta(1.0),
        ),
        5.0,
        others=[
            *others,
            Contender("ldpkit, compose alone", lambda: compose(channel, folds)),
            Contender(
                "the adaptive bound, compose alone",
                lambda: compose(channel, folds, adaptive=True),
            ),
        ],
        delta_1=same,
        adaptive_delta_1=adaptive,
    )
    alone = times[-2:]
    times = times[:-2]
    out = [judged]
    if dp_present:
        out.append(
            row(
                f"{what}: CPU time / a loop over dp-accounting's PLDs of the ordered pairs",
                times[0] / max(times[2], 1e-12),
                "x",
                cpu_seconds=times[0],
                reference_cpu_seconds=times[2],
                reference_delta_1=seen["delta_1"],
            )
        )
    out.append(
        row(
            f"compose(random {k}x{k} channel, {folds}) same-input alone: CPU time / "
            f"compose(channel, {folds}, adaptive=True) alone",
            alone[0] / max(alone[1], 1e-12),
            "x",
            cpu_seconds=alone[0],
            reference_cpu_seconds=alone[1],
        )
    )
    return out


def main(argv: list[str] | None = None) -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument(
        "--only",
        nargs="*",
        default=None,
        choices=["grr", "hcms", "hashing", "subset", "compose"],
    )
    args = p.parse_args(argv)
    pinned = steady_process()  # the runner also pins them before numpy is imported
    quick = args.quick
    n = 20_000 if quick else 1_000_000
    parts = {
        "grr": lambda: grr(n),
        "hcms": lambda: hcms(n),
        "hashing": lambda: local_hashing(n) + local_hashing_every_g(n),
        "subset": lambda: subset_selection(n),
        "compose": lambda: composition(4, 5) if quick else composition(8, 20),
    }
    rows = []
    for name, fn in parts.items():
        if args.only is None or name in args.only:
            rows.extend(fn())
    emit(
        f"speed limits ({pinned})" + (" (quick: sizes too small)" if quick else ""),
        rows,
        args.json,
    )


if __name__ == "__main__":
    main()
