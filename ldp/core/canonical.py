"""The canonical JSON form of a value: what identities and fingerprints hash."""

from __future__ import annotations

import json

__all__ = ["canonical_json"]


def canonical_json(value: object) -> str:
    """Sorted keys, no spaces, shortest round-trip floats, no NaN: the form that is hashed."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )
