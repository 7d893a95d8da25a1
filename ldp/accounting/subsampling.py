"""Deprecated home: this module moved to ``ldp.accounting.amplification.subsampling``.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home (the central-DP names it already forwarded go straight to their homes). The old
path is a package, not a module file, so that git pairs the old file with its new home and
carries edits made on the old path over.
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.amplification.subsampling"

__getattr__ = moved_names(
    __name__,
    {
        name: (_HOME, name)
        for name in (
            "SubsampledTradeOff",
            "subsample_eps_delta",
            "subsample_eps_delta_eta",
            "subsample_tradeoff",
            "subsampled_eps_delta_tradeoff",
        )
    }
    | {
        "PoissonSubsampledGaussian": (
            "ldp.accounting.central.poisson_gaussian",
            "PoissonSubsampledGaussian",
        ),
        "drs_sgd_mu_clt_approx": (
            "ldp.accounting.central.poisson_gaussian",
            "noisy_sgd_mu_clt_approx",
        ),
    },
)
