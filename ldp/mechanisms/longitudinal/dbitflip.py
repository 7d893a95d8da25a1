"""dBitFlipPM (Ding-Kulkarni-Yekhanin (2017)): sampled buckets, memoized per pattern.

See ``ldp.mechanisms.longitudinal`` for the rounds, the memo and the accounting protocol.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ldp._rounding import round_up
from ldp._sampling import ExactLaw, choose, randint
from ldp._validation import (
    as_real_array,
    check_integer,
    compact,
    scalar_or_array,
)
from ldp.channel import Channel
from ldp.core import Field, ReportCodec
from ldp.mechanisms.base import FrequencyMechanism, SupportCounts
from ldp.mechanisms.limits import (
    MAX_VECTOR_CATEGORIES,
    check_categories,
    check_convention,
    check_mechanism_epsilon,
    check_n,
)
from ldp.mechanisms.longitudinal.lgrr import (
    MAX_CHANNEL_ENTRIES,
    MemoizedMechanism,
    law_pair,
    log_ratio_of_products,
)
from ldp.mechanisms.longitudinal.memo import Memo
from ldp.mechanisms.worst_pair import pair_channel

__all__ = ["DBitFlipPM"]


# ----------------------------------------------------------------------------- dBitFlipPM
class DBitFlipPM(MemoizedMechanism, FrequencyMechanism):
    """dBitFlipPM (Ding-Kulkarni-Yekhanin (2017)): ``d`` sampled buckets, memoized bits.

    The domain ``0 .. k - 1`` is cut into ``b`` buckets (``bucket(v) = floor(v b / k)``).
    Each client samples ``d`` distinct buckets ``j_1 < ... < j_d`` once (kept in its memo and
    sent with every report, so that the server knows which buckets a report speaks about)
    and reports one bit per sampled bucket: 1 with probability ``e^h/(e^h + 1)`` if its
    value's bucket is ``j_i``, else ``1/(e^h + 1)``. Two values in different buckets change
    two reported bits when both buckets are sampled, so ``h = eps/2`` for ``d >= 2``; with
    ``d = 1`` at most one reported bit differs, and ``h = eps`` spends exactly ``epsilon``
    (the paper's ``eps/2`` would deliver ``eps/2`` at twice the variance). The bits depend
    on the value only through the pattern (which sampled bucket, if any, holds it); one
    response is drawn per pattern and memoized, so at most ``min(d + 1, b)`` distinct
    responses exist.

    One report is exactly ``epsilon``-LDP, and so is any number of reports of an unchanged
    value (they are identical). A history that visits ``m`` patterns leaks at most
    ``m * epsilon`` against another history whose patterns (for the client's sampled
    buckets) are equal at the same rounds (:meth:`epsilon_rounds`:
    ``min(changes + 1, d + 1, b, rounds) * epsilon``: basic composition over the memoized
    responses, checked against enumeration in the tests). The rounds
    at which the response changes are visible, so two histories whose patterns change at
    different rounds are not indistinguishable for any finite epsilon:
    :meth:`epsilon_any_history` is ``inf`` beyond one report.

    Parameters
    ----------
    k : int
        Number of categories.
    epsilon : float
        Level of one report.
    b : int, optional
        Number of buckets, ``2 <= b <= k`` (default ``k``).
    d : int
        Sampled buckets per client, ``1 <= d <= b``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import DBitFlipPM
    >>> mech = DBitFlipPM(16, 1.0, b=16, d=4)
    >>> round(mech.epsilon_rounds(365, changes=10), 9)   # min(11, d + 1 = 5) * epsilon
    5.0
    >>> coarse = DBitFlipPM(16, 1.0, b=4, d=2)   # four buckets of four values
    >>> reports = coarse.privatize(np.arange(16).repeat(2000), rng=0)
    >>> bool(np.abs(coarse.estimate(reports) - 0.25).max() < 0.05)
    True
    """

    name = "dbitflip-pm"

    def __init__(self, k: int, epsilon: float, b: int | None = None, d: int = 1) -> None:
        self._k = check_integer(k, "k", low=2)
        self._eps_budget = check_mechanism_epsilon(epsilon)
        self._b = self._k if b is None else check_integer(b, "b", low=2)
        if self._b > self._k:
            raise ValueError(f"b must be <= k = {self._k}, got {self._b}")
        if self._b > MAX_VECTOR_CATEGORIES:
            raise ValueError(f"b must be <= {compact(MAX_VECTOR_CATEGORIES)}, got {self._b}")
        self._d = check_integer(d, "d", low=1)
        if self._d > self._b:
            raise ValueError(f"d must be <= b = {self._b}, got {self._d}")
        # per-bit odds e^h: h = eps / 2 when two reported bits can differ (d >= 2), h = eps
        # when only one can (d = 1)
        odds = math.exp(self._eps_budget if self._d == 1 else self._eps_budget / 2)
        self._own, self._other = ExactLaw([odds, 1.0]), ExactLaw([1.0, odds])
        self._P, self._Pc = law_pair(self._own)
        self._Q, self._Qc = law_pair(self._other)

    @property
    def k(self) -> int:
        return self._k

    @property
    def b(self) -> int:
        """Number of buckets."""
        return self._b

    @property
    def d(self) -> int:
        """Buckets sampled per client."""
        return self._d

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "b": self._b, "d": self._d}

    def __repr__(self) -> str:
        return self.key

    def bucket(self, values: ArrayLike) -> np.ndarray:
        """``floor(v b / k)`` of each value."""
        x = check_categories(values, self._k)
        return (x * self._b) // self._k

    # privacy ---------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        """The exact level of one report: ``log(P (1 - Q) / ((1 - P) Q))`` when the buckets
        of two values can both be sampled (``d >= 2``), ``log(P / Q)`` for ``d = 1`` (the
        bits are symmetric: ``P / Q = (1 - Q) / (1 - P)``)."""
        if self._d == 1:
            return log_ratio_of_products([self._P], [self._Q])
        return log_ratio_of_products([self._P, self._Qc], [self._Pc, self._Q])

    @property
    def epsilon_permanent(self) -> float:
        """One response per pattern: the level of one report."""
        return self.epsilon

    @property
    def epsilon_instant(self) -> float:
        """No instantaneous noise: a memoized response is sent as it is (``inf``)."""
        return math.inf

    def _epsilon_repeated(self, t: int) -> float:
        return self.epsilon

    def epsilon_rounds(self, rounds: int, changes: int = 0) -> float:
        """``min(changes + 1, d + 1, b, rounds) * epsilon``: at most that many patterns,
        one independent response each, between histories that change pattern at the same
        rounds (see the class notes)."""
        t = check_integer(rounds, "rounds", low=1)
        c = check_integer(changes, "changes", low=0)
        return round_up(min(c + 1, self._d + 1, self._b, t) * self.epsilon, 2)

    def epsilon_any_history(self, rounds: int) -> float:
        """``epsilon`` for one report; ``inf`` for more (when a response changes shows)."""
        t = check_integer(rounds, "rounds", low=1)
        return self.epsilon if t == 1 else math.inf

    @property
    def _max_groups(self) -> int:
        return min(self._d + 1, self._b)

    # rounds ----------------------------------------------------------------
    @property
    def _response_width(self) -> int:
        return self._d

    def _response_ok(self, response: tuple[int, ...]) -> bool:
        return len(response) == self._d and all(v in (0, 1) for v in response)

    def _prepare(self, memos: list[Memo], gen: object) -> list[Memo]:
        fresh = [i for i, m in enumerate(memos) if not m.sampled]
        for i, memo in enumerate(memos):
            s = memo.sampled
            if s and not (
                len(s) == self._d
                and all(a < c for a, c in itertools.pairwise(s))
                and s[-1] < self._b
            ):
                raise ValueError(f"memos[{i}] holds sampled buckets this mechanism cannot draw")
        if fresh:
            chosen = np.zeros((len(fresh), 0), dtype=np.int64)
            for step in range(self._d):
                r = randint(gen, self._b - step, len(fresh))
                # the r-th bucket not chosen yet
                for column in np.sort(chosen, axis=1).T:
                    r = r + (r >= column)
                chosen = np.column_stack([chosen, r])
            chosen.sort(axis=1)
            memos = list(memos)
            for row, i in enumerate(fresh):
                memos[i] = memos[i].with_sampled(tuple(chosen[row].tolist()))
        return memos

    def _memo_keys(self, x: np.ndarray, memos: Sequence[Memo]) -> np.ndarray:
        sampled = np.array([m.sampled for m in memos], dtype=np.int64).reshape(-1, self._d)
        hit = sampled == ((x * self._b) // self._k)[:, None]
        return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 0)

    def _draw_permanent(self, x: np.ndarray, keys: np.ndarray, gen: object) -> np.ndarray:
        own = (np.arange(1, self._d + 1)[None, :] == keys[:, None]).ravel().astype(np.int64)
        bits = choose(gen, [self._other, self._own], own) == 0
        return bits.reshape(-1, self._d).astype(np.int64)

    def _instant(self, permanent: np.ndarray, memos: Sequence[Memo], gen: object) -> np.ndarray:
        sampled = np.array([m.sampled for m in memos], dtype=np.int64).reshape(-1, self._d)
        return np.column_stack([sampled, permanent]).astype(np.int64)

    # reports -----------------------------------------------------------------
    @property
    def codec(self) -> ReportCodec:
        fields = tuple(Field(f"bucket_{i}", "int", 0, self._b - 1) for i in range(self._d))
        fields += tuple(Field(f"bit_{i}", "int", 0, 1) for i in range(self._d))
        d = self._d

        def check(reports: np.ndarray, where) -> None:
            if d > 1:
                bad = np.any(np.diff(reports[:, :d], axis=1) <= 0, axis=1)
                if np.any(bad):
                    raise ValueError(
                        f"{where(int(np.argmax(bad)))}: the report's buckets are not distinct "
                        "and increasing (not a report of this mechanism)"
                    )

        return ReportCodec(fields, "int64", vector=True, check=check)

    def sampler(self) -> dict[str, object]:
        """``own``/``other``: weights ``1 : 0`` of the bit of the value's bucket / of another
        sampled bucket (``e^h : 1`` and ``1 : e^h``, ``h = eps/2``, or ``h = eps`` when
        ``d = 1``); ``b``, ``d``: buckets sampled uniformly without replacement."""
        return {
            "own": list(self._own.weights),
            "other": list(self._other.weights),
            "buckets": self._b,
            "sampled": self._d,
        }

    @property
    def report_bits(self) -> float:
        return math.log2(math.comb(self._b, self._d)) + self._d

    # decoding -----------------------------------------------------------------
    @property
    def statistic_size(self) -> int:
        """``2 b``: per bucket, the ones reported and the clients that sampled it."""
        return 2 * self._b

    @property
    def statistic_entries(self) -> int:
        return 2 * self._b

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        buckets, bits = reports[:, : self._d].ravel(), reports[:, self._d :].ravel()
        ones = np.bincount(buckets, weights=bits, minlength=self._b).astype(np.int64)
        sampled = np.bincount(buckets, minlength=self._b).astype(np.int64)
        return np.concatenate([ones, sampled]), reports.shape[0]

    def estimate(self, reports_or_counts: ArrayLike | SupportCounts) -> np.ndarray:
        """Unbiased bucket frequencies ``(b/(n d)) (ones_j - Q sampled_j)/(P - Q)``, one per
        bucket (per value when ``b = k``)."""
        counts = self.counts_of(reports_or_counts)
        if counts.n == 0:
            raise ValueError("cannot estimate frequencies from zero reports")
        ones, sampled = counts.counts[: self._b], counts.counts[self._b :]
        scale = self._b / (counts.n * self._d * (self._P - self._Q))
        return scale * (ones - self._Q * sampled)

    def _second_moments(self) -> tuple[float, float]:
        gap2 = (self._P - self._Q) ** 2
        ratio = self._b / self._d
        own = ratio * (self._P * self._Qc**2 + self._Pc * self._Q**2) / gap2
        other = ratio * self._Q * self._Qc / gap2
        return own, other

    def diagonal_moments(self, f: np.ndarray) -> tuple[np.ndarray, int]:
        """``E[Y_j^2] = Var_fixed(f_j) + f_j`` for one report (the contributions of two
        buckets have zero cross moment), rank ``b``."""
        return np.asarray(self.variance(1, f, convention="fixed")) + f, self.b

    def variance(
        self, n: int, f: ArrayLike | None = None, convention: str = "fixed"
    ) -> float | np.ndarray:
        """Exact variance of the estimate of a bucket of frequency ``f`` (``None``: 0).

        A client contributes ``Y = (b/d) 1[j sampled] (bit - Q)/(P - Q)`` (mean 1 if its
        value is in bucket ``j``, else 0); ``fixed``: ``(f (m_own - 1) + (1 - f) m_other)/n`` with
        ``m_own, m_other`` the second moments of ``Y``; ``iid`` adds ``f (1 - f)/n``.
        """
        users = check_n(n)
        conv = check_convention(convention)
        if f is None:
            freq, scalar = np.zeros(()), True
        else:
            freq = as_real_array(f, "f")
            if np.any(freq < 0) or np.any(freq > 1):
                raise ValueError("f must be frequencies in [0, 1]")
            scalar = freq.ndim == 0
        own, other = self._second_moments()
        out = (freq * (own - 1.0) + (1.0 - freq) * other) / users
        if conv == "iid":
            out = out + freq * (1.0 - freq) / users
        return scalar_or_array(out, scalar)

    @property
    def estimate_size(self) -> int:
        """The estimate has one entry per bucket."""
        return self._b

    def _moment_matrix(self, f: np.ndarray) -> np.ndarray:
        """``E[Y_j Y_l | x] = 0`` for buckets ``j != l``: the two bits are independent given
        that both are sampled and at most one is ``x``'s bucket, whose centred bit has mean
        ``P - Q`` while the other's has mean 0. The diagonal is ``f m_own + (1 - f) m_other``
        (see :meth:`variance`)."""
        own, other = self._second_moments()
        return np.diag(f * own + (1.0 - f) * other)

    # channels -----------------------------------------------------------------
    def _pattern_probabilities(self) -> tuple[float, float, float]:
        """P(both buckets sampled), P(a given one only), P(neither)."""
        b, d = self._b, self._d
        pairs = b * (b - 1)
        return d * (d - 1) / pairs, d * (b - d) / pairs, (b - d) * (b - d - 1) / pairs

    def _repeated_channel(self, t: int) -> Channel:
        """Repeated reports of an unchanged value are identical: the one-report pair."""
        return self.privacy_channel()

    def privacy_channel(self) -> Channel:
        """Two values in different buckets ``a, b``: whether each is sampled, and its bit."""
        both, only, neither = self._pattern_probabilities()
        P, Pc, Q, Qc = self._P, self._Pc, self._Q, self._Qc
        first = [both * v for v in (P * Q, P * Qc, Pc * Q, Pc * Qc)]
        second = [both * v for v in (Q * P, Q * Pc, Qc * P, Qc * Pc)]
        first += [only * P, only * Pc, only * Q, only * Qc, neither]
        second += [only * Q, only * Qc, only * P, only * Pc, neither]
        return pair_channel(first, second)

    def audit_statistic(self, x0: object, x1: object):
        """The class of the report for the pair (see :meth:`privacy_channel`)."""
        a, c = (int(v) * self._b // self._k for v in (x0, x1))  # type: ignore[call-overload]
        d = self._d

        def statistic(reports: np.ndarray) -> np.ndarray:
            reports = np.asarray(reports)
            js, bits = reports[:, :d], reports[:, d:]
            in_a, in_c = js == a, js == c
            has_a, has_c = in_a.any(axis=1), in_c.any(axis=1)
            bit_a = (bits * in_a).sum(axis=1)
            bit_c = (bits * in_c).sum(axis=1)
            return np.where(
                has_a & has_c,
                2 * (1 - bit_a) + (1 - bit_c),
                np.where(has_a, 5 - bit_a, np.where(has_c, 7 - bit_c, 8)),
            ).astype(np.int64)

        if a == c:  # same bucket: the two values have one law
            return lambda reports: np.zeros(np.asarray(reports).shape[0], dtype=np.int64)
        return statistic

    def to_channel(self) -> Channel:
        """The one-report channel: rows values, columns (sampled buckets, bits)."""
        subsets = math.comb(self._b, self._d)
        if self._k * subsets * 2**self._d > MAX_CHANNEL_ENTRIES:
            raise ValueError(f"{self.name}.to_channel: the channel is too large")
        patterns = np.array(list(itertools.product((1, 0), repeat=self._d)))  # (2^d, d)
        buckets = (np.arange(self._k) * self._b) // self._k
        columns = []
        for subset in itertools.combinations(range(self._b), self._d):
            own = np.array(subset)[None, :] == buckets[:, None]  # (k, d)
            p1 = np.where(own, self._P, self._Q)
            p0 = np.where(own, self._Pc, self._Qc)
            prob = np.prod(
                np.where(patterns[None, :, :] == 1, p1[:, None, :], p0[:, None, :]), axis=2
            )
            columns.append(prob / subsets)
        return Channel(np.concatenate(columns, axis=1))
