"""The web survey served by the collector, answered 50 times in headless Chromium.

``ldp serve`` serves ``examples/web_survey/protocol.json``; Debian's Chromium (driven by
Playwright, nothing downloaded) opens the collector's root, which leads to the survey: the
page fetches the protocol from the collector, verifies it on the device, privatizes each
answer and posts the record. Then the estimate endpoint says n = 50 and gives the estimates
``ldp estimate`` gives on the exported file, and the results page shows them. Skips, with the
reason, only where Chromium cannot be launched, and never in CI.
"""

import json
import os
import shutil

import pytest

from ldp.cli import main
from ldp.protocol import load

from .running import request, require_server_extra, serving

pytestmark = pytest.mark.slow
require_server_extra()

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "examples" / "web_survey" / "protocol.json"
CHROMIUM = os.environ.get("LDP_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
PEOPLE = 50


def _unavailable(reason):
    if os.environ.get("CI"):
        pytest.fail(f"the browser test must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def browser(tmp_path):
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        _unavailable("playwright (in the test extra) is not installed")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        try:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=FLAGS
            )
        except Error as exc:
            _unavailable(f"Chromium at {CHROMIUM} could not be launched: {exc.message[:300]}")
        try:
            yield context
        finally:
            context.close()


def test_fifty_people_answer_through_the_page_and_the_estimate_matches_ldp_estimate(
    browser, tmp_path, capsys
):
    protocol = load(PROTOCOL)
    store = tmp_path / "reports.sqlite"
    with serving([PROTOCOL], store, tmp_path, "--min-reports", "10") as server:
        page = browser.new_page()
        problems = []
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.on(
            "console",
            lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None,
        )
        page.on(
            "request",
            lambda r: None if r.url.startswith(server.url) else problems.append(r.url),
        )
        page.goto(server.url + "/")
        assert page.url == f"{server.url}/survey/?protocol={protocol.fingerprint}"
        page.wait_for_selector("body[data-state=ready]", timeout=15_000)
        assert page.text_content("#question") == protocol.question
        assert "computed in this browser" in page.text_content("#privacy")
        for person in range(PEOPLE):
            # each person answers once, on a device with its own privacy ledger
            page.evaluate("localStorage.clear()")
            label = protocol.labels[(person * 3) % len(protocol.labels)]
            page.get_by_label(label, exact=True).check()
            page.click("#privatize")
            page.wait_for_function(f"document.body.dataset.sent === '{person + 1}'", timeout=10_000)
        assert page.text_content("#error") == ""
        status, served = request(f"{server.url}/v1/protocols/{protocol.fingerprint}/estimate")
        assert status == 200 and served["n"] == PEOPLE

        page.click("#results")
        page.wait_for_selector("body[data-state=shown]", timeout=15_000)
        assert page.text_content("#n") == str(PEOPLE)
        assert page.locator("#table tbody tr").count() == len(protocol.labels)
        assert page.locator("#plot svg rect").count() == len(protocol.labels)
        page.close()
        assert not problems, problems

    out = tmp_path / "export.parquet"
    assert (
        main(["export", "--store", str(store), "--protocol", str(PROTOCOL), "--out", str(out)]) == 0
    )
    capsys.readouterr()
    assert main(["estimate", "--protocol", str(PROTOCOL), str(out), "--json"]) == 0
    estimated = json.loads(capsys.readouterr().out)
    assert estimated["n"] == PEOPLE
    for entry, row in zip(served["estimates"], estimated["frequencies"], strict=True):
        assert entry["label"] == row["category"]
        assert entry["estimate"] == pytest.approx(row["estimate"], rel=1e-12, abs=1e-15)
        assert entry["ci_high"] - entry["estimate"] == pytest.approx(row["half_width"], rel=1e-9)


@pytest.mark.long  # its twin in the default run: tests/collector/test_marginals.py
def test_a_table_survey_is_answered_through_the_page_and_estimated_as_the_library_does(
    browser, tmp_path, capsys
):
    """A marginals protocol through the same page: one question per column, the record of
    one group posted by the browser, the served marginals equal to ``fit_reports`` on the
    exported records, and the results page showing one row per cell."""
    from estimators import MarginalEstimator

    categories = {"smoker": ["no", "yes"], "region": ["North", "South", "West"]}
    estimator = MarginalEstimator(
        1.0, categories=categories, marginals=[("smoker", "region")], method="joint"
    )
    protocol = estimator.device_protocol(question="Do you smoke, and where do you live?")
    path = tmp_path / "marginals.json"
    protocol.save(path)
    people = 12
    store = tmp_path / "reports.sqlite"
    with serving([path], store, tmp_path, "--min-reports", "6") as server:
        page = browser.new_page()
        problems = []
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-state=ready]", timeout=15_000)
        assert page.text_content("#question") == protocol.question
        assert page.locator("fieldset.column").count() == 2
        page.click("#privatize")  # nothing chosen: refused before anything is drawn
        assert 'Answer "smoker" first.' in page.text_content("#error")
        for person in range(people):
            page.evaluate("localStorage.clear()")
            page.get_by_label(["no", "yes"][person % 2], exact=True).check()
            page.get_by_label(["North", "South", "West"][person % 3], exact=True).check()
            page.click("#privatize")
            page.wait_for_function(f"document.body.dataset.sent === '{person + 1}'", timeout=10_000)
        assert page.text_content("#error") == ""
        status, served = request(f"{server.url}/v1/protocols/{protocol.fingerprint}/estimate")
        assert status == 200 and served["n"] == people
        page.click("#results")
        page.wait_for_selector("body[data-state=shown]", timeout=15_000)
        assert page.locator("#table tbody tr").count() == 6
        assert "smoker=no, region=North" in page.text_content("#table")
        page.close()
        assert not problems, problems
    out = tmp_path / "export.jsonl"
    command = ["export", "--store", str(store), "--protocol", str(path), "--out", str(out)]
    assert main(command) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    fitted = estimator.fit_reports(
        [{"fingerprint": r["fingerprint"], "report": r["report"]} for r in records], protocol
    )
    (table,) = served["marginals"]
    frame = fitted.marginal(["smoker", "region"])
    for key in ("estimate", "ci_low", "ci_high", "unbiased", "std"):
        assert [cell[key] for cell in table["cells"]] == frame[key].tolist()
