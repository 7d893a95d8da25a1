"""The one home of the peer comparisons: what "end to end" means for a frequency oracle, the
ldpkit side and the peer libraries' side, each labelled with exactly what it times.

**End to end** is privatize + aggregate + estimate of ``n`` users, eps = 1, on the same
Zipf(1.1) data for every contender:

* ldpkit: ``mech.estimate(mech.aggregate(mech.privatize(x)))`` with the defaults a user
  gets, ``rng=None`` (a numpy ``Generator`` seeded from OS entropy: the simulation path),
  the whole array in one call (:func:`ldpkit_run`);
* pure-ldp: its client's ``privatise`` and its server's ``aggregate`` once per user, then
  ``estimate_all`` of the k values, divided by n (:func:`peer_runner`);
* multi-freq-ldpy: its client once per user into a list, then its ``*_Aggregator_MI``
  (which clips negatives and renormalises: the MSE of ldpkit's estimate beside it is taken
  after the same post-processing, :func:`ldp.tasks.norm_mul`).

The peers are found by importing their packages (``pip install ldpkit[bench]``); a peer that
is not installed, or lacks the oracle, has no runner (``None``). Every peer is called once
on a few users before it is timed (numba compiles on the first call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ldp.mechanisms import GRR, OLH, OUE, SUE, HadamardResponse

EPS = 1.0
#: the oracles compared with the peers, by the name the rows use
ORACLES = {"GRR": GRR, "SUE": SUE, "OUE": OUE, "OLH": OLH, "HR": HadamardResponse}
#: what the ldpkit side of every peer row times
LDPKIT = "ldpkit: estimate(aggregate(privatize(x))) of the whole array, rng=None"


def zipf(n: int, k: int, seed: int) -> np.ndarray:
    """``n`` values on ``0 .. k - 1`` drawn from Zipf(1.1) (the data of every peer row)."""
    w = 1.0 / np.arange(1, k + 1) ** 1.1
    return np.random.default_rng(seed).choice(k, size=n, p=w / w.sum())


def ldpkit_run(name: str, x: np.ndarray, k: int, rng: object = None) -> Callable[[], np.ndarray]:
    """One end-to-end run of the ldpkit oracle ``name`` on ``x`` (module notes): a function
    returning its estimate. ``rng`` is ``None`` in every peer row; a seed reproduces a run."""
    mech = ORACLES[name](k, EPS)

    def go() -> np.ndarray:
        return mech.estimate(mech.aggregate(mech.privatize(x, rng=rng)))

    return go


@dataclass(frozen=True)
class PeerRun:
    """A peer's end-to-end run of one oracle: ``label`` says exactly what ``run(x, k)`` calls;
    ``normalised`` when its estimate is clipped and renormalised (multi-freq-ldpy)."""

    label: str
    run: Callable[[np.ndarray, int], np.ndarray]
    normalised: bool = False


#: (row label, importable package, target speed-up) of each peer library
PEERS = (("pure-ldp", "pure_ldp", 50.0), ("multi-freq-ldpy", "multi_freq_ldpy", 20.0))


def peer_runner(peer: str, name: str) -> PeerRun | None:
    """The run of oracle ``name`` by ``peer`` ("pure-ldp" or "multi-freq-ldpy"), or ``None``
    when the package is missing or has no such oracle."""
    if peer == "pure-ldp":
        return _pure_ldp(name)
    if peer == "multi-freq-ldpy":
        return _multi_freq(name)
    raise ValueError(f"peer must be 'pure-ldp' or 'multi-freq-ldpy', got {peer!r}")


def _pure_ldp(name: str) -> PeerRun | None:
    try:
        from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
        from pure_ldp.frequency_oracles.hadamard_response import (
            HadamardResponseClient,
            HadamardResponseServer,
        )
        from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
        from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer
    except ImportError:
        return None

    def ident(v):
        return v

    def make(k: int):
        if name == "GRR":
            return DEClient(EPS, k, ident), DEServer(EPS, k, ident)
        if name in ("SUE", "OUE"):
            oue = name == "OUE"
            return (
                UEClient(EPS, k, use_oue=oue, index_mapper=ident),
                UEServer(EPS, k, use_oue=oue, index_mapper=ident),
            )
        if name == "OLH":
            return (
                LHClient(EPS, k, use_olh=True, index_mapper=ident),
                LHServer(EPS, k, use_olh=True, index_mapper=ident),
            )
        server = HadamardResponseServer(EPS, k, index_mapper=ident)
        return HadamardResponseClient(EPS, k, server.get_hash_funcs(), index_mapper=ident), server

    classes = {
        "GRR": ("DEClient", "DEServer", ""),
        "SUE": ("UEClient", "UEServer", "use_oue=False"),
        "OUE": ("UEClient", "UEServer", "use_oue=True"),
        "OLH": ("LHClient", "LHServer", "use_olh=True"),
        "HR": ("HadamardResponseClient", "HadamardResponseServer", ""),
    }
    if name not in classes:
        return None
    client_name, server_name, option = classes[name]
    option = f", {option}" if option else ""

    def run(x: np.ndarray, k: int) -> np.ndarray:
        client, server = make(k)
        for v in x.tolist():
            server.aggregate(client.privatise(v))
        counts = server.estimate_all(range(k), suppress_warnings=True)
        return np.asarray(counts, dtype=float) / x.size

    return PeerRun(
        f"pure-ldp ({client_name}.privatise + {server_name}.aggregate per user, "
        f"estimate_all{option})",
        run,
    )


def _multi_freq(name: str) -> PeerRun | None:
    try:
        from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Aggregator_MI, GRR_Client
        from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Aggregator_MI, LH_Client
        from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Aggregator_MI, UE_Client
    except ImportError:
        return None
    if name == "GRR":

        def run(x: np.ndarray, k: int) -> np.ndarray:
            return GRR_Aggregator_MI([GRR_Client(v, k, EPS) for v in x.tolist()], k, EPS)

        return PeerRun("multi-freq-ldpy (GRR_Client per user, GRR_Aggregator_MI)", run, True)
    if name in ("SUE", "OUE"):
        optimal = name == "OUE"

        def run(x: np.ndarray, k: int) -> np.ndarray:
            reports = [UE_Client(v, k, EPS, optimal) for v in x.tolist()]
            return UE_Aggregator_MI(reports, EPS, optimal)

        return PeerRun(
            f"multi-freq-ldpy (UE_Client per user, UE_Aggregator_MI, optimal={optimal})",
            run,
            True,
        )
    if name == "OLH":

        def run(x: np.ndarray, k: int) -> np.ndarray:
            return LH_Aggregator_MI([LH_Client(v, k, EPS, True) for v in x.tolist()], k, EPS, True)

        return PeerRun(
            "multi-freq-ldpy (LH_Client per user, LH_Aggregator_MI, optimal=True)", run, True
        )
    return None  # no Hadamard response in multi-freq-ldpy
