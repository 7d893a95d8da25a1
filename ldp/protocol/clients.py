"""Where the dependency-free clients are: shipped in the wheel beside the library."""

from __future__ import annotations

from pathlib import Path

__all__ = ["client_source"]

_FILES = {"python": "ldp_client.py", "javascript": "ldp_client.mjs"}


def client_source(language: str = "python") -> Path:
    """The path of the device client for ``language`` (``"python"`` or ``"javascript"``).

    The installed package carries both (``ldp/_clients``); in a source checkout they are in
    ``clients/``. Copy the file to the device or web page: it needs nothing else.

    Parameters
    ----------
    language : {"python", "javascript"}, default "python"
        Which client.

    Returns
    -------
    pathlib.Path
        An existing file.

    Examples
    --------
    >>> from ldp.protocol import client_source
    >>> client_source("python").name
    'ldp_client.py'

    >>> client_source("javascript").name, client_source("javascript").is_file()
    ('ldp_client.mjs', True)
    """
    if language not in _FILES:
        raise ValueError(f"language must be 'python' or 'javascript', got {language!r}")
    name = _FILES[language]
    package = Path(__file__).resolve().parents[1]
    installed = package / "_clients" / name
    if installed.exists():
        return installed
    checkout = package.parent / "clients" / ("python" if language == "python" else "js") / name
    if checkout.exists():
        return checkout
    raise FileNotFoundError(f"the {language} client is not installed with this copy of ldp")
