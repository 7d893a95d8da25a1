"""Frequencies of categorical columns from locally private reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from estimators import _params as params
from estimators._base import ProtocolEstimator, check_alpha
from estimators._params import Check
from estimators._schema import CATEGORICAL
from estimators._views import collection_id, column_index
from ldp.inference import CellEstimate
from ldp.risk import Bound, distribution_estimation
from ldp.tasks import ibu, norm_sub, project_simplex

__all__ = ["FrequencyEstimator"]

CONSISTENCY = ("none", "project", "norm_sub", "ibu")


class FrequencyEstimator(ProtocolEstimator):
    """Category frequencies of each column, estimated from epsilon-LDP reports.

    Every column is categorical; each is privatized with a frequency oracle (see
    :class:`~estimators.Privatizer` for the budget rule, the schema and the randomness) and
    its frequencies are estimated with the oracle's unbiased estimator
    ``(C_v / n - q) / (p - q)``, optionally post-processed into a distribution
    (``consistency``; post-processing costs no privacy).

    Two ways in: :meth:`fit` / :meth:`partial_fit` take raw rows and privatize them internally
    (simulation); :meth:`fit_reports` / :meth:`partial_fit_reports` take the report table the
    clients sent. :meth:`merge` adds the counts of another estimator fitted on other users
    with the same protocol; chunked, merged and one-shot aggregation of the same reports give
    identical counts. The fitted estimator holds the public protocol and the support counts,
    nothing else.

    Parameters
    ----------
    epsilon : float, default 1.0
        Per-row privacy budget, ``> 0``.
    categories : dict or list, optional
        Public categories per column (``{column: [...]}`` or one list per column). Columns
        left undeclared take them from a pandas ``Categorical`` dtype, else from the data
        (simulation only: not covered by the guarantee).
    mechanism : str or dict, default "auto"
        ``"auto"`` (smallest exact variance, :func:`ldp.tasks.recommend`) or one of
        ``"GRR"``, ``"SUE"``, ``"OUE"``, ``"OLH"``, ``"BLH"``, ``"HR"``, ``"SS"``, or a dict
        per column.
    budget : {"split", "sample"}, default "split"
        Split ``epsilon`` over the columns, or let each row report one sampled column.
    consistency : {"none", "project", "norm_sub", "ibu"}, default "none"
        Post-processing of the unbiased estimates: none, Euclidean projection onto the
        simplex, Norm-Sub, or iterative Bayesian update (see
        :func:`ldp.tasks.project_simplex`, :func:`ldp.tasks.norm_sub` and
        :func:`ldp.tasks.ibu`).
    random_state : None, int, numpy.random.Generator or "os"
        Noise source of the simulation (see :class:`~estimators.Privatizer`): ``None`` a
        generator seeded from fresh entropy, an int (or a ``SeedSequence``) a seeded one, a
        Generator used as is (deep-copied by ``clone``, so a clone replays the same noise),
        ``"os"`` every random bit from the operating system's CSPRNG, as on a device.
    protocol : ldp.protocol.Protocol, Channel or mechanism, optional
        A published protocol: the estimator decodes exactly its reports (``fit_reports``
        takes report files, tables or client records carrying its fingerprint), and ``fit``
        simulates its devices on the one column of ``X``. A ``Channel`` or mechanism
        instance (also accepted as ``mechanism=``) is made into a protocol. ``epsilon`` is
        then the protocol's, and ``categories``, ``mechanism`` and ``budget`` stay unset.
    strict : bool, default False
        What :meth:`fit_reports` and :meth:`partial_fit_reports` do with reports that fail
        the goodness-of-fit test against the mechanism
        (:func:`ldp.tasks.check_reports`: no honest device running the protocol
        sends reports like them): warn (:class:`~ldp.ImplausibleReportsWarning`), or, when
        true, refuse with ``ValueError`` and leave the estimator as it was.

    Attributes
    ----------
    frequencies_ : list of ndarray
        Per column, the estimate after ``consistency`` (NaN while a column has no reports,
        which only happens with ``budget="sample"`` and very few rows).
    unbiased_frequencies_ : list of ndarray
        Per column, the unbiased estimate (may be negative, need not sum to one).
    categories_ : list of ndarray
        Per column, the public categories, in the order of the frequencies.
    statistics_ : list of SupportCounts
        Per column, the mergeable support counts (``None`` for a single-category column).
    n_reports_ : ndarray of int
        Reports per column; ``n_rows_`` is the number of report rows (users).
    epsilon_total_ : float
        The per-row guarantee of the protocol (exact, from the mechanisms).
    mechanisms_ : list
        The oracle of each column.
    privatizer_ : Privatizer
        The public protocol (its ``random_state`` is cleared).

    Examples
    --------
    >>> import numpy as np
    >>> from estimators import FrequencyEstimator
    >>> from ldp.datasets import make_categorical
    >>> values, truth = make_categorical(20_000, 4, rng=0)
    >>> est = FrequencyEstimator(epsilon=2.0, categories=[[0, 1, 2, 3]], random_state=1)
    >>> est = est.fit(values.reshape(-1, 1))
    >>> bool(np.abs(est.frequencies_[0] - truth).max() < 0.03)
    True
    >>> est.mechanisms_[0]
    GRR(k=4, epsilon=2.0)
    >>> low_high = est.confidence_interval(0.05)[0]
    >>> bool(np.all(low_high[:, 0] <= low_high[:, 1]))
    True
    """

    _kind = CATEGORICAL
    _parameter_checks: ClassVar[Mapping[str, Check]] = {
        **ProtocolEstimator._parameter_checks,
        "consistency": params.one_of(CONSISTENCY),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        categories: dict | list | None = None,
        mechanism: str | dict = "auto",
        budget: str = "split",
        consistency: str = "none",
        random_state: object = None,
        protocol: object = None,
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.categories = categories
        self.mechanism = mechanism
        self.budget = budget
        self.consistency = consistency
        self.random_state = random_state
        self.protocol = protocol
        self.strict = strict

    def _domain_param(self) -> dict:
        return {"categories": self.categories}

    def _update(self) -> None:
        self.categories_ = [c.categories for c in self.columns_]
        self.unbiased_frequencies_, self.frequencies_ = [], []
        for column, mech, stat in zip(self.columns_, self.mechanisms_, self.statistics_):
            if mech is None:
                unbiased = processed = np.ones(1)
            elif stat.n == 0:
                unbiased = processed = np.full(column.k, np.nan)
            else:
                unbiased = mech.estimate(stat)
                if self.consistency == "project":
                    processed = project_simplex(unbiased)
                elif self.consistency == "norm_sub":
                    processed = norm_sub(unbiased)
                elif self.consistency == "ibu":
                    processed = ibu(mech, stat)
                else:
                    processed = unbiased
            self.unbiased_frequencies_.append(unbiased)
            self.frequencies_.append(processed)

    # ----------------------------------------------------------------- uncertainty
    def variance(self, convention: str = "fixed") -> list[np.ndarray]:
        """Per column, the exact variance of each unbiased estimate at the estimated frequency.

        The oracle's closed form (:meth:`ldp.mechanisms.FrequencyOracle.variance`) with ``n``
        the column's reports and ``f`` the unbiased estimate clipped to ``[0, 1]`` (a plug-in:
        the formula is exact for the true ``f``).

        Parameters
        ----------
        convention : {"fixed", "iid"}
            ``fixed``: the estimand is the empirical frequency of the users; ``iid``: the
            population frequency (adds ``f (1 - f) / n``).
        """
        check_is_fitted(self)
        out = []
        for column, mech, stat, est in zip(
            self.columns_, self.mechanisms_, self.statistics_, self.unbiased_frequencies_
        ):
            if mech is None:
                out.append(np.zeros(1))
            elif stat.n == 0:
                out.append(np.full(column.k, np.inf))
            else:
                out.append(np.asarray(mech.variance(stat.n, np.clip(est, 0, 1), convention)))
        return out

    def confidence_interval(self, alpha: float = 0.05, convention: str = "iid") -> list[np.ndarray]:
        """Per column, a ``(k, 2)`` array of normal-approximation ``1 - alpha`` intervals.

        Centred on the unbiased estimate (whatever ``consistency`` is), half-width
        ``z_{1-alpha/2}`` times the square root of :meth:`variance`, clipped to ``[0, 1]``:
        the oracle's own interval (:meth:`ldp.mechanisms.FrequencyMechanism.interval` at
        confidence ``1 - alpha``). The counts are sums of independent reports, so the normal
        approximation is the central limit theorem's.
        """
        check_is_fitted(self)
        level = 1.0 - check_alpha(alpha)
        out = []
        for column, mech, stat in zip(self.columns_, self.mechanisms_, self.statistics_):
            if mech is None:  # one category: its frequency is 1
                out.append(np.ones((1, 2)))
            elif stat.n == 0:
                out.append(np.full((column.k, 2), np.nan))
            else:
                est = mech.interval(stat, level, convention=convention)
                out.append(np.clip(np.column_stack([est.lower, est.upper]), 0.0, 1.0))
        return out

    def lower_bound(self, loss: str = "l2sq") -> list[Bound | None]:
        """Per column, the minimax lower bound on the risk of *any* estimator of its
        distribution from ``n_rows_`` users under ``epsilon_total_``-LDP.

        :func:`ldp.risk.distribution_estimation` (private Assouad on the Paninski family). No
        protocol with the same per-user guarantee does better in the worst case; compare it
        with the summed :meth:`variance` (the achieved ``l2sq`` risk). ``None`` for a
        single-category column.
        """
        check_is_fitted(self)
        return [
            None
            if mech is None
            else distribution_estimation(
                column.k, max(self.n_rows_, 1), self.epsilon_total_, loss=loss
            )
            for column, mech in zip(self.columns_, self.mechanisms_)
        ]

    def score(self, X: ArrayLike, y: object = None) -> float:
        """Held-out accuracy: minus the squared l2 distance to the frequencies of ``X``.

        ``score = -sum_columns ||frequencies_ - e(X)||^2``, with ``e(X)`` the empirical
        frequencies of the raw held-out rows ``X`` over the fitted categories. Larger is
        better, as scikit-learn's model selection expects, so ``GridSearchCV`` can choose the
        ``mechanism``, ``consistency`` or ``budget`` on held-out folds.

        For the unbiased estimate (``consistency="none"``) fitted on rows independent of
        ``X``, the expected value is ``-(sum of the estimate's variance about its training
        rows + ||e(train) - e(X)||^2)``: the second term is the sampling difference between
        the folds, the same for every parameter setting, so the ranking is that of the
        estimate's error. The score measures accuracy only: a larger ``epsilon`` always wins,
        so fix ``epsilon`` by the privacy you promise, not by this score.

        This is a simulation tool: it reads raw rows, which a deployment never sees. Tune on
        public or synthetic data shaped like yours.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Raw held-out rows with the fitted columns; values outside the fitted categories
            raise, as in :meth:`fit`.
        y : ignored

        Returns
        -------
        float
            ``<= 0``; ``-inf`` while a column has no reports.

        Examples
        --------
        >>> import numpy as np
        >>> from estimators import FrequencyEstimator
        >>> X = np.repeat([[0], [1], [2], [3]], [4000, 3000, 2000, 1000], axis=0)
        >>> est = FrequencyEstimator(epsilon=2.0, categories=[[0, 1, 2, 3]], random_state=0)
        >>> est = est.fit(X)
        >>> truth = np.array([0.4, 0.3, 0.2, 0.1])
        >>> bool(np.isclose(est.score(X), -np.sum((est.frequencies_[0] - truth) ** 2)))
        True
        """
        check_is_fitted(self)
        total = 0.0
        for column, freq, codes in zip(self.columns_, self.frequencies_, self._held_out(X)):
            if not np.all(np.isfinite(freq)):
                return -np.inf
            empirical = np.bincount(codes, minlength=column.k) / codes.size
            total += float(np.sum((freq - empirical) ** 2))
        return -total

    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """A tidy table: column, category, frequency, unbiased estimate, std, interval."""
        check_is_fitted(self)
        parts = []
        for column, freq, est, var, ci in zip(
            self.columns_,
            self.frequencies_,
            self.unbiased_frequencies_,
            self.variance("iid"),
            self.confidence_interval(alpha),
        ):
            parts.append(
                pd.DataFrame(
                    {
                        "column": column.name,
                        "category": column.categories,
                        "frequency": freq,
                        "unbiased": est,
                        "std": np.sqrt(var),
                        "ci_low": ci[:, 0],
                        "ci_high": ci[:, 1],
                    }
                )
            )
        return pd.concat(parts, ignore_index=True)

    def cell_estimate(self, column: str | int | None = None) -> CellEstimate:
        """The unbiased frequencies of one column with their exact covariance, for the tests
        of :mod:`ldp.inference`.

        Parameters
        ----------
        column : str or int, optional
            The column's name or position (may be omitted when there is one column).

        Returns
        -------
        ldp.inference.CellEstimate
            ``value`` the unbiased estimate (whatever ``consistency`` is), ``covariance(f)``
            the oracle's exact i.i.d. covariance over the column's reports
            (:meth:`ldp.mechanisms.FrequencyMechanism.covariance`), ``labels`` the public
            categories, ``protocol`` who collected the reports.

        Examples
        --------
        >>> import numpy as np
        >>> from estimators import FrequencyEstimator
        >>> X = np.random.default_rng(0).choice(3, size=(4000, 1), p=[0.5, 0.3, 0.2])
        >>> est = FrequencyEstimator(2.0, categories=[[0, 1, 2]], random_state=1).fit(X)
        >>> cells = est.cell_estimate()
        >>> cells.shape, cells.n, cells.labels
        ((3,), 4000, ((0, 1, 2),))
        >>> cells.covariance(np.full(3, 1 / 3)).shape
        (3, 3)
        """
        j = column_index(self, column)
        mech, stat, col = self.mechanisms_[j], self.statistics_[j], self.columns_[j]
        if mech is None:
            raise ValueError(f"column {col.name!r} has a single category: nothing to estimate")
        if not callable(getattr(mech, "covariance", None)):
            raise TypeError(f"column {col.name!r}: {mech!r} has no exact covariance")
        if stat.n == 0:
            raise ValueError(f"column {col.name!r} has no reports")
        n = stat.n

        def covariance(f: np.ndarray) -> np.ndarray:
            return mech.covariance(n, f, "iid")

        categories = col.categories if col.categories is not None else ()
        labels = tuple(c.item() if isinstance(c, np.generic) else c for c in categories)
        return CellEstimate(
            self.unbiased_frequencies_[j],
            (col.k,),
            n,
            covariance,
            (labels,),
            collection_id(self, j),
            self._fit_ids,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        return tags
