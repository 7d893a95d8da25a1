"""The state a client keeps between the rounds of a memoized (longitudinal) mechanism.

A longitudinal mechanism (``ldp.mechanisms.longitudinal``) draws a *permanent* randomized
response once per distinct value (or, for dBitFlipPM, once per pattern) and reuses it in
every later report; the fresh (instantaneous) noise of each round is drawn on top of it.
What is reused lives in a :class:`Memo`: one per client, kept on the device, **never sent**
with a report. It holds the memoized permanent responses keyed by the client's value (so it
is as private as the values themselves) and, for dBitFlipPM, the buckets the client sampled
once. It holds no seed and no generator state: every round draws fresh randomness.

A memo is a frozen value object: :meth:`Memo.with_entry` returns a new one. It is
serialisable (:meth:`Memo.to_json`, :meth:`Memo.from_json`) so that a device can store it
between rounds; :meth:`Memo.from_json` refuses anything it does not know (a ``"seed"``
field, say).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["MEMO_FORMAT", "Memo"]

#: The ``format`` field of a serialised memo.
MEMO_FORMAT = "ldp-memo/1"

_FIELDS = {"format", "mechanism", "entries", "sampled"}


def _int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer")
    return value


@dataclass(frozen=True, repr=False)
class Memo:
    """The memoized responses of one client of a longitudinal mechanism.

    Parameters
    ----------
    mechanism : str
        The key of the mechanism that wrote it (``mechanism.key``); another mechanism
        refuses it.
    entries : tuple of (int, tuple of int)
        ``(key, response)`` pairs in increasing key order: the permanent response memoized
        for the value (or pattern) ``key``.
    sampled : tuple of int
        dBitFlipPM only: the buckets sampled once by this client (empty otherwise).

    Examples
    --------
    >>> from ldp.mechanisms.longitudinal.memo import Memo
    >>> memo = Memo("l-grr(k=4)").with_entry(2, (3,))
    >>> memo.get(2), memo.get(0)
    ((3,), None)
    >>> Memo.from_json(memo.to_json()) == memo
    True
    >>> memo   # the values are private: the repr shows how many, not which
    Memo(l-grr(k=4), 1 memoized response)
    """

    mechanism: str
    entries: tuple[tuple[int, tuple[int, ...]], ...] = ()
    sampled: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, str) or not self.mechanism:
            raise TypeError("mechanism must be a non-empty string (the mechanism's key)")
        try:
            entries = tuple(
                (_int(key, "a memo key"), tuple(_int(v, "a memoized response") for v in resp))
                for key, resp in self.entries
            )
            sampled = tuple(_int(v, "a sampled bucket") for v in self.sampled)
        except TypeError:
            raise ValueError(
                "entries must be (key, response) pairs of integers, sampled a sequence of integers"
            ) from None
        keys = [key for key, _ in entries]
        if keys != sorted(set(keys)):
            raise ValueError("the keys of a memo's entries must be distinct and increasing")
        object.__setattr__(self, "entries", entries)
        object.__setattr__(self, "sampled", sampled)

    def __repr__(self) -> str:
        count = len(self.entries)
        return f"Memo({self.mechanism}, {count} memoized response{'' if count == 1 else 's'})"

    def get(self, key: int) -> tuple[int, ...] | None:
        """The response memoized for ``key``, or ``None``."""
        for stored, response in self.entries:
            if stored == key:
                return response
        return None

    def with_entry(self, key: int, response: tuple[int, ...]) -> Memo:
        """A memo with ``response`` memoized for ``key`` (an existing entry is kept)."""
        if self.get(key) is not None:
            return self
        entries = tuple(sorted((*self.entries, (int(key), tuple(int(v) for v in response)))))
        return self._trusted(self.mechanism, entries, self.sampled)

    @classmethod
    def _trusted(
        cls, mechanism: str, entries: tuple[tuple[int, tuple[int, ...]], ...], sampled: tuple
    ) -> Memo:
        """A memo from parts built by the library itself (skips the checks of outside input)."""
        memo = object.__new__(cls)
        object.__setattr__(memo, "mechanism", mechanism)
        object.__setattr__(memo, "entries", entries)
        object.__setattr__(memo, "sampled", sampled)
        return memo

    def with_sampled(self, sampled: tuple[int, ...]) -> Memo:
        """A memo with the sampled buckets set (dBitFlipPM)."""
        return Memo(self.mechanism, self.entries, tuple(int(v) for v in sampled))

    # ----------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """The JSON-able form (see :meth:`to_json`)."""
        return {
            "format": MEMO_FORMAT,
            "mechanism": self.mechanism,
            "entries": [[key, list(resp)] for key, resp in self.entries],
            "sampled": list(self.sampled),
        }

    def to_json(self) -> str:
        """The memo as compact JSON (sorted keys), for storage on the device."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Memo:
        """Rebuild a memo from :meth:`to_json`; unknown fields or formats raise ``ValueError``."""
        try:
            document = json.loads(text)
        except (TypeError, ValueError):
            raise ValueError("memo: not a JSON document") from None
        if not isinstance(document, dict):
            raise ValueError("memo: the JSON document must be an object")
        unknown = set(document) - _FIELDS
        if unknown:
            raise ValueError(
                f"memo: unknown field(s) {sorted(unknown)}; a memo holds only "
                f"{sorted(_FIELDS)} (no seed, no generator state)"
            )
        if document.get("format") != MEMO_FORMAT:
            raise ValueError(f"memo: format must be {MEMO_FORMAT!r}")
        if not isinstance(document.get("mechanism"), str) or not document["mechanism"]:
            raise ValueError("memo: mechanism must be a non-empty string")
        entries = document.get("entries", [])
        if not isinstance(entries, list) or not all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[1], list) for e in entries
        ):
            raise ValueError("memo: entries must be a list of [key, [response...]] pairs")
        sampled = document.get("sampled", [])
        if not isinstance(sampled, list):
            raise ValueError("memo: sampled must be a list of integers")
        return cls(document.get("mechanism"), tuple(entries), tuple(sampled))  # type: ignore[arg-type]
