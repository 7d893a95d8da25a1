"""k-way marginals of a table, estimated from one locally private report per device."""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from estimators import _params as params
from estimators._binning import WithoutBinnedColumns, bin_codes, binned_column
from estimators._params import Check, ValidatedParams
from estimators._schema import (
    CATEGORICAL,
    Column,
    Table,
    check_categories,
    check_same_columns,
    encode_categorical,
    read_table,
    resolve_schema,
)
from estimators.privatizer import (
    NoSeedInPickles,
    atomic,
    check_disjoint_fits,
    new_fit_id,
    update_lock,
    warn_domain_from_data,
)
from ldp._validation import check_integer, check_random_state, describe
from ldp.core import check_confidence
from ldp.inference import CellEstimate
from ldp.protocol.marginals import MarginalProtocol, load_marginals
from ldp.tasks.marginals import (
    MAX_IPF_CELLS,
    ORACLES,
    MarginalDesign,
    build_design,
    candidate_designs,
    cell_intervals,
    check_candidates,
    check_group_reports,
    choose_design,
    fit_ipf,
    fit_marginals,
    fit_tree,
    holding_table,
    marginalize,
)

__all__ = ["MarginalEstimator"]

METHODS = ("auto", "joint", "groups", "fourier")


def _marginals(value: object, name: str) -> object:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return check_integer(value, name, low=1)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
        raise TypeError(
            f"{name} must be an int k (every k-way marginal) or a non-empty list of column "
            f"tuples, got {describe(value)}"
        )
    return value


def _bins(value: object, name: str) -> object:
    if value is not None and not isinstance(value, Mapping):
        raise TypeError(f"{name} must be None or a dict {{column: edges}}, got {describe(value)}")
    return value


