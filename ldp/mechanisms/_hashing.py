"""Exactly pairwise-independent hash families ``[k] -> [g]`` in numpy, with fast decoding.

Local hashing needs ``P(H(v) = H(x)) = 1/g`` for every ``v != x`` (so that ``q = 1/g``) and,
on the server, the support counts ``C_v = #{i : H_i(v) = y_i}`` for every ``v``. Two
families are used, both exactly pairwise independent (``(H(v), H(x))`` is uniform on
``[g]^2`` for ``v != x``), so the estimator is exactly unbiased:

* **linear over a field** when ``g = p^e`` is a prime power: write ``v`` in base ``p``
  (``L`` digits ``d(v)``), draw ``A`` uniform in ``GF(p)^{e x L}`` and ``c`` in
  ``GF(p)^e``; ``H(v) = A d(v) + c``. Since ``d(v) - d(x) != 0``, ``A (d(v) - d(x))`` is
  uniform. Decoding uses characters: ``1[A d = w] = p^{-e} sum_u w^{u.(A d - w)}``, so
  ``C = p^{-e} DFT_{Z_p^L}(T)`` with ``T[t] = sum_i sum_u w^{-u.w_i} 1[A_i^T u = t]``: the
  server does ``O(n g)`` scatter-adds and one ``p^L``-point transform (a fast Walsh-Hadamard
  transform for ``p = 2``), ``O(n g + k log k)`` instead of ``O(n k)``.
* **bits with ring coefficients** for other ``g``: ``H(v) = (sum_j a_j b_j(v) + c) mod g``
  with ``b_j(v)`` the bits of ``v`` and ``a_j, c`` uniform in ``Z_g``. Two distinct values
  differ in a bit, whose coefficient difference is ``+-1``, a unit of ``Z_g``; so the family is
  exactly pairwise independent. Decoding is a chunked ``O(n k)`` matrix product.

A hash function is stored as a few non-negative *words* below ``2^53`` (the coefficients
packed in mixed radix: a word's first field is ``word mod size``, the next is taken from
``word // size``, and so on), each drawn uniformly by :func:`ldp._sampling.randint`, so each
coefficient is exactly uniform.
"""

from __future__ import annotations

import math

import numpy as np

from ldp.mechanisms.base import CHUNK_ELEMENTS

#: Largest product of field sizes packed into one word: every report field stays an integer
#: below ``2^53``, exact in a double (JSON numbers, JavaScript, float64 report tables).
WORD_LIMIT = 1 << 53

#: Largest table of multiples of ``g`` (``(L + 2) g`` entries, below 2^24 so that float32
#: sums of ring coefficients are exact) that ``RingHash.counts_at`` uses instead of a modulo.
_TABLE_LIMIT = 1 << 20


def parity(x: np.ndarray) -> np.ndarray:
    """Parity of the number of set bits of non-negative int64 ``x`` (0 or 1)."""
    if hasattr(np, "bitwise_count"):
        return (np.bitwise_count(x) & 1).astype(np.int64)
    v = x ^ (x >> 32)
    for shift in (16, 8, 4, 2, 1):
        v = v ^ (v >> shift)
    return v & 1


def fwht(a: np.ndarray) -> np.ndarray:
    """Unnormalised Walsh-Hadamard transform ``H a``, ``H[i, j] = (-1)^popcount(i & j)``."""
    out = np.array(a, copy=True)
    size = out.size
    if size & (size - 1):
        raise ValueError(f"fwht needs a power-of-two length, got {size}")
    h = 1
    while h < size:
        blocks = out.reshape(-1, 2, h)
        first = blocks[:, 0, :].copy()
        blocks[:, 0, :] += blocks[:, 1, :]
        blocks[:, 1, :] = first - blocks[:, 1, :]
        h *= 2
    return out


