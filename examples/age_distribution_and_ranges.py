"""The age distribution of a survey from private reports: quantiles and range counts.

Two ways to learn more than the mean of a numeric column under local differential privacy:

* every respondent sends one square-wave report of their age (rescaled to [0, 1] with the
  public bounds 18 and 98), and the server fits the age histogram by EM with smoothing
  (Li et al. (2020)): quartiles and the mean follow;
* every respondent sends one report of their age (an ordinal value 0..79) at one level of a
  B-ary tree (Cormode-Kulkarni-Srivastava (2019)); after Hay et al. (2010)'s consistency the
  server answers any age range with its exact standard error. ``recommend_branching`` picks
  B, and the flat oracle's standard error is shown for comparison.

The ANES 1996 survey has 944 respondents, too few for local privacy; as a stand-in for a
deployment, they are resampled with replacement into a population of 200,000 with the
survey's age distribution.

Run: ``python examples/age_distribution_and_ranges.py [figure.png]``.
"""

import sys

import numpy as np

from ldp.datasets import load_anes96
from ldp.mechanisms import SquareWave
from ldp.tasks import HierarchicalHistogram, recommend_branching

EPSILON = 1.0
POPULATION = 200_000
LOW, HIGH = 18, 98  # public bounds of the age question
BANDS = [(18, 30), (30, 45), (45, 65), (65, 98)]  # the codebook's age bands


def main(figure: str | None = None) -> None:
    survey = load_anes96()
    rng = np.random.default_rng(0)
    ages = rng.choice(survey["age"].to_numpy(dtype=np.int64), size=POPULATION)
    print(f"ANES 1996 ages resampled to {POPULATION} respondents, epsilon = {EPSILON:g} each")

    # ---- square wave + EMS: the distribution, its quantiles and mean
    sw = SquareWave(EPSILON)
    reports = sw.privatize((ages - LOW) / (HIGH - LOW), rng="os")
    dist = sw.estimate_distribution(reports, bins=HIGH - LOW).rescaled(LOW, HIGH)
    print(f"\nsquare wave + EMS ({dist.iterations} rounds, 80 one-year bins)")
    print(f"{'statistic':<10} {'estimate':>9} {'true':>6}")
    for level, name in ((0.25, "25%"), (0.5, "median"), (0.75, "75%")):
        print(f"{name:<10} {dist.quantile(level):9.1f} {np.quantile(ages, level):6.1f}")
    print(f"{'mean':<10} {dist.mean():9.1f} {ages.mean():6.1f}")

    # ---- hierarchical histogram: range counts with their standard errors
    k = HIGH - LOW
    choice = recommend_branching(k, EPSILON, n=POPULATION)
    tree = HierarchicalHistogram(k, EPSILON, branching=choice.branching)
    flat = HierarchicalHistogram(k, EPSILON, branching=k)  # one level: the flat oracle
    estimate = tree.estimate(tree.privatize(ages - LOW, rng="os"))
    a = np.array([lo - LOW for lo, _ in BANDS])
    b = np.array([hi - LOW for _, hi in BANDS])
    shares = estimate.range(a, b)
    errors = np.sqrt(estimate.variance(a, b))
    plug_in = estimate.frequencies.clip(0.0) / estimate.frequencies.clip(0.0).sum()
    flat_errors = np.sqrt(flat.variance(POPULATION, a, b, plug_in))
    print(f"\nB-ary tree with B = {choice.branching} (height {tree.height}), Hay consistency")
    print(f"{'ages':<8} {'estimate':>9} {'se':>7} {'true':>7} {'flat oracle se':>15}")
    for (lo, hi), share, se, fse in zip(BANDS, shares, errors, flat_errors, strict=True):
        true = np.mean((ages >= lo) & (ages < hi))
        print(f"{lo}-{hi - 1:<5} {share:9.4f} {se:7.4f} {true:7.4f} {fse:15.4f}")

    if figure:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib not installed: skipping the figure")
            return
        grid = np.arange(LOW, HIGH + 1)
        true_cdf = np.searchsorted(np.sort(ages), grid, side="left") / ages.size
        tree_cdf = np.concatenate([[0.0], np.cumsum(estimate.frequencies)])
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot(grid, true_cdf, "k-", label="true")
        ax.plot(grid, dist.cdf(grid), "--", label="square wave + EMS")
        ax.step(grid, tree_cdf, where="post", alpha=0.8, label=f"tree, B = {choice.branching}")
        ax.set_xlabel("age")
        ax.set_ylabel("share of respondents younger")
        ax.legend()
        fig.tight_layout()
        fig.savefig(figure)
        print(f"figure written to {figure}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
