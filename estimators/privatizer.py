"""The client-side object: privatize each column of a table with its own mechanism."""

from __future__ import annotations

import os
import secrets
import sys
import threading
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from types import FrameType
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from estimators import _params as params
from estimators._deployed import (
    as_protocol,
    protocol_column,
    single_column_name,
    single_column_values,
)
from estimators._params import Check, ValidatedParams
from estimators._protocol import (
    aggregate_block,
    build_mechanisms,
    check_budget,
    encode_reports,
    mechanism_name,
    report_width,
    to_unit,
    total_epsilon,
)
from estimators._schema import (
    CATEGORICAL,
    Column,
    check_input_features,
    encode_table,
    read_table,
    resolve_schema,
)
from ldp._sampling import randint
from ldp._validation import check_epsilon, check_random_state
from ldp._warnings import PrivacyLeakWarning
from ldp.mechanisms import MeanSums, SupportCounts
from ldp.protocol import Protocol

__all__ = ["Privatizer"]


#: The attribute holding an estimator's update lock (created on first use, never pickled).
_LOCK = "_update_lock"
_LOCK_CREATION = threading.Lock()


def update_lock(estimator) -> threading.RLock:
    """The estimator's own re-entrant lock, created on first use.

    Every update of a fitted state (``fit``, ``partial_fit``, ``fit_reports``,
    ``partial_fit_reports``, ``merge``) holds it, so that updates from several threads are
    serialised and none is lost. It is not a parameter (``get_params`` and ``clone`` never
    see it) and never pickled; a copy or an unpickled estimator makes its own.
    """
    lock = estimator.__dict__.get(_LOCK)
    if lock is None:
        with _LOCK_CREATION:
            lock = estimator.__dict__.get(_LOCK)
            if lock is None:
                lock = threading.RLock()
                estimator.__dict__[_LOCK] = lock
    return lock


@contextmanager
def atomic(estimator):
    """Hold the estimator's update lock, and restore ``estimator.__dict__`` if the block
    raises: updates are serialised across threads, and a failed call leaves no state."""
    with update_lock(estimator):
        saved = dict(estimator.__dict__)
        try:
            yield
        except BaseException:
            estimator.__dict__.clear()
            estimator.__dict__.update(saved)
            raise


def new_fit_id() -> str:
    """A fresh identifier of one fit, from the operating system's entropy.

    An estimator carries the set of identifiers of the fits its statistics come from
    (one per ``fit`` / ``fit_reports``, united by ``merge``); copies and pickles carry it
    too, so merging two estimators whose sets meet would count the same reports twice and
    is refused (:func:`check_disjoint_fits`). It is not a seed: nothing random is derived
    from it.
    """
    return secrets.token_hex(16)


def check_disjoint_fits(mine: frozenset[str], theirs: frozenset[str]) -> None:
    """Refuse a merge of statistics that share a fit (``ValueError``)."""
    if mine & theirs:
        raise ValueError(
            "cannot merge: both estimators hold statistics of the same fit (an estimator "
            "merged with itself, with a copy of itself, or with an estimator it already "
            "contains), whose reports would be counted twice"
        )


