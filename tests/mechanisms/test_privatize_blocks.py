"""Privatize in blocks of users (local hashing, Hadamard response, CMS, HCMS): the same bytes and
reports as drawing every column whole, the binary hash against its definition, and the
memory it takes."""

from __future__ import annotations

import hashlib
import io
import math
import tracemalloc

import numpy as np
import pytest

import ldp._sampling as sampling
import ldp.mechanisms.limits as limits
import ldp.mechanisms.sketches.sketch as sketch_module
from ldp._random import ByteSource
from ldp._sampling import ExactLaw, choose, choose_streamed, randint, randint_into
from ldp.mechanisms import BLH, CMS, HCMS, OLH, SUE, HadamardResponse, LocalHashing
from ldp.mechanisms._hashing import parity


def sources(seed: int):
    """A numpy generator and a byte stream, each twice (the two runs compared)."""
    data = np.random.default_rng(seed).bytes(1 << 23)
    return [
        (np.random.default_rng(seed), np.random.default_rng(seed)),
        (ByteSource(io.BytesIO(data).read), ByteSource(io.BytesIO(data).read)),
    ]


@pytest.mark.parametrize("bound", [2, 3, 5, 200, 1000, 1 << 22, 3 << 40])
@pytest.mark.parametrize("n", [1, 8, 61, 200])
def test_randint_into_draws_what_randint_draws(bound, n, monkeypatch):
    monkeypatch.setattr(sampling, "STREAM_DRAWS", 16)
    for one, two in sources(bound + n):
        whole = randint(one, bound, n)
        out = np.full((n, 3), -1, dtype=np.int64)
        randint_into(two, bound, out[:, 1])  # a strided column, as in a report
        assert np.array_equal(out[:, 1], whole)
        assert (out[:, [0, 2]] == -1).all()
        assert np.array_equal(randint(one, 7, 5), randint(two, 7, 5))  # the same bytes read


@pytest.mark.parametrize("weights", [[1.0, 1.0], [math.e, 3.0], [1e-300, 1.0]])
def test_choose_streamed_draws_what_choose_draws(weights, monkeypatch):
    monkeypatch.setattr(sampling, "STREAM_DRAWS", 24)
    law = ExactLaw(weights)
    for one, two in sources(len(weights)):
        whole = choose(one, [law], np.zeros(1001, dtype=np.int64))
        streamed = choose_streamed(two, law, 1001)
        assert streamed.dtype == np.uint8
        assert np.array_equal(streamed, whole)
        assert np.array_equal(randint(one, 7, 5), randint(two, 7, 5))


