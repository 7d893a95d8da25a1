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

For large channels the pairwise maxima use the channel's structure (distinct rows, merged
columns, rows that deviate from a common background in few entries: k-RR's tv at 4096 inputs
takes a second, not minutes); see :mod:`ldp._pairwise` and its ``MAX_PAIRWISE_WORK``.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._mechanism import Categories, Mechanism, ReportCodec, index_codec
from ldp._pairwise import max_pairwise_hockey_stick, max_pairwise_tv
from ldp._rounding import UNIT, log_ratio_upper_array
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

__all__ = ["Channel"]


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
        :data:`~ldp._validation.PMF_TOLERANCE` (``1e-9``). Rows are divided by their sums,
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
    :mod:`ldp._sampling`), and :attr:`epsilon` is computed for that law and rounded up, so it
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
        digest = hashlib.sha256(np.ascontiguousarray(self._matrix).tobytes()).hexdigest()
        return f"Channel({self.n_inputs}x{self.n_outputs}, {digest[:16]})"

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
        return self._matrix.shape  # type: ignore[return-value]

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
        has ``epsilon = 0``. Computed for the law :meth:`privatize` realises (each row divided
        by its exact sum) from column maxima and minima in log space, so ratios of tiny
        probabilities (``1e-300``) neither overflow nor lose precision, and rounded up by a
        few units in the last place so that it is never below the exact value.
        """
        return self._cached("epsilon", self._compute_epsilon)

    def _compute_epsilon(self) -> float:
        matrix = self._matrix
        if matrix.shape[0] == 1 or bool(np.all(matrix == matrix[0])):
            return 0.0  # one input, or every input with the same law
        top = matrix.max(axis=0)
        bottom = matrix.min(axis=0)
        used = top > 0
        if np.any(bottom[used] == 0):
            return math.inf
        value = float(np.max(log_ratio_upper_array(top[used], bottom[used])))
        # privatize realises row / sum(row) exactly: allow for rows whose sums differ (each
        # math.fsum is within half a unit of the exact sum)
        sums = [math.fsum(row) for row in matrix.tolist()]
        spread = float(log_ratio_upper_array(np.array(max(sums)), np.array(min(sums))))
        return value + spread + 4.0 * UNIT

    @property
    def tv(self) -> float:
        """The eta-TV level ``max_{x, x'} TV(K_x, K_x')`` (Dobrushin's coefficient)."""
        return self._cached("tv", lambda: max_pairwise_tv(self._matrix)[0])

    def _delta_one(self, epsilon: float) -> float:
        if epsilon == 0.0:
            return self.tv
        if self.n_inputs == 1:
            return 0.0
        if epsilon >= self.epsilon and not math.isinf(epsilon):
            return 0.0
        gamma = math.inf if math.isinf(epsilon) else _exp(epsilon)
        return self._cached(
            ("delta", epsilon), lambda: max_pairwise_hockey_stick(self._matrix, gamma)[0]
        )

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """The tight delta at level ``epsilon`` (the privacy profile).

        ``delta(eps) = max_{x != x'} sum_z (K[x, z] - e^eps K[x', z])_+``, the smallest delta
        for which the channel is ``(eps, delta)``-LDP (Asoodeh-Aliakbarpour-Calmon (2021),
        Theorem 1). It is
        non-increasing in ``eps``, equals ``tv`` at ``eps = 0``, vanishes for
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
        level = 0.0
        for _ in range(4 * self.n_inputs**2 + 64):
            value, i, j = max_pairwise_hockey_stick(self._matrix, _exp(level))
            if value <= delta:
                return level
            crossing = _pair_epsilon_for_delta(self._matrix[i], self._matrix[j], delta)
            # rounding can leave the maximising pair a hair above delta at its own crossing
            level = max(crossing, level + 8 * math.ulp(max(level, 1.0)))
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

    def privatize(self, x: ArrayLike, rng: object = None) -> np.ndarray:
        """Draw one output index per input index in ``x`` (any shape).

        Each output is drawn with :func:`ldp._sampling.choose` on its input's row: exact for
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
