"""The sketch's tabulated and cached hashes against SHA-256 computed directly, and the
grouping of items against ``np.unique``."""

from __future__ import annotations

import copy
import hashlib
import pickle
import struct

import numpy as np
import pytest

import ldp._items as items_module
from ldp._items import sketch_hash_table, sketch_hashes, unique_items
from ldp.mechanisms import CMS, HCMS
from ldp.mechanisms.sketches.buckets import BucketCache


def reference_hash(salt: str, row: int, item: bytes, width: int) -> int:
    """The documented hash, spelled out with hashlib (independent of ``ldp._items``)."""
    key = salt.encode("utf-8")
    message = (
        b"ldpkit/sketch-hash/v1\x00"
        + struct.pack(">I", len(key))
        + key
        + struct.pack(">I", row)
        + item
    )
    return int.from_bytes(hashlib.sha256(message).digest()[:8], "big") % width


def random_items(seed: int, count: int) -> list[bytes]:
    gen = np.random.default_rng(seed)
    sizes = gen.integers(0, 12, size=count)
    return [gen.bytes(int(s)) for s in sizes]


@pytest.mark.parametrize("width", [2, 1000, 1024, 1 << 22])
def test_the_table_is_the_hash_of_every_item_and_row(width):
    unique = random_items(width, 40)
    table = sketch_hash_table("sält".encode(), unique, 5, width)
    expected = [[reference_hash("sält", j, item, width) for j in range(5)] for item in unique]
    assert table.tolist() == expected


@pytest.mark.parametrize("dense", [True, False])
def test_per_user_hashes_match_the_reference_by_marking_or_sorting(dense, monkeypatch):
    if not dense:
        monkeypatch.setattr(items_module, "DENSE_PAIRS", 0)
    gen = np.random.default_rng(7)
    unique = random_items(8, 30)
    inverse = gen.integers(0, len(unique), size=500)
    rows = gen.integers(0, 9, size=500)
    got = sketch_hashes(b"s", rows, unique, inverse, 64)
    expected = [reference_hash("s", int(r), unique[i], 64) for r, i in zip(rows, inverse)]
    assert got.tolist() == expected


def test_the_cache_keeps_recent_items_within_its_limit():
    cache = BucketCache("x", width=256, depth=4, limit=4 * 10)
    first = random_items(1, 10)
    assert cache.table(first).tolist() == [
        [reference_hash("x", j, item, 256) for j in range(4)] for item in first
    ]
    assert len(cache) == 10
    more = random_items(2, 3)
    cache.table(more)
    assert len(cache) == 10  # the three least recently used items left
    kept = set(cache._items)
    assert set(more) <= kept and not set(first[:3]) & kept
    # a request larger than the cache is answered but not kept
    many = random_items(3, 25)
    table = cache.table(many)
    assert table[:, 2].tolist() == [reference_hash("x", 2, item, 256) for item in many]
    assert set(cache._items) == kept


def test_a_cache_pickles_and_copies_empty():
    cache = BucketCache("x", width=16, depth=2)
    cache.table([b"a", b"b"])
    for twin in (pickle.loads(pickle.dumps(cache)), copy.deepcopy(cache)):
        assert len(twin) == 0
        assert (twin.salt, twin.width, twin.depth) == ("x", 16, 2)
        assert twin.table([b"a"]).tolist() == cache.table([b"a"]).tolist()
    mech = HCMS(1.0, width=16, depth=2)
    mech.privatize(["a"] * 50, rng=0)
    assert pickle.loads(pickle.dumps(mech)) == mech


