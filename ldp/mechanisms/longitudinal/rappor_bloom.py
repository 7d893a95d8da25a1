r"""RAPPOR with Bloom filters (Erlingsson-Pihur-Korolova (2014)): strings, cohorts, decoding.

A client holding a string ``v`` (any text: a URL, a setting, an application name) and
assigned once to a cohort ``j`` of ``num_cohorts``:

1. **Signal.** ``v`` sets ``num_hashes = h`` bits of a Bloom filter ``B`` of ``num_bits = m``
   bits, with the cohort's hash functions (below);
2. **permanent randomized response (PRR)**, drawn the first time the client holds ``v`` and
   memoized: ``B'_i = 1`` with probability ``f/2``, ``0`` with ``f/2``, ``B_i`` with
   ``1 - f``;
3. **instantaneous randomized response (IRR)**, fresh at every report: ``S_i = 1`` with
   probability ``q`` if ``B'_i = 1`` and ``p`` if ``B'_i = 0``.

The report is ``(j, S)``. The server counts, per cohort ``j`` and bit ``i``, the reports with
``S_i = 1`` (``c_ij`` of ``N_j``) and estimates the number of true ones
``t_ij = (c_ij - p01 N_j) / ((1 - f)(q - p))``, ``p01 = p (1 - f/2) + q f/2`` (unbiased;
the authors' decoder ``EstimateBloomCounts``), then regresses ``t_ij / N_j`` on the candidate
strings' Bloom bits: ``X[(j, i), s] = 1`` when candidate ``s`` sets bit ``i`` in cohort ``j``,
``t/N ~ X pi`` with ``pi_s`` the fraction of clients holding ``s``. The paper selects
candidates by LASSO and refits by least squares; here ``method="nnls"`` is non-negative least
squares (every candidate kept, estimates ``>= 0``) and ``method="lstsq"`` ordinary least
squares (unbiased for the fractions of the clients when ``X`` has full column rank: given the
cohort sizes, ``E[t_ij / N_j] = sum_s X pi_s`` exactly, since clients are assigned to cohorts
independently of their values). Rows are weighted by ``sqrt(N_j)``.

**Hash (portable, documented).** Bit ``k`` (``0 <= k < h``) of string ``v`` in cohort ``j``
is ``int.from_bytes(d[4k:4k+4], "big") % m`` with ``d = SHA-256(j.to_bytes(4, "big") +
v.encode("utf-8"))``: standard-library SHA-256 on every platform, no key, ``h <= 8`` (one
hash). Two of the ``h`` positions may coincide (fewer bits set), as in any Bloom filter.

**Privacy.** Two strings' filters differ in at most ``2h`` bits (their cohort, drawn
independently of the value, is the same under both), and the bits are randomized
independently, so every level is ``h`` times the two-bit level of basic RAPPOR
(:class:`~ldp.mechanisms.RAPPOR`):

* permanent: ``eps_inf = 2h log((1 - f/2)/(f/2))`` (Erlingsson-Pihur-Korolova (2014));
* one report: ``eps_1 = h log(q*(1 - p*)/(p*(1 - q*)))``, ``q* = f(p + q)/2 + (1 - f) q``,
  ``p* = f(p + q)/2 + (1 - f) p``;
* ``t`` reports of an unchanged string: ``eps_t = h [log((1 - f/2) q^t + (f/2) p^t) /
  ((f/2) q^t + (1 - f/2) p^t)) + log(((1 - f/2)(1 - p)^t + (f/2)(1 - q)^t) / ((f/2)(1 - p)^t +
  (1 - f/2)(1 - q)^t))]``, increasing to ``eps_inf`` (the exact value for two strings with
  disjoint bits; checked against the enumerated law of the reports in the tests);
* a string that changes ``c`` times: at most ``(c + 1) eps_t`` (independent memos); any two
  histories of ``t`` reports: ``t m max(log(q/p), log((1-p)/(1-q)))``.

Every level is computed from the probabilities the sampler draws with and rounded up.

**Clients.** ``bloom_rappor_round`` of ``clients/python/ldp_client.py`` (standard library)
and ``bloomRapporRound`` of ``clients/js/ldp_client.mjs`` (with its own SHA-256) give the
library's cohorts, reports and memos from the same random bytes (the ``bloom_rappor``
vectors of ``clients/test_vectors.json``); memos move between them as JSON.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import nnls

from ldp._frozen import Frozen
from ldp._rounding import round_up
from ldp._sampling import ExactLaw, choose, randint
from ldp._validation import check_integer, check_random_state, check_scalar
from ldp.mechanisms.longitudinal.lgrr import (
    law_pair,
    log_mix_ratio,
    log_odds_upper,
    log_ratio_of_products,
    round_up_margin,
)
from ldp.mechanisms.longitudinal.memo import Memo

__all__ = ["BloomRAPPOR", "bloom_positions"]

#: Largest number of hash functions (one SHA-256 hash gives eight 32-bit words).
MAX_HASHES = 8
#: Largest Bloom filter and number of cohorts accepted.
MAX_BITS = 1 << 16
MAX_COHORTS = 1 << 16
DECODE_METHODS = ("nnls", "lstsq")


def bloom_positions(value: str, cohort: int, num_bits: int, num_hashes: int) -> tuple[int, ...]:
    """The ``num_hashes`` Bloom-filter positions of ``value`` in ``cohort`` (see the module
    notes: SHA-256 of the 4-byte big-endian cohort followed by the UTF-8 value, words of 4
    bytes big-endian modulo ``num_bits``).

    Parameters
    ----------
    value : str
        The client's string.
    cohort : int
        Its cohort, ``0 <= cohort < 2^32``.
    num_bits : int
        Filter size ``m >= 1``.
    num_hashes : int
        ``1 <= h <= 8``.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> import hashlib
    >>> from ldp.mechanisms.longitudinal.rappor_bloom import bloom_positions
    >>> d = hashlib.sha256(bytes([0, 0, 0, 3]) + "abc".encode()).digest()
    >>> bloom_positions("abc", 3, 64, 2) == (int.from_bytes(d[:4], "big") % 64,
    ...                                      int.from_bytes(d[4:8], "big") % 64)
    True
    """
    if not isinstance(value, str):
        raise TypeError(f"value must be a str, got {type(value).__name__}")
    cohort = _bounded(cohort, "cohort", 0, 2**32 - 1)
    m = check_integer(num_bits, "num_bits", low=1)
    h = _bounded(num_hashes, "num_hashes", 1, MAX_HASHES)
    hashed = hashlib.sha256(cohort.to_bytes(4, "big") + value.encode("utf-8")).digest()
    return tuple(int.from_bytes(hashed[4 * i : 4 * i + 4], "big") % m for i in range(h))


def _bounded(value: object, name: str, low: int, high: int) -> int:
    out = check_integer(value, name, low=low)
    if out > high:
        raise ValueError(f"{name} must be <= {high}, got {out}")
    return out


def _memo_key(value: str) -> int:
    """The key of the string in the client's memo: the top 52 bits of SHA-256 of
    ``b"ldp-rappor-memo\0"`` and the UTF-8 string (a JSON number exact in every language;
    two of a client's ``s`` strings share a key with probability below ``s^2 / 2^53``, and
    then share a permanent response, which costs no privacy beyond that response's)."""
    hashed = hashlib.sha256(b"ldp-rappor-memo\x00" + value.encode("utf-8")).digest()
    return int.from_bytes(hashed[:8], "big") >> 12


class BloomRAPPOR(Frozen):
    """RAPPOR over strings with a Bloom filter and cohorts (Erlingsson-Pihur-Korolova (2014)).

    Parameters
    ----------
    num_bits : int
        Bloom filter size ``m`` (``1 .. 65536``).
    num_hashes : int
        Hash functions ``h`` (``1 .. 8``).
    num_cohorts : int
        Cohorts (``1 .. 65536``); each client draws one uniformly, once.
    f : float
        PRR noise, ``0 < f < 1``.
    p, q : float
        IRR probabilities, ``0 <= p < q <= 1``.

    Examples
    --------
    >>> from ldp.mechanisms import BloomRAPPOR
    >>> r = BloomRAPPOR(num_bits=32, num_hashes=2, num_cohorts=4, f=0.5, p=0.5, q=0.75)
    >>> round(r.epsilon_permanent, 4), round(r.epsilon, 4)   # ln 81, one report
    (4.3944, 1.0743)
    >>> [round(r.epsilon_repeated(t), 4) for t in (2, 5, 10, 100)]
    [2.017, 3.656, 4.2993, 4.3944]
    >>> reports, cohorts, memos = r.privatize_round(["a.com", "b.org"], rng=1)
    >>> reports.shape, bool(((cohorts >= 0) & (cohorts < 4)).all())
    ((2, 32), True)
    """

    name = "bloom-rappor"

    def __init__(
        self, num_bits: int, num_hashes: int, num_cohorts: int, f: float, p: float, q: float
    ) -> None:
        self.num_bits = _bounded(num_bits, "num_bits", 1, MAX_BITS)
        self.num_hashes = _bounded(num_hashes, "num_hashes", 1, MAX_HASHES)
        self.num_cohorts = _bounded(num_cohorts, "num_cohorts", 1, MAX_COHORTS)
        self.f = check_scalar(f, "f")
        if not 0.0 < self.f < 1.0:
            raise ValueError(f"f must lie in (0, 1), got {self.f!r}")
        self.p = check_scalar(p, "p")
        self.q = check_scalar(q, "q")
        if not 0.0 <= self.p < self.q <= 1.0:
            raise ValueError(f"BloomRAPPOR needs 0 <= p < q <= 1, got p={self.p!r}, q={self.q!r}")
        half = self.f / 2.0
        # weights 1 : 0 of: a permanent bit whose filter bit is 1 / 0, a reported bit whose
        # memoized bit is 1 / 0 (the sampler draws exactly these laws)
        self._own = ExactLaw((1.0 - half, half))
        self._other = ExactLaw((half, 1.0 - half))
        self._one = ExactLaw((self.q, 1.0 - self.q))
        self._zero = ExactLaw((self.p, 1.0 - self.p))
        self._p1, self._p1c = law_pair(self._own)
        self._q1, self._q1c = law_pair(self._other)
        self._p2, self._p2c = law_pair(self._one)
        self._q2, self._q2c = law_pair(self._zero)

    # ----------------------------------------------------------------- description
    @property
    def params(self) -> dict[str, object]:
        """The constructor's arguments."""
        return {
            "num_bits": self.num_bits,
            "num_hashes": self.num_hashes,
            "num_cohorts": self.num_cohorts,
            "f": self.f,
            "p": self.p,
            "q": self.q,
        }

    @property
    def key(self) -> str:
        """The mechanism and its parameters, as the memos it writes carry it: the integers in
        decimal and ``f, p, q`` as the 16 hex digits of their IEEE-754 doubles (big-endian),
        so that a client in any language writes the same string.

        Examples
        --------
        >>> from ldp.mechanisms import BloomRAPPOR
        >>> BloomRAPPOR(32, 2, 4, f=0.5, p=0.5, q=0.75).key
        'bloom-rappor:32:2:4:3fe0000000000000:3fe0000000000000:3fe8000000000000'
        """
        doubles = ":".join(struct.pack(">d", v).hex() for v in (self.f, self.p, self.q))
        return f"{self.name}:{self.num_bits}:{self.num_hashes}:{self.num_cohorts}:{doubles}"

    def __repr__(self) -> str:
        return f"BloomRAPPOR({', '.join(f'{k}={v!r}' for k, v in self.params.items())})"

    @property
    def report_probabilities(self) -> tuple[float, float]:
        """``(q*, p*)``: a reported bit is 1 with ``q*`` if its filter bit is 1, else ``p*``."""
        ps = self._p1 * self._p2 + self._p1c * self._q2
        qs = self._q1 * self._p2 + self._q1c * self._q2
        return ps, qs

    # ----------------------------------------------------------------- privacy
    @property
    def epsilon_permanent(self) -> float:
        """``2h log((1 - f/2)/(f/2))``: the PRR's level (rounded up)."""
        two_bits = log_ratio_of_products([self._p1, self._q1c], [self._p1c, self._q1])
        return round_up(self.num_hashes * two_bits, 2)

    @property
    def epsilon(self) -> float:
        """One report: ``h log(q*(1 - p*)/(p*(1 - q*)))`` (rounded up)."""
        ps, qs = self.report_probabilities
        two_bits = log_ratio_of_products([ps, 1.0 - qs], [1.0 - ps, qs])
        return round_up(self.num_hashes * two_bits, 2)

    @property
    def epsilon_instant(self) -> float:
        """The IRR as a channel from any memoized filter: ``m max(log(q/p),
        log((1-p)/(1-q)))`` (two memos may differ in every bit)."""
        one = log_ratio_of_products([self._p2], [self._q2])
        zero = log_ratio_of_products([self._q2c], [self._p2c])
        return round_up(self.num_bits * max(one, zero), 2)

    def epsilon_repeated(self, rounds: int) -> float:
        """Exact privacy loss of ``rounds`` reports of an unchanged string (rounded up; at
        most :attr:`epsilon_permanent`): ``h`` times the two-bit loss, whose worst reports
        are all ones on the bits of one string and all zeros on those of the other."""
        t = check_integer(rounds, "rounds", low=1)
        log_one = log_odds_upper(self._p2, self._q2, t)
        log_zero = -log_odds_upper(self._q2c, self._p2c, t) if self._p2c > 0 else -math.inf
        first = log_mix_ratio(self._p1, self._p1c, self._q1, self._q1c, log_one)
        second = log_mix_ratio(self._q1, self._q1c, self._p1, self._p1c, log_zero)
        value = min(round_up_margin(self.num_hashes * (first + second)), self.epsilon_permanent)
        return min(value, self.epsilon) if t == 1 else value

    def epsilon_rounds(self, rounds: int, changes: int = 0) -> float:
        """Upper bound on ``rounds`` reports of a string that changes at most ``changes``
        times: ``min(c + 1, rounds) * epsilon_repeated(rounds)`` (each distinct string has its
        own memo and leaks at most ``epsilon_repeated`` of its reports), capped by
        :meth:`epsilon_any_history`."""
        t = check_integer(rounds, "rounds", low=1)
        c = check_integer(changes, "changes", low=0)
        groups = min(c + 1, t)
        value = round_up(groups * self.epsilon_repeated(t), 2)
        return min(value, self.epsilon_any_history(t))

    def epsilon_any_history(self, rounds: int) -> float:
        """Any two histories of ``rounds`` reports: ``rounds * epsilon_instant`` (one report:
        ``epsilon``)."""
        t = check_integer(rounds, "rounds", low=1)
        if t == 1:
            return self.epsilon
        return round_up(t * self.epsilon_instant, 2)

    # ----------------------------------------------------------------- client
    def bloom_filter(self, values: Sequence[str], cohorts: ArrayLike) -> np.ndarray:
        """The Bloom filters ``(n, m)`` (0/1, ``uint8``) of ``values`` in their cohorts."""
        strings = _check_strings(values)
        c = self._check_cohorts(cohorts, len(strings))
        out = np.zeros((len(strings), self.num_bits), dtype=np.uint8)
        for i, (v, j) in enumerate(zip(strings, c.tolist(), strict=True)):
            out[i, list(bloom_positions(v, j, self.num_bits, self.num_hashes))] = 1
        return out

    def _check_cohorts(self, cohorts: ArrayLike, n: int) -> np.ndarray:
        c = np.asarray(cohorts)
        if c.shape != (n,) or (c.size and not np.issubdtype(c.dtype, np.integer)):
            raise ValueError(f"cohorts must be {n} integers, got shape {c.shape} ({c.dtype})")
        c = c.astype(np.int64)
        if c.size and (c.min() < 0 or c.max() >= self.num_cohorts):
            raise ValueError(
                f"cohorts must lie in [0, {self.num_cohorts}), got {int(c.min())}..{int(c.max())}"
            )
        return c

    def _check_memos(self, memos: object, n: int) -> list[Memo]:
        if memos is None:
            return [Memo(self.key)] * n
        if isinstance(memos, Memo):
            memos = (memos,)
        if isinstance(memos, (str, bytes)) or not isinstance(memos, Sequence):
            raise TypeError(f"memos must be None or a sequence of Memo, got {type(memos).__name__}")
        if len(memos) != n:
            raise ValueError(f"memos must hold one Memo per value: {len(memos)} for {n} values")
        for i, memo in enumerate(memos):
            if not isinstance(memo, Memo):
                raise TypeError(f"memos[{i}] must be a Memo, got {type(memo).__name__}")
            if memo.mechanism != self.key:
                raise ValueError(f"memos[{i}] was written by {memo.mechanism}, not by {self.key}")
            if memo.sampled and not (len(memo.sampled) == 1 and memo.sampled[0] < self.num_cohorts):
                raise ValueError(f"memos[{i}] holds a cohort this mechanism cannot draw")
        return list(memos)

    def privatize_round(
        self, values: Sequence[str], memos: Sequence[Memo] | Memo | None = None, rng: object = None
    ) -> tuple[np.ndarray, np.ndarray, tuple[Memo, ...]]:
        """One round of reports for ``n`` clients: reports, cohorts and the new memos.

        Parameters
        ----------
        values : sequence of str
            Each client's current string.
        memos : sequence of Memo, optional
            Each client's memo (its cohort and its memoized PRR per string); ``None``: new
            clients, who draw a cohort now. Kept on the device, never sent.
        rng : None, int, Generator or "os"
            ``"os"`` on devices; seeds for simulation only.

        Returns
        -------
        reports : ndarray of uint8, shape (n, num_bits)
            The IRR bits ``S``.
        cohorts : ndarray of int64, shape (n,)
            Each client's cohort (sent with the report).
        memos : tuple of Memo

        Notes
        -----
        Randomness is read in this order: the cohorts of new clients, the PRR of every string
        seen for the first time (client order), then the IRR bits of every client.
        """
        strings = _check_strings(values)
        n = len(strings)
        current = self._check_memos(memos, n)
        gen = check_random_state(rng)
        fresh = [i for i, memo in enumerate(current) if not memo.sampled]
        if fresh:
            drawn = randint(gen, self.num_cohorts, len(fresh))
            for i, j in zip(fresh, drawn.tolist(), strict=True):
                current[i] = current[i].with_sampled((int(j),))
        cohorts = np.array([memo.sampled[0] for memo in current], dtype=np.int64)
        keys = [_memo_key(v) for v in strings]
        width = (self.num_bits + 7) // 8
        permanent = np.zeros((n, width), dtype=np.uint8)
        missing = []
        for i, (memo, key) in enumerate(zip(current, keys, strict=True)):
            stored = memo.get(key)
            if stored is None:
                missing.append(i)
            else:
                if len(stored) != width or any(b > 255 for b in stored):
                    raise ValueError(f"memos[{i}] holds a response this mechanism cannot draw")
                permanent[i] = stored
        if missing:
            rows = np.array(missing, dtype=np.int64)
            signal = self.bloom_filter([strings[i] for i in missing], cohorts[rows])
            bits = choose(gen, [self._other, self._own], signal.ravel().astype(np.int64)) == 0
            packed = np.packbits(bits.reshape(len(missing), self.num_bits), axis=1)
            permanent[rows] = packed
            for r, i in enumerate(missing):
                current[i] = current[i].with_entry(keys[i], tuple(packed[r].tolist()))
        memo_bits = np.unpackbits(permanent, axis=1, count=self.num_bits)
        reports = choose(gen, [self._zero, self._one], memo_bits.ravel().astype(np.int64)) == 0
        return reports.reshape(n, self.num_bits).astype(np.uint8), cohorts, tuple(current)

    def privatize(
        self, values: Sequence[str], *, rng: object = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """One report per string from fresh clients: ``(reports, cohorts)`` (memos dropped)."""
        reports, cohorts, _ = self.privatize_round(values, None, rng)
        return reports, cohorts

    # ----------------------------------------------------------------- server
    def bit_counts(self, reports: ArrayLike, cohorts: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """``(c, N)``: ones per cohort and bit ``(num_cohorts, m)``, reports per cohort."""
        s = np.asarray(reports)
        if s.ndim != 2 or s.shape[1] != self.num_bits:
            raise ValueError(f"reports must have shape (n, {self.num_bits}), got {s.shape}")
        if s.size and not np.isin(s, (0, 1)).all():
            raise ValueError("reports must hold bits (0 or 1)")
        c = self._check_cohorts(cohorts, s.shape[0])
        counts = np.zeros((self.num_cohorts, self.num_bits), dtype=np.int64)
        np.add.at(counts, c, s.astype(np.int64))
        return counts, np.bincount(c, minlength=self.num_cohorts)

    def estimate_bits(
        self, reports: ArrayLike, cohorts: ArrayLike
    ) -> tuple[np.ndarray, np.ndarray]:
        """Unbiased counts of true filter ones per cohort and bit, and their variances.

        ``t = (c - p01 N) / ((1 - f)(q - p))`` with ``p01 = p (1 - f/2) + q f/2``; the
        variance of each count is ``N r (1 - r) / ((1 - f)(q - p))^2`` at the true
        ``r = P(S_i = 1)``, here with ``r`` the observed rate ``c / N`` (the authors'
        decoder uses the plug-in rate).
        """
        counts, sizes = self.bit_counts(reports, cohorts)
        p01 = self.p * (1.0 - self.f / 2.0) + self.q * self.f / 2.0
        scale = (1.0 - self.f) * (self.q - self.p)
        t = (counts - p01 * sizes[:, None]) / scale
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(sizes[:, None] > 0, counts / np.maximum(sizes[:, None], 1), 0.0)
        variance = sizes[:, None] * rate * (1.0 - rate) / scale**2
        return t, variance

    def design_matrix(self, candidates: Sequence[str]) -> np.ndarray:
        """``X[(j, i), s] = 1`` when candidate ``s`` sets bit ``i`` in cohort ``j``:
        shape ``(num_cohorts * m, len(candidates))``."""
        strings = _check_strings(candidates, "candidates")
        x = np.zeros((self.num_cohorts, self.num_bits, len(strings)))
        for s, v in enumerate(strings):
            for j in range(self.num_cohorts):
                x[j, list(bloom_positions(v, j, self.num_bits, self.num_hashes)), s] = 1.0
        return x.reshape(self.num_cohorts * self.num_bits, len(strings))

    def estimate(
        self,
        reports: ArrayLike,
        cohorts: ArrayLike,
        candidates: Sequence[str],
        method: str = "nnls",
    ) -> np.ndarray:
        """Fractions of clients holding each candidate string (see the module notes).

        Parameters
        ----------
        reports, cohorts : array_like
            From :meth:`privatize_round` (any number of clients).
        candidates : sequence of str
            The strings to estimate (distinct).
        method : {"nnls", "lstsq"}
            Non-negative or ordinary least squares, rows weighted by ``sqrt(N_j)``.

        Returns
        -------
        ndarray of float, shape (len(candidates),)
        """
        if method not in DECODE_METHODS:
            raise ValueError(f"method must be one of {DECODE_METHODS}, got {method!r}")
        strings = _check_strings(candidates, "candidates")
        if len(set(strings)) != len(strings):
            raise ValueError("candidates must be distinct")
        t, _ = self.estimate_bits(reports, cohorts)
        _, sizes = self.bit_counts(reports, cohorts)
        used = sizes > 0
        if not np.any(used):
            raise ValueError("no reports to decode")
        y = (t[used] / sizes[used, None]).ravel()
        weights = np.repeat(np.sqrt(sizes[used].astype(np.float64)), self.num_bits)
        x = self.design_matrix(strings).reshape(self.num_cohorts, self.num_bits, -1)[used]
        x = x.reshape(-1, len(strings))
        a, b = x * weights[:, None], y * weights
        if method == "nnls":
            return nnls(a, b)[0]
        return np.linalg.lstsq(a, b, rcond=None)[0]


def _check_strings(values: object, name: str = "values") -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a sequence of str, got {type(values).__name__}")
    out = list(values)
    for i, v in enumerate(out):
        if not isinstance(v, str):
            raise TypeError(f"{name}[{i}] must be a str, got {type(v).__name__}")
    return out
