// The web survey: load a protocol, check it, ask its question, privatize the answer in the
// browser.
//
// The server that publishes protocol.json is not trusted. Before the question is shown, the
// client verifies the file against this page's own POLICY: it computes the privacy from the
// noise constants it will run (never the file's stated numbers) and refuses a file above the
// policy. The page shows the number the client computed. Every report is charged to a ledger
// kept in this browser (localStorage) under the page's own question id, and a report that
// would take the day's loss above the page's budget is refused before anything is drawn.
// Nothing but the record {id, fingerprint, report} is produced from the answer. Opened as a
// static page, it sends nothing anywhere (the person, or the survey's own upload step, sends
// report.jsonl). Served by the collector (`ldp serve`, at /survey/?protocol=FINGERPRINT), it
// fetches the protocol from the collector, verifies it all the same, and posts each record
// to the collector's upload endpoint (retrying a failed upload with the same record: its id
// makes the retry count once); results.html shows the running estimate.

import { loadProtocol, privatizeWithLedger, verify } from "../../clients/js/ldp_client.mjs";

// What this page accepts, whatever a server publishes: part of the page, not of the file.
const POLICY = Object.freeze({
  max_epsilon: 2,
  max_delta: 1e-6,
  budget: Object.freeze({ epsilon: 30, delta: 1e-6, period_days: 1 }),
});
const QUESTION_ID = "web-survey"; // the page's name for its question, not the file's text
const LEDGER_KEY = "ldp-ledger";

const $ = (id) => document.getElementById(id);
const MAX_RADIOS = 20; // unlabelled categories beyond this get a number box

let protocol = null;
let records = [];
let downloadUrl = null;
let uploadUrl = null; // set when the collector served the protocol
let sent = 0;
// the collector's fingerprint, when the page is served by `ldp serve`
const COLLECTED = new URLSearchParams(location.search).get("protocol");
const UPLOAD_TRIES = 3;

function showError(message) {
  $("error").textContent = message;
}

// `x` rounded up to 3 significant digits: a bound shown rounded must still hold.
function roundUp(x) {
  if (x === Infinity) return "more than 1e308";
  if (x <= 0) return String(x);
  const unit = 10 ** (Math.floor(Math.log10(x)) - 2);
  return Number((Math.ceil(x / unit) * unit).toPrecision(3)).toString();
}

// The privacy statement, from the numbers this browser computed (`info`, from verify).
function privacyText(p, info) {
  const { epsilon, delta } = info;
  const parts = [
    `Your answer is randomized on this device before anything leaves it: each report is ` +
      `${delta > 0 ? "(ε, δ)" : "ε"}-locally differentially private with ε = ${roundUp(epsilon)} ` +
      `(computed in this browser from the noise it will add, not taken from the server).`,
    `Whatever your true answer, any report is at most e^ε = ${roundUp(Math.exp(epsilon))} ` +
      `times as likely under it as under any other answer, so one report changes anyone's ` +
      `odds between two answers by at most that factor.`,
  ];
  if (delta > 0) {
    parts.push(`With δ = ${delta}: the factor holds up to an added probability δ.`);
  }
  if (p.mechanism.name === "grr") {
    const [keep, other] = p.sampler.keep;
    const truth = keep / (keep + other);
    parts.push(
      `Your true answer is reported with probability ${truth.toPrecision(3)}, ` +
        `otherwise a uniformly random other answer.`,
    );
  }
  return parts.join(" ");
}

