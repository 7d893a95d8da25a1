"""Every decoder of local hashing against brute force (``H_i(v) == y_i`` counted user by
user for every value): the binary transform for every power-of-two ``g`` (beyond 16 too),
the field transform with and without users merged into cells, and the ring family grouped
by high coefficients at every split as well as by the product."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.mechanisms import LocalHashing
from ldp.mechanisms._hashing import merge_cells


def brute_counts(mech: LocalHashing, reports: np.ndarray) -> np.ndarray:
    words, y = reports[:, :-1], reports[:, -1]
    return np.array([np.sum(mech.hash_values(words, v) == y) for v in range(mech.k)])


def reports_of(k: int, g: int, n: int) -> tuple[LocalHashing, np.ndarray]:
    mech = LocalHashing(k, 1.0, g)
    x = np.random.default_rng(k * 100 + g).integers(0, k, n)
    return mech, mech.privatize(x, rng=np.random.default_rng(n + g))


@pytest.mark.parametrize(
    ("k", "g", "n"),
    [
        (37, 32, 3000),  # binary, g above 16
        (37, 4, 70_000),  # binary, users in several blocks
        (37, 2, 70_000),
        (37, 8, 3000),  # binary, three rows in one 32-bit word
        (2**15, 4, 3000),  # one 32-bit word, counted by code (too many cells)
        (37, 64, 2000),
        (37, 17, 3000),  # a prime field, users one by one
        (5, 3, 4000),  # a prime field, users merged into cells
        (6, 7, 20_000),
        (30, 9, 3000),  # GF(3^2)
        (37, 12, 3000),  # the ring, grouped
        (100, 6, 40_000),
        (1000, 6, 200),  # the ring by the product (too few users to group)
        (1000, 10, 500),
    ],
)
def test_support_counts_are_brute_force(k, g, n):
    mech, reports = reports_of(k, g, n)
    assert np.array_equal(mech.aggregate(reports).counts, brute_counts(mech, reports))


def test_the_ring_grouped_at_every_split_is_brute_force():
    mech, reports = reports_of(23, 6, 5000)
    family, words, y = mech._family, reports[:, :-1], reports[:, -1]
    brute = brute_counts(mech, reports)
    for t in range(family.L + 1):
        assert np.array_equal(family.grouped_counts(words, y, t), brute)
    assert family.split_bits(5000) is not None
    assert LocalHashing(1000, 1.0, 6)._family.split_bits(200) is None  # the product wins


def test_merged_cells_weigh_their_users():
    mech, reports = reports_of(5, 3, 4000)
    words, y, weights = merge_cells(mech._packing, 3, reports[:, :-1], reports[:, -1])
    assert weights is not None and int(weights.sum()) == 4000
    assert words.shape[0] == y.size == weights.size < 4000
    for word, bucket, weight in zip(words[:, 0], y, weights):
        assert weight == np.sum((reports[:, 0] == word) & (reports[:, -1] == bucket))
    few = merge_cells(mech._packing, 3, reports[:50, :-1], reports[:50, -1])
    assert few[2] is None  # more cells than half the users: left as they are


def digit(value: int, j: int, base: int) -> int:
    return value // base**j % base


def defined_hash(description: dict, words: list[int], v: int) -> int:
    """``H(v)`` from the family's description in plain integers (``docs/protocol.md``):
    the fields unpacked from the words in mixed radix; the field family ``A d(v) + c`` over
    ``GF(p)^e`` (digit ``j`` of a row has weight ``p^j``), the ring ``sum_j a_j b_j(v) + c``
    modulo ``g``."""
    fields = []
    for word, members in zip(words, description["words"]):
        for i in members:
            word, field = divmod(word, description["fields"][i])
            fields.append(field)
    if description["family"] == "ring":
        g, bits = description["modulus"], description["bits"]
        return (sum(fields[j] * (v >> j & 1) for j in range(bits)) + fields[bits]) % g
    p, e, L = description["prime"], description["power"], description["digits"]
    out = 0
    for r in range(e):
        dot = sum(digit(fields[r], j, p) * digit(v, j, p) for j in range(L))
        out += (dot + digit(fields[e], r, p)) % p * p**r
    return out


@pytest.mark.parametrize(
    "mech",
    [
        LocalHashing(1000, 1.0, 3),
        LocalHashing(10**6, 1.0, 5),
        LocalHashing(2**40, 1.0, 3),  # one word above 2^32
        LocalHashing(100, 1.0, 9),  # two rows over GF(3)
        LocalHashing(50, 1.0, 65537),  # a prime too large for block tables
        LocalHashing(10**6, 1.0, 65537),
        LocalHashing(1000, 1.0, 6),  # the ring in one word
        LocalHashing(1000, 1.0, 12),
        LocalHashing(2**40, 1.0, 6),  # the ring in several words
    ],
    ids=repr,
)
def test_the_field_and_ring_hashes_are_their_definitions(mech):
    description = mech.sampler()["hash"]
    reports = mech.privatize(np.zeros(60, dtype=np.int64), rng=np.random.default_rng(4))
    values = np.random.default_rng(5).integers(0, min(mech.k, 10**12), 60)
    values[:3] = [0, 1, mech.k - 1]
    got = mech.hash_values(reports[:, :-1], values)
    for words, v, h in zip(reports[:, :-1].tolist(), values.tolist(), got.tolist()):
        assert h == defined_hash(description, words, v)


def test_the_ring_in_several_words_is_grouped_and_hashed_as_in_one(monkeypatch):
    """Words of at most 6^3 (instead of 2^53): the ring's coefficients of k = 23 span two
    words; hashing and every split of the grouped decoder still match brute force."""
    # the globals of the packing the mechanism builds (the doctest run may import the
    # module a second time)
    packing = type(LocalHashing(23, 1.0, 6)._packing)
    monkeypatch.setitem(packing.__init__.__globals__, "WORD_LIMIT", 6**3)
    mech, reports = reports_of(23, 6, 5000)
    family = mech._family
    assert family.packing.n_words == 2
    brute = brute_counts(mech, reports)
    description = mech.sampler()["hash"]
    for words, h in zip(reports[:50, :-1].tolist(), mech.hash_values(reports[:50, :-1], 7)):
        assert h == defined_hash(description, words, 7)
    for t in range(family.L + 1):
        assert np.array_equal(family.grouped_counts(reports[:, :-1], reports[:, -1], t), brute)
    assert np.array_equal(mech.aggregate(reports).counts, brute)
