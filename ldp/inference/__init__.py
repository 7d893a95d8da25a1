"""Hypothesis tests on locally private reports, shaped like ``scipy.stats``.

Each test reads a fitted estimator through a view: :class:`CellEstimate` (an unbiased
estimate of cell probabilities with its exact covariance; ``cell_estimate(column)``) or
:class:`MeanSample` (an unbiased mean with the variance of one report;
``mean_sample(column)``), and returns a :class:`TestResult` (``statistic``, ``pvalue``,
``df``, ``n``, ``method``). Beside each test, its power and the sample size a target power
needs.

* :func:`goodness_of_fit`: the cells follow a given distribution;
* :func:`independence`: two columns are independent (a two-way table), where the reports
  are enough for its delta method (:func:`second_order_ratio`);
* :func:`two_sample`: two samples collected by one protocol have the same distribution
  (frequencies) or the same mean (means).
"""

from ldp.inference.frequencies import (
    MAX_SECOND_ORDER,
    goodness_of_fit,
    goodness_of_fit_power,
    goodness_of_fit_sample_size,
    independence,
    independence_power,
    independence_sample_size,
    second_order_ratio,
    two_sample,
    two_sample_power,
    two_sample_sample_size,
)
from ldp.inference.means import two_sample_mean_power, two_sample_mean_sample_size
from ldp.inference.results import TestResult
from ldp.inference.views import CellEstimate, MeanSample

__all__ = [
    "MAX_SECOND_ORDER",
    "CellEstimate",
    "MeanSample",
    "TestResult",
    "goodness_of_fit",
    "goodness_of_fit_power",
    "goodness_of_fit_sample_size",
    "independence",
    "independence_power",
    "independence_sample_size",
    "second_order_ratio",
    "two_sample",
    "two_sample_mean_power",
    "two_sample_mean_sample_size",
    "two_sample_power",
    "two_sample_sample_size",
]
