"""Frequency oracles end to end (privatize + aggregate + estimate): ldpkit against the time
numpy needs to draw the random numbers each oracle consumes, and against the peer libraries
pure-ldp and multi-freq-ldpy, in one process: CPU time, the contenders of each ratio
interleaved, median of three (``benchmarks/_timing.py``).

What each side of a peer ratio times is defined once, in ``benchmarks/_peers.py`` (the
same runners serve ``bench_targets``, whose rows carry the verdicts). The peers are found by
importing their packages (``pip install ldpkit[bench]``; pure-ldp
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

from benchmarks._peers import EPS, ORACLES, PEERS, ldpkit_run, peer_runner
from benchmarks._peers import zipf as zipf_data
from benchmarks._timing import Contender, interleaved, steady_process
from ldp.tasks import norm_mul

#: the oracles of the table against the draw (each with its draw in :func:`draw_reference`)
DRAWN = ("GRR", "OUE", "OLH", "HR")


def against_draw(name: str, x: np.ndarray, k: int, seed: int):
    """``(estimate, ldpkit CPU s, draw CPU s)``: the two interleaved, median of three."""
    go = ldpkit_run(name, x, k, rng=seed)
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
    elif name == "OUE":  # 16 bits per byte of eight coins, eight digit planes of own bits
        gen.integers(0, 1 << 64, size=-(-n * ((k + 7) // 8) // 4), dtype=np.uint64)
        gen.integers(0, 1 << 64, size=8 * -(-n // 64), dtype=np.uint64)
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


# ----------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", default=None, help="prefix of an extra venv holding peers")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peer-n", type=int, default=None, help="users per peer run")
    parser.add_argument("--sizes", default="100000,1000000")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]

    print(f"ldpkit, eps = {EPS}, {os.cpu_count()} CPUs, numpy {np.__version__}; {steady_process()}")
    print("CPU time of this process, contenders interleaved, median of three")
    print(
        f"{'oracle':<5} {'k':>5} {'n':>8} {'cpu s':>7} {'draw s':>7} "
        f"{'x draw':>6} {'MSE':>10} {'n*MSE':>8}"
    )
    for name in DRAWN:  # warm-up: first-touch page faults and imports are not timed
        ldpkit_run(name, zipf_data(20_000, 64, seed=0), 64, rng=0)()
    for k in (64, 1024):
        for n in sizes:
            x = zipf_data(n, k, seed=k + n)
            truth = np.bincount(x, minlength=k) / n
            for name in DRAWN:
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
            go = ldpkit_run(name, x, k)
            est = go()
            mse_raw = float(np.mean((est - truth) ** 2))
            mse_mul = float(np.mean((norm_mul(est) - truth) ** 2))
            for label, _, _ in PEERS:
                peer = peer_runner(label, name)
                if peer is None:
                    print(
                        f"{label:<16} {name:<5} {k:>5} {n:>7}  skipped (not installed or no {name})"
                    )
                    continue
                peer.run(x[:50], k)  # warm-up (numba compilation)
                box: list = [None]

                def run_peer(run=peer.run, x=x, k=k, box=box) -> None:
                    box[0] = run(x, k)

                cpu_ours, cpu = interleaved([Contender("ldpkit", go), Contender(label, run_peer)])
                mse_ours = mse_mul if peer.normalised else mse_raw
                mse = float(np.mean((np.asarray(box[0]) - truth) ** 2))
                print(
                    f"{label:<16} {name:<5} {k:>5} {n:>7} {cpu:8.2f} {mse:10.3e} "
                    f"{cpu_ours:9.4f} {mse_ours:10.3e} {cpu / max(cpu_ours, 1e-12):7.0f}"
                )


if __name__ == "__main__":
    main()
