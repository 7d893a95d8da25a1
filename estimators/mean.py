"""Means of bounded numeric columns from locally private reports."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from estimators._base import ProtocolEstimator, check_alpha
from estimators._protocol import decoded_square_sum, unit_scale
from estimators._schema import NUMERIC
from estimators._views import collection_id, column_index
from ldp.core import Estimate
from ldp.inference import MeanSample
from ldp.risk import Bound, bernoulli_mean

__all__ = ["MeanEstimator"]


class MeanEstimator(ProtocolEstimator):
    """The mean of each bounded numeric column, estimated from epsilon-LDP reports.

    Each column is mapped affinely from its public ``bounds`` onto the mechanism's domain,
    privatized with a mean mechanism (``"auto"``: smallest worst-case variance among Duchi,
    piecewise, hybrid and Laplace at the column's budget) and estimated by the average of the
    unbiased decoded reports, mapped back. Values outside the bounds raise; they are never
    clipped (clipping would bias the mean without saying so).

    The same two ways in as :class:`~estimators.FrequencyEstimator` (raw rows in simulation,
    or the clients' report table), ``partial_fit`` and ``merge``. The fitted estimator keeps
    per column the sum and the sum of squares of the decoded reports, and their count.

    Parameters
    ----------
    epsilon : float, default 1.0
        Per-row privacy budget, ``> 0``.
    bounds : dict, list or (float, float), optional
        Public ``(low, high)`` per column, or one pair for all. Undeclared columns take the
        observed range rounded outward (simulation only: not covered by the guarantee).
    mechanism : str or dict, default "auto"
        ``"auto"``, ``"Duchi"``, ``"Laplace"``, ``"Piecewise"``, ``"Hybrid"``,
        ``"SquareWave"``, or a dict per column.
    budget : {"split", "sample"}, default "split"
    random_state : None, int, numpy.random.Generator or "os"
        Noise source of the simulation, as in :class:`~estimators.FrequencyEstimator`
        (``clone`` of an estimator holding a Generator replays the same noise; ``"os"`` is the
        operating system's CSPRNG).
    protocol : ldp.protocol.Protocol, Channel or mechanism, optional
        A published protocol: the estimator decodes exactly its reports (``fit_reports``
        takes report files, tables or client records carrying its fingerprint), and ``fit``
        simulates its devices on the one column of ``X``. A ``Channel`` or mechanism
        instance (also accepted as ``mechanism=``) is made into a protocol. ``epsilon`` is
        then the protocol's, and ``bounds``, ``mechanism`` and ``budget`` stay unset.
    strict : bool, default False
        As in :class:`~estimators.FrequencyEstimator`: refuse reports that fail the
        goodness-of-fit test (here, a decoded mean outside the bounds) instead of warning.

    Attributes
    ----------
    mean_ : ndarray of shape (n_columns,)
        The estimated means, in the columns' units (NaN while a column has no reports).
    bounds_ : list of (float, float)
        The public bounds of each column.
    statistics_ : list of MeanSums
        Per column, the mergeable sum of decoded reports (on the mechanism's domain).
    n_reports_, n_rows_, epsilon_total_, mechanisms_, privatizer_ :
        As in :class:`~estimators.FrequencyEstimator`.

    Examples
    --------
    >>> import numpy as np
    >>> from estimators import MeanEstimator
    >>> ages = np.random.default_rng(0).uniform(20, 60, size=(50_000, 1))
    >>> est = MeanEstimator(epsilon=1.0, bounds=(0, 100), random_state=1).fit(ages)
    >>> bool(abs(est.mean_[0] - ages.mean()) < 2.0), est.mechanisms_[0]   # sd ~ 0.46
    (True, Hybrid(epsilon=1.0))
    >>> lb = est.lower_bound()[0]
    >>> bool(lb.value < est.variance()[0])
    True
    """

    _kind = NUMERIC

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        bounds: dict | list | tuple | None = None,
        mechanism: str | dict = "auto",
        budget: str = "split",
        random_state: object = None,
        protocol: object = None,
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.mechanism = mechanism
        self.budget = budget
        self.random_state = random_state
        self.protocol = protocol
        self.strict = strict

    def _domain_param(self) -> dict:
        return {"bounds": self.bounds}

    def _extra(self, mechanism, block: np.ndarray, name: str) -> float:
        return decoded_square_sum(mechanism, block, name)

    def _scales(self) -> tuple[np.ndarray, np.ndarray]:
        pairs = [unit_scale(m, c.interval) for c, m in zip(self.columns_, self.mechanisms_)]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    def _update(self) -> None:
        self.bounds_ = [c.interval for c in self.columns_]
        offset, slope = self._scales()
        unit = np.array(
            [float(s.total) / s.n if s.n else np.nan for s in self.statistics_], dtype=np.float64
        )
        self.mean_ = offset + slope * unit

    def variance(self, kind: str = "worst") -> np.ndarray:
        """Variance of each column's mean estimate, in squared column units.

        Parameters
        ----------
        kind : {"worst", "empirical"}
            ``"worst"``: the mechanism's exact worst case over the bounds divided by the
            column's reports (an upper bound on the fixed-data variance whatever the values);
            ``"empirical"``: the sample variance of the decoded reports divided by their number
            (estimates the i.i.d. variance, which also counts the spread of the values).
        """
        check_is_fitted(self)
        if kind not in ("worst", "empirical"):
            raise ValueError(f"kind must be 'worst' or 'empirical', got {kind!r}")
        _, slope = self._scales()
        out = np.full(len(self.columns_), np.inf)
        for j, (mech, stat) in enumerate(zip(self.mechanisms_, self.statistics_)):
            n = stat.n
            if kind == "worst" and n:
                out[j] = float(mech.variance(n))
            elif kind == "empirical" and n > 1:
                total = float(stat.total)
                sample = max(0.0, (self._extras[j] - total * total / n) / (n - 1))
                out[j] = sample / n
        return slope**2 * out

    def confidence_interval(self, alpha: float = 0.05, kind: str = "worst") -> np.ndarray:
        """``(n_columns, 2)`` normal-approximation ``1 - alpha`` intervals, clipped to bounds.

        ``kind="worst"`` is the mechanism's own interval
        (:meth:`ldp.mechanisms.MeanMechanism.interval` at confidence ``1 - alpha``: the exact
        worst-case variance, conservative whatever the values); ``"empirical"`` the same normal
        interval with the sample variance of the decoded reports. Both are mapped from the
        mechanism's domain to the column's units. A column without reports gets ``NaN``.
        """
        check_is_fitted(self)
        if kind not in ("worst", "empirical"):
            raise ValueError(f"kind must be 'worst' or 'empirical', got {kind!r}")
        level = 1.0 - check_alpha(alpha)
        offset, slope = self._scales()
        if kind == "empirical":  # the sample standard errors, on the mechanisms' domains
            errors = np.sqrt(self.variance("empirical")) / slope
        out = np.full((len(self.columns_), 2), np.nan)
        for j, (mech, stat) in enumerate(zip(self.mechanisms_, self.statistics_)):
            if stat.n == 0:
                continue
            if kind == "worst":
                est = mech.interval(stat, level)
            else:
                mean = float(stat.total) / stat.n
                est = Estimate(mean, float(errors[j]), level, stat.n, "normal, sample variance")
            low, high = self.bounds_[j]
            ends = offset[j] + slope[j] * np.array([est.lower, est.upper], dtype=np.float64)
            out[j] = np.clip(ends, low, high)
        return out

    def to_frame(self, alpha: float = 0.05, kind: str = "worst") -> pd.DataFrame:
        """A tidy table, one row per column: its bounds, reports, mean, standard error and
        interval (as :meth:`estimators.FrequencyEstimator.to_frame` has per category).

        Parameters
        ----------
        alpha : float, default 0.05
            The intervals are ``1 - alpha`` normal-approximation intervals.
        kind : {"worst", "empirical"}, default "worst"
            The variance behind ``std`` and the interval (see :meth:`variance`).

        Returns
        -------
        pandas.DataFrame
            Columns ``column``, ``low``, ``high``, ``n_reports``, ``mean``, ``std`` (the
            standard error of ``mean``: the square root of :meth:`variance`), ``ci_low`` and
            ``ci_high`` (:meth:`confidence_interval`, clipped to the bounds).

        Examples
        --------
        >>> import numpy as np
        >>> from estimators import MeanEstimator
        >>> X = np.random.default_rng(0).uniform(20, 60, size=(20_000, 2))
        >>> est = MeanEstimator(1.0, bounds=(0, 100), random_state=1).fit(X)
        >>> table = est.to_frame()
        >>> list(table.columns)
        ['column', 'low', 'high', 'n_reports', 'mean', 'std', 'ci_low', 'ci_high']
        >>> inside = (table["ci_low"] < table["mean"]) & (table["mean"] < table["ci_high"])
        >>> bool(inside.all())
        True
        """
        check_is_fitted(self)
        interval = self.confidence_interval(alpha, kind)
        return pd.DataFrame(
            {
                "column": [c.name for c in self.columns_],
                "low": [b[0] for b in self.bounds_],
                "high": [b[1] for b in self.bounds_],
                "n_reports": [s.n for s in self.statistics_],
                "mean": self.mean_,
                "std": np.sqrt(self.variance(kind)),
                "ci_low": interval[:, 0],
                "ci_high": interval[:, 1],
            }
        )

    def score(self, X: ArrayLike, y: object = None) -> float:
        """Held-out accuracy: minus the squared error against the means of ``X``, per width.

        ``score = -sum_j ((mean_j - mean(X_j)) / (high_j - low_j))^2`` over the columns, with
        ``(low_j, high_j)`` the public bounds (so every column counts on the same scale).
        Larger is better, as scikit-learn's model selection expects, so ``GridSearchCV`` can
        choose the ``mechanism`` or ``budget`` on held-out folds.

        Fitted on rows independent of ``X``, the expected value is minus (the estimate's
        variance about its training rows plus the squared difference of the two folds'
        means), per squared width: the second term is the same for every parameter setting,
        so the ranking is that of the estimate's error. The score measures accuracy only: a
        larger ``epsilon`` always wins, so fix ``epsilon`` by the privacy you promise.

        This is a simulation tool: it reads raw rows, which a deployment never sees. Tune on
        public or synthetic data shaped like yours.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Raw held-out rows with the fitted columns; values outside the bounds raise.
        y : ignored

        Returns
        -------
        float
            ``<= 0``; ``-inf`` while a column has no reports.

        Examples
        --------
        >>> import numpy as np
        >>> from estimators import MeanEstimator
        >>> X = np.random.default_rng(0).uniform(20, 60, size=(20_000, 1))
        >>> est = MeanEstimator(epsilon=1.0, bounds=(0, 100), random_state=1).fit(X)
        >>> expected = -(((est.mean_[0] - X.mean()) / 100) ** 2)
        >>> bool(np.isclose(est.score(X), expected))
        True
        """
        check_is_fitted(self)
        total = 0.0
        for mean, (low, high), unit in zip(self.mean_, self.bounds_, self._held_out(X)):
            if not np.isfinite(mean):
                return -np.inf
            held = (float(np.mean(unit)) + 1.0) / 2.0  # unit values are on [-1, 1]
            total += ((mean - low) / (high - low) - held) ** 2
        return -float(total)

    def lower_bound(self) -> list[Bound]:
        """Per column, the minimax lower bound on the squared error of *any* estimator of a
        mean on ``bounds`` from ``n_rows_`` users under ``epsilon_total_``-LDP.

        :func:`ldp.risk.bernoulli_mean` with ``support=bounds``: two-point distributions on
        the bounds are among the distributions on ``[low, high]``, so their Le Cam bound
        holds for the whole class.
        """
        check_is_fitted(self)
        return [
            bernoulli_mean(max(self.n_rows_, 1), self.epsilon_total_, support=c.interval)
            for c in self.columns_
        ]

    def mean_sample(self, column: str | int | None = None) -> MeanSample:
        """The unbiased mean of one column with the sample variance of one report, for the
        tests of :mod:`ldp.inference` (:func:`ldp.inference.two_sample`).

        Parameters
        ----------
        column : str or int, optional
            The column's name or position (may be omitted when there is one column).

        Returns
        -------
        ldp.inference.MeanSample
            ``value`` and ``variance`` in the column's units: the mean and the sample
            variance (``ddof = 1``) of the decoded reports mapped back from the mechanism's
            domain; ``n`` the column's reports; ``protocol`` who collected them.

        Examples
        --------
        >>> import numpy as np
        >>> from estimators import MeanEstimator
        >>> X = np.random.default_rng(0).uniform(20, 60, size=(5000, 1))
        >>> est = MeanEstimator(1.0, bounds=(0, 100), mechanism="Laplace", random_state=1).fit(X)
        >>> sample = est.mean_sample()
        >>> bool(sample.value == est.mean_[0]), sample.n
        (True, 5000)
        >>> bool(np.isclose(sample.variance / sample.n, est.variance("empirical")[0]))
        True
        """
        j = column_index(self, column)
        stat = self.statistics_[j]
        if stat.n < 2:
            raise ValueError(
                f"column {self.columns_[j].name!r} has {stat.n} reports; a mean sample needs 2"
            )
        _, slope = self._scales()
        spread = stat.sample_variance if getattr(stat, "squares", None) is not None else None
        if spread is None:
            total = float(stat.total)
            spread = max(0.0, (self._extras[j] - total * total / stat.n) / (stat.n - 1))
        return MeanSample(
            float(self.mean_[j]),
            float(slope[j] ** 2 * spread),
            stat.n,
            collection_id(self, j),
            self._fit_ids,
        )
