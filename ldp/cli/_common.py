"""What every subcommand shares: the parser class, argument types, output formatting."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import tempfile
from collections.abc import Iterator
from typing import NoReturn

__all__ = [
    "MAX_COUNT",
    "Parser",
    "UserError",
    "atomic_output",
    "count",
    "eta",
    "floats",
    "input_file",
    "jsonable",
    "number",
    "pair",
    "reading",
    "row",
]


class Parser(argparse.ArgumentParser):
    """argparse that ends with exit code 2 and one line on bad arguments."""

    def error(self, message: str) -> NoReturn:  # pragma: no cover - exercised through main
        self.exit(2, f"{self.prog}: error: {message}\n")


class UserError(ValueError):
    """A combination of arguments that the command itself rejects."""


#: Largest integer a count option (``--k``, ``--n``, ``--folds``, ...) takes: an int64. A larger
#: count describes nothing a machine can hold, and its 300 digits would not fit one line.
MAX_COUNT = 2**63 - 1


def _quoted(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def floats(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got {_quoted(text)}"
        ) from None


def pair(text: str) -> tuple[list[float], list[float]]:
    parts = text.split(";")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(
            f"expected two distributions joined by ';', got {_quoted(text)}"
        )
    return floats(parts[0]), floats(parts[1])


def count(text: str) -> int:
    """An integer up to :data:`MAX_COUNT`, also written like ``1e4``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {_quoted(text)}") from None
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"expected an integer, got {_quoted(text)}")
    if abs(value) > MAX_COUNT:
        raise argparse.ArgumentTypeError(
            f"expected an integer of at most 2^63 - 1 (MAX_COUNT), got {_quoted(text)}"
        )
    return int(value)


def eta(text: str) -> float | None:
    if text.lower() == "max":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or 'max', got {_quoted(text)}"
        ) from None


def input_file(path: str, what: str, option: str | None = None) -> str:
    """``path``, when it names a file that can be read; else :class:`UserError` naming it,
    ``what`` it should hold (``"protocol file"``) and the ``option`` that gave it, never an
    ``[Errno ...]``."""
    where = f"{option}: " if option else ""
    if not os.path.exists(path):
        raise UserError(f"{where}no such {what}: {path}")
    if os.path.isdir(path):
        raise UserError(f"{where}the {what} {path} is a folder, not a file")
    if not os.access(path, os.R_OK):
        raise UserError(f"{where}the {what} {path} cannot be read (permission denied)")
    return path


@contextlib.contextmanager
def reading(path: str, what: str, option: str | None = None) -> Iterator[None]:
    """Errors of reading ``path`` inside the block, as one line naming the file, ``what`` it
    should hold and the ``option`` that gave it: text that is not UTF-8, a table that does
    not parse, a file that cannot be read. Other errors pass through unchanged."""
    where = f"{option}: " if option else ""
    try:
        yield
    except UnicodeDecodeError:
        raise UserError(f"{where}the {what} {path} is not UTF-8 text") from None
    except UserError:
        raise
    except OSError as exc:
        raise UserError(f"{where}cannot read the {what} {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        # pandas' parser errors and pyarrow's name neither the file nor what it should hold
        if type(exc).__module__.split(".")[0] not in ("pandas", "pyarrow"):
            raise
        message = " ".join(str(exc).split())
        raise UserError(f"{where}the {what} {path} cannot be read as a table: {message}") from None


@contextlib.contextmanager
def atomic_output(path: str, option: str) -> Iterator[str]:
    """A temporary file beside ``path`` to write the output to, moved onto ``path`` only when
    the block succeeds.

    The temporary file is in the same directory (so that :func:`os.replace` is an atomic
    rename) and ends with the same suffix (writers choose the format by suffix). When the
    block raises, it is removed and an existing ``path`` is left as it was: a failed command
    never leaves a truncated or half-written output. The new file gets the permissions of
    the one it replaces, or those the umask gives a new file.

    Parameters
    ----------
    path : str
        The output file.
    option : str
        The option that named it (``--out``), for the message when it cannot be written.

    Yields
    ------
    str
        The temporary path to write to.
    """
    folder = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{name}.", suffix=os.path.splitext(name)[1], dir=folder
        )
    except OSError as exc:
        raise UserError(f"cannot write {option} {path}: {exc.strerror or exc}") from None
    os.close(handle)
    try:
        yield temporary
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        try:
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except OSError as exc:
            raise UserError(f"cannot write {option} {path}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def number(x: object) -> str:
    import numpy as np  # here, not at import time: ``ldp --help`` needs no numpy

    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return "inf" if math.isinf(x) else f"{float(x):.6g}"
    return str(x)


def row(label: str, value: object, width: int = 34) -> str:
    return f"  {label:<{width}}{number(value)}"


def jsonable(x: object) -> object:
    import numpy as np

    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if x is None or isinstance(x, str):
        return x
    return str(x)
