"""Chi-square tests on locally private frequency estimates, with their power.

Every test is a Wald test on the unbiased estimate ``f_hat`` of the cell probabilities,
with the decoder's *exact* covariance (:meth:`ldp.mechanisms.FrequencyMechanism.covariance`)
evaluated under the null hypothesis, restricted to the ``k - 1`` directions that sum to zero
(the probabilities sum to one; for oracles whose estimates do not sum to one exactly, the
sum carries no information on the hypothesis). The statistic is asymptotically chi-square
with ``k - 1`` (goodness of fit, two samples) or ``(k1 - 1)(k2 - 1)`` (independence)
degrees of freedom under the null hypothesis, for every frequency oracle. This is the
construction of Gaboardi-Rogers (2018) (their goodness-of-fit and independence tests on
locally private reports, with the projected statistic for generalized randomized response
and bit flipping), with the exact covariance of each decoder in place of their
per-mechanism derivations.

The power functions use the noncentral chi-square approximation: under an alternative
``f``, the statistic is approximately noncentral chi-square with the same degrees of freedom
and noncentrality ``lambda = n d' S^{-1} d`` (``d`` the tangent part of the departure from
the null, ``S`` the null covariance of one report), accurate for the local alternatives
where power is in question.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import stats

from ldp._numerics import first_integer
from ldp._validation import (
    as_real_array,
    check_distribution,
    check_integer,
    check_probability,
)
from ldp.inference.means import disjoint_fits, same_protocol, two_means
from ldp.inference.results import TestResult
from ldp.inference.wald import cells_of, normalised, sample_of, tangent_basis, wald

__all__ = [
    "MAX_SECOND_ORDER",
    "goodness_of_fit",
    "goodness_of_fit_power",
    "goodness_of_fit_sample_size",
    "independence",
    "independence_power",
    "independence_sample_size",
    "second_order_ratio",
    "two_sample",
    "two_sample_power",
    "two_sample_sample_size",
]

#: Largest number of users the sample-size solvers search (``2^50``, as ldp.risk.plan).
MAX_USERS = 1 << 50


def _chi2_result(statistic: float, df: int, n: Any, method: str) -> TestResult:
    return TestResult(statistic, float(stats.chi2.sf(statistic, df)), df, n, method)


def _check_categories(shape: tuple[int, ...], where: Any) -> None:
    """``ValueError`` when an axis of the table has one category: its value is certain, the
    test has no degree of freedom (a chi-square on 0 of them has no p-value)."""
    if min(shape) >= 2:
        return
    names = [where] if isinstance(where, str) or np.ndim(where) == 0 else list(where)
    axis = shape.index(min(shape))
    name = names[axis] if where is not None and len(names) == len(shape) else where
    what = "the column" if name is None else f"column {name!r}"
    raise ValueError(
        f"{what} has one category (cells of shape {shape}): its value is certain and the "
        "test has no degree of freedom"
    )


# --------------------------------------------------------------------------- goodness of fit
def _keyed(value: object) -> bool:
    """Whether ``value`` names its cells: a mapping, or a pandas Series (an index and
    ``items``)."""
    return isinstance(value, Mapping) or (
        hasattr(value, "index") and callable(getattr(value, "items", None))
    )


def _plain(cells: list) -> list:
    """Cell labels as Python values, for a message (``1``, not ``np.int64(1)``)."""

    def one(value: object) -> object:
        if isinstance(value, tuple):
            return tuple(one(v) for v in value)
        return value.item() if isinstance(value, np.generic) else value

    return [one(c) for c in cells]


def _expected_cells(expected: object, labels: tuple[tuple, ...]) -> object:
    """``expected`` in the cells' order: a dict or Series keyed by the cells' categories
    (tuples for a two-way table) is aligned to ``labels``; anything else is taken in order."""
    if not _keyed(expected):
        return expected
    given = dict(expected.items())  # type: ignore[attr-defined]
    cells = list(labels[0]) if len(labels) == 1 else list(itertools.product(*labels))
    missing = [c for c in cells if c not in given]
    known = set(cells)
    extra = [k for k in given if k not in known]
    if missing or extra:
        detail = (
            f"no probability for {_plain(missing)}" if missing else f"unknown cells {_plain(extra)}"
        )
        raise ValueError(
            f"expected is keyed by category and has {detail}; the cells are {_plain(cells)} "
            "(pass an array to give the probabilities in the cells' order)"
        )
    return [given[c] for c in cells]


def goodness_of_fit(estimator: Any, expected: Any, *, column: object = None) -> TestResult:
    """Test that the cells' true probabilities are ``expected``.

    Parameters
    ----------
    estimator : fitted estimator
        Anything with ``cell_estimate(column)`` (:class:`estimators.FrequencyEstimator`,
        ``MarginalEstimator``).
    expected : array_like, dict or pandas.Series
        The null distribution, one probability per cell: an array in the cells' order (the
        order of the estimate), or a dict or Series keyed by the cells' categories
        (``(row, column)`` tuples for a two-way table), aligned to them.
    column : optional
        Passed to ``cell_estimate`` (omit it for an estimator of one column).

    Returns
    -------
    TestResult
        ``statistic`` the Wald chi-square ``d' S^{-1} d`` with ``d`` the tangent part of
        ``f_hat - expected`` and ``S`` its exact covariance at ``expected``; ``df = k - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from estimators import FrequencyEstimator
    >>> from ldp.inference import goodness_of_fit
    >>> X = np.random.default_rng(0).choice(4, size=(20_000, 1), p=[0.4, 0.3, 0.2, 0.1])
    >>> est = FrequencyEstimator(1.0, categories=[[0, 1, 2, 3]], mechanism="GRR", random_state=1)
    >>> est = est.fit(X)
    >>> goodness_of_fit(est, [0.4, 0.3, 0.2, 0.1]).pvalue > 0.01
    True
    >>> goodness_of_fit(est, [0.25, 0.25, 0.25, 0.25]).pvalue < 1e-6
    True
    >>> goodness_of_fit(est, {3: 0.1, 2: 0.2, 1: 0.3, 0: 0.4}).pvalue > 0.01   # by category
    True
    """
    view = cells_of(estimator, column)
    _check_categories(view.shape, column)
    cells = _expected_cells(expected, view.labels)
    null = check_distribution(as_real_array(cells, "expected").ravel(), view.size, "expected")
    basis = tangent_basis(view.size)
    contrast = basis.T @ (view.value - null)
    statistic = wald(contrast, basis.T @ view.covariance(null) @ basis)
    return _chi2_result(statistic, view.size - 1, view.n, "Wald chi-square, exact null covariance")


def _noncentral_power(noncentrality: float, df: int, alpha: float) -> float:
    critical = stats.chi2.isf(alpha, df)
    return float(stats.ncx2.sf(critical, df, noncentrality))


def _check_alpha(alpha: object) -> float:
    level = check_probability(alpha, "alpha")
    if not 0.0 < level < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return level


def _check_mechanism(mechanism: Any, size: int) -> None:
    if not callable(getattr(mechanism, "covariance", None)):
        raise TypeError(
            f"mechanism must be a frequency decoder with covariance(n, f), got "
            f"{type(mechanism).__name__}"
        )
    if getattr(mechanism, "estimate_size", size) != size:
        raise ValueError(
            f"mechanism estimates {mechanism.estimate_size} cells, the distributions have {size}"
        )


def goodness_of_fit_power(
    mechanism: Any, n: int, expected: Any, actual: Any, *, alpha: float = 0.05
) -> float:
    """Power of :func:`goodness_of_fit` at level ``alpha`` with ``n`` reports of
    ``mechanism`` when the truth is ``actual`` (noncentral chi-square approximation).

    Examples
    --------
    >>> from ldp.mechanisms import GRR
    >>> from ldp.inference import goodness_of_fit_power
    >>> grr = GRR(4, 1.0)
    >>> null, alt = [0.25] * 4, [0.3, 0.25, 0.25, 0.2]
    >>> power = [goodness_of_fit_power(grr, n, null, alt) for n in (100, 1000, 10_000)]
    >>> bool(0.05 < power[0] < power[1] < power[2] <= 1.0)
    True
    >>> round(goodness_of_fit_power(grr, 5000, null, null), 12)   # no departure: the level
    0.05
    """
    users = check_integer(n, "n", low=1)
    level = _check_alpha(alpha)
    null = check_distribution(expected, np.size(expected), "expected")
    truth = check_distribution(actual, null.size, "actual")
    _check_mechanism(mechanism, null.size)
    basis = tangent_basis(null.size)
    contrast = basis.T @ (truth - null)
    noncentrality = wald(contrast, basis.T @ mechanism.covariance(users, null) @ basis)
    return _noncentral_power(noncentrality, null.size - 1, level)


def _sample_size(power_at, power: float) -> int:
    target = check_probability(power, "power")
    if not 0.0 < target < 1.0:
        raise ValueError(f"power must be in (0, 1), got {power!r}")
    found = first_integer(lambda m: power_at(m) >= target, 2, MAX_USERS)
    if found is None:
        raise ValueError(f"power={target:g} is out of reach for every n <= 2^50 (no departure?)")
    return found


def goodness_of_fit_sample_size(
    mechanism: Any, expected: Any, actual: Any, *, power: float = 0.8, alpha: float = 0.05
) -> int:
    """Smallest ``n`` at which :func:`goodness_of_fit_power` reaches ``power`` (type-II error
    ``1 - power``, the ``target_risk`` of :func:`ldp.risk.plan`'s ``"binary-test"``).

    Examples
    --------
    >>> from ldp.mechanisms import GRR
    >>> from ldp.inference import goodness_of_fit_power, goodness_of_fit_sample_size
    >>> grr, null, alt = GRR(4, 1.0), [0.25] * 4, [0.3, 0.25, 0.25, 0.2]
    >>> n = goodness_of_fit_sample_size(grr, null, alt, power=0.8)
    >>> power = [goodness_of_fit_power(grr, m, null, alt) for m in (n - 1, n)]
    >>> power[0] < 0.8 <= power[1]
    True
    """
    return _sample_size(
        lambda m: goodness_of_fit_power(mechanism, m, expected, actual, alpha=alpha), power
    )


# --------------------------------------------------------------------------- independence
def _jacobian(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The Jacobian in ``f`` (flattened) of ``g = f - a b'`` at marginals ``rows, cols``."""
    k1, k2 = rows.size, cols.size
    return (
        np.eye(k1 * k2)
        - np.kron(np.eye(k1), np.outer(cols, np.ones(k2)))
        - np.kron(np.outer(rows, np.ones(k1)), np.eye(k2))
    )


def _interaction(table: np.ndarray, rows: np.ndarray, cols: np.ndarray):
    """``g = f - a b'`` (flattened) and its Jacobian in ``f`` at marginals ``rows, cols``,
    both projected on the interaction contrasts (Helmert bases of both axes)."""
    k1, k2 = table.shape
    basis = np.kron(tangent_basis(k1), tangent_basis(k2))
    a, b = table.sum(axis=1), table.sum(axis=0)
    g = (table - np.outer(a, b)).ravel()
    return basis.T @ g, basis.T @ _jacobian(rows, cols)


#: Largest ratio :func:`second_order_ratio` at which :func:`independence` answers.
MAX_SECOND_ORDER = 1.0


def _uniform_ratio(covariance_at: Any, shape: tuple[int, ...]) -> float:
    """:func:`second_order_ratio` at the uniform table of ``shape``, with the covariance
    ``covariance_at(f)`` there."""
    rows, cols = np.full(shape[0], 1.0 / shape[0]), np.full(shape[1], 1.0 / shape[1])
    return second_order_ratio(covariance_at(np.outer(rows, cols).ravel()), rows, cols)


def second_order_ratio(covariance: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> float:
    """How far the delta method of :func:`independence` is from holding: the expected square
    of the term it neglects, the product ``da db'`` of the two marginals' errors, over the
    variance of the first-order error ``J df`` (both summed over the cells), when ``f_hat``
    has ``covariance`` (Gaussian moments: ``E[da_i^2 db_j^2] = S_a,ii S_b,jj + 2 C_ij^2``).

    It scales as ``1 / n``; the chi-square reference holds its level where it is at most
    ``MAX_SECOND_ORDER`` at the uniform table (checked by simulation through the marginal
    designs, down to that boundary) and can reject far too often above it.

    Parameters
    ----------
    covariance : ndarray
        The covariance of the flattened ``k1 x k2`` estimate.
    rows, cols : ndarray
        The marginals the Jacobian is taken at.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.inference import second_order_ratio
    >>> from ldp.mechanisms import GRR
    >>> rows, cols = np.array([0.5, 0.5]), np.array([0.2, 0.3, 0.5])
    >>> null = np.outer(rows, cols).ravel()
    >>> per_report = second_order_ratio(GRR(6, 0.5).covariance(1, null), rows, cols)
    >>> ratio = second_order_ratio(GRR(6, 0.5).covariance(1000, null), rows, cols)
    >>> bool(np.isclose(ratio, per_report / 1000)), ratio < 1   # 1000 reports suffice
    (True, True)
    """
    k1, k2 = rows.size, cols.size
    to_rows = np.kron(np.eye(k1), np.ones((1, k2)))
    to_cols = np.kron(np.ones((1, k1)), np.eye(k2))
    var_a = np.einsum("ij,jk,ik->i", to_rows, covariance, to_rows)
    var_b = np.einsum("ij,jk,ik->i", to_cols, covariance, to_cols)
    cross = to_rows @ covariance @ to_cols.T
    second = float((np.outer(var_a, var_b) + 2.0 * cross**2).sum())
    jacobian = _jacobian(rows, cols)
    first = float(np.einsum("ij,jk,ik->", jacobian, covariance, jacobian))
    return second / first if first > 0.0 else math.inf


def independence(estimator: Any, columns: Any) -> TestResult:
    """Test that two columns are independent, from the estimate of their joint table.

    A Wald test of the interaction ``f_ij - a_i b_j`` (``a, b`` the estimated marginals) on
    its ``(k1 - 1)(k2 - 1)`` contrasts, with the delta-method covariance at the product of
    the estimated marginals (clipped at 0 and renormalised) and the decoder's exact
    covariance there. The delta method drops the product of the marginals' errors: with
    too few reports for the epsilon, that term dominates and the test would reject far
    too often, so it refuses (``ValueError`` naming about how many reports it needs) where
    :func:`second_order_ratio` exceeds ``MAX_SECOND_ORDER`` at the uniform table. The
    ratio is taken there, not at the estimate, so that whether the test answers depends on
    the protocol and the number of reports only, never on the data (a refusal that read
    the data would choose the datasets the test answers, and those reject too often); for
    the library's oracles the uniform table is where the ratio is largest.

    Parameters
    ----------
    estimator : fitted estimator
        Anything whose ``cell_estimate(columns)`` is a two-way :class:`CellEstimate`.
    columns : pair of column names

    Returns
    -------
    TestResult
        ``df = (k1 - 1)(k2 - 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.inference import CellEstimate, independence
    >>> from ldp.mechanisms import OUE
    >>> oue = OUE(6, 2.0)   # the 2 x 3 table's cells, flattened
    >>> cells = np.outer([0.5, 0.5], [0.2, 0.3, 0.5]).ravel()
    >>> x = np.random.default_rng(0).choice(6, size=20_000, p=cells)
    >>> counts = oue.aggregate(oue.privatize(x, rng=1))
    >>> class Joint:
    ...     def cell_estimate(self, columns):
    ...         return CellEstimate(oue.estimate(counts), (2, 3), counts.n,
    ...                             lambda f: oue.covariance(counts.n, f), ((0, 1), (0, 1, 2)), "p")
    >>> result = independence(Joint(), ("a", "b"))
    >>> result.df, result.pvalue > 0.01
    (2, True)
    """
    view = cells_of(estimator, columns)
    if len(view.shape) != 2:
        raise ValueError(
            f"columns must name two columns for the independence test, got {columns!r} "
            f"(a table of shape {view.shape})"
        )
    _check_categories(view.shape, columns)
    ratio = _uniform_ratio(view.covariance, view.shape)
    if ratio > MAX_SECOND_ORDER:
        need = math.ceil(view.n * ratio / MAX_SECOND_ORDER) if math.isfinite(ratio) else None
        raise ValueError(
            f"{view.n} reports are too few for the independence test at this epsilon: the "
            f"product of the marginals' errors, which its chi-square approximation neglects, "
            f"is {ratio:.3g} times the first-order error (the test needs at most "
            f"{MAX_SECOND_ORDER:g}: about {need} reports, or a larger epsilon)"
        )
    table = view.value.reshape(view.shape)
    rows = normalised(table.sum(axis=1), "the first column's marginal")
    cols = normalised(table.sum(axis=0), "the second column's marginal")
    null = np.outer(rows, cols).ravel()
    contrast, slope = _interaction(table, rows, cols)
    statistic = wald(contrast, slope @ view.covariance(null) @ slope.T)
    df = (view.shape[0] - 1) * (view.shape[1] - 1)
    return _chi2_result(statistic, df, view.n, "Wald chi-square of the interaction, delta method")


def independence_power(mechanism: Any, n: int, joint: Any, *, alpha: float = 0.05) -> float:
    """Power of :func:`independence` with ``n`` reports of ``mechanism`` (a decoder of the
    flattened ``k1 x k2`` table) when the true joint table is ``joint``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import OUE
    >>> from ldp.inference import independence_power
    >>> joint = np.array([[0.3, 0.2], [0.2, 0.3]])
    >>> power = [independence_power(OUE(4, 2.0), n, joint) for n in (100, 1000, 10_000)]
    >>> bool(0.05 < power[0] < power[1] < power[2] <= 1.0)
    True
    """
    users = check_integer(n, "n", low=1)
    level = _check_alpha(alpha)
    table = np.asarray(joint, dtype=float)
    if table.ndim != 2 or min(table.shape) < 2:
        raise ValueError(f"joint must be a k1 x k2 table (k1, k2 >= 2), got shape {table.shape}")
    table = check_distribution(table.ravel(), table.size, "joint").reshape(table.shape)
    _check_mechanism(mechanism, table.size)
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    contrast, slope = _interaction(table, rows, cols)
    null = np.outer(rows, cols).ravel()
    noncentrality = wald(contrast, slope @ mechanism.covariance(users, null) @ slope.T)
    k1, k2 = rows.size, cols.size
    return _noncentral_power(noncentrality, (k1 - 1) * (k2 - 1), level)


def independence_sample_size(
    mechanism: Any, joint: Any, *, power: float = 0.8, alpha: float = 0.05
) -> int:
    """Smallest ``n`` at which :func:`independence_power` reaches ``power`` and
    :func:`independence` answers (its :func:`second_order_ratio` at the uniform table at
    most ``MAX_SECOND_ORDER``).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import OUE
    >>> from ldp.inference import independence_power, independence_sample_size
    >>> joint = np.array([[0.3, 0.2], [0.2, 0.3]])
    >>> n = independence_sample_size(OUE(4, 2.0), joint)
    >>> independence_power(OUE(4, 2.0), n, joint) >= 0.8
    True
    """
    found = _sample_size(lambda m: independence_power(mechanism, m, joint, alpha=alpha), power)
    one = _uniform_ratio(lambda f: mechanism.covariance(1, f), np.shape(joint))
    return max(found, math.ceil(one / MAX_SECOND_ORDER))


# --------------------------------------------------------------------------- two samples
def two_sample(estimator_a: Any, estimator_b: Any, *, column: object = None) -> TestResult:
    """Test that two samples, collected by the same protocol, come from one distribution
    (frequencies) or have one mean (means).

    Frequencies (estimators with ``cell_estimate``): a Wald test of ``f_a = f_b`` with the
    exact covariance of ``f_hat_a - f_hat_b`` at the pooled estimate (clipped at 0 and
    renormalised), ``df = k - 1``. Means (estimators with ``mean_sample``): the two-sample
    z test with each sample's variance of one report (Welch's standard error).

    Parameters
    ----------
    estimator_a, estimator_b : fitted estimators
        Of the same kind, fitted on two independent samples with the same protocol
        (estimators that share reports, the same fit, a copy or a merge, are refused).
    column : optional
        The column to compare (omit it for estimators of one column).

    Returns
    -------
    TestResult
        ``df = k - 1`` for frequencies, ``None`` for means; ``n = (n_a, n_b)``.

    Examples
    --------
    >>> import numpy as np
    >>> from estimators import MeanEstimator
    >>> from ldp.inference import two_sample
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.uniform(0, 10, (20_000, 1)), rng.uniform(1, 11, (20_000, 1))
    >>> kw = dict(bounds=(0, 12), mechanism="Duchi", random_state=1)
    >>> result = two_sample(MeanEstimator(1.0, **kw).fit(a), MeanEstimator(1.0, **kw).fit(b))
    >>> result.df is None, result.pvalue < 1e-3
    (True, True)
    """
    if estimator_a is estimator_b:
        raise ValueError(
            "estimator_a and estimator_b are the same estimator: a two-sample test compares "
            "two independent samples"
        )
    if callable(getattr(estimator_a, "cell_estimate", None)):
        first = cells_of(estimator_a, column, "estimator_a")
        second = cells_of(estimator_b, column, "estimator_b")
        same_protocol(first.protocol, second.protocol)
        disjoint_fits(first.fits, second.fits)
        if first.shape != second.shape:
            raise ValueError(f"the samples have cells {first.shape} and {second.shape}")
        _check_categories(first.shape, column)
        pooled = normalised(
            (first.n * first.value + second.n * second.value) / (first.n + second.n),
            "the pooled estimate",
        )
        basis = tangent_basis(first.size)
        contrast = basis.T @ (first.value - second.value)
        covariance = first.covariance(pooled) + second.covariance(pooled)
        statistic = wald(contrast, basis.T @ covariance @ basis)
        return _chi2_result(
            statistic,
            first.size - 1,
            (first.n, second.n),
            "Wald chi-square of two samples, exact covariance at the pooled estimate",
        )
    if callable(getattr(estimator_a, "mean_sample", None)):
        if not callable(getattr(estimator_b, "mean_sample", None)):
            raise TypeError("estimator_b must be a fitted mean estimator like estimator_a")
        return two_means(
            sample_of(estimator_a, column, "estimator_a"),
            sample_of(estimator_b, column, "estimator_b"),
        )
    raise TypeError(
        "estimator_a must be a fitted estimator with cell_estimate or mean_sample, got "
        f"{type(estimator_a).__name__}"
    )


def two_sample_power(
    mechanism: Any, n_a: int, n_b: int, f_a: Any, f_b: Any, *, alpha: float = 0.05
) -> float:
    """Power of :func:`two_sample` on frequencies, ``n_a`` and ``n_b`` reports of
    ``mechanism``, true distributions ``f_a`` and ``f_b``.

    Examples
    --------
    >>> from ldp.mechanisms import OLH
    >>> from ldp.inference import two_sample_power
    >>> olh, fa, fb = OLH(4, 1.0), [0.25] * 4, [0.3, 0.25, 0.25, 0.2]
    >>> round(two_sample_power(olh, 5000, 5000, fa, fa), 3)   # no departure: the level
    0.05
    >>> bool(two_sample_power(olh, 5000, 5000, fa, fb) < two_sample_power(olh, 9000, 9000, fa, fb))
    True
    """
    first, second = check_integer(n_a, "n_a", low=1), check_integer(n_b, "n_b", low=1)
    level = _check_alpha(alpha)
    fa = check_distribution(f_a, np.size(f_a), "f_a")
    fb = check_distribution(f_b, fa.size, "f_b")
    _check_mechanism(mechanism, fa.size)
    pooled = (first * fa + second * fb) / (first + second)
    basis = tangent_basis(fa.size)
    covariance = mechanism.covariance(first, pooled) + mechanism.covariance(second, pooled)
    noncentrality = wald(basis.T @ (fa - fb), basis.T @ covariance @ basis)
    return _noncentral_power(noncentrality, fa.size - 1, level)


def two_sample_sample_size(
    mechanism: Any, f_a: Any, f_b: Any, *, power: float = 0.8, alpha: float = 0.05
) -> int:
    """Smallest ``n`` per sample at which :func:`two_sample_power` (``n_a = n_b = n``)
    reaches ``power``.

    Examples
    --------
    >>> from ldp.mechanisms import OLH
    >>> from ldp.inference import two_sample_sample_size
    >>> two_sample_sample_size(OLH(4, 1.0), [.25] * 4, [.3, .25, .25, .2]) > 5000
    True
    """
    return _sample_size(lambda m: two_sample_power(mechanism, m, m, f_a, f_b, alpha=alpha), power)
