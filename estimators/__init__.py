"""scikit-learn estimators on locally private data, built on :mod:`ldp`.

* :class:`Privatizer`: the client-side transformer (one local randomizer per column).
* :class:`FrequencyEstimator`, :class:`MeanEstimator`: the server side, from privatized
  reports or (simulation) from raw rows privatized internally; ``partial_fit`` and ``merge``
  aggregate chunks and shards exactly.
* :class:`MarginalEstimator`: k-way marginals of categorical columns from one report per
  device, and synthetic rows drawn from them.
* :class:`VectorMeanEstimator`: the mean of vectors in an l2 ball (PrivUnit by default).
* :class:`LDPNaiveBayes`: categorical naive Bayes from privatized (label, feature) pairs.
* :class:`LDPLogisticRegression`: logistic regression from privatized sufficient statistics
  of its quadratic surrogate, in one round.

Every estimator keeps only the public protocol and privatized aggregates, never a raw row.
"""

from estimators.frequency import FrequencyEstimator
from estimators.linear import LDPLogisticRegression
from estimators.marginal import MarginalEstimator
from estimators.mean import MeanEstimator
from estimators.naive_bayes import LDPNaiveBayes
from estimators.privatizer import Privatizer
from estimators.vector_mean import VectorMeanEstimator
from ldp._warnings import ImplausibleReportsWarning, PrivacyLeakWarning

__all__ = [
    "FrequencyEstimator",
    "ImplausibleReportsWarning",
    "LDPLogisticRegression",
    "LDPNaiveBayes",
    "MarginalEstimator",
    "MeanEstimator",
    "PrivacyLeakWarning",
    "Privatizer",
    "VectorMeanEstimator",
]