class MarginalEstimator(ValidatedParams, NoSeedInPickles, BaseEstimator):
    """k-way marginals of categorical columns, from one epsilon-LDP report per device.

    Each device draws one *group* of the collection design from its own randomness
    (independently of its data), computes that group's input from its row and privatizes it
    with the group's frequency oracle; one report, ``epsilon``-LDP (the group carries no
    information). The designs (:mod:`ldp.tasks.marginals`): ``"joint"``, the cell of the full
    joint through one oracle; ``"groups"``, one group per requested marginal, each with its
    best oracle (Zhang et al. (2018), CALM, Section 4); ``"fourier"``, binary
    columns only, one group per Fourier coefficient a marginal needs (Cormode, Kulkarni,
    Srivastava 2018, Section 4.3).

    The unbiased marginals are then made to agree on shared columns and to be
    distributions (``consistency``): first a linear step, the weighted least-squares
    projection of all the tables onto consistent tables summing to one
    (:func:`ldp.tasks.marginals.consistent_projection`), then, where a cell is negative,
    Norm-Sub alternated with mutual consistency (CALM Section 4.4); :meth:`sample` draws
    synthetic rows from a maximum-entropy model of them. Both are post-processing and cost
    no privacy.

    ``method="auto"`` takes the design of smallest exact total variance over the requested
    marginals at the uniform table of what :meth:`marginal` reports: with ``consistency``,
    the tables after the linear step
    (:meth:`~ldp.tasks.marginals.MarginalDesign.consistent_variance`: the groups design
    gains most from it, each shared margin being averaged over the tables that hold it;
    the non-linear Norm-Sub rounds are not counted), else the unbiased tables
    (:meth:`~ldp.tasks.marginals.MarginalDesign.planned_variance`;
    :func:`ldp.tasks.marginals.choose_design`). The choice depends on the domains,
    ``epsilon``, ``consistency`` and ``candidates`` only, never on the data.

    How many users: ``ldp.risk.plan("marginals", epsilon, target, sizes=..., marginals=2)``
    (give it the estimator's ``consistency``) chooses the design as ``method="auto"`` does
    and answers the users it needs for a worst-case expected squared l2 error of ``target``
    per unbiased marginal, beside a lower bound that no protocol beats
    (:func:`ldp.risk.marginals_risk`, :func:`ldp.risk.marginals_lower_bound`).

    Parameters
    ----------
    epsilon : float, default 1.0
        What one device's report costs, ``> 0``.
    marginals : int or list of tuple, default 2
        ``k``: every k-way marginal of the columns; or a list of column tuples (by name),
        each marginal once (in any column order).
    categories : dict or list, optional
        Public categories per column (``{column: [...]}`` or one list per column). Columns
        left undeclared take them from a pandas ``Categorical`` dtype, else from the data
        (simulation only, with a :class:`~ldp.PrivacyLeakWarning`).
    bins : dict, optional
        ``{column: edges}`` for numeric columns: the public bin edges (increasing; the last
        bin is closed). A value outside the edges raises.
    method : {"auto", "joint", "groups", "fourier"}, default "auto"
    candidates : tuple of str, default ("GRR", "OUE")
        The frequency oracles a ``"joint"`` or ``"groups"`` group may use, by name (keys of
        ``ldp.tasks.FREQUENCY_ORACLES``, as in :func:`ldp.tasks.recommend`): each group
        takes the one of smallest exact variance for its cells
        (:func:`ldp.tasks.marginals.best_oracle`; one whose variance of a sum of cells is
        not exact, ``"HR"``, is passed over). ``"fourier"`` always uses binary randomized
        response. The device clients run every one of them inside a group.
    consistency : bool, default True
        Whether :meth:`marginal` reports the consistent, non-negative marginals (else the
        unbiased ones).
    confidence : float, default 0.95
        Level of the intervals of :meth:`marginal`.
    random_state : None, int, numpy.random.Generator or "os"
        Randomness of the simulated devices (:meth:`fit`): ``None`` fresh OS entropy, an
        int a seeded generator (simulation only), ``"os"`` every bit from the OS CSPRNG.

    Attributes
    ----------
    design_ : ldp.tasks.marginals.MarginalDesign
        The groups a device draws from and their oracles.
    method_ : dict
        Per requested marginal (a tuple of column names), the design and oracle it came
        from, e.g. ``"groups:GRR"``.
    tables_ : list of tuple of str
        The requested marginals.
    unbiased_ : dict
        Per requested marginal, the unbiased estimate (flat, row-major over its columns'
        categories); ``variance_`` its exact ``iid`` variance at the clipped estimate.
    consistent_ : dict
        Per requested marginal, the consistent non-negative estimate.
    epsilon_total_ : float
        The privacy of what one device sends (every group's oracle is ``epsilon``-LDP).
    privacy_ : str
        The same, in words.
    n_rows_ : int
        Reports (devices).
    n_reports_ : ndarray of int
        Reports per group of ``design_``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from estimators import MarginalEstimator
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 50_000)
    >>> X = pd.DataFrame({"a": a, "b": (a + (rng.random(50_000) < 0.2)) % 2,
    ...                   "c": rng.integers(0, 3, 50_000)})
    >>> est = MarginalEstimator(2.0, categories={"a": [0, 1], "b": [0, 1], "c": [0, 1, 2]},
    ...                         random_state=1).fit(X)
    >>> est.method_[("a", "b")]
    'groups:GRR'
    >>> table = est.marginal(["a", "b"])
    >>> list(table.columns)
    ['a', 'b', 'estimate', 'ci_low', 'ci_high', 'unbiased', 'std']
    >>> bool(abs(table.estimate.iloc[0] - 0.4) < 0.03)
    True
    >>> est.sample(5, random_state=0).shape
    (5, 3)

    Deployed: publish :meth:`device_protocol` (a protocol file the clients in ``clients/``
    verify and run, each device drawing its group), then decode the records they return.

    >>> server = MarginalEstimator(2.0, categories={"a": [0, 1], "b": [0, 1], "c": [0, 1, 2]})
    >>> protocol = server.device_protocol(question="a, b and c?")
    >>> protocol.design.method, round(protocol.epsilon, 12)
    ('groups', 2.0)
    >>> records = protocol.records(
    ...     [X["a"].to_numpy(), X["b"].to_numpy(), X["c"].to_numpy()], rng=2)  # simulated
    >>> records[0]["fingerprint"] == protocol.fingerprint
    True
    >>> bool(abs(server.fit_reports(records, protocol).marginal(["a", "b"]).estimate.iloc[0]
    ...          - 0.4) < 0.03)
    True
    """

    #: The fits the statistics come from (a merge refuses to count one twice).
    _fit_ids: frozenset[str] = frozenset()
    #: Columns of ``X`` with a pandas categorical dtype, and whether it is ordered:
    #: :meth:`sample` gives them that dtype back.
    _categorical_dtypes: Mapping[str, bool] = {}

    _parameter_checks: ClassVar[Mapping[str, Check]] = {
        "epsilon": params.epsilon,
        "marginals": _marginals,
        "bins": _bins,
        "method": params.one_of(METHODS),
        "candidates": lambda value, name: check_candidates(value),
        "consistency": params.boolean,
        "confidence": lambda value, name: check_confidence(value),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        marginals: int | list = 2,
        categories: dict | list | None = None,
        bins: dict | None = None,
        method: str = "auto",
        candidates: tuple[str, ...] | list[str] = ORACLES,
        consistency: bool = True,
        confidence: float = 0.95,
        random_state: object = None,
    ) -> None:
        self.epsilon = epsilon
        self.marginals = marginals
        self.categories = categories
        self.bins = bins
        self.method = method
        self.candidates = candidates
        self.consistency = consistency
        self.confidence = confidence
        self.random_state = random_state

    # ----------------------------------------------------------------- schema and design
    def _schema(self, table: Table) -> tuple[list[Column], dict[str, np.ndarray]]:
        bins = dict(self.bins or {})
        unknown = [str(k) for k in bins if str(k) not in table.names]
        if unknown:
            raise ValueError(f"bins names column(s) {unknown} that are not in X")
        declared = self.categories
        if isinstance(declared, Mapping):
            both = sorted(str(k) for k in declared if str(k) in bins)
            if both:
                raise ValueError(f"columns {both} are declared in both categories and bins")
        columns = resolve_schema(
            WithoutBinnedColumns(table, set(map(str, bins))),  # type: ignore[arg-type]
            categories=declared,
            bounds=None,
            default_kind=CATEGORICAL,
        )
        edges = {}
        for j, name in enumerate(table.names):
            if name in bins:
                columns[j], edges[name] = binned_column(name, bins[name])
        return columns, edges

    def _declared_schema(self) -> tuple[list[Column], dict[str, np.ndarray]]:
        """The columns from the declarations alone (``fit_reports``: no data to read)."""
        declared = self.categories
        if isinstance(declared, Mapping):
            names, domains = [str(k) for k in declared], list(declared.values())
        elif isinstance(declared, list) and declared:
            names, domains = [f"x{j}" for j in range(len(declared))], declared
        else:
            names, domains = [], []
        columns = [
            Column(n, CATEGORICAL, categories=check_categories(d, n))
            for n, d in zip(names, domains)
        ]
        edges = {}
        for name, spec in (self.bins or {}).items():
            column, edges[str(name)] = binned_column(str(name), spec)
            columns.append(column)
        if not columns:
            raise ValueError(
                "fit_reports needs every column declared in `categories` (a dict or a list) "
                "or `bins`: the design is built from the public domains"
            )
        return columns, edges

    def _tables(self, names: list[str]) -> list[tuple[int, ...]]:
        spec = self.marginals
        if isinstance(spec, (int, np.integer)):
            if spec > len(names):
                raise ValueError(f"marginals={spec} is more columns than X has ({len(names)})")
            return list(itertools.combinations(range(len(names)), int(spec)))
        out: list[tuple[int, ...]] = []
        for entry in spec:
            cols = (entry,) if isinstance(entry, (str, int)) else tuple(entry)
            idx = []
            for c in cols:
                if str(c) not in names:
                    raise ValueError(
                        f"marginals names an unknown column {c!r}; the columns are {names}"
                    )
                idx.append(names.index(str(c)))
            if len(set(idx)) != len(idx) or not idx:
                raise ValueError(f"marginals entry {entry!r} must name distinct columns")
            twin = next((t for t in out if set(t) == set(idx)), None)
            if twin is not None:
                first = tuple(names[j] for j in twin)
                raise ValueError(
                    f"marginals lists the marginal of {first} twice (again as {entry!r}); "
                    "list each marginal once"
                )
            out.append(tuple(idx))
        return out

    def _design(
        self, sizes: tuple[int, ...], tables: list[tuple[int, ...]], names: list[str]
    ) -> MarginalDesign:
        eps = float(self.epsilon)
        oracles = check_candidates(self.candidates)
        if self.method != "auto":
            return build_design(self.method, sizes, tables, eps, oracles, names=names)
        designs = candidate_designs(sizes, tables, eps, oracles)
        return choose_design(designs, consistency=bool(self.consistency))

    # ----------------------------------------------------------------- fitting
    def _install(self, columns: list[Column], edges: dict[str, np.ndarray]) -> None:
        self.columns_ = columns
        self._edges = edges
        names = [c.name for c in columns]
        tables = self._tables(names)
        self.design_ = self._design(tuple(c.k for c in columns), tables, names)
        self.tables_ = [tuple(names[c] for c in t) for t in tables]
        self.epsilon_total_ = float(self.design_.epsilon)
        self.privacy_ = (
            f"each device sends one report: a group of the {self.design_.method!r} design "
            "drawn from its own randomness, independently of its data, and that group's "
            f"input privatized by its oracle at epsilon = {self.epsilon_total_:g}; the report "
            f"is {self.epsilon_total_:g}-LDP (pure)"
        )

    def _encode(self, table: Table) -> list[np.ndarray]:
        codes = []
        for j, column in enumerate(self.columns_):
            values = table.values(j)
            if column.name in self._edges:
                codes.append(bin_codes(column, self._edges[column.name], values))
            else:
                codes.append(encode_categorical(column, values))
        return codes

    def fit(self, X: ArrayLike, y: object = None) -> MarginalEstimator:
        """Simulation: each row of ``X`` is a device; privatize, then estimate.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        with atomic(self):
            self._validate_params()
            table = read_table(self, X, reset=True)
            columns, edges = self._schema(table)
            warn_domain_from_data(columns, "categories= or bins=")
            self._install(columns, edges)
            rng = check_random_state(self.random_state)
            _, reports = self.design_.privatize(self._encode(table), rng)
            self._set_statistics(self.design_.aggregate(reports))
            self._rng = rng
            self._fit_ids = frozenset({new_fit_id()})
            self._categorical_dtypes = {
                name: bool(dtype.ordered)
                for name, dtype in ((n, table.dtype(j)) for j, n in enumerate(table.names))
                if isinstance(dtype, pd.CategoricalDtype)
            }
        return self

    def partial_fit(self, X: ArrayLike, y: object = None) -> MarginalEstimator:
        """Add the rows of ``X`` (simulated devices; the first call is :meth:`fit`).

        Later calls keep the design and continue the random stream.

        Returns
        -------
        self
        """
        with atomic(self):
            if not hasattr(self, "design_"):
                return self.fit(X)
            table = read_table(self, X, reset=False)
            check_same_columns([c.name for c in self.columns_], table.names)
            if not hasattr(self, "_rng"):  # restored from a pickle: fresh entropy
                self._rng = check_random_state(self.random_state)
            _, reports = self.design_.privatize(self._encode(table), self._rng)
            self._add(self.design_.aggregate(reports))
        return self

    def partial_fit_reports(self, reports: object, protocol: object = None) -> MarginalEstimator:
        """Add client records or reports bucketed by group, as for :meth:`fit_reports` (the
        first call is :meth:`fit_reports`).

        Returns
        -------
        self
        """
        with atomic(self):
            if not hasattr(self, "design_"):
                return self.fit_reports(reports, protocol)
            if protocol is not None or _are_records(reports):
                buckets = self._deployed(protocol).read_records(reports)
            else:
                self._check_buckets(reports)  # type: ignore[arg-type]
                buckets = [np.asarray(r) for r in reports]  # type: ignore[attr-defined]
            self._add(self.design_.aggregate(buckets))
        return self

    def merge(self, other: MarginalEstimator) -> MarginalEstimator:
        """Add the statistics of ``other``, fitted on other devices with the same design.

        The result is what one fit on both sets of reports gives. Raises (and changes
        nothing) for another class, other parameters (``random_state`` aside), another
        design, or statistics of a fit this estimator holds already (counted twice).

        Returns
        -------
        self
        """
        if type(other) is not type(self):
            raise TypeError(f"other must be a {type(self).__name__}, got {type(other).__name__}")
        with update_lock(other):
            check_is_fitted(other)
            theirs = other.get_params()
            their_design, their_columns = other.design_, other.columns_
            their_stats, their_fits = other.statistics_, other._fit_ids
        with atomic(self):
            check_is_fitted(self)
            check_disjoint_fits(self._fit_ids, their_fits)
            mine = self.get_params()
            for name in mine:
                if name != "random_state" and repr(mine[name]) != repr(theirs[name]):
                    raise ValueError(f"cannot merge: parameter {name!r} differs")
            same_columns = len(their_columns) == len(self.columns_) and all(
                a.same_domain(b) for a, b in zip(self.columns_, their_columns)
            )
            if their_design != self.design_ or not same_columns:
                raise ValueError("cannot merge: the designs or the columns differ")
            self._add(their_stats)
            self._fit_ids = self._fit_ids | their_fits
        return self

    def _add(self, stats: Sequence[Any]) -> None:
        self._set_statistics([a + b for a, b in zip(self.statistics_, stats, strict=True)])

    def device_protocol(self, *, question: str | None = None) -> MarginalProtocol:
        """The protocol devices run: the design built from the declared domains, as a file.

        ``categories`` and ``bins`` must declare every column (in the devices' column
        order); no data is read. Each device draws one group of the design uniformly at
        random from its own randomness (the clients in ``clients/`` use the operating
        system's CSPRNG and an exact integer draw), privatizes that group's cell (or parity
        bit, ``method="fourier"``) with the group's oracle and sends one record whose
        report is the group index followed by the oracle's fields: one ``epsilon``-LDP
        report per device (:class:`ldp.protocol.MarginalProtocol`). A binned column's answer is its
        bin's label (the device bins its number). Decode the records with
        :meth:`fit_reports`.

        Parameters
        ----------
        question : str, optional
            Text shown by the clients (it is part of the fingerprint).

        Returns
        -------
        ldp.protocol.MarginalProtocol
            Save it (``.save(path)``) and publish it to the devices.
        """
        self._validate_params()
        columns, _ = self._declared_schema()
        names = [c.name for c in columns]
        design = self._design(tuple(c.k for c in columns), self._tables(names), names)
        described = [(c.name, list(np.asarray(c.categories).tolist())) for c in columns]
        return MarginalProtocol.from_design(design, described, question=question)

    def _deployed(self, protocol: object) -> MarginalProtocol:
        """The published protocol of records: ``protocol`` (or a path to it), which must be
        this estimator's (the same design and columns), else the one it would publish."""
        if protocol is None:
            return self.device_protocol()
        if isinstance(protocol, (str, os.PathLike)):
            protocol = load_marginals(protocol)
        if not isinstance(protocol, MarginalProtocol):
            raise TypeError(
                f"protocol must be a MarginalProtocol or its file, got {describe(protocol)}"
            )
        mine = self.device_protocol(question=protocol.question)
        if mine != protocol:
            raise ValueError(
                f"protocol {protocol.fingerprint} is not this estimator's (declared columns, "
                f"epsilon, marginals and method give protocol {mine.fingerprint})"
            )
        return protocol

    def fit_reports(self, reports: object, protocol: object = None) -> MarginalEstimator:
        """Estimate from the devices' reports: client records, or reports bucketed by group.

        The design is rebuilt from the declared domains (``categories`` and ``bins`` must
        declare every column, in the devices' column order) and ``epsilon``,
        ``marginals`` and ``method``: it depends on nothing else.

        Parameters
        ----------
        reports : list of records, path, or sequence of array_like
            The records the clients return for :meth:`device_protocol` (a list of
            ``{"fingerprint", "report"}`` objects or a JSON-lines file of them: each record
            carries the protocol's fingerprint and its group); or one array per group of
            ``design_`` (in its order) holding the reports of the devices that drew that
            group, as its oracle emits them.
        protocol : MarginalProtocol or path, optional
            The published protocol of the records (it must be this estimator's); default
            the one :meth:`device_protocol` gives without a question.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from estimators import MarginalEstimator
        >>> est = MarginalEstimator(1.0, categories={"a": [0, 1], "b": ["x", "y", "z"]},
        ...                         method="groups", marginals=[("a", "b")])
        >>> protocol = est.device_protocol(question="Smoker? Region?")
        >>> rng = np.random.default_rng(0)
        >>> records = protocol.records([rng.integers(0, 2, 2000), rng.integers(0, 3, 2000)],
        ...                            rng=1)
        >>> est.fit_reports(records, protocol).n_rows_
        2000
        """
        with atomic(self):
            self._validate_params()
            columns, edges = self._declared_schema()
            self._install(columns, edges)
            if protocol is not None or _are_records(reports):
                buckets = self._deployed(protocol).read_records(reports)
            else:
                self._check_buckets(reports)  # type: ignore[arg-type]
                buckets = [np.asarray(r) for r in reports]  # type: ignore[attr-defined]
            self._set_statistics(self.design_.aggregate(buckets))
            self.n_features_in_ = len(columns)
            self.feature_names_in_ = np.asarray([c.name for c in columns], dtype=object)
            self._rng = check_random_state(self.random_state)
            self._fit_ids = frozenset({new_fit_id()})
            self._categorical_dtypes = {}
        return self

    def _check_buckets(self, reports: Sequence[ArrayLike]) -> None:
        if len(reports) != len(self.design_.groups):
            raise ValueError(
                f"reports must hold one array per group of the design "
                f"({len(self.design_.groups)}), got {len(reports)}"
            )

    def _set_statistics(self, stats: Sequence[Any]) -> None:
        design = self.design_
        counts = np.array([s if isinstance(s, int) else s.n for s in stats], dtype=np.int64)
        check_group_reports(design, counts, [c.name for c in self.columns_])
        fitted = fit_marginals(design, stats)
        self.statistics_ = tuple(stats)
        self.n_reports_ = counts
        self.n_rows_ = int(counts.sum())
        self.unbiased_ = dict(zip(self.tables_, fitted.unbiased))
        self.variance_ = dict(zip(self.tables_, fitted.variance))
        self.method_ = dict(zip(self.tables_, fitted.sources))
        self.consistent_ = dict(zip(self.tables_, fitted.consistent))

    def _table_indices(self) -> list[tuple[int, ...]]:
        names = [c.name for c in self.columns_]
        return [tuple(names.index(c) for c in t) for t in self.tables_]

    # ----------------------------------------------------------------- answers
    def _columns_of(self, columns: object) -> tuple[int, ...]:
        names = [c.name for c in self.columns_]
        try:
            cols = (columns,) if isinstance(columns, str) else tuple(columns)  # type: ignore[arg-type]
        except TypeError:
            raise TypeError(
                f"columns must be a column name or a list of column names, got {columns!r}"
            ) from None
        if not cols:
            raise ValueError(f"columns must name at least one of the columns {names}, got []")
        idx = []
        for c in cols:
            if str(c) not in names:
                raise ValueError(f"columns names an unknown column {c!r}; the columns are {names}")
            idx.append(names.index(str(c)))
        if not idx or len(set(idx)) != len(idx):
            raise ValueError(f"columns must name distinct columns, got {cols!r}")
        return tuple(idx)

    def _holder(self, cols: tuple[int, ...]) -> int:
        """The first requested marginal that holds the columns ``cols`` (else one line)."""
        holder = holding_table(self._table_indices(), cols)
        if holder is None:
            wanted = [self.columns_[c].name for c in cols]
            raise ValueError(
                f"no requested marginal holds the columns {wanted}; request them in "
                f"`marginals` (requested: {self.tables_})"
            )
        return holder

    def marginal(self, columns: object) -> pd.DataFrame:
        """The marginal of ``columns`` (a requested marginal or part of one), one row per cell.

        Columns: the columns' values, ``estimate`` (consistent if ``consistency``, else
        unbiased), ``ci_low`` / ``ci_high`` (the unbiased estimate ``+- z`` standard errors
        of its exact ``iid`` variance at the clipped estimate, clipped to ``[0, 1]``, at
        level ``confidence``), ``unbiased`` and ``std``.
        """
        check_is_fitted(self)
        cols = self._columns_of(columns)
        tables = self._table_indices()
        holder = self._holder(cols)
        t = tables[holder]
        sizes = [self.columns_[c].k for c in t]
        keep = [t.index(c) for c in cols]
        unbiased, var, _ = self.design_.estimate(self.statistics_, cols)
        chosen = self.consistent_ if self.consistency else None
        if chosen is None:
            estimate = unbiased
        else:
            estimate = marginalize(chosen[self.tables_[holder]], sizes, keep)
        std, low, high = cell_intervals(unbiased, var, float(self.confidence))
        grid = itertools.product(*[np.asarray(self.columns_[c].categories) for c in cols])
        frame = pd.DataFrame(list(grid), columns=[self.columns_[c].name for c in cols])
        frame["estimate"] = estimate
        frame["ci_low"] = low
        frame["ci_high"] = high
        frame["unbiased"] = unbiased
        frame["std"] = std
        return frame

    def cell_estimate(self, columns: object = None) -> CellEstimate:
        """The unbiased table of one or two columns with its exact covariance, for the tests
        of :mod:`ldp.inference` (e.g. ``independence``).

        ``value`` is the unbiased (pre-consistency) estimate of :meth:`marginal`, ``shape``
        ``(k,)`` or ``(k1, k2)``, ``n`` the reports it is built from, and ``covariance(f)``
        its exact i.i.d. covariance when the true table is ``f``
        (:meth:`ldp.tasks.marginals.MarginalDesign.covariance`: ``A S A^T`` of the group
        oracle's covariance, or the Fourier coefficients' independent variances).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from estimators import MarginalEstimator
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame({"a": rng.integers(0, 2, 5000), "b": rng.integers(0, 3, 5000)})
        >>> est = MarginalEstimator(1.0, categories={"a": [0, 1], "b": [0, 1, 2]},
        ...                         random_state=1).fit(X)
        >>> cells = est.cell_estimate(["a", "b"])
        >>> cells.shape, cells.n, cells.covariance(np.full(6, 1 / 6)).shape
        ((2, 3), 5000, (6, 6))
        """
        check_is_fitted(self)
        if columns is None:
            known = [c.name for c in self.columns_]
            raise ValueError(
                f"columns must name one or two of the columns {known} (the tests of "
                "ldp.inference take them as column=, independence as columns)"
            )
        cols = self._columns_of(columns)
        if len(cols) > 2:
            raise ValueError(f"columns must name one or two columns, got {len(cols)}")
        self._holder(cols)  # a requested table holds them
        design, stats = self.design_, self.statistics_
        value, _, _ = design.estimate(stats, cols)
        if design.method == "fourier":
            keys = {
                tuple(sorted(s))
                for r in range(1, len(cols) + 1)
                for s in itertools.combinations(cols, r)
            }
            n = int(sum(self.n_reports_[design.groups.index(k)] for k in keys))
        else:
            n = int(self.n_reports_[design.source_group(stats, cols)])

        def covariance(f: np.ndarray) -> np.ndarray:
            return design.covariance(stats, cols, f)

        names = ",".join(self.columns_[c].name for c in cols)
        return CellEstimate(
            value,
            tuple(self.columns_[c].k for c in cols),
            n,
            covariance,
            tuple(tuple(self.columns_[c].categories) for c in cols),  # type: ignore[arg-type]
            f"marginals:{design.method}:{names} ({self._oracle_keys()})",
            self._fit_ids,
        )

    def _oracle_keys(self) -> str:
        """The design's oracles (with their epsilon and size): two samples of one protocol
        have the same ones."""
        keys = sorted({repr(o) for o in self.design_.oracles if o is not None})
        return ", ".join(keys) or "no reports"

    def sample(self, n: int, random_state: object = None) -> pd.DataFrame:
        """``n`` synthetic rows whose low-order marginals match the consistent estimates.

        A maximum-entropy model of the consistent marginals: iterative proportional fitting
        of the joint when it has at most ``MAX_IPF_CELLS`` cells, else the Chow-Liu tree of
        their 2-way marginals (:mod:`ldp.tasks.marginals`). Post-processing of the private
        estimates: it spends no further privacy. ``random_state=None`` draws fresh entropy.

        The rows have the fitted columns, in order, each with the dtype of its categories
        whatever ``n`` (a column fitted with a pandas categorical dtype gets it back, with
        the public categories); a binned column's value is its bin's label.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from estimators import MarginalEstimator
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame({"smoker": pd.Categorical(rng.choice(["no", "yes"], 4000)),
        ...                   "kids": rng.integers(0, 3, 4000)})
        >>> est = MarginalEstimator(1.0, categories={"smoker": ["no", "yes"], "kids": [0, 1, 2]},
        ...                         random_state=1).fit(X)
        >>> rows = est.sample(1000, random_state=2)
        >>> rows.dtypes.astype(str).tolist(), est.sample(0).dtypes.astype(str).tolist()
        (['category', 'int64'], ['category', 'int64'])
        """
        check_is_fitted(self)
        count = check_integer(n, "n", low=0)
        sizes = self.design_.sizes
        margins = dict(zip(self._table_indices(), self.consistent_.values()))
        model: Any
        if math.prod(sizes) <= MAX_IPF_CELLS:
            model = fit_ipf(sizes, margins)
        else:
            model = fit_tree(sizes, margins)
        codes = model.sample(count, rng=random_state)
        rows = {}
        for column, k in zip(self.columns_, codes):
            cats = np.asarray(column.categories)
            ordered = self._categorical_dtypes.get(column.name)
            if ordered is None:  # the categories' own dtype, whatever n
                rows[column.name] = pd.Series(cats).take(k).reset_index(drop=True)
            else:
                rows[column.name] = pd.Series(pd.Categorical.from_codes(k, cats, ordered))
        return pd.DataFrame(rows)


def _are_records(reports: object) -> bool:
    """Whether ``reports`` are client records (a list of objects, or a file of them)."""
    if isinstance(reports, (str, os.PathLike)):
        return True
    return isinstance(reports, list) and bool(reports) and isinstance(reports[0], Mapping)
