"""The protocol shared by mechanisms too large to hold as a matrix.

Two families share one shape of API, vectorised over users:

* :class:`FrequencyOracle` (k-ary value -> frequency vector): every oracle here is a *pure*
  protocol (Wang, Blocki, Li, Jha, USENIX Security 2017): each report *supports* a set of
  values, value ``v`` is supported with probability ``p`` by a user holding ``v`` and ``q``
  by any other user, and the unbiased estimate is ``(C_v / n - q) / (p - q)`` where ``C_v``
  is the number of reports supporting ``v``.
* :class:`MeanMechanism` (bounded number or vector -> unbiased noisy value).

Each mechanism has

* ``privatize(values, *, rng=None) -> reports``: one compact numpy array for all users (indices,
  bit-packed vectors, ``(hash, bucket)`` integer rows, signs or floats), never a Python object
  per user;
* ``aggregate(reports) -> counts``: a mergeable sufficient statistic (:class:`SupportCounts`
  or :class:`MeanSums`); statistics of chunks of reports add up with ``+`` to the statistic of
  all of them;
* ``estimate(reports_or_counts)``: the unbiased estimate;
* ``variance(n, f=None, convention="fixed")``: its exact variance;
* ``interval(statistic, confidence=0.95)``: the estimate with a normal interval, an
  :class:`~ldp.core.Estimate` (every mechanism here is an :class:`~ldp.core.Decoder`);
* ``epsilon``: the pure-LDP level of the probabilities the mechanism uses, checked exactly.

**Randomness.** ``rng`` is ``None``, an int seed, a numpy ``Generator`` or ``"os"``. A seeded
numpy generator is for simulation and reproducibility only: the privacy of a report rests on
its noise being unknown to the server, and a predictable noise stream (a known or guessable
seed, or a PCG64 state reconstructed from past reports) lets the server subtract the noise and
undo the privatization. On devices, privatize with ``rng="os"``, which draws every bit from
the operating system's CSPRNG (:class:`ldp._random.OSGenerator`).

**Exact coins.** Every coin is drawn by ``ldp._sampling`` from whole random bytes, with
its probability given as exact weights (``e^eps : k - 1`` for GRR's keep-or-change coin):
the realised probability is the exact ratio of the weights, for every double however small,
so a rare outcome is never rounded to zero (an infinite privacy loss) or to ``2^-53``. The
weights are calibrated: ``e^eps`` is the largest double at most ``e^eps``, and any weight
that carries it moves towards more privacy until the largest likelihood ratio of the law
sampled, an exact rational, is at most ``e^eps``; each ``epsilon`` is then the level asked
for (``ldp._exact.certified_epsilon``), never below the realised one. The order in which
the bytes are read is the protocol specification's (``docs/protocol.md``), so that the
dependency-free clients reproduce the library's reports byte for byte.

**Variance conventions.** ``"fixed"`` (Wang et al. 2017): the estimand is the empirical
frequency (or mean) of the ``n`` given values. ``"iid"`` (Ye-Barg, Duchi et al.): the values
are an i.i.d. sample and the estimand is the population frequency (or mean); for a frequency
``Var_iid = Var_fixed + f(1 - f)/n``, for a mean ``Var_iid = Var_fixed + Var(X)/n``.
"""

from __future__ import annotations

import abc
import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._formulas import support_rate_variance, support_sum_variance
from ldp._frozen import Frozen
from ldp._validation import (
    as_real_array,
    check_distribution,
    check_integer,
    compact,
    describe,
    scalar_or_array,
)
from ldp.core import (
    Ball,
    Categories,
    Estimate,
    Interval,
    Mechanism,
    check_confidence,
    check_unit_values,
)
from ldp.mechanisms.limits import (
    MAX_CATEGORIES,
    MAX_STATISTIC_ENTRIES,
    check_categories,
    check_convention,
    check_mechanism_epsilon,
    check_n,
    check_size,
)
from ldp.mechanisms.statistics import MeanSums, SupportCounts

