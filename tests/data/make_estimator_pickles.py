"""Write the fitted-estimator pickles that tests/estimators/test_pickles.py loads.

One small pickle per estimator kind (``estimator_<kind>.pkl``), fitted with fixed seeds on
fixed data, and ``estimator_pickles.json``: what each gave when it was written (predictions,
probabilities, estimates) on the query rows below. The test loads the pickles with the
current code and checks the same numbers come out: a fitted estimator pickled by a release
must keep loading and predicting. Rerun only to add a kind, never to refresh the files after
a change of the estimators' state (that is what the test guards).

Run: ``python tests/data/make_estimator_pickles.py``.
"""

from __future__ import annotations

import json
import pickle
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def data() -> dict:
    """The training rows and the query rows of every kind (the test rebuilds the queries)."""
    rng = np.random.default_rng(2029)
    y = rng.integers(0, 3, size=3000)
    cat = np.column_stack([(y + (rng.random(y.size) < 0.3)) % 3 for _ in range(3)])
    num = np.column_stack([y - 1.0 + rng.uniform(-0.5, 0.5, y.size) for _ in range(2)])
    num = np.clip(num, -1.5, 1.5)
    vec = rng.normal(size=(2000, 3))
    vec /= np.maximum(1.0, np.linalg.norm(vec, axis=1, keepdims=True))
    return {
        "y": y,
        "cat": cat,
        "num": num,
        "vec": vec,
        "cat_query": cat[:50],
        "num_query": num[:50],
        "vec_query": vec[:50],
    }


def fitted() -> dict:
    """``{kind: fitted estimator}``, every one from fixed seeds."""
    from estimators import (
        FrequencyEstimator,
        LDPLogisticRegression,
        LDPNaiveBayes,
        MeanEstimator,
        Privatizer,
        VectorMeanEstimator,
    )

    d = data()
    cats = [[0, 1, 2]] * 3
    return {
        "privatizer": Privatizer(2.0, categories=cats).fit(d["cat"]),
        "frequency": FrequencyEstimator(
            2.0, categories=cats, consistency="project", random_state=1
        ).fit(d["cat"]),
        "mean": MeanEstimator(2.0, bounds=(-1.5, 1.5), random_state=2).fit(d["num"]),
        "vector_mean": VectorMeanEstimator(4.0, radius=1.0, random_state=3).fit(d["vec"]),
        "naive_bayes": LDPNaiveBayes(4.0, categories=cats, classes=[0, 1, 2], random_state=4).fit(
            d["cat"], d["y"]
        ),
        "logistic": LDPLogisticRegression(
            4.0, bounds=(-1.5, 1.5), classes=[0, 1, 2], random_state=5
        ).fit(d["num"], d["y"]),
    }


def outputs(kind: str, est) -> dict:
    """What a fitted estimator of ``kind`` gives on the query rows (JSON-ready lists)."""
    d = data()
    if kind == "privatizer":
        reports = d["cat_query"].astype(np.float64)  # GRR reports are category codes
        return {
            "epsilon_total": est.epsilon_total_,
            "report_columns": [str(c) for c in est.get_feature_names_out()],
            "counts": [s.counts.tolist() for s in est.aggregate(reports)],
        }
    if kind == "frequency":
        return {
            "frequencies": [f.tolist() for f in est.frequencies_],
            "score": est.score(d["cat_query"]),
        }
    if kind == "mean":
        return {"mean": est.mean_.tolist(), "variance": est.variance().tolist()}
    if kind == "vector_mean":
        return {"mean": est.mean_.tolist(), "variance": est.variance()}
    return {
        "predict": est.predict(d[("cat" if kind == "naive_bayes" else "num") + "_query"]).tolist(),
        "predict_proba": est.predict_proba(
            d[("cat" if kind == "naive_bayes" else "num") + "_query"]
        ).tolist(),
    }


def main() -> None:
    expected = {}
    for kind, est in fitted().items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            blob = pickle.dumps(est, protocol=4)
        (HERE / f"estimator_{kind}.pkl").write_bytes(blob)
        expected[kind] = outputs(kind, est)
    text = json.dumps(expected, sort_keys=True) + "\n"
    (HERE / "estimator_pickles.json").write_text(text)


if __name__ == "__main__":
    main()
