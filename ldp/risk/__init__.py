r"""Lower bounds on what anyone can learn from locally private data, and what is achieved.

"With ``n`` users each privatized at ``(epsilon, delta)``, how well can anyone estimate
this?" Every function returns a :class:`Bound`: the number, the theorem it came from
(``method``), what it bounds (``quantity``), the inputs that mattered (``params``: the
optimised separation, ``zeta``, ``omega``, ...) and, for presets, the ``rate``.

Generic calculators (explicit finite hypotheses; a worst case over all
``(epsilon, delta)``-LDP channels, or a concrete :class:`~ldp.Channel`):

* :func:`le_cam`: private Le Cam (Asoodeh-Aliakbarpour-Calmon (2021), Lemma 3), the
  Hellinger form of their eqs. (38)-(39), and the strong data-processing inequality of
  Duchi-Jordan-Wainwright (2018) for pure LDP;
* :func:`fano`: private Fano (Asoodeh-Aliakbarpour-Calmon (2021), Lemma 4 with eq. (9));
* :func:`assouad`: the private Assouad bound of Duchi-Jordan-Wainwright (2018);
* :func:`bayes`: Asoodeh-Aliakbarpour-Calmon (2021), Corollary 3 (the Bayes-risk bound of
  Xu-Raginsky (2015), made private) and Theorem 2 (:math:`E_\gamma`-information;
  :func:`e_gamma_information` of a joint pmf);
* :func:`stein_exponent` (their Corollary 4) and :func:`min_sample_size` (a non-asymptotic
  form of it, derived here);
* :func:`mutual_information_bound` (their Corollary 5) and :func:`mutual_information`
  (exact).

Tight bounds (``ldp.risk.bounds.minimax``, proofs in ``docs/lower_bounds.md``):
:func:`distribution_van_trees`, :func:`distribution_fano`, :func:`mean_estimation`,
:func:`binary_test_sample_size`, and for a table's marginals :func:`marginals_lower_bound`
(the one-column bound of the largest marginal); beside them the worst-case risk of the
library's best mechanism (:func:`best_distribution_risk`, :func:`best_mean_risk`; for a
frequency oracle followed by simplex projection, the certified
:func:`projected_oracle_risk`; for marginals, :func:`marginals_risk` of the collection
designs), and the sample-size planner :func:`plan` with :func:`gap` (bound, achieved risk,
ratio).

Presets: :func:`bernoulli_mean`, :func:`moment_mean` (Corollary 1, with the proof's choice of
``omega`` repaired), :func:`ball_mean` (Corollary 2, with the constants of its corrected
proof), :func:`distribution_estimation`, :func:`beta_bernoulli_bayes` (Example 4 / Fig. 1).
Achieved risk: :func:`rr_mean_risk`, :func:`krr_distribution_risk`. :func:`preset` evaluates
a problem by name (one of ``PRESETS``): its lower bound and, where there is one, the
achieved risk.

Layout, by job: ``ldp.risk.bounds`` (the lower bounds), ``ldp.risk.achieved``
(the risk the library's estimators achieve) and ``ldp.risk.planning`` (the two side by
side: :func:`plan`, :func:`gap`, :func:`preset`); :class:`Bound` is shared by all three.

Conventions: natural logarithms (nats); ``tv`` is half the L1 distance; the squared
Hellinger distance lies in ``[0, 2]``; ``epsilon=inf`` gives the non-private bound.

Examples
--------
>>> from ldp.risk import distribution_estimation, krr_distribution_risk
>>> lower = distribution_estimation(10, 10_000, 1.0)
>>> upper = krr_distribution_risk(10, 10_000, 1.0)
>>> 0 < lower.value < upper.value
True
"""

from ldp._deprecation import keep_functions_over_old_modules
from ldp.risk._common import Bound
from ldp.risk.achieved import (
    best_distribution_risk,
    best_mean_risk,
    binomial_mean_absolute_deviation,
    krr_distribution_risk,
    marginals_risk,
    projected_oracle_risk,
    rr_mean_risk,
)
from ldp.risk.bounds import (
    assouad,
    ball_mean,
    bayes,
    bernoulli_mean,
    best_binary_test,
    beta_bernoulli_bayes,
    beta_bernoulli_e_gamma_information,
    beta_bernoulli_mutual_information,
    binary_test_sample_size,
    distribution_estimation,
    distribution_fano,
    distribution_lower_bound,
    distribution_van_trees,
    e_gamma_information,
    entropy,
    family_information,
    fano,
    hypercube_index,
    kl_ceiling,
    le_cam,
    marginals_lower_bound,
    mean_estimation,
    min_sample_size,
    moment_mean,
    moment_mean_paper_rate,
    mutual_information,
    mutual_information_bound,
    paninski_family,
    product_tv,
    sample_size_lower_bound,
    stein_exponent,
)
from ldp.risk.planning import (
    PRESETS,
    PROBLEMS,
    Plan,
    RiskGap,
    TargetOutOfReach,
    gap,
    plan,
    preset,
)

__all__ = [
    "PRESETS",
    "PROBLEMS",
    "Bound",
    "Plan",
    "RiskGap",
    "TargetOutOfReach",
    "assouad",
    "ball_mean",
    "bayes",
    "bernoulli_mean",
    "best_binary_test",
    "best_distribution_risk",
    "best_mean_risk",
    "beta_bernoulli_bayes",
    "beta_bernoulli_e_gamma_information",
    "beta_bernoulli_mutual_information",
    "binary_test_sample_size",
    "binomial_mean_absolute_deviation",
    "distribution_estimation",
    "distribution_fano",
    "distribution_lower_bound",
    "distribution_van_trees",
    "e_gamma_information",
    "entropy",
    "family_information",
    "fano",
    "gap",
    "hypercube_index",
    "kl_ceiling",
    "krr_distribution_risk",
    "le_cam",
    "marginals_lower_bound",
    "marginals_risk",
    "mean_estimation",
    "min_sample_size",
    "moment_mean",
    "moment_mean_paper_rate",
    "mutual_information",
    "mutual_information_bound",
    "paninski_family",
    "plan",
    "preset",
    "product_tv",
    "projected_oracle_risk",
    "rr_mean_risk",
    "sample_size_lower_bound",
    "stein_exponent",
]

#: ``ldp.risk.fano``, ``ldp.risk.assouad`` and ``ldp.risk.bayes`` are both functions and old
#: module paths (shims): importing a shim must not replace the function.
keep_functions_over_old_modules(__name__)
