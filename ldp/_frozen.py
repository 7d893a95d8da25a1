"""Immutable value objects: attributes are set while ``__init__`` runs, never after.

A leaf module: it imports nothing from ``ldp``. :class:`Frozen` is the guard shared by the
library's result and curve objects (trade-off curves, compositions, privacy-loss
distributions, mechanisms): assigning or deleting an attribute after construction raises
``AttributeError``, as it does on :class:`ldp.Channel` and on frozen dataclasses. What an
object claims about privacy (a profile, its inverse, its symmetry) is therefore fixed when
it is built. Pickling and copying still work: the flag is restored last.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["Frozen", "frozen_array"]

_DEPTH = "_frozen_depth_"
_DONE = "_frozen_"


class Frozen:
    """Mixin: instances accept attribute assignment only during ``__init__``.

    Every ``__init__`` in a subclass is wrapped so that the object is frozen when the
    outermost one returns. Objects built without ``__init__`` (``cls.__new__`` plus a
    private initialiser) call :meth:`_freeze` themselves. Caches belong in a container
    created in ``__init__`` (its contents may change; the attribute may not).

    Examples
    --------
    >>> from ldp._frozen import Frozen
    >>> class Point(Frozen):
    ...     def __init__(self, x):
    ...         self.x = x
    >>> p = Point(1.0)
    >>> p.x = 2.0
    Traceback (most recent call last):
    ...
    AttributeError: Point is immutable: cannot set 'x'
    """

    __slots__ = (_DEPTH, _DONE)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_freezes_", False):
            return

        @functools.wraps(init)
        def __init__(self, *args: Any, **kw: Any) -> None:
            depth = getattr(self, _DEPTH, 0)
            object.__setattr__(self, _DEPTH, depth + 1)
            try:
                init(self, *args, **kw)
            finally:
                object.__setattr__(self, _DEPTH, depth)
            if depth == 0:
                object.__setattr__(self, _DONE, True)

        __init__._freezes_ = True  # type: ignore[attr-defined]
        cls.__init__ = __init__  # type: ignore[method-assign]

    def _freeze(self) -> None:
        """Freeze an object that was built without ``__init__``."""
        object.__setattr__(self, _DONE, True)

    def __setattr__(self, name: str, value: object) -> None:
        if getattr(self, _DONE, False):
            raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if getattr(self, _DONE, False):
            raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")
        object.__delattr__(self, name)


def frozen_array(array: Any) -> np.ndarray:
    """A read-only copy of ``array`` (the arrays held by frozen value objects).

    Examples
    --------
    >>> out = frozen_array([1, 2, 3])
    >>> out.tolist(), out.flags.writeable
    ([1, 2, 3], False)
    """
    out = np.array(array, copy=True)
    out.setflags(write=False)
    return out
