"""Where the dependency-free clients are: shipped in the wheel beside the library."""

from __future__ import annotations

from pathlib import Path

from ldp._device import client_path

__all__ = ["client_source"]


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
    return client_path(language)
