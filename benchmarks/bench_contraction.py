"""Time the exact KL contraction coefficient of a 256-input channel (target: under 2 s).

The channel is a 256 x 256 row-stochastic matrix with Dirichlet(1) rows. The coefficient is
exact (binary-input reduction plus a vectorised 1-D concave search per input pair, with
pairs pruned by tangent-line bounds); k-RR(256), whose closed form is known, is timed as a
second case and its value checked. Times are CPU time of this process, the median of the
runs (``benchmarks/_timing.py``). Not part of the test suite::

    python benchmarks/bench_contraction.py [--repeat N]
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._timing import REPEAT, cpu_median, steady_process
from ldp import Channel, k_rr
from ldp.contraction import coefficient, k_rr_coefficient

TARGET_SECONDS = 2.0


def cpu_time(channel: Channel, repeat: int) -> tuple[float, float]:
    """Median CPU seconds of the KL coefficient over ``repeat`` runs, and its value."""
    seconds, value = cpu_median(lambda: coefficient(channel, "kl").value, repeat)
    return seconds, float(value)  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=REPEAT, help="odd: the median is a run")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    random_channel = Channel(rng.dirichlet(np.ones(256), size=256))
    cases = {
        "random 256x256 (Dirichlet(1) rows)": (random_channel, None),
        "k-RR, k = 256, eps = 2": (k_rr(256, 2.0), k_rr_coefficient("kl", 256, 2.0)),
    }
    print(steady_process())
    print(f"target: under {TARGET_SECONDS:.1f} s of CPU time per KL coefficient (median)")
    for name, (channel, expected) in cases.items():
        seconds, value = cpu_time(channel, args.repeat)
        status = "OK" if seconds < TARGET_SECONDS else "SLOW"
        check = "" if expected is None else f", closed form {expected:.12f}"
        print(f"{name:<38} eta_KL = {value:.12f}{check}  CPU {seconds:.3f} s  [{status}]")


if __name__ == "__main__":
    main()
