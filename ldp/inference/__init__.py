"""Hypothesis tests on locally private reports.

The views the tests read from a fitted estimator: :class:`CellEstimate` (an unbiased
estimate of cell probabilities with its exact covariance) and :class:`MeanSample` (an
unbiased mean with the sample variance of one report).
"""

from ldp.inference.views import CellEstimate, MeanSample

__all__ = ["CellEstimate", "MeanSample"]
