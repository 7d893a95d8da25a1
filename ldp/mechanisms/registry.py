"""The registry of mechanisms: every class that answers to :class:`~ldp.core.Mechanism`.

A protocol file names its mechanism by its *protocol id* (the canonical lowercase name,
``PROTOCOL_IDS``; version-1 files used the registry name, read through ``V1_NAMES``) and
rebuilds it with ``from_params(params)``; the test suite iterates the registry, so a new
mechanism is one class and one line here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from ldp.channel import Channel
from ldp.core import Mechanism
from ldp.mechanisms.categorical.channels import k_rr
from ldp.mechanisms.categorical.grr import GRR
from ldp.mechanisms.categorical.hadamard import HadamardResponse
from ldp.mechanisms.categorical.local_hashing import BLH, OLH, LocalHashing
from ldp.mechanisms.categorical.subset import SubsetSelection
from ldp.mechanisms.categorical.unary import OUE, SUE, UnaryEncoding
from ldp.mechanisms.longitudinal.dbitflip import DBitFlipPM
from ldp.mechanisms.longitudinal.lgrr import LGRR
from ldp.mechanisms.longitudinal.unary import LOSUE, LOUE, RAPPOR
from ldp.mechanisms.numeric.duchi import Duchi, DuchiL2
from ldp.mechanisms.numeric.gaussian import Gaussian
from ldp.mechanisms.numeric.laplace import Laplace
from ldp.mechanisms.numeric.piecewise import Hybrid, Piecewise
from ldp.mechanisms.numeric.square_wave import SquareWave
from ldp.mechanisms.numeric.staircase import Staircase
from ldp.mechanisms.sketches.sketch import CMS, HCMS
from ldp.mechanisms.vector.privunit import PrivUnit, PrivUnitG

__all__ = ["PROTOCOL_IDS", "REGISTRY", "V1_NAMES", "example", "mechanism_from_spec", "protocol_id"]

#: (mechanism class, its protocol id, a small example instance for tests and docs). The
#: protocol id is the mechanism's canonical lowercase name in protocol files (version 2).
_TABLE: tuple[tuple[type[Mechanism], str, Callable[[], Mechanism]], ...] = (
    (Channel, "channel", lambda: k_rr(4, 1.0)),
    (GRR, "grr", lambda: GRR(5, 1.0)),
    (UnaryEncoding, "unary-encoding", lambda: UnaryEncoding(6, 1.0, p=0.6, q=0.3)),
    (SUE, "sue", lambda: SUE(6, 1.0)),
    (OUE, "oue", lambda: OUE(10, 1.0)),
    (LocalHashing, "local-hashing", lambda: LocalHashing(12, 1.0, g=3)),
    (OLH, "olh", lambda: OLH(20, 1.5)),
    (BLH, "blh", lambda: BLH(9, 1.0)),
    (HadamardResponse, "hadamard-response", lambda: HadamardResponse(6, 1.0)),
    (SubsetSelection, "subset-selection", lambda: SubsetSelection(8, 1.0)),
    (Duchi, "duchi", lambda: Duchi(1.0, d=3)),
    (DuchiL2, "duchi-l2", lambda: DuchiL2(1.0, d=3)),
    (Laplace, "laplace", lambda: Laplace(1.0)),
    (Piecewise, "piecewise", lambda: Piecewise(1.0)),
    (Hybrid, "hybrid", lambda: Hybrid(1.0)),
    (SquareWave, "square-wave", lambda: SquareWave(1.0)),
    (LGRR, "l-grr", lambda: LGRR(5, 1.0, 2.0)),
    (LOSUE, "l-osue", lambda: LOSUE(6, 1.0, 2.0)),
    (LOUE, "l-oue", lambda: LOUE(6, 1.0, 2.0)),
    (RAPPOR, "rappor", lambda: RAPPOR(6, f=0.5, p=0.5, q=0.75)),
    (DBitFlipPM, "dbitflip-pm", lambda: DBitFlipPM(8, 1.0, b=4, d=2)),
    (Staircase, "staircase", lambda: Staircase(1.0)),
    (Gaussian, "gaussian", lambda: Gaussian(1.0)),
    (CMS, "cms", lambda: CMS(1.0, width=16, depth=4)),
    (HCMS, "hcms", lambda: HCMS(1.0, width=16, depth=4)),
    (PrivUnit, "privunit", lambda: PrivUnit(2.0, d=3)),
    (PrivUnitG, "privunitg", lambda: PrivUnitG(2.0, d=3)),
)
_ENTRIES: dict[str, tuple[type[Mechanism], Callable[[], Mechanism]]] = {
    cls.name: (cls, example) for cls, _, example in _TABLE
}

#: Registry name -> mechanism class.
REGISTRY: Mapping[str, type[Mechanism]] = MappingProxyType(
    {name: cls for name, (cls, _) in _ENTRIES.items()}
)

#: Protocol id (the canonical lowercase name of protocol files, version 2) -> class.
PROTOCOL_IDS: Mapping[str, type[Mechanism]] = MappingProxyType(
    {protocol_id: cls for cls, protocol_id, _ in _TABLE}
)

#: The names version-1 protocol files used (the registry names) -> protocol id.
V1_NAMES: Mapping[str, str] = MappingProxyType(
    {cls.name: protocol_id for cls, protocol_id, _ in _TABLE}
)


def protocol_id(mechanism: Mechanism) -> str:
    """The protocol id of a registered mechanism (its canonical name in protocol files).

    Examples
    --------
    >>> from ldp.mechanisms import GRR, HadamardResponse
    >>> from ldp.mechanisms.registry import protocol_id
    >>> protocol_id(GRR(4, 1.0)), protocol_id(HadamardResponse(4, 1.0))
    ('grr', 'hadamard-response')
    """
    return V1_NAMES[mechanism.name]


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
