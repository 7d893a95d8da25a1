"""Frequency oracles end to end (privatize + aggregate + estimate): ldpkit against the time
numpy needs to draw the random numbers each oracle consumes, and against the peer libraries
pure-ldp and multi-freq-ldpy, in one process: CPU time, the contenders of each ratio
interleaved, median of three (``benchmarks/_timing.py``).

The peers are found by importing their packages (``pip install ldpkit[bench]``; pure-ldp
needs ``xxhash < 4`` and imports statsmodels without declaring it); a peer that is not
installed gives a "skipped" row. ``--peers PREFIX`` also appends a separate environment's
site-packages to ``sys.path`` *after* the project's, so both sides use the same numpy::

    python -m benchmarks.bench_frequency_oracles [--peers /tmp/peers]

The peers privatize and decode one user at a time in Python; at the largest sizes that
takes minutes to hours (OLH decoding is O(n k) hash calls), so they run at ``--peer-n``
users (default 1e5 for k = 64 and 1e4 for k = 1024) and the ratio is taken against ldpkit
at that same n. MSE is the mean over the k values of (estimate - true frequency)^2 for one
run. pure-ldp's estimates are raw (unbiased), as are ldpkit's; multi-freq-ldpy clips
negatives and renormalises (its default), so its rows are compared with ldpkit's estimate
post-processed the same way (:func:`ldp.tasks.norm_mul`). Each peer is called once on
a few users before it is timed (numba compilation is not counted). Target (issue 6):
>= 50x faster than pure-ldp and >= 20x faster than multi-freq-ldpy, at equal or lower MSE.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys

import numpy as np

from benchmarks._timing import Contender, interleaved, pin_threads
from ldp.mechanisms import GRR, OLH, OUE, HadamardResponse
from ldp.tasks import norm_mul

EPS = 1.0
ORACLES = {"GRR": GRR, "OUE": OUE, "OLH": OLH, "HR": HadamardResponse}


def zipf_data(n: int, k: int, seed: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, k + 1) ** 1.1
    return np.random.default_rng(seed).choice(k, size=n, p=weights / weights.sum())


def ldpkit_run(name: str, x: np.ndarray, k: int, seed: int):
    """One end-to-end run of the ldpkit oracle: a function returning its estimate."""
    mech = ORACLES[name](k, EPS)

    def go():
        return mech.estimate(mech.aggregate(mech.privatize(x, rng=seed)))

    return go


def against_draw(name: str, x: np.ndarray, k: int, seed: int):
    """``(estimate, ldpkit CPU s, draw CPU s)``: the two interleaved, median of three."""
    go = ldpkit_run(name, x, k, seed)
    box: list = [None]

    def ours() -> None:
        box[0] = go()

    ours_s, draw_s = interleaved(
        [
            Contender("ldpkit", ours),
            Contender("the draw", lambda: draw_reference(name, x.size, k, seed + 1)),
        ]
    )
    return box[0], ours_s, draw_s


def draw_reference(name: str, n: int, k: int, seed: int) -> None:
    """Draw the random numbers the ldpkit oracle consumes (what the ratio is against)."""
    gen = np.random.default_rng(seed)
    mech = ORACLES[name](k, EPS)
    if name == "GRR":
        gen.random(n)
        gen.integers(0, k - 1, size=n)
    elif name == "OUE":  # one byte per bit, 1/256 of them refined, one float per user
        step = max(1, (1 << 22) // k)
        for s in range(0, n, step):
            gen.bytes(min(step, n - s) * k)
        gen.random(n * k // 256)
        gen.random(n)
    elif name == "OLH":
        for top in mech._packing.word_sizes:
            gen.integers(0, top, size=n)
        gen.random(n)
        gen.integers(0, mech.g - 1, size=n)
    else:
        gen.random(n)
        gen.integers(0, mech.K, size=n)


# ----------------------------------------------------------------- peers
def add_peer_path(prefix: str) -> None:
    for site in glob.glob(os.path.join(prefix, "lib", "python*", "site-packages")):
        if site not in sys.path:
            sys.path.append(site)


def pure_ldp_runner(name: str):
    try:
        from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
        from pure_ldp.frequency_oracles.hadamard_response import (
            HadamardResponseClient,
            HadamardResponseServer,
        )
        from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
        from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer
    except ImportError:
        return None

    def ident(v):
        return v

    def run(x: np.ndarray, k: int) -> np.ndarray:
        if name == "GRR":
            client, server = DEClient(EPS, k, ident), DEServer(EPS, k, ident)
        elif name == "OUE":
            client = UEClient(EPS, k, use_oue=True, index_mapper=ident)
            server = UEServer(EPS, k, use_oue=True, index_mapper=ident)
        elif name == "OLH":
            client = LHClient(EPS, k, use_olh=True, index_mapper=ident)
            server = LHServer(EPS, k, use_olh=True, index_mapper=ident)
        else:
            server = HadamardResponseServer(EPS, k, index_mapper=ident)
            client = HadamardResponseClient(EPS, k, server.get_hash_funcs(), index_mapper=ident)
        for v in x.tolist():
            server.aggregate(client.privatise(v))
        counts = server.estimate_all(range(k), suppress_warnings=True)
        return np.asarray(counts, dtype=float) / x.size

    return run


def multi_freq_runner(name: str):
    try:
        from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Aggregator_MI, GRR_Client
        from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Aggregator_MI, LH_Client
        from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Aggregator_MI, UE_Client
    except ImportError:
        return None
    if name == "HR":
        return None  # not provided by multi-freq-ldpy

    def run(x: np.ndarray, k: int) -> np.ndarray:
        values = x.tolist()
        if name == "GRR":
            return GRR_Aggregator_MI([GRR_Client(v, k, EPS) for v in values], k, EPS)
        if name == "OUE":
            return UE_Aggregator_MI([UE_Client(v, k, EPS, True) for v in values], EPS, True)
        return LH_Aggregator_MI([LH_Client(v, k, EPS, True) for v in values], k, EPS, True)

    return run


# ----------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", default=None, help="prefix of an extra venv holding peers")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peer-n", type=int, default=None, help="users per peer run")
    parser.add_argument("--sizes", default="100000,1000000")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]

    print(f"ldpkit, eps = {EPS}, {os.cpu_count()} CPUs, numpy {np.__version__}; {pin_threads()}")
    print("CPU time of this process, contenders interleaved, median of three")
    print(
        f"{'oracle':<5} {'k':>5} {'n':>8} {'cpu s':>7} {'draw s':>7} "
        f"{'x draw':>6} {'MSE':>10} {'n*MSE':>8}"
    )
    for name in ORACLES:  # warm-up: first-touch page faults and imports are not timed
        ldpkit_run(name, zipf_data(20_000, 64, seed=0), 64, seed=0)()
    for k in (64, 1024):
        for n in sizes:
            x = zipf_data(n, k, seed=k + n)
            truth = np.bincount(x, minlength=k) / n
            for name in ORACLES:
                est, cpu, draw = against_draw(name, x, k, seed=1)
                mse = float(np.mean((est - truth) ** 2))
                print(
                    f"{name:<5} {k:>5} {n:>8} {cpu:7.3f} {draw:7.3f} "
                    f"{cpu / max(draw, 1e-12):6.2f} {mse:10.3e} {n * mse:8.3f}"
                )

    if args.no_peers:
        return
    if args.peers:
        add_peer_path(args.peers)
    print("\npeers (imported by package name); ratio = peer CPU time / ldpkit CPU time at the")
    print("same n, the two interleaved, median of three")
    print(
        f"{'library':<16} {'oracle':<5} {'k':>5} {'n':>7} {'cpu s':>8} "
        f"{'MSE':>10} {'ldpkit s':>9} {'ldpkit MSE':>10} {'ratio':>7}"
    )
    for k in (64, 1024):
        n = args.peer_n or (100_000 if k == 64 else 10_000)
        x = zipf_data(n, k, seed=7 * k + n)
        truth = np.bincount(x, minlength=k) / n
        for name in ORACLES:
            go = ldpkit_run(name, x, k, seed=3)
            est = go()
            mse_raw = float(np.mean((est - truth) ** 2))
            mse_mul = float(np.mean((norm_mul(est) - truth) ** 2))
            for label, factory in (
                ("pure-ldp", pure_ldp_runner),
                ("multi-freq-ldpy", multi_freq_runner),
            ):
                runner = factory(name)
                if runner is None:
                    print(
                        f"{label:<16} {name:<5} {k:>5} {n:>7}  skipped (not installed or no {name})"
                    )
                    continue
                runner(x[:50], k)  # warm-up (numba compilation)
                box: list = [None]

                def peer(runner=runner, x=x, k=k, box=box) -> None:
                    box[0] = runner(x, k)

                cpu_ours, cpu = interleaved([Contender("ldpkit", go), Contender(label, peer)])
                mse_ours = mse_mul if label == "multi-freq-ldpy" else mse_raw
                mse = float(np.mean((np.asarray(box[0]) - truth) ** 2))
                print(
                    f"{label:<16} {name:<5} {k:>5} {n:>7} {cpu:8.2f} {mse:10.3e} "
                    f"{cpu_ours:9.4f} {mse_ours:10.3e} {cpu / max(cpu_ours, 1e-12):7.0f}"
                )


if __name__ == "__main__":
    main()
