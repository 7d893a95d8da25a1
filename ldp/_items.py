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
from collections.abc import Sequence

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
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


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


def unique_items(values: object, name: str = "values") -> tuple[list[bytes], np.ndarray]:
    """The distinct items of a 1-D collection (byte strings) and each user's index into them.

    A numpy array of strings, byte strings or integers is deduplicated by ``np.unique``
    (vectorised); any other sequence by a dictionary. A single string or byte string is
    refused (it is one item, not a list of them). Messages never echo an item.

    Parameters
    ----------
    values : 1-D array_like of str, bytes or int
        One item per user.
    name : str
        The argument's name in error messages.

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
            uniq, back = _sorted_unique(values)
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


def _byte_columns(values: np.ndarray) -> np.ndarray:
    """The bytes of each entry of a 1-D array as columns of unsigned words, one contiguous
    row per word position (equal entries, equal columns: numpy pads strings with zeros)."""
    values = np.ascontiguousarray(values)
    size = values.dtype.itemsize
    word = next(w for w in (8, 4, 2, 1) if size % w == 0)
    words = values.view(np.dtype(f"u{word}")).reshape(values.size, size // word)
    return np.ascontiguousarray(words.T)


def _groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, group)``: one index per distinct value (each value's representative) and
    each entry's group, ``values[i] == values[first[group[i]]]``, without sorting ``values``.

    Each entry's fingerprint (a multiplicative hash of its bytes) picks a slot of a table
    of about ``4 n`` slots; the last entry written to a slot represents it. An entry is
    grouped with its slot's representative only when their bytes are equal (checked, so
    that the grouping is exact whatever the fingerprints do); the entries of values that
    lost their slot to another value are grouped by ``np.unique``.
    """
    columns = _byte_columns(values)
    n = values.size
    mixed = np.full(n, _GOLDEN, dtype=np.uint64)
    for column in columns:
        mixed ^= column
        mixed *= _MIX
    bits = min(24, n.bit_length() + 2)
    index = np.int32 if n < 1 << 31 else np.int64
    slot = (mixed >> np.uint64(64 - bits)).astype(index)
    del mixed
    owner = np.empty(1 << bits, dtype=index)  # only written slots are read
    everyone = np.arange(n, dtype=index)
    owner[slot] = everyone
    representative = owner[slot]
    same = columns[0][representative] == columns[0]
    for column in columns[1:]:
        same &= column[representative] == column
    first = np.flatnonzero(representative == everyone)
    owner[slot[first]] = np.arange(first.size, dtype=index)  # slot -> group
    group = owner[slot].astype(np.int64)
    rest = np.flatnonzero(~same)
    if rest.size:
        _, where, back = np.unique(values[rest], return_index=True, return_inverse=True)
        group[rest] = first.size + np.asarray(back, dtype=np.int64).reshape(-1)
        first = np.concatenate([first, rest[where]])
    return first, group


def _sorted_unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` (the inverse as int64): large arrays are
    grouped by :func:`_groups` first, so that only their distinct values are sorted."""
    if values.size < _GROUPED_VALUES:
        uniq, back = np.unique(values, return_inverse=True)
        return uniq, np.asarray(back, dtype=np.int64).reshape(-1)
    first, group = _groups(values)
    uniq, rank = np.unique(values[first], return_inverse=True)
    return uniq, np.asarray(rank, dtype=np.int64).reshape(-1)[group]


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
