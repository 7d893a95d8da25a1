"""Old homes of moved public names: a module ``__getattr__`` that warns and forwards.

A module whose public names moved keeps them importable for one release with::

    __getattr__ = moved_names(__name__, {"old_name": ("new.module", "new_name")})

Reading ``old_name`` from the old module (``from old import old_name``, ``old.old_name``,
or :mod:`pickle` loading an object saved under the old path) returns the object of the new
home and warns with a :class:`DeprecationWarning` that names the new name and home. The new
module is imported on first access only, so an old home never imports its new one at load
time (no import cycle, whatever the layers).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping

__all__ = ["moved_names"]


def moved_names(old_module: str, moves: Mapping[str, tuple[str, str]]) -> Callable[[str], object]:
    """A module ``__getattr__`` for names that moved: warn, then return the new object.

    Parameters
    ----------
    old_module : str
        The dotted name of the old home (``__name__`` of the module that installs it).
    moves : mapping of str to (str, str)
        Old name -> (new module, new name).

    Returns
    -------
    callable
        ``__getattr__(name)``: the moved object, after a ``DeprecationWarning``; an
        ``AttributeError`` for any other name.

    Examples
    --------
    >>> import warnings
    >>> getter = moved_names("old.home", {"tv_distance": ("ldp.divergences", "tv")})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f = getter("tv_distance")
    >>> f([0.5, 0.5], [1.0, 0.0]), caught[0].category.__name__
    (0.5, 'DeprecationWarning')
    >>> str(caught[0].message).endswith("next release; use ldp.divergences.tv")
    True
    """
    table = dict(moves)

    def __getattr__(name: str) -> object:
        if name not in table:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        home, new = table[name]
        warnings.warn(
            f"{old_module}.{name} is deprecated and will be removed in the next release; "
            f"use {home}.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), new)

    return __getattr__
