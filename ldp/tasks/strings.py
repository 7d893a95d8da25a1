"""Strings as the bit strings of the heavy-hitter searches, and back."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_integer, describe
from ldp.mechanisms.limits import check_categories

__all__ = ["MAX_BITS", "decode_strings", "encode_strings"]


#: Longest bit string (a prefix oracle has at most ``2^40`` categories, ``MAX_CATEGORIES``).
MAX_BITS = 40

#: The oracles whose reports can be decoded at single values (``estimate_values``).
PREFIX_ORACLES = ("OLH", "BLH", "GRR", "HR")

#: Bytes of the BLAKE2b hash behind ``encode_strings(..., method="hash")``.
_HASH_BYTES = 8


# --------------------------------------------------------------------------- strings
def _as_bytes(strings: Iterable[object], name: str) -> list[bytes]:
    out: list[bytes] = []
    for i, s in enumerate(strings):
        if isinstance(s, bytes):
            out.append(s)
        elif isinstance(s, str):
            out.append(s.encode("utf-8"))
        else:
            raise TypeError(f"{name}[{i}] must be a str or bytes, got {type(s).__name__}")
    return out


def check_bits(bits: object) -> int:
    b = check_integer(bits, "bits", low=1)
    if b > MAX_BITS:
        raise ValueError(f"bits must be <= {MAX_BITS} (MAX_BITS), got {b}")
    return b


def encode_strings(
    strings: Iterable[str | bytes], bits: int = 32, method: str = "hash"
) -> np.ndarray:
    """Map strings to ``bits``-bit integers, the values of a heavy-hitter search.

    ``"hash"``: the first ``bits`` bits (most significant first) of the 8-byte BLAKE2b hash
    of the string's UTF-8 bytes (``hashlib.blake2b(data, digest_size=8)``, read big-endian):
    portable (any language with BLAKE2b reproduces it), one-way, and distinct strings collide
    with probability ``2^-bits`` per pair. The server names a found code by hashing candidate
    strings (:meth:`HeavyHitters.labels`).
    ``"bytes"``: the UTF-8 bytes themselves, zero-padded on the right to ``bits / 8`` bytes
    and read big-endian: reversible (:func:`decode_strings`), so the search finds the
    strings themselves; every string must fit and hold no NUL character.

    Parameters
    ----------
    strings : iterable of str or bytes
        One string per user.
    bits : int
        Length of the codes, ``1 .. MAX_BITS`` (a multiple of 8 for ``"bytes"``).
    method : {"hash", "bytes"}
        How strings become codes.

    Returns
    -------
    ndarray of int64
        One code per string, in ``0 .. 2^bits - 1``.

    Examples
    --------
    >>> from ldp.tasks import encode_strings, decode_strings
    >>> codes = encode_strings(["abc", "hi"], bits=32, method="bytes")
    >>> [hex(int(c)) for c in codes]
    ['0x61626300', '0x68690000']
    >>> decode_strings(codes, bits=32)
    ['abc', 'hi']
    >>> int(encode_strings(["abc"], bits=16)[0]) == int(encode_strings(["abc"])[0]) >> 16
    True
    """
    b = check_bits(bits)
    if isinstance(strings, (str, bytes)):
        raise TypeError("strings must be an iterable of strings (one per user), not one string")
    data = _as_bytes(strings, "strings")
    if method == "hash":
        shift = 8 * _HASH_BYTES - b
        return np.fromiter(
            (
                int.from_bytes(hashlib.blake2b(d, digest_size=_HASH_BYTES).digest(), "big") >> shift
                for d in data
            ),
            dtype=np.int64,
            count=len(data),
        )
    if method == "bytes":
        if b % 8:
            raise ValueError(f"bits must be a multiple of 8 for method='bytes', got {b}")
        width = b // 8
        codes = np.empty(len(data), dtype=np.int64)
        for i, d in enumerate(data):
            if len(d) > width or b"\x00" in d:
                why = "holds a NUL byte" if b"\x00" in d else f"is longer than {width} bytes"
                raise ValueError(f"strings[{i}] {why} (method='bytes', bits={b})")
            codes[i] = int.from_bytes(d.ljust(width, b"\x00"), "big")
        return codes
    raise ValueError(f"method must be 'hash' or 'bytes', got {describe(method)}")


def decode_strings(codes: ArrayLike, bits: int = 32) -> list[str]:
    """The strings behind codes of ``encode_strings(..., method="bytes")``.

    Parameters
    ----------
    codes : array_like of int
        Codes in ``0 .. 2^bits - 1``.
    bits : int
        Length of the codes (a multiple of 8).

    Returns
    -------
    list of str
        The UTF-8 strings (trailing zero bytes removed); bytes that are not UTF-8 (a prefix
        cut inside a character) are replaced by U+FFFD.

    Examples
    --------
    >>> from ldp.tasks import decode_strings
    >>> decode_strings([0x6F6B0000], bits=32)
    ['ok']
    """
    b = check_bits(bits)
    if b % 8:
        raise ValueError(f"bits must be a multiple of 8, got {b}")
    arr = check_categories(np.atleast_1d(np.asarray(codes)), 1 << b, "codes")
    return [
        int(c).to_bytes(b // 8, "big").rstrip(b"\x00").decode("utf-8", errors="replace")
        for c in arr
    ]
