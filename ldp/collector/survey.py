"""The web survey's files, as the collector serves them.

The page and its results page are the example in ``examples/web_survey`` (a source
checkout) or ``ldp/_survey`` (the wheel carries a copy); the JavaScript client is the one of
:func:`ldp.protocol.client_source`. Only the files named here are served.
"""

from __future__ import annotations

from pathlib import Path

from ldp.protocol import client_source

__all__ = ["SURVEY_FILES", "survey_dir", "survey_file"]

#: The files of the survey the collector serves, by name.
SURVEY_FILES = ("index.html", "app.mjs", "results.html", "results.mjs")


def survey_dir() -> Path | None:
    """The folder of the survey's files (``None`` when neither copy is there)."""
    package = Path(__file__).resolve().parents[1]
    for folder in (package / "_survey", package.parent / "examples" / "web_survey"):
        if (folder / "index.html").is_file():
            return folder
    return None


def survey_file(name: str) -> Path | None:
    """The path of the survey file ``name`` (``ldp_client.mjs``: the client), or ``None``.

    Examples
    --------
    >>> from ldp.collector.survey import survey_file
    >>> survey_file("index.html").name, survey_file("../secret") is None
    ('index.html', True)
    """
    if name == "ldp_client.mjs":
        return client_source("javascript")
    folder = survey_dir()
    if name not in SURVEY_FILES or folder is None:
        return None
    path = folder / name
    return path if path.is_file() else None
