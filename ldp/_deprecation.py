"""Forwarding of moved names: the module ``__getattr__`` of a compatibility shim.

A shim keeps an old import path (and the pickles that name it) working for one release:
reading a name from it warns with a :class:`DeprecationWarning` naming the new home and
returns the object from there. The homes are imported by name, on first use, so that a shim
adds no import edge (and nothing of the new layout is imported until an old path is read).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping

__all__ = ["forward"]


def forward(old: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """The module ``__getattr__`` of the shim ``old``: ``homes`` maps each name it still
    answers to the module that now holds it.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = forward("ldp.old", {"canonical_json": "ldp.core"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("canonical_json")({"b": 1, "a": 2})
    '{"a":2,"b":1}'
    >>> caught[0].category.__name__, str(caught[0].message).split(";")[0]
    ('DeprecationWarning', 'ldp.old.canonical_json moved to ldp.core')
    """

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(
            f"{old}.{name} moved to {home}; import it from there (the old path goes in the "
            "next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), name)

    return __getattr__
