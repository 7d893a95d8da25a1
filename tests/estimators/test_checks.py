"""Every estimator passes scikit-learn's common checks (``parametrize_with_checks``).

MarginalEstimator is checked too; the checks that fit scikit-learn's continuous random data
are expected failures (``MARGINAL_CONTINUOUS``: it refuses tables with more cells than
reports), and ``test_marginal_estimator_follows_the_conventions`` checks what they would on
categorical data. One check is marked as an expected failure for the privatizer:
``check_estimators_pickle`` compares a seeded privatizer's output before and after
pickling, and the seed never travels in a pickle (a server that knows a device's seed can
undo its privatization; see ``test_pickles_carry_no_seed`` in
``test_estimators_safety.py``). scikit-learn itself skips the checks that compare two runs
of a ``non_deterministic`` estimator (``check_transformer_general``'s comparisons,
``check_pipeline_consistency``, ...), and the array-API check when ``SCIPY_ARRAY_API`` is not
set; those skips carry scikit-learn's own reason. With a fixed int ``random_state`` the
estimators are reproducible, and the last test checks what those comparisons would.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from estimators import (
    FrequencyEstimator,
    LDPLogisticRegression,
    LDPNaiveBayes,
    MarginalEstimator,
    MeanEstimator,
    Privatizer,
    VectorMeanEstimator,
)

# scikit-learn's checks fit on random data without declared domains, by design
pytestmark = pytest.mark.filterwarnings("ignore::ldp.PrivacyLeakWarning")

ESTIMATORS = [
    Privatizer(),
    Privatizer(budget="sample"),
    FrequencyEstimator(),
    FrequencyEstimator(budget="sample", consistency="project"),
    MeanEstimator(),
    MeanEstimator(budget="sample"),
    LDPNaiveBayes(),
    LDPNaiveBayes(budget="sample"),
    LDPLogisticRegression(),
    VectorMeanEstimator(),
    VectorMeanEstimator(mechanism="privunitg"),
    MarginalEstimator(),
]


#: The common checks that fit scikit-learn's continuous random data with MarginalEstimator:
#: every distinct value is a category, so a pair's table has more cells than its group has
#: reports, which the estimator refuses by design (a one-line error naming the counts). What
#: these checks ask of an estimator is checked on categorical data below.
MARGINAL_CONTINUOUS = (
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimators_dtypes",
    "check_estimators_fit_returns_self",
    "check_estimators_nan_inf",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
)


def _expected_failures(estimator) -> dict[str, str]:
    if isinstance(estimator, MarginalEstimator):
        continuous = (
            "continuous random data: one category per distinct value, so a pair's table has "
            "more cells than reports, which MarginalEstimator refuses by design"
        )
        out = dict.fromkeys(MARGINAL_CONTINUOUS, continuous)
        out["check_fit2d_1feature"] = (
            "a 2-way marginal needs two columns: one column is refused in the estimator's own "
            "words ('marginals=2 is more columns than X has (1)')"
        )
        out["check_fit2d_1sample"] = (
            "one row is refused as fewer reports than cells, in the estimator's own words"
        )
        return out
    if isinstance(estimator, Privatizer):
        reason = "the seed is dropped from pickles by design: a known seed undoes the noise"
        return {"check_estimators_pickle": reason}
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_seeded_runs_are_reproducible_where_sklearn_skips_the_comparison():
    """What the skipped comparisons check, for a fixed int ``random_state``: ``fit_transform``
    equals ``fit().transform``, refits agree, and a Pipeline gives the same result."""
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 3)).astype(float)
    y = (X[:, 0] > 1).astype(int)
    priv = Privatizer(random_state=0)
    np.testing.assert_array_equal(
        priv.fit_transform(X), Privatizer(random_state=0).fit(X).transform(X)
    )
    for est in (LDPNaiveBayes(random_state=0), LDPLogisticRegression(random_state=0)):
        a = clone(est).fit(X, y).predict_proba(X)
        np.testing.assert_array_equal(a, clone(est).fit(X, y).predict_proba(X))
        np.testing.assert_array_equal(a, make_pipeline(clone(est)).fit(X, y).predict_proba(X))
    for est in (FrequencyEstimator(random_state=0), MeanEstimator(random_state=0)):
        a, b = clone(est).fit(X), clone(est).fit(X)
        for sa, sb in zip(a.statistics_, b.statistics_):
            assert sa.n == sb.n
            if isinstance(est, FrequencyEstimator):
                np.testing.assert_array_equal(sa.counts, sb.counts)
            else:
                assert float(sa.total) == float(sb.total)


def test_marginal_estimator_follows_the_conventions():
    """What the expected failures of MarginalEstimator would check, on categorical data: fit
    returns self and leaves the parameters alone, a fitted clone is unfitted, refits and
    pickles agree with a fixed int ``random_state``, and the fitted attributes are set."""
    import pickle

    import pandas as pd
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.integers(0, 2, 3000), "b": rng.integers(0, 3, 3000)})
    cats = {"a": [0, 1], "b": [0, 1, 2]}
    est = MarginalEstimator(1.0, categories=cats, random_state=0)
    before = {k: (v.copy() if isinstance(v, dict) else v) for k, v in est.get_params().items()}
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert est.fit(X) is est
    assert est.get_params() == before
    check_is_fitted(est)
    again = clone(est).fit(X)
    with pytest.raises(NotFittedError):
        check_is_fitted(clone(est))
    restored = pickle.loads(pickle.dumps(est))
    for other in (again, restored):
        for key in est.tables_:
            np.testing.assert_array_equal(other.unbiased_[key], est.unbiased_[key])
    backwards = clone(est).fit(X.iloc[::-1])
    assert backwards.n_rows_ == est.n_rows_ and set(backwards.tables_) == set(est.tables_)
