// Tests of the JavaScript client: `node --test clients/js/` (Node >= 18, no packages).
//
// Every vector of clients/test_vectors.json (made by the ldp library's own sampler, written
// in protocol format 2) is reproduced from its bytes, reading all of them, from the file's own
// text; version-1 files (tests/data/protocol_v1.json, written by the last release) are read
// from their text with their version-1 fingerprint. Expected values come from outside the
// client: the vectors, RFC 8785's examples, JSON.stringify, node:crypto's SHA-256 and values
// derived by hand (decimal arithmetic). The numbers of `verify` are compared, bit for bit,
// with the Python client's in tests/clients/test_js_client.py.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  MAX_DEPTH,
  MAX_PROTOCOL_BYTES,
  PROTOCOL_VERSION,
  V1_NAMES,
  bloomPositions,
  bloomRapporKey,
  bloomRapporRound,
  canonicalJson,
  loadProtocol,
  mechanismKey,
  privatize,
  privatizeRound,
  privatizeWithLedger,
  privatize_round,
  privatize_with_ledger,
  sha256,
  verify,
} from "./ldp_client.mjs";

const MODULE = fileURLToPath(new URL("./ldp_client.mjs", import.meta.url));
const RAW = readFileSync(new URL("../test_vectors.json", import.meta.url), "utf8");
const DOCUMENT = JSON.parse(RAW);
const VECTORS = DOCUMENT.vectors;
const MEMOIZED = DOCUMENT.memoized;
const BLOOM = DOCUMENT.bloom_rappor;
const MECHANISMS = [
  "channel", "grr", "unary-encoding", "sue", "oue", "local-hashing", "olh", "blh",
  "hadamard-response", "subset-selection", "duchi", "duchi-l2", "laplace", "piecewise",
  "hybrid", "square-wave", "staircase", "gaussian", "cms", "hcms", "privunit", "privunitg",
];
const PIECEWISE_REFUSAL = "piecewise: sampler.C must exceed 1 and sampler.width be C - 1";
// Version-1 files as the last release wrote them.
const V1_RAW = readFileSync(new URL("../../tests/data/protocol_v1.json", import.meta.url), "utf8");
const V1_PROTOCOLS = JSON.parse(V1_RAW).protocols;

// The raw text of every `"protocol": {...}` value in the vectors file, by fingerprint: the
// version-1 files exactly as Python wrote them (1.0 and 1 still told apart).
function protocolTexts(raw) {
  const out = new Map();
  for (const match of raw.matchAll(/"protocol":\s*\{/g)) {
    const start = match.index + match[0].length - 1;
    let depth = 0;
    let inside = false;
    let end = start;
    for (; end < raw.length; end++) {
      const c = raw[end];
      if (inside) {
        if (c === "\\") end++;
        else if (c === '"') inside = false;
      } else if (c === '"') inside = true;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) break;
    }
    const text = raw.slice(start, end + 1);
    out.set(JSON.parse(text).fingerprint, text);
  }
  return out;
}
const TEXTS = new Map([...protocolTexts(RAW), ...protocolTexts(V1_RAW)]);
const textOf = (protocol) => TEXTS.get(protocol.fingerprint);

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

function hex256(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

// RFC 8785 for JavaScript values, written independently of the client: keys sorted by UTF-16
// code units, then JSON.stringify (whose numbers and strings are exactly what RFC 8785 asks).
function jcsOracle(value) {
  if (Array.isArray(value)) return `[${value.map(jcsOracle).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${jcsOracle(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

// A version-2 document with its fingerprint (computed with the oracle and node:crypto).
function fingerprinted(document) {
  const { fingerprint, ...body } = document;
  assert.ok(fingerprint === undefined || typeof fingerprint === "string");
  return { ...body, fingerprint: hex256(jcsOracle(body)).slice(0, 16) };
}

// The version-2 form of a protocol (canonical name, version 2), edited and fingerprinted.
function v2(protocol, edit = (d) => d) {
  const document = structuredClone(protocol);
  if (document.version === 1) {
    document.version = 2;
    document.mechanism.name = V1_NAMES[document.mechanism.name];
  }
  return fingerprinted(edit(document));
}

// The first vector of a mechanism (by its version-2 id or its version-1 name).
function vectorOf(mechanism, kind) {
  const id = V1_NAMES[mechanism] ?? mechanism;
  return VECTORS.find(
    (v) => v.protocol.mechanism.name === id && (!kind || v.protocol.domain.type === kind),
  );
}

// The first version-1 file of a mechanism (by its version-1 name).
function v1Of(mechanism) {
  return V1_PROTOCOLS.find((v) => v.protocol.mechanism.name === mechanism).protocol;
}

const LABELLED = v2(vectorOf("Channel").protocol); // labels bus, bike, car
const ERASURE = v2(VECTORS.find((v) => v.protocol.domain.labels?.[0] === false).protocol);
const DESIGNED = v2(VECTORS.find((v) => v.protocol.domain.labels?.[0] === 1).protocol);
const LAPLACE = v2(vectorOf("Laplace").protocol); // bounds [0, 120]
const DUCHI3 = v2(VECTORS.find((v) => v.protocol.domain.dimension === 3 && v.protocol.mechanism.name === "duchi").protocol);
const BALL = v2(vectorOf("DuchiL2").protocol);
const GRR5 = v2(VECTORS.find((v) => v.name.startsWith("GRR k=5")).protocol);
const LGRR = v2(MEMOIZED.find((v) => v.protocol.mechanism.name === "l-grr").protocol);
const GAUSSIAN = v2(vectorOf("gaussian").protocol);
const PRIVUNIT = v2(vectorOf("privunit").protocol);

// A number as Python's repr writes it (the clients' messages are the same in both languages).
function py(x) {
  return Number.isInteger(x) && Math.abs(x) < 1e16 ? x.toFixed(1) : String(x);
}

function throwsWith(fn, type, pattern, secret) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof type, `${error.name}: ${error.message}`);
    if (typeof pattern === "string") assert.equal(error.message, pattern);
    else assert.match(error.message, pattern);
    assert.ok(!error.message.includes("\n"), "one line");
    if (secret !== undefined) assert.ok(!error.message.includes(String(secret)), "no echo");
    return true;
  });
}

// ---------------------------------------------------------------------------- the vectors
test("the vectors cover every mechanism and domain; every protocol's text is found", () => {
  assert.deepEqual(new Set(VECTORS.map((v) => v.protocol.mechanism.name)), new Set(MECHANISMS));
  assert.deepEqual(
    new Set(VECTORS.map((v) => v.protocol.domain.type)),
    new Set(["categorical", "interval", "ball", "items"]),
  );
  for (const v of [...VECTORS, ...MEMOIZED, ...V1_PROTOCOLS]) assert.ok(textOf(v.protocol), v.name);
  for (const v of [...VECTORS, ...MEMOIZED]) assert.equal(v.protocol.version, 2, v.name);
  for (const v of V1_PROTOCOLS) assert.equal(v.protocol.version, 1, v.name);
  assert.equal(PROTOCOL_VERSION, 2);
  assert.equal(MAX_DEPTH, 16);
  assert.equal(MAX_PROTOCOL_BYTES, 8 * 1024 * 1024);
});

for (const vector of VECTORS) {
  test(`vector: ${vector.name}`, () => {
    const text = textOf(vector.protocol);
    const data = fromHex(vector.bytes);
    const source = replay(data);
    const uncertified = ["privunit", "privunitg"].includes(vector.protocol.mechanism.name);
    const policy = uncertified ? { pinned_fingerprints: [vector.protocol.fingerprint] } : undefined;
    const record = privatize(text, vector.value, { policy, randbytes: source.randbytes });
    assert.equal(record.fingerprint, vector.protocol.fingerprint);
    assert.ok(
      same(record.report, vector.report, vector.rtol),
      `report ${JSON.stringify(record.report)} != ${JSON.stringify(vector.report)}`,
    );
    assert.equal(source.used(), data.length, "every byte of the vector is read, no more");
    // the same bytes give the same report from the parsed object, re-fingerprinted by hand
    const again = privatize(v2(vector.protocol), vector.value, { policy, randbytes: replay(data).randbytes });
    assert.ok(same(again.report, vector.report, vector.rtol));
  });
}

// Marginals protocols: the group is drawn first (a uniform integer), then the group's report.
const MARGINALS = DOCUMENT.marginals;

for (const vector of MARGINALS) {
  test(`marginals vector: ${vector.name}`, () => {
    const data = fromHex(vector.bytes);
    for (const protocol of [textOf(vector.protocol), vector.protocol]) {
      const source = replay(data);
      const record = privatize(protocol, vector.value, { randbytes: source.randbytes });
      assert.equal(record.fingerprint, vector.protocol.fingerprint);
      assert.deepEqual(record.report, vector.report);
      assert.equal(source.used(), data.length, "every byte of the vector is read, no more");
    }
    const columns = vector.protocol.domain.columns;
    const inOrder = columns.map((column) => vector.value[column.name]);
    const again = privatize(vector.protocol, inOrder, { randbytes: replay(data).randbytes });
    assert.deepEqual(again.report, vector.report);
  });
}

test("a marginals protocol's privacy is its largest group's; bad rows are refused before drawing", () => {
  const protocol = MARGINALS[0].protocol;
  const privacy = verify(textOf(protocol));
  const groups = protocol.sampler.groups.map((group) => verify(group.protocol).epsilon);
  assert.equal(privacy.mechanism, "marginals");
  assert.equal(privacy.groups, groups.length);
  assert.equal(privacy.epsilon, Math.max(...groups));
  let drawn = 0;
  const randbytes = (n) => {
    drawn += n;
    return new Uint8Array(n);
  };
  const names = protocol.domain.columns.map((column) => column.name);
  throwsWith(
    () => privatize(protocol, { [names[0]]: "yes" }, { randbytes }),
    RangeError,
    `the answer must give exactly the protocol's ${names.length} columns`,
  );
  throwsWith(
    () => privatize(protocol, Object.fromEntries(names.map((n) => [n, "secret-value"])), { randbytes }),
    RangeError,
    /^the answer of column 'smoker' is not one of its 2 categories$/,
    "secret-value",
  );
  throwsWith(() => privatize(protocol, "yes", { randbytes }), RangeError, /dict or list of 3 column values/);
  assert.equal(drawn, 0);
});

