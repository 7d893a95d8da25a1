"""Private naive Bayes on the ANES 1996 survey: predict the vote from privatized answers.

Every respondent sends one epsilon-LDP report of the pair (vote, answer to one question drawn
at random) and never their vote in the clear (``LDPNaiveBayes``, ``budget="sample"``). The
curve below shows test accuracy rising with epsilon towards the non-private naive Bayes.

Local privacy needs many users, and the survey has 944. So, as a stand-in for a deployment,
the 70% training split is resampled with replacement into a population of 50,000
respondents with the survey's joint distribution; accuracy is measured on the untouched 30%.
The categories come from the survey codebook (the pandas categorical dtype).

Run: ``python examples/private_naive_bayes.py [figure.png]``.
"""

import sys

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import CategoricalNB

from estimators import LDPNaiveBayes
from ldp.datasets import load_anes96_categorical

FEATURES = ["PID", "selfLR", "ClinLR", "DoleLR", "educ", "age", "income", "TVnews"]
EPSILONS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
POPULATION = 50_000
SEEDS = 4


def main(figure: str | None = None) -> None:
    survey = load_anes96_categorical()
    train, test = train_test_split(survey, test_size=0.3, random_state=0, stratify=survey["vote"])
    population = train.sample(POPULATION, replace=True, random_state=1)
    X, y = population[FEATURES], population["vote"].astype(str).to_numpy()
    X_test, y_test = test[FEATURES], test["vote"].astype(str).to_numpy()

    codes = X.apply(lambda c: c.cat.codes).to_numpy()
    test_codes = X_test.apply(lambda c: c.cat.codes).to_numpy()
    sizes = [len(X[c].cat.categories) for c in FEATURES]
    baseline = CategoricalNB(min_categories=sizes).fit(codes, y).score(test_codes, y_test)
    majority = max(np.mean(y_test == label) for label in np.unique(y_test))

    print(
        f"ANES 1996, vote from {len(FEATURES)} answers: {POPULATION} respondents (resampled "
        f"training split), {len(test)} test respondents, {SEEDS} seeds per epsilon"
    )
    print(
        f"{'epsilon':>8} {'accuracy':>9} {'std':>6}   (non-private {baseline:.3f}, "
        f"majority class {majority:.3f})"
    )
    curve = []
    for eps in EPSILONS:
        scores = [
            LDPNaiveBayes(eps, budget="sample", random_state=seed).fit(X, y).score(X_test, y_test)
            for seed in range(SEEDS)
        ]
        curve.append(np.mean(scores))
        print(f"{eps:8g} {np.mean(scores):9.3f} {np.std(scores):6.3f}")
    print(
        f"gap to the non-private model at epsilon = {EPSILONS[-1]:g}: {baseline - curve[-1]:+.3f}"
    )

    if figure:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib not installed: skipping the figure")
            return
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot(EPSILONS, curve, "o-", label="LDP naive Bayes")
        ax.axhline(baseline, color="k", ls="--", label="non-private")
        ax.axhline(majority, color="gray", ls=":", label="majority class")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("epsilon per respondent")
        ax.set_ylabel("test accuracy")
        ax.legend()
        fig.tight_layout()
        fig.savefig(figure)
        print(f"figure written to {figure}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
