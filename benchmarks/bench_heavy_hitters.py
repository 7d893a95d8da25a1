"""Heavy hitters: ldpkit's PEM against pure-ldp's PEM, recall of the true top 20 and time,
in one process and one run.

Data: Zipf(1.1) over ``2^32`` strings ("page-r" for rank r), mapped to 32-bit codes by
``ldp.tasks.encode_strings`` (BLAKE2b); epsilon = 4; top k = 20. Both sides run the
authors' levels: prefixes of 5, 8, ..., 32 bits (10 groups of users, each user reports one
prefix at the full epsilon; pure-ldp: ``start_length=2, fragment_length=3``), and keep the
top 20 per level. Times are privatize + aggregate + identify, end to end.

pure-ldp's default oracle for PEM (OLH) aggregates every report against the *whole* prefix
domain (``2^{prefix length}`` hash calls per report), which cannot run at 32 bits, so two
comparisons are made:

* ``l=32``: pure-ldp's PEM with its Apple count-mean-sketch oracle (``CMSServer``, the
  oracle its own heavy-hitter experiments pair with PEM; ``k=16`` rows, ``m=1024``) against
  ldpkit's PEM with OLH;
* ``l=12``: both with OLH (pure-ldp's default) on Zipf(1.1) over ``2^12`` values, where
  pure-ldp's domain loop is affordable (prefixes of 6, 8, 10, 12 bits); the two use the
  same oracle and levels, so their recalls differ by noise only: :data:`RUNS` data sets,
  mean recall, both sides seeded (pure-ldp through the global generators it draws from), so
  a run's verdict is reproducible.

Times are CPU time of this process, thread pools pinned to one thread, the two PEMs
interleaved (``benchmarks/_timing.py``): the median of three rounds for one data set, one
round per data set for several (their CPU times added up); the wall time of the last round
is recorded as information. Targets: ldpkit >= 20x
faster, with recall >= pure-ldp's in the same run. pure-ldp must be
installed (``pip install pure-ldp 'xxhash<4' statsmodels``); otherwise the rows are
skipped. Run::

    python -m benchmarks.bench_heavy_hitters [--quick] [--json out.json]

A full run on a shared 2-core machine is in ``benchmarks/results_heavy_hitters.json``
(ldpkit 1.1 s against 46 s at n = 1e6, 43x; recall 0.90 against 0.65).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import time

# one core for both sides (the peer is single-threaded Python): BLAS threads would only
# add contention on a shared machine; set before numpy starts its thread pool
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from benchmarks._common import emit, parser, row
from benchmarks._timing import REPEAT, Contender, interleaved, ratio_text, steady_process
from ldp.tasks import PEM, encode_strings

EPS = 4.0
#: Data sets of the ``l=12`` comparison (a recall over 20 items moves in steps of 0.05).
RUNS = 12
TOP = 20


def zipf_strings(n: int, bits: int, seed: int) -> np.ndarray:
    """``bits``-bit codes of ``n`` strings drawn from Zipf(1.1) over ``2^bits`` ranks."""
    rng = np.random.default_rng(seed)
    ranks = np.zeros(0, dtype=np.int64)
    while ranks.size < n:
        more = rng.zipf(1.1, size=2 * n)
        ranks = np.concatenate([ranks, more[more <= 2**bits]])
    return encode_strings([f"page-{r}" for r in ranks[:n]], bits=bits)


def true_top(codes: np.ndarray, k: int = TOP) -> np.ndarray:
    items, counts = np.unique(codes, return_counts=True)
    return items[np.argsort(-counts, kind="stable")[:k]]


def recall(found: list[int], top: np.ndarray) -> float:
    return float(np.isin(top, np.asarray(found, dtype=np.int64)).mean())


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    """Wall and CPU seconds since ``start``."""
    wall, cpu = clocks()
    return wall - start[0], cpu - start[1]


def ours(codes: np.ndarray, bits: int, step: int, start: int, seed: int = 0):
    """ldpkit's PEM end to end, seeded by ``seed``: ``(found codes, (wall, cpu) seconds)``."""
    pem = PEM(EPS, bits=bits, k=TOP, step=step, start_bits=start)
    begin = clocks()
    found = pem.run(codes, rng=seed)
    return [int(v) for v in found.items], since(begin)


class _Numpy1Zeros:
    """numpy as pure-ldp's base server sees it, except ``zeros(None)`` is ``zeros(())``.

    pure-ldp's sketch servers (CMS among them) pass ``d=None`` to its base class, which calls
    ``np.zeros(None)``: numpy 1 returned a 0-d array there (the count is unused by sketches),
    numpy 2 raises. The shim restores numpy 1's answer for that one call and nothing else.
    """

    def __getattr__(self, name: str):
        return getattr(np, name)

    @staticmethod
    def zeros(shape, *args, **kwargs):
        return np.zeros(() if shape is None else shape, *args, **kwargs)


@contextlib.contextmanager
def _numpy1_zeros():
    import pure_ldp.core._freq_oracle_server as base

    saved = base.np
    base.np = _Numpy1Zeros()  # type: ignore[assignment]
    try:
        yield
    finally:
        base.np = saved


def pure_ldp_pem(codes: np.ndarray, bits: int, start: int, step: int, oracle: str):
    """pure-ldp's PEMClient/PEMServer, one user at a time: ``(found codes, (wall, cpu))``."""
    with _numpy1_zeros():
        return _pure_ldp_pem(codes, bits, start, step, oracle)