test("version-1 files of the last release are read from their text; Piecewise is refused", () => {
  let read = 0;
  for (const { name, protocol } of V1_PROTOCOLS) {
    const text = textOf(protocol);
    const id = V1_NAMES[protocol.mechanism.name];
    const policy = ["privunit", "privunitg"].includes(id) ? { pinned_fingerprints: [protocol.fingerprint] } : undefined;
    if (id === "piecewise" || (id === "hybrid" && protocol.sampler.mix !== null)) {
      // version-1 Piecewise constants: width = C - 1 only up to the last bit of a double
      throwsWith(() => verify(text, policy), RangeError, PIECEWISE_REFUSAL);
      continue;
    }
    const info = verify(text, policy);
    assert.equal(info.fingerprint, protocol.fingerprint, name);
    assert.equal(info.mechanism, id, name);
    read += 1;
  }
  assert.ok(read >= V1_PROTOCOLS.length - 3, `${read} of ${V1_PROTOCOLS.length}`);
});

test("a version-1 protocol is read from its text only; version 2 from either", () => {
  const text = textOf(v1Of("GRR"));
  throwsWith(() => loadProtocol(JSON.parse(text)), TypeError, /version-1 protocol must be given as its JSON text/);
  const loaded = loadProtocol(text);
  assert.equal(loadProtocol(loaded), loaded);
  assert.ok(Object.isFrozen(loaded) && Object.isFrozen(loaded.sampler));
  assert.deepEqual(JSON.parse(JSON.stringify(loaded)), JSON.parse(text));
  const vector = vectorOf("SS");
  const document = v2(vector.protocol);
  const body = JSON.stringify(document);
  const data = fromHex(vector.bytes);
  for (const form of [document, body, new TextEncoder().encode(body), new TextEncoder().encode(body).buffer, loadProtocol(body)]) {
    assert.deepEqual(privatize(form, vector.value, { randbytes: replay(data).randbytes }).report, vector.report);
  }
  assert.equal(loadProtocol(body).question, vector.protocol.question);
});

// ---------------------------------------------------------------------------- canonical JSON
// RFC 8785, Appendix B: doubles (by their bits) and their canonical text.
const RFC8785_NUMBERS = [
  ["0000000000000000", "0"],
  ["8000000000000000", "0"],
  ["0000000000000001", "5e-324"],
  ["8000000000000001", "-5e-324"],
  ["7fefffffffffffff", "1.7976931348623157e+308"],
  ["ffefffffffffffff", "-1.7976931348623157e+308"],
  ["4340000000000000", "9007199254740992"],
  ["c340000000000000", "-9007199254740992"],
  ["4430000000000000", "295147905179352830000"],
  ["44b52d02c7e14af5", "9.999999999999997e+22"],
  ["44b52d02c7e14af6", "1e+23"],
  ["44b52d02c7e14af7", "1.0000000000000001e+23"],
  ["444b1ae4d6e2ef4e", "999999999999999700000"],
  ["444b1ae4d6e2ef4f", "999999999999999900000"],
  ["444b1ae4d6e2ef50", "1e+21"],
  ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
  ["3eb0c6f7a0b5ed8d", "0.000001"],
  ["41b3de4355555553", "333333333.3333332"],
  ["41b3de4355555554", "333333333.33333325"],
  ["41b3de4355555555", "333333333.3333333"],
  ["41b3de4355555556", "333333333.3333334"],
  ["41b3de4355555557", "333333333.33333343"],
  ["becbf647612f3696", "-0.0000033333333333333333"],
  ["43143ff3c1cb0959", "1424953923781206.2"],
];

