"""Logistic regression from locally private sufficient statistics (one round, mergeable)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from estimators._schema import NUMERIC, encode_numeric, read_table, resolve_schema
from estimators._supervised import (
    BasePrivateLearner,
    check_target,
    encode_labels,
    resolve_classes,
)
from estimators.mean import MeanEstimator

__all__ = ["LDPLogisticRegression"]


def _statistics(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per-user statistics, all in ``[-1, 1]``: ``x``, ``x_j x_l`` (``j <= l``), ``t``,
    ``t_c x_j``."""
    n, d = x.shape
    upper = np.triu_indices(d)
    products = (x[:, :, None] * x[:, None, :])[:, upper[0], upper[1]]
    cross = (t[:, :, None] * x[:, None, :]).reshape(n, -1)
    return np.column_stack([x, products, t, cross])


class LDPLogisticRegression(BasePrivateLearner, ClassifierMixin, BaseEstimator):
    """Logistic regression learned non-interactively from epsilon-LDP sufficient statistics.

    **Method.** The logistic loss ``log(1 + exp(-t w.x))`` (``t = +-1``) is replaced by its
    second-order Taylor polynomial at ``w.x = 0``, ``log 2 - t w.x / 2 + (w.x)^2 / 8``: the
    polynomial-approximation approach to non-interactive LDP learning of smooth generalized
    linear models (Zheng-Mou-Wang (2017)), at degree 2. The empirical surrogate
    depends on the data only through the means of ``x x^T`` and ``t x``, so each user, in one
    round, privatizes the vector of these per-user statistics (features mapped from their
    public ``bounds`` to ``[-1, 1]``, so every statistic lies in ``[-1, 1]``) with a
    :class:`~estimators.MeanEstimator`: with ``budget="sample"`` (the default) each user
    reports one statistic drawn at random at the full ``epsilon`` (Wang et al. (2019),
    sampling; with ``D`` statistics the per-coordinate variance is about ``D`` times the
    one-dimensional one, against ``D^2`` for splitting the budget). The server minimizes the
    private surrogate plus a ridge penalty ``alpha |w|^2`` (intercept not penalized), after
    projecting the noisy second-moment matrix onto the positive semidefinite cone (both are
    post-processing). More than two classes: one-vs-rest targets ``t_c``, probabilities by a
    softmax of the one-vs-rest scores.

    One round and sums only, so ``partial_fit`` and ``merge`` are exact, unlike LDP-SGD,
    which needs a fresh group of users per step. At prediction, features are clipped to the
    bounds (prediction privatizes nothing).

    Parameters
    ----------
    epsilon : float, default 1.0
        Per-user budget, ``> 0``.
    bounds : dict, list or (float, float), optional
        Public ``(low, high)`` per feature, or one pair for all. Undeclared features take the
        observed range rounded outward (simulation only: a :class:`~ldp.PrivacyLeakWarning`
        says so).
    classes : array-like, optional
        Public class labels; by default those in the first ``y``.
    alpha : float, default 0.01
        Ridge penalty on the scaled coefficients.
    mechanism : str, default "auto"
        Mean mechanism of the statistics (``"auto"``, ``"Duchi"``, ``"Piecewise"``, ...).
    budget : {"sample", "split"}, default "sample"
    random_state : None, int, numpy.random.Generator or "os"
        Noise source of the simulation, as in :class:`~estimators.FrequencyEstimator`
        (``clone`` with a Generator replays the same noise; ``"os"`` is the operating
        system's CSPRNG).

    Attributes
    ----------
    classes_ : ndarray
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        In the features' own units.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    statistics_ : MeanEstimator
        The aggregated private statistics (the only data-dependent state).
    epsilon_total_ : float
        Per-user guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from estimators import LDPLogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(100_000, 2))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = LDPLogisticRegression(4.0, bounds=(-1, 1), classes=[0, 1], random_state=1)
    >>> clf = clf.fit(X, y)
    >>> bool(clf.score(X, y) > 0.9), round(clf.epsilon_total_, 6)
    (True, 4.0)
    """

    statistics_: MeanEstimator
    _domain = "bounds"

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        bounds: dict | list | tuple | None = None,
        classes: ArrayLike | None = None,
        alpha: float = 0.01,
        mechanism: str = "auto",
        budget: str = "sample",
        random_state: object = None,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.classes = classes
        self.alpha = alpha
        self.mechanism = mechanism
        self.budget = budget
        self.random_state = random_state

    # ----------------------------------------------------------------- fitting
    @property
    def _aggregator(self) -> MeanEstimator:
        return self.statistics_

    def _encode(self, X: ArrayLike, y: ArrayLike, *, reset: bool) -> np.ndarray:
        y = check_target(self, X, y)
        table = read_table(self, X, reset=False)
        x = np.column_stack(
            [encode_numeric(c, table.values(j)) for j, c in enumerate(self.columns_)]
        )
        labels = encode_labels(self.classes_, y)
        if self.classes_.size == 2:
            t = (2.0 * labels - 1.0)[:, None]
        else:
            t = 2.0 * (labels[:, None] == np.arange(self.classes_.size)[None, :]) - 1.0
        return _statistics(x, t)

    def _setup(self, X: ArrayLike, classes: object, y: np.ndarray | None) -> None:
        """Parameters, classes, the features' schema and the (unfitted) statistics' estimator."""
        self._validate_params()
        self.classes_ = resolve_classes(classes, y, "classes")
        self.columns_ = resolve_schema(
            read_table(self, X, reset=True),
            categories=None,
            bounds=self.bounds,
            default_kind=NUMERIC,
        )
        self.statistics_ = MeanEstimator(
            self.epsilon,
            bounds=[(-1.0, 1.0)] * self._row_width(),
            mechanism=self.mechanism,
            budget=self.budget,
            random_state=getattr(self, "_rng", None),
        )

    def _row_width(self) -> int:
        """Statistics per user: ``x``, ``x_j x_l`` (``j <= l``), ``t``, ``t_c x_j``."""
        d = len(self.columns_)
        m = 1 if self.classes_.size == 2 else self.classes_.size
        return d + d * (d + 1) // 2 + m + m * d

    def _refresh(self) -> None:
        d = len(self.columns_)
        m = 1 if self.classes_.size == 2 else self.classes_.size
        means = np.nan_to_num(self.statistics_.mean_, nan=0.0)  # unreported statistic: 0
        first, rest = means[:d], means[d:]
        n_products = d * (d + 1) // 2
        products, rest = rest[:n_products], rest[n_products:]
        t_mean, cross = rest[:m], rest[m:].reshape(m, d)
        second = np.zeros((d + 1, d + 1))
        second[0, 0] = 1.0
        second[0, 1:] = second[1:, 0] = first
        upper = np.triu_indices(d)
        block = np.zeros((d, d))
        block[upper] = products
        block = block + block.T - np.diag(np.diag(block))
        second[1:, 1:] = block
        values, vectors = np.linalg.eigh(second)
        second = (vectors * np.clip(values, 0.0, None)) @ vectors.T
        ridge = np.full(d + 1, 4.0 * float(self.alpha))
        ridge[0] = 0.0
        rhs = 2.0 * np.column_stack([t_mean, cross])  # (m, d + 1)
        theta = np.linalg.lstsq(second + np.diag(ridge), rhs.T, rcond=None)[0].T
        # back to the features' units: x_scaled = scale * x + shift
        low = np.array([c.interval[0] for c in self.columns_])
        high = np.array([c.interval[1] for c in self.columns_])
        scale = 2.0 / (high - low)
        shift = -2.0 * low / (high - low) - 1.0
        self.coef_ = theta[:, 1:] * scale
        self.intercept_ = theta[:, 0] + theta[:, 1:] @ shift
        self.epsilon_total_ = self.statistics_.epsilon_total_

    # ----------------------------------------------------------------- prediction
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores ``X @ coef_.T + intercept_`` (features clipped to their bounds)."""
        check_is_fitted(self)
        table = read_table(self, X, reset=False)
        x = np.column_stack(
            [
                np.clip(encode_numeric(c, table.values(j), clip=True), -1, 1)
                * (c.interval[1] - c.interval[0])
                / 2
                + (c.interval[0] + c.interval[1]) / 2
                for j, c in enumerate(self.columns_)
            ]
        )
        scores = x @ self.coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities: the logistic function of the score (two classes) or a softmax
        of the one-vs-rest scores."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        return softmax(scores, axis=1)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class of largest score."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        # LDP noise at the default epsilon = 1 on the few hundred rows of the common checks
        tags.classifier_tags.poor_score = True
        return tags
