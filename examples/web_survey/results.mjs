// The results page of the web survey, served by the collector (`ldp serve`): the running
// estimate of `/v1/protocols/{fingerprint}/estimate`, one bar per answer with its interval
// (or the mean; for a marginals protocol one per cell of each requested marginal, labelled
// by its columns' answers), refreshed every few seconds. Nothing is shown below the collector's minimum
// number of reports. A collector that requires the operator's token for estimates gets it
// from the page's fragment (`results.html?protocol=...#token=...`; a fragment is never sent
// to a server or kept in its logs).

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const REFRESH_MS = 3000;
const fingerprint = new URLSearchParams(location.search).get("protocol") ?? "";
const token = new URLSearchParams(location.hash.slice(1)).get("token");

function svg(tag, attributes, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

// Horizontal bars of the estimates, clipped to [0, 1] for frequencies, with interval whiskers.
function plot(entries, frequencies) {
  const width = 560;
  const row = 28;
  const left = 150;
  const height = row * entries.length + 24;
  const values = entries.flatMap((e) => [e.ci_low, e.ci_high, e.estimate]);
  const low = frequencies ? 0 : Math.min(...values);
  const high = frequencies ? 1 : Math.max(...values);
  const span = high - low || 1;
  const x = (v) => left + ((Math.min(Math.max(v, low), high) - low) / span) * (width - left - 10);
  const chart = svg("svg", { width, height, role: "img", "aria-label": "estimates" });
  entries.forEach((entry, i) => {
    const y = i * row + 6;
    chart.append(svg("text", { x: 0, y: y + 14 }, String(entry.label).slice(0, 22)));
    chart.append(svg("rect", { x: x(low), y, width: Math.max(0, x(entry.estimate) - x(low)), height: 18, fill: "#6a9fd4" }));
    chart.append(svg("line", { x1: x(entry.ci_low), x2: x(entry.ci_high), y1: y + 9, y2: y + 9, stroke: "#222", "stroke-width": 1.5 }));
  });
  chart.append(svg("line", { x1: left, x2: left, y1: 0, y2: height - 20, stroke: "#888" }));
  chart.append(svg("text", { x: left, y: height - 4 }, String(low)));
  chart.append(svg("text", { x: width - 30, y: height - 4 }, String(Number(high.toPrecision(3)))));
  $("plot").replaceChildren(chart);
}

function table(entries) {
  const body = $("table").querySelector("tbody");
  body.replaceChildren();
  for (const entry of entries) {
    const tr = document.createElement("tr");
    for (const text of [
      String(entry.label),
      entry.estimate.toFixed(3),
      `${entry.ci_low.toFixed(3)} to ${entry.ci_high.toFixed(3)}`,
    ]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    body.append(tr);
  }
  $("table").hidden = false;
}

// The cells of a marginals protocol's tables as entries, labelled "column=answer, ...".
function cells(marginals) {
  if (marginals === null) return null;
  return marginals.flatMap((t) =>
    t.cells.map((c) => ({
      ...c,
      label: c.labels.map((value, i) => `${t.columns[i]}=${value}`).join(", "),
    })),
  );
}

async function refresh() {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await fetch(`/v1/protocols/${encodeURIComponent(fingerprint)}/estimate`, { headers });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
  $("n").textContent = String(answer.n);
  const { epsilon, delta } = answer.privacy;
  $("privacy").textContent =
    `Each report is ${delta > 0 ? "(ε, δ)" : "ε"}-locally differentially private with ε = ` +
    `${epsilon.toPrecision(3)}${delta > 0 ? `, δ = ${delta}` : ""}; intervals at ` +
    `${Math.round(answer.confidence * 100)}% confidence.`;
  const entries = answer.kind === "marginals" ? cells(answer.marginals) : answer.estimates;
  if (entries === null) {
    $("status").textContent =
      answer.kind === "marginals" && answer.n >= answer.min_reports
        ? `(${answer.held_back})`
        : `(estimates are shown from ${answer.min_reports} reports on)`;
    $("plot").replaceChildren();
    $("table").hidden = true;
  } else {
    $("status").textContent = "";
    const frequencies = entries.length > 1 || entries[0].label !== "mean";
    plot(entries, frequencies);
    table(entries);
  }
  document.body.dataset.n = String(answer.n);
  document.body.dataset.state = "shown";
}

async function start() {
  $("back").href = `./?protocol=${encodeURIComponent(fingerprint)}`;
  try {
    const response = await fetch(`/v1/protocols/${encodeURIComponent(fingerprint)}`);
    if (!response.ok) throw new Error((await response.json()).error ?? `HTTP ${response.status}`);
    const protocol = await response.json();
    $("question").textContent = protocol.question ?? "Results";
    await refresh();
    setInterval(() => refresh().catch((error) => ($("error").textContent = error.message)), REFRESH_MS);
  } catch (error) {
    $("error").textContent = `Could not load the results: ${error.message}`;
    document.body.dataset.state = "refused";
  }
}

start();
