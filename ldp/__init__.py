"""ldpkit: local differential privacy with guarantees computed from the mechanism itself.

The core objects are :class:`Channel`, a finite local randomizer held as a row-stochastic
matrix whose epsilon, delta profile and eta-TV are computed exactly, and the constructors of
:mod:`ldp.mechanisms`.

``import ldp`` is fast: the subpackages (:mod:`ldp.accounting`, :mod:`ldp.risk`,
:mod:`ldp.contraction`, ...) and the names below are imported on first use (PEP 562), so
``ldp.risk`` and ``from ldp import Channel`` work as usual and pay for scipy only when they
need it.

Examples
--------
>>> import ldp
>>> krr = ldp.k_rr(4, 1.0)
>>> round(krr.epsilon, 12)
1.0
>>> krr.is_ldp(1.0)
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Channel",
    "ImplausibleReportsWarning",
    "PrivacyLeakWarning",
    "accounting",
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "blackwell_dominates",
    "contraction",
    "divergences",
    "eta_max",
    "k_rr",
    "randomized_response",
    "references",
    "risk",
]

#: Public names and the module each one lives in (imported on first access).
_LAZY_NAMES = {
    "Channel": "ldp.channel",
    "ImplausibleReportsWarning": "ldp._warnings",
    "PrivacyLeakWarning": "ldp._warnings",
    "binary_erasure": "ldp.mechanisms",
    "binary_mechanism_with_erasure": "ldp.mechanisms",
    "blackwell_dominates": "ldp.accounting.comparisons.blackwell",
    "eta_max": "ldp.mechanisms",
    "k_rr": "ldp.mechanisms",
    "randomized_response": "ldp.mechanisms",
}

#: Subpackages and modules reachable as attributes of ``ldp`` (imported on first access).
_SUBMODULES = frozenset(
    {
        "accounting",
        "audit",
        "blackwell",
        "channel",
        "cli",
        "contraction",
        "core",
        "datasets",
        "design",
        "distributed",
        "divergences",
        "mechanisms",
        "plotting",
        "protocol",
        "references",
        "risk",
        "tasks",
    }
)

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names are lazy
    from ldp import accounting, contraction, divergences, references, risk
    from ldp._warnings import ImplausibleReportsWarning, PrivacyLeakWarning
    from ldp.accounting.comparisons.blackwell import blackwell_dominates
    from ldp.channel import Channel
    from ldp.mechanisms import (
        binary_erasure,
        binary_mechanism_with_erasure,
        eta_max,
        k_rr,
        randomized_response,
    )


def __getattr__(name: str) -> Any:
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
