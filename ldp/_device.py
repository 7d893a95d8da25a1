"""The device client the library ships, loaded as a module: the one home of device arithmetic.

The Python device client (``clients/python/ldp_client.py``; ``ldp/_clients/ldp_client.py`` in
an installed package) depends on nothing but the standard library, so that it can be copied to
a device. It holds the exact arithmetic a device certifies privacy with (``exp_bounds``,
``compare_exp``, ``log_up``, ``smallest_double``), its canonical JSON and its checks; the
library uses the same code (``ldp._exact``, ``ldp.protocol``), so that the library and a
device compute the same numbers by construction.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from types import ModuleType

__all__ = ["client_path", "device_client"]

_FILES = {"python": "ldp_client.py", "javascript": "ldp_client.mjs"}


def client_path(language: str = "python") -> Path:
    """The path of the device client for ``language`` (``"python"`` or ``"javascript"``): in
    the installed package (``ldp/_clients``), else in the source checkout (``clients/``)."""
    if language not in _FILES:
        raise ValueError(f"language must be 'python' or 'javascript', got {language!r}")
    name = _FILES[language]
    package = Path(__file__).resolve().parent
    installed = package / "_clients" / name
    if installed.exists():
        return installed
    checkout = package.parent / "clients" / ("python" if language == "python" else "js") / name
    if checkout.exists():
        return checkout
    raise FileNotFoundError(f"the {language} client is not installed with this copy of ldp")


@lru_cache(maxsize=1)
def device_client() -> ModuleType:
    """The Python device client (``ldp_client``), loaded once from the shipped file.

    Examples
    --------
    >>> from ldp._device import device_client
    >>> device_client().PROTOCOL_VERSION
    2
    """
    spec = importlib.util.spec_from_file_location("ldp._device_client", client_path("python"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