__all__ = [
    "FrequencyMechanism",
    "FrequencyOracle",
    "MeanMechanism",
    "MeanSums",
    "Mechanism",
    "SupportCounts",
]


def _broadcast_f(f: ArrayLike | None, name: str = "f") -> tuple[np.ndarray, bool]:
    if f is None:
        return np.zeros(()), True
    arr = as_real_array(f, name)
    if np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"{name} must be frequencies in [0, 1], got {describe(f)}")
    return arr, arr.ndim == 0


class FrequencyMechanism(Frozen, Mechanism):
    """A mechanism on the categories ``0 .. k - 1`` whose reports estimate frequencies.

    Subclasses implement ``_support_counts`` (the mergeable statistic of validated
    reports), :meth:`estimate` and :meth:`variance`. :class:`FrequencyOracle` is the pure
    (support-set) family; :class:`~ldp.tasks.ChannelOracle` decodes any finite channel.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR, OUE, FrequencyMechanism
    >>> isinstance(GRR(4, 1.0), FrequencyMechanism), isinstance(OUE(4, 1.0), FrequencyMechanism)
    (True, True)
    >>> oue = OUE(4, 2.0)
    >>> estimate = oue.estimate(oue.privatize(np.arange(4).repeat(2000), rng=1))
    >>> bool(abs(estimate.sum() - 1) < 5 * np.sqrt(4 * oue.variance(8000)))  # unbiased
    True
    """

    @property
    @abc.abstractmethod
    def k(self) -> int:
        """Size of the input alphabet."""

    @property
    def domain(self) -> Categories:
        """The categories ``0 .. k - 1``."""
        return Categories(self.k)

    @abc.abstractmethod
    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        """``(C, n)`` of validated native reports."""

    @property
    def work_per_report(self) -> float:
        """Elementary operations per report, device and server (a model; default ``k``)."""
        return float(self.k)

    @property
    def statistic_size(self) -> int:
        """Entries of the mergeable statistic (the support counts: one per category)."""
        return self.k

    @property
    def statistic_entries(self) -> int:
        """The largest array decoding builds, in entries (``k`` counts by default)."""
        return self.k

    def _check_decodable(self, what: str) -> None:
        check_size(
            self.statistic_entries,
            MAX_STATISTIC_ENTRIES,
            "MAX_STATISTIC_ENTRIES",
            f"{type(self).__name__}.{what}",
            f"decoding k = {compact(self.k)} categories",
        )

    def aggregate(self, reports: ArrayLike) -> SupportCounts:
        """The statistic of ``reports``: a :class:`~ldp.mechanisms.SupportCounts` (add chunks
        with ``+``).

        The reports are checked by the :attr:`codec` first: anything the mechanism cannot
        output raises ``ValueError`` naming the row. An alphabet whose statistic would exceed
        ``MAX_STATISTIC_ENTRIES`` raises ``ValueError`` before anything is allocated.
        """
        self._check_decodable("aggregate")
        counts, n = self._support_counts(self.codec.from_rows(reports))
        return SupportCounts(counts, n, self.key)

    def counts_of(self, reports_or_counts: ArrayLike | SupportCounts) -> SupportCounts:
        """``reports_or_counts`` as this mechanism's :class:`~ldp.mechanisms.SupportCounts`
        (checked)."""
        if isinstance(reports_or_counts, SupportCounts):
            if reports_or_counts.mechanism != self.key:
                raise ValueError(
                    f"counts come from {reports_or_counts.mechanism}, not from {self.key}"
                )
            expected = self.statistic_size
            if reports_or_counts.counts.size != expected:
                raise ValueError(
                    f"counts must have {expected} entries for {self.key}, got "
                    f"{reports_or_counts.counts.size}"
                )
            return reports_or_counts
        return self.aggregate(reports_or_counts)

    @abc.abstractmethod
    def estimate(self, reports_or_counts: ArrayLike | SupportCounts) -> np.ndarray:
        """Unbiased frequency estimates, one per category."""

    def diagonal_moments(self, f: np.ndarray) -> tuple[np.ndarray, int] | None:
        """``(m, rank)`` when the per-report contributions ``Y`` to two estimates have zero
        cross moment: ``m_j = E[Y_j^2]`` at the (estimated) frequencies ``f``, and the rank
        of their covariance ``diag(m) - f f^T``; ``None`` (the default) otherwise. The
        report-plausibility test then weighs each estimate by ``m_j / n`` (the module notes
        of ``ldp.tasks.plausibility``)."""
        return None

    @abc.abstractmethod
    def variance(
        self, n: int, f: ArrayLike | None = None, convention: str = "fixed"
    ) -> float | np.ndarray:
        """Exact variance of :meth:`estimate` over ``n`` users."""

    def interval(
        self,
        statistic: ArrayLike | SupportCounts,
        /,
        confidence: float = 0.95,
        *,
        convention: str = "fixed",
        at: ArrayLike | None = None,
    ) -> Estimate:
        """The unbiased frequencies with two-sided normal intervals at ``confidence``.

        The standard error is the square root of the exact :meth:`variance` over the
        statistic's ``n`` reports at the unbiased estimate clipped to ``[0, 1]`` (a plug-in:
        the formula is exact at the true frequencies), or at the frequencies ``at``.

        Parameters
        ----------
        statistic : SupportCounts or array_like
            The statistic of the reports (or the reports).
        confidence : float, default 0.95
            Level of the intervals, in ``(0, 1)``.
        convention : {"fixed", "iid"}, default "fixed"
            The estimand (see :meth:`variance`).
        at : array_like, optional
            The frequencies at which to evaluate the variance (default the clipped estimate).

        Returns
        -------
        Estimate

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.mechanisms import OUE
        >>> oue = OUE(4, 1.0)
        >>> counts = oue.aggregate(oue.privatize(np.repeat([0, 1, 2, 3], 500), rng=3))
        >>> est = oue.interval(counts)
        >>> sd = np.sqrt(oue.variance(counts.n, np.clip(est.value, 0, 1)))
        >>> bool(np.array_equal(est.half_width, 1.959963984540054 * sd))
        True
        """
        level = check_confidence(confidence)
        conv = check_convention(convention)
        counts = self.counts_of(statistic)
        value = self.estimate(counts)
        where = np.clip(value, 0.0, 1.0) if at is None else at
        variance = self.variance(counts.n, where, convention=conv)
        how = "the clipped estimate" if at is None else "the given frequencies"
        return Estimate(
            value,
            np.sqrt(variance),
            level,
            counts.n,
            f"normal, exact {conv} variance at {how}",
        )

    def empty_statistic(self) -> SupportCounts:
        """The statistic of zero reports (the neutral element of ``+``)."""
        self._check_decodable("empty_statistic")
        counts, _ = self._support_counts(self.codec.from_rows(np.zeros((0, self.codec.width))))
        return SupportCounts(counts, 0, self.key)

    @property
    def estimate_size(self) -> int:
        """Entries of :meth:`estimate` (``k``; the buckets of a bucketed oracle)."""
        return self.k

    def covariance(self, n: int, f: ArrayLike, convention: str = "iid") -> np.ndarray:
        """Exact covariance matrix of :meth:`estimate` over ``n`` users of frequencies ``f``.

        The estimate is the average of one vector ``psi(Z)`` per report with
        ``E[psi(Z) | x] = e_x`` (it is unbiased and linear in the reports). With
        ``W(f) = sum_x f_x E[psi psi^T | x]`` (``_moment_matrix``, per family), ``fixed`` (the
        estimand is the users' empirical distribution ``f``) is ``(W(f) - diag(f)) / n`` and
        ``iid`` (users drawn from ``f``) is ``(W(f) - f f^T) / n``: they differ by the
        multinomial covariance ``(diag(f) - f f^T) / n``. The diagonal is :meth:`variance`.

        Parameters
        ----------
        n : int
            Number of users.
        f : array_like of shape (estimate_size,)
            The true distribution (non-negative, summing to 1).
        convention : {"iid", "fixed"}, default "iid"
            As in :meth:`variance`.

        Returns
        -------
        ndarray of shape (estimate_size, estimate_size)

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.mechanisms import OLH
        >>> olh = OLH(6, 1.0)
        >>> f = np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
        >>> cov = olh.covariance(1000, f)
        >>> bool(np.allclose(np.diag(cov), olh.variance(1000, f, "iid")))
        True
        """
        users = check_n(n)
        conv = check_convention(convention)
        size = self.estimate_size
        check_size(
            size * size,
            MAX_STATISTIC_ENTRIES,
            "MAX_STATISTIC_ENTRIES",
            f"{type(self).__name__}.covariance",
            f"a {compact(size)}-square matrix",
        )
        freq = check_distribution(f, size)
        moment = self._moment_matrix(freq)
        spread = np.diag(freq) if conv == "fixed" else np.outer(freq, freq)
        out = (moment - spread) / users
        return (out + out.T) / 2

    @abc.abstractmethod
    def _moment_matrix(self, f: np.ndarray) -> np.ndarray:
        """``W(f) = sum_x f_x E[psi(Z) psi(Z)^T | x]`` for a checked distribution ``f``."""


