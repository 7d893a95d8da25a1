"""Silence what compiled solvers print on the process's standard output.

HiGHS (through cvxpy) writes a banner straight to file descriptor 1, below Python's
``sys.stdout``, so ``contextlib.redirect_stdout`` does not catch it; a library must not print
on its own (it would corrupt ``ldp ... --json`` and any program's output). :func:`quiet_stdout`
points descriptor 1 at the null device for the duration of a solve.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["quiet_stdout"]


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Discard everything written to file descriptor 1 inside the block."""
    try:
        descriptor = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
    except (AttributeError, OSError, ValueError):  # no real descriptor (embedded)
        yield
        return
    for stream in (sys.stdout, sys.__stdout__):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None:
                stream.flush()
    saved = os.dup(descriptor)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), descriptor)
            try:
                yield
            finally:
                with contextlib.suppress(AttributeError, OSError, ValueError):
                    if sys.__stdout__ is not None:
                        sys.__stdout__.flush()
                os.dup2(saved, descriptor)
    finally:
        os.close(saved)