function doubleOf(bits) {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

test("canonical JSON: RFC 8785's numbers, and JSON.stringify's", () => {
  for (const [bits, text] of RFC8785_NUMBERS) {
    assert.equal(canonicalJson(doubleOf(bits)), text, bits);
  }
  const tricky = [1, 1.5, 0.1, 1e21, 1e-7, 1e-6, 123456789012345680000, 4.35, 1 / 3, 2 ** 53, -(2 ** 53), 1e20, 2 ** -1074, 100, 1e300];
  for (const x of tricky) assert.equal(canonicalJson(x), JSON.stringify(x));
  for (const bad of [NaN, Infinity, -Infinity]) {
    throwsWith(() => canonicalJson(bad), RangeError, "the protocol holds a number that is not finite");
  }
});

test("canonical JSON: strings, key order and structure", () => {
  const strings = ["", "\u0000", "\u001f", "\u007f", "é", "😀", '"\\/\b\f\n\r\t', "\u2028\u2029", "a\u0080b"];
  for (const s of strings) assert.equal(canonicalJson(s), JSON.stringify(s));
  for (const lone of ["\ud800", "a\udc00", "\ude00\ud83d"]) {
    throwsWith(() => canonicalJson(lone), RangeError, "the protocol holds a string that is not valid Unicode");
  }
  // RFC 8785, section 3.2.3: keys sorted by their UTF-16 code units
  const sorting = {
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    1: "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis",
  };
  const order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"];
  const expected = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(sorting[k])}`).join(",")}}`;
  assert.equal(canonicalJson(sorting), expected);
  const value = { b: [1, { z: null, a: true }], a: "x", c: { y: false, x: -0 } };
  assert.equal(canonicalJson(value), '{"a":"x","b":[1,{"a":true,"z":null}],"c":{"x":0,"y":false}}');
  assert.equal(canonicalJson(value), jcsOracle(value));
  for (const bad of [undefined, () => 1, 1n, new Map()]) {
    assert.throws(() => canonicalJson({ a: bad }), TypeError);
  }
});

test("version-2 fingerprints are the RFC 8785 hash; the pin is all 64 digits", () => {
  const body = { ...GRR5 };
  delete body.fingerprint;
  const hash = hex256(jcsOracle(body));
  assert.equal(GRR5.fingerprint, hash.slice(0, 16));
  assert.equal(verify(GRR5).fingerprint, hash.slice(0, 16));
  assert.equal(verify(GRR5, { pinned_fingerprints: [hash] }).fingerprint, GRR5.fingerprint);
  assert.equal(verify(JSON.stringify(GRR5, null, 2), { pinned_fingerprints: [hash.slice(0, 16)] }).mechanism, "grr");
  throwsWith(() => verify({ ...GRR5, question: "Another question?" }), RangeError, "the protocol's fingerprint does not match its content");
  throwsWith(() => verify(GRR5, { pinned_fingerprints: [hash.replace(/.$/, (c) => (c === "0" ? "1" : "0"))] }), RangeError, `the protocol ${GRR5.fingerprint} is not one the app pinned`);
  // the order and spacing of the file's text do not matter; a question in any script does
  const spaced = `{\n  "fingerprint": "${GRR5.fingerprint}",\n${JSON.stringify(body, null, 4).slice(1)}`;
  assert.equal(loadProtocol(spaced).fingerprint, GRR5.fingerprint);
  const unicode = fingerprinted({ ...GRR5, question: "Ça roule? 🚲 \u2028 \"yes\"\\no" });
  assert.equal(verify(JSON.stringify(unicode)).fingerprint, unicode.fingerprint);
});

test("integers above 2^53 read from text are refused by the canonical form, 2^53 is not", () => {
  const text = JSON.stringify(GRR5).slice(0, -1);
  const withExtra = (literal) => {
    // an extra top-level field, fingerprinted over the canonical text written by hand
    const body = { ...GRR5 };
    delete body.fingerprint;
    const canonical = jcsOracle({ ...body, extra: 0 }).replace('"extra":0', `"extra":${literal}`);
    return `${text.replace(/"fingerprint":"[0-9a-f]+"/, `"fingerprint":"${hex256(canonical).slice(0, 16)}"`)},"extra":${literal}}`;
  };
  assert.equal(verify(withExtra("9007199254740992")).mechanism, "grr");
  throwsWith(() => verify(withExtra("9007199254740993")), RangeError, "the protocol cannot be canonicalised: the protocol holds an integer above 2^53, which JSON cannot keep");
  throwsWith(() => verify(withExtra("-123456789012345678901234567890")), RangeError, /integer above 2\^53/);
  throwsWith(() => verify(withExtra("1e400")), RangeError, "the protocol cannot be canonicalised: the protocol holds a number that is not finite");
});

test("version-1 fingerprints hash Python's json.dumps text, written here by hand", () => {
  // json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True): floats by repr,
  // integers as written, \uXXXX (lowercase) for every non-ASCII UTF-16 code unit, keys in
  // code point order (U+FFFF before U+1F600, unlike UTF-16 order)
  const body = (question, numbers) =>
    `"domain":{"k":5,"labels":null,"type":"categorical"},"format":"ldp-protocol",` +
    `"mechanism":{"name":"GRR","params":{"epsilon":1.0,"k":5}},"numbers":${numbers},` +
    `"privacy":{"delta":0.0,"epsilon":1.0,"tv":null},"question":${question},` +
    `"report":{"fields":[{"max":4,"min":0,"name":"report","type":"int"}]},` +
    `"sampler":{"keep":[2.718281828459045,4]},"version":1`;
  const numbers = `{"a":1e-07,"b":1e+16,"c":0.0001,"d":1.5e+16,"e":1000000000000000.0,"f":-0.0,"g":12345678901234567890123,"h":5e-324,"\\uffff":1,"\\ud83d\\ude00":2}`;
  const question = `"Caf\\u00e9 \\ud83d\\ude00 \\u007f \\n \\"x\\""`;
  const canonical = `{${body(question, numbers)}}`;
  const fingerprint = hex256(canonical).slice(0, 16);
  // the file itself: other spacing, other key order, other spellings of the same values
  const file = `{ "version": 1, "fingerprint": "${fingerprint}", "question": "Café 😀 \u007f \\n \\"x\\"",
    "numbers": {"\ud83d\ude00": 2, "\uffff": 1, "h": 4.9406564584124654e-324, "g": 12345678901234567890123,
      "f": -0.0, "e": 1E15, "d": 15000000000000000.0, "c": 1e-4, "b": 1e16, "a": 0.0000001},
    "domain": {"type": "categorical", "k": 5, "labels": null}, "format": "ldp-protocol",
    "mechanism": {"name": "GRR", "params": {"k": 5, "epsilon": 1.0}},
    "privacy": {"epsilon": 1.0, "delta": 0.0, "tv": null},
    "report": {"fields": [{"name": "report", "type": "int", "min": 0, "max": 4}]},
    "sampler": {"keep": [2.718281828459045, 4]} }`;
  const info = verify(file);
  assert.equal(info.fingerprint, fingerprint);
  assert.equal(info.mechanism, "grr");
  assert.equal(info.epsilon, 1); // e^1 rounded to a double is below e: the level rounds up to 1
  // 1 and 1.0 are different files in version 1
  throwsWith(() => verify(file.replace('"k": 5, "epsilon": 1.0', '"k": 5, "epsilon": 1')), RangeError, "the protocol's fingerprint does not match its content");
});