def _pure_ldp_pem(codes: np.ndarray, bits: int, start: int, step: int, oracle: str):
    from pure_ldp.heavy_hitters.prefix_extending import PEMClient, PEMServer

    options: dict = {}
    if oracle == "CMS":
        from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer

        server_fo = CMSServer(EPS, k=16, m=1024)
        options = {
            "fo_server": server_fo,
            "client": CMSClient(EPS, server_fo.get_hash_funcs(), 1024),
        }
    strings = [format(int(c), f"0{bits}b") for c in codes]
    begin = clocks()
    client = PEMClient(EPS, start, bits, step, fo_client=options.get("client"))
    server = PEMServer(EPS, start, bits, step, fo_server=options.get("fo_server"))
    for s in strings:
        server.aggregate(client.privatise(s))
    found, _ = server.find_heavy_hitters(k=TOP)
    return [int(s, 2) for s in found], since(begin)


def compare(n: int, bits: int, oracle: str, runs: int = 1) -> list[dict]:
    """Both PEMs on the same ``runs`` data sets (seeds 0, 1, ...): total times, mean recalls."""
    if bits == 32:
        start, step = 2, 3  # levels 5, 8, ..., 32
    else:
        start, step = 4, 2  # levels 6, 8, 10, 12
    name = f"PEM l={bits} n={n:.0e} eps=4 top-20 (pure-ldp oracle {oracle})"
    if runs > 1:
        name = name[:-1] + f", {runs} runs)"
    if importlib.util.find_spec("pure_ldp") is None:
        why = "pure_ldp not installed"
        return [
            row(
                f"{name}: CPU time of pure-ldp / ldpkit's",
                None,
                "",
                ">= 20x",
                None,
                status="skipped",
                note=why,
            ),
            row(
                f"{name}: ldpkit recall - pure-ldp recall",
                None,
                "",
                ">= 0",
                None,
                status="skipped",
                note=why,
            ),
        ]
    mine, theirs = [], []
    seconds = peer_seconds = 0.0  # CPU
    wall = peer_wall = 0.0  # information only
    # one data set: both interleaved, median of three; several: one interleaved round per
    # data set (the data sets are the repetitions), CPU times added up
    repeat = REPEAT if runs == 1 else 1
    for seed in range(runs):
        codes = zipf_strings(n, bits, seed=seed)
        top = true_top(codes)
        if seed == 0:
            ours(codes[:1000], bits, step, start + step)  # warm-up
        got: dict = {}

        # each data set its own seed on both sides: the data sets share their top items, so
        # one seed for all would reuse one draw of the hash functions against them
        def run_ours(codes=codes, got=got, seed=seed) -> None:
            got["ours"] = ours(codes, bits, step, start + step, seed)

        def run_peer(codes=codes, got=got, seed=seed) -> None:
            # pure-ldp draws from the global generators: seeded, a run gives the same recall
            random.seed(seed)
            np.random.seed(seed)  # noqa: NPY002 (the global generator pure-ldp reads)
            got["peer"] = pure_ldp_pem(codes, bits, start, step, oracle)

        cpu, peer_cpu = interleaved(
            [Contender("ldpkit", run_ours), Contender("pure-ldp", run_peer)], repeat
        )
        (found, took), (peer_found, peer_took) = got["ours"], got["peer"]
        mine.append(recall(found, top))
        theirs.append(recall(peer_found, top))
        seconds += cpu
        peer_seconds += peer_cpu
        wall += took[0]
        peer_wall += peer_took[0]
    ratio = float(peer_seconds / max(seconds, 1e-12))
    gap = float(np.mean(mine) - np.mean(theirs))
    # several data sets: the mean recalls are compared within two standard errors of their
    # difference (a recall over 20 items moves in steps of 0.05 from one data set to the next)
    allowance = (
        2.0 * float(np.sqrt((np.var(mine, ddof=1) + np.var(theirs, ddof=1)) / runs))
        if runs > 1
        else 0.0
    )
    return [
        row(
            f"{name}: CPU time of pure-ldp / ldpkit's",
            ratio,
            "x",
            ">= 20x",
            ratio >= 20.0,
            says=f"{name}: pure-ldp takes {ratio_text(ratio, 'the CPU time of ldpkit')}",
            cpu_seconds=seconds,
            reference_cpu_seconds=peer_seconds,
            wall_seconds_last_round=wall,
            reference_wall_seconds_last_round=peer_wall,
        ),
        row(
            f"{name}: ldpkit recall - pure-ldp recall",
            gap,
            "",
            ">= 0" if runs == 1 else ">= 0 within 2 s.e.",
            gap >= -allowance,
            recall=mine,
            reference_recall=theirs,
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    p = parser(__doc__.splitlines()[0])
    args = p.parse_args(argv)
    pinned = steady_process()
    if args.quick:
        rows = compare(20_000, 32, "CMS") + compare(5_000, 12, "OLH")
    else:
        rows = compare(1_000_000, 32, "CMS") + compare(20_000, 12, "OLH", runs=RUNS)
    emit(f"heavy hitters ({pinned})" + (" (quick)" if args.quick else ""), rows, args.json)


if __name__ == "__main__":
    main()