@pytest.mark.parametrize("users", [3, 400])  # per pair (few users), tabulated (many)
def test_privatize_hashes_each_user_as_the_reference(users):
    """At epsilon = 700 CMS keeps every bit (a flip has probability below 1e-150): each
    report's only set bit is its user's bucket in the report's row."""
    mech = CMS(700.0, width=32, depth=6, salt="q")
    gen = np.random.default_rng(users)
    values = np.array([f"v{i}" for i in gen.integers(0, 50, size=users)])
    reports = mech.privatize(values, rng=1)
    bits = np.unpackbits(reports[:, 1:].astype(np.uint8), axis=1, count=32)
    assert (bits.sum(axis=1) == 1).all()
    expected = [
        reference_hash("q", int(row), str(v).encode(), 32) for row, v in zip(reports[:, 0], values)
    ]
    assert bits.argmax(axis=1).tolist() == expected


def test_queries_reuse_the_hashes_of_privatize():
    mech = HCMS(2.0, width=64, depth=8, salt="z")
    data = np.array([f"item-{i % 20}" for i in range(1000)])
    sketch = mech.estimate(mech.privatize(data, rng=3))
    assert len(mech._buckets) == 20
    cached = {item: row.copy() for item, row in mech._buckets._items.items()}
    names = [f"item-{i}" for i in range(20)]
    assert mech.buckets(names).tolist() == [
        [reference_hash("z", j, name.encode(), 64) for j in range(8)] for name in names
    ]
    assert all(np.array_equal(cached[k], v) for k, v in mech._buckets._items.items())
    matrix = np.asarray(sketch)
    expected = [
        64
        / 63
        * (
            np.mean([matrix[j, reference_hash("z", j, n.encode(), 64)] for j in range(8)])
            - 1000 / 64
        )
        for n in names
    ]
    assert np.allclose(sketch.count(names), expected, rtol=1e-12, atol=1e-9)


def _strings(seed: int, count: int, alphabet: str, longest: int) -> np.ndarray:
    gen = np.random.default_rng(seed)
    letters = np.array(list(alphabet))
    return np.array(
        ["".join(gen.choice(letters, size=int(s))) for s in gen.integers(0, longest + 1, count)]
    )


@pytest.mark.parametrize(
    "values",
    [
        np.array([f"item-{i}" for i in np.random.default_rng(0).integers(0, 900, 9000)]),
        np.array([f"é{i}" for i in np.random.default_rng(1).integers(0, 5, 5000)]),
        np.array([f"v{i % 50}" for i in range(5000)] + ["v1€", "v1"]),
        _strings(7, 6000, "ab\x00", 5),  # empty strings, inner and trailing NULs
        _strings(8, 6000, "aé€😀\x00", 3),  # characters of 1 to 4 UTF-8 bytes
        _strings(9, 5000, "xy", 17).astype(">U17"),  # swapped byte order
        np.array([f"k{i}" for i in range(80_000)] * 2),  # more values than the first table
        np.random.default_rng(2).integers(-(2**40), 2**40, 6000),
        np.random.default_rng(3).integers(0, 30, 5000).astype(np.int8),
        np.random.default_rng(5).integers(0, 2**64, 6000, dtype=np.uint64) | (1 << 63),
        np.array([b"a", b"a\x00b", b"", b"ab", b"a\x00", b"\x00"] * 1500),
        np.random.default_rng(4).integers(0, 7000, 7000).astype(">u4"),
    ],
    ids=[
        "strings",
        "unicode",
        "wide-at-the-end",
        "nuls",
        "utf8-widths",
        "big-endian-text",
        "many",
        "int64",
        "int8",
        "uint64-high",
        "bytes",
        "big-endian",
    ],
)
@pytest.mark.parametrize("collide", ["none", "all", "some"])
@pytest.mark.parametrize("block", [None, 700])
def test_grouping_is_np_unique(values, collide, block, monkeypatch):
    """The fingerprint table gives ``np.unique``'s answer exactly (numpy's equality: a
    trailing NUL is no character of a numpy string), also when every value falls in one
    slot (then each round groups one value per table and the rest are sorted, and an empty
    slot is told by its number) or in one of seven (some values share a slot in every
    round); unsorted, the same groups. With small blocks the table lasts over many blocks
    (and the text of the last values that are not Latin-1 meets a table of narrowed keys)."""
    if block is not None:
        monkeypatch.setattr(items_module, "_BLOCK", block)
    if collide == "all":
        monkeypatch.setattr(
            items_module, "_slots", lambda prints, salt, bits: np.zeros(prints.size, np.int64)
        )
    elif collide == "some":
        monkeypatch.setattr(
            items_module,
            "_slots",
            lambda prints, salt, bits: (prints % np.uint64(7)).view(np.int64),
        )
    uniq, back = np.unique(values, return_inverse=True)
    back = np.asarray(back).reshape(-1)
    distinct, inverse = unique_items(values)
    assert distinct == [items_module.item_bytes(v) for v in uniq.tolist()]
    assert inverse.dtype == np.int64
    assert np.array_equal(inverse, back)
    loose, index = unique_items(values, sort=False)
    assert sorted(loose) == sorted(distinct)
    assert index.dtype == np.int64
    assert [loose[i] for i in index.tolist()] == [distinct[i] for i in back.tolist()]