// ---------------------------------------------------------------------------- JSON text
test("the strict reader refuses repeated keys, deep nesting, large files, NaN", () => {
  const text = JSON.stringify(GRR5);
  throwsWith(() => verify(text.replace('"format":', '"question":"x","format":')), RangeError, "the protocol repeats the key 'question' in one object");
  // the object that closes first is reported, as Python's object_pairs_hook does
  const twice = text.replace('"format":', '"format":"x","a":{"b":1,"b":2},');
  throwsWith(() => verify(twice), RangeError, "the protocol repeats the key 'b' in one object");
  throwsWith(() => verify(text.replace('"format":', `"${"k".repeat(50)}":1,"${"k".repeat(50)}":2,"format":`)), RangeError, `the protocol repeats the key '${"k".repeat(40)}' in one object`);
  for (const depth of [17, 5000, 200000]) {
    const deep = `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    throwsWith(() => verify(deep), RangeError, "the protocol nests deeper than 16 levels: refused");
    throwsWith(() => verify(new TextEncoder().encode(deep)), RangeError, "the protocol nests deeper than 16 levels: refused");
  }
  const object = { a: [] };
  let leaf = object.a;
  for (let i = 0; i < 5000; i++) leaf = leaf[0] = [];
  throwsWith(() => verify(object), RangeError, "the protocol nests deeper than 16 levels: refused");
  const cycle = { ...GRR5 };
  cycle.self = cycle;
  throwsWith(() => verify(cycle), RangeError, "the protocol nests deeper than 16 levels: refused");
  // 16 levels are fine (the fingerprint is then wrong, which is checked after)
  const sixteen = `{"a":${"[".repeat(15)}${"]".repeat(15)}}`;
  throwsWith(() => verify(sixteen), RangeError, /format is not 'ldp-protocol'/);
  const big = `${text.slice(0, -1)},"pad":"${"x".repeat(MAX_PROTOCOL_BYTES)}"}`;
  throwsWith(() => verify(big), RangeError, `the protocol is larger than ${MAX_PROTOCOL_BYTES} bytes: refused`);
  throwsWith(() => verify(new TextEncoder().encode(big)), RangeError, /larger than/);
  // the limit counts UTF-8 bytes: 3-byte characters fill it three times as fast
  const wide = `${text.slice(0, -1)},"pad":"${"€".repeat(MAX_PROTOCOL_BYTES / 3 + 1)}"}`;
  throwsWith(() => verify(wide), RangeError, /larger than/);
  for (const name of ["NaN", "Infinity", "-Infinity"]) {
    throwsWith(() => verify(text.replace('"k":5', `"k":${name}`)), RangeError, `the protocol holds ${name}, which is not a finite number`);
  }
});

test("the strict reader refuses what is not JSON, as Python's json module does", () => {
  const text = JSON.stringify(GRR5);
  const bad = [
    text.slice(0, 40), "", " ", "{nope", "{'a': 1}", '{"a": 1,}', "[1, 2,]", '{"a": 01}', '{"a": 1.}',
    '{"a": .5}', '{"a": +1}', '{"a": 1e}', '{"a": "\u0001"}', '{"a": "\\x"}', '{"a": "\\u12G4"}',
    `\ufeff${text}`, `${text} x`, '{"a": tru}', '{"a": nul}', '{"a": Nan}', `{"a": ${"1".repeat(4301)}}`,
  ];
  for (const item of bad) throwsWith(() => verify(item), RangeError, "the protocol is not valid JSON (truncated?)");
  // 4300 digits are an integer Python reads (then refused by the canonical form)
  throwsWith(() => verify(`${text.slice(0, -1)},"n":${"1".repeat(4300)}}`), RangeError, /integer above 2\^53|fingerprint/);
  throwsWith(() => verify("[1, 2]"), TypeError, "protocol must be an object or its JSON text");
  throwsWith(() => verify(42), TypeError, "protocol must be an object or its JSON text");
  throwsWith(() => verify(Uint8Array.from([0x7b, 0xff, 0x7d])), RangeError, "the protocol is not UTF-8 text");
  throwsWith(() => verify(`{"a": "\ud800"}`), RangeError, "the protocol is not UTF-8 text");
  // escapes of lone surrogates are JSON (then refused by the canonical form of version 2)
  throwsWith(() => verify(text.replace('"format":', '"x":"\\ud800","format":')), RangeError, "the protocol cannot be canonicalised: the protocol holds a string that is not valid Unicode");
  // whitespace around the value is allowed; "__proto__" is only a key
  const polluted = fingerprinted({ ...JSON.parse(text), ["__proto__"]: { polluted: true } });
  const loaded = loadProtocol(` \t\n\r${JSON.stringify(polluted).replace('"__proto__"', '"__proto__"')}\n`);
  assert.equal({}.polluted, undefined);
  assert.deepEqual(Object.keys(loaded).includes("__proto__"), true);
});

// ---------------------------------------------------------------------------- verify
function edited(protocol, edit) {
  const document = structuredClone(protocol);
  edit(document);
  return fingerprinted(document);
}

test("verify: numbers derived by hand", () => {
  const grr = (keep, k = 2) =>
    edited(GRR5, (d) => {
      d.mechanism.params.k = k;
      d.domain.k = k;
      d.sampler.keep = keep;
      d.privacy.epsilon = 5;
    });
  // ln 3 = 1.09861228866810969...: the double above it
  assert.equal(verify(grr([3, 1])).epsilon, 1.0986122886681098);
  // keep [e^2 (the double), 4] for k = 5: the ratio is the double e^2, above e^2 itself
  assert.equal(verify(grr([Math.exp(2), 4], 5)).epsilon, 2.0000000000000004);
  assert.equal(verify(grr([1, 1])).epsilon, 0);
  const laplace = (scale) => edited(LAPLACE, (d) => { d.sampler.scale = scale; d.privacy.epsilon = 10; });
  assert.equal(verify(laplace(2)).epsilon, 1);
  // 2 / 0.3 = 6.66666666666666691...: the double above
  assert.equal(verify(laplace(0.3)).epsilon, 6.666666666666667);
  const channel = edited(LABELLED, (d) => {
    d.mechanism.params.matrix = [[3, 1, 0], [1, 3, 0], [1, 1, 2]];
  });
  throwsWith(() => verify(channel), RangeError, `channel: the sampler constants give epsilon = inf (computed on this device), above the epsilon = ${py(LABELLED.privacy.epsilon)} the protocol states: refused`);
  const three = edited(LABELLED, (d) => {
    d.mechanism.params.matrix = [[3, 1, 2], [1, 3, 2], [2, 2, 2]];
    d.privacy.epsilon = 1.1;
  });
  assert.equal(verify(three).epsilon, 1.0986122886681098); // (3/6) / (1/6)
  const info = verify(GAUSSIAN);
  assert.equal(info.mu, 1);
  assert.equal(info.delta, 1e-6);
  assert.deepEqual(Object.keys(verify(LGRR)).sort(), ["certified", "delta", "epsilon", "epsilon_permanent", "fingerprint", "mechanism"]);
});

test("verify refuses sampler constants that give more than the file states", () => {
  const stated = GRR5.privacy.epsilon; // 1: written 1.0, as Python writes it
  const grr = edited(GRR5, (d) => { d.sampler.keep = [1, 0]; });
  throwsWith(() => privatize(grr, 3), RangeError, `grr: the sampler constants give epsilon = inf (computed on this device), above the epsilon = ${py(stated)} the protocol states: refused`, 3);
  const fifty = edited(GRR5, (d) => { d.sampler.keep = [Math.exp(50), 4]; });
  throwsWith(() => verify(fifty), RangeError, /^grr: the sampler constants give epsilon = 50\.0+\d* \(computed on this device\), above the epsilon = 1\.0 the protocol states: refused$/);
  const tiny = edited(LAPLACE, (d) => { d.sampler.scale = 1e-12; d.privacy.epsilon = 1; });
  // the double 1e-12 is 9.99999999999999979886e-13, so 2 / scale = 2.00000000000000004e12,
  // whose double above is 2e12 + 2^-12
  throwsWith(() => verify(tiny), RangeError, "laplace: the sampler constants give epsilon = 2000000000000.0002 (computed on this device), above the epsilon = 1.0 the protocol states: refused");
  const smaller = edited(GRR5, (d) => { d.privacy.epsilon = 0.01; });
  throwsWith(() => verify(smaller), RangeError, /^grr: the sampler constants give epsilon = 1\.0 .*above the epsilon = 0\.01 the protocol states: refused$/);
  const identity = edited(LABELLED, (d) => { d.mechanism.params.matrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]; });
  throwsWith(() => verify(identity), RangeError, /^channel: the sampler constants give epsilon = inf/);
  const lgrr = edited(LGRR, (d) => { d.sampler.instant = [1, 0]; d.sampler.permanent = [1, 0]; });
  throwsWith(() => verify(lgrr), RangeError, /^l-grr: the sampler constants give epsilon = inf/);
  const mu = edited(GAUSSIAN, (d) => { d.sampler.sigma = d.sampler.sigma / 2; });
  throwsWith(() => verify(mu), RangeError, /^gaussian: the sampler constants give mu = 2\.0 \(delta above the stated one at epsilon = /);
  const pure = edited(GAUSSIAN, (d) => { d.privacy.delta = 0; });
  throwsWith(() => verify(pure), RangeError, /^gaussian: the sampler constants give mu = 1\.0/);
  // a loose statement is a true one: beyond epsilon = 2000 the delta check bounds e^epsilon
  // below by e^2000, which is enough to show Phi(mu/2 - eps/mu) - e^eps Phi(...) <= delta
  const huge = edited(GAUSSIAN, (d) => { d.privacy.epsilon = 1e9; });
  assert.equal(verify(huge).epsilon, 1e9);
  // a pure level is compared with e^epsilon exactly, for |epsilon| <= 2000 only
  const pureHuge = edited(GRR5, (d) => { d.privacy.epsilon = 1e300; });
  throwsWith(() => verify(pureHuge), RangeError, "the protocol's privacy level is too large to compare");
  // an erasure channel with delta = 0.1 holds at every epsilon, however large
  const erasure = edited(ERASURE, (d) => { d.privacy.epsilon = 1e300; });
  assert.equal(verify(erasure).epsilon, 1e300);
});

test("verify refuses malformed files with the Python client's messages", () => {
  const cases = [
    [(d) => { d.format = "x"; }, "not an ldp protocol file (its format is not 'ldp-protocol')"],
    [(d) => { d.version = 3; }, "unsupported protocol version '3'; this client reads versions 1 and 2 (integers)"],
    [(d) => { d.version = "2"; }, "unsupported protocol version '2'; this client reads versions 1 and 2 (integers)"],
    [(d) => { d.version = [2, { a: null, b: true }]; }, "unsupported protocol version \"[2, {'a': None, 'b':\"; this client reads versions 1 and 2 (integers)"],
    [(d) => { delete d.sampler; }, "the protocol lacks its 'sampler' field"],
    [(d) => { d.mechanism.name = "Magic"; }, "unknown mechanism 'Magic'"],
    [(d) => { d.mechanism.name = "GRR"; }, "unknown mechanism 'GRR'"], // a version-1 name
    [(d) => { d.mechanism.name = "constructor"; }, "unknown mechanism 'constructor'"],
    [(d) => { d.mechanism.name = "it's \"x\"\n"; }, "unknown mechanism 'it\\'s \"x\"\\n'"],
    [(d) => { d.mechanism.params = 3; }, "the protocol's mechanism.params must be an object"],
    [(d) => { d.mechanism.params.k = 5.5; }, "the protocol's params.k must be an integer in 2 .. 9007199254740992"],
    [(d) => { d.domain.k = 4; }, "grr: the domain must be 5 categories"],
    [(d) => { d.sampler.keep = [1, 2, 3]; }, "the protocol's sampler.keep must be a list of 2 weights"],
    [(d) => { d.sampler.keep = [1, "2"]; }, "the protocol's sampler.keep must be a number"],
    [(d) => { d.sampler.keep = [1, -2]; }, "the protocol's sampler.keep must be non-negative, not all zero"],
    [(d) => { d.sampler = []; }, "the protocol's sampler must be an object"],
    [(d) => { d.privacy = { epsilon: -1, delta: 0 }; }, "the protocol's privacy needs epsilon >= 0 and delta in [0, 1)"],
    [(d) => { d.privacy = { epsilon: 1, delta: 1 }; }, "the protocol's privacy needs epsilon >= 0 and delta in [0, 1)"],
    [(d) => { d.privacy = { epsilon: true, delta: 0 }; }, "the protocol's privacy.epsilon must be a number"],
    [(d) => { d.domain = []; }, "the protocol's mechanism and domain must be objects"],
    // what the sampler reads of the domain (the Python client reads it unchecked)
    [(d) => { d.domain.labels = ["a", "b", "c", "d", "e", "f"]; }, "the protocol's domain.labels must be null or a list of 5 labels (strings, finite numbers or booleans)"],
    [(d) => { delete d.domain.labels; }, /domain\.labels must be null or a list of 5 labels/],
  ];
  for (const [edit, message] of cases) throwsWith(() => verify(edited(GRR5, edit)), RangeError, message);
  throwsWith(() => verify(edited(GRR5, (d) => { d.mechanism.name = ["grr"]; })), TypeError, "unhashable type: 'list'");
  throwsWith(() => verify(edited(LAPLACE, (d) => { d.domain.high = d.domain.low; })), RangeError, "the protocol's domain.low and domain.high must be numbers, low < high");
  throwsWith(() => verify(edited(LAPLACE, (d) => { d.sampler.scale = 0; })), RangeError, "the protocol's sampler.scale must be positive");
  throwsWith(() => verify(edited(LAPLACE, (d) => { d.sampler.step = -1; })), RangeError, "the protocol's sampler.step must be positive");
});

test("policy: the app's limits, pins and uncertified mechanisms", () => {
  assert.equal(verify(GRR5, { max_epsilon: 1 }).epsilon, 1);
  throwsWith(() => verify(GRR5, { max_epsilon: 0.5 }), RangeError, "grr: epsilon = 1.0 is above the app's max_epsilon = 0.5: refused");
  // a policy allows no delta unless it says so
  throwsWith(() => verify(GAUSSIAN, {}), RangeError, "gaussian: delta = 1e-06 is above the app's max_delta = 0.0: refused");
  throwsWith(() => verify(GAUSSIAN, { max_delta: 1e-7 }), RangeError, "gaussian: delta = 1e-06 is above the app's max_delta = 1e-07: refused");
  assert.equal(verify(GAUSSIAN, { max_delta: 1e-6 }).delta, 1e-6);
  assert.equal(verify(GAUSSIAN).delta, 1e-6); // no policy: the file's checked delta
  throwsWith(() => verify(PRIVUNIT), RangeError, "privunit: this client cannot bound its privacy exactly; it runs only when the app pins the protocol (policy['pinned_fingerprints'])");
  const info = verify(PRIVUNIT, { pinned_fingerprints: [PRIVUNIT.fingerprint] });
  assert.equal(info.certified, false);
  assert.equal(info.epsilon, PRIVUNIT.privacy.epsilon);
  throwsWith(() => verify(GRR5, { maximum: 1, other: 2 }), RangeError, "policy has unknown key(s) ['maximum', 'other']; known: ['budget', 'max_delta', 'max_epsilon', 'pinned_fingerprints']");
  for (const bad of [-1, NaN, Infinity, "1", true]) {
    throwsWith(() => verify(GRR5, { max_epsilon: bad }), RangeError, "policy['max_epsilon'] must be a finite number >= 0");
  }
  for (const bad of [["ABCDEF0123456789"], ["abc"], "0123456789abcdef", [1]]) {
    throwsWith(() => verify(GRR5, { pinned_fingerprints: bad }), RangeError, /^policy\['pinned_fingerprints'\] must be a list of lowercase hex/);
  }
  throwsWith(() => verify(GRR5, []), TypeError, /^policy must be an object/);
  throwsWith(() => verify(GRR5, { budget: { epsilon: 1, days: 1 } }), RangeError, "policy['budget'] must be {'epsilon': e, 'delta': d, 'period_days': n}");
  throwsWith(() => verify(GRR5, { budget: { delta: 0 } }), RangeError, "policy['budget']['epsilon'] must be a finite number > 0");
  throwsWith(() => verify(GRR5, { budget: { epsilon: 1, delta: -1 } }), RangeError, "policy['budget']['delta'] must be a finite number >= 0");
  throwsWith(() => verify(GRR5, { budget: { epsilon: 1, period_days: 0 } }), RangeError, "policy['budget']['period_days'] must be a finite number > 0");
  // privatize and privatizeRound apply the policy before drawing anything
  let drawn = 0;
  const counting = (n) => { drawn += n; return new Uint8Array(n); };
  throwsWith(() => privatize(GRR5, 0, { policy: { max_epsilon: 0.5 }, randbytes: counting }), RangeError, /max_epsilon/);
  throwsWith(() => privatizeRound(LGRR, 0, { policy: { max_epsilon: 0.5 }, randbytes: counting }), RangeError, /max_epsilon/);
  assert.equal(drawn, 0);
});

// ---------------------------------------------------------------------------- answers
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

test("bad answers are refused without echoing them", () => {
  throwsWith(() => privatize(LABELLED, "secret-answer"), RangeError, /not one of the protocol's 3 labels/, "secret-answer");
  throwsWith(() => privatize(LAPLACE, 120.5), RangeError, /outside the protocol's bounds/, "120.5");
  throwsWith(() => privatize(LAPLACE, -1e-300), RangeError, /outside/);
  throwsWith(() => privatize(LAPLACE, NaN), RangeError, /finite/);
  throwsWith(() => privatize(LAPLACE, Infinity), RangeError, /finite/);
  throwsWith(() => privatize(LAPLACE, "37"), TypeError, /must be a number/);
  throwsWith(() => privatize(LAPLACE, [37]), TypeError, /must be a number/);
  throwsWith(() => privatize(DUCHI3, [0.1, 0.2]), RangeError, /list of 3 numbers/);
  throwsWith(() => privatize(DUCHI3, 0.1), TypeError, /list of 3 numbers/);
  throwsWith(() => privatize(DUCHI3, [0.1, NaN, 0.2]), RangeError, /finite/);
  throwsWith(() => privatize(DUCHI3, [0.1, 2, 0.2]), RangeError, /outside/);
  throwsWith(() => privatize(BALL, [0.1, 0.2, 0.3, 0.4]), RangeError, /list of 3 numbers/);
  throwsWith(() => privatize(BALL, [0.6, 0.6, 0.6]), RangeError, /outside the ball/);
  privatize(LAPLACE, 0);
  privatize(LAPLACE, 120);
});

// ---------------------------------------------------------------------------- randomness
test("a bad random source throws instead of looping", () => {
  throwsWith(() => privatize(LABELLED, "bus", { randbytes: () => new Uint8Array(0) }), RangeError, /returned 0 bytes, 1 were needed/);
  throwsWith(() => privatize(LAPLACE, 3, { randbytes: (n) => new Uint8Array(n + 1) }), RangeError, /bytes/);
  throwsWith(() => privatize(LABELLED, "bus", { randbytes: "not a function" }), TypeError, /randbytes/);
  throwsWith(() => privatize(LABELLED, "bus", { randbytes: (n) => [n] }), TypeError, /Uint8Array/);
  const broken = "the random source is broken: no decision after 2048 rounds";
  // an all-zero source never ends Laplace's run of zero bits or the staircase's periods; an
  // all-ones one is always rejected by randint(5) (3 bits, 7 >= 5)
  const zeros = (n) => new Uint8Array(n);
  const ones = (n) => new Uint8Array(n).fill(255);
  throwsWith(() => privatize(LAPLACE, 3, { randbytes: zeros }), RangeError, broken);
  const staircase = v2(vectorOf("staircase").protocol);
  throwsWith(() => privatize(staircase, 3, { randbytes: zeros }), RangeError, broken);
  const grr6 = edited(GRR5, (d) => { d.domain.k = 6; d.mechanism.params.k = 6; d.privacy.epsilon = 2; });
  throwsWith(() => privatize(grr6, 0, { randbytes: ones }), RangeError, broken);
  const indices = v2(VECTORS.find((v) => v.name.startsWith("SS k=40 eps=3 (indices)")).protocol);
  throwsWith(() => privatize(indices, 0, { randbytes: ones }), RangeError, broken);
  const correct = v2(VECTORS.find((v) => v.name.startsWith("SS k=130")).protocol);
  throwsWith(() => privatize(correct, 0, { randbytes: zeros }), RangeError, broken);
  // PrivUnit's rejection samplers stop after 65536 proposals
  const pin = { pinned_fingerprints: [PRIVUNIT.fingerprint] };
  throwsWith(() => privatize(PRIVUNIT, [0.1, 0.2, -0.3], { policy: pin, randbytes: zeros }), RangeError, /did not accept after 65536 proposals|broken/);
});

// The shipped hostile suite (clients/hostile_protocols.json): edits of honest files an
// attacker could publish, each fingerprinted anew. Every one is refused before a byte is drawn.
const HOSTILE = JSON.parse(readFileSync(new URL("../hostile_protocols.json", import.meta.url), "utf8"));

test("every file of the hostile suite is refused before anything is drawn", () => {
  assert.ok(HOSTILE.length >= 40);
  for (const { name, protocol, value } of HOSTILE) {
    let drawn = 0;
    const randbytes = (n) => {
      drawn += n;
      return new Uint8Array(n);
    };
    assert.throws(
      () => privatize(protocol, value, { randbytes }),
      (error) => (error instanceof RangeError || error instanceof TypeError) && !error.message.includes("\n"),
      name,
    );
    assert.equal(drawn, 0, `${name}: bytes were drawn before the refusal`);
  }
});

test("every vector's protocol, given all-0x00 or all-0xFF bytes, reports or throws, quickly", () => {
  const seen = new Set();
  for (const vector of [...VECTORS, ...MEMOIZED]) {
    if (seen.has(vector.protocol.fingerprint)) continue;
    seen.add(vector.protocol.fingerprint); // (SS k=4096 on zeros: 8 million rounds, 4 s)
    const policy = { pinned_fingerprints: [vector.protocol.fingerprint], max_epsilon: 1e6, max_delta: 1 };
    const value = vector.value ?? vector.values[0];
    for (const fill of [0x00, 0xff]) {
      const start = performance.now();
      try {
        const record = privatize(textOf(vector.protocol), value, { policy, randbytes: (n) => new Uint8Array(n).fill(fill) });
        assert.ok(Array.isArray(record.report));
      } catch (error) {
        assert.ok(error instanceof RangeError, `${vector.name}: ${error}`);
        assert.match(error.message, /random source is broken|did not accept/, vector.name);
      }
      assert.ok(performance.now() - start < 20_000, `${vector.name} took too long`);
    }
  }
});

test("the default source is the platform's crypto", () => {
  const reports = new Set();
  const loaded = loadProtocol(LAPLACE);
  for (let i = 0; i < 200; i++) {
    const record = privatize(loaded, 37.5);
    assert.equal(record.fingerprint, LAPLACE.fingerprint);
    assert.ok(Number.isFinite(record.report[0]));
    reports.add(record.report[0]);
  }
  assert.ok(reports.size > 190, "fresh randomness for every report");
  // a unary encoding of 70,000 bits reads 70,000 bytes in its first round: more than one
  // getRandomValues call may fill (65,536)
  const k = 70_000;
  const wide = v2(vectorOf("SUE").protocol, (d) => {
    d.domain.k = k;
    d.mechanism.params.k = k;
    return d;
  });
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
    `const p = ${JSON.stringify(JSON.stringify(LABELLED))};`,
    "console.log(JSON.stringify(m.privatize(p, 'bike')));",
  ].join("\n");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" });
  const record = JSON.parse(out);
  assert.equal(record.fingerprint, LABELLED.fingerprint);
  assert.ok([0, 1, 2].includes(record.report[0]));
});

// ---------------------------------------------------------------------------- memos
test("the memoized vectors cover every memoized mechanism", () => {
  assert.deepEqual(
    new Set(MEMOIZED.map((v) => v.protocol.mechanism.name)),
    new Set(["l-grr", "l-osue", "l-oue", "rappor", "dbitflip-pm"]),
  );
});

for (const vector of MEMOIZED) {
  test(`memoized vector: ${vector.name}`, () => {
    const text = textOf(vector.protocol);
    const data = fromHex(vector.bytes);
    const source = replay(data);
    let memo;
    const reports = [];
    for (const value of vector.values) {
      const out = privatizeRound(text, value, { memo, randbytes: source.randbytes });
      assert.equal(out.record.fingerprint, vector.protocol.fingerprint);
      memo = JSON.parse(JSON.stringify(out.memo)); // stored as JSON between rounds
      reports.push(out.record.report);
    }
    assert.equal(source.used(), data.length);
    assert.deepEqual(reports, vector.reports);
    assert.deepEqual({ entries: memo.entries, sampled: memo.sampled }, vector.memo);
    assert.equal(memo.format, "ldp-memo/2");
    assert.equal(memo.mechanism, mechanismKey(text));
    const first = privatize(text, vector.values[0], { randbytes: replay(data).randbytes });
    assert.deepEqual(first.report, vector.reports[0]);
  });
}

test("memos belong to the mechanism, not to the file; version-1 memos still read", () => {
  const vector = MEMOIZED.find((v) => v.protocol.mechanism.name === "l-grr");
  const text = textOf(vector.protocol);
  const key = mechanismKey(text);
  assert.match(key, /^[0-9a-f]{32}$/);
  // republished: another question, labels, version: the same mechanism key and memo
  const republished = v2(vector.protocol, (d) => { d.question = "Republished? "; return d; });
  assert.equal(mechanismKey(republished), key);
  const { memo } = privatizeRound(text, vector.values[0]);
  const next = privatizeRound(republished, vector.values[0], { memo });
  assert.deepEqual(next.memo.entries, memo.entries);
  // a changed mechanism is another key; its memo is refused
  const changed = v2(vector.protocol, (d) => { d.sampler.instant = [3, 1]; d.privacy.epsilon = 5; return d; });
  assert.notEqual(mechanismKey(changed), key);
  throwsWith(() => privatizeRound(changed, vector.values[0], { memo }), RangeError, "the memo belongs to another mechanism");
  // a memo written by the version-1 client is kept under the file's fingerprint
  const legacy = { format: "ldp-memo/1", mechanism: vector.protocol.fingerprint, entries: [[0, [3]]], sampled: [] };
  const out = privatizeRound(text, 0, { memo: legacy, randbytes: (n) => new Uint8Array(n) });
  assert.deepEqual(out.memo.entries, [[0, [3]]]);
  assert.equal(out.memo.mechanism, key);
  throwsWith(() => privatizeRound(text, 0, { memo: { ...legacy, mechanism: "0".repeat(16) } }), RangeError, "the memo belongs to another mechanism");
  throwsWith(() => privatizeRound(text, 0, { memo: { entries: [] } }), TypeError, /memo must be the object/);
  throwsWith(() => privatizeRound(text, 0, { memo: { ...legacy, entries: [[0, ["x"]]] } }), TypeError, "the memo's entries are malformed");
  throwsWith(() => privatizeRound(GRR5, 0), RangeError, "grr is not a memoized mechanism: use privatize()");
});

// ---------------------------------------------------------------------------- the ledger
test("the ledger charges permanent responses once and refuses what exceeds the budget", () => {
  const policy = { budget: { epsilon: 4.5, period_days: 1 } };
  const info = verify(LGRR);
  let ledger = null;
  const day = 86400;
  // 30 republications of one question that differ only in their text keep one memo
  for (let i = 0; i < 30; i++) {
    const file = v2(MEMOIZED.find((v) => v.protocol.mechanism.name === "l-grr").protocol, (d) => { d.question = `Q${" ".repeat(i)}`; return d; });
    const stored = ledger === null ? null : JSON.stringify(ledger); // the app stores text
    ({ ledger } = privatizeWithLedger(file, 1, "commute", { ledger: stored, policy, now: 1000 + i }));
  }
  const record = ledger.questions.commute;
  assert.equal(Object.keys(record.memos).length, 1);
  assert.deepEqual(record.charges, [[1000, info.epsilon_permanent, 0]]);
  // a second answer is a second permanent response, charged; a third goes over the budget
  ({ ledger } = privatizeWithLedger(LGRR, 2, "commute", { ledger, policy, now: 2000 }));
  assert.equal(ledger.questions.commute.charges.length, 2);
  const before = JSON.stringify(ledger);
  let drawn = 0;
  const counting = (n) => { drawn += n; return new Uint8Array(n); };
  throwsWith(
    () => privatizeWithLedger(LGRR, 3, "commute", { ledger, policy, now: 3000, randbytes: counting }),
    RangeError,
    `question 'commute': this report would bring its privacy loss to epsilon = ${py(3 * info.epsilon_permanent)}, delta = 0.0, over the app's budget (epsilon 4.5, delta 0.0 per 1 day): refused, nothing sent`,
    3,
  );
  assert.equal(drawn, 0);
  assert.equal(JSON.stringify(ledger), before, "a refusal changes nothing");
  // a day later the old charges have left the window
  ({ ledger } = privatizeWithLedger(LGRR, 3, "commute", { ledger, policy, now: 1000 + day + 1 }));
  assert.deepEqual(ledger.questions.commute.charges.map((c) => c[0]), [2000, 1000 + day + 1]);
  // another question id is another account; a changed mechanism starts a new memo
  ({ ledger } = privatizeWithLedger(GRR5, 0, "other", { ledger, policy, now: 5000 }));
  assert.deepEqual(ledger.questions.other.charges, [[5000, verify(GRR5).epsilon, 0]]);
  const changed = edited(LGRR, (d) => { d.sampler.instant = [3, 1]; d.privacy.epsilon = 5; });
  ({ ledger } = privatizeWithLedger(changed, 1, "commute", { ledger, now: 1000 + day + 2 }));
  assert.equal(Object.keys(ledger.questions.commute.memos).length, 2);
  // without a period, every charge counts
  throwsWith(() => privatizeWithLedger(GRR5, 0, "other", { ledger, policy: { budget: { epsilon: 1.5 } }, now: 1e9 }), RangeError, /over the app's budget \(epsilon 1\.5, delta 0\.0\): refused, nothing sent$/);
});

