"""Every estimator passes scikit-learn's common checks (``parametrize_with_checks``).

One check is marked as an expected failure, for the privatizer: ``check_estimators_pickle``
compares a seeded privatizer's output before and after pickling, and the seed never
travels in a pickle (a server that knows a device's seed can undo its privatization; see
``test_pickles_carry_no_seed`` in ``test_estimators_safety.py``). scikit-learn itself skips the
checks that compare
two runs of a ``non_deterministic`` estimator (``check_transformer_general``'s comparisons,
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
]


def _expected_failures(estimator) -> dict[str, str]:
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