function element(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function radios(container, labels, name = "answer") {
  labels.forEach((label, index) => {
    const row = element("label", { class: "answer" });
    row.append(element("input", { type: "radio", name, value: String(index) }));
    row.append(` ${String(label)}`);
    container.append(row);
  });
}

function numberBox(container, text, attributes) {
  const row = element("label", { class: "answer" }, `${text} `);
  row.append(element("input", { id: "answer", type: "number", required: "", ...attributes }));
  container.append(row);
}

function render(p, info, source) {
  protocol = p;
  records = [];
  updateDownload();
  $("record").textContent = "(none yet)";
  $("source").textContent = source;
  $("fingerprint").textContent = p.fingerprint;
  $("question").textContent = p.question ?? "Your answer";
  $("privacy").textContent = privacyText(p, info);
  $("policy").textContent = policyText();
  const answers = $("answers");
  answers.replaceChildren();
  const domain = p.domain;
  if (domain.type === "table") {
    // a marginals protocol: one question per column; the device sends one group of them
    domain.columns.forEach((column, j) => {
      const set = element("fieldset", { class: "column" });
      set.append(element("legend", {}, column.name));
      radios(set, column.labels ?? Array.from({ length: column.k }, (_, i) => i), `column-${j}`);
      answers.append(set);
    });
  } else if (domain.type === "categorical") {
    if (domain.labels !== null) {
      radios(answers, domain.labels);
    } else if (domain.k <= MAX_RADIOS) {
      radios(answers, Array.from({ length: domain.k }, (_, i) => i));
    } else {
      numberBox(answers, `A category from 0 to ${domain.k - 1}:`, {
        min: "0",
        max: String(domain.k - 1),
        step: "1",
      });
    }
  } else if (domain.type === "interval" && domain.dimension === 1) {
    numberBox(answers, `A number from ${domain.low} to ${domain.high}:`, {
      min: String(domain.low),
      max: String(domain.high),
      step: "any",
    });
  } else {
    const where =
      domain.type === "ball"
        ? `with Euclidean norm at most ${domain.radius}`
        : `each from ${domain.low} to ${domain.high}`;
    const row = element("label", { class: "answer" }, `${domain.dimension} numbers ${where}, `);
    row.append("separated by commas: ");
    row.append(element("input", { id: "answer", type: "text", required: "" }));
    answers.append(row);
  }
  $("privatize").disabled = false;
  document.body.dataset.state = "ready";
}

function policyText() {
  const { budget } = POLICY;
  return (
    `This page runs only protocols with ε ≤ ${POLICY.max_epsilon} and δ ≤ ${POLICY.max_delta}, ` +
    `and sends at most ε = ${budget.epsilon} per day from this browser ` +
    `(spent in the last day: ε = ${roundUp(spentToday())}).`
  );
}

// The page's ledger: plain JSON in localStorage (null when none, or when it cannot be read).
function storedLedger() {
  try {
    return localStorage.getItem(LEDGER_KEY);
  } catch {
    return null;
  }
}

// The epsilon charged to the page's question within the last day (an upper bound).
function spentToday() {
  const text = storedLedger();
  if (text === null) return 0;
  try {
    const charges = JSON.parse(text).questions?.[QUESTION_ID]?.charges ?? [];
    const since = Date.now() / 1000 - 86400 * POLICY.budget.period_days;
    return charges.filter(([t]) => t > since).reduce((sum, [, e]) => sum + e, 0);
  } catch {
    return 0;
  }
}

// The page no longer holds a protocol: `message` says why.
function refuse(message) {
  protocol = null;
  records = [];
  updateDownload();
  $("privatize").disabled = true;
  $("answers").replaceChildren();
  $("question").textContent = "No protocol loaded";
  $("fingerprint").textContent = "…";
  $("privacy").textContent = "";
  showError(message);
  document.body.dataset.state = "refused";
}

// The answer as the protocol's domain wants it: a label, an index, a number, a list, or a
// row (an object by column name).
function readAnswer() {
  const domain = protocol.domain;
  if (domain.type === "table") {
    const row = {};
    domain.columns.forEach((column, j) => {
      const chosen = document.querySelector(`input[name="column-${j}"]:checked`);
      if (chosen === null) throw new RangeError(`Answer "${column.name}" first.`);
      const index = Number(chosen.value);
      row[column.name] = column.labels === null ? index : column.labels[index];
    });
    return row;
  }
  const chosen = document.querySelector('input[name="answer"]:checked');
  if (domain.type === "categorical" && (domain.labels !== null || domain.k <= MAX_RADIOS)) {
    if (chosen === null) throw new RangeError("Choose an answer first.");
    const index = Number(chosen.value);
    return domain.labels === null ? index : domain.labels[index];
  }
  const text = $("answer").value.trim();
  if (text === "") throw new RangeError("Enter an answer first.");
  if (domain.type === "categorical" || (domain.type === "interval" && domain.dimension === 1)) {
    return Number(text);
  }
  return text.split(",").map((part) => Number(part.trim()));
}

function updateDownload() {
  if (downloadUrl !== null) URL.revokeObjectURL(downloadUrl);
  downloadUrl = null;
  const link = $("download");
  $("count").textContent = String(records.length);
  if (records.length === 0) {
    link.hidden = true;
    link.removeAttribute("href");
    return;
  }
  const lines = records.map((record) => JSON.stringify(record)).join("\n") + "\n";
  downloadUrl = URL.createObjectURL(new Blob([lines], { type: "application/x-ndjson" }));
  link.href = downloadUrl;
  link.hidden = false;
}

// Post one record to the collector; a failed attempt is retried with the same record (the
// collector stores it once). Throws with the collector's one-line reason.
async function upload(record) {
  let reason = "";
  for (let attempt = 0; attempt < UPLOAD_TRIES; attempt += 1) {
    try {
      const response = await fetch(uploadUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(record),
      });
      if (response.ok) return;
      reason = (await response.json()).error ?? `HTTP ${response.status}`;
      if (response.status < 500 && response.status !== 429) break; // refused: no retry
    } catch (error) {
      reason = error.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
  }
  throw new Error(`the collector did not take the record: ${reason}`);
}

$("survey").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError("");
  if (protocol === null) return;
  let record;
  try {
    const answer = readAnswer();
    const made = privatizeWithLedger(protocol, answer, QUESTION_ID, {
      ledger: storedLedger() ?? undefined,
      policy: POLICY,
    });
    record = made.record;
    localStorage.setItem(LEDGER_KEY, JSON.stringify(made.ledger));
    $("policy").textContent = policyText();
    records.push(record);
    $("record").textContent = JSON.stringify(record);
    updateDownload();
  } catch (error) {
    showError(error.message);
    return;
  }
  if (uploadUrl === null) return;
  $("privatize").disabled = true;
  try {
    await upload(record);
    sent += 1;
    $("sent").textContent = String(sent);
    document.body.dataset.sent = String(sent);
  } catch (error) {
    showError(error.message);
  } finally {
    $("privatize").disabled = false;
  }
});