class NoSeedInPickles:
    """Pickles (and copies made through them) carry no randomness state, and no lock.

    A seed or a generator state that travels with an estimator lets whoever holds the pickle
    predict the noise of later privatizations, and undo them. ``__getstate__`` drops the
    internal generator and sets ``random_state`` to ``None`` (the operating system's
    entropy); a restored object draws fresh noise. A pickle that carries a seed or a
    generator anyway (written by other code, for instance a server's) has them dropped by
    ``__setstate__``, with a :class:`~ldp.PrivacyLeakWarning`.
    """

    def __getstate__(self):
        # the next class in the MRO is scikit-learn's BaseEstimator (object has no
        # __getstate__ before Python 3.11, so mypy cannot see it from this mixin)
        following: Any = super()
        state = dict(following.__getstate__())
        state.pop("_rng", None)
        state.pop(_LOCK, None)
        if state.get("random_state") is not None and state.get("random_state") != "os":
            state["random_state"] = None
        return state

    def __setstate__(self, state):
        state = dict(state)
        state.pop(_LOCK, None)
        seed = state.get("random_state")
        if "_rng" in state or (seed is not None and not (isinstance(seed, str) and seed == "os")):
            warnings.warn(
                PrivacyLeakWarning(
                    f"the serialised {type(self).__name__} carried a seed or a generator "
                    "state; it is dropped (random_state=None: the operating system's "
                    "entropy), since whoever wrote it could predict the noise and undo it"
                ),
                stacklevel=2,
            )
            state.pop("_rng", None)
            state["random_state"] = None
        following: Any = super()
        following.__setstate__(state)


def check_epsilon_param(epsilon: object) -> float:
    """The ``epsilon`` parameter of an estimator: finite and ``> 0``."""
    return check_epsilon(epsilon, positive=True, allow_inf=False)


