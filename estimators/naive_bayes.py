"""Categorical naive Bayes from locally private (label, feature) pairs."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from estimators._schema import CATEGORICAL, encode_categorical, read_table, resolve_schema
from estimators._supervised import (
    BasePrivateLearner,
    check_target,
    encode_labels,
    resolve_classes,
)
from estimators.frequency import FrequencyEstimator
from ldp.tasks import project_simplex

__all__ = ["LDPNaiveBayes"]


class LDPNaiveBayes(BasePrivateLearner, ClassifierMixin, BaseEstimator):
    """Categorical naive Bayes learned from epsilon-LDP reports of (label, feature) pairs.

    **Scheme** (the joint-pair scheme of Yilmaz et al. (2019), "Locally differentially
    private naive Bayes classification"). A user with label ``y`` (one of ``C`` classes)
    and categorical features ``x_1 .. x_d`` privatizes, for feature ``j``, the *pair*
    ``(y, x_j)`` as one value of the joint alphabet of size ``C k_j`` with a frequency oracle.
    ``budget="split"``: every user reports all ``d`` pairs with ``epsilon / d`` each;
    ``budget="sample"``: every user reports the pair of one feature drawn uniformly at random,
    at the full ``epsilon``. Either way one user's whole report is ``epsilon_total_``-LDP
    (exact, from the oracles), the label included: the label is never sent in the clear.

    The server estimates each joint distribution ``P(y, x_j)`` (unbiased, then projected onto
    the simplex), the class prior as the average over features of the joint marginals, and
    the conditionals ``P(x_j = v | y = c)`` from the joint with additive smoothing ``alpha``
    on the implied counts. Prediction is the usual naive Bayes posterior.

    The aggregation is a :class:`~estimators.FrequencyEstimator` over the joint alphabets
    (``joint_``), so ``partial_fit`` and ``merge`` are exact. Categories and classes read from
    the data (not declared) are for simulation only, and reading them gives a
    :class:`~ldp.PrivacyLeakWarning` (see :class:`~estimators.Privatizer`).

    Parameters
    ----------
    epsilon : float, default 1.0
        Per-user budget, ``> 0``.
    categories : dict or list, optional
        Public categories per feature. Undeclared features take them from a pandas
        ``Categorical`` dtype, else from the values seen by the first fit.
    classes : array-like, optional
        The public class labels; by default those present in the first ``y``.
    mechanism : str, default "auto"
        Frequency oracle for the joint alphabets (``"auto"``, ``"GRR"``, ``"OUE"``, ...).
    budget : {"split", "sample"}, default "split"
    alpha : float, default 1.0
        Additive smoothing of the conditional probabilities (on the estimated counts).
    random_state : None, int, numpy.random.Generator or "os"
        Noise source of the simulation, as in :class:`~estimators.FrequencyEstimator`
        (``clone`` of an estimator holding a Generator replays the same noise; ``"os"`` is the
        operating system's CSPRNG).

    Attributes
    ----------
    classes_ : ndarray
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j)
    categories_ : list of ndarray
    joint_ : FrequencyEstimator
        The aggregated joint counts (the only data-dependent state).
    epsilon_total_ : float
        Per-user guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from estimators import LDPNaiveBayes
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, size=20_000)
    >>> X = np.column_stack([(y + (rng.random(y.size) < 0.2)) % 2 for _ in range(3)])
    >>> clf = LDPNaiveBayes(4.0, categories=[[0, 1]] * 3, classes=[0, 1], random_state=1)
    >>> clf = clf.fit(X, y)
    >>> round(clf.epsilon_total_, 6), bool(clf.score(X, y) > 0.85)
    (4.0, True)
    """

    joint_: FrequencyEstimator
    _domain = "categories"

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        categories: dict | list | None = None,
        classes: ArrayLike | None = None,
        mechanism: str = "auto",
        budget: str = "split",
        alpha: float = 1.0,
        random_state: object = None,
    ) -> None:
        self.epsilon = epsilon
        self.categories = categories
        self.classes = classes
        self.mechanism = mechanism
        self.budget = budget
        self.alpha = alpha
        self.random_state = random_state

    # ----------------------------------------------------------------- fitting
    @property
    def _aggregator(self) -> FrequencyEstimator:
        return self.joint_

    def _encode(self, X: ArrayLike, y: ArrayLike, *, reset: bool) -> np.ndarray:
        y = check_target(self, X, y)
        table = read_table(self, X, reset=False)
        labels = encode_labels(self.classes_, y)
        return np.column_stack(
            [
                labels * c.k + encode_categorical(c, table.values(j))
                for j, c in enumerate(self.columns_)
            ]
        )

    def _setup(self, X: ArrayLike, classes: object, y: np.ndarray | None) -> None:
        """Parameters, classes, the features' schema and the (unfitted) joint estimator."""
        self._validate_params()
        self.classes_ = resolve_classes(classes, y, "classes")
        self.columns_ = resolve_schema(
            read_table(self, X, reset=True),
            categories=self.categories,
            bounds=None,
            default_kind=CATEGORICAL,
        )
        n_classes = self.classes_.size
        mechanism = self.mechanism
        if isinstance(mechanism, dict):
            names = [c.name for c in self.columns_]
            mechanism = {
                f"x{names.index(str(k))}" if str(k) in names else str(k): v
                for k, v in mechanism.items()
            }
        self.joint_ = FrequencyEstimator(
            self.epsilon,
            categories=[list(range(n_classes * c.k)) for c in self.columns_],
            mechanism=mechanism,
            budget=self.budget,
            random_state=getattr(self, "_rng", None),
        )

    def _row_width(self) -> int:
        return len(self.columns_)

    def _refresh(self) -> None:
        n_classes = self.classes_.size
        alpha = float(self.alpha)
        joints, priors, log_probs = [], [], []
        for column, freq, n in zip(
            self.columns_, self.joint_.unbiased_frequencies_, self.joint_.n_reports_
        ):
            if n == 0:
                joint = np.full((n_classes, column.k), 1.0 / (n_classes * column.k))
            else:
                joint = project_simplex(freq).reshape(n_classes, column.k)
            joints.append(joint)
            priors.append(joint.sum(axis=1))
            counts = joint * n + alpha
            totals = counts.sum(axis=1, keepdims=True)
            with np.errstate(divide="ignore"):
                log_probs.append(np.log(counts) - np.log(totals))
        prior = np.mean(priors, axis=0)
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.log(prior)
        self.feature_log_prob_ = log_probs
        self.categories_ = [c.categories for c in self.columns_]
        self.epsilon_total_ = self.joint_.epsilon_total_

    # ----------------------------------------------------------------- prediction
    def _joint_log_likelihood(self, X: ArrayLike) -> np.ndarray:
        check_is_fitted(self)
        table = read_table(self, X, reset=False)
        jll = np.tile(self.class_log_prior_, (table.n_rows, 1))
        for j, (column, log_prob) in enumerate(zip(self.columns_, self.feature_log_prob_)):
            jll += log_prob[:, encode_categorical(column, table.values(j))].T
        return jll

    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """Log posterior class probabilities, shape (n_samples, n_classes)."""
        jll = self._joint_log_likelihood(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Posterior class probabilities, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class of largest posterior probability."""
        jll = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(jll, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        tags.input_tags.categorical = True
        # LDP noise at the default epsilon = 1 on the few hundred rows of the common checks
        tags.classifier_tags.poor_score = True
        return tags
