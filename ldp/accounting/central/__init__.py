"""Central-DP accounting beside the LDP core: the Poisson-subsampled Gaussian and NoisySGD.

The machinery of differentially private SGD with a trusted curator (Dong-Roth-Su (2022),
§5; Zheng-Dong-Long-Su (2020); Tran-Koskela-Räisä-Honkela (2025)), built on the curves,
lattices and composition of :mod:`ldp.accounting`:

* ``subsampled_gaussian``: one Poisson-subsampled Gaussian step
  as a trade-off curve (:class:`SubsampledGaussianTradeOff`), its remove-direction profile,
  the moments and cumulants of its privacy loss;
* ``poisson_gaussian``: ``T`` such steps, certified on a lattice
  (:class:`PoissonSubsampledGaussian`), and the CLT ``mu`` of NoisySGD;
* ``sgd``: NoisySGD as ``C_p(G_{1/sigma})^{(x)T}``
  (:func:`noisy_sgd`), its Berry-Esseen bound and the composed Poisson curve;
* ``adaptive_clt``: the fully adaptive CLT and individual
  approximate GDP accounting.

The old names (``sg_plrv_moments``, ``drs_sgd_mu_clt_approx``, ...) still import from
:mod:`ldp.accounting` for one release, with a ``DeprecationWarning`` naming the new ones.

Examples
--------
>>> from ldp.accounting.central import PoissonSubsampledGaussian
>>> round(float(PoissonSubsampledGaussian(0.01, 1.0, 1000).epsilon_for_delta(1e-5)), 2)
1.83
"""

from ldp.accounting.central.adaptive_clt import (
    AdaptiveCLTParams,
    IndividualApproxGDPAccountant,
    adaptive_clt_params,
    approx_gdp_charge,
    approx_gdp_clip,
)
from ldp.accounting.central.poisson_gaussian import (
    PoissonSubsampledGaussian,
    noisy_sgd_mu_clt_approx,
)
from ldp.accounting.central.sgd import (
    BerryEsseenTradeOff,
    NoisySGDComposition,
    noisy_sgd,
    poisson_sgd_tradeoff,
)
from ldp.accounting.central.subsampled_gaussian import (
    SubsampledGaussianTradeOff,
    subsampled_gaussian_cumulants,
    subsampled_gaussian_loss_moments,
    subsampled_gaussian_loss_moments_approx,
    subsampled_gaussian_remove_profile,
)

__all__ = [
    "AdaptiveCLTParams",
    "BerryEsseenTradeOff",
    "IndividualApproxGDPAccountant",
    "NoisySGDComposition",
    "PoissonSubsampledGaussian",
    "SubsampledGaussianTradeOff",
    "adaptive_clt_params",
    "approx_gdp_charge",
    "approx_gdp_clip",
    "noisy_sgd",
    "noisy_sgd_mu_clt_approx",
    "poisson_sgd_tradeoff",
    "subsampled_gaussian_cumulants",
    "subsampled_gaussian_loss_moments",
    "subsampled_gaussian_loss_moments_approx",
    "subsampled_gaussian_remove_profile",
]
