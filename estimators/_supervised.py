"""What the private classifiers share: label checks and the fit / partial_fit / merge cycle."""

from __future__ import annotations

import warnings
from abc import ABCMeta, abstractmethod
from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from estimators import _params as params
from estimators._base import ProtocolEstimator, declared_protocol
from estimators._params import Check, ValidatedParams
from estimators._schema import Column, is_frame, table_rows
from estimators.privatizer import (
    NoSeedInPickles,
    Privatizer,
    atomic,
    update_lock,
    warn_domain_from_data,
)
from ldp._random import ByteSource
from ldp._validation import check_random_state
from ldp._warnings import PrivacyLeakWarning

#: Values of encoded statistics per chunk when a classifier privatizes its rows (8 MiB).
ENCODE_CHUNK = 1 << 20


def row_chunks(X, y: np.ndarray, step: int):
    """``(X[a:b], y[a:b])`` in chunks of ``step`` rows (DataFrame or ndarray; another
    array-like is one chunk)."""
    n = int(y.shape[0])
    if n <= step or not (is_frame(X) or isinstance(X, np.ndarray)):
        yield X, y
        return
    for start in range(0, n, step):
        rows = slice(start, start + step)
        yield (X.iloc[rows] if is_frame(X) else X[rows]), y[rows]


def check_target(estimator, X, y) -> np.ndarray:
    """``y`` as a 1-D array of class labels matching ``X`` (values never echoed)."""
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None."
        )
    n_rows = table_rows(X)  # X's shape first: scikit-learn's checks would quote its values
    y = column_or_1d(y, warn=True)
    if y.dtype.kind in "fc":
        assert_all_finite(y, input_name="y", estimator_name=type(estimator).__name__)
    if y.shape[0] != n_rows:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"X has {n_rows} rows, y has {y.shape[0]} labels"
        )
    check_classification_targets(y)
    return y


def resolve_classes(declared: object, y: np.ndarray | None, name: str) -> np.ndarray:
    """The class set: declared (public), else the labels present in ``y`` (read from data)."""
    if declared is None:
        if y is None:
            raise ValueError(f"declare the {name} (the reports' schema cannot come from data)")
        classes = np.unique(y)
        warnings.warn(
            PrivacyLeakWarning(
                f"the classes were read from the private labels ({classes.size} found); the "
                "set of classes present is not covered by the reported epsilon. Declare them "
                "(classes=); simulations may silence this warning with "
                "warnings.simplefilter('ignore', PrivacyLeakWarning)"
            ),
            stacklevel=4,
        )
    else:
        if isinstance(declared, (str, bytes)) or np.ndim(declared) != 1:  # type: ignore[arg-type]
            raise TypeError(f"{name} must be a 1-D list of class labels")
        index = pd.Index(list(declared))  # type: ignore[call-overload]
        if not index.is_unique:
            raise ValueError(f"{name} contains duplicate labels")
        classes = np.asarray(declared)
    if classes.size < 2:
        raise ValueError(
            f"a classifier needs at least 2 classes; got {classes.size} class (y has one label)"
        )
    return classes


def encode_labels(classes: np.ndarray, y: np.ndarray) -> np.ndarray:
    codes = pd.Index(classes).get_indexer(y)
    if np.any(codes < 0):
        raise ValueError(
            f"y has labels outside the {classes.size} classes fixed at the first fit; declare "
            "every class in `classes`"
        )
    return codes.astype(np.int64)


