"""The mean of vectors in an l2 ball (embeddings, gradients, unit directions) from LDP reports."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from estimators import _params as params
from estimators._params import Check, ValidatedParams
from estimators._schema import check_feature_names
from estimators.privatizer import NoSeedInPickles, check_disjoint_fits, new_fit_id
from ldp._validation import check_random_state, check_scalar
from ldp._warnings import PrivacyLeakWarning
from ldp.mechanisms import Ball, DuchiL2, MeanSums, Mechanism, PrivUnit, PrivUnitG
from ldp.protocol import Protocol, iter_reports
from ldp.tasks import check_reports

__all__ = ["VectorMeanEstimator"]

#: ``mechanism=`` names (``"auto"``: PrivUnit for ``d >= 2``, Duchi et al.'s l2 mechanism for
#: ``d = 1``, where the ball is an interval and PrivUnit is not defined).
VECTOR_MECHANISMS = {"privunit": PrivUnit, "privunitg": PrivUnitG, "DuchiL2": DuchiL2}


def _ball(protocol: Protocol) -> Ball:
    domain = protocol.mechanism.domain
    if not isinstance(domain, Ball):  # the protocols here are checked to be on a ball
        raise TypeError("not a protocol for vectors on a ball")
    return domain


class VectorMeanEstimator(NoSeedInPickles, ValidatedParams, BaseEstimator):
    """The mean of ``d``-dimensional vectors of norm at most ``radius``, from epsilon-LDP
    reports of one vector per row.

    Each row is privatized as a whole by a mechanism on the l2 ball (``"auto"``:
    :class:`~ldp.mechanisms.PrivUnit`, the optimal unbiased one for ``d >= 2`` by
    Asi-Feldman-Talwar (2022); or :class:`~ldp.mechanisms.PrivUnitG`, or
    :class:`~ldp.mechanisms.DuchiL2`), and the mean is the average of the unbiased decoded
    reports. Rows outside the ball raise; they are never clipped (clipping biases the mean
    without saying so). The fitted estimator keeps the sum of the decoded reports, the sum of
    their squared norms and their count, never a row.

    Two ways in, as for :class:`~estimators.MeanEstimator`: ``fit(X)`` privatizes raw rows
    (simulation), ``fit_reports`` reads the reports devices made with a published protocol
    (report files, tables, client records; a report of another protocol is refused).

    Parameters
    ----------
    epsilon : float, default 1.0
        Privacy budget of each row, ``> 0``.
    radius : float, optional
        Public bound on the rows' norms. ``None`` (simulation only) takes the largest observed
        norm, which the privacy guarantee does not cover (a ``PrivacyLeakWarning`` says so).
    mechanism : {"auto", "privunit", "privunitg", "DuchiL2"}, default "auto"
    random_state : None, int, numpy.random.Generator or "os"
        Noise source of the simulation, as in :class:`~estimators.FrequencyEstimator`
        (``None``: a generator seeded from the operating system's entropy; ``"os"``: every
        random bit from its CSPRNG).
    protocol : ldp.protocol.Protocol or mechanism, optional
        A published protocol for vectors on a ball: the estimator decodes exactly its reports,
        and ``fit`` simulates its devices. ``epsilon``, ``radius`` and ``mechanism`` are then
        the protocol's.
    strict : bool, default False
        As in :class:`~estimators.FrequencyEstimator`: refuse reports that fail the
        goodness-of-fit test (here, a decoded mean outside the ball's cube) instead of
        warning.

    Attributes
    ----------
    mean_ : ndarray of shape (d,)
        The estimated mean.
    n_reports_ : int
        Number of reports aggregated.
    mechanism_ : Mechanism
        The mechanism (its ``epsilon`` is the exact privacy of one report).
    protocol_ : ldp.protocol.Protocol
        The protocol the reports were (or must be) made under.
    statistic_ : ldp.mechanisms.MeanSums
        The mergeable sum of the decoded reports.
    n_features_in_ : int
        ``d``.

    Examples
    --------
    >>> import numpy as np
    >>> from estimators import VectorMeanEstimator
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20_000, 32)) + 2.0
    >>> X /= np.linalg.norm(X, axis=1)[:, None]              # unit vectors
    >>> est = VectorMeanEstimator(epsilon=4.0, radius=1.0, random_state=1).fit(X)
    >>> est.mechanism_.name, bool(np.sum((est.mean_ - X.mean(axis=0)) ** 2) < 3 * est.variance())
    ('privunit', True)
    """

    _parameter_checks: ClassVar[Mapping[str, Check]] = {
        "epsilon": params.epsilon,
        "mechanism": params.one_of(
            ["auto", *VECTOR_MECHANISMS], message=f"'auto' or one of {sorted(VECTOR_MECHANISMS)}"
        ),
        "radius": params.optional(params.positive),
        "strict": params.boolean,
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        radius: float | None = None,
        mechanism: str = "auto",
        random_state: object = None,
        protocol: object = None,
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.radius = radius
        self.mechanism = mechanism
        self.random_state = random_state
        self.protocol = protocol
        self.strict = strict

    # ----------------------------------------------------------------- the protocol
    def _given_protocol(self) -> Protocol | None:
        if self.protocol is None:
            return None
        given = self.protocol
        if not isinstance(given, Protocol):
            if not isinstance(given, Mechanism):
                raise TypeError(
                    f"protocol must be a Protocol or a mechanism, got {type(given).__name__}"
                )
            given = Protocol.from_mechanism(given)
        if not isinstance(given.mechanism.domain, Ball):
            raise ValueError(
                "protocol must privatize vectors on an l2 ball (privunit, privunitg, DuchiL2); "
                f"got one for {given.mechanism.domain.describe()}"
            )
        return given

    def _new_protocol(self, d: int, rows: np.ndarray | None) -> Protocol:
        given = self._given_protocol()
        if given is not None:
            return given
        checked = self._validate_params()
        epsilon, radius = checked["epsilon"], checked["radius"]
        if radius is None:
            if rows is None:
                raise ValueError("radius must be given to decode reports (it is public)")
            warnings.warn(
                "radius is not declared: the largest observed norm is used, and the privacy "
                "guarantee does not cover a bound read from the data",
                PrivacyLeakWarning,
                stacklevel=3,
            )
            largest = float(np.sqrt((rows * rows).sum(axis=1)).max()) if rows.size else 0.0
            radius = largest * (1 + 1e-12) if largest > 0 else 1.0
        name = self.mechanism
        if name == "auto":
            name = "privunit" if d >= 2 else "DuchiL2"
        if d < 2 and name != "DuchiL2":
            raise ValueError(f"mechanism {name!r} needs d >= 2; X has {d} feature(s)")
        return Protocol.from_mechanism(VECTOR_MECHANISMS[name](epsilon, d, radius=radius))

    def _start(self, protocol: Protocol, d: int) -> None:
        mechanism = protocol.mechanism
        if _ball(protocol).d != d:
            raise ValueError(
                f"X has {d} feature(s), the protocol privatizes d = {_ball(protocol).d}"
            )
        self._fit_ids = frozenset({new_fit_id()})
        self.protocol_ = protocol
        self.mechanism_ = mechanism
        self.statistic_ = protocol.decoder.empty_statistic()
        self._square_sum = 0.0
        self.n_reports_ = 0
        self.n_features_in_ = d
        self.mean_ = np.full(d, np.nan)

    def _add(self, reports: np.ndarray) -> None:
        decoder = self.protocol_.decoder
        decoded = decoder.decode(reports)  # type: ignore[attr-defined]
        self.statistic_ = self.statistic_ + MeanSums(
            decoded.sum(axis=0), decoded.shape[0], self.statistic_.mechanism
        )
        self._square_sum += float((decoded * decoded).sum())
        self.n_reports_ = self.statistic_.n
        if self.n_reports_:
            self.mean_ = np.asarray(self.statistic_.total, dtype=np.float64) / self.n_reports_

    # ----------------------------------------------------------------- fitting
    def fit(self, X: ArrayLike, y: object = None) -> VectorMeanEstimator:
        """Privatize the rows of ``X`` (simulated devices) and estimate their mean.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)
            Raw rows, each of norm at most ``radius``.
        y : ignored

        Returns
        -------
        self
        """
        for name in ("mean_", "n_reports_", "statistic_", "protocol_", "mechanism_"):
            self.__dict__.pop(name, None)
        self._rng = check_random_state(self.random_state)
        return self.partial_fit(X)

    def partial_fit(self, X: ArrayLike, y: object = None) -> VectorMeanEstimator:
        """Privatize and add a chunk of rows (the first call starts the fit).

        Returns
        -------
        self
        """
        first = not hasattr(self, "protocol_")
        if not first:
            check_feature_names(self, X)
        rows = validate_data(self, X, reset=first, dtype=np.float64)
        if first:
            self._start(self._new_protocol(rows.shape[1], rows), rows.shape[1])
            if not hasattr(self, "_rng"):  # partial_fit before any fit
                self._rng = check_random_state(self.random_state)
        elif not hasattr(self, "_rng"):  # unpickled: the seed never travels, fresh entropy
            self._rng = check_random_state(None)
        reports = self.protocol_.privatize(rows, rng=self._rng)
        self._add(reports)
        return self

    def fit_reports(self, reports: object) -> VectorMeanEstimator:
        """Estimate the mean from reports devices made (the server side).

        Parameters
        ----------
        reports : array, DataFrame, client records, file path, or iterator of tables
            Reports of the protocol (``protocol=``, or the one built from ``epsilon``,
            ``radius`` and ``mechanism`` for the width of the reports); fingerprints are
            checked where the reports carry them.

        Returns
        -------
        self
        """
        saved = dict(self.__dict__)
        for name in ("mean_", "n_reports_", "statistic_", "protocol_", "mechanism_"):
            self.__dict__.pop(name, None)
        try:
            return self.partial_fit_reports(reports)
        except BaseException:  # a refused fit leaves the previous one
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def partial_fit_reports(self, reports: object) -> VectorMeanEstimator:
        """Add a chunk of reports (the first call is :meth:`fit_reports`).

        An array of report fields carries no fingerprint: it is read when the protocol was
        built here (from ``epsilon``, ``radius`` and ``mechanism``, or from a mechanism given
        as ``protocol=``), and refused for a published :class:`~ldp.protocol.Protocol`,
        whose reports must come as files, tables or client records carrying its
        fingerprint. The decoded mean is then tested against the ball
        (:func:`ldp.tasks.check_reports`): a warning, or under ``strict`` a
        ``ValueError`` that leaves the estimator as it was.

        Returns
        -------
        self
        """
        params.boolean(self.strict, "strict")  # before any state changes
        saved = dict(self.__dict__)
        try:
            if not hasattr(self, "protocol_"):
                protocol = self._given_protocol()
                if protocol is None:
                    width = (
                        np.asarray(reports).shape[-1] if isinstance(reports, np.ndarray) else None
                    )
                    if width is None:
                        raise ValueError(
                            "give protocol= to read report files, tables or records (the "
                            "fingerprint and the dimension come from it)"
                        )
                    protocol = self._new_protocol(int(width), None)
                self._start(protocol, _ball(protocol).d)
            trusted = not isinstance(self.protocol, Protocol)
            for chunk in iter_reports(self.protocol_, reports, trusted=trusted):
                self._add(chunk)
            check_reports(self.protocol_.decoder, self.statistic_, strict=bool(self.strict))
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        return self

    def merge(self, other: VectorMeanEstimator) -> VectorMeanEstimator:
        """Add the statistics of ``other`` (fitted on other users under the same protocol).

        Refused when ``other`` holds statistics of a fit this estimator holds too (itself,
        a copy, or an estimator merged into it already): they would be counted twice.

        Returns
        -------
        self
        """
        if type(other) is not type(self):
            raise TypeError(f"other must be a {type(self).__name__}, got {type(other).__name__}")
        check_is_fitted(self)
        check_is_fitted(other)
        if other.protocol_.fingerprint != self.protocol_.fingerprint:
            raise ValueError("cannot merge: the estimators' protocols differ")
        mine: frozenset[str] = getattr(self, "_fit_ids", frozenset())
        theirs: frozenset[str] = getattr(other, "_fit_ids", frozenset())
        check_disjoint_fits(mine, theirs)
        self._fit_ids = mine | theirs
        self.statistic_ = self.statistic_ + other.statistic_
        self._square_sum += other._square_sum
        self.n_reports_ = self.statistic_.n
        self.mean_ = np.asarray(self.statistic_.total, dtype=np.float64) / self.n_reports_
        return self

    # ----------------------------------------------------------------- accuracy
    def variance(self, kind: str = "worst") -> float:
        """``E||mean_ - mean||^2``: the trace of the estimate's covariance.

        Parameters
        ----------
        kind : {"worst", "empirical"}
            ``"worst"``: the mechanism's exact worst case over the ball divided by the
            number of reports (an upper bound whatever the rows); ``"empirical"``: the sample
            version from the decoded reports (it also counts the spread of the rows).

        Returns
        -------
        float
            ``inf`` while there are too few reports.
        """
        check_is_fitted(self)
        if kind not in ("worst", "empirical"):
            raise ValueError(f"kind must be 'worst' or 'empirical', got {kind!r}")
        n = self.n_reports_
        if kind == "worst":
            return float(self.mechanism_.variance(n)) if n else math.inf  # type: ignore[attr-defined]
        if n < 2:
            return math.inf
        total = np.asarray(self.statistic_.total, dtype=np.float64)
        spread = max(0.0, (self._square_sum - float(total @ total) / n) / (n - 1))
        return spread / n

    def error_radius(self, alpha: float = 0.05, kind: str = "worst") -> float:
        """A radius ``r`` with ``P(||mean_ - mean|| > r) <= alpha``: ``sqrt(variance / alpha)``
        (Chebyshev's inequality; no normal approximation).

        Parameters
        ----------
        alpha : float
            Error probability in ``(0, 1)``.
        kind : {"worst", "empirical"}
            As for :meth:`variance` (only ``"worst"`` gives a guarantee).

        Returns
        -------
        float
        """
        level = check_scalar(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
        return math.sqrt(self.variance(kind) / level)

    def score(self, X: ArrayLike, y: object = None) -> float:
        """Minus the squared distance from ``mean_`` to the mean of the held-out rows ``X``,
        per squared radius (larger is better, as scikit-learn's model selection expects).

        Parameters
        ----------
        X : array-like of shape (n_samples, d)
            Raw held-out rows (simulation only).
        y : ignored

        Returns
        -------
        float
        """
        check_is_fitted(self)
        check_feature_names(self, X)
        rows = validate_data(self, X, reset=False, dtype=np.float64)
        radius = _ball(self.protocol_).radius
        difference = self.mean_ - rows.mean(axis=0)
        return -float(difference @ difference) / radius**2

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags
