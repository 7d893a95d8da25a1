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
``2^53``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from ldp._mechanism import canonical_json as python_canonical_json

__all__ = [
    "MAX_DEPTH",
    "MAX_PROTOCOL_BYTES",
    "content_hash",
    "jcs",
    "nesting_depth",
    "parse_document",
]

#: Largest protocol file (bytes of its JSON text) any reader accepts.
MAX_PROTOCOL_BYTES = 8 << 20
#: Deepest nesting of arrays and objects a protocol file may have.
MAX_DEPTH = 16
_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _number(value: int | float) -> str:
    """A number as ECMAScript's ``Number.prototype.toString`` writes it (RFC 8785 3.2.2.3)."""
    if isinstance(value, int):
        if abs(value) > 1 << 53:
            raise ValueError(f"an integer above 2^53 ({value}) cannot be kept exactly in JSON")
        value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"a number that is not finite ({value!r}) cannot be written")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        head = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{head}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + text


def _string(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            raise ValueError("a string that is not valid Unicode (a lone surrogate)")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def jcs(value: object) -> str:
    """The RFC 8785 canonical JSON text of a JSON value (strings, numbers, lists, dicts).

    Examples
    --------
    >>> from ldp.protocol.canonical import jcs
    >>> jcs({"b": [1.0, 0.1, 1e-7, 1e21], "a": "é\\n", "c": None})
    '{"a":"é\\\\n","b":[1,0.1,1e-7,1e+21],"c":null}'
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(jcs(item) for item in value) + "]"
    if isinstance(value, Mapping):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("object keys must be strings")
        keys = sorted(value, key=lambda key: key.encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(_string(key) + ":" + jcs(value[key]) for key in keys) + "}"
    raise TypeError(f"a {type(value).__name__} cannot be written as JSON")


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


def _text_depth(text: str) -> int:
    depth = deepest = 0
    inside = escaped = False
    for char in text:
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the protocol file repeats the key {key[:40]!r} in one object")
        out[key] = value
    return out


def _refuse_constant(name: str) -> float:
    raise ValueError(f"the protocol file holds {name}, which is not a finite number")


def parse_document(text: str | bytes | bytearray) -> Any:
    """Parse a protocol file's JSON text within the limits above (one-line ``ValueError``).

    Examples
    --------
    >>> from ldp.protocol.canonical import parse_document
    >>> parse_document('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    ValueError: the protocol file repeats the key 'a' in one object
    """
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_PROTOCOL_BYTES:
            raise ValueError(f"the protocol file is larger than {MAX_PROTOCOL_BYTES} bytes")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the protocol file is not UTF-8 text") from None
    if len(text) > MAX_PROTOCOL_BYTES or len(text.encode("utf-8", "surrogatepass")) > (
        MAX_PROTOCOL_BYTES
    ):
        raise ValueError(f"the protocol file is larger than {MAX_PROTOCOL_BYTES} bytes")
    if _text_depth(text) > MAX_DEPTH:
        raise ValueError(f"the protocol file nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"the protocol file is not valid JSON (truncated?): {exc.msg} at line "
            f"{exc.lineno} column {exc.colno}"
        ) from None