async function load(text, source) {
  let p;
  let info;
  try {
    p = loadProtocol(text);
    info = verify(p, POLICY);
  } catch (error) {
    refuse(
      `${source} was refused by this browser: ${error.message}. ` +
        "Nothing was privatized or sent.",
    );
    return;
  }
  render(p, info, source);
  showError("");
}

$("protocol-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  uploadUrl = null; // a local file's records are not the collector's
  $("upload").hidden = true;
  if (file) await load(await file.text(), file.name);
});

const source = COLLECTED === null ? "protocol.json" : `/v1/protocols/${encodeURIComponent(COLLECTED)}`;
try {
  const response = await fetch(source);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  await load(await response.text(), COLLECTED === null ? "protocol.json" : "the collector");
  if (COLLECTED !== null && protocol !== null) {
    if (protocol.fingerprint !== COLLECTED) {
      refuse("The collector served a protocol with another fingerprint: refused, nothing sent.");
    } else {
      uploadUrl = `${source}/reports`;
      $("results").href = `results.html?protocol=${encodeURIComponent(COLLECTED)}`;
      $("upload").hidden = false;
    }
  }
} catch (error) {
  $("question").textContent = "No protocol loaded";
  showError(
    `Could not load ${source} (${error.message}): serve the repository over http (see ` +
      `README.md), or choose a protocol file above.`,
  );
}
