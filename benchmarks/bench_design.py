"""Channel optimizer timings (issue targets in brackets).

* k = 64 linear-utility LP (guessing game) [< 1 s]
* staircase LP, k = 16, mutual information under a random prior [< 10 s]
* an eps-sweep of 20 points with the compiled problem vs 20 fresh solves [sweep faster]
* the optimizer at k = 16 / 32 / 64 (linear utility)

Run: ``python -m benchmarks.bench_design [--quick]`` (``--quick``: staircase LP at k = 12).
"""

import sys
import time

import numpy as np

from ldp.design import LinearDesign, optimal_channel


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    rows = []
    for k in (16, 32, 64):
        result, seconds = timed(lambda k=k: optimal_channel(k, 1.0, utility=np.eye(k)))
        rows.append((f"linear LP k={k}", seconds, "< 1 s" if k == 64 else "", result.value))
    size = 12 if quick else 16
    prior = np.random.default_rng(0).dirichlet(np.ones(size))
    result, seconds = timed(
        lambda: optimal_channel(size, 1.0, utility="mi", prior=prior, method="staircase")
    )
    rows.append((f"staircase LP k={size} (MI)", seconds, "< 10 s at k=16", result.value))
    epsilons = np.linspace(0.1, 4.0, 20)
    design = LinearDesign(np.eye(16))
    _, sweep = timed(lambda: design.sweep(epsilons))
    _, fresh = timed(lambda: [optimal_channel(16, e, utility=np.eye(16)) for e in epsilons])
    rows.append(("20-point sweep, compiled", sweep, f"< fresh ({fresh:.2f} s)", np.nan))
    rows.append(("20 fresh solves", fresh, "", np.nan))
    print(f"{'benchmark':<30}{'seconds':>10}  {'target':<22}{'value':>12}")
    for name, seconds, target, value in rows:
        print(f"{name:<30}{seconds:>10.3f}  {target:<22}{value:>12.6g}")


if __name__ == "__main__":
    main()
