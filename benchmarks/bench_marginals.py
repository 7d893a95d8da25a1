"""Marginals of a real table: average total-variation error of every 2-way and 3-way marginal.

The table is the UCI Adult census extract shipped with the library (32,561 people,
``ldp.datasets.load_adult_categorical(grouped=True)``), restricted to eight columns with
public categories: age band (6), work class (4), education (5), marital status (3), race (5),
sex (2), hours band (4) and income (2). Each person sends one report (``epsilon``-LDP); the
truth is the table's own marginals. For each epsilon in {0.5, 1, 2, 4} and each collection
design of :class:`estimators.MarginalEstimator` (``"joint"``: one oracle on the full joint;
``"groups"``: the devices split into one group per marginal, each with the best oracle and
consistency across overlapping marginals, Zhang et al. (2018); ``"auto"``: the design of
smallest exact variance), against the baseline of independent per-marginal groups without
consistency (``method="groups", consistency=False``), the error of a marginal is the total
variation distance ``1/2 sum |estimate - truth|`` of the (non-negative, normalised) estimate,
averaged over all marginals of the order and over repetitions. The Fourier design needs binary
columns, so it does not apply to this table.

Run: ``python -m benchmarks.bench_marginals [--quick] [--json out.json] [--figure out.png]``.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd

from benchmarks._common import emit, parser, row
from estimators import MarginalEstimator
from ldp.datasets import load_adult_categorical

COLUMNS = [
    "age",
    "workclass",
    "education",
    "marital_status",
    "race",
    "sex",
    "hours_per_week",
    "income",
]
EPSILONS = (0.5, 1.0, 2.0, 4.0)
#: label -> MarginalEstimator keywords
METHODS = {
    "auto": {"method": "auto"},
    "joint": {"method": "joint"},
    "groups": {"method": "groups"},
    "groups, no consistency (baseline)": {"method": "groups", "consistency": False},
}


def _tv(estimate: pd.DataFrame, truth: pd.Series, columns: tuple[str, ...]) -> float:
    values = np.clip(estimate["estimate"].to_numpy(dtype=float), 0.0, None)
    total = values.sum()
    values = values / total if total > 0 else np.full(values.size, 1.0 / values.size)
    index = pd.MultiIndex.from_frame(estimate[list(columns)].astype(str))
    true = truth.reindex(index, fill_value=0.0).to_numpy(dtype=float)
    return 0.5 * float(np.abs(values - true).sum())


def _truth(table: pd.DataFrame, columns: tuple[str, ...]) -> pd.Series:
    counts = table[list(columns)].astype(str).value_counts(normalize=True)
    return counts


def errors(table: pd.DataFrame, order: int, epsilon: float, keywords: dict, repeats: int) -> float:
    marginals = list(itertools.combinations(COLUMNS, order))
    truths = {m: _truth(table, m) for m in marginals}
    out = []
    for rep in range(repeats):
        est = MarginalEstimator(epsilon, marginals=order, random_state=rep, **keywords)
        est.fit(table[COLUMNS])
        out.append(np.mean([_tv(est.marginal(list(m)), truths[m], m) for m in marginals]))
    return float(np.mean(out))


def run(repeats: int, epsilons: tuple[float, ...], orders: tuple[int, ...]) -> list[dict]:
    table = load_adult_categorical(grouped=True)
    rows = []
    for order in orders:
        for eps in epsilons:
            results = {}
            for label, keywords in METHODS.items():
                results[label] = errors(table, order, eps, keywords, repeats)
                rows.append(
                    row(f"Adult {order}-way eps={eps:g}: {label}", results[label], "avg TV")
                )
            best = min(v for k, v in results.items() if k != "auto")
            ratio = results["auto"] / best
            rows.append(
                row(
                    f"Adult {order}-way eps={eps:g}: auto / best single design",
                    ratio,
                    "x",
                    "<= 1.1x",
                    bool(ratio <= 1.1),
                )
            )
    return rows


def figure(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, order in zip(axes, (2, 3)):
        for label in METHODS:
            points = [
                (eps, r["value"])
                for eps in EPSILONS
                for r in rows
                if r["benchmark"] == f"Adult {order}-way eps={eps:g}: {label}"
            ]
            if points:
                xs, ys = zip(*points)
                dashed = label == "auto"  # auto lies on the design it picks: draw it over it
                ax.plot(
                    xs,
                    ys,
                    marker="x" if dashed else "o",
                    linestyle="--" if dashed else "-",
                    color="black" if dashed else None,
                    zorder=3 if dashed else 2,
                    label=label,
                )
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(EPSILONS), [f"{eps:g}" for eps in EPSILONS])
        ax.set_yscale("log")
        ax.set_xlabel("epsilon (one report per person)")
        ax.set_title(f"all {order}-way marginals of 8 Adult columns")
    axes[0].set_ylabel("average total-variation error")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    args = parser(__doc__.splitlines()[0])
    args.add_argument("--figure", metavar="PATH", help="also draw the errors as a PNG")
    args.add_argument("--from-json", metavar="PATH", help="draw the figure of saved rows only")
    ns = args.parse_args()
    if ns.from_json:
        with open(ns.from_json) as handle:
            figure(json.load(handle)["rows"], ns.figure or "marginals.png")
        return
    repeats, epsilons = (1, (1.0,)) if ns.quick else (5, EPSILONS)
    rows = run(repeats, epsilons, (2,) if ns.quick else (2, 3))
    emit("Marginals of the Adult table (32,561 people)", rows, ns.json)
    if ns.figure:
        figure(rows, ns.figure)


if __name__ == "__main__":
    main()