def peak_over_report(mech, x: np.ndarray) -> float:
    """The traced peak of ``mech.privatize(x)`` over the size of its report (warmed up)."""
    mech.privatize(x[:10], rng=0)
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        report = mech.privatize(x, rng=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return (peak - before) / report.nbytes


def whole_columns(mech: LocalHashing, x: np.ndarray, gen) -> np.ndarray:
    """The reports drawn column by column, as the protocol states them: every hash word of
    every user, every keep-or-change coin, every changed user's other bucket."""
    words = np.column_stack([randint(gen, size, x.size) for size in mech.word_sizes])
    hashed = mech.hash_values(words, x)
    change = choose(gen, [ExactLaw(mech.sampler()["keep"])], np.zeros(x.size, dtype=int)) == 1
    other = randint(gen, mech.g - 1, int(change.sum()))
    bucket = hashed.copy()
    bucket[change] = other + (other >= hashed[change])
    return np.column_stack([words, bucket])


@pytest.mark.parametrize(
    "mech",
    [
        OLH(1024, 1.0),
        BLH(1000, 0.5),
        LocalHashing(100, 0.5, 3),
        LocalHashing(50, 2.0, 6),
        OLH(2**40, 3.0),
        LocalHashing(2**40, 2.0, 16),
    ],
    ids=repr,
)
def test_privatize_in_blocks_is_privatize_whole(mech, monkeypatch):
    monkeypatch.setattr(sampling, "STREAM_DRAWS", 64)  # the samplers' blocks
    x = np.random.default_rng(1).integers(0, min(mech.k, 10**12), (1 << 17) + 123)
    # three blocks of privatize's own (of 2^16 users), many of the samplers'; the byte
    # stream only (a numpy Generator takes the word path: the same law, another order)
    data = np.random.default_rng(7).bytes(1 << 23)
    one, two = (ByteSource(io.BytesIO(data).read) for _ in range(2))
    assert np.array_equal(mech.privatize(x, rng=one), whole_columns(mech, x, two))


def binary_hash(fields: list[int], L: int, e: int, v: int) -> int:
    """``H(v) = A d(v) + c`` over ``GF(2)^e`` from the definition: bit ``r`` is the dot
    product of row ``r`` of ``A`` (an ``L``-bit integer) with the bits of ``v``, plus bit
    ``r`` of ``c``."""
    out = 0
    for r in range(e):
        dot = sum(((fields[r] >> j) & 1) * ((v >> j) & 1) for j in range(L)) % 2
        out |= (dot ^ ((fields[e] >> r) & 1)) << r
    return out


@pytest.mark.parametrize(
    "mech",
    [
        BLH(1024, 1.0),
        OLH(1024, 1.0),
        LocalHashing(1000, 2.0, 8),
        LocalHashing(2**40, 2.0, 16),
        LocalHashing(2**20, 1.0, 512),
    ],
    ids=repr,
)
def test_the_binary_hash_is_its_definition(mech):
    family = mech.sampler()["hash"]
    L, e = family["digits"], family["fields"].count(family["fields"][0])
    reports = mech.privatize(np.arange(40) % mech.k, rng=3)
    values = np.random.default_rng(4).integers(0, min(mech.k, 10**12), 40)
    got = mech.hash_values(reports[:, :-1], values)
    for words, v, h in zip(reports[:, :-1].tolist(), values.tolist(), got.tolist()):
        fields = []
        for word, members in zip(words, family["words"]):
            for i in members:
                word, field = divmod(word, family["fields"][i])
                fields.append(field)
        assert h == binary_hash(fields, L, e, v)


@pytest.mark.parametrize("g", [2, 4, 8, 16])
def test_binary_support_counts_over_several_blocks_are_brute_force(g):
    k = 29
    mech = LocalHashing(k, 1.0, g)
    reports = mech.privatize(np.random.default_rng(g).integers(0, k, 70_000), rng=g)
    brute = [int(np.sum(mech.hash_values(reports[:, :-1], v) == reports[:, -1])) for v in range(k)]
    assert mech.aggregate(reports).counts.tolist() == brute


@pytest.mark.parametrize("cls", [OLH, BLH])
def test_privatize_takes_little_more_than_its_report(cls):
    mech = cls(1024, 1.0)
    x = np.random.default_rng(0).integers(0, 1024, 400_000)
    assert peak_over_report(mech, x) < 2.0


def reference_bucket(salt: str, row: int, item: bytes, width: int) -> int:
    key = salt.encode("utf-8")
    message = (
        b"ldpkit/sketch-hash/v1\x00"
        + len(key).to_bytes(4, "big")
        + key
        + row.to_bytes(4, "big")
        + item
    )
    return int.from_bytes(hashlib.sha256(message).digest()[:8], "big") % width


@pytest.mark.parametrize(("width", "depth", "items"), [(64, 4, 30), (8, 2, 3000), (2, 1, 2)])
def test_hcms_in_blocks_is_hcms_whole(width, depth, items, monkeypatch):
    """From a byte stream: rows, then coefficients, then coins of every user; the bit says
    whether the kept or flipped sign ``(-1)^popcount(coefficient & bucket)`` is +1 (hashes
    by hashlib)."""
    monkeypatch.setattr(sampling, "STREAM_DRAWS", 40)
    mech = HCMS(1.5, width=width, depth=depth, salt="b")
    x = np.array([f"i{v}" for v in np.random.default_rng(2).integers(0, items, (1 << 17) + 9)])
    law = ExactLaw(mech.sampler()["keep"])
    for one, two in sources(3)[1:]:  # a byte stream (a Generator takes the word path)
        got = mech.privatize(x, rng=one)
        rows, cols = randint(two, depth, x.size), randint(two, width, x.size)
        flip = choose(two, [law], np.zeros(x.size, dtype=int))
        names, inverse = np.unique(x, return_inverse=True)
        table = np.array(
            [
                [reference_bucket("b", r, name.encode(), width) for r in range(depth)]
                for name in names
            ]
        )
        buckets = table[inverse, rows]
        plus = (parity(cols & buckets) == 0) != (flip == 1)
        assert np.array_equal(got, np.column_stack([rows, cols, plus.astype(np.int64)]))


@pytest.mark.parametrize("k", [5, 100, 1000])
def test_hadamard_response_in_blocks_is_whole(k, monkeypatch):
    """The coin of every user, then ``randint(K)`` of every user; ``y`` lands in
    ``C_x = {y : popcount((x + 1) & y) even}`` when the coin says inside (by flipping the
    lowest set bit of ``x + 1``), else in its complement."""
    monkeypatch.setattr(sampling, "STREAM_DRAWS", 32)
    mech = HadamardResponse(k, 1.0)
    x = np.random.default_rng(k).integers(0, k, (1 << 17) + 5)
    law = ExactLaw(mech.sampler()["keep"])
    for one, two in sources(k):
        got = mech.privatize(x, rng=one)
        inside = choose(two, [law], np.zeros(x.size, dtype=int)) == 0
        y = randint(two, mech.K, x.size)
        row = x + 1
        y = np.where((parity(row & y) == 0) != inside, y ^ (row & -row), y)
        assert np.array_equal(got, y)
        assert ((parity((x + 1) & got) == 0) == inside).all()


@pytest.mark.parametrize(("width", "depth"), [(64, 4), (13, 300)])
def test_cms_in_blocks_is_the_rows_then_sue_of_every_user(width, depth, monkeypatch):
    """A byte stream: ``randint(depth)`` of every user, then the :class:`SUE` report of
    every user's bucket (hashes by hashlib) read as one call would, also when the bits are
    written in many blocks."""
    monkeypatch.setattr(limits, "CHUNK_ELEMENTS", 5 * width)
    monkeypatch.setattr(sketch_module, "CHUNK_ELEMENTS", 5 * width)
    mech = CMS(1.5, width=width, depth=depth, salt="c")
    x = np.array([f"i{v}" for v in np.random.default_rng(4).integers(0, 40, 203)])
    data = np.random.default_rng(5).bytes(1 << 16)
    got = mech.privatize(x, rng=ByteSource(io.BytesIO(data).read))
    two = ByteSource(io.BytesIO(data).read)
    rows = randint(two, depth, x.size)
    buckets = [reference_bucket("c", int(r), str(v).encode(), width) for r, v in zip(rows, x)]
    bits = SUE(width, 1.5).privatize(np.array(buckets), rng=two)
    assert np.array_equal(got, np.column_stack([rows, bits]).astype(got.dtype))


def test_cms_privatize_takes_little_more_than_its_report():
    mech = CMS(1.0, width=1024, depth=16)
    x = np.array([f"item-{v}" for v in np.random.default_rng(0).integers(0, 500, 50_000)])
    assert peak_over_report(mech, x) < 1.5