test("the ledger refuses bad input", () => {
  throwsWith(() => privatizeWithLedger(GRR5, 0, ""), TypeError, "questionId must be a non-empty string");
  throwsWith(() => privatizeWithLedger(GRR5, 0, "q", { ledger: "{" }), TypeError, "the ledger is not valid JSON");
  throwsWith(() => privatizeWithLedger(GRR5, 0, "q", { ledger: '{"format":"ldp-ledger/1","questions":{},"questions":{}}' }), TypeError, "the ledger is not valid JSON");
  throwsWith(() => privatizeWithLedger(GRR5, 0, "q", { ledger: { format: "x" } }), TypeError, /^ledger must be the object/);
  const bad = { format: "ldp-ledger/1", questions: { q: { memos: {}, charges: [[1, NaN, 0]] } } };
  throwsWith(() => privatizeWithLedger(GRR5, 0, "q", { ledger: bad }), TypeError, "the ledger's charges are malformed");
  throwsWith(() => privatizeWithLedger(GRR5, 0, "q", { ledger: '{"format":"ldp-ledger/1","questions":{"q":{"memos":{},"charges":[[1,NaN,0]]}}}' }), TypeError, "the ledger's charges are malformed");
  throwsWith(() => privatizeWithLedger(GRR5, 0, "q", { now: NaN }), RangeError, "now must be a finite number of seconds");
  // a question id is only a key, whatever it is called
  const { ledger } = privatizeWithLedger(GRR5, 0, "__proto__", { now: 1 });
  assert.deepEqual(Object.keys(ledger.questions), ["__proto__"]);
  assert.equal({}.charges, undefined);
  // a permanent response that is not randomized cannot be bounded
  const open = edited(LGRR, (d) => { d.sampler.permanent = [1, 0]; d.privacy.epsilon = 2; });
  assert.equal(verify(open).epsilon_permanent, Infinity);
  throwsWith(() => privatizeWithLedger(open, 0, "q"), RangeError, "question 'q': this report's privacy loss cannot be bounded on this device (epsilon = inf): refused, nothing sent");
});

