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
  exactly pairwise independent. Decoding groups the users by their high coefficients
  (``RingHash.grouped_counts``: ``O(n 2^t + g^(L-t) k)`` for ``t`` low bits), or is a
  chunked ``O(n k)`` matrix product when that is cheaper (many values, few users).

When a hash function is one word and there are fewer (hash function, bucket) cells than
users, the field decoder of an odd prime first merges the users into their cells
(:func:`merge_cells`).

A hash function is stored as a few non-negative *words* below ``2^53`` (the coefficients
packed in mixed radix: a word's first field is ``word mod size``, the next is taken from
``word // size``, and so on), each drawn uniformly by :func:`ldp._sampling.randint`, so each
coefficient is exactly uniform.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ldp._words import popcount
from ldp.mechanisms.limits import CHUNK_ELEMENTS, chunk_rows

#: Largest product of field sizes packed into one word: every report field stays an integer
#: below ``2^53``, exact in a double (JSON numbers, JavaScript, float64 report tables).
WORD_LIMIT = 1 << 53


def parity(x: np.ndarray) -> np.ndarray:
    """Parity of the number of set bits of non-negative int64 ``x`` (0 or 1, int64)."""
    return (popcount(x) & np.uint8(1)).astype(np.int64)


def parity_bits(x: np.ndarray) -> np.ndarray:
    """Parity of the number of set bits of non-negative ``x`` (0 or 1, uint8)."""
    return popcount(x) & np.uint8(1)


def fwht(a: np.ndarray) -> np.ndarray:
    """Unnormalised Walsh-Hadamard transform ``H a``, ``H[i, j] = (-1)^popcount(i & j)``
    (of each row, along the last axis)."""
    out = np.array(a, copy=True)
    size = out.shape[-1] if out.ndim else 1
    if size & (size - 1):
        raise ValueError(f"fwht needs a power-of-two length, got {size}")
    lead = out.shape[:-1]
    h = 1
    while h < size:
        blocks = out.reshape(*lead, -1, 2, h)
        first = blocks[..., 0, :].copy()
        blocks[..., 0, :] += blocks[..., 1, :]
        blocks[..., 1, :] = first - blocks[..., 1, :]
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


def divmod_by(a: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """``(a // d, a mod d)`` for an integer array ``a`` and an integer ``d > 0``: a floor
    division by a constant (numpy divides by a multiply-shift) and a multiply-subtract,
    several times faster than ``np.divmod`` or ``%``."""
    q = a // d
    r = q * d
    np.subtract(a, r, out=r)
    return q, r


def mod_by(a: np.ndarray, d: int) -> np.ndarray:
    """``a mod d`` (a new array), as :func:`divmod_by`."""
    return divmod_by(a, d)[1]


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
                    rest, fields[i] = divmod_by(rest, s)
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

    @cached_property
    def _dot(self) -> BlockDot:
        """Row times digits of ``x``, over ``GF(p)``, by blocks of digits."""
        return BlockDot(self.p, self.p, self.L)

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

    def collinear_mass(self, f: np.ndarray) -> np.ndarray | None:
        """``M[u, v] = sum f_x`` over the values ``x`` whose digits lie on the line through
        ``d(u), d(v)`` in ``GF(p)^L`` (``x = u + t (v - u)``, ``t = 2 .. p - 1``): for those
        triples ``A (d(v) - d(x))`` is a multiple of ``A (d(u) - d(x))``, so ``H(u), H(v),
        H(x)`` all collide with probability ``1/g``; for any other triple the two differences
        are independent (``1/g^2``). ``None`` for ``p = 2``, where no three distinct
        vectors are collinear."""
        if self.p == 2:
            return None
        k, p = self.k, self.p
        digits = self._digits(np.arange(k, dtype=np.int64))  # (k, L)
        mass = np.zeros((k, k))
        for rows in chunk_rows(k, k * self.L):
            own = digits[rows, None, :]
            step = digits[None, :, :] - own
            for t in range(2, p):
                x = ((own + t * step) % p) @ self._powers
                inside = x < k
                mass[rows] += np.where(inside, f[np.where(inside, x, 0)], 0.0)
        np.fill_diagonal(mass, 0.0)
        return mass

    def split(self, words: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        fields = self.packing.unpack(words)
        return fields[: self.e], fields[self.e]

    def evaluate(self, words: np.ndarray, x: np.ndarray) -> np.ndarray:
        p = self.p
        if p == 2:  # bit r of H is the parity of row r and x, xor bit r of c
            dtype = np.dtype(np.uint8 if self.e <= 8 else np.int64)
            bits = np.zeros(x.shape, dtype=dtype)
            if self.packing.n_words == 1:  # row r is bits rL .. rL + L - 1 of the word
                # in 32-bit arithmetic when the word fits (half the memory traffic)
                kind = np.uint32 if self.packing.word_sizes[0] <= 1 << 32 else np.uint64
                word, xs = words[:, 0].astype(kind, copy=False), x.astype(kind)
                if self.e <= 8:
                    bits = parity_bits(word & xs)
                    for r in range(1, self.e):
                        shifted = parity_bits(word & (xs << kind(r * self.L)))
                        shifted <<= np.uint8(r)
                        bits |= shifted
                else:
                    for r in range(self.e):
                        shifted = xs << kind(r * self.L) if r else xs
                        bits |= parity_bits(word & shifted).astype(dtype) << dtype.type(r)
                bits ^= (word >> kind(self.e * self.L)).astype(dtype)
                return bits
            rows, c = self.split(words)
            for r in range(self.e):
                bits |= parity_bits(rows[r] & x).astype(dtype) << dtype.type(r)
            return c ^ bits
        rows, c = self.split(words)
        dot = self._dot
        x_blocks = dot.other_blocks(x)
        if self.e == 1:
            h = dot(rows[0], x_blocks)
            h += c
            return mod_by(h, p)
        out = np.zeros(x.shape, dtype=np.int64)
        weight = 1
        for r in range(self.e):
            h = dot(rows[r], x_blocks)
            h += mod_by(c // weight, p)
            out += mod_by(h, p) * weight
            weight *= p
        return out

    def _binary_table(self, words: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``T[t] = sum_i sum_u (-1)^{u.w_i} 1[A_i^T u = t]`` for ``p = 2``: for each
        ``u != 0`` in Gray-code order (``A^T u`` changes by one row of ``A``), one integer
        bincount over a block of users; ``u = 0`` adds every user to ``T[0]``. The cells
        walk ``u = gray(i) xor 2^(e - 1)``, ``i = 0 .. g - 2`` (every ``u != 0`` once), so
        that the first cell of a one-word hash function is its top bits as they are.

        With few cells (``2^L g`` up to ``2^16``) the bincount is of the cell ``(w, t)``
        and the signs ``(-1)^{u.w}`` are applied to the counts afterwards, else of
        ``2 t + u.w``. A hash function in one word below ``2^32`` is cut into its rows in
        32-bit arithmetic (row ``r`` is bits ``rL .. rL + L - 1``, then ``c``, which the
        bucket turns into ``w = y xor c`` in place)."""
        g, size, e, L = self.g, self.rows, self.e, self.L
        by_cell = size * g <= 1 << 16
        tally = np.zeros((g, g * size) if by_cell else (1, 2 * size), dtype=np.int64)
        narrow = self.packing.n_words == 1 and self.packing.word_sizes[0] <= 1 << 32
        top = e - 1
        # blocks of 2^15 users at least: the temporaries of a block (a few 32-bit arrays
        # and a bincount's 64-bit copy) stay near a megabyte, reused from block to block
        step = min(max(1 << 15, 4 * size), 1 << 18)
        for start in range(0, y.size, step):
            sl = slice(start, start + step)
            if narrow:
                z = y[sl].astype(np.uint32)
                z <<= np.uint32(e * L)
                z ^= words[sl, 0].astype(np.uint32)  # the rows of A, then w = y xor c
                mask = np.uint32(size - 1)
                rows = [z & mask if r == 0 else (z >> np.uint32(r * L)) & mask for r in range(top)]
                # the cell (w, t) of u = 2^(e - 1), t its row of A: the top bits of z as they are
                cell = z >> np.uint32(top * L) if top else z
                rows.append(cell & mask)
                w = z >> np.uint32(e * L)
            else:
                rows, c = self.split(words[sl])
                w = y[sl] ^ c
                cell = (w << w.dtype.type(L)) ^ rows[top]
            if by_cell:  # the cell (w, t) is w 2^L + t: t changes in the low bits only
                for i in range(g - 1):  # u = gray(i) xor 2^(e - 1): every u != 0 once
                    if i:
                        cell ^= rows[(i & -i).bit_length() - 1]
                    tally[i] += np.bincount(cell, minlength=g * size)
                continue
            t = np.zeros_like(rows[0])
            for i in range(1, g):
                t ^= rows[(i & -i).bit_length() - 1]
                code = t << t.dtype.type(1)
                code |= parity_bits(w & w.dtype.type(i ^ (i >> 1))).astype(code.dtype)
                tally[0] += np.bincount(code, minlength=2 * size)
        if by_cell:  # the sign of cell (w, t) for the i-th u of the walk
            table = np.zeros(size, dtype=np.int64)
            w_all = np.arange(g)
            for i in range(g - 1):
                signs = 1 - 2 * parity(w_all & (i ^ (i >> 1) ^ (1 << top)))
                table += signs @ tally[i].reshape(g, size)
        else:
            table = tally[0, 0::2] - tally[0, 1::2]
        table[0] += y.size
        return table

    def support_counts(self, words: np.ndarray, y: np.ndarray) -> np.ndarray:
        p, e, g = self.p, self.e, self.g
        if p == 2:
            counts, rem = np.divmod(fwht(self._binary_table(words, y))[: self.k], 1 << e)
            if np.any(rem):  # pragma: no cover - an exact integer identity
                raise RuntimeError("local hashing decode: non-integer support count")
            return counts
        words, y, weights = merge_cells(self.packing, g, words, y)
        # float64 counts: exact integers (below 2^53), and the users merged into cells
        # count with their weight
        table = np.zeros(self.rows * p, dtype=np.float64)
        step = max(1, CHUNK_ELEMENTS // (g * self.L * 4))
        u = np.arange(g, dtype=np.int64)
        u_digits = (u[:, None] // p ** np.arange(e)) % p  # (g, e)
        for start in range(0, y.size, step):
            sl = slice(start, start + step)
            each = None if weights is None else np.repeat(weights[sl], g).astype(np.float64)
            rows, c = self.split(words[sl])
            y_dig = (y[sl, None] // p ** np.arange(e)) % p
            c_dig = (c[:, None] // p ** np.arange(e)) % p
            w_dig = (y_dig - c_dig) % p  # (m, e)
            a = np.stack([self._digits(r) for r in rows], axis=1)  # (m, e, L)
            t_dig = np.einsum("ue,mel->mul", u_digits, a) % p
            t = t_dig @ self._powers
            m = (w_dig @ u_digits.T) % p  # (m, g)
            table += np.bincount((t * p + m).ravel(), weights=each, minlength=table.size)
        table = table.reshape(self.rows, p)
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

    def split_parts(
        self, words: np.ndarray, y: np.ndarray, high: np.ndarray, low: np.ndarray, t: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """For ``v = high p^t + low``: ``P[a, i]`` codes the high digits' part of
        ``H_i(v) - c_i`` and ``R[b, i]`` codes ``y_i - c_i`` minus the low digits' part, so
        that ``H_i(v) = y_i`` iff ``P[a, i] == R[b, i]`` (users along the last axis; see
        ``counts_at``)."""
        rows, c = self.split(words)
        p = self.p
        if p == 2:  # codes are the e bits of H, in the smallest unsigned type
            code = narrow_dtype((1 << self.e) - 1)
            P = np.zeros((high.size, y.size), dtype=code)
            R = np.repeat((y ^ c).astype(code)[None, :], low.size, axis=0)
            mask = (1 << t) - 1
            for r in range(self.e):
                P |= (parity_bits(high[:, None] & (rows[r] >> t)[None, :]) << r).astype(code)
                R ^= (parity_bits(low[:, None] & (rows[r] & mask)[None, :]) << r).astype(code)
            return P, R
        P = np.zeros((high.size, y.size), dtype=np.int64)
        R = np.zeros((low.size, y.size), dtype=np.int64)
        hd = self._digits(high)[:, : self.L - t].astype(np.float64)  # (|high|, L - t)
        ld = self._digits(low)[:, :t].astype(np.float64)  # (|low|, t)
        weight = 1
        for r in range(self.e):
            a = self._digits(rows[r]).astype(np.float64)  # exact: sums below L p^2 < 2^53
            target = ((y // weight) % p - (c // weight) % p) % p
            P += (hd @ np.ascontiguousarray(a[:, t:].T)).astype(np.int64) % p * weight
            lows = (ld @ np.ascontiguousarray(a[:, :t].T)).astype(np.int64)
            R += (target[None, :] - lows) % p * weight
            weight *= p
        code = narrow_dtype(self.g - 1)
        return P.astype(code), R.astype(code)

    def counts_at(self, words: np.ndarray, y: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``C_v = #{i : H_i(v) = y_i}`` for the given ``values`` only (``counts_at``)."""
        return counts_at(self, self.p, self.L, words, y, values)


class RingHash:
    """``H(v) = (sum_j a_j b_j(v) + c) mod g`` (fields: a_0 .. a_{L-1}, then c)."""

    def __init__(self, k: int, g: int) -> None:
        self.k, self.g = k, g
        self.L = n_digits(k, 2)
        self.packing = Packing([g] * (self.L + 1))

    @cached_property
    def _dot(self) -> BlockDot:
        """Coefficients times bits of ``x``, modulo ``g``, by blocks of bits."""
        return BlockDot(self.g, 2, self.L)

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

    def _coefficients(
        self, words: np.ndarray, dtype: type = np.int64
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(a, c)`` with ``a`` of shape ``(L, n)`` and type ``dtype``: coefficient ``j`` of
        every user in one contiguous row (filling rows is far cheaper than interleaving
        columns)."""
        fields = self.packing.unpack(words)
        a: np.ndarray = np.empty((self.L, words.shape[0]), dtype=dtype)
        for j in range(self.L):
            a[j] = fields[j]
        return a, fields[self.L]

    def evaluate(self, words: np.ndarray, x: np.ndarray) -> np.ndarray:
        g, L = self.g, self.L
        if self.packing.n_words == 1:  # the coefficients are the word's low L digits
            c, coefficients = divmod_by(words[:, 0], g**L)
            h = self._dot(coefficients, self._dot.other_blocks(x))
            h += c
            return mod_by(h, g)
        fields = self.packing.unpack(words)
        h = fields[L].copy()  # c, then a_j for every set bit j of x (one pass per bit)
        for j in range(L):
            h += fields[j] * ((x >> j) & 1)
        return h % g

    def collinear_mass(self, f: np.ndarray) -> None:
        """Distinct ``u, v, x`` differ in bits with coefficient differences ``+-1`` that
        leave ``H(u) - H(x)`` and ``H(v) - H(x)`` independent and uniform: the family is
        3-wise independent on distinct values, with no exceptional triples (``None``)."""
        return None

    def split_bits(self, n: int) -> int | None:
        """The number ``t`` of low bits for :meth:`grouped_counts` with ``n`` users: the
        least work ``n 2^t`` (one bincount per low part) ``+ g^(L-t) 2^L`` (one look-up per
        group, high part and low part), its histograms at most ``2^22`` entries; ``None``
        when that is not a quarter of the product's ``n 2^L``."""
        g, L = self.g, self.L
        best, best_t = None, None
        for t in range(L + 1):
            groups = g ** (L - t)
            if (groups * g) << t > 1 << 22:
                continue
            cost = (n << t) + (groups << L)
            if best is None or cost < best:
                best, best_t = cost, t
        if best is None or 4 * best > n << L:
            return None
        return best_t

    def support_counts(self, words: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``C_v`` by :meth:`grouped_counts` when it is cheaper, else by a chunked
        ``O(n k)`` product (blocks of users times blocks of values)."""
        t = self.split_bits(y.size)
        if t is not None:
            return self.grouped_counts(words, y, t)
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
                h = (a.T.astype(np.float64) @ bits + c[:, None]) % self.g
                counts[values] += (h == y[sl, None]).sum(axis=0)
        return counts

    def grouped_counts(self, words: np.ndarray, y: np.ndarray, t: int) -> np.ndarray:
        """``C_v`` with the users grouped by their high coefficients ``a_t .. a_{L-1}``.

        Write ``v = hi 2^t + lo``: ``H_i(v) = P_i(hi) + Q_i(lo) + c_i`` with
        ``P_i(hi) = sum_{j >= t} a_ij b_j(v)`` and ``Q_i(lo) = sum_{j < t} a_ij b_j(v)``
        (mod ``g``). ``P_i`` depends on the user only through its group ``alpha_i`` (the
        high coefficients, ``g^(L-t)`` groups), so with
        ``M_lo[alpha, r] = #{i in alpha : y_i - c_i - Q_i(lo) = r}`` (one bincount per low
        part, ``r`` updated by one coefficient per step of a Gray code),
        ``C[hi, lo] = sum_alpha M_lo[alpha, P_alpha(hi)]``: ``O(n 2^t + g^(L-t) 2^L)``
        instead of ``O(n 2^L)``.
        """
        g, L = self.g, self.L
        groups, lows, highs = g ** (L - t), 1 << t, 1 << (L - t)
        hist = np.zeros((lows, groups * g), dtype=np.int64)
        kind = np.int16 if 2 * g < 1 << 15 else np.int64
        step = 1 << 18
        for start in range(0, y.size, step):
            sl = slice(start, start + step)
            if self.packing.n_words == 1:  # word = low + g^t (alpha + g^(L-t) c)
                rest, low = divmod_by(words[sl, 0], g**t)
                c, base = divmod_by(rest, g ** (L - t))
                coefficients = []
                for _ in range(t):
                    low, a = divmod_by(low, g)
                    coefficients.append(a.astype(kind))
            else:
                fields = self.packing.unpack(words[sl])
                c, base = fields[L], np.zeros(fields[0].shape, dtype=np.int64)
                for j in range(L - 1, t - 1, -1):  # alpha = sum_{j >= t} a_j g^(j - t)
                    base *= g
                    base += fields[j]
                coefficients = [fields[j].astype(kind) for j in range(t)]
            base *= g
            r = mod_by(y[sl] - c, g).astype(kind)  # lo = 0: y - c
            lo = 0
            for i in range(lows):
                if i:
                    j = (i & -i).bit_length() - 1
                    lo ^= 1 << j
                    if lo >> j & 1:  # bit j set: Q grows by a_j
                        r -= coefficients[j]
                        r += kind(g) * (r < 0)
                    else:
                        r += coefficients[j]
                        r -= kind(g) * (r >= g)
                hist[lo] += np.bincount(base + r, minlength=groups * g)
        # P[alpha, hi] = sum_j digit_j(alpha) bit_j(hi) mod g
        digits = (np.arange(groups)[:, None] // g ** np.arange(L - t)) % g
        bits = (np.arange(highs)[:, None] >> np.arange(L - t)) & 1
        picked = (digits @ bits.T) % g + g * np.arange(groups)[:, None]  # (groups, highs)
        counts = np.empty((highs, lows), dtype=np.int64)
        for lo in range(lows):
            counts[:, lo] = hist[lo][picked].sum(axis=0)
        return counts.reshape(-1)[: self.k]

    def split_parts(
        self, words: np.ndarray, y: np.ndarray, high: np.ndarray, low: np.ndarray, t: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """For ``v = high 2^t + low``: ``P[a, i] = sum_{j >= t} a_j b_j(v) mod g`` and
        ``R[b, i] = (y_i - c_i - sum_{j < t} a_j b_j(v)) mod g`` (users along the last
        axis); ``H_i(v) = y_i`` iff they are equal."""
        g = self.g
        # exact: sums of coefficients are integers below (L + 1) g, < 2^24 in float32 and
        # int32 (else float64 and int64, < 2^53); the modulo is taken on integers (fast)
        small = (self.L + 1) * g < 1 << 24
        real, whole = (np.float32, np.int32) if small else (np.float64, np.int64)
        af, c = self._coefficients(words, real)
        hb = ((high[:, None] >> np.arange(self.L - t)[None, :]) & 1).astype(real)
        lb = ((low[:, None] >> np.arange(t)[None, :]) & 1).astype(real)
        code = narrow_dtype(g - 1)
        P = ((hb @ af[t:]).astype(whole) % g).astype(code)
        lows = (lb @ af[:t]).astype(whole)
        R = (((y - c).astype(whole)[None, :] - lows) % g).astype(code)
        return P, R

    def counts_at(self, words: np.ndarray, y: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``C_v = #{i : H_i(v) = y_i}`` for the given ``values`` only (``counts_at``)."""
        return counts_at(self, 2, self.L, words, y, values)


class BlockDot:
    """``sum_j digit_j(a) digit_j(v)`` over ``digits`` digits (``a`` in base ``base``, ``v``
    in base ``other``), modulo ``base``, by blocks of ``s`` digits: one look-up per block in
    the table of every pair of blocks (at most ``2^16`` entries), instead of one product
    per digit; digit by digit when even one pair of digits has more entries.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms._hashing import BlockDot
    >>> dot = BlockDot(3, 3, 4)   # base-3 digits: a = 2101, v = 0211 (written high first)
    >>> a, v = np.array([2 * 27 + 1 * 9 + 0 * 3 + 1]), np.array([0 * 27 + 2 * 9 + 1 * 3 + 1])
    >>> int(dot(a, dot.other_blocks(v))[0])   # (2*0 + 1*2 + 0*1 + 1*1) mod 3
    0
    """

    def __init__(self, base: int, other: int, digits: int) -> None:
        self.base, self.other, self.digits = base, other, digits
        s = 1
        while s < digits and (base * other) ** (s + 1) <= 1 << 16:
            s += 1
        self.s = s
        self.table: np.ndarray | None = None
        if (base * other) ** s <= 1 << 16:
            a = np.arange(base**s)[:, None] // base ** np.arange(s) % base  # (base^s, s)
            v = np.arange(other**s)[:, None] // other ** np.arange(s) % other
            self.table = ((a @ v.T) % base).astype(narrow_dtype(base - 1)).ravel()

    def other_blocks(self, v: np.ndarray) -> list[np.ndarray]:
        """The blocks of ``v``'s digits (block ``b``: digits ``s b .. s b + s - 1``)."""
        size = self.other**self.s
        blocks = []
        rest = np.asarray(v, dtype=np.int64)
        for _ in range(-(-self.digits // self.s)):
            rest, block = divmod_by(rest, size)
            blocks.append(block)
        return blocks

    def __call__(self, a: np.ndarray, v_blocks: list[np.ndarray]) -> np.ndarray:
        """The dot product modulo ``base`` (``int64``) of ``a`` with the ``v`` whose blocks
        are ``v_blocks``."""
        size, width = self.base**self.s, self.other**self.s
        out = np.zeros(np.shape(a), dtype=np.int64)
        rest = np.asarray(a, dtype=np.int64)
        for block in v_blocks:
            rest, digits = divmod_by(rest, size)
            if self.table is None:  # one digit (s = 1): each product reduced (no overflow)
                out += mod_by(digits * block, self.base)
                continue
            digits *= width
            digits += block
            out += self.table[digits]
        return mod_by(out, self.base)


def _best_split(values: np.ndarray, base: int, digits: int) -> int:
    """The ``t`` of least work per user: codes of the ``|high|`` distinct high parts
    (``digits - t`` digits each) and of the ``|low|`` low parts (``t`` digits), then
    ``|high| |low|`` comparisons. Candidates that are the children of a few prefixes (a
    heavy-hitter level) factor into a small grid."""
    best, best_t = None, 0
    for t in range(digits + 1):
        unit = base**t
        high = np.unique(values // unit).size
        low = np.unique(values % unit).size
        cost = high * low + high * (digits - t) + low * t
        if best is None or cost < best:
            best, best_t = cost, t
    return best_t


def counts_at(
    family: FieldHash | RingHash,
    base: int,
    digits: int,
    words: np.ndarray,
    y: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """``C_v = #{i : H_i(v) = y_i}`` for the given values only, ``O(n |high| |low|)``.

    Both families are linear in the digits of ``v`` (base ``base``). Writing
    ``v = high base^t + low``, ``H_i(v) = y_i`` becomes an equality between a code of the
    high digits' part (one column per distinct high part) and a code of ``y_i - c_i`` minus
    the low digits' part (one column per distinct low part): one comparison per user and
    grid cell, with ``t`` chosen so that the grid of distinct parts is smallest (the
    ``2^step`` children of each kept prefix are exactly such a grid).
    """
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    t = _best_split(values, base, digits)
    unit = base**t
    high, hi_at = np.unique(values // unit, return_inverse=True)
    low, lo_at = np.unique(values % unit, return_inverse=True)
    grid = np.zeros((high.size, low.size), dtype=np.int64)
    step = max(1, CHUNK_ELEMENTS // max(1, 2 * grid.size))
    for start in range(0, y.size, step):
        sl = slice(start, start + step)
        P, R = family.split_parts(words[sl], y[sl], high, low, t)
        # codes in [0, g) of the smallest type; users along the last (contiguous) axis, so
        # the comparison runs over long rows
        grid += np.count_nonzero(P[:, None, :] == R[None, :, :], axis=-1)
    return grid[hi_at.ravel(), lo_at.ravel()]


def merge_cells(
    packing: Packing, g: int, words: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(words, y, weights)``: when the hash function is one word and its ``size g``
    cells (hash function, bucket) are at most half as many as the users, the users merged
    into the cells they fall in (one bincount), each cell weighing its number of users; else
    the users themselves (``weights`` None). A support count is a sum over users, so it is
    the same weighted sum over the cells."""
    if packing.n_words == 1 and packing.word_sizes[0] * g <= y.size // 2:
        cells = np.bincount(words[:, 0] * g + y, minlength=packing.word_sizes[0] * g)
        at = np.flatnonzero(cells)
        return (at // g)[:, None], at % g, cells[at]
    return words, y, None


def narrow_dtype(top: int) -> type[np.unsignedinteger]:
    """The smallest unsigned integer type holding ``0 .. top``."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return dtype
    return np.uint64


def hash_family(k: int, g: int) -> FieldHash | RingHash:
    """The exactly pairwise-independent family used for ``[k] -> [g]``."""
    pe = prime_power(g)
    if pe is None:
        return RingHash(k, g)
    return FieldHash(k, g, *pe)
