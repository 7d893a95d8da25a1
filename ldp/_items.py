"""Items of an open domain and the public hash that maps them into a sketch.

A leaf module (it imports nothing from the rest of :mod:`ldp`): the count-mean sketches of
:mod:`ldp.mechanisms.sketches` privatize *items*, values of a domain too large (or too open)
to enumerate: strings, byte strings and integers. Every item is reduced to one byte string,
so that a device in any language names it alike:

* a ``str`` is its UTF-8 encoding (a string that is not valid Unicode, e.g. a lone
  surrogate, is refused);
* ``bytes`` (or ``bytearray``, ``numpy.bytes_``) are themselves;
* an integer (``int`` or a numpy integer, never a boolean) is its decimal text in ASCII
  (``-12`` is ``b"-12"``), so the integer ``5`` and the string ``"5"`` are the same item.

Anything else (floats, booleans, ``None``) is refused with ``TypeError``.

**The hash** (``docs/protocol.md``, section "Items and their hash"): for a public salt (a
string, a protocol parameter; not randomness), a row index ``j`` and a width ``m``,

``h_j(item) = int.from_bytes(SHA-256(PREFIX || u32(len(salt)) || salt || u32(j) || item)[:8],
"big") mod m``

with ``PREFIX = b"ldpkit/sketch-hash/v1\\x00"``, ``u32`` a 4-byte big-endian unsigned
integer and ``salt`` the salt's UTF-8 bytes. The salt is length-prefixed and the item comes
last, so two different (salt, row, item) triples never hash the same message. For a power of
two ``m`` every bucket is equally likely for a uniformly random hash value; otherwise the bias is
below ``m / 2^64``.

Examples
--------
>>> from ldp._items import item_bytes, sketch_hash
>>> item_bytes("café"), item_bytes(-12), item_bytes(b"\\x00")
(b'caf\\xc3\\xa9', b'-12', b'\\x00')
>>> sketch_hash(b"", 0, b"apple", 1024)
383
"""

from __future__ import annotations

import hashlib
import numbers
import struct
from collections.abc import Callable, Sequence
from typing import Final, cast

import numpy as np

__all__ = [
    "DENSE_PAIRS",
    "HASH_PREFIX",
    "check_items",
    "item_bytes",
    "sketch_hash",
    "sketch_hash_table",
    "sketch_hashes",
    "unique_items",
]

#: Domain separation of the sketch hash (version 1 of the layout).
HASH_PREFIX = b"ldpkit/sketch-hash/v1\x00"
#: Most ``(row, item)`` codes that :func:`sketch_hashes` marks in a dense table (one byte and
#: one int64 each) to find the distinct pairs without sorting; more are sorted.
DENSE_PAIRS = 1 << 22
#: Fewest values of a numpy array that :func:`unique_items` groups by a fingerprint table
#: before sorting the distinct ones (below it ``np.unique`` sorts them all).
_GROUPED_VALUES = 1 << 12
#: Slot bits of the first round of :func:`_groups` (a table that stays in cache), and the
#: rounds before the entries left over are sorted.
_FIRST_BITS = 16
_ROUNDS = 4
#: Entries of the first round offered as representatives (the first ones: a value that
#: only appears later is grouped in the next round).
_SEED_ENTRIES = 1 << 16
#: Users per block of :func:`_block_groups` (a block's keys and slots stay in cache), the
#: most key words per entry it handles (its table: ``2^_FIRST_BITS`` rows of them), and the
#: most distinct values it tabulates (a quarter of the slots) before giving way to
#: :func:`_groups`.
_BLOCK = 1 << 15
_BLOCK_WORDS = 4
_BLOCK_DISTINCT = 1 << 14
#: A key word as stored bytes read in place (little-endian whatever the machine).
_LE_WORD = np.dtype("<u8")
_MIX = np.uint64(0x9E3779B97F4A7C15)
#: The ``mode`` of every table look-up by slot (:func:`_slots` is below the table's size,
#: so no index wraps): numpy's default "raise" mode costs about twice as much on 8-byte
#: entries.
_IN_TABLE: Final = "wrap"
_SPREADS = tuple(np.uint64(c) for c in (0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93))