class FrequencyOracle(FrequencyMechanism):
    """A pure frequency oracle on ``{0, ..., k-1}`` (support-set protocol).

    Subclasses set ``k``, the support probabilities ``p`` and ``q`` and implement
    :meth:`privatize` and ``_support_counts``. Everything else (estimation, variance,
    merging, parameter checks) is shared.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import math
    >>> from ldp.mechanisms import GRR, FrequencyOracle
    >>> grr = GRR(4, 1.0)
    >>> isinstance(grr, FrequencyOracle)
    True
    >>> math.isclose(grr.p / grr.q, math.e)  # the support ratio is e^eps
    True
    """

    def __init__(self, k: int, epsilon: float) -> None:
        self._k = check_integer(k, "k", low=2)
        if self._k > MAX_CATEGORIES:
            raise ValueError(f"k must be <= 2^40 (MAX_CATEGORIES), got {compact(self._k)}")
        self._eps_budget = check_mechanism_epsilon(epsilon)

    # ----------------------------------------------------------------- parameters
    @property
    def k(self) -> int:
        """Size of the input alphabet."""
        return self._k

    @property
    @abc.abstractmethod
    def p(self) -> float:
        """``P(v in support(report) | X = v)``."""

    @property
    @abc.abstractmethod
    def q(self) -> float:
        """``P(v in support(report) | X = x)`` for any ``x != v``."""

    @property
    @abc.abstractmethod
    def epsilon(self) -> float:
        """The pure-LDP level of the per-report output probabilities: the level asked for
        when they realise at most it (exactly), else their level rounded up."""

    @property
    @abc.abstractmethod
    def report_bits(self) -> float:
        """``log2`` of the number of possible reports (bits of a minimal encoding)."""

    @property
    def params(self) -> dict[str, object]:
        """``{"k": k, "epsilon": epsilon}`` (and the oracle's own parameters)."""
        return {"k": self._k, "epsilon": self._eps_budget}

    def __repr__(self) -> str:
        return self.key

    # ----------------------------------------------------------------- protocol
    @abc.abstractmethod
    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """One report per user for category indices ``values`` (1-D, in ``0 .. k-1``).

        ``rng``: ``None``, an int seed or a numpy ``Generator`` for simulations; ``"os"`` for
        client-side use (the operating system's CSPRNG; see the module notes)."""

    def estimate(self, reports_or_counts: ArrayLike | SupportCounts) -> np.ndarray:
        """Unbiased frequency estimates ``(C_v / n - q) / (p - q)``, one per value.

        The estimates sum to one only in expectation and may be negative; see
        ``ldp.tasks.consistency`` for post-processing.
        """
        counts = self.counts_of(reports_or_counts)
        if counts.n == 0:
            raise ValueError("cannot estimate frequencies from zero reports")
        return self._unbiased(counts.counts, counts.n)

    def _unbiased(self, counts: np.ndarray, n: int) -> np.ndarray:
        """``(C_v / n - q) / (p - q)``: the one home of the pure-protocol estimator."""
        return (counts / n - self.q) / (self.p - self.q)

    def estimate_values(self, reports: ArrayLike, values: ArrayLike) -> np.ndarray:
        """Unbiased frequency estimates of the given ``values`` only, from ``reports``.

        The same estimator as :meth:`estimate`, with the support counts ``C_v`` computed for
        the requested values alone, so an alphabet far too large to decode in full (a prefix
        of ``2^32`` values in a heavy-hitter search) costs ``O(n m)`` for ``m`` values.
        Oracles whose reports name the supported values (GRR, local hashing, Hadamard
        response, unary encoding, subset selection) implement it; the reports are checked by
        the :attr:`codec` as in :meth:`aggregate`.

        Parameters
        ----------
        reports : array_like
            Reports of this oracle (at least one).
        values : array_like of int
            Category indices in ``0 .. k - 1`` (1-D; repeats allowed).

        Returns
        -------
        ndarray of float64
            One estimate per entry of ``values``.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.mechanisms import OLH
        >>> olh = OLH(2**32, 2.0)
        >>> reports = olh.privatize(np.full(20_000, 123_456_789), rng=0)
        >>> est = olh.estimate_values(reports, [123_456_789, 5])
        >>> bool(abs(est[0] - 1) < 0.1 and abs(est[1]) < 0.1)
        True
        """
        rows = self.codec.from_rows(reports)
        wanted = check_categories(values, self.k, "values")
        if rows.shape[0] == 0:
            raise ValueError("cannot estimate frequencies from zero reports")
        return self._unbiased(self._support_counts_at(rows, wanted), rows.shape[0])

    def simulate_support_counts(self, n_x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """Support counts of users holding ``n_x`` from their exact law (``simulate_counts``)."""
        raise NotImplementedError(
            f"simulate_counts has no exact shortcut for {type(self).__name__}: the counts "
            "of different values are dependent; use aggregate(privatize(values))"
        )

    def pair_moments(self, f: np.ndarray) -> tuple[float, float, np.ndarray | float, bool]:
        """``(r1, r2, extra, fixed)`` of the report-plausibility test: the pair support, the
        family's excess over it at ``f`` (per value), and whether every report supports the
        same number of values (the module notes of ``ldp.tasks.plausibility``)."""
        r1, r2 = self._pair_support()
        return r1, r2, 0.0, False

    def pair_covariance(self) -> tuple[float, float]:
        """``(e0, e1)``: ``E[(S_v - q)(S_w - q)]`` for distinct ``v, w`` when the user holds
        neither, and ``v`` (range queries); only families where it is a constant say it."""
        raise TypeError(f"no joint support law for {type(self).__name__}")

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``C_v`` of validated native reports for the given values (int64)."""
        raise ValueError(
            f"{type(self).__name__} cannot estimate single values; use an oracle whose "
            "reports name the supported values (GRR, OLH, BLH, HR, OUE, SUE, SS)"
        )

    @property
    def constant_pair_support(self) -> bool:
        """Whether ``P(S_u = S_v = 1 | x)`` is the pair support ``(a, b)`` of every pair, ``a``
        when ``x`` is ``u`` or ``v`` and ``b`` otherwise, whatever the third value ``x``: then
        :meth:`sum_variance` is exact. ``False`` for families with exceptional triples
        (Hadamard response; local hashing over an odd prime field)."""
        return True

    def sum_variance(
        self, n: int, total: ArrayLike, m: int, convention: str = "iid"
    ) -> float | np.ndarray:
        """Exact variance of the sum of ``m`` values' unbiased estimates over ``n`` users.

        The variance of a marginal cell estimated by summing the cells of a finer table:
        it depends on the ``m`` values only through their total frequency ``total``, for every
        oracle whose pair support is constant (:attr:`constant_pair_support`); the closed form
        from the support probabilities ``p, q`` and the pair support ``(a, b)`` is
        ``ldp._formulas.support_sum_variance``. ``fixed`` removes the sampling of the
        users, ``total (1 - total) / n``. For ``m = 1`` this is :meth:`variance`.

        Parameters
        ----------
        n : int
            Number of users.
        total : float or array_like
            The true total frequency of the ``m`` values (in ``[0, 1]``).
        m : int
            How many values are summed, ``1 <= m <= k``.
        convention : {"iid", "fixed"}, default "iid"
            As in :meth:`variance`.

        Returns
        -------
        float or ndarray

        Raises
        ------
        ValueError
            For an oracle whose pair support depends on the third value (the variance then
            depends on which values are summed: use :meth:`covariance`).

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.mechanisms import GRR, OUE
        >>> grr, oue = GRR(4, 1.0), OUE(4, 1.0)
        >>> bool(np.isclose(grr.sum_variance(100, 0.3, 1), grr.variance(100, 0.3, "iid")))
        True
        >>> float(grr.sum_variance(100, 1.0, 4))   # all values: the sum is the constant 1
        0.0
        >>> f = np.array([0.1, 0.2, 0.3, 0.4])
        >>> cov = oue.covariance(100, f)
        >>> bool(np.isclose(oue.sum_variance(100, 0.3, 2), cov[:2, :2].sum()))
        True
        """
        users = check_n(n)
        freq, scalar = _broadcast_f(total, "total")
        cells = check_integer(m, "m", low=1)
        if cells > self.k:
            raise ValueError(f"m must be at most k = {self.k}, got {cells}")
        conv = check_convention(convention)
        if not self.constant_pair_support:
            raise ValueError(
                f"{self.key} has no sum_variance: its pair support depends on the third "
                "value, so the variance depends on which values are summed (use covariance)"
            )
        own, other = self._pair_support()
        out = support_sum_variance(users, freq, cells, self.p, self.q, own, other)
        if conv == "fixed":
            out = np.maximum(out - freq * (1.0 - freq) / users, 0.0)
        return scalar_or_array(out, scalar)

    @abc.abstractmethod
    def _pair_support(self) -> tuple[float, float]:
        """``P(S_u = S_v = 1 | x)`` for ``u != v``: ``(a, b)``, ``a`` when ``x`` is ``u`` or
        ``v``, ``b`` when it is neither (families whose ``b`` depends on the triple correct
        it in ``_joint_support``)."""

    def _joint_support(self, f: np.ndarray) -> np.ndarray:
        """``J[u, v] = sum_x f_x P(S_u = S_v = 1 | x)`` off the diagonal."""
        a, b = self._pair_support()
        pair = f[:, None] + f[None, :]
        return a * pair + b * (f.sum() - pair)

    def _moment_matrix(self, f: np.ndarray) -> np.ndarray:
        """``psi = (S - q) / (p - q)``: ``W = (J - q (m_u + m_v) + q^2) / (p - q)^2`` with
        ``m = q + (p - q) f`` the support rates and ``J`` the joint rates (``m`` on the
        diagonal)."""
        p, q, total = self.p, self.q, float(f.sum())
        rate = q * total + (p - q) * f
        joint = self._joint_support(f)
        np.fill_diagonal(joint, rate)
        return (joint - q * (rate[:, None] + rate[None, :]) + q * q * total) / (p - q) ** 2

    def variance(
        self, n: int, f: ArrayLike | None = None, convention: str = "fixed"
    ) -> float | np.ndarray:
        """Exact variance of :meth:`estimate` for a value of true frequency ``f``.

        ``fixed``: ``q(1-q)/(n(p-q)^2) + f(1-p-q)/(n(p-q))`` (Wang et al. 2017);
        ``iid``: ``t(1-t)/(n(p-q)^2)`` with ``t = q + f(p-q)``, i.e. ``fixed + f(1-f)/n``.

        Parameters
        ----------
        n : int
            Number of users.
        f : float or array_like, optional
            True frequency (frequencies) of the value(s); ``None`` means ``f = 0``, the
            rare-value variance used to compare oracles.
        convention : {"fixed", "iid"}
        """
        users = check_n(n)
        freq, scalar = _broadcast_f(f)
        conv = check_convention(convention)
        p, q = self.p, self.q
        gap = p - q
        if conv == "fixed":
            out = q * (1 - q) / (users * gap**2) + freq * (1 - p - q) / (users * gap)
        else:
            out = support_rate_variance(users, freq, q, gap)
        return scalar_or_array(out, scalar)


class MeanMechanism(Frozen, Mechanism):
    """An unbiased randomizer of bounded numbers (or vectors) for mean estimation.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import Duchi, MeanMechanism
    >>> duchi = Duchi(1.0)
    >>> isinstance(duchi, MeanMechanism), (duchi.low, duchi.high)
    (True, (-1.0, 1.0))
    >>> x = np.full(20000, 0.3)
    >>> mean = duchi.estimate(duchi.privatize(x, rng=2))
    >>> bool(abs(mean - 0.3) < 5 * np.sqrt(duchi.variance(x.size, 0.3)))  # unbiased
    True
    """

    #: bounds of each input coordinate
    low: float = -1.0
    high: float = 1.0

    def __init__(self, epsilon: float) -> None:
        self._eps_budget = check_mechanism_epsilon(epsilon)

    @property
    def d(self) -> int:
        """Dimension of one input."""
        return 1

    @property
    def params(self) -> dict[str, object]:
        """``{"epsilon": epsilon}`` (and the mechanism's own parameters)."""
        return {"epsilon": self._eps_budget}

    @property
    def domain(self) -> Interval | Ball:
        """``[low, high]`` (per coordinate for vectors)."""
        return Interval(self.low, self.high, self.d)

    def empty_statistic(self) -> MeanSums:
        """The statistic of zero reports (the neutral element of ``+``)."""
        zeros = np.zeros(() if self.d == 1 else (self.d,))
        return MeanSums(zeros, 0, self.key, zeros)

    @property
    @abc.abstractmethod
    def epsilon(self) -> float:
        """The pure-LDP level of the output law the mechanism samples: the level asked for when
        it realises at most it (exactly), else its level rounded up."""

    def __repr__(self) -> str:
        return self.key

    def _check_values(self, values: ArrayLike, name: str = "values") -> np.ndarray:
        return check_unit_values(self.domain, values, name)

    @abc.abstractmethod
    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """One report per user.

        ``rng``: ``None``, an int seed or a numpy ``Generator`` for simulations; ``"os"`` for
        client-side use (the operating system's CSPRNG; see the module notes)."""

    @abc.abstractmethod
    def decode(self, reports: ArrayLike) -> np.ndarray:
        """Per-user unbiased estimates from reports (validated)."""

    def aggregate(self, reports: ArrayLike) -> MeanSums:
        """Sum and sum of squares of the decoded reports: a :class:`MeanSums` (add chunks
        with ``+``)."""
        decoded = self.decode(reports)
        squares = (decoded * decoded).sum(axis=0)
        return MeanSums(decoded.sum(axis=0), decoded.shape[0], self.key, squares)

    def estimate(self, reports_or_sums: ArrayLike | MeanSums) -> float | np.ndarray:
        """Unbiased estimate of the mean of the privatized values."""
        if isinstance(reports_or_sums, MeanSums):
            sums = reports_or_sums
            if sums.mechanism != self.key:
                raise ValueError(f"sums come from {sums.mechanism}, not from {self.key}")
            shape = () if self.d == 1 else (self.d,)
            if sums.total.shape != shape:
                raise ValueError(
                    f"total must have shape {shape} for {self.key}, got {sums.total.shape}"
                )
        else:
            sums = self.aggregate(reports_or_sums)
        if sums.n == 0:
            raise ValueError("cannot estimate a mean from zero reports")
        out = sums.total / sums.n
        return scalar_or_array(out)

    def interval(self, statistic: ArrayLike | MeanSums, /, confidence: float = 0.95) -> Estimate:
        """The unbiased mean with a two-sided normal interval at ``confidence``.

        The standard error is the square root of the worst-case :meth:`variance` over the
        domain (``worst_case_variance() / n``): the interval covers at least at the stated
        rate whatever the users' values (per coordinate for vectors).

        Parameters
        ----------
        statistic : MeanSums or array_like
            The statistic of the reports (or the reports).
        confidence : float, default 0.95
            Level of the interval, in ``(0, 1)``.

        Returns
        -------
        Estimate

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.mechanisms import Duchi
        >>> duchi = Duchi(1.0)
        >>> est = duchi.interval(duchi.aggregate(duchi.privatize(np.full(4000, 0.3), rng=0)))
        >>> bool(est.lower < 0.3 < est.upper), est.method
        (True, 'normal, worst-case variance')
        """
        level = check_confidence(confidence)
        sums = statistic if isinstance(statistic, MeanSums) else self.aggregate(statistic)
        value = self.estimate(sums)
        error = np.sqrt(self.variance(sums.n))
        if np.ndim(value):
            error = np.full(np.shape(value), error)
        return Estimate(value, error, level, sums.n, "normal, worst-case variance")

    @abc.abstractmethod
    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        """``Var(decoded report | value x)``, elementwise (per coordinate for vectors)."""

    @abc.abstractmethod
    def worst_case_variance(self) -> float:
        """``sup_x`` of the per-user variance (per coordinate for vectors)."""

    def variance(
        self, n: int, f: ArrayLike | None = None, convention: str = "fixed"
    ) -> float | np.ndarray:
        """Variance of :meth:`estimate` over ``n`` users.

        Parameters
        ----------
        n : int
            Number of users.
        f : float or array_like, optional
            The users' true values. A scalar (or a length-``d`` vector) means all ``n`` users
            hold it; an array of shape ``(m,)`` (or ``(m, d)``) is a population of values.
            ``None`` gives the worst case over the domain.
        convention : {"fixed", "iid"}
            ``fixed``: the ``n`` users hold exactly the values ``f`` (in equal shares), the
            estimand is their mean: ``mean_i V(f_i) / n``. ``iid``: the users' values are
            drawn uniformly from ``f``, the estimand is the population mean:
            ``(mean_i V(f_i) + Var(f)) / n``.
        """
        users = check_n(n)
        conv = check_convention(convention)
        if f is None:
            return self.worst_case_variance() / users
        x = self._check_values(np.atleast_1d(f) if self.d == 1 else np.atleast_2d(f), "f")
        v = self.per_user_variance(x).mean(axis=0)
        if conv == "iid":
            v = v + x.var(axis=0)
        v = v / users
        return scalar_or_array(v)


def log_ratio(a: float, b: float) -> float:
    """``log(a / b)`` for probabilities, clipped at 0; ``inf`` when only ``b`` is 0."""
    if b <= 0.0:
        return math.inf if a > 0.0 else 0.0
    return max(0.0, math.log(a) - math.log(b))
