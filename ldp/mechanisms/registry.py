"""The registry of mechanisms: every class that answers to :class:`~ldp.mechanisms.Mechanism`.

A protocol file names its mechanism by ``name`` and rebuilds it with
``REGISTRY[name].from_params(params)``; the test suite iterates the registry, so a new
mechanism is one class and one line here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from ldp._mechanism import Mechanism
from ldp.channel import Channel
from ldp.mechanisms.channels import k_rr
from ldp.mechanisms.dbitflip import DBitFlipPM
from ldp.mechanisms.frequency import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    UnaryEncoding,
)
from ldp.mechanisms.longitudinal import LGRR
from ldp.mechanisms.longitudinal_unary import LOSUE, LOUE, RAPPOR
from ldp.mechanisms.numeric import (
    Duchi,
    DuchiL2,
    Gaussian,
    Hybrid,
    Laplace,
    Piecewise,
    SquareWave,
    Staircase,
)
from ldp.mechanisms.privunit import PrivUnit, PrivUnitG
from ldp.mechanisms.sketch import CMS, HCMS

__all__ = ["REGISTRY", "example", "mechanism_from_spec"]

#: Registry name -> (mechanism class, a small example instance for tests and docs).
_ENTRIES: dict[str, tuple[type[Mechanism], Callable[[], Mechanism]]] = {
    cls.name: (cls, example)
    for cls, example in (
        (Channel, lambda: k_rr(4, 1.0)),
        (GRR, lambda: GRR(5, 1.0)),
        (UnaryEncoding, lambda: UnaryEncoding(6, 1.0, p=0.6, q=0.3)),
        (SUE, lambda: SUE(6, 1.0)),
        (OUE, lambda: OUE(10, 1.0)),
        (LocalHashing, lambda: LocalHashing(12, 1.0, g=3)),
        (OLH, lambda: OLH(20, 1.5)),
        (BLH, lambda: BLH(9, 1.0)),
        (HadamardResponse, lambda: HadamardResponse(6, 1.0)),
        (SubsetSelection, lambda: SubsetSelection(8, 1.0)),
        (Duchi, lambda: Duchi(1.0, d=3)),
        (DuchiL2, lambda: DuchiL2(1.0, d=3)),
        (Laplace, lambda: Laplace(1.0)),
        (Piecewise, lambda: Piecewise(1.0)),
        (Hybrid, lambda: Hybrid(1.0)),
        (SquareWave, lambda: SquareWave(1.0)),
        (LGRR, lambda: LGRR(5, 1.0, 2.0)),
        (LOSUE, lambda: LOSUE(6, 1.0, 2.0)),
        (LOUE, lambda: LOUE(6, 1.0, 2.0)),
        (RAPPOR, lambda: RAPPOR(6, f=0.5, p=0.5, q=0.75)),
        (DBitFlipPM, lambda: DBitFlipPM(8, 1.0, b=4, d=2)),
        (Staircase, lambda: Staircase(1.0)),
        (Gaussian, lambda: Gaussian(1.0)),
        (CMS, lambda: CMS(1.0, width=16, depth=4)),
        (HCMS, lambda: HCMS(1.0, width=16, depth=4)),
        (PrivUnit, lambda: PrivUnit(2.0, d=3)),
        (PrivUnitG, lambda: PrivUnitG(2.0, d=3)),
    )
}

#: Registry name -> mechanism class.
REGISTRY: Mapping[str, type[Mechanism]] = MappingProxyType(
    {name: cls for name, (cls, _) in _ENTRIES.items()}
)


def example(name: str) -> Mechanism:
    """A small instance of the registered mechanism ``name`` (tests iterate these).

    Examples
    --------
    >>> from ldp.mechanisms.registry import example
    >>> example("GRR")
    GRR(k=5, epsilon=1.0)
    """
    return _ENTRIES[name][1]()


def mechanism_from_spec(name: object, params: object) -> Mechanism:
    """The mechanism ``REGISTRY[name]`` built from ``params``; bad input raises ``ValueError``.

    Parameters
    ----------
    name : str
        A key of ``REGISTRY`` (the mechanism's ``name``, as in a protocol file).
    params : mapping
        The mechanism's parameters, as its ``params`` property returns them.

    Returns
    -------
    Mechanism
        The mechanism; ``mechanism_from_spec(m.name, m.params) == m`` for every registered
        mechanism ``m``.

    Examples
    --------
    >>> from ldp.mechanisms import mechanism_from_spec
    >>> mechanism_from_spec("GRR", {"k": 4, "epsilon": 1.0})
    GRR(k=4, epsilon=1.0)
    """
    if not isinstance(name, str) or name not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown mechanism {name!r}; known: {known}")
    if not isinstance(params, Mapping):
        raise ValueError(f"the parameters of {name} must be an object, got {type(params).__name__}")
    try:
        return REGISTRY[name].from_params(params)
    except TypeError as exc:
        raise ValueError(f"bad parameters for {name}: {exc}") from None