def item_bytes(value: object, name: str = "values") -> bytes:
    """The byte string that names ``value`` (module notes); never echoes the value.

    Parameters
    ----------
    value : str, bytes or int
        One item.
    name : str
        The argument's name in error messages.

    Returns
    -------
    bytes

    Examples
    --------
    >>> from ldp._items import item_bytes
    >>> item_bytes(5) == item_bytes("5")
    True
    """
    if isinstance(value, str):  # numpy.str_ too
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{name}: an item is a string that is not valid Unicode") from None
    if isinstance(value, (bytes, bytearray)):  # numpy.bytes_ too
        return bytes(value)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be strings, bytes or integers, not booleans")
    if isinstance(value, numbers.Integral):
        return str(int(value)).encode("ascii")
    raise TypeError(
        f"{name} must be strings, bytes or integers (items), got {type(value).__name__}"
    )


def unique_items(
    values: object, name: str = "values", *, sort: bool = True
) -> tuple[list[bytes], np.ndarray]:
    """The distinct items of a 1-D collection (byte strings) and each user's index into them.

    A numpy array of strings, byte strings or integers is grouped exactly and vectorised
    (a checked fingerprint table for large arrays, then ``np.unique`` of the distinct
    values); any other sequence by a dictionary. A single string or byte string is refused
    (it is one item, not a list of them). Messages never echo an item.

    Parameters
    ----------
    values : 1-D array_like of str, bytes or int
        One item per user.
    name : str
        The argument's name in error messages.
    sort : bool, default True
        Whether the distinct items of a numpy array come in ``np.unique``'s order (else in
        an unspecified order, which saves a pass over the users; the groups are the same).

    Returns
    -------
    (list of bytes, ndarray of int64)
        ``unique[inverse[i]]`` is the byte string of ``values[i]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._items import unique_items
    >>> unique_items(np.array(["b", "a", "b"]))
    ([b'a', b'b'], array([1, 0, 1]))
    """
    if isinstance(values, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be a 1-D list of items (one per user), not a single item")
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be 1-D (one item per user), got shape {values.shape}")
        if values.dtype.kind in "iuUS":
            uniq, back = _distinct(values, sort)
            distinct = [item_bytes(v, name) for v in uniq.tolist()]
            return distinct, back
        if values.dtype.kind != "O":
            raise TypeError(
                f"{name} must be strings, bytes or integers (items), got dtype {values.dtype}"
            )
        seq: Sequence[object] = values.tolist()
    elif isinstance(values, Sequence):
        seq = values
    else:
        try:
            seq = list(values)  # type: ignore[call-overload]
        except TypeError:
            raise TypeError(
                f"{name} must be a 1-D list of items, got {type(values).__name__}"
            ) from None
    if all(type(value) is str for value in seq):  # plain strings: a key is the string
        texts = cast("Sequence[str]", seq)
        order = {value: i for i, value in enumerate(dict.fromkeys(texts))}
        try:
            encoded = [value.encode("utf-8") for value in order]
        except UnicodeEncodeError:
            raise ValueError(f"{name}: an item is a string that is not valid Unicode") from None
        return encoded, np.fromiter(map(order.__getitem__, texts), np.int64, len(texts))
    index: dict[tuple[type, object], int] = {}
    unique: list[bytes] = []
    inverse = np.empty(len(seq), dtype=np.int64)
    for i, value in enumerate(seq):
        key = (type(value), value)
        try:
            j = index.get(key)
        except TypeError:  # unhashable: a list, an array, a dict
            j = None
        if j is None:
            if isinstance(value, (list, tuple, np.ndarray, dict)):
                raise ValueError(f"{name} must be 1-D (one item per user)")
            j = len(unique)
            unique.append(item_bytes(value, name))
            index[key] = j
        inverse[i] = j
    return unique, inverse


def _key_words(values: np.ndarray) -> np.ndarray:
    """Each entry of a 1-D integer, ``U`` or ``S`` array as a row of ``uint64`` words, without
    loss: two rows are equal exactly when ``np.unique`` finds the two entries equal.

    An integer is its value as ``int64`` or ``uint64`` (one word). A string is its stored
    bytes, zero-padded to whole words: numpy pads every entry with zeros to the itemsize
    and strips trailing zeros from what it returns, so equal bytes are equal strings. A
    ``U`` array whose characters are all below 256 (text that is mostly ASCII) keeps one
    byte per character instead of four, still without loss.
    """
    n = values.size
    if values.dtype.kind in "iu":
        wide = values.astype(np.int64 if values.dtype.kind == "i" else np.uint64, copy=False)
        return wide.view(np.uint64).reshape(n, 1)
    values = np.ascontiguousarray(values)
    size = values.dtype.itemsize
    raw: np.ndarray = values.view(np.uint8).reshape(n, size)
    if values.dtype.kind == "U" and size and n:
        chars = raw.view(np.uint32)  # the characters (a swapped byte order is not narrowed)
        if _latin(chars):  # one byte per character holds every one of them
            raw, size = chars.astype(np.uint8), size // 4
    if size % 8 == 0 and size:
        return raw.view(np.uint64)
    return _padded_words(raw)


def _latin(chars: np.ndarray) -> bool:
    """Whether every one of the C-contiguous ``uint32`` characters ``chars`` is below 256.

    Read as whole 64-bit words (two characters each), OR-ed together: a character is
    below 256 exactly when its top 24 bits are 0, so all are exactly when both 32-bit
    halves of the OR (and the odd last character) are below 256. One pass over the text,
    faster than its ``max``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._items import _latin
    >>> text = np.array([[97, 255, 0]], dtype=np.uint32)
    >>> _latin(text), _latin(text + 1)
    (True, False)
    """
    flat = chars.reshape(-1)
    pairs = flat.size // 2
    ored = int(np.bitwise_or.reduce(flat[: 2 * pairs].view(np.uint64))) if pairs else 0
    ored |= ored >> 32
    if flat.size % 2:
        ored |= int(flat[-1])
    return ored & 0xFFFFFFFF < 256


def _padded_words(raw: np.ndarray) -> np.ndarray:
    """The rows of ``raw`` (``(n, size)`` C-contiguous ``uint8``) zero-padded to whole
    little-endian ``uint64`` words, ``(n, ceil(size / 8))``, one contiguous column per word.

    Word ``j`` of a row is the 8 bytes from its byte ``8 j``, read in place; when fewer
    than 8 of them belong to the row, the bytes that follow (the next row's) are masked
    to zero, and the last rows, whose read would pass the end, are padded apart."""
    n, size = raw.shape
    count = -(-max(size, 1) // 8)
    out = np.empty((count, n), dtype=np.uint64).T  # column j contiguous
    total = n * size
    for j in range(count):
        start = 8 * j
        fit = min(n, (total - start - 8) // size + 1) if total >= start + 8 else 0
        if fit:
            column = np.ndarray((fit,), _LE_WORD, buffer=raw, offset=start, strides=(size,))
            if size - start >= 8:
                out[:fit, j] = column
            else:
                mask = np.uint64((1 << (8 * (size - start))) - 1)
                np.bitwise_and(column, mask, out=out[:fit, j])
        if fit < n:
            tail = np.zeros((n - fit, 8 * count), dtype=np.uint8)
            tail[:, :size] = raw[fit:]
            out[fit:, j] = tail.view(_LE_WORD)[:, j]
    return out


def _fingerprint(words: np.ndarray) -> np.ndarray:
    """One ``uint64`` per row of key words ``w_0 .. w_(c-1)``: the polynomial
    ``(..(w_0 M + w_1) M + ..) M + w_(c-1)`` modulo ``2^64`` (``M = _MIX``). Equal rows, equal
    fingerprints; and given ``w_0 .. w_(c-2)``, the fingerprint determines ``w_(c-1)`` (it is
    that word plus a function of the others), so rows with equal fingerprints and equal
    first ``c - 1`` words are equal."""
    if words.shape[1] == 1:
        return words[:, 0].copy()
    out = np.multiply(words[:, 0], _MIX)  # the first step writes the new array
    out += words[:, 1]
    for j in range(2, words.shape[1]):
        out *= _MIX
        out += words[:, j]
    return out


def _slots(fingerprint: np.ndarray, salt: int, bits: int) -> np.ndarray:
    """A slot in ``0 .. 2^bits - 1`` for every fingerprint: the top bits of a multiplicative
    hash (every bit of the fingerprint moves them), a different multiplier for every
    ``salt``."""
    mixed = fingerprint * _SPREADS[salt % len(_SPREADS)]
    mixed >>= np.uint64(64 - bits)
    return mixed.view(np.int64)  # below 2^bits: the same values, without a copy


def _absent(salt: int, bits: int) -> np.ndarray | None:
    """For every slot, a fingerprint whose own slot is another one (``uint64``): what an
    empty slot holds, so that no entry that falls in it matches; ``None`` when the slot hash
    sends 0 and 1 to one slot (then the empty slots are told apart by their group number)."""
    zero, one = _slots(np.array([0, 1], dtype=np.uint64), salt, bits).tolist()
    if zero == one:
        return None
    out = np.zeros(1 << bits, dtype=np.uint64)
    out[zero] = 1
    return out


def _groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, group)``: one index per distinct value (each value's representative) and
    each entry's group, ``values[i] == values[first[group[i]]]``, without sorting ``values``.

    Every entry's key words (:func:`_key_words`, lossless) are fingerprinted and the
    fingerprint picks a slot of a table (``2^16`` slots at first, so that it stays in
    cache); one entry written to each slot represents it. The first round takes its
    representatives from the first ``_SEED_ENTRIES`` entries only (an empty slot holds a
    fingerprint of another slot, :func:`_absent`, which no entry of its own matches). An
    entry joins its slot's group only when its fingerprint and every key word but the last
    equal the representative's (then the last word is equal too, :func:`_fingerprint`), so
    the grouping is exact whatever the fingerprints and slots do. A value whose slot went
    to another value (or stayed empty) has none of its entries grouped (the slot is a
    function of the value), so the entries left over are grouped again, apart, with another
    slot hash and a table sized to them, every one of them offered as a representative;
    after a few rounds ``np.unique`` sorts whatever is left.
    """
    words = _key_words(values)
    n = values.size
    fingerprint = _fingerprint(words)
    checked = words.shape[1] - 1  # the key words compared besides the fingerprint
    group = np.empty(0, dtype=np.int64)
    firsts: list[np.ndarray] = []
    count = 0
    pending: np.ndarray | None = None  # None: every entry
    for round_ in range(_ROUNDS):
        size = n if pending is None else pending.size
        if not size:
            break
        bits = _FIRST_BITS if round_ == 0 else min(24, max(_FIRST_BITS, size.bit_length() + 2))
        prints = fingerprint if pending is None else fingerprint[pending]
        keys = words if pending is None else words[pending]
        slot = _slots(prints, round_, bits)
        offered = min(size, _SEED_ENTRIES) if pending is None else size
        owner = np.full(1 << bits, -1, dtype=np.intp)
        owner[slot[:offered]] = np.arange(offered, dtype=np.intp)  # one entry of each is left
        used = np.flatnonzero(owner >= 0)
        first = owner[used]
        absent = _absent(round_, bits)
        table = np.zeros(1 << bits, dtype=np.uint64) if absent is None else absent
        table[used] = prints[first]
        same = np.take(table, slot, mode=_IN_TABLE) == prints
        for j in range(checked):
            column = keys[:, j]
            table[used] = column[first]  # the empty slots already fail on the fingerprint
            same &= np.take(table, slot, mode=_IN_TABLE) == column
        number = np.full(1 << bits, -1, dtype=np.int64)
        number[used] = np.arange(count, count + used.size)
        local = np.take(number, slot, mode=_IN_TABLE)
        if absent is None:  # an empty slot's fingerprint may match: its number does not
            same &= local >= 0
        count += used.size
        if pending is None:  # the first round: every entry, in order
            firsts.append(first)
            group = local
            if same.all():
                return first, group
            pending = np.flatnonzero(~same)
            continue
        firsts.append(pending[first])
        group[pending[same]] = local[same]
        pending = pending[~same]
    if pending is not None and pending.size:
        _, where, back = np.unique(values[pending], return_index=True, return_inverse=True)
        group[pending] = count + np.asarray(back, dtype=np.int64).reshape(-1)
        firsts.append(pending[where])
    return np.concatenate(firsts), group


def _block_keys(values: np.ndarray) -> tuple[Callable[[int, int], np.ndarray | None], int] | None:
    """``(keys, count)``: ``keys(start, stop)`` are the key words of ``values[start:stop]``
    (``count`` per entry, lossless as :func:`_key_words`'s: equal words exactly when the
    entries are equal), or ``None`` when that block has a character that a narrowing
    decided on the first block cannot hold (then no block's words are comparable).
    ``None`` instead of a pair when the keys are too long for :func:`_block_groups`."""
    n = values.size
    if values.dtype.kind in "iu":
        whole = _key_words(values)
        return (lambda start, stop: whole[start:stop]), 1
    values = np.ascontiguousarray(values)
    size = values.dtype.itemsize
    raw: np.ndarray = values.view(np.uint8).reshape(n, size)
    chars = raw.view(np.uint32) if values.dtype.kind == "U" and size else None
    narrow = chars is not None and _latin(chars[:_BLOCK])
    stored = size // 4 if narrow else size
    count = -(-max(stored, 1) // 8)
    if count > _BLOCK_WORDS:
        return None

    def keys(start: int, stop: int) -> np.ndarray | None:
        if not narrow:
            return _padded_words(raw[start:stop])
        assert chars is not None
        block = chars[start:stop]
        if not _latin(block):  # keyed wide, it would not meet its narrow twins
            return None
        return _padded_words(block.astype(np.uint8))

    return keys, count


def _block_groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_groups`' answer, ``(first, group)``, built block by block of users (so that a
    block's keys, slots and groups stay in cache), or ``None`` when the values have too many
    distinct ones or keys too long for one table (then :func:`_groups` groups them).

    One table of ``2^_FIRST_BITS`` slots lasts over every block: a slot is a function of
    the value (:func:`_fingerprint` then :func:`_slots`), one of the entries to reach an empty
    slot becomes its value's representative and its key words are stored there, and an
    entry joins the slot's group only when its key words equal the stored ones, every word
    checked. An entry that meets another value's key tries the value's next slot (another
    :func:`_slots` salt); a filled slot is never emptied, so every entry of a value finds
    the one slot where the value was stored, or, when all of its slots went to other
    values, none: those entries are grouped apart (:func:`_groups`, or ``np.unique`` when
    few), after the table's groups. Exact whatever the fingerprints do.
    """
    made = _block_keys(values)
    if made is None:
        return None
    keys_of, count = made
    n = values.size
    bits = _FIRST_BITS
    number = np.full(1 << bits, -1, dtype=np.int64)
    owner = np.empty(1 << bits, dtype=np.intp)  # scratch: read only where just written
    stored = [np.zeros(1 << bits, dtype=np.uint64) for _ in range(count)]  # key words
    group = np.empty(n, dtype=np.int64)
    firsts: list[np.ndarray] = []
    pending: list[np.ndarray] = []
    groups = 0
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        keys = keys_of(start, stop)
        if keys is None:
            return None
        prints = _fingerprint(keys)
        at: np.ndarray | None = None  # None: every entry of the block
        for round_ in range(len(_SPREADS)):
            here = prints if at is None else prints[at]
            slot = _slots(here, round_, bits)
            # not in the "raise" mode: numpy then writes the first round's groups in place
            # (an out= array is copied in that mode)
            into = group[start:stop] if at is None else None
            local = np.take(number, slot, out=into, mode=_IN_TABLE)
            # an empty slot met (once the values are stored, none is: one pass says so)
            if local.size and local.min() < 0:
                fresh = np.flatnonzero(local < 0)
                wanted = slot[fresh]
                owner[wanted] = fresh  # one entry of each empty slot is left
                kept = np.take(owner, wanted, mode=_IN_TABLE) == fresh
                slots, where = wanted[kept], fresh[kept]
                if groups + slots.size > _BLOCK_DISTINCT:
                    return None
                taken = where if at is None else at[where]
                for j, column in enumerate(stored):
                    column[slots] = keys[taken, j]
                number[slots] = np.arange(groups, groups + slots.size)
                groups += slots.size
                firsts.append(start + taken)
                local[fresh] = np.take(number, slot[fresh], mode=_IN_TABLE)
            here_keys = keys if at is None else keys[at]
            differ = np.take(stored[0], slot, mode=_IN_TABLE) != here_keys[:, 0]
            for j in range(1, count):
                differ |= np.take(stored[j], slot, mode=_IN_TABLE) != here_keys[:, j]
            if at is None:
                if not differ.any():
                    break
                at = np.flatnonzero(differ)
                continue
            group[start + at[~differ]] = local[~differ]
            at = at[differ]
            if not at.size:
                break
        if at is not None and at.size:
            pending.append(start + at)
    if pending:
        left = np.concatenate(pending)
        if left.size < _GROUPED_VALUES:
            _, where, back = np.unique(values[left], return_index=True, return_inverse=True)
            first, local = where, np.asarray(back, dtype=np.int64).reshape(-1)
        else:
            first, local = _groups(values[left])
        group[left] = groups + local
        firsts.append(left[first])
    return np.concatenate(firsts), group


def _distinct(values: np.ndarray, sort: bool) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of an integer or string array and each entry's index into them
    (int64): ``np.unique(values, return_inverse=True)`` when ``sort``, else the same groups
    in an unspecified order. Large arrays are grouped by :func:`_groups` first, so that
    only their distinct values are sorted."""
    if values.size < _GROUPED_VALUES:
        uniq, back = np.unique(values, return_inverse=True)
        return uniq, np.asarray(back, dtype=np.int64).reshape(-1)
    grouped = _block_groups(values)
    first, group = _groups(values) if grouped is None else grouped
    if not sort:
        return values[first], group
    uniq, rank = np.unique(values[first], return_inverse=True)
    return uniq, np.take(np.asarray(rank, dtype=np.int64).reshape(-1), group)


def check_items(values: object, name: str = "values") -> list[bytes]:
    """A 1-D collection of items as their byte strings (one per user; see
    :func:`unique_items`)."""
    unique, inverse = unique_items(values, name)
    return [unique[i] for i in inverse.tolist()]


def _message_head(salt: bytes, row: int) -> bytes:
    return HASH_PREFIX + struct.pack(">I", len(salt)) + salt + struct.pack(">I", row)


def sketch_hash(salt: bytes, row: int, item: bytes, width: int) -> int:
    """``h_row(item)`` in ``0 .. width - 1`` (module notes).

    Parameters
    ----------
    salt : bytes
        The public salt's UTF-8 bytes.
    row : int
        The hash function's index, ``0 <= row < 2^32``.
    item : bytes
        The item's byte string (:func:`item_bytes`).
    width : int
        Number of buckets.

    Returns
    -------
    int

    Examples
    --------
    >>> from ldp._items import sketch_hash
    >>> [sketch_hash(b"2026", j, b"apple", 16) for j in range(4)]
    [10, 15, 5, 12]
    """
    value = hashlib.sha256(_message_head(salt, row) + item).digest()
    return int.from_bytes(value[:8], "big") % width


def _hash_column(head: bytes, items: Sequence[bytes], width: int) -> np.ndarray:
    """``int.from_bytes(SHA-256(head || item)[:8], "big") mod width`` for every item (int64):
    one SHA-256 per item, the first 8 bytes of each hash read as big-endian ``uint64``."""
    sha = hashlib.sha256
    packed = b"".join([sha(head + item).digest()[:8] for item in items])
    return (np.frombuffer(packed, dtype=">u8") % np.uint64(width)).astype(np.int64)


def sketch_hash_table(salt: bytes, unique: Sequence[bytes], depth: int, width: int) -> np.ndarray:
    """``h_j(unique[i])`` for every item ``i`` and row ``j < depth``: a ``(len(unique), depth)``
    int64 table (one SHA-256 per item and row).

    Parameters
    ----------
    salt : bytes
        The public salt's UTF-8 bytes.
    unique : sequence of bytes
        The items' byte strings (:func:`item_bytes`).
    depth : int
        Number of rows (hash functions), ``depth <= 2^32``.
    width : int
        Number of buckets.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> from ldp._items import sketch_hash_table
    >>> sketch_hash_table(b"2026", [b"apple", b"pear"], 4, 16)[0].tolist()
    [10, 15, 5, 12]
    """
    out = np.empty((len(unique), depth), dtype=np.int64)
    for row in range(depth):
        out[:, row] = _hash_column(_message_head(salt, row), unique, width)
    return out


def sketch_hashes(
    salt: bytes, rows: np.ndarray, unique: Sequence[bytes], inverse: np.ndarray, width: int
) -> np.ndarray:
    """``h_{rows[i]}(unique[inverse[i]])`` for every ``i`` (each distinct pair hashed once).

    The distinct ``(row, item)`` pairs are found by marking a dense table of every code
    ``row * len(unique) + item`` when it has at most :data:`DENSE_PAIRS` entries (no sort),
    else by sorting the codes.

    Parameters
    ----------
    salt : bytes
        The public salt's UTF-8 bytes.
    rows : ndarray of int
        One row index per user, ``0 <= row < 2^32``.
    unique : sequence of bytes
        The distinct items' byte strings (:func:`unique_items`).
    inverse : ndarray of int
        Each user's index into ``unique``.
    width : int
        Number of buckets.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._items import sketch_hashes
    >>> sketch_hashes(b"2026", np.array([0, 3, 0]), [b"apple"], np.zeros(3, int), 16).tolist()
    [10, 12, 10]
    """
    rows = np.asarray(rows, dtype=np.int64)
    inverse = np.asarray(inverse, dtype=np.int64)
    if rows.size == 0:
        return np.empty(0, dtype=np.int64)
    items = len(unique)
    size = (int(rows.max()) + 1) * items
    codes = rows * items + inverse
    if size <= DENSE_PAIRS:
        seen = np.zeros(size, dtype=bool)
        seen[codes] = True
        pairs = np.flatnonzero(seen)
        del seen
        back = None
    else:
        pairs, back = np.unique(codes, return_inverse=True)
    values = np.empty(pairs.size, dtype=np.int64)
    pair_rows = pairs // items
    starts = np.flatnonzero(np.r_[True, pair_rows[1:] != pair_rows[:-1]])
    for start, stop in zip(starts.tolist(), [*starts[1:].tolist(), pairs.size]):
        members = (pairs[start:stop] - pair_rows[start] * items).tolist()
        head = _message_head(salt, int(pair_rows[start]))
        values[start:stop] = _hash_column(head, [unique[i] for i in members], width)
    if back is not None:
        return values[np.asarray(back).reshape(-1)]
    lookup = np.empty(size, dtype=np.int64)  # only the marked pairs are read
    lookup[pairs] = values
    return lookup[codes]
