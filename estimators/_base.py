"""What the frequency and mean estimators share: a protocol, mergeable statistics, atomic updates.

An estimator holds a fitted :class:`~estimators.Privatizer` (the public protocol: columns,
domains, mechanisms, budget) and, per column it estimates, the mechanism's mergeable
statistic (:class:`~ldp.mechanisms.SupportCounts` or :class:`~ldp.mechanisms.MeanSums`) plus
the number of report rows. Nothing else survives a fit: no raw value, no report. Every
public update (``fit``, ``partial_fit``, ``fit_reports``, ``partial_fit_reports``, ``merge``)
either completes or leaves the estimator exactly as it was, and holds the estimator's own
lock: updates from several threads (for instance chunks of reports aggregated concurrently
into one estimator) are serialised, and none is lost.
"""

from __future__ import annotations

import copy
import warnings
from abc import ABCMeta, abstractmethod
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from estimators import _params as params
from estimators._deployed import single_column_values
from estimators._params import Check, ValidatedParams
from estimators._protocol import aggregate_block, build_mechanisms, check_budget
from estimators._schema import (
    CATEGORICAL,
    Column,
    check_bounds,
    check_categories,
    check_same_columns,
    encode_table,
    read_table,
)
from estimators.privatizer import (
    NoSeedInPickles,
    Privatizer,
    atomic,
    check_disjoint_fits,
    check_epsilon_param,
    install_protocol,
    install_schema,
    native_reports,
    new_fit_id,
    report_width_total,
    same_protocol,
    update_lock,
)
from ldp._random import ByteSource
from ldp._validation import check_random_state, check_scalar, plain
from ldp._warnings import PrivacyLeakWarning
from ldp.core import normal_z
from ldp.distributed import is_dask_collection, map_reduce_partitions
from ldp.protocol import Protocol, iter_reports
from ldp.tasks import DEFAULT_ALPHA, check_reports

#: A noise source: what ``check_random_state`` returns.
Random = np.random.Generator | ByteSource

#: Report-table cells privatized at once by a simulation (``fit`` / ``partial_fit``).
SIMULATION_CHUNK = 1 << 20


def _combine(first: tuple, second: tuple) -> tuple:
    """Add two ``(statistics, extras, n_rows)`` triples (one per chunk or partition)."""
    stats = [None if a is None else a + b for a, b in zip(first[0], second[0], strict=True)]
    return stats, first[1] + second[1], first[2] + second[2]


def _same_param(a: object, b: object) -> bool:
    try:
        return bool(np.all(a == b)) if type(a) is type(b) else False
    except (TypeError, ValueError):
        return repr(a) == repr(b)


def check_alpha(alpha: object) -> float:
    """``alpha`` in ``(0, 1)``: the error rate of a two-sided ``1 - alpha`` interval."""
    return check_scalar(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)


def normal_quantile(alpha: object) -> float:
    """``z_{1 - alpha/2}``: the normal quantile of a two-sided ``1 - alpha`` interval
    (:func:`ldp.core.normal_z` at confidence ``1 - alpha``, as the decoders' intervals)."""
    return normal_z(1.0 - check_alpha(alpha))