def prime_power(g: int) -> tuple[int, int] | None:
    """``(p, e)`` with ``g = p^e``, ``p`` prime, or ``None``."""
    for p in range(2, math.isqrt(g) + 1):
        if g % p == 0:
            e = 0
            while g % p == 0:
                g //= p
                e += 1
            return (p, e) if g == 1 else None
    return (g, 1)


def n_digits(k: int, base: int) -> int:
    """Number of base-``base`` digits of ``0 .. k-1`` (at least 1)."""
    digits, top = 1, base
    while top < k:
        digits += 1
        top *= base
    return digits


class Packing:
    """Uniform independent fields of sizes ``sizes`` packed in mixed radix into int64 words."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = list(sizes)
        self.words: list[list[int]] = []  # field indices per word
        current: list[int] = []
        product = 1
        for i, s in enumerate(self.sizes):
            if current and product * s > WORD_LIMIT:
                self.words.append(current)
                current, product = [], 1
            current.append(i)
            product *= s
        self.words.append(current)
        self.word_sizes = [math.prod(self.sizes[i] for i in w) for w in self.words]

    @property
    def n_words(self) -> int:
        return len(self.words)

    @property
    def size(self) -> int:
        return math.prod(self.sizes)

    def unpack(self, words: np.ndarray) -> list[np.ndarray]:
        fields: list[np.ndarray] = [np.empty(0)] * len(self.sizes)
        for j, members in enumerate(self.words):
            rest = words[:, j]
            for i in members:
                s = self.sizes[i]
                if s & (s - 1) == 0:
                    fields[i] = rest & (s - 1)
                    rest = rest >> (s.bit_length() - 1)
                else:
                    rest, fields[i] = np.divmod(rest, s)
        return fields

    def check(self, words: np.ndarray, name: str) -> None:
        for j, top in enumerate(self.word_sizes):
            col = words[:, j]
            if col.size and (col.min() < 0 or col.max() >= top):
                raise ValueError(
                    f"{name}: hash word {j} must lie in [0, {top}) "
                    "(reports from a mechanism with other parameters?)"
                )

    def enumerate(self) -> np.ndarray:
        """Every member, as rows of words (row order = mixed-radix order of the fields)."""
        grids = np.meshgrid(*[np.arange(s) for s in self.word_sizes], indexing="ij")
        return np.stack([g.ravel() for g in grids], axis=1).astype(np.int64)


class FieldHash:
    """``H(v) = A d_p(v) + c`` over ``GF(p)^e``, ``g = p^e`` (fields: rows of A, then c)."""

    def __init__(self, k: int, g: int, p: int, e: int) -> None:
        self.k, self.g, self.p, self.e = k, g, p, e
        self.L = n_digits(k, p)
        self.rows = p**self.L  # one row of A, packed base p (digit j has weight p^j)
        self.packing = Packing([self.rows] * e + [g])
        self._powers = p ** np.arange(self.L, dtype=np.int64)

    def _digits(self, x: np.ndarray) -> np.ndarray:
        """Base-p digits of non-negative ints, last axis of length L (digit j weight p^j)."""
        return (x[..., None] // self._powers) % self.p

    def describe(self) -> dict[str, object]:
        """The family as a protocol file states it (``docs/protocol.md``)."""
        return {
            "family": "field",
            "prime": self.p,
            "power": self.e,
            "digits": self.L,
            "fields": self.packing.sizes,
            "words": self.packing.words,
        }

    @property
    def decode_entries(self) -> int:
        """The largest array :meth:`support_counts` builds: the ``p^L x p`` table, or one
        user's ``g`` hash values (times ``L`` digits)."""
        return max(self.rows * self.p, self.g * self.L)

    def split(self, words: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        fields = self.packing.unpack(words)
        return fields[: self.e], fields[self.e]

    def evaluate(self, words: np.ndarray, x: np.ndarray) -> np.ndarray:
        rows, c = self.split(words)
        p = self.p
        out = np.zeros(x.shape, dtype=np.int64)
        weight = 1
        for r in range(self.e):
            if p == 2:
                h = parity(rows[r] & x)
                cr = (c >> r) & 1
                out += ((h ^ cr) << r).astype(np.int64)
            else:
                h = (self._digits(rows[r]) * self._digits(x)).sum(axis=-1) % p
                cr = (c // weight) % p
                out += ((h + cr) % p) * weight
            weight *= p
        return out

    def support_counts(self, words: np.ndarray, y: np.ndarray) -> np.ndarray:
        p, e, g = self.p, self.e, self.g
        table = np.zeros(self.rows * p, dtype=np.int64)
        step = max(1, CHUNK_ELEMENTS // (g * (self.L if p != 2 else 1) * 4))
        u = np.arange(g, dtype=np.int64)
        u_digits = (u[:, None] // p ** np.arange(e)) % p  # (g, e)
        for start in range(0, y.size, step):
            sl = slice(start, start + step)
            rows, c = self.split(words[sl])
            if p == 2:
                w = y[sl] ^ c  # A d(v) must equal w
                t = np.zeros((w.size, g), dtype=np.int64)
                for r in range(e):
                    t ^= np.where(u_digits[:, r] == 1, rows[r][:, None], 0)
                m = parity(u[None, :] & w[:, None])
            else:
                y_dig = (y[sl, None] // p ** np.arange(e)) % p
                c_dig = (c[:, None] // p ** np.arange(e)) % p
                w_dig = (y_dig - c_dig) % p  # (m, e)
                a = np.stack([self._digits(r) for r in rows], axis=1)  # (m, e, L)
                t_dig = np.einsum("ue,mel->mul", u_digits, a) % p
                t = t_dig @ self._powers
                m = (w_dig @ u_digits.T) % p  # (m, g)
            table += np.bincount((t * p + m).ravel(), minlength=table.size)
        table = table.reshape(self.rows, p)
        if p == 2:
            transformed = fwht(table[:, 0] - table[:, 1])
            counts, rem = np.divmod(transformed[: self.k], 1 << e)
            if np.any(rem):  # pragma: no cover - an exact integer identity
                raise RuntimeError("local hashing decode: non-integer support count")
            return counts
        roots = np.exp(-2j * np.pi * np.arange(p) / p)
        spectrum = table @ roots
        # C-order reshape: axis a <-> digit L-1-a, the same map for t and for v, so the
        # transform's flat index is v itself
        values = np.fft.ifftn(spectrum.reshape((p,) * self.L))
        flat = values.real.reshape(-1) * (float(p) ** (self.L - e))
        counts = np.rint(flat[: self.k])
        if np.max(np.abs(flat[: self.k] - counts), initial=0.0) > 0.25:  # pragma: no cover
            raise RuntimeError("local hashing decode: transform lost precision")
        return counts.astype(np.int64)

    def counts_at(self, words: np.ndarray, y: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``C_v = #{i : H_i(v) = y_i}`` for the given ``values`` only (``O(n m)`` for ``m``
        values, chunked): what a heavy-hitter search needs on an alphabet too large to decode
        in full."""
        counts = np.zeros(values.size, dtype=np.int64)
        step = max(1, CHUNK_ELEMENTS // max(1, 4 * values.size))
        p = self.p
        v_digits = self._digits(values).astype(np.float64).T if p != 2 else np.empty(0)
        for start in range(0, y.size, step):
            sl = slice(start, start + step)
            rows, c = self.split(words[sl])
            match = np.ones((y[sl].size, values.size), dtype=bool)
            weight = 1
            for r in range(self.e):
                if p == 2:
                    h = parity(rows[r][:, None] & values[None, :])
                    target = ((y[sl] ^ c) >> r) & 1
                else:
                    # exact: entries are integers below L (p - 1)^2 < 2^53
                    a = self._digits(rows[r]).astype(np.float64)
                    h = (a @ v_digits) % p
                    target = ((y[sl] // weight) % p - (c // weight) % p) % p
                match &= h == target[:, None]
                weight *= p
            counts += match.sum(axis=0)
        return counts


class RingHash:
    """``H(v) = (sum_j a_j b_j(v) + c) mod g`` (fields: a_0 .. a_{L-1}, then c)."""

    def __init__(self, k: int, g: int) -> None:
        self.k, self.g = k, g
        self.L = n_digits(k, 2)
        self.packing = Packing([g] * (self.L + 1))

    def describe(self) -> dict[str, object]:
        """The family as a protocol file states it (``docs/protocol.md``)."""
        return {
            "family": "ring",
            "modulus": self.g,
            "bits": self.L,
            "fields": self.packing.sizes,
            "words": self.packing.words,
        }

    @property
    def decode_entries(self) -> int:
        """The largest array :meth:`support_counts` builds: the ``k`` counts."""
        return self.k

    def _coefficients(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        fields = self.packing.unpack(words)
        return np.stack(fields[: self.L], axis=1), fields[self.L]

    def evaluate(self, words: np.ndarray, x: np.ndarray) -> np.ndarray:
        a, c = self._coefficients(words)
        bits = (x[:, None] >> np.arange(self.L)) & 1
        return ((a * bits).sum(axis=1) + c) % self.g

    def support_counts(self, words: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``C_v`` by a chunked ``O(n k)`` product (blocks of users times blocks of values)."""
        counts = np.zeros(self.k, dtype=np.int64)
        width = min(self.k, max(1, CHUNK_ELEMENTS // 64))
        step = max(1, CHUNK_ELEMENTS // (2 * width))
        shifts = np.arange(self.L)
        for first in range(0, self.k, width):
            values = np.arange(first, min(first + width, self.k))
            bits = ((values[None, :] >> shifts[:, None]) & 1).astype(np.float64)
            for start in range(0, y.size, step):
                sl = slice(start, start + step)
                a, c = self._coefficients(words[sl])
                # exact: entries are integers below L * g < 2^53
                h = (a.astype(np.float64) @ bits + c[:, None]) % self.g
                counts[values] += (h == y[sl, None]).sum(axis=0)
        return counts

    def counts_at(self, words: np.ndarray, y: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``C_v = #{i : H_i(v) = y_i}`` for the given ``values`` only (``O(n m)``, chunked)."""
        counts = np.zeros(values.size, dtype=np.int64)
        g = self.g
        # H(v) = y iff sum_j a_j b_j(v) + c - y is a multiple of g; the sum lies in
        # (-g, (L + 1) g), so for small L g a table of multiples replaces the (slow) modulo,
        # and float32 products are exact (integers below 2^24)
        small = (self.L + 2) * g <= _TABLE_LIMIT
        dtype = np.float32 if small else np.float64
        bits = ((values[None, :] >> np.arange(self.L)[:, None]) & 1).astype(dtype)
        multiple = np.zeros((self.L + 2) * g if small else 0, dtype=bool)
        multiple[::g] = True
        step = max(1, CHUNK_ELEMENTS // max(1, 2 * values.size))
        for start in range(0, y.size, step):
            sl = slice(start, start + step)
            a, c = self._coefficients(words[sl])
            offset = (c - y[sl]).astype(dtype)[:, None]
            h = a.astype(dtype) @ bits + offset  # exact: integers below L g < 2^53
            if small:
                counts += multiple[h.astype(np.int32) + g].sum(axis=0)
            else:
                counts += (h % g == 0).sum(axis=0)
        return counts


def hash_family(k: int, g: int) -> FieldHash | RingHash:
    """The exactly pairwise-independent family used for ``[k] -> [g]``."""
    pe = prime_power(g)
    if pe is None:
        return RingHash(k, g)
    return FieldHash(k, g, *pe)