def _colliding_pair(gen) -> tuple[bytes, bytes]:
    """Two 16-byte strings (no NUL) whose key words differ and whose fingerprints are
    equal: ``(w_0 + 1, w_1 - M)`` beside ``(w_0, w_1)``, ``M`` the fingerprint's multiplier."""
    mix = int(items_module._MIX)
    while True:
        w0, w1 = (int(v) for v in gen.integers(0, 2**63, 2, dtype=np.uint64))
        pair = [(w0, w1), (w0 + 1, (w1 - mix) % 2**64)]
        texts = [a.to_bytes(8, "little") + b.to_bytes(8, "little") for a, b in pair]
        if all(0 not in t for t in texts):
            return texts[0], texts[1]


def test_entries_with_equal_fingerprints_are_told_apart():
    """Values whose fingerprints collide (built from the multiplier) are grouped apart: an
    entry joins a group only when the fingerprint and every key word but the last agree,
    which then forces the last. Unsorted and sorted grouping equal ``np.unique``'s."""
    gen = np.random.default_rng(8)
    pairs = [_colliding_pair(gen) for _ in range(3)]
    values = np.array([t for pair in pairs for t in pair] * 3000 + [b"x" * 16] * 10, dtype="S16")
    values = values[gen.permutation(values.size)]
    words = items_module._key_words(values)
    prints = items_module._fingerprint(words)
    first = dict(zip(values.tolist(), prints.tolist()))
    assert all(first[a] == first[b] for a, b in pairs)
    uniq, back = np.unique(values, return_inverse=True)
    distinct, inverse = unique_items(values)
    assert distinct == uniq.tolist() and np.array_equal(inverse, np.asarray(back).reshape(-1))
    loose, index = unique_items(values, sort=False)
    assert [loose[i] for i in index.tolist()] == values.tolist()


def test_an_empty_slot_holds_a_fingerprint_of_another_slot():
    """What an empty slot of the table holds never falls in that slot, for every round's
    slot hash, so no entry matches an empty slot."""
    for salt in range(4):
        absent = items_module._absent(salt, 16)
        assert absent is not None
        own = items_module._slots(absent, salt, 16)
        assert np.all(own != np.arange(1 << 16))


def test_an_empty_slot_is_told_by_its_number_when_no_fingerprint_marks_it(monkeypatch):
    """A slot hash that sends 0 and 1 to one slot leaves no fingerprint to mark the empty
    slots: the empty string (fingerprint 0) falls in the empty slot 0, whose table word is
    0 too, after the few entries offered in the first round; it is still grouped alone."""
    monkeypatch.setattr(
        items_module, "_slots", lambda prints, salt, bits: ((prints >> 1) % 7).view(np.int64)
    )
    monkeypatch.setattr(items_module, "_SEED_ENTRIES", 4)
    monkeypatch.setattr(items_module, "_GROUPED_VALUES", 1)
    assert items_module._absent(0, 16) is None
    values = np.array([b"a"] * 4 + [b"", b"a", b"bc", b""] * 50, dtype="S2")
    loose, index = unique_items(values, sort=False)
    assert sorted(loose) == [b"", b"a", b"bc"]
    assert [loose[i] for i in index.tolist()] == values.tolist()