def _user_stacklevel() -> int:
    """The ``stacklevel`` (for a warning raised by this function's caller) of the first frame
    outside this package: a warning points at the user's call, however deep it was raised."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: FrameType | None = sys._getframe(2)  # the caller's caller: stacklevel 2
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
        level += 1
    return level


def warn_domain_from_data(columns: list[Column], declare: str) -> None:
    """Warn (:class:`~ldp.PrivacyLeakWarning`) when a column's domain was read from the data.

    The categories present in private data, or its range, are not covered by any epsilon:
    every estimator that reads them says so, names the parameters that declare them
    (``declare``) and points at the user's call.
    """
    undeclared = [c.name for c in columns if c.source == "data"]
    if undeclared:
        warnings.warn(
            PrivacyLeakWarning(
                f"the domain of column(s) {undeclared} was read from the private data; it is "
                f"not covered by the reported epsilon. Declare it ({declare}) or use a "
                "protocol file; simulations may silence this warning with "
                "warnings.simplefilter('ignore', PrivacyLeakWarning)"
            ),
            stacklevel=_user_stacklevel(),
        )


class Privatizer(ValidatedParams, NoSeedInPickles, TransformerMixin, BaseEstimator):
    """Privatize every column of a table on the client: one local randomizer per column.

    Categorical columns go through a frequency oracle (``mechanism="auto"`` picks the one with
    the smallest exact variance for the column's number of categories, see
    :func:`ldp.tasks.recommend`), bounded numeric columns through a mean mechanism
    (``"auto"``: the smallest worst-case variance among Duchi, piecewise, hybrid and Laplace),
    after an affine map of the declared bounds onto the mechanism's domain.

    **Budget.** ``budget="split"``: each row reports every column with ``epsilon / d``
    (``d`` columns with more than one category); ``budget="sample"``: each row reports one
    column drawn uniformly at random, at the full ``epsilon``. ``epsilon_total_`` is the
    guarantee of one row, recomputed from the mechanisms: the sum of the columns' levels
    (split) or their maximum (sample).

    **Schema and privacy.** A mechanism needs the public domain of its column. Declare it:
    ``categories`` (categorical columns) and ``bounds`` (numeric columns). When every column is
    declared, ``fit`` reads only the column names and dtypes of ``X``, never its values (a
    zero-row frame with the right columns is not enough for scikit-learn's checks, so pass any
    frame with the right columns). Undeclared columns take their domain from a pandas
    ``Categorical`` dtype (or ``{False, True}`` for booleans), and otherwise from the values
    (the observed categories, or the observed range rounded outward to a coarse grid). A domain
    read from the values depends on the private rows and is **not** covered by
    ``epsilon_total_``: that mode is for simulation only, and ``schema_from_data_`` lists the
    columns it was used for. Values outside a column's domain (unknown categories, numbers
    outside the bounds) raise at ``transform``; they are never clipped or dropped.

    **Randomness.** ``transform`` draws its noise from ``check_random_state(random_state)`` on
    every call: ``None`` reads the operating system's CSPRNG (the setting for devices: no
    seed or generator state exists that a server could know); an int seed replays the *same*
    noise on every call and a Generator continues its stream, both for simulation and
    reproducibility only (a server that can predict the noise can undo it). A seed never
    travels: pickling a seeded privatizer warns and the pickle holds ``random_state=None``.
    ``sklearn.base.clone`` deep-copies a Generator, so a clone replays the noise of the
    original from the state it had when cloned. A seeded numpy generator is not a
    cryptographic source, and a seed shared with whatever generated the data correlates the
    noise with the values (the estimates are then biased).

    Parameters
    ----------
    epsilon : float, default 1.0
        Per-row privacy budget, ``> 0``.
    categories : dict or list, optional
        Public categories per categorical column: ``{column: [categories]}`` or a list with one
        entry per column (``None`` entries are not declared).
    bounds : dict, list or (float, float), optional
        Public ``(low, high)`` per numeric column, or one pair for every numeric column.
    mechanism : str or dict, default "auto"
        A mechanism name for every column of its kind (``"GRR"``, ``"SUE"``, ``"OUE"``,
        ``"OLH"``, ``"BLH"``, ``"HR"``, ``"SS"``; ``"Duchi"``, ``"Laplace"``, ``"Piecewise"``,
        ``"Hybrid"``, ``"SquareWave"``), or ``{column: name}``; others get ``"auto"``.
    budget : {"split", "sample"}, default "split"
    random_state : None, int, numpy.random.Generator or "os"
        Source of the noise (see above); ``None`` is the operating system's CSPRNG.
    protocol : ldp.protocol.Protocol, optional
        A published protocol (or a ``Channel`` or mechanism, made into one): the privatizer
        then runs exactly it on the one column of ``X`` (its labels or bounds, its mechanism,
        its epsilon), as the clients in ``clients/`` do; ``epsilon``, ``categories``,
        ``bounds``, ``mechanism`` and ``budget`` must be left at their defaults.

    Attributes
    ----------
    columns_ : list of Column
        The schema: each column's name, kind, public domain and where it came from.
    mechanisms_ : list
        The mechanism of each column (``None`` for a single-category column).
    epsilon_total_ : float
        The per-row LDP guarantee of the whole report.
    schema_from_data_ : list of str
        Columns whose domain was read from the values in ``fit``.
    n_features_in_, feature_names_in_ :
        As in scikit-learn.

    Examples
    --------
    >>> import pandas as pd
    >>> from estimators import Privatizer
    >>> frame = pd.DataFrame({"vote": ["yes", "no", "yes"], "age": [31.0, 45.0, 62.0]})
    >>> priv = Privatizer(
    ...     epsilon=2.0,
    ...     categories={"vote": ["no", "yes"]},
    ...     bounds={"age": (18, 90)},
    ...     random_state=0,
    ... ).set_output(transform="pandas")
    >>> reports = priv.fit_transform(frame)
    >>> list(reports.columns), round(priv.epsilon_total_, 9), priv.schema_from_data_
    (['vote', 'age'], 2.0, [])
    >>> priv.describe()["mechanism"].tolist()
    ['GRR', 'Hybrid']
    """

    _default_kind: str | None = None
    _parameter_checks: ClassVar[Mapping[str, Check]] = {
        "epsilon": params.epsilon,
        "budget": params.budget,
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        categories: dict | list | None = None,
        bounds: dict | list | tuple | None = None,
        mechanism: str | dict = "auto",
        budget: str = "split",
        random_state: object = None,
        protocol: object = None,
    ) -> None:
        self.epsilon = epsilon
        self.categories = categories
        self.bounds = bounds
        self.mechanism = mechanism
        self.budget = budget
        self.random_state = random_state
        self.protocol = protocol

    # ----------------------------------------------------------------- fitting the schema
    def fit(self, X: ArrayLike, y: object = None) -> Privatizer:
        """Resolve the schema and build one mechanism per column (see the class docstring).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        with atomic(self):
            if self.protocol is not None:
                self._fit_protocol(X)
                return self
            checked = self._validate_params()
            epsilon, budget = checked["epsilon"], checked["budget"]
            columns = resolve_schema(
                read_table(self, X, reset=True),
                categories=self.categories,
                bounds=self.bounds,
                default_kind=self._default_kind,
            )
            self._set_protocol(columns, build_mechanisms(columns, epsilon, self.mechanism, budget))
        return self

    def _set_protocol(self, columns: list[Column], mechanisms: list[Any]) -> None:
        self.columns_ = columns
        self.mechanisms_ = mechanisms
        self.epsilon_total_ = total_epsilon(mechanisms, check_budget(self.budget))
        self.schema_from_data_ = [c.name for c in columns if c.source == "data"]
        widths = [report_width(m) for m in mechanisms]
        self._offsets = np.concatenate([[0], np.cumsum(widths)]).astype(int)
        warn_domain_from_data(columns, "categories=, bounds=")

    # ----------------------------------------------------------------- published protocols
    def _deployed(self) -> Protocol:
        defaults = {"epsilon": 1.0, "categories": None, "bounds": None, "budget": "split"}
        for name, default in defaults.items():
            if getattr(self, name) != default:
                raise ValueError(
                    f"{name} is fixed by the protocol; leave it at its default ({default!r})"
                )
        if not (self.mechanism == "auto" or self.mechanism is self.protocol):
            raise ValueError("mechanism is fixed by the protocol; leave it at 'auto'")
        spec = self.protocol
        protocol = spec if isinstance(spec, Protocol) else Protocol.from_mechanism(spec)
        if self._default_kind is not None:
            return as_protocol(protocol, self._default_kind)
        return protocol

    def _fit_protocol(self, X: ArrayLike | None, name: str | None = None) -> None:
        protocol = self._deployed()
        if X is not None:
            name = single_column_name(X)  # the protocol declares the domain: no value read
            if isinstance(X, pd.DataFrame):
                self.feature_names_in_ = np.asarray([name], dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            self.n_features_in_ = 1
        column = protocol_column(protocol, name or protocol.question or "answer")
        self.protocol_ = protocol
        self._set_protocol([column], [protocol.decoder])
        self.epsilon_total_ = protocol.epsilon

    def _block(self, j: int) -> slice:
        return slice(int(self._offsets[j]), int(self._offsets[j + 1]))

    # ----------------------------------------------------------------- privatizing
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Privatize every row of ``X``: the report table.

        Every value is checked against its column's domain before any noise is drawn.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_report_columns), float64
        """
        check_is_fitted(self)
        rng = check_random_state("os" if self.random_state is None else self.random_state)
        if getattr(self, "protocol_", None) is not None:
            _, values = single_column_values(X)
            reports = self.protocol_.privatize(values, rng=rng)
            return encode_reports(self.protocol_.mechanism, reports)
        encoded = encode_table(self.columns_, read_table(self, X, reset=False))
        return self._privatize(encoded, rng=rng)

    def _rows_per_column(self, n: int, *, rng: Any) -> list[tuple[int, np.ndarray | slice]]:
        """``(column, rows)`` for every informative column: all rows under ``"split"``, the
        rows that drew the column under ``"sample"``."""
        active = [j for j, m in enumerate(self.mechanisms_) if m is not None]
        if self.budget == "sample" and active:
            choice = randint(rng, len(active), n)
            return [(j, np.flatnonzero(choice == i)) for i, j in enumerate(active)]
        return [(j, slice(None)) for j in active]

    def _native_reports(self, encoded: list[np.ndarray], *, rng: Any):
        """``(column, rows, native reports)`` of every column that reports something."""
        n = encoded[0].shape[0]
        for j, sel in self._rows_per_column(n, rng=rng):
            if isinstance(sel, np.ndarray) and sel.size == 0:
                continue  # nothing to report (and some mechanisms refuse an empty input)
            mech = self.mechanisms_[j]
            yield j, sel, mech.privatize(to_unit(mech, encoded[j][sel]), rng=rng)

    def _privatize(self, encoded: list[np.ndarray], *, rng: Any) -> np.ndarray:
        n = encoded[0].shape[0]
        out = np.full((n, int(self._offsets[-1])), np.nan)
        for j, sel, reports in self._native_reports(encoded, rng=rng):
            out[sel, self._block(j)] = encode_reports(self.mechanisms_[j], reports)
        return out

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> np.ndarray:
        """Names of the report columns: the column name, or ``name_i`` for wider reports."""
        check_is_fitted(self)
        given = check_input_features(self, input_features)
        names = [c.name for c in self.columns_] if given is None else list(given)
        out = []
        for name, mech in zip(names, self.mechanisms_):
            width = report_width(mech)
            out.extend([str(name)] if width == 1 else [f"{name}_{i}" for i in range(width)])
        return np.asarray(out, dtype=object)

    # ----------------------------------------------------------------- server side
    def _report_array(self, reports: ArrayLike) -> np.ndarray:
        names = list(self.get_feature_names_out())
        if isinstance(reports, pd.DataFrame):
            missing = [c for c in names if c not in reports.columns]
            if missing:
                raise ValueError(f"reports lack the report columns {missing[:5]}")
            foreign = [c for c in reports.columns if c not in names]
            if foreign:
                raise ValueError(
                    f"reports have columns that this protocol did not produce: {foreign[:5]} "
                    "(drop them before aggregating)"
                )
            reports = reports[names]
        try:
            arr = np.asarray(reports, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("reports must be a numeric report table") from None
        if arr.ndim != 2 or arr.shape[1] != len(names):
            raise ValueError(
                f"reports must have shape (n, {len(names)}) (the report table of this "
                f"protocol), got {arr.shape}"
            )
        if np.isinf(arr).any():
            raise ValueError("reports must not contain infinite values")
        return arr

    def report_blocks(self, reports: ArrayLike) -> list[tuple[np.ndarray, np.ndarray] | None]:
        """Per column: ``(rows, block)``, the rows that reported it and their report columns.

        Checks the NaN pattern of the budget: under ``"split"`` no row misses a column, under
        ``"sample"`` every row reports exactly one column.
        """
        check_is_fitted(self)
        arr = self._report_array(reports)
        out: list[tuple[np.ndarray, np.ndarray] | None] = []
        n_reported = np.zeros(arr.shape[0], dtype=np.int64)
        for j, (column, mech) in enumerate(zip(self.columns_, self.mechanisms_)):
            if mech is None:
                out.append(None)
                continue
            block = arr[:, self._block(j)]
            missing = np.isnan(block)
            all_missing = missing.all(axis=1)
            if np.any(missing.any(axis=1) & ~all_missing):
                raise ValueError(
                    f"reports of column {column.name!r} are partly missing in some rows"
                )
            rows = np.flatnonzero(~all_missing)
            n_reported[rows] += 1
            out.append((rows, block[rows]))
        if any(m is not None for m in self.mechanisms_):
            expected = "every column" if self.budget == "split" else "exactly one column"
            bad = n_reported != (
                sum(m is not None for m in self.mechanisms_) if self.budget == "split" else 1
            )
            if np.any(bad):
                raise ValueError(
                    f"with budget={self.budget!r} every row must report {expected}; "
                    f"{int(bad.sum())} rows do not"
                )
        return out

    def aggregate(self, reports: ArrayLike) -> list[SupportCounts | MeanSums | None]:
        """The mergeable statistic of each column (``None`` for a single-category column).

        Parameters
        ----------
        reports : DataFrame or array-like
            A report table of this protocol (the output of :meth:`transform`).

        Returns
        -------
        list of SupportCounts (categorical) or MeanSums (numeric, on the mechanism's domain)

        Examples
        --------
        >>> import numpy as np
        >>> from estimators import Privatizer
        >>> X = np.array([[0, 1], [1, 1], [1, 0]])
        >>> priv = Privatizer(1.0, categories=[[0, 1], [0, 1]], random_state=0).fit(X)
        >>> [s.n for s in priv.aggregate(priv.transform(X))]
        [3, 3]
        """
        return [
            None if part is None else aggregate_block(mech, part[1], column.name)
            for part, mech, column in zip(
                self.report_blocks(reports), self.mechanisms_, self.columns_
            )
        ]

    def describe(self) -> pd.DataFrame:
        """One row per column: kind, domain, its source, mechanism and epsilon."""
        check_is_fitted(self)
        rows = []
        for column, mech in zip(self.columns_, self.mechanisms_):
            rows.append(
                {
                    "column": column.name,
                    "kind": column.kind,
                    "domain": column.describe(),
                    "domain_from": column.source,
                    "mechanism": "none (single category)" if mech is None else mechanism_name(mech),
                    "epsilon": 0.0 if mech is None else mech.epsilon,
                    "report_columns": report_width(mech),
                }
            )
        return pd.DataFrame(rows)

    def __getstate__(self):
        if self.random_state is not None and self.random_state != "os":
            warnings.warn(
                PrivacyLeakWarning(
                    "a seeded Privatizer is being serialised: its seed stays behind (the copy "
                    "uses the operating system's entropy), since a server that knows a "
                    "device's seed can undo its privatization"
                ),
                stacklevel=2,
            )
        return super().__getstate__()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        tags.input_tags.categorical = True
        return tags


def same_protocol(a: Privatizer, b: Privatizer) -> str | None:
    """``None`` if two fitted privatizers run the same protocol, else what differs."""
    mine, theirs = getattr(a, "protocol_", None), getattr(b, "protocol_", None)
    if (mine is None) != (theirs is None) or (mine is not None and mine != theirs):
        return "protocol (fingerprint)"
    if a.budget != b.budget:
        return "budget"
    if len(a.columns_) != len(b.columns_) or not all(
        x.same_domain(y) for x, y in zip(a.columns_, b.columns_)
    ):
        return "columns (names or public domains)"
    keys_a = [None if m is None else m.key for m in a.mechanisms_]
    keys_b = [None if m is None else m.key for m in b.mechanisms_]
    if keys_a != keys_b:
        return "mechanisms"
    return None


def categorical_indices(privatizer: Privatizer) -> list[int]:
    return [j for j, c in enumerate(privatizer.columns_) if c.kind == CATEGORICAL]


# ----------------------------------------------------------------- for the estimators
# The estimators build and drive a Privatizer of their own; these functions are the only way
# they reach into it, so its private state stays inside this module.
def install_schema(privatizer: Privatizer, columns: list[Column], mechanisms: list[Any]) -> None:
    """Fit ``privatizer`` to declared ``columns`` and their ``mechanisms`` (no data read)."""
    privatizer._set_protocol(columns, mechanisms)


def install_protocol(privatizer: Privatizer) -> None:
    """Fit ``privatizer`` to its published protocol (``privatizer.protocol``)."""
    privatizer._fit_protocol(None)


def report_width_total(privatizer: Privatizer) -> int:
    """Number of report-table columns of a fitted ``privatizer``."""
    return int(privatizer._offsets[-1])


def native_reports(privatizer: Privatizer, encoded: list[np.ndarray], *, rng: Any):
    """``(column, rows, native reports)`` for every column that reports something."""
    return privatizer._native_reports(encoded, rng=rng)
