"""Unit-vector means: PrivUnit and PrivUnitG against Duchi et al.'s l2 mechanism.

For each dimension ``d`` and budget ``eps``: the exact per-user error ``E||Z - u||^2`` of
PrivUnit (exact-epsilon design), of the Theorem 1 budget split of the reference
implementations, of PrivUnitG and of :class:`~ldp.mechanisms.DuchiL2`; the error of the mean
of ``n`` users' reports measured by simulation (target: within 5% of ``error / n``, and
PrivUnit below DuchiL2); and the privatize throughput. No peer is installable: the PyPI
release of apple's pfl (0.6.0) does not ship PrivUnit, and Google's code is research code
outside any package.

Run: ``python -m benchmarks.bench_vector_means [--quick] [--json out.json]``.
"""

from __future__ import annotations

import numpy as np

from benchmarks._common import emit, parser, row, timed
from ldp.mechanisms import DuchiL2, PrivUnit, PrivUnitG, privunit_design


def _unit_vectors(n: int, d: int, seed: int) -> np.ndarray:
    """``n`` unit vectors clustered around one direction (an embedding-like population)."""
    rng = np.random.default_rng(seed)
    centre = rng.normal(size=d)
    x = centre / np.linalg.norm(centre) + rng.normal(scale=0.5 / np.sqrt(d), size=(n, d))
    return x / np.linalg.norm(x, axis=1)[:, None]


def case(d: int, eps: float, n: int, repeats: int) -> list[dict]:
    x = _unit_vectors(n, d, seed=d)
    truth = x.mean(axis=0)
    rows = []
    errors = {}
    for mech in (PrivUnit(eps, d), PrivUnitG(eps, d), DuchiL2(eps, d)):
        expected = float(mech.per_user_variance(x).mean()) / n  # E||mean - truth||^2
        observed, seconds = [], 0.0
        for r in range(repeats):
            reports, took = timed(lambda m=mech, r=r: m.privatize(x, rng=1000 * r + 7))
            seconds += took
            observed.append(float(((mech.estimate(reports) - truth) ** 2).sum()))
        measured = float(np.mean(observed))
        errors[mech.name] = expected
        # the squared error of one run has sd ~ sqrt(2/d) of its mean (d roughly equal parts)
        tolerance = 0.05 + 3 * np.sqrt(2.0 / (d * repeats))
        within = abs(measured / expected - 1) <= tolerance
        label = f"{mech.name} d={d} eps={eps:g}"
        rows.append(
            row(
                f"{label}: n x squared error of the mean",
                measured * n,
                "",
                f"{expected * n:.4g} +- {tolerance:.0%}",
                bool(within),
            )
        )
        rows.append(row(f"{label}: privatize", n * repeats / seconds / 1e3, "k/s"))
    loose = privunit_design(eps, d, split="theorem1")
    rows.append(
        row(
            f"PrivUnit d={d} eps={eps:g}: Theorem 1 split / exact error",
            loose.error / privunit_design(eps, d).error,
            "x",
            f"(spends {loose.epsilon:.4g})",
        )
    )
    ratio = errors["DuchiL2"] / errors["privunit"]
    rows.append(
        row(f"DuchiL2 / PrivUnit error, d={d} eps={eps:g}", ratio, "x", ">= 1", bool(ratio >= 1))
    )
    return rows


def run(quick: bool = False) -> list[dict]:
    n, repeats = (2_000, 3) if quick else (20_000, 5)
    sizes = [(16, 1.0), (256, 4.0)] if quick else [(16, 1.0), (256, 1.0), (256, 4.0), (1024, 8.0)]
    rows = []
    for d, eps in sizes:
        rows += case(d, eps, n, repeats)
    return rows


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    emit("Unit-vector means: PrivUnit, PrivUnitG, DuchiL2", run(args.quick), args.json)


if __name__ == "__main__":
    main()
