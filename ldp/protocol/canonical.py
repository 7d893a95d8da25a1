"""The text a protocol file is hashed as, and the limits every reader applies to its JSON.

Version 2 hashes the **RFC 8785 JSON Canonicalization Scheme** (JCS) text of the document
(its ``fingerprint`` field left out): keys sorted by their UTF-16 code units, no whitespace,
strings escaped as ECMAScript's ``JSON.stringify`` escapes them (UTF-8 otherwise), numbers
written as ECMAScript writes doubles (``1``, ``0.1``, ``1e-7``, ``1e+21``). Every language
with IEEE doubles can reproduce it byte for byte, so the JavaScript client checks the
fingerprint too. Version 1 hashed Python's ``json.dumps(..., sort_keys=True,
separators=(",", ":"), ensure_ascii=True)``, which other languages cannot reproduce without
knowing which numbers were written as integers; files of that version are still read.

Readers refuse, with one line: a file above ``MAX_PROTOCOL_BYTES``, nesting deeper than
``MAX_DEPTH``, a key repeated in one object (JSON parsers disagree on which one wins, so the
server and a device could read different files), ``NaN`` or ``Infinity``, and integers above
``2^53``. The canonical text and the limits are the device client's own
(``clients/python/ldp_client.py``: ``canonical_json``, ``read_json``), so that the library
and the devices hash and read a file the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ldp.core import canonical_json as python_canonical_json
from ldp.protocol.device import device_client

__all__ = [
    "MAX_DEPTH",
    "MAX_PROTOCOL_BYTES",
    "content_hash",
    "jcs",
    "nesting_depth",
    "parse_document",
]

#: Largest protocol file (bytes of its JSON text) any reader accepts (the clients' limit).
MAX_PROTOCOL_BYTES = 8 << 20
#: Deepest nesting of arrays and objects a protocol file may have (the clients' limit).
MAX_DEPTH = 16


def jcs(value: object) -> str:
    """The RFC 8785 canonical JSON text of a JSON value (strings, numbers, lists, dicts).

    Examples
    --------
    >>> from ldp.protocol.canonical import jcs
    >>> jcs({"b": [1.0, 0.1, 1e-7, 1e21], "a": "é\\n", "c": None})
    '{"a":"é\\\\n","b":[1,0.1,1e-7,1e+21],"c":null}'
    """
    return str(device_client().canonical_json(value))


def content_hash(document: Mapping[str, Any]) -> str:
    """The SHA-256 (64 hex digits) of a protocol document's canonical text.

    The ``fingerprint`` field is left out; version 1 documents are hashed as version 1 wrote
    them. The first 16 digits are the fingerprint; all 64 are the *pin* an app ships to accept
    exactly this file (a 16-digit fingerprint resists a search for a second file with the
    same fingerprint for about 2^64 hashes, a pin for 2^256).

    Examples
    --------
    >>> from ldp.protocol.canonical import content_hash
    >>> len(content_hash({"version": 2, "fingerprint": "x"}))
    64
    """
    body = {key: value for key, value in document.items() if key != "fingerprint"}
    text = python_canonical_json(body) if document.get("version") == 1 else jcs(body)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def nesting_depth(value: object, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of lists and dicts in ``value`` (stops counting past ``limit``).

    Examples
    --------
    >>> from ldp.protocol.canonical import nesting_depth
    >>> nesting_depth({"a": [[1], 2]}), nesting_depth(3)
    (3, 0)
    """
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (Mapping, list, tuple)):
            deepest = max(deepest, depth)
            if depth > limit:
                return deepest
            children = item.values() if isinstance(item, Mapping) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_document(text: str | bytes | bytearray) -> Any:
    """Parse a protocol file's JSON text within the limits above (one-line ``ValueError``).

    Examples
    --------
    >>> from ldp.protocol.canonical import parse_document
    >>> parse_document('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    ValueError: the protocol repeats the key 'a' in one object
    """
    return device_client().read_json(text)
