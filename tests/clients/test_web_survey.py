"""The web survey example, end to end in headless Chromium.

The repository root is served on a free localhost port; Debian's Chromium, driven by
Playwright (the system browser: nothing is downloaded), opens ``examples/web_survey/``,
answers the question 20 times, reads each record from the page and downloads
``report.jsonl``; the server side (``ldp.protocol``) then decodes the records and the file.
The page also loads local protocol files (a GRR and an interval protocol) through its file
input, refuses hostile ones (constants edited, fingerprint recomputed) and ones above its
policy, showing why, and refuses the report that would exceed its daily budget. The client's
test vectors and the hostile suite run in the browser too. The browser tests skip, with the
reason, only where Chromium cannot be launched, and never in CI (``CI`` set).
"""

import functools
import json
import math
import os
import shutil
import subprocess
import sys
import threading
from fractions import Fraction
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from ldp.mechanisms import GRR, Laplace
from ldp.protocol import Protocol, canonical, load, read_reports

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "web_survey"
PROTOCOL = EXAMPLE / "protocol.json"
CHROMIUM = os.environ.get("LDP_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ANSWERS_PER_RUN = 20
HOSTILE = json.loads((ROOT / "clients" / "hostile_protocols.json").read_text())

sys.path.insert(0, str(ROOT / "clients" / "python"))
import ldp_client  # noqa: E402


# ----------------------------------------------------------------------------- the protocol
def test_the_committed_protocol_loads_and_matches_its_script(tmp_path):
    protocol = load(PROTOCOL)
    assert protocol.mechanism.name == "Channel"
    assert protocol.kind == "categorical" and len(protocol.labels) == 5
    assert protocol.question and protocol.epsilon <= 1.0 + 1e-9
    out = tmp_path / "protocol.json"
    result = subprocess.run(
        [sys.executable, str(EXAMPLE / "make_protocol.py"), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    fresh = load(out)
    assert fresh.labels == protocol.labels and fresh.question == protocol.question
    np.testing.assert_allclose(fresh.mechanism.matrix, protocol.mechanism.matrix, rtol=0, atol=1e-9)


# ----------------------------------------------------------------------------- the browser
class _QuietHandler(SimpleHTTPRequestHandler):
    # module scripts need a JavaScript MIME type, which older Pythons do not know for .mjs
    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
    }

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def site():
    """The repository root over http on a free localhost port: its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(ROOT))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"the browser test must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A persistent headless Chromium context on a fresh profile (Debian's chromium)."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        _unavailable("playwright (in the test extra) is not installed")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        try:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path_factory.mktemp("chromium-profile")),
                executable_path=CHROMIUM,
                headless=True,
                args=FLAGS,
                accept_downloads=True,
            )
        except Error as exc:
            _unavailable(f"Chromium at {CHROMIUM} could not be launched: {exc.message[:300]}")
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser, site):
    """A fresh page on the survey; fails the test on any script error or outside request."""
    page = browser.new_page()
    problems = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None,
    )

    def outside(request):
        if not request.url.startswith((site, "blob:", "data:")):
            problems.append(f"request outside the site: {request.url}")

    page.on("request", outside)
    page.goto(f"{site}/examples/web_survey/index.html")
    page.wait_for_selector("body[data-state=ready]", timeout=10_000)
    page.evaluate("localStorage.clear()")  # a fresh privacy ledger for each test
    yield page
    page.close()
    assert not problems, problems


def _privatize(page, count: int) -> dict:
    """Click the page's button; the record it shows once the session holds ``count``."""
    page.click("#privatize")
    page.wait_for_function(
        f"document.getElementById('count').textContent === '{count}'", timeout=5_000
    )
    return json.loads(page.text_content("#record"))


def test_the_survey_privatizes_in_the_browser_and_the_server_decodes(page, tmp_path):
    protocol = load(PROTOCOL)
    assert page.text_content("#question") == protocol.question
    assert page.text_content("#fingerprint") == protocol.fingerprint
    privacy = page.text_content("#privacy")
    device = ldp_client.verify(protocol.to_json())["epsilon"]  # what the device computes
    shown = math.ceil(math.exp(device) * 100) / 100  # rounded up, 3 digits
    assert f"e^ε = {shown:g}" in privacy and "ε = 1 (computed in this browser" in privacy
    assert "ε ≤ 2" in page.text_content("#policy")
    # no answer chosen: the page says so and makes no record
    page.click("#privatize")
    assert "Choose an answer" in page.text_content("#error")
    assert page.is_hidden("#download")

    records = []
    for i in range(ANSWERS_PER_RUN):
        page.get_by_label(protocol.labels[i % len(protocol.labels)], exact=True).check()
        records.append(_privatize(page, i + 1))
    assert page.text_content("#error") == ""
    assert all(r["fingerprint"] == protocol.fingerprint for r in records)
    assert all(set(r) == {"id", "fingerprint", "report"} for r in records)
    assert len({r["id"] for r in records}) == len(records)  # a fresh id each
    reports = read_reports(protocol, records)  # checks fingerprints and every report
    assert reports.shape == (ANSWERS_PER_RUN,)
    assert set(reports.tolist()) <= set(range(protocol.mechanism.matrix.shape[1]))

    with page.expect_download() as info:
        page.click("#download")
    download = info.value
    assert download.suggested_filename == "report.jsonl"
    path = tmp_path / "report.jsonl"
    download.save_as(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records
    np.testing.assert_array_equal(read_reports(protocol, str(path)), reports)
    estimate = protocol.decoder.estimate(protocol.aggregate(str(path)))
    assert estimate.shape == (len(protocol.labels),) and np.isfinite(estimate).all()


def test_the_survey_loads_a_local_protocol_file(page, tmp_path):
    grr = Protocol.from_mechanism(
        GRR(3, 2.0), labels=["yes", "no", "unsure"], question="Did you vote?"
    )
    grr.save(tmp_path / "grr.json")
    page.set_input_files("#protocol-file", str(tmp_path / "grr.json"))
    page.wait_for_function(
        f"document.getElementById('fingerprint').textContent === '{grr.fingerprint}'"
    )
    assert page.text_content("#question") == "Did you vote?"
    truth = math.exp(2.0) / (math.exp(2.0) + 2)
    assert f"probability {truth:.3g}" in page.text_content("#privacy")
    page.get_by_label("unsure", exact=True).check()
    record = _privatize(page, 1)
    assert read_reports(grr, [record]).tolist()[0] in (0, 1, 2)

    age = Protocol.from_mechanism(Laplace(1.0), bounds=(0, 120), question="Your age?")
    age.save(tmp_path / "age.json")
    page.set_input_files("#protocol-file", str(tmp_path / "age.json"))
    page.wait_for_function(
        f"document.getElementById('fingerprint').textContent === '{age.fingerprint}'"
    )
    assert page.text_content("#count") == "0"  # a new protocol starts a new session
    page.fill("#answer", "37.5")
    record = _privatize(page, 1)
    assert read_reports(age, [record]).shape == (1,)
    page.fill("#answer", "130")
    page.click("#privatize")
    error = page.text_content("#error")
    assert "outside the protocol's bounds" in error and "130" not in error
    assert page.text_content("#count") == "1"


def _load_file(page, tmp_path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    page.set_input_files("#protocol-file", str(path))


def _refitted(document: dict) -> str:
    """``document`` with its fingerprint recomputed, as anyone can (the JSON text)."""
    body = {key: value for key, value in document.items() if key != "fingerprint"}
    return json.dumps({**body, "fingerprint": canonical.content_hash(body)[:16]})


def test_the_survey_refuses_a_hostile_file_and_says_why(page, tmp_path):
    grr = Protocol.from_mechanism(GRR(3, 1.0), labels=["yes", "no", "unsure"], question="Q?")
    document = grr.to_dict()
    document["sampler"]["keep"] = [1, 0]  # every report the true answer; epsilon still 1
    _load_file(page, tmp_path, "hostile.json", _refitted(document))
    page.wait_for_selector("body[data-state=refused]", timeout=10_000)
    error = page.text_content("#error")
    assert error.startswith("hostile.json was refused by this browser: grr: the sampler ")
    assert "epsilon = inf (computed on this device)" in error
    assert error.endswith("Nothing was privatized or sent.")
    assert page.is_disabled("#privatize")
    assert page.text_content("#question") == "No protocol loaded"
    assert page.text_content("#privacy") == ""

    # an honest file above the page's policy (epsilon at most 2) is refused too
    loud = Protocol.from_mechanism(GRR(3, 3.0), labels=["yes", "no", "unsure"])
    _load_file(page, tmp_path, "loud.json", loud.to_json())
    page.wait_for_function("document.getElementById('error').textContent.startsWith('loud.json')")
    assert "above the app's max_epsilon = 2" in page.text_content("#error")
    assert page.is_disabled("#privatize")

    # and a good file is accepted again afterwards
    _load_file(page, tmp_path, "grr.json", grr.to_json())
    page.wait_for_selector("body[data-state=ready]", timeout=10_000)
    assert page.text_content("#error") == ""
    assert page.text_content("#fingerprint") == grr.fingerprint


def test_the_survey_refuses_the_report_over_its_daily_budget(page, tmp_path):
    grr = Protocol.from_mechanism(GRR(3, 2.0), labels=["yes", "no", "unsure"])
    _load_file(page, tmp_path, "grr.json", grr.to_json())
    page.wait_for_function(
        f"document.getElementById('fingerprint').textContent === '{grr.fingerprint}'"
    )
    # the budget is epsilon 30 a day; each report costs the epsilon the device computes
    each = Fraction(ldp_client.verify(grr.to_json())["epsilon"])
    allowed = int(Fraction(30) / each)
    assert allowed in (14, 15)
    page.get_by_label("no", exact=True).check()
    for i in range(allowed):
        _privatize(page, i + 1)
    assert page.text_content("#error") == ""
    page.click("#privatize")
    page.wait_for_function("document.getElementById('error').textContent !== ''")
    assert "over the app's budget (epsilon 30.0, delta 1e-06 per 1 day): refused, nothing sent" in (
        page.text_content("#error")
    )
    assert page.text_content("#count") == str(allowed)
    ledger = json.loads(page.evaluate("localStorage.getItem('ldp-ledger')"))
    charges = ledger["questions"]["web-survey"]["charges"]
    assert len(charges) == allowed and all(Fraction(c[1]) == each for c in charges)


#: Runs in the page: every test vector (reports from their bytes; the marginals vectors too)
#: and every hostile file (refused before a byte is drawn) through the client module; returns
#: what failed.
CONFORMANCE = """async () => {
  const client = await import("/clients/js/ldp_client.mjs");
  const vectors = await (await fetch("/clients/test_vectors.json")).json();
  const hostile = await (await fetch("/clients/hostile_protocols.json")).json();
  const failures = [];
  const replay = (hex) => {
    const data = Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
    let at = 0;
    const randbytes = (n) => {
      const out = data.subarray(at, at + n);
      at += out.length;
      return out;
    };
    return { randbytes, used: () => at, size: data.length };
  };
  const close = (a, b, rtol) =>
    rtol === 0 ? Object.is(a, b) : Math.abs(a - b) <= rtol * Math.abs(b);
  let ran = 0;
  for (const v of [...vectors.vectors, ...vectors.marginals.map((m) => ({ ...m, rtol: 0 }))]) {
    const source = replay(v.bytes);
    const pin = { pinned_fingerprints: [v.protocol.fingerprint] };
    const policy = v.protocol.mechanism.name.startsWith("privunit") ? pin : undefined;
    try {
      const options = { policy, randbytes: source.randbytes };
      const { report } = client.privatize(v.protocol, v.value, options);
      const same = report.length === v.report.length
        && report.every((a, i) => close(a, v.report[i], v.rtol));
      if (!same || source.used() !== source.size) {
        failures.push(`${v.name}: ${JSON.stringify(report)}`);
      }
    } catch (error) {
      failures.push(`${v.name}: ${error.message}`);
    }
    ran += 1;
  }
  for (const h of hostile) {
    let drawn = 0;
    const randbytes = (n) => {
      drawn += n;
      return new Uint8Array(n);
    };
    try {
      client.privatize(h.protocol, h.value, { randbytes });
      failures.push(`${h.name}: accepted`);
    } catch (error) {
      if (!(error instanceof RangeError || error instanceof TypeError) || drawn > 0) {
        failures.push(`${h.name}: ${error}, ${drawn} bytes drawn`);
      }
    }
    ran += 1;
  }
  return { ran, failures };
}"""


def test_the_vectors_and_the_hostile_suite_pass_in_the_browser(page):
    result = page.evaluate(CONFORMANCE)
    document = json.loads((ROOT / "clients" / "test_vectors.json").read_text())
    vectors = document["vectors"] + document["marginals"]  # marginals: a row, group first
    assert result["ran"] == len(vectors) + len(HOSTILE)
    assert result["failures"] == []
