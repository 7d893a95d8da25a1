"""Exact privacy of a dense 1024 x 1024 channel: epsilon, eta-TV and delta(1.0).

Target (issue 2): under 2 s for all three on the project machine (2 cores).
Run: ``python benchmarks/bench_channel.py``.
"""

import time

import numpy as np

from ldp import Channel

TARGET_SECONDS = 2.0


def main() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.dirichlet(np.ones(1024), size=1024)
    start = time.perf_counter()
    channel = Channel(matrix)
    eps, tv, delta = channel.epsilon, channel.tv, channel.delta(1.0)
    elapsed = time.perf_counter() - start
    print(f"1024 x 1024 channel: epsilon={eps:.4f} tv={tv:.4f} delta(1)={delta:.4f}")
    verdict = "ok" if elapsed < TARGET_SECONDS else "SLOWER THAN TARGET"
    print(f"time {elapsed:.3f} s (target < {TARGET_SECONDS} s): {verdict}")


if __name__ == "__main__":
    main()