class BasePrivateLearner(ValidatedParams, NoSeedInPickles, metaclass=ABCMeta):
    """``fit``, ``partial_fit`` and ``merge`` of a classifier built on one mergeable statistic.

    The shared cycle calls hooks every subclass implements, declared here as abstract
    methods (as scikit-learn's ``_BaseDiscreteNB`` declares ``_count`` and
    ``_update_feature_log_prob``): how the model is set up from the first ``X``
    (:meth:`_setup`: classes, schema and the unfitted statistic), how rows are encoded
    (:meth:`_encode`) and how many statistics a row becomes (:meth:`_row_width`), which
    estimator aggregates the statistic (:attr:`_aggregator`, a typed view of the fitted
    attribute that holds it) and how the model is recomputed from it (:meth:`_refresh`).
    The parameters and fitted attributes the cycle reads are declared below. Every update is
    atomic and holds the estimator's lock (updates from several threads are serialised).
    """

    #: What the features' public domains are called in messages (the parameter declaring them).
    _domain: ClassVar[str]
    _parameter_checks: ClassVar[Mapping[str, Check]] = {
        "epsilon": params.epsilon,
        "budget": params.budget,
        "alpha": params.non_negative,
    }

    # parameters (set by the subclass's __init__)
    epsilon: float
    classes: ArrayLike | None
    mechanism: str | dict
    budget: str
    alpha: float
    random_state: object

    # fitted state
    classes_: np.ndarray
    columns_: list[Column]
    epsilon_total_: float
    device_privatizer_: Privatizer
    _rng: np.random.Generator | ByteSource  # the simulation's noise source

    # ----------------------------------------------------------------- hooks
    @abstractmethod
    def _setup(self, X: ArrayLike, classes: object, y: np.ndarray | None) -> None:
        """Check the parameters, then set ``classes_``, ``columns_`` and the unfitted
        statistic's estimator from ``X`` (its column names and declared domains) and the
        class set (declared, else read from ``y``)."""

    @abstractmethod
    def _encode(self, X: ArrayLike, y: ArrayLike, *, reset: bool) -> np.ndarray:
        """The per-user statistics of the rows ``(X, y)``: one row of
        :meth:`_row_width` values per user, the input of the statistic's estimator."""

    @abstractmethod
    def _row_width(self) -> int:
        """Number of statistics one user's row becomes."""

    @property
    @abstractmethod
    def _aggregator(self) -> ProtocolEstimator:
        """The estimator aggregating the private statistic (the only data-dependent state);
        ``AttributeError`` before the first fit."""

    @abstractmethod
    def _refresh(self) -> None:
        """Recompute the model's fitted attributes from the aggregated statistic."""

    def _has_statistic(self) -> bool:
        try:
            aggregator = self._aggregator
        except AttributeError:
            return False
        return aggregator is not None

    def _start(self, X, y, classes):
        """Check ``y``, then set up the model from all of ``X`` (schema, classes, statistic)."""
        y_checked = check_target(self, X, y)
        self._setup(X, self.classes if classes is None else classes, y_checked)
        warn_domain_from_data(self.columns_, f"{self._domain}=")
        return y_checked

    def _add_rows(self, X, y, *, first):
        """Encode and privatize the rows chunk by chunk: the per-user statistics (``width``
        floats a row) are never built for all rows at once."""
        inner = self._aggregator
        step = max(256, ENCODE_CHUNK // max(1, self._row_width()))
        for index, (part, labels) in enumerate(row_chunks(X, y, step)):
            rows = self._encode(part, labels, reset=False)
            if first and index == 0:
                inner.fit(rows)
            else:
                inner.partial_fit(rows)

    def fit(self, X, y):
        """Simulation: privatize each user's rows, then estimate the model.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        with atomic(self):
            self._rng = check_random_state(self.random_state)
            y_checked = self._start(X, y, None)
            self._add_rows(X, y_checked, first=True)
            self._refresh()
        return self

    def partial_fit(self, X, y, classes=None):
        """Add a chunk of users; the first call fixes the classes (``classes`` here, else the
        ``classes`` parameter) and the feature domains.

        Returns
        -------
        self
        """
        with atomic(self):
            if not self._has_statistic():
                if classes is None and self.classes is None:
                    raise ValueError(
                        "classes must be passed on the first call to partial_fit (or declared "
                        "with the `classes` parameter)"
                    )
                self._rng = check_random_state(self.random_state)
                y_checked = self._start(X, y, classes)
                self._add_rows(X, y_checked, first=True)
            else:
                if classes is not None and not np.array_equal(np.asarray(classes), self.classes_):
                    raise ValueError("classes differs from the classes of the first call")
                self._add_rows(X, check_target(self, X, y), first=False)
            self._refresh()
        return self

    # ----------------------------------------------------------------- devices and reports
    def device_privatizer(self, X):
        """Fix the model's public schema and return the privatizer its devices run.

        Every domain (``categories`` or ``bounds``) and the ``classes`` must be declared:
        only the column names and dtypes of ``X`` are read, never its values. A device then
        sends ``privatizer.transform(model.device_rows(X_device, y_device))``, and the server
        decodes the collected report tables with :meth:`fit_reports`.

        Parameters
        ----------
        X : DataFrame or array-like
            Any table with the features' columns (its values are not read).

        Returns
        -------
        Privatizer
            Fitted; publish it (or its parameters) to the devices.
        """
        with atomic(self):
            if self.classes is None:
                raise ValueError("declare the classes (classes=) to publish a model's protocol")
            self._setup(X, self.classes, None)
            undeclared = [c.name for c in self.columns_ if c.source == "data"]
            if undeclared:
                raise ValueError(
                    f"declare the {self._domain} of column(s) {undeclared} to publish a "
                    "model's protocol"
                )
            self.device_privatizer_ = declared_protocol(self._aggregator)
        return self.device_privatizer_

    def device_rows(self, X, y):
        """The rows a device privatizes with :meth:`device_privatizer` (they never leave it).

        Returns
        -------
        ndarray
            One row per user: the statistics the privatizer's columns take.
        """
        if not hasattr(self, "device_privatizer_"):
            raise ValueError("call device_privatizer(X) first: it fixes the devices' schema")
        return self._encode(X, y, reset=False)

    def fit_reports(self, reports, privatizer=None):
        """Estimate the model from the report tables devices sent (see
        :meth:`device_privatizer`); ``reports`` as in
        :meth:`estimators.FrequencyEstimator.fit_reports`.

        Returns
        -------
        self
        """
        with atomic(self):
            if not hasattr(self, "device_privatizer_"):
                raise ValueError("call device_privatizer(X) first: it fixes the devices' schema")
            self._aggregator.fit_reports(reports, privatizer or self.device_privatizer_)
            self._refresh()
        return self

    def partial_fit_reports(self, reports):
        """Add a chunk of report tables (the first call is :meth:`fit_reports`).

        Returns
        -------
        self
        """
        with atomic(self):  # re-entrant: the first call's fit_reports holds it too
            if not self._has_statistic() or not hasattr(self._aggregator, "statistics_"):
                return self.fit_reports(reports)
            self._aggregator.partial_fit_reports(reports)
            self._refresh()
        return self

    def merge(self, other: BasePrivateLearner) -> BasePrivateLearner:
        """Add the private statistic of ``other`` (same parameters, classes and domains).

        Returns
        -------
        self
        """
        if type(other) is not type(self):
            raise TypeError(f"other must be a {type(self).__name__}, got {type(other).__name__}")
        with update_lock(other):  # a consistent view of other (never both locks at once)
            check_is_fitted(other)
            classes, columns, alpha = other.classes_, list(other.columns_), other.alpha
            statistic = other._aggregator
        with atomic(self):
            check_is_fitted(self)
            if not np.array_equal(self.classes_, classes):
                raise ValueError("cannot merge: the classes differ")
            if len(self.columns_) != len(columns) or not all(
                a.same_domain(b) for a, b in zip(self.columns_, columns, strict=True)
            ):
                raise ValueError(f"cannot merge: the feature columns or {self._domain} differ")
            if self.alpha != alpha:
                raise ValueError("cannot merge: parameter 'alpha' differs")
            self._aggregator.merge(statistic)  # locks the statistic's owner
            self._refresh()
        return self
