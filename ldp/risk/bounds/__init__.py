r"""Lower bounds: what no estimator can beat from ``n`` locally private reports.

The generic calculators over explicit finite hypotheses (:mod:`~ldp.risk.bounds.lecam`,
:mod:`~ldp.risk.bounds.fano`, :mod:`~ldp.risk.bounds.assouad`,
:mod:`~ldp.risk.bounds.bayes`, :mod:`~ldp.risk.bounds.testing`,
:mod:`~ldp.risk.bounds.information`), the tight bounds of :mod:`~ldp.risk.bounds.minimax`
(with :mod:`~ldp.risk.bounds.marginals`, their use for a table's marginals) and their
closed-form specialisations to standard problems
(:mod:`~ldp.risk.bounds.presets`). Nothing here computes the risk an estimator achieves
(that is :mod:`ldp.risk.achieved`); every public name is re-exported by :mod:`ldp.risk`.

Examples
--------
>>> from ldp.risk.bounds import bernoulli_mean
>>> bernoulli_mean(1000, 1.0).value > 0
True
"""

from ldp.risk.bounds.assouad import assouad, hypercube_index
from ldp.risk.bounds.bayes import (
    bayes,
    beta_bernoulli_bayes,
    beta_bernoulli_e_gamma_information,
    beta_bernoulli_mutual_information,
    e_gamma_information,
)
from ldp.risk.bounds.fano import family_information, fano
from ldp.risk.bounds.information import entropy, mutual_information, mutual_information_bound
from ldp.risk.bounds.lecam import le_cam, product_tv
from ldp.risk.bounds.marginals import marginals_lower_bound
from ldp.risk.bounds.minimax import (
    binary_test_sample_size,
    distribution_fano,
    distribution_lower_bound,
    distribution_van_trees,
    mean_estimation,
)
from ldp.risk.bounds.presets import (
    ball_mean,
    bernoulli_mean,
    distribution_estimation,
    moment_mean,
    moment_mean_paper_rate,
    paninski_family,
)
from ldp.risk.bounds.testing import (
    best_binary_test,
    kl_ceiling,
    min_sample_size,
    sample_size_lower_bound,
    stein_exponent,
)

__all__ = [
    "assouad",
    "ball_mean",
    "bayes",
    "bernoulli_mean",
    "best_binary_test",
    "beta_bernoulli_bayes",
    "beta_bernoulli_e_gamma_information",
    "beta_bernoulli_mutual_information",
    "binary_test_sample_size",
    "distribution_estimation",
    "distribution_fano",
    "distribution_lower_bound",
    "distribution_van_trees",
    "e_gamma_information",
    "entropy",
    "family_information",
    "fano",
    "hypercube_index",
    "kl_ceiling",
    "le_cam",
    "marginals_lower_bound",
    "mean_estimation",
    "min_sample_size",
    "moment_mean",
    "moment_mean_paper_rate",
    "mutual_information",
    "mutual_information_bound",
    "paninski_family",
    "product_tv",
    "sample_size_lower_bound",
    "stein_exponent",
]
