"""Deprecated home: the Blackwell order moved to :mod:`ldp.accounting.comparisons.blackwell`.

The order of channels (``blackwell_dominates``) and of privacy curves
(``blackwell_compare``) now share one module. ``ldp.blackwell_dominates`` is unchanged; the
names of this module still import from here for one release, with a ``DeprecationWarning``
naming the new home (pickles of ``BlackwellResult`` saved under this path load).
"""

from __future__ import annotations

from ldp._deprecation import moved_names

__getattr__ = moved_names(
    __name__,
    {
        name: ("ldp.accounting.comparisons.blackwell", name)
        for name in ("BlackwellResult", "blackwell_dominates")
    },
)
