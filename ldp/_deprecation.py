"""Old homes of moved public names: the module ``__getattr__`` of a compatibility shim.

A module whose names moved keeps them importable (and the pickles that name it loadable)
for one release with::

    __getattr__ = forward(__name__, {"name": "new.module"})          # same name
    __getattr__ = moved_names(__name__, {"old": ("new.module", "new")})  # renamed

Reading a name from the old module (``from old import name``, ``old.name``, or :mod:`pickle`
loading an object saved under the old path) warns with a :class:`DeprecationWarning` that
names the new home and returns the object from there. The new module is imported by name on
first use, so a shim adds no import edge (no cycle, whatever the layers, and nothing of the
new layout is imported until an old path is read).
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from collections.abc import Callable, Mapping

__all__ = ["forward", "keep_functions_over_old_modules", "moved_names"]


def moved_names(old_module: str, moves: Mapping[str, tuple[str, str]]) -> Callable[[str], object]:
    """A module ``__getattr__`` for names that moved (and may have been renamed).

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
    >>> str(caught[0].message).split(";")[0]
    'old.home.tv_distance moved to ldp.divergences.tv'
    """
    table = dict(moves)

    def __getattr__(name: str) -> object:
        if name not in table:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        home, new = table[name]
        warnings.warn(
            f"{old_module}.{name} moved to {home}.{new}; import it from there (the old path "
            "goes in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), new)

    return __getattr__


def forward(old: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """:func:`moved_names` for names that kept their name: ``homes`` maps each name the shim
    ``old`` still answers to the module that now holds it.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = forward("ldp.old", {"canonical_json": "ldp.core"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("canonical_json")({"b": 1, "a": 2})
    '{"a":2,"b":1}'
    >>> caught[0].category.__name__, str(caught[0].message).split(";")[0]
    ('DeprecationWarning', 'ldp.old.canonical_json moved to ldp.core.canonical_json')
    """
    return moved_names(old, {name: (home, name) for name, home in homes.items()})


class _FunctionsFirst(types.ModuleType):
    """A package whose functions are not replaced by an old submodule of the same name."""

    def __setattr__(self, name: str, value: object) -> None:
        current = vars(self).get(name)
        if (
            isinstance(value, types.ModuleType)
            and value.__name__ == f"{self.__name__}.{name}"
            and current is not None
            and not isinstance(current, types.ModuleType)
        ):
            return
        super().__setattr__(name, value)


def keep_functions_over_old_modules(package: str) -> None:
    """Keep a package's functions when a shim of the same name is imported.

    Importing a submodule binds it as an attribute of its package. When an old module path
    became a shim named like a function the package exports (``ldp.risk.fano`` and
    :func:`ldp.risk.fano`), importing the shim would replace the function by the shim; after
    this call the package keeps the function (the shim still imports, from
    :data:`sys.modules`).

    Parameters
    ----------
    package : str
        The dotted name of an imported package (``__name__`` of its ``__init__``).

    Examples
    --------
    >>> import importlib, ldp.risk
    >>> old = importlib.import_module("ldp.risk.fano")
    >>> callable(ldp.risk.fano), old is not ldp.risk.fano
    (True, True)
    """
    sys.modules[package].__class__ = _FunctionsFirst
