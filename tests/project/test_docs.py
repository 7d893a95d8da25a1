"""The documentation site builds offline with warnings as errors, and renders in a browser.

``python -m sphinx -W`` builds ``docs/`` into a temporary directory (a broken
cross-reference, a docstring that does not parse or a failing example script fails the
build); headless Chromium (Debian's, driven by Playwright as in
``tests/clients/test_web_survey.py``) then opens the API page of :class:`ldp.Channel` over a
local HTTP server and checks that it shows the class's API. Requests leaving the local server
are blocked; only MathJax, which the pages load from its CDN when they are read online, may be
asked for.
"""

from __future__ import annotations

import functools
import html
import os
import re
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from ldp import references
from tests.project import example_outputs

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("LDP_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MATHJAX = re.compile(r"https://cdn\.jsdelivr\.net/npm/mathjax@")

pytestmark = pytest.mark.slow  # builds the whole site (tens of seconds)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The HTML site, built once for this module."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    out = tmp_path_factory.mktemp("docs")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
         "-d", str(out / "doctrees"), str(ROOT / "docs"), str(out / "html")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )  # fmt: skip
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-6000:]
    return out / "html"


def test_every_section_is_built(site):
    for page in ("index", "tour", "protocol", "bibliography", "changelog", "gallery/index"):
        assert (site / f"{page}.html").is_file(), page
    api = site / "api" / "generated"
    for name in ("ldp.Channel", "ldp.risk.le_cam", "ldp.references.cite", "estimators.Privatizer"):
        assert (api / f"{name}.html").is_file(), name
    bibliography = (site / "bibliography.html").read_text()
    assert all(f'id="ref-{key}"' in bibliography for key in references.REFERENCES)
    gallery = site / "gallery"
    for script in (ROOT / "examples").glob("*.py"):
        assert (gallery / f"{script.stem}.html").is_file(), script.name
    assert (gallery / "web_survey.html").is_file()
    assert any((site / "_images").glob("contraction_table*.png"))
    # the build ran every example (a failing one fails it; tests/project/test_examples.py leaves the
    # runs to it): each page shows what its script printed
    for script in (ROOT / "examples").glob("*.py"):
        page = (gallery / f"{script.stem}.html").read_text(encoding="utf-8")
        output = re.search(r'<section id="output">.*?<pre>(.*?)</pre>', page, flags=re.S)
        assert output and re.sub(r"<[^>]+>", "", output.group(1)).strip(), script.name


def test_the_gallery_outputs_pass_the_example_checks(site):
    """The examples with checks of their own are run once per session: here, by the build
    (their own tests in tests/project/ skip when this test is in the session)."""
    gallery = ROOT / "docs" / "gallery"
    for name, check in example_outputs.CHECKS.items():
        stem = Path(name).stem
        output = (gallery / "_output" / f"{stem}.txt").read_text(encoding="utf-8")
        check(output, gallery / "_figures" / f"{stem}.png")
        page = (site / "gallery" / f"{stem}.html").read_text(encoding="utf-8")
        shown = re.search(r'<section id="output">.*?<pre>(.*?)</pre>', page, flags=re.S)
        assert shown, name
        shown_lines = html.unescape(re.sub(r"<[^>]+>", "", shown.group(1))).splitlines()
        # the page shows what the script printed (indentation aside)
        assert [ln.strip() for ln in shown_lines if ln.strip()] == [
            ln.strip() for ln in output.splitlines() if ln.strip()
        ], name


def test_every_link_inside_the_site_reaches_its_page_and_anchor(site):
    """Every relative link of every page (the source pages' ``[docs]`` links included)
    names a page of the site and, after ``#``, an anchor (``id``) of that page."""
    anchors: dict[Path, set[str] | None] = {}

    def anchors_of(page: Path) -> set[str] | None:
        if page not in anchors:
            text = page.read_text(encoding="utf-8") if page.is_file() else None
            anchors[page] = None if text is None else set(re.findall(r'\bid="([^"]+)"', text))
        return anchors[page]

    broken, checked, docs_links = [], 0, 0
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r'<a\b([^>]*)\bhref="([^"]+)"', text):
            link = urlsplit(html.unescape(match.group(2)))
            if link.scheme or link.netloc:
                continue  # outside the site
            target = (page.parent / unquote(link.path)).resolve() if link.path else page
            found = anchors_of(target)
            checked += 1
            docs_links += "viewcode-back" in match.group(1)
            if found is None or (link.fragment and unquote(link.fragment) not in found):
                broken.append(f"{page.relative_to(site)} -> {match.group(2)}")
    assert checked > 10_000 and docs_links > 500  # the whole site, source pages included
    assert broken == [], f"{len(broken)} broken link(s): {broken[:20]}"


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"the browser test must run in CI: {reason}")
    pytest.skip(reason)


def test_the_channel_page_shows_its_api_in_chromium(server, tmp_path):
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        _unavailable("playwright (in the test extra) is not installed")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    problems, outside = [], []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(server):
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    with sync_playwright() as playwright:
        try:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=FLAGS
            )
        except Error as exc:
            _unavailable(f"Chromium at {CHROMIUM} could not be launched: {exc.message[:300]}")
        try:
            page = context.new_page()
            page.route("**/*", route)
            page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
            page.goto(f"{server}/api/generated/ldp.Channel.html")
            page.wait_for_load_state("load")
            text = page.inner_text("main")
            title = page.title()
            page.goto(f"{server}/index.html")
            page.wait_for_load_state("load")
            index = page.inner_text("body")
        finally:
            context.close()
    assert "ldp.Channel" in title
    for member in ("epsilon_for_delta", "delta", "privatize", "contraction_bound", "Examples"):
        assert member in text, member
    assert "Tour and guide" in index and "Bibliography" in index
    assert not problems, problems
    assert all(MATHJAX.match(url) for url in outside), outside
