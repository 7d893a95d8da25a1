// Tests of the JavaScript client: `node --test clients/js/` (Node >= 18, no packages).
//
// Every vector of clients/test_vectors.json (made by the ldp library's own sampler) is
// reproduced from its bytes, reading all of them; bad inputs throw the documented error
// types without echoing the answer; the default source (crypto.getRandomValues) works.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { createHash } from "node:crypto";

import {
  PROTOCOL_VERSION,
  bloomPositions,
  bloomRapporKey,
  bloomRapporRound,
  loadProtocol,
  privatize,
  privatizeRound,
  sha256,
} from "./ldp_client.mjs";

const MODULE = fileURLToPath(new URL("./ldp_client.mjs", import.meta.url));
const DOCUMENT = JSON.parse(readFileSync(new URL("../test_vectors.json", import.meta.url), "utf8"));
const VECTORS = DOCUMENT.vectors;
const MEMOIZED = DOCUMENT.memoized;
const BLOOM = DOCUMENT.bloom_rappor;
const MECHANISMS = [
  "Channel", "GRR", "UE", "SUE", "OUE", "LH", "OLH", "BLH", "HR", "SS",
  "Duchi", "DuchiL2", "Laplace", "Piecewise", "Hybrid", "SquareWave", "staircase", "gaussian",
  "cms", "hcms", "privunit", "privunitg",
];

// randbytes reading `data` in order; `used()` tells how many bytes were read.
function replay(data) {
  let position = 0;
  const randbytes = (n) => {
    const out = data.subarray(position, position + n);
    position += out.length;
    return out;
  };
  return { randbytes, used: () => position };
}

function fromHex(hex) {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

function same(report, expected, rtol) {
  if (rtol === 0) return report.length === expected.length && report.every((a, i) => Object.is(a, expected[i]));
  return (
    report.length === expected.length &&
    report.every((a, i) => Math.abs(a - expected[i]) <= rtol * Math.abs(expected[i]))
  );
}

function vectorOf(mechanism, kind) {
  return VECTORS.find(
    (v) => v.protocol.mechanism.name === mechanism && (!kind || v.protocol.domain.type === kind),
  );
}

const LABELLED = vectorOf("Channel").protocol; // labels bus, bike, car
const ERASURE = VECTORS.find((v) => v.protocol.domain.labels?.[0] === false).protocol;
const DESIGNED = VECTORS.find((v) => v.protocol.domain.labels?.[0] === 1).protocol;
const LAPLACE = vectorOf("Laplace").protocol; // bounds [0, 120]
const DUCHI3 = VECTORS.find((v) => v.protocol.domain.dimension === 3 && v.protocol.mechanism.name === "Duchi").protocol;
const BALL = vectorOf("DuchiL2").protocol;
const GRR5 = VECTORS.find((v) => v.name.startsWith("GRR k=5")).protocol;

test("the vectors cover every mechanism and domain", () => {
  assert.deepEqual(
    new Set(VECTORS.map((v) => v.protocol.mechanism.name)),
    new Set(MECHANISMS),
  );
  assert.deepEqual(
    new Set(VECTORS.map((v) => v.protocol.domain.type)),
    new Set(["categorical", "interval", "ball", "items"]),
  );
  assert.equal(PROTOCOL_VERSION, 1);
});

for (const vector of VECTORS) {
  test(`vector: ${vector.name}`, () => {
    const data = fromHex(vector.bytes);
    const source = replay(data);
    const record = privatize(vector.protocol, vector.value, { randbytes: source.randbytes });
    assert.equal(record.fingerprint, vector.protocol.fingerprint);
    assert.ok(
      same(record.report, vector.report, vector.rtol),
      `report ${JSON.stringify(record.report)} != ${JSON.stringify(vector.report)}`,
    );
    assert.equal(source.used(), data.length, "every byte of the vector is read, no more");
  });
}

test("text, bytes, objects and loaded protocols give the same report", () => {
  const vector = vectorOf("SS");
  const data = fromHex(vector.bytes);
  const text = JSON.stringify(vector.protocol);
  const loaded = loadProtocol(text);
  for (const form of [vector.protocol, text, new TextEncoder().encode(text), loaded, loaded]) {
    const record = privatize(form, vector.value, { randbytes: replay(data).randbytes });
    assert.deepEqual(record.report, vector.report);
  }
  assert.equal(loadProtocol(loaded), loaded);
  assert.ok(Object.isFrozen(loaded) && Object.isFrozen(loaded.sampler));
  assert.deepEqual(JSON.parse(JSON.stringify(loaded)), vector.protocol);
  assert.equal(loaded.question, vector.protocol.question);
});

test("labels match by kind and value", () => {
  const zeros = (n) => new Uint8Array(n);
  assert.deepEqual(privatize(DESIGNED, 1.0, { randbytes: zeros }).report.length, 1);
  assert.throws(() => privatize(DESIGNED, "1"), RangeError);
  assert.throws(() => privatize(DESIGNED, true), RangeError);
  assert.throws(() => privatize(ERASURE, 0), RangeError);
  assert.throws(() => privatize(ERASURE, null), RangeError);
  privatize(ERASURE, false);
  privatize(LABELLED, "car");
  // labels: null -> the index itself
  assert.equal(privatize(GRR5, 4, { randbytes: zeros }).report[0], 4);
  privatize(GRR5, 2n);
  assert.throws(() => privatize(GRR5, 5), RangeError);
  assert.throws(() => privatize(GRR5, 1.5), RangeError);
  assert.throws(() => privatize(GRR5, -1), RangeError);
  assert.throws(() => privatize(GRR5, "0"), TypeError);
});

function throwsWithout(fn, type, pattern, secret) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof type, `${error.name}: ${error.message}`);
    assert.match(error.message, pattern);
    assert.ok(!error.message.includes("\n"), "one line");
    if (secret !== undefined) assert.ok(!error.message.includes(String(secret)), "no echo");
    return true;
  });
}

test("bad protocols are refused", () => {
  const text = JSON.stringify(LABELLED);
  throwsWithout(() => privatize(text.slice(0, 40), "bus"), TypeError, /not valid JSON/);
  throwsWithout(() => privatize("{nope", "bus"), TypeError, /not valid JSON/);
  throwsWithout(() => privatize(42, "bus"), TypeError, /must be an object/);
  throwsWithout(() => privatize({ ...LABELLED, format: "x" }, "bus"), TypeError, /not an ldp/);
  throwsWithout(() => privatize({ ...LABELLED, version: 2 }, "bus"), RangeError, /version 2/);
  throwsWithout(() => privatize({ ...LABELLED, version: "1" }, "bus"), RangeError, /version/);
  const { sampler, ...missing } = LABELLED;
  assert.ok(sampler);
  throwsWithout(() => privatize(missing, "bus"), TypeError, /lacks its "sampler"/);
  const unknown = { ...LABELLED, mechanism: { name: "Magic", params: {} } };
  throwsWithout(() => privatize(unknown, "bus"), RangeError, /unknown mechanism "Magic"/);
  const proto = { ...LABELLED, mechanism: { name: "constructor", params: {} } };
  throwsWithout(() => privatize(proto, "bus"), RangeError, /unknown mechanism/);
  throwsWithout(() => privatize({ ...LABELLED, fingerprint: "XYZ" }, "bus"), TypeError, /fingerprint/);
  const domain = { ...LABELLED, domain: { type: "sphere" } };
  throwsWithout(() => privatize(domain, "bus"), RangeError, /domain type/);
});

