"""Sphinx extension of the ldpkit docs: the bibliography and the example gallery.

* ``.. ldp-bibliography::`` renders :func:`ldp.references.table`, one entry per work the
  library cites, with an anchor ``ref-<key>`` for each.
* The gallery: when the build starts, every script in ``ldp_gallery_examples`` is run in a
  fresh interpreter (``python script.py <figure.png>``, as the tests run it), and
  ``gallery/<name>.rst`` is written with the script's description, its figure, its output
  and its source; what it printed is also kept verbatim in ``gallery/_output/<name>.txt``
  and its figure in ``gallery/_figures/<name>.png`` (the test suite checks both instead of
  running the script a second time). An example that fails fails the build. Results are
  cached in ``gallery/.cache.json`` under a hash of the script, the library's sources, the
  Python version and the dependencies' versions, so a rebuild with nothing changed runs
  nothing.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

GALLERY = "gallery"
FIGURES = "_figures"
OUTPUTS = "_output"  # what each example printed, verbatim
TIMEOUT = 600  # seconds per example


# -------------------------------------------------------------------------- bibliography
class BibliographyDirective(SphinxDirective):
    """The bibliography of :mod:`ldp.references`, as a definition list."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from ldp import references

        self.env.note_dependency(references.__file__)  # rebuilt when the bibliography changes
        entries = nodes.definition_list(classes=["ldp-bibliography"])
        for row in references.table():
            ref = references.get(row["key"])
            term = nodes.term("", "", nodes.strong(text=ref.citation))
            term += nodes.Text(" ")
            term += nodes.literal(text=ref.key)
            text = nodes.paragraph()
            text += nodes.Text(f"{', '.join(ref.authors)}. ")
            text += nodes.emphasis(text=ref.title)
            text += nodes.Text(f". {ref.venue}, {ref.year}.")
            for label, url in (
                (f"arXiv:{ref.arxiv}", f"https://arxiv.org/abs/{ref.arxiv}" if ref.arxiv else None),
                (f"doi:{ref.doi}", f"https://doi.org/{ref.doi}" if ref.doi else None),
            ):
                if url:
                    text += nodes.Text(" ")
                    text += nodes.reference("", label, refuri=url)
                    text += nodes.Text(".")
            term["ids"].append(f"ref-{ref.key}")
            entries += nodes.definition_list_item("", term, nodes.definition("", text))
        return [entries]


# ------------------------------------------------------------------------------- gallery
#: The installed distributions an example's output depends on (with the library's sources).
DEPENDENCIES = ("numpy", "scipy", "pandas", "scikit-learn", "cvxpy", "matplotlib")


