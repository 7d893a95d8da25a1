"""Finite LDP mechanisms as row-stochastic matrices, with their exact privacy.

A :class:`Channel` is the matrix ``K[x, z] = P(Z = z | X = x)`` of a local randomizer on a
finite input alphabet. Its privacy is *computed* from the matrix, never taken from the
parameters that built it:

* ``epsilon``: the tight pure-LDP level ``max_{x, x', z} log K[x, z] / K[x', z]``;
* ``delta(eps)``: the tight delta at level ``eps``, ``max_{x != x'} E_{e^eps}(K_x || K_x')``,
  i.e. the privacy profile (Asoodeh-Aliakbarpour-Calmon (2021), Definition 1 and Theorem 1);
* ``epsilon_for_delta(delta)``: the inverse of the profile;
* ``tv``: the eta-TV level ``max_{x, x'} TV(K_x, K_x')`` (Ghazi-Issa (2023), Definition 7),
  which is also the Dobrushin contraction coefficient.

For large channels the pairwise maxima use the channel's structure (k-ary randomized
response reduces to one pair of rows; otherwise distinct rows, merged columns, rows that
deviate from a common background in few entries); see ``ldp._pairwise`` and its
``MAX_PAIRWISE_WORK``.
"""

from __future__ import annotations

import hashlib
import math
import sys
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import largest_likelihood_ratio, log_up
from ldp._pairwise import max_pairwise_hockey_stick, max_pairwise_tv, symmetric_pair
from ldp._rounding import UNIT
from ldp._sampling import ExactLaw, choose
from ldp._validation import (
    PMF_TOLERANCE,
    as_levels,
    as_real_array,
    check_epsilon,
    check_pmf,
    check_random_state,
    check_scalar,
    scalar_or_array,
)
from ldp.core import Categories, Mechanism, ReportCodec, index_codec

__all__ = ["Channel"]


def _exp_lower(x: float) -> Fraction:
    """A rational lower bound of ``e^x`` (``x >= 0``), tight to about ``1e-30`` relative.

    Partial sums of the exponential series are below ``e^x``; beyond ``x = 50`` (or where
    the series would be long) ``math.exp``, which is within one unit in the last place, is
    lowered by one such unit.
    """
    if x <= 50.0:
        value = Fraction(x)
        term = Fraction(1)
        total = Fraction(1)
        for n in range(1, 400):
            term = term * value / n
            total += term
            if n > value and term * 10**30 < total:
                return total
    grown = _exp(x)
    return Fraction(grown if math.isfinite(grown) else sys.float_info.max) * (
        1 - Fraction(1, 2**52)
    )


