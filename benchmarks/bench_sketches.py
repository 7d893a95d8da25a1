"""Count-mean sketches end to end (privatize + aggregate + estimate, then a query of every
item): ldpkit's CMS and HCMS against pure-ldp's ``CMSClient``/``CMSServer`` (plain and
``is_hadamard``), in one process and one run.

The data are ``n`` strings drawn from a Zipf(1.1) law over ``d`` distinct items; both
libraries use the same ``eps``, width ``m`` and depth ``k`` (their own hash functions:
pure-ldp's xxhash, ldpkit's salted SHA-256). MSE is the mean over the ``d`` items of
(estimated - true frequency)^2 for one run (unbiased estimators on both sides, so the MSEs
should agree up to noise). pure-ldp privatizes and aggregates one user at a time in Python
(``pip install ldpkit[bench]``; it needs ``xxhash < 4`` and imports statsmodels); when it is
not installed its rows are skipped. Both are timed by CPU, interleaved, median of three
(``benchmarks/_timing.py``).

Run: ``python -m benchmarks.bench_sketches [--quick] [--json out.json]``.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from benchmarks._common import emit, parser, row
from benchmarks._timing import Contender, compare, steady_process

EPS = 2.0
WIDTH = 1024
DEPTH = 16
ITEMS = 1_000
#: target: pure-ldp time / ldpkit time. Lower than the frequency oracles' 50x: both sides
#: hash every item (pure-ldp with xxhash in C; ldpkit with the portable salted SHA-256 that
#: the clients implement, once per distinct (row, item) pair), and a CMS report is ``m``
#: exact random bits on either side.
GOAL = 10.0


def zipf_items(n: int, seed: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, ITEMS + 1) ** 1.1
    index = np.random.default_rng(seed).choice(ITEMS, size=n, p=weights / weights.sum())
    return np.array([f"item-{i}" for i in range(ITEMS)])[index]


def ldpkit_runner(name: str):
    from ldp.mechanisms import CMS, HCMS

    mech = (CMS if name == "cms" else HCMS)(EPS, width=WIDTH, depth=DEPTH, salt="bench")

    def run(items: np.ndarray, queries: list[str]) -> np.ndarray:
        sketch = mech.estimate(mech.aggregate(mech.privatize(items, rng=1)))
        return np.asarray(sketch.frequency(queries))

    return run


def pure_ldp_runner(name: str):
    if importlib.util.find_spec("pure_ldp") is None:
        return None
    from pure_ldp.core import _freq_oracle_server as base
    from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer

    init = base.FreqOracleServer.__init__
    if not getattr(init, "numpy2_shim", False):
        # pure-ldp's server base calls np.zeros(d) with d = None for sketches, which numpy >= 2
        # refuses: give it a 0-d shape instead (the sketch server never reads d or those arrays)
        def shim(self, epsilon, d, index_mapper=None):
            init(self, epsilon, () if d is None else d, index_mapper)

        shim.numpy2_shim = True  # type: ignore[attr-defined]
        base.FreqOracleServer.__init__ = shim

    def run(items: np.ndarray, queries: list[str]) -> np.ndarray:
        hadamard = name == "hcms"
        server = CMSServer(EPS, DEPTH, WIDTH, is_hadamard=hadamard)
        client = CMSClient(EPS, server.get_hash_funcs(), WIDTH, is_hadamard=hadamard)
        for item in items.tolist():
            server.aggregate(client.privatise(item))
        counts = [server.estimate(q, suppress_warnings=True) for q in queries]
        return np.asarray(counts, dtype=float) / items.size

    return run


def rows_for(n: int) -> list[dict]:
    items = zipf_items(n, seed=5)
    queries = [f"item-{i}" for i in range(ITEMS)]
    truth = np.array([np.count_nonzero(items == q) for q in queries]) / n
    out = []
    for name in ("cms", "hcms"):
        ldpkit = ldpkit_runner(name)
        ours = ldpkit(items, queries)  # also the warm-up
        mse = float(np.mean((ours - truth) ** 2))
        what = f"{name} m={WIDTH} k={DEPTH} n={n:.0e} end to end"
        runner = pure_ldp_runner(name)
        if runner is None:
            out.append(
                row(
                    f"{what}: CPU time of pure-ldp / ldpkit's",
                    None,
                    "",
                    f">= {GOAL:g}x",
                    None,
                    status="skipped",
                    note="pure_ldp not installed",
                )
            )
            continue
        runner(items[:20], queries[:5])  # warm-up
        theirs = runner(items, queries)
        judged, _ = compare(
            what,
            Contender("ldpkit", lambda ldpkit=ldpkit: ldpkit(items, queries)),
            Contender("pure-ldp", lambda runner=runner: runner(items, queries)),
            GOAL,
            speedup=True,
            mse=mse,
            reference_mse=float(np.mean((theirs - truth) ** 2)),
        )
        out.append(judged)
    return out


def main(argv: list[str] | None = None) -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=None, help="users")
    args = p.parse_args(argv)
    steady_process()
    n = args.n or (5_000 if args.quick else 100_000)
    emit("sketches vs pure-ldp" + (" (quick)" if args.quick else ""), rows_for(n), args.json)


if __name__ == "__main__":
    main()
