"""The limits every mechanism applies to its inputs, and the checks that enforce them.

One home for the accepted epsilons, the largest alphabets and statistics, the chunk size of
the vectorised loops, and the validation of categories, reports, ``n`` and the variance
convention; :mod:`ldp.mechanisms.base` and the families import them from here.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import (
    check_epsilon,
    check_integer,
    compact,
)

__all__ = [
    "CHUNK_ELEMENTS",
    "CONVENTIONS",
    "MAX_CATEGORIES",
    "MAX_EPSILON",
    "MAX_STATISTIC_ENTRIES",
    "MAX_VECTOR_CATEGORIES",
    "MIN_EPSILON",
    "check_categories",
    "check_convention",
    "check_index_reports",
    "check_mechanism_epsilon",
    "check_n",
    "check_size",
    "chunk_rows",
    "index_dtype",
]

#: The epsilons the mechanisms accept. Above ``MAX_EPSILON`` the smallest output probability
#: ``~e^-eps`` leaves double precision (``e^-745`` is 0), so the mechanism would silently
#: become non-private; below ``MIN_EPSILON`` the gap ``p - q ~ eps`` that every estimator
#: divides by loses more than a millionth of its digits to rounding.
MIN_EPSILON = 1e-6
MAX_EPSILON = 700.0


def check_mechanism_epsilon(epsilon: object) -> float:
    """An epsilon in ``[MIN_EPSILON, MAX_EPSILON]``."""
    return check_epsilon(epsilon, low=MIN_EPSILON, high=MAX_EPSILON, allow_inf=False)


#: Largest alphabet of a frequency oracle (category indices and report sizes stay in int64).
MAX_CATEGORIES = 1 << 40

#: Largest array (in entries, 8 bytes each: 512 MiB) that decoding builds: ``aggregate``,
#: ``estimate`` and ``empty_statistic`` hold one count per category (per output of Hadamard
#: response, per hash row and bucket of local hashing). Oracles with small reports (GRR, local
#: hashing, Hadamard response) privatize larger alphabets, up to ``MAX_CATEGORIES``; their
#: reports cannot be decoded in memory, and decoding them raises ``ValueError`` up front.
MAX_STATISTIC_ENTRIES = 1 << 26

#: Largest alphabet of a bit-vector report (unary encoding, subset selection): each report
#: holds ``k`` bits (512 KiB at the limit) and privatizing works on ``k`` entries per user.
MAX_VECTOR_CATEGORIES = 1 << 22

#: Users processed at once by the chunked kernels (bounds the working memory).
CHUNK_ELEMENTS = 1 << 22

CONVENTIONS = ("fixed", "iid")


def check_convention(convention: object) -> str:
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be 'fixed' or 'iid', got {convention!r}")
    return str(convention)


def check_n(n: object) -> int:
    return check_integer(n, "n", low=1)


def check_size(entries: int, limit: int, limit_name: str, what: str, argument: str) -> None:
    """Raise ``ValueError`` before allocating ``entries`` when they exceed ``limit``.

    The message names the operation, the argument that sets the size and the limit (as the
    module constant ``limit_name``), with every number in compact form.
    """
    if entries > limit:
        raise ValueError(
            f"{what}: {argument} needs {compact(entries)} entries in memory; the limit is "
            f"{limit_name} = {compact(limit)} (ldp.mechanisms.limits)"
        )


def index_dtype(size: int) -> type[np.signedinteger]:
    """The smallest signed integer dtype holding ``0 .. size - 1``."""
    for dtype in (np.int8, np.int16, np.int32):
        if size - 1 <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def chunk_rows(n_rows: int, row_elements: int) -> Iterator[slice]:
    """Slices of at most ``CHUNK_ELEMENTS / row_elements`` rows covering ``range(n_rows)``."""
    step = max(1, CHUNK_ELEMENTS // max(1, row_elements))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def check_categories(values: ArrayLike, k: int, name: str = "values") -> np.ndarray:
    """A 1-D int64 array of category indices in ``0 .. k - 1``; raises, never clips.

    Integer dtypes are accepted; float arrays only when every entry is a finite whole number.
    The values are private data: a message names ``name`` and the problem (and how many
    entries have it), never a value.
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a 1-D array of category indices (rows of equal length)"
        ) from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one category per user), got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must not contain NaN or inf")
        whole = arr == np.round(arr)
        if not np.all(whole):
            raise TypeError(
                f"{name} must contain integer categories; {int(arr.size - whole.sum())} of "
                f"{arr.size} entries are not whole numbers"
            )
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must contain integer categories, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() >= k):  # no temporaries on the way
        outside = (arr < 0) | (arr >= k)
        if np.any(outside):
            raise ValueError(
                f"{name} must lie in [0, {k}) (k = {k}); {int(outside.sum())} of {arr.size} "
                "entries do not"
            )
    return arr.astype(np.int64, copy=False)


def check_index_reports(reports: ArrayLike, size: int, name: str = "reports") -> np.ndarray:
    """1-D integer reports in ``0 .. size - 1``."""
    arr = np.asarray(reports)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integer output indices, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() >= size):
        bad = int(arr.min() if arr.min() < 0 else arr.max())
        raise ValueError(
            f"{name} must lie in [0, {size}) for this mechanism, got {bad!r} "
            "(reports from a mechanism with other parameters?)"
        )
    return arr