class ProtocolEstimator(ValidatedParams, NoSeedInPickles, BaseEstimator, metaclass=ABCMeta):
    """Base class of the estimators that decode one protocol's reports column by column.

    A subclass sets ``_kind`` (the kind of column it estimates) and implements the hooks
    declared here as abstract methods: :meth:`_domain_param` (its parameter declaring the
    columns' public domains) and :meth:`_update` (its fitted attributes from the statistics);
    :meth:`_extra` (a per-column number aggregated beside the statistic) is optional. The
    parameters and fitted attributes the shared cycle reads are declared below, and the
    checks of the constructor parameters in ``_parameter_checks`` (extended by subclasses).
    """

    _kind: ClassVar[str] = CATEGORICAL
    _parameter_checks: ClassVar[Mapping[str, Check]] = {
        "epsilon": params.epsilon,
        "budget": params.budget,
        "strict": params.boolean,
    }

    # parameters (set by the subclass's __init__)
    epsilon: float
    mechanism: Any  # a name, {column: name}, or a Channel or mechanism instance (a protocol)
    budget: str
    random_state: object
    protocol: object
    strict: bool

    # fitted state
    privatizer_: Privatizer
    columns_: list[Column]
    mechanisms_: list[Any]
    statistics_: list[Any]
    epsilon_total_: float
    n_rows_: int
    n_reports_: np.ndarray
    _used: list[int]
    _extras: np.ndarray
    _rng: Random
    #: The fits the statistics come from (class default: a pickle written before fits had
    #: identifiers).
    _fit_ids: frozenset[str] = frozenset()

    # ----------------------------------------------------------------- hooks
    @abstractmethod
    def _domain_param(self) -> dict:
        """``{name: value}`` of the one parameter declaring the columns' public domains."""

    def _check_params(self) -> None:
        self._validate_params()
        spec = self._protocol_spec()
        if spec is not None and not isinstance(spec, Protocol):
            Protocol.from_mechanism(spec)  # a readable error now, not at the first chunk

    def _extra(self, mechanism, block: np.ndarray, name: str) -> float:
        """A number per column aggregated beside its statistic (none by default)."""
        return 0.0

    @abstractmethod
    def _update(self) -> None:
        """Recompute the fitted attributes from ``statistics_`` (after every update)."""

    # ----------------------------------------------------------------- protocol
    def _protocol_spec(self) -> object | None:
        """The published protocol this estimator decodes, if any (``protocol=``, or a
        ``Channel`` or mechanism instance given as ``mechanism=``)."""
        spec = self.protocol
        if spec is None and not isinstance(self.mechanism, (str, Mapping)):
            spec = self.mechanism
        return spec

    def _new_privatizer(self) -> Privatizer:
        spec = self._protocol_spec()
        if spec is not None:
            ((param, declared),) = self._domain_param().items()
            if declared is not None:
                raise ValueError(f"{param} is fixed by the protocol; do not declare it")
            if self.budget != "split":
                raise ValueError("budget is fixed by the protocol; leave it at 'split'")
            priv = Privatizer(protocol=spec)
        else:
            priv = Privatizer(
                self.epsilon,
                mechanism=self.mechanism,
                budget=self.budget,
                random_state=None,
                **self._domain_param(),
            )
        priv._default_kind = self._kind
        return priv

    def _declared_protocol(self) -> Privatizer:
        """The protocol from the estimator's own declarations (no data to read)."""
        ((param, declared),) = self._domain_param().items()
        if isinstance(declared, dict):
            names = [str(k) for k in declared]
            domains = list(declared.values())
        elif isinstance(declared, list) and declared:
            names = [f"x{j}" for j in range(len(declared))]
            domains = declared
        else:
            raise ValueError(
                f"fit_reports without a privatizer needs `{param}` declared for every column "
                "(a dict or a list); otherwise pass the fitted Privatizer the clients used"
            )
        if self._kind == CATEGORICAL:
            columns = [
                Column(n, CATEGORICAL, categories=check_categories(d, n))
                for n, d in zip(names, domains)
            ]
        else:
            columns = [
                Column(n, self._kind, bounds=check_bounds(d, n)) for n, d in zip(names, domains)
            ]
        priv = self._new_privatizer()
        install_schema(
            priv,
            columns,
            build_mechanisms(
                columns,
                check_epsilon_param(self.epsilon),
                self.mechanism,
                check_budget(self.budget),
            ),
        )
        priv.n_features_in_ = len(columns)
        if isinstance(declared, dict):
            priv.feature_names_in_ = np.asarray(names, dtype=object)
        return priv

    def _adopt_protocol(self, privatizer: Privatizer) -> Privatizer:
        if not isinstance(privatizer, Privatizer):
            raise TypeError(
                f"privatizer must be a fitted Privatizer, got {type(privatizer).__name__}"
            )
        check_is_fitted(privatizer)
        for param in ("epsilon", "mechanism", "budget"):
            mine, theirs = getattr(self, param), getattr(privatizer, param)
            if not _same_param(mine, theirs):
                raise ValueError(
                    f"{param} of the estimator ({plain(mine)!r}) differs from the privatizer's "
                    f"({plain(theirs)!r}); the reports can only be decoded with the clients' "
                    "protocol"
                )
        with warnings.catch_warnings():  # the seed is dropped on purpose
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            priv = copy.deepcopy(privatizer)
        priv.random_state = None
        return priv

    # ----------------------------------------------------------------- statistics
    def _statistics(self, priv: Privatizer, reports: ArrayLike, used: list[int]):
        blocks = priv.report_blocks(reports)
        stats: list[Any] = []
        extras: list[float] = []
        counts: list[int] = []
        for j in used:
            mech, column = priv.mechanisms_[j], priv.columns_[j]
            if mech is None:
                stats.append(None)
                extras.append(0.0)
                counts.append(0)
                continue
            rows, block = blocks[j]  # type: ignore[misc]
            stats.append(aggregate_block(mech, block, column.name))
            extras.append(self._extra(mech, block, column.name))
            counts.append(rows.size)
        n_rows = int(np.shape(reports)[0])
        return stats, np.asarray(extras, dtype=np.float64), n_rows

    def _simulated_statistics(
        self, priv: Privatizer, values: list, used: list[int], *, rng: Random
    ):
        """Privatize raw columns and aggregate their native reports, one chunk of rows at a
        time: the float64 report table is never built (a packed report of 128 bytes would be
        1 KiB per row in it)."""
        n = len(values[0]) if values else 0
        stats = [
            None if priv.mechanisms_[j] is None else priv.mechanisms_[j].empty_statistic()
            for j in used
        ]
        extras = np.zeros(len(used))
        position = {j: i for i, j in enumerate(used)}
        step = max(1, SIMULATION_CHUNK // max(1, report_width_total(priv)))
        for start in range(0, n, step):
            part = [column[start : start + step] for column in values]
            encoded = encode_table(priv.columns_, part)
            for j, _, reports in native_reports(priv, encoded, rng=rng):
                if j not in position:
                    continue
                i, mech = position[j], priv.mechanisms_[j]
                stats[i] = stats[i] + mech.aggregate(reports)
                extras[i] += self._extra(mech, reports, priv.columns_[j].name)
        return stats, extras, n

    def _gather(self, priv: Privatizer, reports: object, used: list[int]):
        """Statistics of reports in memory, in an iterator of chunks, or in Dask.

        Chunks and partitions are aggregated one at a time (or where they live, for Dask)
        and combined; an error names the chunk or partition, and nothing is committed.
        """

        def one(part: Any, where: str):
            try:
                return self._statistics(priv, part, used)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{where}: {exc}") from None

        if is_dask_collection(reports):
            return map_reduce_partitions(reports, one, _combine)
        if isinstance(reports, Iterator):
            total = None
            for index, chunk in enumerate(reports):
                part = one(chunk, f"chunk {index}")
                total = part if total is None else _combine(total, part)
            if total is None:
                raise ValueError("reports: the iterator of chunks was empty")
            return total
        return self._statistics(priv, reports, used)  # type: ignore[arg-type]

    def _gather_protocol(self, priv: Privatizer, reports: object, *, trusted: bool):
        """Statistics of a protocol's reports: a report file, table, client records, an
        array of report fields, an iterator of tables or a Dask DataFrame, chunk by chunk
        (fingerprints and values checked by :func:`ldp.protocol.iter_reports`). An array
        carries no fingerprint: it is read only when ``trusted`` (reports this estimator
        made, or of a protocol built here from a mechanism rather than a published file)."""
        protocol = priv.protocol_
        decoder, name = priv.mechanisms_[0], priv.columns_[0].name

        def one(part: object, where: str | None = None):
            stat, extra, rows = decoder.empty_statistic(), 0.0, 0
            try:
                for chunk in iter_reports(protocol, part, trusted=trusted):
                    stat = stat + decoder.aggregate(chunk)
                    extra += self._extra(decoder, chunk, name)
                    rows += chunk.shape[0]
            except (TypeError, ValueError) as exc:
                if where is None:
                    raise
                raise type(exc)(f"{where}: {exc}") from None
            return [stat], np.array([extra]), rows

        if is_dask_collection(reports):
            return map_reduce_partitions(reports, one, _combine)
        return one(reports)

    def _trusts_arrays(self) -> bool:
        """Whether bare arrays of report fields are read as this protocol's reports: not
        when the protocol is a published :class:`~ldp.protocol.Protocol` (its reports must
        carry its fingerprint)."""
        return not isinstance(self._protocol_spec(), Protocol)

    def _check_reports(self) -> None:
        """The goodness-of-fit test of each column's reports against its mechanism
        (:func:`ldp.tasks.check_reports`, level ``DEFAULT_ALPHA`` shared by the
        columns): a warning, or ``ValueError`` under ``strict``."""
        tested = [
            (column, mech, stat)
            for column, mech, stat in zip(self.columns_, self.mechanisms_, self.statistics_)
            if mech is not None and stat is not None and stat.n
        ]
        for column, mech, stat in tested:
            check_reports(
                mech,
                stat,
                alpha=DEFAULT_ALPHA / len(tested),
                strict=bool(self.strict),
                what=f"the reports of column {column.name!r}",
            )

    def _commit(self, priv: Privatizer, used: list[int], stats, extras, n_rows: int) -> None:
        self._fit_ids = frozenset({new_fit_id()})
        self.privatizer_ = priv
        self._used = list(used)
        self.columns_ = [priv.columns_[j] for j in used]
        self.mechanisms_ = [priv.mechanisms_[j] for j in used]
        self.epsilon_total_ = priv.epsilon_total_
        self.statistics_ = list(stats)
        self._extras = np.asarray(extras, dtype=np.float64)
        self.n_rows_ = int(n_rows)
        self._refresh()

    def _add(self, stats, extras, n_rows: int) -> None:
        self.statistics_ = [None if a is None else a + b for a, b in zip(self.statistics_, stats)]
        self._extras = self._extras + extras
        self.n_rows_ = self.n_rows_ + int(n_rows)
        self._refresh()

    def _refresh(self) -> None:
        self.n_reports_ = np.array([0 if s is None else s.n for s in self.statistics_])
        self._update()

    # ----------------------------------------------------------------- raw data (simulation)
    def _fit_raw(self, X: ArrayLike, *, rng: Random, first: bool) -> None:
        if self._protocol_spec() is not None:
            self._fit_raw_protocol(X, rng=rng, first=first)
            return
        table = read_table(self, X, reset=first)
        if first:
            priv = self._new_privatizer()
            priv.fit(X)
            used = list(range(len(priv.columns_)))
        else:
            priv = self.privatizer_
            if len(self._used) != len(priv.columns_):
                raise ValueError(
                    "this estimator decodes a protocol with more columns than it estimates; "
                    "add reports with partial_fit_reports"
                )
            check_same_columns([c.name for c in priv.columns_], table.names)
            used = self._used
        values = table.all_values()
        stats, extras, n_rows = self._simulated_statistics(priv, values, used, rng=rng)
        if first:
            self._commit(priv, used, stats, extras, n_rows)
        else:
            self._add(stats, extras, n_rows)

    def _fit_raw_protocol(self, X: ArrayLike, *, rng: Random, first: bool) -> None:
        name, values = single_column_values(X)
        if first:
            priv = self._new_privatizer()
            priv.fit(X)
            self.n_features_in_ = 1
            if isinstance(X, pd.DataFrame):
                self.feature_names_in_ = np.asarray([name], dtype=object)
        else:
            priv = self.privatizer_
        reports = priv.protocol_.privatize(values, rng=rng)
        stats, extras, n_rows = self._gather_protocol(priv, reports, trusted=True)
        if first:
            self._commit(priv, [0], stats, extras, n_rows)
        else:
            self._add(stats, extras, n_rows)

    def _held_out(self, X: ArrayLike) -> list[np.ndarray]:
        """The raw held-out columns of ``X`` that this estimator estimates, encoded against
        the fitted columns (category codes, or numbers mapped to ``[-1, 1]``); values outside
        the fitted categories or bounds raise, as in :meth:`fit`."""
        check_is_fitted(self)
        if self._protocol_spec() is not None:
            _, values = single_column_values(X)
            raw = [values]
        else:
            table = read_table(self, X, reset=False)
            check_same_columns([c.name for c in self.privatizer_.columns_], table.names)
            raw = [table.values(j) for j in self._used]
        if not raw or len(raw[0]) == 0:
            raise ValueError("X must have at least one row to score against")
        return encode_table(self.columns_, raw)

    def fit(self, X: ArrayLike, y: object = None):
        """Simulation: privatize the rows of ``X`` internally, then aggregate the reports.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Raw rows (each row is one user).
        y : ignored

        Returns
        -------
        self
        """
        with atomic(self):
            self._check_params()
            rng = check_random_state(self.random_state)
            self._fit_raw(X, rng=rng, first=True)
            self._rng = rng
        return self

    def partial_fit(self, X: ArrayLike, y: object = None):
        """Add the rows of ``X`` (privatized internally), e.g. one chunk of a stream.

        The first call fixes the protocol (as :meth:`fit`); later calls reuse it and continue
        the random stream, so chunks get independent noise.

        Returns
        -------
        self
        """
        with atomic(self):
            if not hasattr(self, "privatizer_"):
                self._check_params()
                self._rng = check_random_state(self.random_state)
                self._fit_raw(X, rng=self._rng, first=True)
            else:
                if not hasattr(self, "_rng"):  # restored from a pickle: fresh entropy
                    self._rng = check_random_state(self.random_state)
                self._fit_raw(X, rng=self._rng, first=False)
        return self

    # ----------------------------------------------------------------- privatized reports
    def fit_reports(self, reports: ArrayLike, privatizer: Privatizer | None = None):
        """Fit from privatized reports collected from clients (the server side).

        Parameters
        ----------
        reports : DataFrame, array-like, iterator of chunks, or Dask DataFrame / Array
            The report table the clients' :class:`~estimators.Privatizer` produced: in
            memory, as an iterator of chunks (e.g. ``pandas.read_csv(..., chunksize=...)``;
            memory is one chunk), or as a Dask collection aggregated partition by partition
            where it lives (tree reduction; the result equals the in-memory fit). With a
            published :class:`~ldp.protocol.Protocol` (``protocol=``), report files, tables
            and client records carrying its fingerprint; a bare array, which carries none, is
            refused (attach the fingerprint with ``protocol.report_frame(reports)``).
        privatizer : Privatizer, optional
            The fitted privatizer the clients used (its public schema and mechanisms decode the
            reports; the estimator keeps the columns of its kind). Its ``epsilon``,
            ``mechanism`` and ``budget`` must equal the estimator's. Without it, the
            estimator's own declared domains (a dict or a list) define the protocol.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For reports the protocol cannot decode (another protocol's, malformed), and,
            under ``strict``, for reports that fail the goodness-of-fit test against the
            mechanisms (:func:`ldp.tasks.check_reports`; otherwise a
            :class:`~ldp.ImplausibleReportsWarning`). The estimator is then left as it was.
        """
        with atomic(self):
            self._check_params()
            if self._protocol_spec() is not None:
                if privatizer is not None:
                    raise ValueError("give a protocol or the clients' privatizer, not both")
                priv = self._new_privatizer()
                install_protocol(priv)
                trusted = self._trusts_arrays()
                stats, extras, n_rows = self._gather_protocol(priv, reports, trusted=trusted)
                self._commit(priv, [0], stats, extras, n_rows)
                self._check_reports()
                self.n_features_in_ = 1
                if hasattr(self, "feature_names_in_"):
                    del self.feature_names_in_
                self._rng = check_random_state(self.random_state)
                return self
            if privatizer is None:
                priv = self._declared_protocol()
            else:
                priv = self._adopt_protocol(privatizer)
            used = [j for j, c in enumerate(priv.columns_) if c.kind == self._kind]
            if not used:
                raise ValueError(f"the privatizer has no {self._kind} columns")
            stats, extras, n_rows = self._gather(priv, reports, used)
            self._commit(priv, used, stats, extras, n_rows)
            self._check_reports()
            names = [priv.columns_[j].name for j in used]
            self.n_features_in_ = len(used)
            if hasattr(priv, "feature_names_in_"):
                self.feature_names_in_ = np.asarray(names, dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            self._rng = check_random_state(self.random_state)
        return self

    def partial_fit_reports(self, reports: ArrayLike, privatizer: Privatizer | None = None):
        """Add a chunk of privatized reports (the first call is :meth:`fit_reports`).

        Returns
        -------
        self
        """
        with atomic(self):  # re-entrant: the first call's fit_reports holds it too
            if not hasattr(self, "privatizer_"):
                return self.fit_reports(reports, privatizer)
            if getattr(self.privatizer_, "protocol_", None) is not None:
                if privatizer is not None:
                    raise ValueError("give a protocol or the clients' privatizer, not both")
                trusted = self._trusts_arrays()
                stats, extras, n_rows = self._gather_protocol(
                    self.privatizer_, reports, trusted=trusted
                )
                self._add(stats, extras, n_rows)
                self._check_reports()
                return self
            if privatizer is not None:
                check_is_fitted(privatizer)
                diff = same_protocol(privatizer, self.privatizer_)
                if diff:
                    raise ValueError(f"privatizer differs from the fitted protocol in its {diff}")
            stats, extras, n_rows = self._gather(self.privatizer_, reports, self._used)
            self._add(stats, extras, n_rows)
            self._check_reports()
        return self

    def merge(self, other):
        """Add the statistics of ``other`` (fitted on other users with the same protocol).

        The result is exactly what one fit on the union of both sets of reports gives. Raises
        (and changes nothing) if ``other`` is not of the same class, has other parameters
        (``random_state`` and ``strict`` aside) or another protocol, or holds statistics of a
        fit this estimator holds too (``other`` is this estimator, a copy of it, or was
        merged into it already): their reports would be counted twice.

        Returns
        -------
        self
        """
        if type(other) is not type(self):
            raise TypeError(f"other must be a {type(self).__name__}, got {type(other).__name__}")
        with update_lock(other):  # a consistent view of other (never both locks at once)
            check_is_fitted(other)
            theirs = other.get_params()
            their_privatizer, their_used = other.privatizer_, list(other._used)
            their_stats = (list(other.statistics_), other._extras, other.n_rows_)
            their_fits: frozenset[str] = other._fit_ids
        with atomic(self):
            check_is_fitted(self)
            mine_fits: frozenset[str] = self._fit_ids
            check_disjoint_fits(mine_fits, their_fits)
            mine = self.get_params()
            for name in mine:
                if name in ("random_state", "strict"):
                    continue
                if not _same_param(mine[name], theirs[name]):
                    raise ValueError(
                        f"cannot merge: parameter {name!r} differs ({plain(mine[name])!r} vs "
                        f"{plain(theirs[name])!r})"
                    )
            diff = same_protocol(self.privatizer_, their_privatizer)
            if diff is None and self._used != their_used:
                diff = "estimated columns"
            if diff:
                raise ValueError(f"cannot merge: the protocols differ in their {diff}")
            self._add(*their_stats)
            self._fit_ids = mine_fits | their_fits
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags


def declared_protocol(estimator: ProtocolEstimator) -> Privatizer:
    """The protocol an estimator's own declarations define (for estimators that delegate)."""
    return estimator._declared_protocol()
