"""Generalized randomized response (k-ary randomized response) as a frequency oracle."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import (
    certified_epsilon,
    exp_down,
)
from ldp._sampling import (
    ExactLaw,
    choose,
    randint,
)
from ldp._validation import check_random_state
from ldp._words import WORD_CHUNK, WordCoin, below, draw_below, half_bits, halves
from ldp.channel import Channel
from ldp.core import ReportCodec, index_codec
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.categorical._common import check_channel_size, scatter_rows
from ldp.mechanisms.limits import check_categories, chunk_rows, index_dtype
from ldp.mechanisms.worst_pair import pair_channel

__all__ = ["GRR"]


# --------------------------------------------------------------------------- GRR
class GRR(FrequencyOracle):
    """Generalized randomized response (k-RR, direct encoding).

    Keep the value with probability ``p = e^eps / (e^eps + k - 1)``, otherwise report one of
    the ``k - 1`` other values uniformly (``q = 1 / (e^eps + k - 1)`` each), with ``e^eps``
    the largest double at most ``e^eps`` (the ratio ``p / q`` it samples is at most
    ``e^eps`` exactly). The report is the value itself, so ``C_v`` is the histogram of
    reports. Its matrix is :func:`~ldp.mechanisms.k_rr` up to that rounding.

    Parameters
    ----------
    k : int
        Number of categories, ``k >= 2``.
    epsilon : float
        Privacy level, ``> 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> grr = GRR(4, 1.0)
    >>> reports = grr.privatize(np.array([0, 1, 1, 3] * 2500), rng=1)
    >>> bool(np.abs(grr.estimate(reports) - [0.25, 0.5, 0.0, 0.25]).max() < 0.05)
    True
    >>> grr.epsilon, round(grr.to_channel().epsilon, 12)   # the level asked for, exactly
    (1.0, 1.0)
    """

    name = "GRR"

    #: the report is the (randomized) answer itself
    report_is_answer = True

    def __init__(self, k: int, epsilon: float) -> None:
        super().__init__(k, epsilon)
        self._odds = exp_down(self._eps_budget)  # P(keep) / P(one given other value)
        self._law = ExactLaw([self._odds, float(self._k - 1)])  # keep : change
        total = self._odds + (self._k - 1)
        self._p, self._q = self._odds / total, 1.0 / total
        odds = Fraction(self._odds)
        self._bits = half_bits(self._k - 1)
        self._keep_coin = WordCoin(odds / (odds + (self._k - 1)), self._bits)  # P(keep)

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return self._q

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._odds, self._eps_budget)

    @property
    def report_bits(self) -> float:
        return math.log2(self._k)

    @property
    def work_per_report(self) -> float:
        """A coin and an index."""
        return 2.0

    def pair_moments(self, f: np.ndarray) -> tuple[float, float, np.ndarray | float, bool]:
        """A report is one value: ``(0, 0, 0, True)``."""
        return 0.0, 0.0, 0.0, True

    def pair_covariance(self) -> tuple[float, float]:
        """One supported value per report: ``(-q^2, -p q)``."""
        return -self.q * self.q, -self.p * self.q

    def simulate_support_counts(self, n_x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """Kept users by a binomial per value, the others spread by a multinomial."""
        k = self._k
        kept = gen.binomial(n_x, self.p)
        counts = kept.copy()
        moved = n_x - kept
        others = np.full(k - 1, 1.0 / (k - 1))
        columns = np.arange(k)
        for rows in chunk_rows(k, k):
            drawn = gen.multinomial(moved[rows], others)
            mask = columns[None, :] != np.arange(rows.start, rows.stop)[:, None]
            counts += scatter_rows(drawn, mask).sum(axis=0)
        return counts

    @property
    def codec(self) -> ReportCodec:
        return index_codec(self._k, np.dtype(index_dtype(self._k)).name)

    def sampler(self) -> dict[str, object]:
        """``keep``: the weights of keeping ``x`` and of reporting another value."""
        return {"keep": list(self._law.weights)}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        if isinstance(gen, np.random.Generator) and self._k - 1 <= 1 << 32:
            return self._privatize_words(x, gen)
        change = choose(gen, [self._law], np.zeros(x.size, dtype=np.int64)) == 1
        out = x.astype(index_dtype(self._k))
        moved = x[change]
        other = randint(gen, self._k - 1, moved.size)
        out[change] = other + (other >= moved)
        return out

    def _privatize_words(self, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The simulation path (``ldp._words``): one word per user, its halves deciding the
        coin (``P(keep)`` exactly, as ``choose`` of the law) and the other value (uniform on
        the ``k - 1`` others, as ``randint``), chunk by chunk; the same law as the byte
        protocol, drawn in another order."""
        out = np.empty(x.size, dtype=index_dtype(self._k))
        bound, bits = self._k - 1, self._bits
        for start in range(0, x.size, WORD_CHUNK):
            xs = x[start : start + WORD_CHUNK]
            coin_half, index_half = halves(gen, xs.size, bits)
            keep, tied = self._keep_coin.decide(coin_half)
            other, rejected = below(index_half, bound, bits)
            if tied.any():
                at = np.flatnonzero(tied)
                keep[at] = self._keep_coin.resolve(gen, at.size)
            if rejected.any():
                at = np.flatnonzero(rejected)
                other[at] = draw_below(gen, bound, at.size, bits)
            other += other >= xs
            np.copyto(other, xs, where=keep, casting="unsafe")
            out[start : start + xs.size] = other
        return out

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return np.bincount(reports, minlength=self._k).astype(np.int64), reports.size

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        distinct, inverse = np.unique(values, return_inverse=True)
        at = np.searchsorted(distinct, reports).clip(max=max(distinct.size - 1, 0))
        hit = distinct[at] == reports if distinct.size else np.zeros(reports.size, bool)
        return np.bincount(at[hit], minlength=distinct.size).astype(np.int64)[inverse]

    def _pair_support(self) -> tuple[float, float]:
        """A report supports one value: never two at once."""
        return 0.0, 0.0

    def krr_parameters(self) -> tuple[int, float]:
        """``(k, epsilon)``: GRR is k-ary randomized response."""
        return self._k, float(self.epsilon)

    def to_channel(self) -> Channel:
        """The ``k x k`` channel: ``p`` on the diagonal, ``q`` off it."""
        check_channel_size(2 * math.log2(self._k), "GRR")
        matrix = np.full((self._k, self._k), self._q)
        np.fill_diagonal(matrix, self._p)
        return Channel(matrix)

    def privacy_channel(self) -> Channel:
        """Outputs ``x``, ``x'``, anything else: every pair of inputs is alike."""
        p, q = self._p, self._q
        return pair_channel([p, q, 1.0 - p - q], [q, p, 1.0 - p - q])
