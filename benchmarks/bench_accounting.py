"""Accounting speed: exact composition of 1e4 k-RR reports, Edgeworth queries, Theorem 2.

Targets: the profile of 10,000 composed 5-RR reports at 100 epsilons in under 1 s; one
Edgeworth query in under 1 ms. Every time is CPU time of this process, the median of three
runs (``benchmarks/_timing.py``); the single-run rows (Theorem 2, SGD, dp-accounting) are
information. Run: ``python benchmarks/bench_accounting.py``.
Optional comparison with dp-accounting (Google) when it is installed.
"""

from __future__ import annotations

import numpy as np

from benchmarks._timing import REPEAT, cpu_median, steady_process
from ldp import k_rr
from ldp.accounting import compose, compose_eps_delta_eta, edgeworth_value_approx, laplace_cumulants
from ldp.accounting.central import PoissonSubsampledGaussian


def timed(fn, repeat: int = REPEAT) -> tuple[float, object]:
    """``(median CPU seconds over repeat runs, the result)`` (``benchmarks/_timing.py``)."""
    return cpu_median(fn, repeat)


def main() -> None:
    print(steady_process() + "; CPU time, median of three")
    eps_grid = np.linspace(0.0, 4000.0, 100)

    def krr_profile():
        return compose(k_rr(5, 1.0), 10_000).delta(eps_grid)

    seconds, profile = timed(krr_profile)
    print(f"exact 10^4 x 5-RR, profile at 100 eps: {seconds * 1e3:8.1f} ms (target < 1000 ms)")
    assert np.all(np.diff(profile) <= 1e-12)

    kp, kq = laplace_cumulants(0.3)
    n = 2000

    def queries() -> None:
        for _ in range(n):
            edgeworth_value_approx(kp, kq, 100, 0.05)

    per = timed(queries)[0] / n
    print(f"Edgeworth query (degree 2, root):       {per * 1e3:8.3f} ms (target < 1 ms)")

    seconds, _ = timed(lambda: compose_eps_delta_eta(0.01, 1e-7, 0.004, 3516).delta(1.0), 1)
    print(f"Ghazi-Issa (2023) Theorem 2, k = 3516:  {seconds * 1e3:8.1f} ms")

    seconds, sgd = timed(lambda: PoissonSubsampledGaussian(0.01, 1.0, 1000).epsilon(1e-5), 1)
    print(
        f"Poisson SGD q=0.01 sigma=1 T=1000:      {seconds * 1e3:8.1f} ms, eps(1e-5) <= {sgd:.4f}"
    )

    try:
        from dp_accounting.pld import privacy_loss_distribution as dpl
    except ImportError:
        print("dp-accounting not installed: skipping the comparison")
        return

    def google():
        pld = dpl.from_gaussian_mechanism(
            1.0, sampling_prob=0.01, value_discretization_interval=5e-5
        )
        return pld.self_compose(1000).get_epsilon_for_delta(1e-5)

    seconds, value = timed(google, 1)
    print(
        f"dp-accounting, same SGD setting:        {seconds * 1e3:8.1f} ms, eps(1e-5) = {value:.4f}"
    )


if __name__ == "__main__":
    main()