def _sources_hash(root: Path) -> str:
    """A hash of what an example's output depends on: the library's sources, the Python
    version and the versions of its dependencies (an upgrade runs the examples again)."""
    from importlib import metadata

    hasher = hashlib.sha256()
    for package in ("ldp", "estimators"):
        for path in sorted((root / package).rglob("*.py")):
            hasher.update(path.read_bytes())
    hasher.update(sys.version.encode())
    for name in DEPENDENCIES:
        try:
            hasher.update(f"{name}=={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            hasher.update(f"{name} missing".encode())
    return hasher.hexdigest()


def _run_example(script: Path, figure: Path, root: Path) -> tuple[int, str]:
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as work:  # scripts may write files next to them
        done = subprocess.run(
            [sys.executable, str(script), str(figure)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    return done.returncode, done.stdout + ("" if done.returncode == 0 else done.stderr)


def _title_and_text(script: Path) -> tuple[str, str]:
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or script.stem
    first, _, rest = doc.partition("\n")
    return first.strip().rstrip("."), rest.strip()


def _page(script: Path, root: Path, output: str, has_figure: bool) -> str:
    title, text = _title_and_text(script)
    relative = script.relative_to(root).as_posix()
    lines = [f".. _gallery-{script.stem}:", "", title, "=" * len(title), "", text, ""]
    lines += [f"Run it from the repository root: ``python {relative}``.", ""]
    if has_figure:
        lines += [f".. image:: {FIGURES}/{script.stem}.png", f"   :alt: {title}", ""]
    lines += ["Output", "------", "", ".. code-block:: text", ""]
    lines += [f"   {line}".rstrip() for line in output.rstrip().splitlines()] + [""]
    lines += ["Script", "------", "", f".. literalinclude:: /../{relative}", "   :language: python"]
    return "\n".join(lines) + "\n"


def _web_survey_page(folder: Path, root: Path) -> str:
    relative = folder.relative_to(root).as_posix()
    lines = [
        ".. _gallery-web-survey:",
        "",
        "A private web survey in the browser",
        "===================================",
        "",
        f"A static page (``{relative}/``) that asks one question and privatizes the answer in",
        "the browser with the dependency-free JavaScript client; its README follows. It is",
        "tested in headless Chromium by ``tests/clients/test_web_survey.py``.",
        "",
        f".. include:: /../{relative}/README.md",
        "   :parser: myst_parser.sphinx_",
        "",
    ]
    for name, language in (
        ("make_protocol.py", "python"),
        ("index.html", "html"),
        ("app.mjs", "javascript"),
    ):
        if (folder / name).is_file():
            lines += [name, "-" * len(name), "", f".. literalinclude:: /../{relative}/{name}"]
            lines += [f"   :language: {language}", ""]
    return "\n".join(lines)


def build_gallery(app: Sphinx) -> None:
    examples = Path(app.config.ldp_gallery_examples).resolve()
    root = examples.parent
    out = Path(app.srcdir) / GALLERY
    figures = out / FIGURES
    figures.mkdir(parents=True, exist_ok=True)
    outputs = out / OUTPUTS
    outputs.mkdir(parents=True, exist_ok=True)
    cache_file = out / ".cache.json"
    cache = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    library = _sources_hash(root)
    scripts = sorted(examples.glob("*.py"))

    def key(script: Path) -> str:
        return hashlib.sha256(script.read_bytes() + library.encode()).hexdigest()

    todo = [
        s
        for s in scripts
        if cache.get(s.stem, {}).get("key") != key(s)
        or not (out / f"{s.stem}.rst").is_file()
        or not (outputs / f"{s.stem}.txt").is_file()
    ]
    if todo:
        logger.info(f"[ldp gallery] running {len(todo)} example(s) of {len(scripts)}")
    with ThreadPoolExecutor(max_workers=max(1, min(len(todo), os.cpu_count() or 1))) as pool:
        results = dict(
            zip(todo, pool.map(lambda s: _run_example(s, figures / f"{s.stem}.png", root), todo))
        )
    failed = {s.name: output[-3000:] for s, (code, output) in results.items() if code != 0}
    if failed:
        raise ExtensionError(f"example scripts failed: {failed}")
    for script, (_, output) in results.items():
        has_figure = (figures / f"{script.stem}.png").is_file()
        (out / f"{script.stem}.rst").write_text(_page(script, root, output, has_figure))
        (outputs / f"{script.stem}.txt").write_text(output, encoding="utf-8")
        cache[script.stem] = {"key": key(script)}
    cache_file.write_text(json.dumps(cache, indent=1))

    pages = [s.stem for s in scripts]
    survey = examples / "web_survey"
    if survey.is_dir():
        (out / "web_survey.rst").write_text(_web_survey_page(survey, root))
        pages.append("web_survey")
    index = [
        "Example gallery",
        "===============",
        "",
        "Every script in ``examples/`` is a real use of the library; the test suite runs each",
        "one, and this gallery shows what it prints and draws (generated by running them when",
        "the documentation is built).",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
        *[f"   {page}" for page in pages],
        "",
    ]
    _write_if_changed(out / "index.rst", "\n".join(index))


def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


# ------------------------------------------------------------------------------- autodoc
#: Packages whose inherited members are not part of ldpkit's API (scikit-learn's estimator
#: machinery, the builtins of exceptions and warnings).
FOREIGN = ("sklearn", "builtins")


def skip_foreign_members(app, what, name, obj, skip, options):
    """Document inherited members that ldpkit defines, not those of scikit-learn or object."""
    if skip or what != "class":
        return None
    owner = getattr(obj, "__module__", None) or getattr(
        getattr(obj, "__objclass__", None), "__module__", None
    )
    if owner is None and isinstance(obj, property):
        owner = getattr(obj.fget, "__module__", None)
    if owner is not None and owner.split(".")[0] in FOREIGN:
        return True
    return None


LITERAL_RANGE = re.compile(r"(``[^`]*?\S) \.\. (\S[^`]*?``)")


def keep_literal_ranges_whole(app, what, name, obj, options, lines):
    """Write ``0 .. k-1`` as ``0..k-1``: autosummary ends a summary at the first ". ", which
    would cut such a literal in half (an unterminated literal)."""
    lines[:] = [LITERAL_RANGE.sub(r"\1..\2", line) for line in lines]


# ------------------------------------------------------------------------------ viewcode
def fix_viewcode_backlinks(app: Sphinx, env) -> list[str]:
    """Point every ``[docs]`` link of a source page at a name that is documented.

    ``sphinx.ext.viewcode`` links an object of a source module to the page that documented
    it last, under the package name that documented the module *first*: an object
    documented under two names (``ldp.k_rr`` and ``ldp.mechanisms.k_rr``) got a link to one
    page with the other's anchor, which does not exist. Here each module's links use one
    package under which all of its linked objects are documented (the module's own package
    first), with the page of each object under that name.
    """
    modules = getattr(env, "_viewcode_modules", {})
    objects = env.get_domain("py").objects
    by_last: dict[str, list[str]] = {}  # documented names by their last component
    for full in objects:
        if getattr(objects[full], "aliased", False):
            continue  # a canonical name (the defining module's): it has no anchor of its own
        by_last.setdefault(full.rsplit(".", 1)[-1], []).append(full)
    for modname, entry in modules.items():
        if not entry:
            continue
        code, tags, used, refname = entry
        if not used:
            continue
        # the prefixes under which each linked name is documented
        prefixes = None
        for name in used:
            found = {
                full[: -len(name) - 1]
                for full in by_last.get(name.rsplit(".", 1)[-1], [])
                if full.endswith("." + name)
            }
            prefixes = found if prefixes is None else prefixes & found
        if not prefixes:
            continue  # no one name documents them all: leave viewcode's links
        package = modname.rsplit(".", 1)[0]
        order = [p for p in (package, modname, refname) if p in prefixes] or sorted(prefixes)
        chosen = order[0]
        links = {name: objects[f"{chosen}.{name}"].docname for name in used}
        modules[modname] = (code, tags, links, chosen)
    return []


def setup(app: Sphinx) -> dict:
    app.add_config_value("ldp_gallery_examples", "", "env")
    app.add_directive("ldp-bibliography", BibliographyDirective)
    app.connect("builder-inited", build_gallery)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("autodoc-process-docstring", keep_literal_ranges_whole)
    app.connect("env-updated", fix_viewcode_backlinks)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
