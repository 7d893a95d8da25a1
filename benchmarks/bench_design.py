"""Channel optimizer timings, by CPU time (``benchmarks/_timing.py``; targets in brackets).

* the linear-utility design LP (guessing game, ``U = I``, uniform prior, eps = 1) at
  k = 16 / 32 / 64: ``optimal_channel(k, 1, utility=np.eye(k))`` against scipy's
  ``linprog(method="highs")`` solving the same LP in its textbook form (variables ``K`` and
  the column minima ``low``; ``low <= K <= e^eps low``, rows of ``K`` sum to one; sparse
  matrices built before the clock starts), interleaved, median of three [no slower than
  linprog, the same optimum within 1e-7]; the same LP as a cvxpy problem is timed
  alongside (reported);
* staircase LP, k = 16, mutual information under a random prior [< 10 s CPU];
* an eps-sweep of 20 points with the compiled problem against 20 fresh solves, pure LDP
  (the HiGHS form) and with an eta-TV budget (the cvxpy program, canonicalised once):
  reported, no longer a target (the solves dominate both sides: 0.92x to 0.99x, a ratio
  whose verdict would flip with noise).

Run: ``python -m benchmarks.bench_design [--quick] [--json out.json]`` (``--quick``: the
staircase LP at k = 12, the LP at k = 16 only).
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks._common import emit, parser, row
from benchmarks._timing import Contender, compare, interleaved, steady_process

EPS = 1.0


def textbook_lp(gains: np.ndarray, prior: np.ndarray, epsilon: float):
    """The arguments of ``linprog`` for the pure-LDP design LP in its textbook form:
    variables ``K`` (``k x m``, row-major) then ``low`` (``m``); maximise
    ``sum prior_x gains[x, z] K[x, z]``; ``low_z <= K[x, z] <= e^eps low_z``; rows sum to 1."""
    from scipy import sparse

    k, m = gains.shape
    eye = sparse.identity(k * m, format="csr")
    spread = sparse.kron(np.ones((k, 1)), sparse.identity(m), format="csr")  # low_z per entry
    a_ub = sparse.vstack(
        [sparse.hstack([-eye, spread]), sparse.hstack([eye, -math.exp(epsilon) * spread])],
        format="csr",
    )
    a_eq = sparse.hstack(
        [sparse.kron(sparse.identity(k), np.ones((1, m))), sparse.csr_matrix((k, m))],
        format="csr",
    )
    cost = np.concatenate([-(prior[:, None] * gains).ravel(), np.zeros(m)])
    return {
        "c": cost,
        "A_ub": a_ub,
        "b_ub": np.zeros(2 * k * m),
        "A_eq": a_eq,
        "b_eq": np.ones(k),
        "bounds": (0, None),
        "method": "highs",
    }


def cvxpy_problem(gains: np.ndarray, prior: np.ndarray, epsilon: float):
    """The same LP as a cvxpy problem (solved by its default LP solver)."""
    import cvxpy as cp

    k, m = gains.shape
    matrix = cp.Variable((k, m), nonneg=True)
    low = cp.Variable(m, nonneg=True)
    spread = np.ones((k, 1)) @ cp.reshape(low, (1, m), order="C")
    objective = cp.Maximize(cp.sum(cp.multiply(prior[:, None] * gains, matrix)))
    constraints = [
        cp.sum(matrix, axis=1) == 1,
        matrix >= spread,
        matrix <= math.exp(epsilon) * spread,
    ]
    return cp.Problem(objective, constraints)


def linear_rows(sizes: tuple[int, ...]) -> list[dict]:
    from scipy.optimize import linprog

    from ldp.design import optimal_channel

    out = []
    for k in sizes:
        gains, prior = np.eye(k), np.full(k, 1.0 / k)
        arguments = textbook_lp(gains, prior, EPS)
        problem = cvxpy_problem(gains, prior, EPS)
        ours = optimal_channel(k, EPS, utility=gains).value  # also the warm-up
        reference = -float(linprog(**arguments).fun)
        judged, times = compare(
            f"linear design LP k={k}",
            Contender("ldpkit", lambda k=k, gains=gains: optimal_channel(k, EPS, utility=gains)),
            Contender(
                "scipy linprog(method='highs') on the textbook LP (K, low; matrices prebuilt)",
                lambda arguments=arguments: linprog(**arguments),
            ),
            1.0,
            others=[Contender("cvxpy", lambda problem=problem: problem.solve())],
            optimum=ours,
            reference_optimum=reference,
        )
        same = abs(ours - reference) <= 1e-7
        judged.update(
            target="<= 1x, same optimum",
            ok=bool(judged["ok"] and same),
            cvxpy_cpu_seconds=times[2],
        )
        out.append(judged)
    return out


def other_rows(quick: bool) -> list[dict]:
    from ldp.design import LinearDesign, optimal_channel

    size = 12 if quick else 16
    prior = np.random.default_rng(0).dirichlet(np.ones(size))
    [seconds] = interleaved(
        [
            Contender(
                "staircase",
                lambda: optimal_channel(size, 1.0, utility="mi", prior=prior, method="staircase"),
            )
        ]
    )
    staircase = row(f"staircase LP k={size} (MI): CPU", seconds, "s", "< 10 s", seconds < 10.0)
    epsilons = np.linspace(0.1, 4.0, 20)
    rows = [staircase]
    for eta in (None, 0.5):
        design = LinearDesign(np.eye(16), eta=eta)
        judged, _ = compare(
            f"20-point eps sweep of LinearDesign(np.eye(16), eta={eta})",
            Contender("ldpkit", lambda design=design: design.sweep(epsilons)),
            Contender(
                "20 fresh optimal_channel solves",
                lambda eta=eta: [
                    optimal_channel(16, e, utility=np.eye(16), eta=eta) for e in epsilons
                ],
            ),
            1.0,
        )
        judged.update(target="", ok=None)  # reported: the solves dominate both sides
        rows.append(judged)
    return rows


def main(argv: list[str] | None = None) -> None:
    p = parser(__doc__.splitlines()[0])
    args = p.parse_args(argv)
    pinned = steady_process()
    rows = linear_rows((16,) if args.quick else (16, 32, 64)) + other_rows(args.quick)
    emit(f"design ({pinned})" + (" (quick)" if args.quick else ""), rows, args.json)


if __name__ == "__main__":
    main()