// ---------------------------------------------------------------------------- hashes
test("sha256 agrees with node:crypto on every length around the block boundaries", () => {
  for (let length = 0; length < 200; length++) {
    const message = Uint8Array.from({ length }, (_, i) => (i * 131 + length * 7) & 0xff);
    const expected = createHash("sha256").update(message).digest("hex");
    assert.equal(Buffer.from(sha256(message)).toString("hex"), expected);
  }
});

test("sketch items: strings, bytes and integers; an integer is its decimal text", () => {
  const protocol = v2(vectorOf("cms").protocol);
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
  assert.throws(() => bloomRapporRound(params, "a", { memo: { ...memo, entries: [[1, ["x"]]] } }), TypeError);
});

test("each record gets a fresh id from the platform's CSPRNG, whatever randbytes is", () => {
  const zeros = (n) => new Uint8Array(n);
  const records = Array.from({ length: 50 }, () => privatize(GRR5, 1, { randbytes: zeros }));
  assert.equal(new Set(records.map((r) => r.report[0])).size, 1);
  const ids = new Set(records.map((r) => r.id));
  assert.equal(ids.size, 50);
  for (const id of ids) assert.match(id, /^[0-9a-f]{32}$/);
  assert.deepEqual(Object.keys(records[0]), ["id", "fingerprint", "report"]);
  assert.match(privatizeRound(LGRR, 0).record.id, /^[0-9a-f]{32}$/);
});

test("a policy passed as the options is applied; a misspelt option is refused", () => {
  const zeros = (n) => new Uint8Array(n);
  throwsWith(() => privatize(GRR5, 0, { max_epsilon: 0.5 }), RangeError, /above the app's max_epsilon = 0\.5: refused$/);
  throwsWith(() => privatize(GRR5, 0, { polciy: { max_epsilon: 0.5 }, randbytes: zeros }), TypeError, "options has unknown key(s) ['polciy']; known: ['policy', 'randbytes']");
  throwsWith(() => privatizeRound(LGRR, 0, { max_epsilon: 0.1 }), RangeError, /max_epsilon/);
  throwsWith(() => privatize(GRR5, 0, 3), TypeError, "options must be an object");
  assert.deepEqual(privatize(GRR5, 0, { randbytes: zeros }).report, privatize(GRR5, 0, { policy: { max_epsilon: 5 }, randbytes: zeros }).report);
  assert.equal(privatize_round, privatizeRound);
  assert.equal(privatize_with_ledger, privatizeWithLedger);
});
