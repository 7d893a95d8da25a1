"""Joint distributions of a census table under local differential privacy: the UCI Adult data.

Each of the 32,561 people sends one report from their own device at epsilon = 2: the device
draws which pair of questions it reports (one group per pair) and privatizes that pair's
answer with the best frequency oracle, so the whole guarantee is epsilon = 2 per person. The
analyst then reads every 2-way table of six columns, with confidence intervals, beside the
non-private table; tests whether two columns are independent (a p-value that keeps its
level under the noise); and draws synthetic rows whose 2-way tables match the private
estimates, which costs no further privacy (post-processing).

The categories are public (the UCI codebook, fixed age bands and public groups of the larger
columns: ``ldp.datasets.load_adult_categorical(grouped=True)``), so nothing about the domain
is learnt from the people.

Run: ``python examples/adult_marginals.py [figure.png]``.
"""

import sys

import numpy as np

from estimators import MarginalEstimator
from ldp.datasets import load_adult_categorical
from ldp.inference import independence

COLUMNS = ["age", "education", "marital_status", "sex", "hours_per_week", "income"]
EPSILON = 2.0


def main(figure: str | None = None) -> None:
    table = load_adult_categorical(grouped=True)[COLUMNS]
    est = MarginalEstimator(EPSILON, marginals=2, random_state=3).fit(table)
    print(f"Adult: n = {len(table)} people, {len(COLUMNS)} columns, all 2-way tables")
    print(f"privacy of what one device sends: {est.privacy_}")
    print(f"design chosen by exact variance: {sorted(set(est.method_.values()))}\n")

    pair = ["sex", "income"]
    private = est.marginal(pair)
    truth = table[pair].value_counts(normalize=True)
    print(f"{' x '.join(pair)} (private estimate, 95% interval, true share):")
    for _, cell in private.iterrows():
        true = truth.get((cell["sex"], cell["income"]), 0.0)
        print(
            f"  {cell['sex']:<7} {cell['income']:<6} {cell['estimate']:6.3f}  "
            f"[{cell['ci_low']:6.3f}, {cell['ci_high']:6.3f}]  {true:6.3f}"
        )

    errors = []
    for i, a in enumerate(COLUMNS):
        for b in COLUMNS[i + 1 :]:
            t = table[[a, b]].value_counts(normalize=True)
            m = est.marginal([a, b])
            keys = list(zip(m[a], m[b]))
            errors.append(
                0.5 * np.abs(m["estimate"].to_numpy() - t.reindex(keys, fill_value=0)).sum()
            )
    print(f"\naverage total-variation error over the {len(errors)} tables: {np.mean(errors):.3f}")

    for columns in (["sex", "income"], ["sex", "hours_per_week"]):
        result = independence(est, columns)
        print(f"independence of {columns[0]} and {columns[1]}: {result}")

    synthetic = est.sample(len(table), random_state=4)
    share = synthetic[pair].value_counts(normalize=True)
    print("\nsynthetic rows (post-processing, no further privacy), sex x income shares:")
    print(share.round(3).to_string())

    if figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        labels = [f"{s}, {i}" for s, i in zip(private["sex"], private["income"])]
        x = np.arange(len(labels))
        err = [private["estimate"] - private["ci_low"], private["ci_high"] - private["estimate"]]
        ax.errorbar(x, private["estimate"], yerr=err, fmt="o", capsize=4, label="private, 95% CI")
        ax.scatter(x, [truth.get(k, 0.0) for k in zip(private["sex"], private["income"])],
                   marker="x", color="black", zorder=3, label="true share")  # fmt: skip
        ax.set_xticks(x, labels, rotation=15)
        ax.set_ylabel("share of people")
        ax.set_title(f"sex x income, Adult, epsilon = {EPSILON:g} per person")
        ax.legend()
        fig.tight_layout()
        fig.savefig(figure, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
