"""Optional progress bars: tqdm when installed and asked for, silent otherwise."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(
    items: Iterable[T], enabled: bool, *, desc: str | None = None, total: int | None = None
) -> Iterator[T] | Iterable[T]:
    """Wrap ``items`` in a tqdm bar when ``enabled`` and tqdm is importable."""
    if not isinstance(enabled, bool):
        raise TypeError(f"progress must be True or False, got {enabled!r}")
    if not enabled:
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:  # the optional extra is not installed: stay silent
        return items
    return tqdm(items, desc=desc, total=total, leave=False)
