"""The benchmarks' one timing helper: CPU time of this process, contenders interleaved,
median of three.

A ratio between two timings is only as good as the conditions they share, so the contenders
of a row run in one process, one after another within each round (``A B C, A B C, A B C``:
a load that comes and goes hits every contender alike), and each is judged by the median of
its rounds. The clock is :func:`time.process_time`, the CPU time of this process: time spent
waiting for a shared core does not count, so verdicts do not flip with the load.
``process_time`` adds up the CPU of every thread, so numpy's BLAS and OpenMP pools are
pinned to one thread (:func:`pin_threads`) and a threaded library cannot look slower, or a
single-threaded one faster, than the CPU it actually costs.

Memory is the other shared condition. Page faults are system time, which ``process_time``
counts like any other CPU, and how many a run takes depends on the process's history:
glibc's malloc moves its threshold between memory mapped per array (fresh pages, faulted in
again on every call) and its heap (pages reused) as arrays are freed, and trims the heap
when its top is free. The same run then took 20 ms in one process and 36 ms in the next.
So every benchmark process fixes the allocator first (:func:`steady_process`: arrays below
32 MiB from the heap, which is never trimmed), and a judged comparison (:func:`compare`)
runs every contender once untimed before its rounds, so the timed runs reuse memory already
touched, the way a process that calls a function more than once does. Arrays above 32 MiB
are still mapped and faulted in on each call. Each row records the minor page faults and
system seconds of the median runs (``faults`` and ``system_seconds``, from
:func:`resource.getrusage`), so a row shows what its contenders paid for memory.

Every ratio names its baseline exactly (:func:`ratio_text`), and :func:`ratio_row` makes
the result row that the runner judges and the README's table shows.
"""

from __future__ import annotations

import ctypes
import os
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmarks._common import row

#: the environment variables that size numpy's BLAS and OpenMP thread pools
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
#: rounds of every comparison (the median of three)
REPEAT = 3


def single_thread_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default ``os.environ``) with every pool pinned to one thread: the
    environment the runner starts each benchmark script in, before it imports numpy."""
    return {**(os.environ if environ is None else environ), **dict.fromkeys(THREAD_VARIABLES, "1")}


def pin_threads() -> str:
    """Pin numpy's thread pools to one thread in this process; returns how it was done.

    The environment variables take effect only before numpy is first imported (the runner
    sets them for every script it starts); threadpoolctl, when installed, also limits pools
    that are already loaded.
    """
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return "thread pools pinned by environment variables (threadpoolctl not installed)"
    threadpool_limits(1)
    return "thread pools pinned to 1 by threadpoolctl and environment variables"


#: glibc's ``mallopt`` parameters: ``M_TRIM_THRESHOLD`` and ``M_MMAP_THRESHOLD``.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: Arrays below this many bytes come from the heap in a benchmark process (glibc's largest).
MAPPED_BYTES = 32 << 20


def fix_allocator() -> str:
    """Fix glibc's malloc in this process (module notes): arrays below
    :data:`MAPPED_BYTES` from the heap, the heap never trimmed; returns what was done."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "the platform's allocator as it is (no mallopt)"
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    fixed = mallopt(_M_MMAP_THRESHOLD, MAPPED_BYTES) and mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    if not fixed:
        return "the platform's allocator as it is (mallopt refused)"
    return f"malloc fixed: arrays below {MAPPED_BYTES >> 20} MiB from an untrimmed heap"


def steady_process() -> str:
    """Pin the thread pools (:func:`pin_threads`) and fix the allocator
    (:func:`fix_allocator`): the conditions every benchmark process measures in; returns
    what was done, for the benchmark's title."""
    return f"{pin_threads()}; {fix_allocator()}"


@dataclass(frozen=True)
class Contender:
    """One side of a comparison: ``label`` says exactly what ``run`` does."""

    label: str
    run: Callable[[], object]


@dataclass(frozen=True)
class Run:
    """One timed run: CPU seconds by the clock, and the process's minor page faults and
    system CPU seconds over it (:func:`resource.getrusage`)."""

    seconds: float
    faults: int
    system_seconds: float


