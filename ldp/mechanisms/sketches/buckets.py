"""The buckets of items under a sketch's public hash functions, tabulated and cached.

A count-mean sketch hashes an item with ``depth`` public functions ``h_j`` (a salted
SHA-256, :mod:`ldp._items`): the device with the item hashes it under its row, the server
under every row when it queries the item. ``h_j(item)`` depends on the item and the row
only, never on the user, so :class:`BucketCache` hashes each distinct item once per row
into a table (one row of ``depth`` buckets per item) and keeps the tables of recently seen
items, so that the items privatized and then queried, or queried again, are not hashed
again. The cache is bounded (:data:`MAX_CACHED_BUCKETS` buckets, least recently used
items leave first) and items beyond it are hashed without being kept: a huge domain costs
hashing, never unbounded memory.

Examples
--------
>>> from ldp.mechanisms.sketches.buckets import BucketCache
>>> cache = BucketCache("2026", width=16, depth=4)
>>> cache.table([b"apple"]).tolist()
[[10, 15, 5, 12]]
>>> len(cache)
1
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ldp._items import sketch_hash_table, sketch_hashes

__all__ = ["MAX_CACHED_BUCKETS", "BucketCache"]

#: Most buckets (items times ``depth``) a :class:`BucketCache` keeps: 8 MiB of int64. A
#: request for more items than fit is hashed and answered without being cached.
MAX_CACHED_BUCKETS = 1 << 20


class BucketCache:
    """``h_j(item)`` for every row ``j`` of one sketch, kept for recently seen items.

    Thread-safe; pickles and copies as an empty cache of the same hash functions.

    Parameters
    ----------
    salt : str
        The public salt of the hash functions.
    width : int
        Number of buckets.
    depth : int
        Number of rows (hash functions).
    limit : int, default MAX_CACHED_BUCKETS
        Most buckets kept (items times ``depth``).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.sketches.buckets import BucketCache
    >>> cache = BucketCache("", width=1024, depth=2)
    >>> cache.buckets(np.array([1, 0, 1]), [b"apple"], np.zeros(3, dtype=int)).tolist()
    [333, 383, 333]
    """

    def __init__(self, salt: str, width: int, depth: int, limit: int = MAX_CACHED_BUCKETS) -> None:
        self.salt, self.width, self.depth, self.limit = salt, int(width), int(depth), int(limit)
        self._salt_bytes = salt.encode("utf-8")
        self._items: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[type, tuple[str, int, int, int]]:
        return (type(self), (self.salt, self.width, self.depth, self.limit))

    def __len__(self) -> int:
        """Number of items cached."""
        return len(self._items)

    @property
    def capacity(self) -> int:
        """Most items kept (``limit // depth``)."""
        return self.limit // self.depth

    def table(self, unique: Sequence[bytes]) -> np.ndarray:
        """``h_j(unique[i])`` as a ``(len(unique), depth)`` int64 array.

        Cached items are read from the cache; the others are hashed (each once per row) and
        kept when all of ``unique`` fits in the cache.
        """
        count = len(unique)
        keep = count <= self.capacity
        with self._lock:
            rows = [self._items.get(item) for item in unique]
            if keep:
                for item, row in zip(unique, rows):
                    if row is not None:
                        self._items.move_to_end(item)
        missing = [i for i, row in enumerate(rows) if row is None]
        if not missing:
            return np.array(rows, dtype=np.int64).reshape(count, self.depth)
        out = np.empty((count, self.depth), dtype=np.int64)
        for i, row in enumerate(rows):
            if row is not None:
                out[i] = row
        fresh = sketch_hash_table(
            self._salt_bytes, [unique[i] for i in missing], self.depth, self.width
        )
        out[missing] = fresh
        if keep:
            with self._lock:
                for i, row in zip(missing, fresh):
                    self._items[unique[i]] = row
                while len(self._items) > self.capacity:
                    self._items.popitem(last=False)
        return out

    def buckets(self, rows: np.ndarray, unique: Sequence[bytes], inverse: np.ndarray) -> np.ndarray:
        """``h_{rows[i]}(unique[inverse[i]])`` for every user ``i`` (int64).

        When the table of every item (``len(unique) * depth`` hashes) costs no more than one
        hash per user and fits in the cache, it is tabulated (and kept for the queries);
        otherwise each distinct ``(row, item)`` pair is hashed once
        (:func:`~ldp._items.sketch_hashes`).
        """
        rows = np.asarray(rows, dtype=np.int64)
        inverse = np.asarray(inverse, dtype=np.int64)
        table = self.tabulated(unique, rows.size)
        if table is not None:
            return table[inverse, rows]
        return sketch_hashes(self._salt_bytes, rows, unique, inverse, self.width)

    def tabulated(self, unique: Sequence[bytes], users: int) -> np.ndarray | None:
        """:meth:`table` of ``unique`` when ``users`` reports are worth it (the table costs
        no more hashes than one per user and fits in the cache), else ``None``."""
        count = len(unique)
        if count * self.depth <= max(users, 1) and count <= self.capacity:
            return self.table(unique)
        return None
