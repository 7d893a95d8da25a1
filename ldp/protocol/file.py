"""What every protocol file is: a frozen, fingerprinted JSON document that writes itself.

:class:`~ldp.protocol.Protocol` (one question) and :class:`~ldp.protocol.MarginalProtocol`
(a table's marginals) share it: the document is kept in canonical form, its fingerprint is
computed from it (never read from the file), equality is equality of the documents, and the
file's text is the document with its fingerprint, keys sorted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from ldp.core import canonical_json
from ldp.protocol.canonical import content_hash

__all__ = ["FINGERPRINT_DIGITS", "ProtocolFile", "fingerprint_of", "read_text"]

#: Hex digits of the SHA-256 of the canonical text that a fingerprint keeps.
FINGERPRINT_DIGITS = 16


def read_text(path: str | os.PathLike[str]) -> str:
    """The text of the protocol file at ``path`` (a one-line error if it is not UTF-8).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    str
        Its text, unparsed.

    Raises
    ------
    ValueError
        When the file is not UTF-8 text.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ldp.protocol.file import read_text
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bad.json"
    >>> _ = path.write_bytes(b"\\xff")
    >>> read_text(path)
    Traceback (most recent call last):
    ...
    ValueError: ... is not a UTF-8 text file
    """
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise ValueError(f"{os.fspath(path)} is not a UTF-8 text file") from None


def fingerprint_of(content: Mapping[str, Any]) -> str:
    """The fingerprint of a protocol document (its ``fingerprint`` field excluded).

    Parameters
    ----------
    content : mapping
        A protocol document (JSON-like); a ``fingerprint`` key is ignored.

    Returns
    -------
    str
        The first 16 hex digits of the SHA-256 of the document's canonical JSON (RFC 8785 in
        version 2; version-1 documents as version 1 hashed them).

    Examples
    --------
    >>> from ldp.protocol import fingerprint_of
    >>> len(fingerprint_of({"format": "ldp-protocol"}))
    16

    >>> fingerprint_of({"format": "ldp-protocol", "fingerprint": "x"}) == fingerprint_of(
    ...     {"format": "ldp-protocol"})
    True
    """
    return content_hash(content)[:FINGERPRINT_DIGITS]


class ProtocolFile:
    """Base of the protocol files: the canonical document, its fingerprint, writing.

    Subclasses call ``_set_document`` once in ``__init__`` and define ``from_dict``.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.protocol import Protocol, ProtocolFile
    >>> protocol = Protocol.from_mechanism(k_rr(3, 1.0))
    >>> isinstance(protocol, ProtocolFile), len(protocol.fingerprint)
    (True, 16)
    >>> protocol.to_dict()["fingerprint"] == protocol.fingerprint
    True
    """

    __slots__ = ("_document", "_fingerprint")
    _document: dict[str, Any]
    _fingerprint: str

    def _set_document(self, document: Mapping[str, Any]) -> None:
        """Keep ``document`` (its ``fingerprint`` field left out) in canonical form."""
        body = {key: value for key, value in document.items() if key != "fingerprint"}
        object.__setattr__(self, "_document", json.loads(canonical_json(body)))
        object.__setattr__(self, "_fingerprint", fingerprint_of(self._document))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, ProtocolFile)
        return self._fingerprint == other._fingerprint and self._document == other._document

    def __hash__(self) -> int:
        return hash(self._fingerprint)

    # ----------------------------------------------------------------- writing
    def to_dict(self) -> dict[str, Any]:
        """The document, with its ``fingerprint`` (a fresh copy)."""
        out = json.loads(canonical_json(self._document))
        out["fingerprint"] = self._fingerprint
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        """The protocol file's text (keys sorted, so equal protocols give equal text)."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True, allow_nan=False) + "\n"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_json` to ``path`` (UTF-8)."""
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(self.to_json())

    @property
    def fingerprint(self) -> str:
        """16 hex digits identifying the protocol; every record carries it."""
        return self._fingerprint