def _exp(x: float) -> float:
    """``e^x`` that returns ``inf`` instead of raising on overflow."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _pair_epsilon_for_delta(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    """Smallest ``eps >= 0`` with ``sum_z (p_z - e^eps q_z)_+ <= delta``, exactly.

    ``g(gamma) = sum (p - gamma q)_+`` is piecewise linear and non-increasing, with
    breakpoints at the likelihood ratios ``r_z = p_z / q_z``. Sorting the ratios in
    decreasing order, ``g = A_i - gamma B_i`` between the i-th and (i+1)-th ratio, where
    ``A_i`` and ``B_i`` are the masses of ``p`` and ``q`` above it (``A`` includes the mass
    of ``p`` where ``q = 0``). The crossing ``g = delta`` is solved on its segment, in logs.
    """
    if 0.5 * np.abs(p - q).sum() <= delta:
        return 0.0
    uncovered = float(p[q == 0].sum())
    if uncovered > delta:
        return math.inf
    both = (p > 0) & (q > 0)
    log_ratio = np.log(p[both]) - np.log(q[both])
    order = np.argsort(-log_ratio, kind="stable")
    log_ratio, ps, qs = log_ratio[order], p[both][order], q[both][order]
    mass_p = uncovered + np.cumsum(ps)  # A_i: p-mass of the i+1 largest ratios (and q = 0)
    mass_q = np.cumsum(qs)  # B_i
    before_p = np.concatenate(([uncovered], mass_p[:-1]))
    before_q = np.concatenate(([0.0], mass_q[:-1]))
    with np.errstate(over="ignore", invalid="ignore"):
        at_break = np.where(before_q > 0, before_p - np.exp(log_ratio) * before_q, before_p)
    # g at the i-th breakpoint is non-decreasing in i; the last one at or below delta marks
    # the segment (r_{i+1}, r_i] that holds the crossing.
    i = int(np.searchsorted(at_break, delta, side="right")) - 1
    i = min(max(i, 0), len(mass_p) - 1)
    numerator = mass_p[i] - delta
    if numerator <= 0:
        return 0.0
    return max(0.0, math.log(numerator) - math.log(mass_q[i]))


class Channel(Mechanism):
    """An immutable finite local randomizer ``K[x, z] = P(Z = z | X = x)``.

    Parameters
    ----------
    matrix : array_like of shape (n_inputs, n_outputs)
        Finite, non-negative entries whose rows sum to one within
        ``PMF_TOLERANCE`` (``1e-9``). Rows are divided by their sums,
        so the stored rows are probability vectors up to rounding. The stored array is a
        read-only copy. (:meth:`from_params` stores a matrix as it is, after the same
        checks: a protocol file's matrix is the law its devices sample.)

    Notes
    -----
    All privacy quantities are exact functions of the matrix, computed over every ordered
    pair of rows (``O(n_inputs^2 n_outputs)`` time, ``O(1)`` extra memory per tile). Inputs
    are indexed ``0 .. n_inputs - 1`` and outputs ``0 .. n_outputs - 1``.

    :meth:`privatize` draws output ``z`` for input ``x`` with probability exactly
    ``K[x, z] / sum_z K[x, z]`` (in exact arithmetic on the stored doubles, see
    ``ldp._sampling``), and :attr:`epsilon` is computed for that law and rounded up, so it
    bounds the mechanism as it is actually sampled.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp import Channel
    >>> e = np.exp(1.0)
    >>> rr = Channel([[e, 1.0], [1.0, e]] / (1 + e))
    >>> round(rr.epsilon, 12), round(rr.tv, 6)
    (1.0, 0.462117)
    >>> rr.is_ldp(1.0), rr.is_ldp(0.5)
    (True, False)
    >>> round(rr.delta(0.5), 6)   # (e - e^0.5) / (1 + e)
    0.287649
    """

    __slots__ = ("_cache", "_matrix")
    _cache: dict[str, object]
    _matrix: np.ndarray
    #: numpy defers to Channel's operators (``channel @ array`` raises TypeError)
    __array_ufunc__ = None

    def __init__(self, matrix: ArrayLike) -> None:
        if isinstance(matrix, Channel):
            array = matrix._matrix
        else:
            raw = as_real_array(matrix, "matrix")
            if raw.ndim != 2:
                raise ValueError(f"matrix must be 2-D (inputs x outputs), got shape {raw.shape}")
            if raw.shape[0] == 0 or raw.shape[1] == 0:
                raise ValueError(f"matrix must have at least one row and column, got {raw.shape}")
            if np.any(raw < 0):
                row, col = np.argwhere(raw < 0)[0]
                value = float(raw[row, col])
                raise ValueError(
                    f"matrix must be non-negative, got matrix[{row}, {col}] = {value!r}"
                )
            if np.any(raw > 1.0 + PMF_TOLERANCE):  # also keeps the row sums from overflowing
                row, col = np.argwhere(raw > 1.0 + PMF_TOLERANCE)[0]
                raise ValueError(
                    f"matrix entries are probabilities (<= 1), got matrix[{row}, {col}] = "
                    f"{float(raw[row, col])!r}"
                )
            if symmetric_pair(raw) is not None:
                # every row a permutation of the first: one correctly rounded sum keeps the
                # structure through the normalisation below
                sums = np.full(raw.shape[0], math.fsum(raw[0].tolist()))
            else:
                sums = raw.sum(axis=1)
            off = np.abs(sums - 1.0)
            if np.any(off > PMF_TOLERANCE):
                row = int(np.argmax(off))
                raise ValueError(
                    f"matrix rows must sum to 1 (tolerance {PMF_TOLERANCE:g}); row {row} sums "
                    f"to {float(sums[row])!r}"
                )
            array = raw / sums[:, None]
            array.setflags(write=False)
        object.__setattr__(self, "_matrix", array)
        object.__setattr__(self, "_cache", {})

    # ----------------------------------------------------------------- value object
    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Channel is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Channel is immutable; cannot delete {name!r}")

    def __reduce__(self):
        return (Channel, (np.array(self._matrix),))

    # ----------------------------------------------------------------- mechanism protocol
    name = "Channel"

    @property
    def params(self) -> dict[str, Any]:
        """``{"matrix": rows}``: the matrix as nested lists of floats."""
        return {"matrix": self._matrix.tolist()}

    @classmethod
    def from_params(cls, params: Any) -> Channel:
        """The channel of ``params["matrix"]``, stored exactly as given (after the checks of
        the constructor): ``Channel.from_params(c.params) == c`` for every channel ``c``."""
        if not isinstance(params, dict) or set(params) != {"matrix"}:
            raise TypeError("Channel parameters are {'matrix': rows}")
        checked = Channel(params["matrix"])  # validates shape, sign and row sums
        exact = np.array(as_real_array(params["matrix"], "matrix"), dtype=np.float64)
        exact.setflags(write=False)
        out = object.__new__(cls)
        object.__setattr__(
            out, "_matrix", exact if exact.shape == checked.shape else checked._matrix
        )
        object.__setattr__(out, "_cache", {})
        return out

    @property
    def key(self) -> str:
        """``Channel(<k>x<m>, sha256 prefix of the matrix bytes)``."""
        hashed = hashlib.sha256(np.ascontiguousarray(self._matrix).tobytes()).hexdigest()
        return f"Channel({self.n_inputs}x{self.n_outputs}, {hashed[:16]})"

    @property
    def domain(self) -> Categories:
        """The inputs ``0 .. n_inputs - 1``."""
        return Categories(self.n_inputs)

    @property
    def codec(self) -> ReportCodec:
        """One integer field: the output index."""
        return index_codec(self.n_outputs)

    def sampler(self) -> dict[str, Any]:
        """Nothing beyond the matrix: a device draws ``choose(matrix[x])``."""
        return {}

    def to_channel(self) -> Channel:
        """The channel itself."""
        return self

    def privacy_channel(self) -> Channel:
        """A small channel whose privacy profile is this one's (or dominates it).

        The channel itself, except when every pair of rows looks alike (k-ary randomized
        response: one value on the diagonal, one off it): then a two-row, three-output
        channel that is Blackwell-more-informative than each pair by a few units in the last
        place (its
        larger entry rounded up, its ratio-one mass rounded down, both checked in exact
        rationals), so that trade-off curves and compositions of ``k_rr(4096)`` are computed
        on three outputs and stay upper bounds.
        """
        if not self._is_reduced():
            return self
        return self._cached("privacy_channel", self._dominating_pair)

    def krr_parameters(self) -> tuple[int, float] | None:
        """``(k, epsilon)`` when the matrix is k-ary randomized response (square, ``k >= 2``,
        one value on the diagonal and a smaller one off it, equal to 12 digits), else
        ``None``.

        Examples
        --------
        >>> import ldp
        >>> ldp.k_rr(4, 1.0).krr_parameters()[0]
        4
        >>> ldp.Channel([[0.9, 0.1], [0.2, 0.8]]).krr_parameters() is None
        True
        """
        matrix = self._matrix
        size = matrix.shape[0]
        if matrix.shape[1] != size or size < 2:
            return None
        diag = np.diag(matrix)
        off = matrix[~np.eye(size, dtype=bool)]
        if (
            np.allclose(diag, diag[0], rtol=1e-12, atol=0)
            and np.allclose(off, off[0], rtol=1e-12, atol=0)
            and diag[0] > off[0]
        ):
            return int(size), self.epsilon
        return None

    def _dominating_pair(self) -> Channel:
        d, o = float(self._matrix[0, 0]), float(self._matrix[0, 1])
        if d == o or min(d, o) == 0.0:
            return Channel(self._pairs())  # no leak at all, or the identity: exact as is
        k = self.n_inputs
        big, small = max(d, o), min(d, o)
        high = math.nextafter(big * (1.0 + 8 * UNIT), math.inf)
        rest = math.nextafter((k - 2) * small * (1.0 - 8 * UNIT), 0.0)
        pair = Channel(np.array([[high, small, rest], [small, high, rest]]))
        # exact check: a stronger ratio and less ratio-one mass than the realised pair law
        # (then the realised pair is a garbling of ``pair``, and every profile is below)
        rows, sums = pair._exact_rows()
        a, b = rows[0][0] / sums[0], rows[0][1] / sums[0]
        total = Fraction(d) + (k - 1) * Fraction(o)
        big_exact, small_exact = Fraction(big) / total, Fraction(small) / total
        if a * small_exact >= big_exact * b and a + b >= big_exact + small_exact:
            return pair
        return self  # pragma: no cover - the margins above are hundreds of times the rounding

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Channel):
            return NotImplemented
        return self.shape == other.shape and bool(np.array_equal(self._matrix, other._matrix))

    def __hash__(self) -> int:
        return hash((self.shape, self._matrix.tobytes()))

    def __repr__(self) -> str:
        k, m = self.shape
        if k * m <= 64:
            body = np.array2string(self._matrix, precision=6, separator=", ", prefix="Channel(")
            return f"Channel({body})"
        return f"<Channel {k} inputs x {m} outputs, epsilon={self.epsilon:.6g}>"

    @property
    def matrix(self) -> np.ndarray:
        """The read-only row-stochastic matrix ``K[x, z]``."""
        return self._matrix

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_inputs, n_outputs)``."""
        return self._matrix.shape

    @property
    def n_inputs(self) -> int:
        """Size of the input alphabet."""
        return self._matrix.shape[0]

    @property
    def n_outputs(self) -> int:
        """Size of the output alphabet."""
        return self._matrix.shape[1]

    def _cached(self, key, compute):
        cache = self._cache
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    # ----------------------------------------------------------------- privacy
    @property
    def epsilon(self) -> float:
        """The tight pure-LDP epsilon: ``max_{x, x', z} log(K[x, z] / K[x', z])``, rounded up.

        Outputs that no input can produce are ignored; an output with positive probability
        under one input and zero under another makes ``epsilon = inf``. A single-row channel
        has ``epsilon = 0``. Computed exactly for the law :meth:`privatize` realises (each row
        divided by its exact sum, in rational arithmetic: ``ldp._exact``) and rounded up to the
        smallest double ``t`` with ``e^t`` at least the largest ratio, so that it is never
        below the exact value and a device computing it from the same matrix gets the same
        number.
        """
        return self._cached("epsilon", self._compute_epsilon)

    def _compute_epsilon(self) -> float:
        matrix = self._matrix
        if matrix.shape[0] == 1 or bool(np.all(matrix == matrix[0])):
            return 0.0  # one input, or every input with the same law
        pair = symmetric_pair(matrix)
        if pair is not None:  # k-RR: every row one d and k - 1 o's, so one exact sum
            d, o = float(pair[0, 0]), float(pair[0, 1])
            low, high = min(d, o), max(d, o)
            return math.inf if low == 0.0 else log_up(Fraction(high) / Fraction(low))
        return log_up(largest_likelihood_ratio(matrix))

    @property
    def tv(self) -> float:
        """The eta-TV level ``max_{x, x'} TV(K_x, K_x')`` (Dobrushin's coefficient)."""
        return self._cached("tv", lambda: self._outward(max_pairwise_tv(self._pairs())[0], True))

    def _pairs(self) -> np.ndarray:
        """The matrix the pairwise reductions run on: the two-row reduction of
        :func:`~ldp._pairwise.symmetric_pair` when every pair of rows looks alike (k-ary
        randomized response: ``O(1)`` instead of ``O(k^3)``), else the matrix itself."""

        def compute() -> np.ndarray:
            pair = symmetric_pair(self._matrix)
            return self._matrix if pair is None else pair

        return self._cached("pairs", compute)

    def _is_reduced(self) -> bool:
        return self._pairs() is not self._matrix

    def _row_sums(self) -> tuple[float, float]:
        """The smallest and largest row sum, correctly rounded."""

        def compute() -> tuple[float, float]:
            if self._is_reduced():
                total = float(sum(self._exact_rows()[0][0]))
                return total, total
            sums = [math.fsum(row) for row in self._matrix.tolist()]
            return min(sums), max(sums)

        return self._cached("sums", compute)

    def _outward(self, value: float, spread: bool) -> float:
        """A pairwise sum over the stored rows made an upper bound of the same sum over the
        law :meth:`privatize` realises (each row divided by its exact sum): allows for the
        rounding of the ``m`` terms and of the sums. ``spread``: also allow for rows whose
        sums differ (the hockey stick does so through :meth:`_gamma_low` instead)."""
        if value <= 0.0 and not spread:
            return 0.0
        low, high = self._row_sums()
        m = self.n_outputs
        widened = value * (1.0 + (m + 8) * UNIT) / (low * (1.0 - 2 * UNIT))
        if spread:
            widened += (high / low - 1.0) * (1.0 + 8 * UNIT)
        return min(1.0, widened)

    def _gamma_low(self, epsilon: float) -> float:
        """``e^eps`` rounded down and reduced by the spread of the row sums: a hockey stick
        at this gamma bounds the realised one from above."""
        if math.isinf(epsilon):
            return math.inf
        low, high = self._row_sums()
        return _exp(epsilon) * (1.0 - 8 * UNIT) * (low / high) * (1.0 - 4 * UNIT)

    def _delta_one(self, epsilon: float) -> float:
        if epsilon == 0.0:
            return self.tv
        if self.n_inputs == 1:
            return 0.0
        if epsilon >= self.epsilon and not math.isinf(epsilon):
            return 0.0  # the epsilon is an upper bound: nothing is left above it
        if math.isinf(epsilon):
            return self._cached("delta_inf", self._delta_at_infinity)
        k, m = self._pairs().shape
        if k * k * m <= self._EXACT_DELTA_WORK:
            return self._cached(("delta", epsilon), lambda: self._exact_delta(epsilon))
        return self._cached(
            ("delta", epsilon),
            lambda: self._outward(
                max_pairwise_hockey_stick(self._pairs(), self._gamma_low(epsilon))[0], False
            ),
        )

    #: Largest ``k^2 m`` whose delta profile is computed in exact rationals (tight to the
    #: rounding of ``e^eps`` only); larger channels widen a floating-point sum.
    _EXACT_DELTA_WORK = 1 << 12

    def _exact_hockey_stick(self, epsilon: float) -> Fraction:
        """``max_{x != x'} sum_z (K_x/S_x - g K_x'/S_x')_+`` with ``g <= e^eps`` (exact)."""
        rows, sums = self._exact_rows()
        gamma = _exp_lower(epsilon)
        k, m = len(rows), len(rows[0])
        best = Fraction(0)
        for i in range(k):
            for j in range(k):
                if i != j:
                    total = sum(
                        (
                            max(Fraction(0), rows[i][z] / sums[i] - gamma * rows[j][z] / sums[j])
                            for z in range(m)
                        ),
                        Fraction(0),
                    )
                    best = max(best, total)
        return best

    def _exact_delta(self, epsilon: float) -> float:
        best = self._exact_hockey_stick(epsilon)
        value = float(best)
        return value if Fraction(value) >= best else math.nextafter(value, math.inf)

    #: Largest ``k^2 m`` for which boundary cases are decided in exact rationals.
    _EXACT_WORK = 1 << 18

    def _exact_rows(self) -> tuple[list[list[Fraction]], list[Fraction]]:
        """The rows of ``_pairs`` in exact rationals, and their sums (for a reduced
        matrix, the merged column is ``(k - 2) o`` exactly, so the sums are those of the
        full rows)."""

        def compute():
            if self._is_reduced():
                k = self.n_inputs
                d, o = Fraction(float(self._matrix[0, 0])), Fraction(float(self._matrix[0, 1]))
                rows = [[d, o, (k - 2) * o], [o, d, (k - 2) * o]]
            else:
                rows = [[Fraction(v) for v in row] for row in self._matrix.tolist()]
            return rows, [sum(row, Fraction(0)) for row in rows]

        return self._cached("exact_rows", compute)

    def _at_most(self, epsilon: float, delta: float) -> bool:
        """Whether the realised ``delta(epsilon) <= delta``, never answering yes wrongly.

        The rounded-up profile decides when it is clear; a boundary case (a delta profile that
        plateaus exactly at the target, as with a disclosure mass) of a small channel is
        decided in exact rationals with ``e^eps`` rounded down."""
        if epsilon >= self.epsilon and not math.isinf(epsilon):
            return True
        if self._delta_one(epsilon) <= delta:
            return True
        k, m = self._pairs().shape
        if k * k * m > self._EXACT_WORK or math.isinf(epsilon):
            return False
        raw = max_pairwise_hockey_stick(self._pairs(), _exp(epsilon) * (1.0 + 8 * UNIT))[0]
        if raw > delta * (1.0 + 8 * UNIT) + 4 * UNIT:
            return False  # clearly above
        return self._exact_hockey_stick(epsilon) <= Fraction(delta)

    def _delta_at_infinity(self) -> float:
        """``max_{x, x'} P_x(K_x' = 0)``, in exact rationals for small channels (it decides
        whether a target delta is reachable at all, so a boundary case must not be lost to
        rounding), rounded up."""
        k, m = self._pairs().shape
        if k * k * m > 1 << 18:
            return self._outward(max_pairwise_hockey_stick(self._pairs(), math.inf)[0], False)
        rows, sums = self._exact_rows()
        zero = [[v == 0 for v in row] for row in rows]
        best = Fraction(0)
        for i in range(k):
            for j in range(k):
                if i != j:
                    mass = sum((rows[i][z] for z in range(m) if zero[j][z]), Fraction(0))
                    best = max(best, mass / sums[i])
        value = float(best)
        return value if Fraction(value) >= best else math.nextafter(value, math.inf)

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """The tight delta at level ``epsilon`` (the privacy profile).

        ``delta(eps) = max_{x != x'} sum_z (K[x, z] - e^eps K[x', z])_+``, the smallest delta
        for which the channel is ``(eps, delta)``-LDP (Asoodeh-Aliakbarpour-Calmon (2021),
        Theorem 1). It is non-increasing in ``eps``, equals ``tv`` at ``eps = 0``, vanishes for
        ``eps >= epsilon`` and tends to ``max_{x, x'} P(K_x' = 0 under K_x)`` as
        ``eps -> inf``.

        Parameters
        ----------
        epsilon : float or array_like
            Level(s) ``>= 0``; ``inf`` allowed.

        Returns
        -------
        float or ndarray
            Same shape as ``epsilon``.
        """
        eps, scalar = as_levels(epsilon, "epsilon", low=0.0)
        values = np.array([self._delta_one(float(e)) for e in eps.ravel()]).reshape(eps.shape)
        return scalar_or_array(values, scalar)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """The smallest ``eps >= 0`` with ``delta(eps) <= delta`` (``inf`` if none).

        Exact: the profile is a maximum of piecewise-linear functions of ``e^eps``, one per
        ordered pair of rows. Starting from ``eps = 0``, the pair attaining the maximum is
        solved exactly for its crossing, which strictly increases ``eps``; the iteration ends
        at the first level where no pair exceeds ``delta``, which is the answer.

        Parameters
        ----------
        delta : float or array_like
            Target(s) in ``[0, 1]``.

        Examples
        --------
        >>> from ldp import randomized_response
        >>> rr = randomized_response(2.0)
        >>> round(rr.epsilon_for_delta(0.0), 12)
        2.0
        >>> e1 = rr.epsilon_for_delta(0.1)
        >>> round(rr.delta(e1), 12)
        0.1
        """
        deltas, scalar = as_levels(delta, "delta", low=0.0, high=1.0)
        values = np.array([self._epsilon_for_delta_one(float(d)) for d in deltas.ravel()])
        return scalar_or_array(values.reshape(deltas.shape), scalar)

    def _epsilon_for_delta_one(self, delta: float) -> float:
        if self.n_inputs == 1 or delta >= self.tv:
            return 0.0
        if delta == 0.0:
            return self.epsilon
        if delta < self._delta_one(math.inf):
            return math.inf
        level, step = 0.0, 8 * UNIT
        for _ in range(4 * self.n_inputs**2 + 128):
            if level >= self.epsilon:
                return self.epsilon  # delta is 0 there
            pairs = self._pairs()
            raw, i, j = max_pairwise_hockey_stick(pairs, self._gamma_low(level))
            if self._outward(raw, False) <= delta or self._at_most(level, delta):
                return level
            crossing = _pair_epsilon_for_delta(pairs[i], pairs[j], delta)
            if crossing > level * (1.0 + step):
                level = crossing
            else:  # at the pair's own crossing the outward rounding is left: step over it
                level = level * (1.0 + step) + step
                step *= 2.0
        raise RuntimeError("epsilon_for_delta did not converge")  # pragma: no cover

    def is_ldp(self, epsilon: float, delta: float = 0.0, *, rtol: float = 1e-9) -> bool:
        """Whether the channel is ``(epsilon, delta)``-LDP, i.e. ``delta(epsilon) <= delta``.

        ``rtol`` absorbs the rounding of matrices built in floating point: the check is
        ``delta(epsilon + rtol * max(1, epsilon)) <= delta * (1 + rtol)``. Pass ``rtol=0``
        for the literal comparison.
        """
        eps = check_epsilon(epsilon)
        bound = check_scalar(delta, "delta", low=0.0, high=1.0)
        tol = check_scalar(rtol, "rtol", low=0.0)
        if tol == 0.0:
            return self._at_most(eps, bound)
        return self._delta_one(eps + tol * max(1.0, eps)) <= bound * (1.0 + tol)

    # ----------------------------------------------------------------- use
    def output_distribution(self, p: ArrayLike) -> float | np.ndarray:
        """The law of the output, ``p @ K``, for input distribution(s) ``p`` (last axis).

        Examples
        --------
        >>> from ldp import randomized_response
        >>> randomized_response(float("inf")).output_distribution([0.3, 0.7])
        array([0.3, 0.7])
        """
        prior = check_pmf(p, "p")
        if prior.shape[-1] != self.n_inputs:
            raise ValueError(
                f"p must have {self.n_inputs} entries (one per input), got {prior.shape[-1]}"
            )
        return np.clip(prior @ self._matrix, 0.0, 1.0)

    def _laws(self) -> list[ExactLaw]:
        """One exact sampler per row (built once, on first use)."""
        return self._cached("laws", lambda: [ExactLaw(row) for row in self._matrix.tolist()])

    def privatize(self, x: ArrayLike, *, rng: object = None) -> np.ndarray:
        """Draw one output index per input index in ``x`` (any shape).

        Each output is drawn with ``choose`` on its input's row: exact for
        every probability a double can hold, however small (the row's entries are compared as
        exact integers with the bytes of a uniform, read one at a time until they decide), so
        the realised law is ``K[x] / sum(K[x])`` itself. Users are grouped by input value, so
        the work is vectorised over users, not a Python loop per user.

        Parameters
        ----------
        x : array_like of int
            Input indices in ``0 .. n_inputs - 1``.
        rng : None, int, numpy.random.Generator or "os"
            Source of randomness. A seeded numpy generator is for simulation and
            reproducibility only (a server that can predict the noise can undo the
            privatization); on devices use ``"os"``, the operating system's CSPRNG.

        Returns
        -------
        ndarray of int64
            Output indices, same shape as ``x``.

        Examples
        --------
        >>> from ldp import k_rr
        >>> k_rr(3, 50.0).privatize([0, 1, 2, 2], rng=0)
        array([0, 1, 2, 2])
        """
        values = self._check_inputs(x)
        generator = check_random_state(rng)
        drawn = choose(generator, self._laws(), values.ravel())
        return drawn.reshape(values.shape)

    def _check_inputs(self, x: ArrayLike) -> np.ndarray:
        """The input indices ``x`` (private data: no message quotes a value)."""
        try:
            values = np.asarray(x)
        except (TypeError, ValueError):
            raise TypeError("x must be an array of input indices (rows of equal length)") from None
        if values.dtype.kind not in "iu":
            if (
                values.dtype.kind == "f"
                and np.all(np.isfinite(values))
                and np.all(values == np.round(values))
            ):
                values = values.astype(np.int64)
            else:
                raise TypeError(
                    f"x must contain integer input indices in [0, {self.n_inputs}), got dtype "
                    f"{values.dtype}"
                    + ("" if values.dtype.kind != "f" else " with non-integer or non-finite values")
                )
        if values.size:
            outside = (values < 0) | (values >= self.n_inputs)
            if np.any(outside):
                raise ValueError(
                    f"x must contain input indices in [0, {self.n_inputs}); "
                    f"{int(outside.sum())} of {values.size} entries do not"
                )
        return values.astype(np.int64, copy=False)

    # ----------------------------------------------------------------- building
    def then(self, post: Channel | ArrayLike) -> Channel:
        """Post-process the output by ``post``: the channel ``K @ post``.

        Post-processing never increases ``epsilon``, ``delta(eps)`` or ``tv``.

        Examples
        --------
        >>> from ldp import Channel, randomized_response
        >>> flip = Channel([[0.0, 1.0], [1.0, 0.0]])
        >>> randomized_response(1.0).then(flip) == randomized_response(1.0) @ flip
        True
        """
        other = post if isinstance(post, Channel) else Channel(post)
        if other.n_inputs != self.n_outputs:
            raise ValueError(
                f"post must have {self.n_outputs} inputs (one per output of this channel), "
                f"got {other.n_inputs}"
            )
        return Channel(np.clip(self._matrix @ other._matrix, 0.0, None))

    def __matmul__(self, other: Channel) -> Channel:
        if not isinstance(other, Channel):
            return NotImplemented
        return self.then(other)

    def product(self, other: Channel) -> Channel:
        """The channel of independent use of both: input ``(x1, x2)``, output ``(z1, z2)``.

        Input pair ``(x1, x2)`` is index ``x1 * other.n_inputs + x2`` and output ``(z1, z2)``
        is ``z1 * other.n_outputs + z2`` (``np.kron``). Epsilons add.

        Examples
        --------
        >>> from ldp import randomized_response
        >>> both = randomized_response(1.0).product(randomized_response(0.5))
        >>> both.shape, round(both.epsilon, 12)
        ((4, 4), 1.5)
        """
        if not isinstance(other, Channel):
            raise TypeError(f"other must be a Channel, got {type(other).__name__}")
        return Channel(np.kron(self._matrix, other._matrix))

    # ----------------------------------------------------------------- contraction
    def contraction(self, kind: str, **kwargs):
        """The exact contraction coefficient ``eta_kind(K)``; see :mod:`ldp.contraction`.

        Delegates to :func:`ldp.contraction.coefficient`, which owns the math. The result is
        float-like (``float(result)``) and carries the maximising inputs.
        """
        from ldp.contraction import coefficient

        return coefficient(self, kind, **kwargs)

    def contraction_bound(self, kind: str, **kwargs):
        """The best theorem bound on ``eta_kind(K)`` from this channel's epsilon, delta and tv.

        Delegates to :func:`ldp.contraction.best_bound` (``gamma=`` for ``"hockey_stick"``);
        the result names the theorem and lists every bound that applied.
        """
        from ldp.contraction import best_bound

        return best_bound(self, kind, **kwargs)
