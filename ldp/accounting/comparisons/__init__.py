"""Comparing privacy curves: the Blackwell order, the Delta-divergence, approximate GDP.

* :mod:`ldp.accounting.comparisons.blackwell`: the Blackwell order in one home, of curves
  (:func:`blackwell_compare`, :func:`is_blackwell_chain`) and of channels
  (:func:`blackwell_dominates`, a garbling found by a linear program and re-checked exactly);
* :mod:`ldp.accounting.comparisons.comparison`: the Delta-divergence between two curves,
  Delta-approximate ``mu``-GDP and the worst-case adaptive profile (Theorem B.1).

Built on :mod:`ldp.accounting.curves` only; every name imports from here and from
:mod:`ldp.accounting`.

Examples
--------
>>> from ldp.accounting.comparisons import blackwell_compare
>>> from ldp.accounting.curves import GaussianTradeOff
>>> blackwell_compare(GaussianTradeOff(1.0), GaussianTradeOff(2.0)).order  # G_1 >= G_2
'ge'
"""

from __future__ import annotations

from ldp.accounting.comparisons.blackwell import (
    BlackwellComparison,
    BlackwellResult,
    blackwell_compare,
    blackwell_dominates,
    is_blackwell_chain,
)
from ldp.accounting.comparisons.comparison import (
    approx_gdp_delta,
    approx_gdp_distance,
    delta_divergence,
    is_approx_gdp,
    worst_case_adaptive_profile,
)

__all__ = [
    "BlackwellComparison",
    "BlackwellResult",
    "approx_gdp_delta",
    "approx_gdp_distance",
    "blackwell_compare",
    "blackwell_dominates",
    "delta_divergence",
    "is_approx_gdp",
    "is_blackwell_chain",
    "worst_case_adaptive_profile",
]