def _words_of(stored: bytes, count: int) -> list[int]:
    """An entry's key words by hand: its stored bytes, zero-padded, 8 at a time as
    little-endian integers."""
    padded = stored.ljust(8 * count, b"\x00")
    return [int.from_bytes(padded[8 * j : 8 * j + 8], "little") for j in range(count)]


@pytest.mark.parametrize("width", [1, 3, 7, 8, 9, 15, 16, 17])
@pytest.mark.parametrize("count", [1, 2, 5, 40])
@pytest.mark.parametrize("kind", ["latin", "wide", "bytes"])
def test_key_words_are_the_stored_bytes_padded(width, count, kind):
    """Every entry's key words are its stored bytes (one per character when every
    character is below 256, else the four of UTF-32) zero-padded to whole words, also for
    the last entries, whose words are read past the end of the array."""
    gen = np.random.default_rng(width * 100 + count)
    top = {"latin": 256, "wide": 0x3000, "bytes": 256}[kind]
    codes = gen.integers(1, top, size=(count, width))
    lengths = gen.integers(0, width + 1, size=count)
    if kind == "bytes":
        values = np.array(
            [bytes(row[:m].tolist()) for row, m in zip(codes, lengths)], dtype=f"S{width}"
        )
        stored = [bytes(v).ljust(width, b"\x00") for v in values.tolist()]
    else:
        values = np.array(
            ["".join(map(chr, row[:m])) for row, m in zip(codes, lengths)], dtype=f"<U{width}"
        )
        narrow = (
            kind == "latin" or max(codes[i, :m].max(initial=0) for i, m in enumerate(lengths)) < 256
        )
        encoding = "latin-1" if narrow else "utf-32-le"
        size = width if narrow else 4 * width
        stored = [v.encode(encoding).ljust(size, b"\x00") for v in values.tolist()]
    per_row = -(-len(stored[0]) // 8)
    words = items_module._key_words(values)
    assert words.dtype == np.uint64 and words.shape == (count, per_row)
    assert words.tolist() == [_words_of(s, per_row) for s in stored]


def test_a_list_of_strings_groups_in_order_of_first_appearance():
    """A list of plain strings: the distinct ones in the order they first appear, as UTF-8,
    and each user's index, as a loop over the list finds them."""
    values = [f"é{i}" for i in np.random.default_rng(6).integers(0, 40, 3000).tolist()]
    firsts: list[str] = []
    for value in values:
        if value not in firsts:
            firsts.append(value)
    distinct, inverse = unique_items(values)
    assert distinct == [v.encode("utf-8") for v in firsts]
    assert inverse.dtype == np.int64
    assert inverse.tolist() == [firsts.index(v) for v in values]


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5, 8, 9])
def test_text_is_latin_exactly_when_every_character_is_below_256(length):
    """Whatever the position of a character of 256 or more (either half of a 64-bit word,
    or the odd last character), the text is not Latin-1; with every character 255 or
    less it is; as the maximum of the characters says."""
    for top in (255, 256, 0x10FFFF, 2**32 - 1):
        for at in range(length):
            chars = np.full(length, 255, dtype=np.uint32)
            chars[at] = top
            for rows in (chars.reshape(1, length), np.tile(chars, (3, 1))):
                assert items_module._latin(rows) == (int(rows.max()) < 256)
    assert items_module._latin(np.zeros((0, length), dtype=np.uint32))
