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

Every ratio names its baseline exactly (:func:`ratio_text`), and :func:`ratio_row` makes
the result row that the runner judges and the README's table shows.
"""

from __future__ import annotations

import os
import resource
import statistics
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


@dataclass(frozen=True)
class Contender:
    """One side of a comparison: ``label`` says exactly what ``run`` does."""

    label: str
    run: Callable[[], object]


def interleaved(
    contenders: Sequence[Contender],
    repeat: int = REPEAT,
    clock: Callable[[], float] = time.process_time,
) -> list[float]:
    """The median CPU seconds of each contender over ``repeat`` interleaved rounds.

    Round ``r`` runs every contender once, in the order given; ``clock`` is read just before
    and just after each run. ``repeat`` must be odd (the median is then a measured run).
    """
    if repeat < 1 or repeat % 2 == 0:
        raise ValueError(f"repeat must be a positive odd number, got {repeat!r}")
    if not contenders:
        raise ValueError("interleaved needs at least one contender")
    seconds: list[list[float]] = [[] for _ in contenders]
    for _ in range(repeat):
        for mine, contender in zip(seconds, contenders):
            start = clock()
            contender.run()
            mine.append(clock() - start)
    return [statistics.median(mine) for mine in seconds]


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
    **extra,
) -> tuple[dict, list[float]]:
    """Time ``ours``, ``reference`` and ``others`` interleaved; one judged row.

    By default the ratio is ours / reference and the target is ``<= goal`` (a limit such as
    "within 2x the draw"); with ``speedup`` it is reference / ours and the target is
    ``>= goal`` (a peer that must be slower). ``others`` are timed in the same rounds (their
    medians follow in the returned list) but not judged.
    """
    times = interleaved([ours, reference, *others], repeat, clock)
    mine, theirs = times[0], times[1]
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