def _usage() -> tuple[int, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_minflt, usage.ru_stime


def interleaved_runs(
    contenders: Sequence[Contender],
    repeat: int = REPEAT,
    clock: Callable[[], float] = time.process_time,
    *,
    warmup: bool = False,
) -> list[Run]:
    """The median run of each contender over ``repeat`` interleaved rounds (the run of
    median CPU seconds).

    Round ``r`` runs every contender once, in the order given; ``clock`` is read just before
    and just after each run. ``repeat`` must be odd (the median is then a measured run).
    With ``warmup`` an untimed round comes first (module notes).
    """
    if repeat < 1 or repeat % 2 == 0:
        raise ValueError(f"repeat must be a positive odd number, got {repeat!r}")
    if not contenders:
        raise ValueError("interleaved needs at least one contender")
    if warmup:
        for contender in contenders:
            contender.run()
    runs: list[list[Run]] = [[] for _ in contenders]
    for _ in range(repeat):
        for mine, contender in zip(runs, contenders):
            faults, system = _usage()
            start = clock()
            contender.run()
            seconds = clock() - start
            faults_after, system_after = _usage()
            mine.append(Run(seconds, faults_after - faults, system_after - system))
    return [sorted(mine, key=lambda run: run.seconds)[repeat // 2] for mine in runs]


def interleaved(
    contenders: Sequence[Contender],
    repeat: int = REPEAT,
    clock: Callable[[], float] = time.process_time,
    *,
    warmup: bool = False,
) -> list[float]:
    """The median CPU seconds of each contender over ``repeat`` interleaved rounds
    (:func:`interleaved_runs`)."""
    return [run.seconds for run in interleaved_runs(contenders, repeat, clock, warmup=warmup)]


def cpu_median(
    fn: Callable[[], object],
    repeat: int = REPEAT,
    clock: Callable[[], float] = time.process_time,
) -> tuple[float, object]:
    """``(median CPU seconds of fn over repeat runs, its last result)``: a timing judged
    alone, against a fixed limit rather than a contender."""
    box: list[object] = [None]

    def run() -> None:
        box[0] = fn()

    (seconds,) = interleaved([Contender("", run)], repeat, clock)
    return seconds, box[0]


def children_cpu() -> float:
    """CPU seconds (user + system) of every child process that has finished so far: a fresh
    process is timed as the difference of two readings around it."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # microseconds, not clock ticks
    return usage.ru_utime + usage.ru_stime


def ratio_text(ratio: float, baseline: str) -> str:
    """``"2.1x the draw of its random numbers: rng.random(n)"``: the ratio and what it is
    against, exactly."""
    return f"{ratio:.3g}x {baseline}"


def ratio_row(
    what: str,
    ratio: float,
    baseline: str,
    target: str,
    ok: bool | None,
    **extra,
) -> dict:
    """A judged result row: ``what`` measured as ``ratio`` times ``baseline``.

    The row's name carries the baseline (the README's table shows it), ``says`` the ratio
    in words."""
    return row(
        f"{what}: CPU time as a multiple of {baseline}",
        ratio,
        "x",
        target,
        ok,
        says=f"{what}: {ratio_text(ratio, baseline)}",
        **extra,
    )


def compare(
    what: str,
    ours: Contender,
    reference: Contender,
    goal: float,
    *,
    others: Sequence[Contender] = (),
    repeat: int = REPEAT,
    clock: Callable[[], float] = time.process_time,
    speedup: bool = False,
    warmup: bool = True,
    **extra,
) -> tuple[dict, list[float]]:
    """Time ``ours``, ``reference`` and ``others`` interleaved, after a warm-up round; one
    judged row.

    By default the ratio is ours / reference and the target is ``<= goal`` (a limit such as
    "within 2x the draw"); with ``speedup`` it is reference / ours and the target is
    ``>= goal`` (a peer that must be slower). ``others`` are timed in the same rounds (their
    medians follow in the returned list) but not judged. The row records the minor page
    faults and system seconds of ours and the reference (their median runs).
    """
    runs = interleaved_runs([ours, reference, *others], repeat, clock, warmup=warmup)
    times = [run.seconds for run in runs]
    mine, theirs = times[0], times[1]
    extra = {
        "faults": runs[0].faults,
        "reference_faults": runs[1].faults,
        "system_seconds": runs[0].system_seconds,
        "reference_system_seconds": runs[1].system_seconds,
        **extra,
    }
    tiny = 1e-12  # a clock tick of zero must not divide
    if speedup:
        ratio = theirs / max(mine, tiny)
        result = row(
            f"{what}: CPU time of {reference.label} / ldpkit's",
            ratio,
            "x",
            f">= {goal:g}x",
            ratio >= goal,
            says=f"{what}: {reference.label} takes {ratio_text(ratio, 'the CPU time of ldpkit')}",
            cpu_seconds=mine,
            reference_cpu_seconds=theirs,
            **extra,
        )
        return result, times
    ratio = mine / max(theirs, tiny)
    result = ratio_row(
        what,
        ratio,
        reference.label,
        f"<= {goal:g}x",
        ratio <= goal,
        cpu_seconds=mine,
        reference_cpu_seconds=theirs,
        **extra,
    )
    return result, times