test("bad answers are refused without echoing them", () => {
  throwsWithout(() => privatize(LABELLED, "secret-answer"), RangeError, /not one of the protocol's 3 labels/, "secret-answer");
  throwsWithout(() => privatize(LAPLACE, 120.5), RangeError, /outside the protocol's bounds/, "120.5");
  throwsWithout(() => privatize(LAPLACE, -1e-300), RangeError, /outside/);
  throwsWithout(() => privatize(LAPLACE, NaN), RangeError, /finite/);
  throwsWithout(() => privatize(LAPLACE, Infinity), RangeError, /finite/);
  throwsWithout(() => privatize(LAPLACE, "37"), TypeError, /must be a number/);
  throwsWithout(() => privatize(LAPLACE, [37]), TypeError, /must be a number/);
  throwsWithout(() => privatize(DUCHI3, [0.1, 0.2]), RangeError, /list of 3 numbers/);
  throwsWithout(() => privatize(DUCHI3, 0.1), TypeError, /list of 3 numbers/);
  throwsWithout(() => privatize(DUCHI3, [0.1, NaN, 0.2]), RangeError, /finite/);
  throwsWithout(() => privatize(DUCHI3, [0.1, 2, 0.2]), RangeError, /outside/);
  throwsWithout(() => privatize(BALL, [0.1, 0.2, 0.3, 0.4]), RangeError, /list of 3 numbers/);
  throwsWithout(() => privatize(BALL, [0.6, 0.6, 0.6]), RangeError, /outside the ball/);
  // the bounds themselves are answers
  privatize(LAPLACE, 0);
  privatize(LAPLACE, 120);
});

test("a bad random source throws instead of looping", () => {
  throwsWithout(() => privatize(LABELLED, "bus", { randbytes: () => new Uint8Array(0) }), RangeError, /returned 0 bytes, 1 were needed/);
  throwsWithout(() => privatize(LAPLACE, 3, { randbytes: (n) => new Uint8Array(n + 1) }), RangeError, /bytes/);
  throwsWithout(() => privatize(LABELLED, "bus", { randbytes: "not a function" }), TypeError, /randbytes/);
  throwsWithout(() => privatize(LABELLED, "bus", { randbytes: (n) => [n] }), TypeError, /Uint8Array/);
  // an all-zero source never ends Laplace's run of zero bits; an all-ones one is always
  // rejected by randint(5) (3 bits, 7 >= 5): both are refused, not looped on.
  throwsWithout(() => privatize(LAPLACE, 3, { randbytes: (n) => new Uint8Array(n) }), RangeError, /broken/);
  const ones = (n) => new Uint8Array(n).fill(255);
  const grr6 = { ...GRR5, domain: { ...GRR5.domain, k: 6 }, mechanism: { ...GRR5.mechanism, params: { ...GRR5.mechanism.params, k: 6 } } };
  throwsWithout(() => privatize(grr6, 0, { randbytes: ones }), RangeError, /broken/);
});

test("the default source is the platform's crypto", () => {
  const reports = new Set();
  for (let i = 0; i < 200; i++) {
    const record = privatize(LAPLACE, 37.5);
    assert.equal(record.fingerprint, LAPLACE.fingerprint);
    assert.ok(Number.isFinite(record.report[0]));
    reports.add(record.report[0]);
  }
  assert.ok(reports.size > 190, "fresh randomness for every report");
  // a unary encoding of 70,000 bits reads 70,000 bytes in its first round: more than one
  // getRandomValues call may fill (65,536)
  const big = vectorOf("SUE").protocol;
  const k = 70_000;
  const wide = {
    ...big,
    domain: { ...big.domain, k },
    mechanism: { ...big.mechanism, params: { ...big.mechanism.params, k } },
  };
  const record = privatize(wide, 12_345);
  assert.equal(record.report.length, k / 8);
  let ones = 0;
  for (const byte of record.report) for (let b = byte; b; b &= b - 1) ones++;
  // E[ones] = k q with q = 1 / (1 + e^0.5) = 0.3775; sd about 128
  assert.ok(Math.abs(ones - k * 0.3775) < 1500, `${ones} bits set`);
});

test("without a global crypto (Node 18), the module falls back to node:crypto", () => {
  const code = [
    "delete globalThis.crypto;",
    `const m = await import(${JSON.stringify(MODULE)});`,
    `const p = ${JSON.stringify(LABELLED)};`,
    "console.log(JSON.stringify(m.privatize(p, 'bike')));",
  ].join("\n");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" });
  const record = JSON.parse(out);
  assert.equal(record.fingerprint, LABELLED.fingerprint);
  assert.ok([0, 1, 2].includes(record.report[0]));
});

test("the memoized vectors cover every memoized mechanism", () => {
  assert.deepEqual(
    new Set(MEMOIZED.map((v) => v.protocol.mechanism.name)),
    new Set(["l-grr", "l-osue", "l-oue", "rappor", "dbitflip-pm"]),
  );
});

for (const vector of MEMOIZED) {
  test(`memoized vector: ${vector.name}`, () => {
    const data = fromHex(vector.bytes);
    const source = replay(data);
    let memo;
    const reports = [];
    for (const value of vector.values) {
      const out = privatizeRound(vector.protocol, value, { memo, randbytes: source.randbytes });
      assert.equal(out.record.fingerprint, vector.protocol.fingerprint);
      memo = JSON.parse(JSON.stringify(out.memo)); // stored as JSON between rounds
      reports.push(out.record.report);
    }
    assert.equal(source.used(), data.length);
    assert.deepEqual(reports, vector.reports);
    assert.deepEqual({ entries: memo.entries, sampled: memo.sampled }, vector.memo);
    const first = privatize(vector.protocol, vector.values[0], { randbytes: replay(data).randbytes });
    assert.deepEqual(first.report, vector.reports[0]);
  });
}

test("a memo of another protocol is refused", () => {
  const [a, b] = MEMOIZED.filter((v) => v.protocol.mechanism.name === "l-grr");
  const { memo } = privatizeRound(a.protocol, a.values[0]);
  if (b !== undefined && b.protocol.fingerprint !== a.protocol.fingerprint) {
    assert.throws(() => privatizeRound(b.protocol, b.values[0], { memo }), RangeError);
  }
  assert.throws(() => privatizeRound(a.protocol, a.values[0], { memo: { entries: [] } }), TypeError);
  assert.throws(() => privatizeRound(GRR5, 0), RangeError);
});

test("sha256 agrees with node:crypto on every length around the block boundaries", () => {
  for (let length = 0; length < 200; length++) {
    const message = Uint8Array.from({ length }, (_, i) => (i * 131 + length * 7) & 0xff);
    const expected = createHash("sha256").update(message).digest("hex");
    assert.equal(Buffer.from(sha256(message)).toString("hex"), expected);
  }
});

test("sketch items: strings, bytes and integers; an integer is its decimal text", () => {
  const protocol = vectorOf("cms").protocol;
  const bytes = new Uint8Array(4096).fill(7);
  const run = (value) => privatize(protocol, value, { randbytes: replay(bytes).randbytes }).report;
  assert.deepEqual(run(12345), run("12345"));
  assert.deepEqual(run(12345n), run("12345"));
  assert.deepEqual(run(new TextEncoder().encode("apple")), run("apple"));
  assert.throws(() => run(1.5), RangeError);
  assert.throws(() => run(true), TypeError);
  assert.throws(() => run(null), TypeError);
  assert.throws(() => run("\ud800"), RangeError);
});

for (const vector of BLOOM) {
  test(`Bloom RAPPOR vector: ${vector.name}`, () => {
    const data = fromHex(vector.bytes);
    const { randbytes, used } = replay(data);
    assert.equal(bloomRapporKey(vector.params), vector.key);
    let memo;
    const reports = [];
    const cohorts = [];
    for (const value of vector.values) {
      const out = bloomRapporRound(vector.params, value, { memo, randbytes });
      memo = JSON.parse(JSON.stringify(out.memo)); // stored as JSON between rounds
      reports.push(out.record.report);
      cohorts.push(out.record.cohort);
    }
    assert.equal(used(), data.length);
    assert.deepEqual(reports, vector.reports);
    assert.deepEqual(cohorts, vector.cohorts);
    assert.deepEqual(memo, vector.memo);
    const { num_bits: m, num_hashes: h } = vector.params;
    vector.values.forEach((value, i) => {
      assert.deepEqual(bloomPositions(value, vector.cohorts[0], m, h), vector.positions[i]);
    });
  });
}

test("Bloom RAPPOR refuses bad input", () => {
  const params = { num_bits: 16, num_hashes: 2, num_cohorts: 2, f: 0.5, p: 0.5, q: 0.75 };
  assert.throws(() => bloomRapporRound({ ...params, num_hashes: 9 }, "a"), RangeError);
  assert.throws(() => bloomRapporRound(params, 3), TypeError);
  const { memo } = bloomRapporRound(params, "a");
  assert.throws(() => bloomRapporRound({ ...params, f: 0.25 }, "a", { memo }), RangeError);
});
