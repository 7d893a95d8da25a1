"""Hadamard response: report a row of the Hadamard matrix."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import (
    certified_epsilon,
    exp_down,
)
from ldp._sampling import STREAM_DRAWS, ExactLaw, choose_streamed, randint_into
from ldp._validation import check_random_state
from ldp.channel import Channel
from ldp.core import ReportCodec, index_codec
from ldp.mechanisms._hashing import fwht, parity
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.categorical._common import check_channel_size, scatter_rows
from ldp.mechanisms.limits import check_categories, chunk_rows, index_dtype
from ldp.mechanisms.worst_pair import pair_channel

__all__ = ["HadamardResponse"]


# --------------------------------------------------------------------------- Hadamard
class HadamardResponse(FrequencyOracle):
    """Hadamard response, high-privacy version (Acharya, Sun, Zhang, AISTATS 2019).

    With ``K = 2^ceil(log2(k + 1))``, value ``x`` owns the half
    ``C_x = {y : H_K[x + 1, y] = +1}`` of ``[K]`` (row 0 of the Sylvester matrix is skipped).
    The report ``y`` is uniform on ``C_x`` with probability ``e^eps / (e^eps + 1)`` and
    uniform on its complement otherwise: ``Q(y|x) = 2 e^eps / (K (1 + e^eps))`` on ``C_x``
    and ``2 / (K (1 + e^eps))`` off it (``e^eps`` the largest double at most ``e^eps``). Since
    ``|C_x n C_x'| = K/4``, ``p = e^eps/(e^eps+1)`` and ``q = 1/2``. Decoding is one histogram
    and one fast Walsh-Hadamard transform, ``O(n + K log K)``.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import HadamardResponse
    >>> hr = HadamardResponse(5, 1.0)
    >>> hr.K, round(hr.to_channel().epsilon, 12)
    (8, 1.0)
    >>> reports = hr.privatize(np.array([0, 1, 2, 3, 4] * 4000), rng=2)
    >>> bool(np.abs(hr.estimate(reports) - 0.2).max() < 0.05)
    True
    """

    name = "HR"

    def __init__(self, k: int, epsilon: float) -> None:
        super().__init__(k, epsilon)
        self._K = 1 << (self._k).bit_length()  # smallest power of two > k
        self._odds = exp_down(self._eps_budget)
        self._law = ExactLaw([self._odds, 1.0])  # inside C_x : outside
        self._p, self._outside = self._odds / (self._odds + 1.0), 1.0 / (self._odds + 1.0)

    @property
    def K(self) -> int:
        """Size of the output alphabet."""
        return self._K

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return 0.5

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._odds, self._eps_budget)

    @property
    def report_bits(self) -> float:
        return math.log2(self._K)

    @property
    def work_per_report(self) -> float:
        """A coin and an index."""
        return 2.0

    def simulate_support_counts(self, n_x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The users of each value split by a binomial between the ``K/2`` outputs that
        support it and the others, each half uniform (a multinomial)."""
        big = self._K
        inside = gen.binomial(n_x, self.p)
        half = np.full(big // 2, 2.0 / big)
        histogram = np.zeros(big, dtype=np.int64)
        outputs = np.arange(big)
        for rows in chunk_rows(self.k, big):
            x = np.arange(rows.start, rows.stop)
            mask = parity((x[:, None] + 1) & outputs[None, :]) == 0
            histogram += scatter_rows(gen.multinomial(inside[rows], half), mask).sum(axis=0)
            outside = n_x[rows] - inside[rows]
            histogram += scatter_rows(gen.multinomial(outside, half), ~mask).sum(axis=0)
        return self.histogram_counts(histogram)

    @property
    def codec(self) -> ReportCodec:
        return index_codec(self._K, np.dtype(index_dtype(self._K)).name)

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of a report in ``C_x`` against its complement; ``K``."""
        return {"keep": list(self._law.weights), "K": self._K}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        n = x.size
        outside = choose_streamed(gen, self._law, n)  # 0: inside C_x, 1: outside
        y = np.empty(n, dtype=index_dtype(self._K))
        randint_into(gen, self._K, y)
        # y is uniform on [K]; flipping the lowest set bit of row maps C_x onto its
        # complement, so conditioning on the wanted half keeps y uniform on it (in blocks
        # of users, in place: the temporaries stay a fraction of the report)
        for start in range(0, n, STREAM_DRAWS):
            block = slice(start, min(start + STREAM_DRAWS, n))
            row = x[block] + 1
            wrong = parity(row & y[block]) != outside[block]
            y[block] ^= np.where(wrong, row & -row, 0).astype(y.dtype)
        return y

    def histogram_counts(self, histogram: np.ndarray) -> np.ndarray:
        """Support counts ``C_x = (n + (H_K h)[x + 1]) / 2`` from the output histogram."""
        transformed = fwht(histogram.astype(np.int64))
        return (int(histogram.sum()) + transformed[1 : self._k + 1]) // 2

    @property
    def statistic_entries(self) -> int:
        """The decoder's largest array: the histogram of the ``K`` outputs."""
        return self._K

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return self.histogram_counts(np.bincount(reports, minlength=self._K)), reports.size

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        counts = np.zeros(values.size, dtype=np.int64)
        y = reports.astype(np.int64)
        for rows in chunk_rows(y.size, max(1, values.size)):
            inside = parity((values[None, :] + 1) & y[rows, None]) == 0
            counts += inside.sum(axis=0)
        return counts

    def _pair_support(self) -> tuple[float, float]:
        """``|C_u n C_v| = K/4``: ``p/2`` when ``x`` is ``u`` or ``v``; ``|C_u n C_v n C_x| =
        K/8`` for independent rows, so ``1/4`` otherwise (see ``_joint_support``)."""
        return self._p / 2, 0.25

    def pair_moments(self, f: np.ndarray) -> tuple[float, float, np.ndarray | float, bool]:
        """The pair support, and ``(p - q)/2`` times ``xor_row_sums(f, K)``."""
        r1, r2 = self._pair_support()
        return r1, r2, (self.p - self.q) / 2 * xor_row_sums(f, self._K), False

    @property
    def constant_pair_support(self) -> bool:
        """``False``: ``u, v`` and the value of row ``(u + 1) ^ (v + 1)`` are dependent."""
        return False

    def _joint_support(self, f: np.ndarray) -> np.ndarray:
        """Rows ``u + 1, v + 1`` and their XOR ``x + 1`` are dependent: ``C_u n C_v`` lies in
        ``C_x``, so ``P(S_u = S_v = 1 | x) = p/2`` there instead of ``1/4``."""
        joint = super()._joint_support(f)
        rows = np.arange(1, self._k + 1)
        third = (rows[:, None] ^ rows[None, :]) - 1  # the value x with row u ^ row v
        inside = (third >= 0) & (third < self._k)
        mass = np.where(inside, f[np.clip(third, 0, self._k - 1)], 0.0)
        return joint + (self._p / 2 - 0.25) * mass

    def privacy_channel(self) -> Channel:
        """Is the report in ``C_x`` and in ``C_x'`` (each class has ``K/4`` outputs)."""
        p, q = self._p, self._outside
        return pair_channel([p / 2, p / 2, q / 2, q / 2], [p / 2, q / 2, p / 2, q / 2])

    def audit_statistic(self, x0: Any, x1: Any):
        """``2 [y in C_x0] + [y in C_x1]``: sufficient for the pair."""
        a, b = int(x0) + 1, int(x1) + 1

        def statistic(reports: np.ndarray) -> np.ndarray:
            y = np.asarray(reports, dtype=np.int64)
            return 2 * (parity(a & y) == 0).astype(np.int64) + (parity(b & y) == 0)

        return statistic

    def to_channel(self) -> Channel:
        check_channel_size(math.log2(self._k) + math.log2(self._K), "HadamardResponse")
        rows = np.arange(1, self._k + 1)[:, None]
        inside = parity(rows & np.arange(self._K)[None, :]) == 0
        return Channel(np.where(inside, 2 * self._p, 2 * self._outside) / self._K)


def xor_row_sums(f: np.ndarray, size: int) -> np.ndarray:
    """``sum over v != u of f[((u + 1) XOR (v + 1)) - 1]`` (zero outside ``0 .. k - 1``) for
    every ``u``: an XOR correlation of the indicator of the rows ``1 .. k`` with ``f``."""
    k = f.size
    rows = np.zeros(size)
    rows[1 : k + 1] = 1.0
    spread = np.zeros(size)
    spread[1 : k + 1] = f
    correlation = fwht(fwht(rows) * fwht(spread)) / size
    return np.maximum(correlation[1 : k + 1], 0.0)
