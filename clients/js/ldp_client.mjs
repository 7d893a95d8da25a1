// Privatize one answer on a device: the ldp protocol client for browsers and Node >= 18.
//
// One ES module, no dependencies. Given a protocol file published by the server
// (`ldp.protocol.Protocol.save`) and one answer, `privatize` returns the record to send:
//
//     import { privatize } from "./ldp_client.mjs";
//     const protocol = await (await fetch("protocol.json")).json();
//     const record = privatize(protocol, "bike");
//     // {fingerprint: "34e331bdb88dbf66", report: [7]}
//
// Every random bit comes from `crypto.getRandomValues` (the platform's CSPRNG), or from
// `randbytes(n) -> Uint8Array` when one is given (tests only: a predictable source reveals
// the answer). The sampling algorithm is the one docs/protocol.md specifies: exact for every
// probability a double holds (integer arithmetic in BigInt), and byte for byte the same as
// the ldp library's and the Python client's (clients/python/ldp_client.py, of which this is
// a port, operation for operation), so that the same bytes give the same report, checked
// against clients/test_vectors.json.
//
// Errors: a TypeError when something has the wrong type or shape (a protocol that is not
// JSON, or not an ldp protocol; an answer of the wrong type; a randbytes that is not a
// function), a RangeError when a value is outside what is allowed (an unsupported version,
// an unknown mechanism, an answer outside the labels or bounds, NaN, a vector of the wrong
// length, a random source that returns the wrong number of bytes). One line each; an answer
// is never echoed in a message.
//
// Unlike the Python client, this one cannot check the fingerprint (JavaScript formats JSON
// numbers differently from the canonical form it hashes): it copies it into the record.

export const PROTOCOL_VERSION = 1;

const FORMAT = "ldp-protocol";
const LN2 = 0.6931471805599453;
const TWO_PI = 6.283185307179586;
const REQUIRED = ["domain", "mechanism", "sampler", "report", "privacy", "fingerprint"];
// A draw still undecided after this many rounds means a broken source (all zeros, say): with
// real randomness that happens with probability below 2^-2048, so it is refused rather than
// looped on forever.
const MAX_ROUNDS = 2048;
const CHUNK = 65536; // getRandomValues fills at most this many bytes per call

// ---------------------------------------------------------------------------- randomness
let webCrypto = globalThis.crypto;
if (
  !(webCrypto && typeof webCrypto.getRandomValues === "function") &&
  typeof process === "object" &&
  process !== null &&
  process.versions &&
  process.versions.node
) {
  // Node 18 has no global crypto unless a flag is given; its module has the same API.
  try {
    const name = "node:crypto"; // a variable, so that bundlers leave it alone
    webCrypto = (await import(name)).webcrypto;
  } catch {
    webCrypto = undefined;
  }
}

function cryptoBytes(n) {
  if (!(webCrypto && typeof webCrypto.getRandomValues === "function")) {
    throw new TypeError("no crypto.getRandomValues on this platform; pass randbytes");
  }
  const out = new Uint8Array(n);
  for (let start = 0; start < n; start += CHUNK) {
    webCrypto.getRandomValues(out.subarray(start, Math.min(start + CHUNK, n)));
  }
  return out;
}

const EMPTY = new Uint8Array(0);

class Stream {
  constructor(randbytes) {
    if (typeof randbytes !== "function") {
      throw new TypeError("randbytes must be a function n -> Uint8Array");
    }
    this.randbytes = randbytes;
  }

  take(n) {
    if (n === 0) return EMPTY;
    let data = this.randbytes(n);
    if (data instanceof ArrayBuffer) {
      data = new Uint8Array(data);
    } else if (!(data instanceof Uint8Array)) {
      throw new TypeError("randbytes must return a Uint8Array");
    }
    if (data.length !== n) {
      throw new RangeError(`the random source returned ${data.length} bytes, ${n} were needed`);
    }
    return data;
  }
}

function tooManyRounds() {
  return new RangeError(`the random source is broken: no decision after ${MAX_ROUNDS} rounds`);
}

// ---------------------------------------------------------------------------- the protocol
const CACHE = Symbol("laws");

class LoadedProtocol {
  constructor(document) {
    Object.assign(this, document);
    Object.defineProperty(this, CACHE, { value: new Map() });
    Object.freeze(this);
  }

  // The exact law of `weights`, computed once per protocol.
  law(key, weights) {
    const cache = this[CACHE];
    let law = cache.get(key);
    if (law === undefined) {
      law = exactLaw(weights);
      cache.set(key, law);
    }
    return law;
  }
}

// A frozen deep copy of a JSON value; refuses what JSON cannot carry.
function frozenCopy(value, depth) {
  if (depth > 64) throw new TypeError("the protocol is nested too deeply");
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError("the protocol holds a non-finite number");
    return value;
  }
  if (Array.isArray(value)) {
    return Object.freeze(value.map((item) => frozenCopy(item, depth + 1)));
  }
  if (typeof value === "object") {
    return Object.freeze(
      Object.fromEntries(Object.entries(value).map(([k, v]) => [k, frozenCopy(v, depth + 1)])),
    );
  }
  throw new TypeError(`the protocol holds a ${typeof value}, which JSON cannot carry`);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isCount(value) {
  return Number.isSafeInteger(value) && value >= 1;
}

function checkDomain(domain) {
  if (!isObject(domain)) throw new TypeError("the protocol's domain is not an object");
  if (domain.type === "categorical") {
    if (!isCount(domain.k)) throw new RangeError("the protocol's domain has no valid k");
    const labels = domain.labels;
    if (labels !== null) {
      if (!Array.isArray(labels) || labels.length !== domain.k) {
        throw new TypeError("the protocol's labels are not a list of k labels");
      }
      for (const label of labels) {
        if (labelKey(label) === null) {
          throw new TypeError("a protocol label is not a string, a number or a boolean");
        }
      }
    }
  } else if (domain.type === "interval") {
    const { low, high, dimension } = domain;
    if (typeof low !== "number" || typeof high !== "number" || !(low < high)) {
      throw new RangeError("the protocol's interval has no valid bounds");
    }
    if (!isCount(dimension)) throw new RangeError("the protocol's domain has no valid dimension");
  } else if (domain.type === "items") {
    // an open domain: any string, byte string or integer is an answer
  } else if (domain.type === "ball") {
    if (typeof domain.radius !== "number" || !(domain.radius > 0)) {
      throw new RangeError("the protocol's ball has no valid radius");
    }
    if (!isCount(domain.dimension)) {
      throw new RangeError("the protocol's domain has no valid dimension");
    }
  } else {
    throw new RangeError("unknown domain type");
  }
}

/**
 * The protocol, checked and ready to be passed to `privatize` many times.
 *
 * @param protocol the protocol file's JSON text (a string, or its UTF-8 bytes) or the parsed
 *   object. Checks the format, the version (PROTOCOL_VERSION), the required fields, the
 *   domain and the mechanism; copies the fingerprint as it is.
 * @returns a frozen object with the protocol's fields (`question`, `domain`, `privacy`,
 *   `fingerprint`, ...) that caches the exact integer laws of its draws.
 */
export function loadProtocol(protocol) {
  if (protocol instanceof LoadedProtocol) return protocol;
  if (protocol instanceof ArrayBuffer || ArrayBuffer.isView(protocol)) {
    protocol = new TextDecoder("utf-8").decode(protocol);
  }
  if (typeof protocol === "string") {
    try {
      protocol = JSON.parse(protocol);
    } catch {
      throw new TypeError("the protocol is not valid JSON (truncated?)");
    }
  }
  if (!isObject(protocol)) throw new TypeError("protocol must be an object or its JSON text");
  const document = frozenCopy(protocol, 0);
  if (document.format !== FORMAT) throw new TypeError("not an ldp protocol file");
  if (document.version !== PROTOCOL_VERSION) {
    const stated = String(JSON.stringify(document.version)).slice(0, 40);
    throw new RangeError(
      `unsupported protocol version ${stated}; this client reads version ${PROTOCOL_VERSION}`,
    );
  }
  for (const key of REQUIRED) {
    if (!Object.hasOwn(document, key)) throw new TypeError(`the protocol lacks its "${key}" field`);
  }
  if (typeof document.fingerprint !== "string" || !/^[0-9a-f]{16}$/.test(document.fingerprint)) {
    throw new TypeError("the protocol's fingerprint is not 16 hex digits");
  }
  if (!isObject(document.mechanism) || !isObject(document.sampler)) {
    throw new TypeError("the protocol's mechanism and sampler must be objects");
  }
  const name = document.mechanism.name;
  if (!MECHANISMS.has(name)) {
    throw new RangeError(`unknown mechanism ${String(JSON.stringify(name)).slice(0, 40)}`);
  }
  checkDomain(document.domain);
  return new LoadedProtocol(document);
}

/**
 * The report of one answer: `{fingerprint, report}` (report: an array of numbers).
 *
 * @param protocol the protocol's JSON text, its parsed object, or `loadProtocol(...)`.
 * @param value the answer: one of the protocol's labels (categorical; the index 0 .. k-1
 *   when its labels are null), a number within its bounds (interval), or an array of numbers
 *   (vectors).
 * @param options.randbytes `n -> Uint8Array` of n random bytes; default crypto.getRandomValues.
 */
export function privatize(protocol, value, { randbytes } = {}) {
  const proto = loadProtocol(protocol);
  const stream = new Stream(randbytes === undefined ? cryptoBytes : randbytes);
  const x = encode(proto, value);
  const report = MECHANISMS.get(proto.mechanism.name)(proto, x, stream);
  return { fingerprint: proto.fingerprint, report };
}

const MEMO_FORMAT = "ldp-memo/1";

/**
 * One round of a memoized (longitudinal) mechanism (`l-grr`, `l-osue`, `l-oue`, `rappor`,
 * `dbitflip-pm`): `{record, memo}`.
 *
 * The permanent response of each answer (of each pattern, for `dbitflip-pm`) is drawn once
 * and reused in later rounds; `memo` carries it. Keep the returned memo on the device
 * (`JSON.stringify` it) and pass it to the next round; never send it: it holds the client's
 * past answers. No memo starts a new client (what `privatize` does).
 *
 * @param protocol the protocol's JSON text, its parsed object, or `loadProtocol(...)`.
 * @param value this round's answer.
 * @param options.memo the memo returned by the previous round (optional).
 * @param options.randbytes `n -> Uint8Array` of n random bytes; default crypto.getRandomValues.
 */
export function privatizeRound(protocol, value, { memo, randbytes } = {}) {
  const proto = loadProtocol(protocol);
  const round = MEMOIZED.get(proto.mechanism.name);
  if (round === undefined) {
    throw new RangeError(`${proto.mechanism.name} is not a memoized mechanism: use privatize()`);
  }
  const stream = new Stream(randbytes === undefined ? cryptoBytes : randbytes);
  const x = encode(proto, value);
  const state = checkMemo(proto, memo);
  const report = round(proto, x, stream, state);
  const keys = [...state.entries.keys()].sort((a, b) => a - b);
  return {
    record: { fingerprint: proto.fingerprint, report },
    memo: {
      format: MEMO_FORMAT,
      mechanism: proto.fingerprint,
      entries: keys.map((key) => [key, [...state.entries.get(key)]]),
      sampled: [...state.sampled],
    },
  };
}

function checkMemo(proto, memo) {
  const state = { entries: new Map(), sampled: [] };
  if (memo === undefined || memo === null) return state;
  if (!isObject(memo) || memo.format !== MEMO_FORMAT) {
    throw new TypeError("memo must be the object returned by the previous round");
  }
  if (memo.mechanism !== proto.fingerprint) throw new RangeError("the memo belongs to another protocol");
  for (const entry of memo.entries ?? []) {
    if (!Array.isArray(entry) || entry.length !== 2 || !Array.isArray(entry[1])) {
      throw new TypeError("the memo's entries are malformed");
    }
    state.entries.set(entry[0], [...entry[1]]);
  }
  state.sampled = [...(memo.sampled ?? [])];
  return state;
}

// ---------------------------------------------------------------------------- answers
function labelKey(value) {
  if (typeof value === "boolean") return "b";
  if (typeof value === "number") return Number.isFinite(value) ? "n" : null;
  if (typeof value === "string") return "s";
  return null;
}

function finiteNumber(value) {
  if (typeof value !== "number") throw new TypeError("the answer must be a number");
  if (!Number.isFinite(value)) throw new RangeError("the answer must be a finite number");
  return value;
}

function mechanismInterval(proto) {
  return proto.mechanism.name === "SquareWave" ? [0.0, 1.0] : [-1.0, 1.0];
}

// An item's byte string: UTF-8 text, bytes as they are, an integer's decimal text.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function itemBytes(value) {
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) {
      throw new RangeError("the answer is a string that is not valid Unicode");
    }
    return new TextEncoder().encode(value);
  }
  if (value instanceof Uint8Array) return Uint8Array.from(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (typeof value === "bigint") return new TextEncoder().encode(value.toString());
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      throw new RangeError("a numeric item must be a safe integer (pass larger ones as BigInt)");
    }
    return new TextEncoder().encode(String(value)); // -0 is "0"
  }
  throw new TypeError("the answer must be a string, bytes or an integer (an item)");
}

function encode(proto, value) {
  const domain = proto.domain;
  if (domain.type === "items") return itemBytes(value);
  if (domain.type === "categorical") {
    const k = domain.k;
    if (domain.labels === null) {
      const message = `the answer must be a category 0 .. ${k - 1}`;
      if (typeof value === "bigint") {
        if (value < 0n || value >= BigInt(k)) throw new RangeError(message);
        return Number(value);
      }
      if (typeof value !== "number") throw new TypeError(message);
      if (!Number.isInteger(value) || value < 0 || value >= k) throw new RangeError(message);
      return value;
    }
    const key = labelKey(value);
    if (key !== null) {
      for (let index = 0; index < domain.labels.length; index++) {
        const label = domain.labels[index];
        if (labelKey(label) === key && label === value) return index; // 1 === 1.0
      }
    }
    throw new RangeError(`the answer is not one of the protocol's ${k} labels`);
  }
  if (domain.type === "interval") {
    const { low, high, dimension } = domain;
    const [lower, upper] = mechanismInterval(proto);
    const scale = (upper - lower) / (high - low);
    let values;
    if (dimension === 1) {
      values = [value];
    } else {
      if (!Array.isArray(value)) {
        throw new TypeError(`the answer must be a list of ${dimension} numbers`);
      }
      if (value.length !== dimension) {
        throw new RangeError(`the answer must be a list of ${dimension} numbers`);
      }
      values = value;
    }
    const out = values.map((item) => {
      const v = finiteNumber(item);
      if (!(low <= v && v <= high)) {
        throw new RangeError(`the answer lies outside the protocol's bounds [${low}, ${high}]`);
      }
      return Math.min(Math.max(lower + (v - low) * scale, lower), upper);
    });
    return dimension === 1 ? out[0] : out;
  }
  // ball
  const { dimension, radius } = domain;
  if (!Array.isArray(value)) throw new TypeError(`the answer must be a list of ${dimension} numbers`);
  if (value.length !== dimension) {
    throw new RangeError(`the answer must be a list of ${dimension} numbers`);
  }
  const values = value.map(finiteNumber);
  if (Math.sqrt(sumOf(values.map((v) => v * v))) > radius * (1 + 1e-12)) {
    throw new RangeError(`the answer lies outside the ball of radius ${radius}`);
  }
  return values;
}

// Left to right, as the library (numpy) adds a short row. (Python 3.12's built-in sum() of
// floats is compensated and may differ in the last bit: the DuchiL2 vectors carry an rtol.)
function sumOf(values) {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

// ---------------------------------------------------------------------------- exact draws
const DOUBLE = new DataView(new ArrayBuffer(8));

// [m, e] with w = m * 2^e exactly (m a BigInt), for a finite double w >= 0.
function decompose(w) {
  DOUBLE.setFloat64(0, w);
  const high = DOUBLE.getUint32(0);
  const low = DOUBLE.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  if (biased === 0) return [fraction, -1074]; // zero and the subnormals
  return [fraction | (1n << 52n), biased - 1075];
}

// Cumulative integer weights proportional to the doubles `weights`, exactly (BigInt).
function exactLaw(weights) {
  if (!Array.isArray(weights) || weights.length === 0) {
    throw new TypeError("a sampler's weights are not a list of numbers");
  }
  const parts = weights.map((w) => {
    if (typeof w !== "number" || !Number.isFinite(w) || w < 0) {
      throw new RangeError("a sampler's weight is not a finite non-negative number");
    }
    return decompose(w);
  });
  let lowest = Infinity;
  for (const [m, e] of parts) if (m !== 0n && e < lowest) lowest = e;
  if (lowest === Infinity) throw new RangeError("a sampler's weights are all zero");
  const cumulative = [];
  let running = 0n;
  for (const [m, e] of parts) {
    if (m !== 0n) running += m << BigInt(e - lowest);
    cumulative.push(running);
  }
  return cumulative;
}

// The smallest index j with cumulative[j] > target.
function bisectRight(cumulative, target) {
  let lo = 0;
  let hi = cumulative.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid] > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// One exact draw per entry of `which` (an index into `laws`), in rounds.
function choose(stream, laws, which) {
  const prefix = new Array(which.length).fill(0n);
  const out = new Array(which.length).fill(0);
  let pending = which.map((_, i) => i);
  let stage = 0;
  while (pending.length > 0) {
    if (++stage > MAX_ROUNDS) throw tooManyRounds();
    const shift = BigInt(8 * stage);
    const data = stream.take(pending.length);
    const still = [];
    for (let position = 0; position < pending.length; position++) {
      const item = pending[position];
      const cumulative = laws[which[item]];
      const total = cumulative[cumulative.length - 1];
      const value = prefix[item] * 256n + BigInt(data[position]);
      prefix[item] = value;
      const j = bisectRight(cumulative, (value * total) >> shift);
      if (cumulative[j] << shift >= (value + 1n) * total) out[item] = j;
      else still.push(item);
    }
    pending = still;
  }
  return out;
}

function chooseOne(stream, law) {
  return choose(stream, [law], [0])[0];
}

// One exact coin `U < p` per probability (doubles in [0, 1]), in rounds.
function bernoulli(stream, probabilities) {
  const remainder = probabilities.slice();
  const out = new Array(remainder.length).fill(false);
  let pending = remainder.map((_, i) => i);
  let stage = 0;
  while (pending.length > 0) {
    if (++stage > MAX_ROUNDS) throw tooManyRounds();
    const data = stream.take(pending.length);
    const still = [];
    for (let position = 0; position < pending.length; position++) {
      const item = pending[position];
      const byte = data[position];
      const scaled = remainder[item] * 256.0;
      const digit = Math.floor(scaled);
      const rest = scaled - digit;
      if (byte < digit) {
        out[item] = true;
      } else if (byte === digit && rest > 0.0) {
        remainder[item] = rest;
        still.push(item);
      }
    }
    pending = still;
  }
  return out;
}

function bitLength(n) {
  // n: a non-negative integer Number below 2^53
  return n < 2 ** 32 ? 32 - Math.clz32(n) : n.toString(2).length;
}

// `count` uniform integers on 0 .. bound - 1 (bound <= 2^53), by rejection, in rounds.
function randint(stream, bound, count) {
  if (!Number.isInteger(bound) || bound < 1 || bound > 2 ** 53) {
    throw new RangeError("a uniform draw needs a bound in 1 .. 2^53");
  }
  const out = new Array(count).fill(0);
  if (bound === 1 || count === 0) return out;
  const bits = bitLength(bound - 1);
  const width = Math.ceil(bits / 8);
  const big = width > 6; // 7 bytes exceed a double's 53-bit integers: use BigInt
  const modulus = 2 ** bits;
  const mask = (1n << BigInt(bits)) - 1n;
  const limit = BigInt(bound);
  let pending = out.map((_, i) => i);
  let stage = 0;
  while (pending.length > 0) {
    if (++stage > MAX_ROUNDS) throw tooManyRounds();
    const data = stream.take(width * pending.length);
    const still = [];
    for (let position = 0; position < pending.length; position++) {
      const item = pending[position];
      const start = position * width;
      if (big) {
        let value = 0n;
        for (let i = 0; i < width; i++) value = (value << 8n) | BigInt(data[start + i]);
        value &= mask;
        if (value < limit) out[item] = Number(value);
        else still.push(item);
      } else {
        let value = 0;
        for (let i = 0; i < width; i++) value = value * 256 + data[start + i];
        value %= modulus;
        if (value < bound) out[item] = value;
        else still.push(item);
      }
    }
    pending = still;
  }
  return out;
}

// `count` multiples of 2^-53 in [0, 1): 7 bytes each, big-endian, the top 53 bits.
function uniform(stream, count) {
  const data = stream.take(7 * count);
  const out = [];
  for (let i = 0; i < count; i++) {
    let top = 0; // the first 6 bytes: 48 bits, exact
    for (let j = 0; j < 6; j++) top = top * 256 + data[7 * i + j];
    out.push((top * 32 + (data[7 * i + 6] >> 3)) * 2 ** -53);
  }
  return out;
}

// The number of zero bits before the first one bit, per draw, in rounds.
function zeroBits(stream, count) {
  const out = new Array(count).fill(0);
  let pending = out.map((_, i) => i);
  let stage = 0;
  while (pending.length > 0) {
    if (++stage > MAX_ROUNDS) throw tooManyRounds();
    const data = stream.take(pending.length);
    const still = [];
    for (let position = 0; position < pending.length; position++) {
      const item = pending[position];
      const byte = data[position];
      if (byte === 0) {
        out[item] += 8;
        still.push(item);
      } else {
        out[item] += Math.clz32(byte) - 24; // 8 minus its bit length
      }
    }
    pending = still;
  }
  return out;
}

function snap(stream, y, step) {
  const scaled = y / step;
  const low = Math.floor(scaled);
  return (low + (bernoulli(stream, [scaled - low])[0] ? 1.0 : 0.0)) * step;
}

function pack(bits) {
  const out = [];
  for (let start = 0; start < bits.length; start += 8) {
    let byte = 0;
    for (let offset = 0; offset < 8 && start + offset < bits.length; offset++) {
      if (bits[start + offset]) byte |= 0x80 >> offset;
    }
    out.push(byte);
  }
  return out;
}

function parity(value) {
  // value: a non-negative BigInt
  let odd = 0;
  while (value > 0n) {
    value &= value - 1n;
    odd ^= 1;
  }
  return odd;
}

// ---------------------------------------------------------------------------- mechanisms
function channel(proto, x, stream) {
  return [chooseOne(stream, proto.law(`row ${x}`, proto.mechanism.params.matrix[x]))];
}

function grr(proto, x, stream) {
  const k = proto.mechanism.params.k;
  if (chooseOne(stream, proto.law("keep", proto.sampler.keep)) === 0) return [x];
  const other = randint(stream, k - 1, 1)[0];
  return [other + (other >= x ? 1 : 0)];
}

function unary(proto, x, stream) {
  const k = proto.mechanism.params.k;
  const laws = [proto.law("other", proto.sampler.other), proto.law("own", proto.sampler.own)];
  const which = [];
  for (let v = 0; v < k; v++) which.push(v === x ? 1 : 0);
  return pack(choose(stream, laws, which).map((index) => index === 0));
}

function memoGrr(proto, x, stream, state) {
  const k = proto.mechanism.params.k;
  const draw = (name, value) => {
    if (chooseOne(stream, proto.law(name, proto.sampler[name])) === 0) return value;
    const other = randint(stream, k - 1, 1)[0];
    return other + (other >= value ? 1 : 0);
  };
  if (!state.entries.has(x)) state.entries.set(x, [draw("permanent", x)]);
  return [draw("instant", state.entries.get(x)[0])];
}

function memoUnary(proto, x, stream, state) {
  const k = proto.mechanism.params.k;
  const sampler = proto.sampler;
  if (!state.entries.has(x)) {
    const laws = [proto.law("other", sampler.other), proto.law("own", sampler.own)];
    const which = [];
    for (let v = 0; v < k; v++) which.push(v === x ? 1 : 0);
    state.entries.set(x, pack(choose(stream, laws, which).map((index) => index === 0)));
  }
  const packed = state.entries.get(x);
  const memoBits = [];
  for (let v = 0; v < k; v++) memoBits.push((packed[v >> 3] >> (7 - (v % 8))) & 1);
  const laws = [proto.law("zero", sampler.zero), proto.law("one", sampler.one)];
  return pack(choose(stream, laws, memoBits).map((index) => index === 0));
}

function memoDBitFlip(proto, x, stream, state) {
  const { k, b, d } = proto.mechanism.params;
  const sampler = proto.sampler;
  if (state.sampled.length === 0) {
    const chosen = [];
    for (let step = 0; step < d; step++) {
      let r = randint(stream, b - step, 1)[0];
      for (const column of [...chosen].sort((a, c) => a - c)) if (r >= column) r += 1;
      chosen.push(r);
    }
    state.sampled = chosen.sort((a, c) => a - c);
  }
  const bucket = Math.floor((x * b) / k);
  const pattern = state.sampled.indexOf(bucket) + 1; // 0 when not sampled
  if (!state.entries.has(pattern)) {
    const laws = [proto.law("other", sampler.other), proto.law("own", sampler.own)];
    const which = [];
    for (let i = 0; i < d; i++) which.push(i + 1 === pattern ? 1 : 0);
    state.entries.set(pattern, choose(stream, laws, which).map((index) => (index === 0 ? 1 : 0)));
  }
  return [...state.sampled, ...state.entries.get(pattern)];
}

const MEMOIZED = new Map([
  ["l-grr", memoGrr],
  ["l-osue", memoUnary],
  ["l-oue", memoUnary],
  ["rappor", memoUnary],
  ["dbitflip-pm", memoDBitFlip],
]);

// H(x) for the hash function packed in `words` (BigInts): docs/protocol.md, section 6.
function hash(family, words, x) {
  const sizes = family.fields.map(BigInt);
  const fields = sizes.map(() => 0n);
  family.words.forEach((members, j) => {
    let rest = words[j];
    for (const i of members) {
      fields[i] = rest % sizes[i];
      rest /= sizes[i];
    }
  });
  if (family.family === "ring") {
    const bits = family.bits;
    let total = fields[bits];
    for (let j = 0; j < bits; j++) total += fields[j] * ((x >> BigInt(j)) & 1n);
    return total % BigInt(family.modulus);
  }
  const p = BigInt(family.prime);
  const { power, digits } = family;
  const c = fields[power];
  let out = 0n;
  let weight = 1n;
  for (let r = 0; r < power; r++) {
    if (p === 2n) {
      const h = BigInt(parity(fields[r] & x));
      out += (h ^ ((c >> BigInt(r)) & 1n)) << BigInt(r);
    } else {
      let row = fields[r];
      let value = x;
      let h = 0n;
      for (let l = 0; l < digits; l++) {
        h += (row % p) * (value % p);
        row /= p;
        value /= p;
      }
      out += ((h % p + ((c / weight) % p)) % p) * weight;
    }
    weight *= p;
  }
  return out;
}

// SHA-256 (FIPS 180-4) of a Uint8Array, synchronous, for browsers and Node alike (the
// sketches' public hash; the Web Crypto hash is asynchronous, privatize is not). Exported
// for tests.
const SHA256_K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256(message) {
  const length = message.length;
  const blocks = Math.ceil((length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000)); // bit length, high word
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  const h = Uint32Array.from([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block * 64 + 4 * t);
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15];
      const b = w[t - 2];
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let t = 0; t < 64; t++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[t] + w[t]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const next = [a, b, c, d, e, f, g, k];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + next[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
  return out;
}

const SKETCH_PREFIX = new TextEncoder().encode("ldpkit/sketch-hash/v1\u0000");

// h_row(item): the first 8 bytes of SHA-256(prefix, salt, row, item), big-endian, mod width
// (docs/protocol.md, "Items and their hash").
function sketchHash(params, row, item) {
  const salt = new TextEncoder().encode(params.salt);
  const message = new Uint8Array(SKETCH_PREFIX.length + 8 + salt.length + item.length);
  const view = new DataView(message.buffer);
  let at = 0;
  message.set(SKETCH_PREFIX, at);
  at += SKETCH_PREFIX.length;
  view.setUint32(at, salt.length);
  message.set(salt, at + 4);
  at += 4 + salt.length;
  view.setUint32(at, row);
  message.set(item, at + 4);
  const hashed = new DataView(sha256(message).buffer);
  const top = (BigInt(hashed.getUint32(0)) << 32n) | BigInt(hashed.getUint32(4));
  return Number(top % BigInt(params.width));
}

function cms(proto, x, stream) {
  const params = proto.mechanism.params;
  const sampler = proto.sampler;
  const row = randint(stream, params.depth, 1)[0];
  const bucket = sketchHash(params, row, x);
  const laws = [proto.law("other", sampler.other), proto.law("own", sampler.own)];
  const which = Array.from({ length: params.width }, (_, a) => (a === bucket ? 1 : 0));
  const drawn = choose(stream, laws, which);
  return [row, ...pack(drawn.map((index) => index === 0))];
}

function hcms(proto, x, stream) {
  const params = proto.mechanism.params;
  const row = randint(stream, params.depth, 1)[0];
  const column = randint(stream, params.width, 1)[0];
  const flip = chooseOne(stream, proto.law("keep", proto.sampler.keep)) === 1;
  const plus = (parity(BigInt(column & sketchHash(params, row, x))) === 0) !== flip;
  return [row, column, plus ? 1 : 0];
}

function localHashing(proto, x, stream) {
  const sampler = proto.sampler;
  const family = sampler.hash;
  const words = family.words.map((members) => {
    let size = 1n;
    for (const i of members) size *= BigInt(family.fields[i]);
    if (size > 2n ** 53n) throw new RangeError("a hash word of the protocol exceeds 2^53");
    return randint(stream, Number(size), 1)[0];
  });
  const hashed = Number(hash(family, words.map(BigInt), BigInt(x)));
  if (chooseOne(stream, proto.law("keep", sampler.keep)) === 0) return [...words, hashed];
  const other = randint(stream, sampler.g - 1, 1)[0];
  return [...words, other + (other >= hashed ? 1 : 0)];
}

function hadamard(proto, x, stream) {
  const sampler = proto.sampler;
  const inside = chooseOne(stream, proto.law("keep", sampler.keep)) === 0 ? 1 : 0;
  let y = BigInt(randint(stream, sampler.K, 1)[0]);
  const row = BigInt(x) + 1n;
  if (parity(row & y) === inside) y ^= row & -row;
  return [Number(y)];
}

function subset(proto, x, stream) {
  const k = proto.mechanism.params.k;
  const d = proto.sampler.d;
  const include = chooseOne(stream, proto.law("include", proto.sampler.include)) === 0;
  const count = include ? d - 1 : d;
  const slots = k - 1; // slot o stands for value o + (o >= x)
  if (proto.sampler.members === "rejection") {
    // index encoding: the members, sorted
    const seen = new Set();
    let rounds = 0;
    while (seen.size < count) {
      if (++rounds > MAX_ROUNDS) throw tooManyRounds();
      for (const t of randint(stream, slots, count - seen.size)) seen.add(t);
    }
    const members = [...seen].map((t) => t + (t >= x ? 1 : 0));
    if (include) members.push(x);
    return members.sort((a, b) => a - b);
  }
  let bits = new Array(k).fill(false);
  const rows = proto.sampler.bernoulli_bits ?? 0; // absent in older files: Floyd
  if (rows > 0) {
    // Bernoulli bits of probability 2^-rows, then corrected to `count` members
    const width = Math.ceil(k / 8);
    const packed = new Array(width).fill(0xff);
    for (let r = 0; r < rows; r++) {
      const data = stream.take(width);
      for (let i = 0; i < width; i++) packed[i] &= data[i];
    }
    bits = bits.map((_, v) => (packed[v >> 3] & (0x80 >> (v & 7))) !== 0);
    bits[x] = false;
    let size = bits.filter(Boolean).length;
    let misses = 0;
    while (size !== count) {
      const t = randint(stream, slots, 1)[0];
      const v = t + (t >= x ? 1 : 0);
      if (bits[v] === size > count) {
        // a member to drop, or a non-member to add
        bits[v] = !bits[v];
        size += bits[v] ? 1 : -1;
        misses = 0;
      } else if (++misses > MAX_ROUNDS * k) {
        throw tooManyRounds();
      }
    }
  } else {
    const chosen = new Set();
    for (let j = slots - count; j < slots; j++) {
      // Floyd's algorithm
      const t = randint(stream, j + 1, 1)[0];
      chosen.add(chosen.has(t) ? j : t);
    }
    for (const o of chosen) bits[o + (o >= x ? 1 : 0)] = true;
  }
  if (include) bits[x] = true;
  return pack(bits);
}

// Duchi et al.'s cube mechanism on `values` (odd length after padding).
function duchiSigns(proto, sampler, values, stream) {
  const coins = bernoulli(stream, values.map((t) => (1.0 + t) / 2.0));
  const v = coins.map((bit) => (bit ? 1 : -1));
  const keep = proto.law("duchi keep", sampler.keep);
  if (values.length === 1) {
    const truthful = chooseOne(stream, keep) === 0;
    return [truthful ? v[0] : -v[0]];
  }
  const z = randint(stream, 2, values.length).map((bit) => 2 * bit - 1);
  let dot = 0;
  for (let j = 0; j < z.length; j++) dot += z[j] * v[j];
  const agree = dot > 0;
  const truthful = chooseOne(stream, keep) === 0;
  return agree === truthful ? z : z.map((s) => -s);
}

function duchi(proto, x, stream) {
  const d = proto.mechanism.params.d;
  const values = d === 1 ? [x] : x.slice();
  if (d > 1 && d % 2 === 0) values.push(0.0);
  return duchiSigns(proto, proto.sampler, values, stream).slice(0, d);
}

function gaussian(stream, count) {
  const first = uniform(stream, count);
  const second = uniform(stream, count);
  return first.map((a, i) => Math.sqrt(-2.0 * Math.log1p(-a)) * Math.cos(TWO_PI * second[i]));
}

function unit(vector) {
  const norm = Math.sqrt(sumOf(vector.map((v) => v * v)));
  if (norm === 0) return vector.map((_, i) => (i === 0 ? 1.0 : 0.0));
  return vector.map((v) => v / norm);
}

function duchiL2(proto, x, stream) {
  const { params } = proto.mechanism;
  const sampler = proto.sampler;
  const radius = params.radius;
  const d = params.d;
  const norm = Math.sqrt(sumOf(x.map((v) => v * v)));
  const positive = bernoulli(stream, [Math.min(0.5 + norm / (2 * radius), 1.0)])[0];
  let direction = unit(gaussian(stream, d));
  if (norm > 0) direction = x.map((v) => v / norm);
  const sign = positive ? 1.0 : -1.0;
  const target = direction.map((v) => v * sign);
  let z = unit(gaussian(stream, d));
  const truthful = chooseOne(stream, proto.law("keep", sampler.keep)) === 0;
  if (sumOf(z.map((v, j) => v * target[j])) > 0 !== truthful) z = z.map((v) => -v);
  return z.map((v) => sampler.bound * v);
}

function laplace(proto, x, stream) {
  const sampler = proto.sampler;
  const scale = sampler.scale;
  const sign = bernoulli(stream, [0.5])[0] ? -scale : scale;
  const steps = zeroBits(stream, 1)[0];
  const rest = -Math.log1p(-0.5 * uniform(stream, 1)[0]);
  const noise = LN2 * steps + rest;
  return [snap(stream, x + sign * noise, sampler.step)];
}

function gaussianNoise(proto, x, stream) {
  const sampler = proto.sampler;
  const noise = gaussianTails(stream, 1)[0];
  return [snap(stream, x + sampler.sigma * noise, sampler.step)];
}

function piecewiseValue(proto, sampler, x, stream) {
  const c = sampler.C;
  const width = sampler.width;
  const window = chooseOne(stream, proto.law("piecewise keep", sampler.keep)) === 0;
  const u = uniform(stream, 1)[0];
  const left = ((c + 1) * x) / 2 - width / 2;
  let y;
  if (window) {
    y = left + width * u;
  } else {
    y = (c + 1) * u - c;
    if (y >= left) y = y + width;
  }
  return snap(stream, y, sampler.step);
}

function piecewise(proto, x, stream) {
  return [piecewiseValue(proto, proto.sampler, x, stream)];
}

function hybrid(proto, x, stream) {
  const sampler = proto.sampler;
  const mix = sampler.mix;
  const usePiecewise = mix !== null && chooseOne(stream, proto.law("mix", mix)) === 0;
  if (usePiecewise) return [piecewiseValue(proto, sampler.piecewise, x, stream)];
  return [sampler.bound * duchiSigns(proto, sampler.duchi, [x], stream)[0]];
}

function squareWave(proto, x, stream) {
  const sampler = proto.sampler;
  const b = sampler.b;
  const near = chooseOne(stream, proto.law("keep", sampler.keep)) === 0;
  const u = uniform(stream, 1)[0];
  const y = near ? x - b + 2 * b * u : u < x ? u - b : u + b;
  return [snap(stream, y, sampler.step)];
}

function staircase(proto, x, stream) {
  const sampler = proto.sampler;
  const d = sampler.sensitivity;
  const g = sampler.gamma;
  const negative = bernoulli(stream, [0.5])[0];
  let periods = 0;
  while (bernoulli(stream, [sampler.b])[0]) periods += 1;
  const lower = bernoulli(stream, [sampler.p0])[0];
  const u = uniform(stream, 1)[0];
  const within = lower ? g * d * u : g * d + (1.0 - g) * d * u;
  const noise = periods * d + within;
  return [snap(stream, x + (negative ? -noise : noise), sampler.step)];
}

// ---------------------------------------------------------------------------- unit vectors
// Left to right, as the Python client (the library adds pairwise: the vectors carry an rtol).
function dot(a, b) {
  let total = 0;
  for (let i = 0; i < a.length; i++) total += a[i] * b[i];
  return total;
}

// Unbiased randomized rounding of every entry of `ys` (the coins in rounds).
function snapAll(stream, ys, step) {
  const scaled = ys.map((y) => y / step);
  const lows = scaled.map((v) => Math.floor(v));
  const ups = bernoulli(stream, scaled.map((v, i) => v - lows[i]));
  return lows.map((low, i) => (low + (ups[i] ? 1.0 : 0.0)) * step);
}

function exponential(stream, count) {
  const steps = zeroBits(stream, count);
  const rest = uniform(stream, count).map((u) => -Math.log1p(-0.5 * u));
  return steps.map((j, i) => LN2 * j + rest[i]);
}

function gaussianTails(stream, count) {
  const radius = exponential(stream, count).map((e) => Math.sqrt(2.0 * e));
  const angles = uniform(stream, count);
  return radius.map((r, i) => r * Math.cos(TWO_PI * angles[i]));
}

// +-x/||x|| (minus with probability (1 - ||x||/radius)/2), uniform for x = 0.
function unitDirection(stream, x, radius) {
  const norm = Math.sqrt(dot(x, x));
  const positive = bernoulli(stream, [Math.min(0.5 + norm / (2.0 * radius), 1.0)])[0];
  const u = norm > 0 ? x.map((v) => v / norm) : unit(gaussian(stream, x.length));
  return positive ? u : u.map((v) => -v);
}

// Marsaglia-Tsang: one Gamma(shape) draw, shape >= 1.
function gammaDraw(stream, shape) {
  const dd = shape - 1.0 / 3.0;
  const c = 1.0 / Math.sqrt(9.0 * dd);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const x = gaussian(stream, 1)[0];
    const u = uniform(stream, 1)[0];
    const cx = c * x;
    if (cx > -1.0) {
      const v = (1.0 + cx) * (1.0 + cx) * (1.0 + cx);
      const bound = 0.5 * x * x + dd * (3.0 * Math.log1p(cx) - cx * (3.0 + cx * (3.0 + cx)));
      if (Math.log1p(-u) < bound) return dd * v;
    }
  }
  throw tooManyRounds();
}

function innerProduct(stream, sampler, d, cap) {
  const gamma = sampler.gamma;
  const envelope = sampler.envelope;
  const angle = sampler.angle;
  if (angle !== null) {
    // d = 2: a uniform angle on the cap or off it
    const u = uniform(stream, 1)[0];
    return Math.cos(cap ? angle.angle * u : angle.angle + angle.rest * u);
  }
  if (cap && envelope !== null) {
    const { k, rate, length, shrink, base } = envelope;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const first = uniform(stream, 1)[0];
      const second = uniform(stream, 1)[0];
      const t =
        length > 0
          ? gamma + (1.0 - gamma) * (-Math.log1p(first * shrink) / length)
          : gamma + (1.0 - gamma) * first;
      if (t < 1.0) {
        const ratio = k * (Math.log1p(-t * t) - base) + rate * (t - gamma);
        if (Math.log1p(-second) <= Math.min(ratio, 0.0)) return t;
      }
    }
    throw tooManyRounds();
  }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const g = gaussian(stream, 1)[0];
    const rest = 2.0 * gammaDraw(stream, (d - 1) / 2.0);
    const t = g / Math.sqrt(g * g + rest);
    if (t >= gamma === cap) return t;
  }
  throw tooManyRounds();
}

function perpendicular(stream, u) {
  const g = gaussian(stream, u.length);
  const along = dot(g, u);
  let w = g.map((a, i) => a - along * u[i]);
  let norm = Math.sqrt(dot(w, w));
  if (norm === 0) {
    // probability 0: any perpendicular direction
    let j = 0;
    for (let i = 1; i < u.length; i++) if (Math.abs(u[i]) < Math.abs(u[j])) j = i;
    w = u.map((b) => -u[j] * b);
    w[j] += 1.0;
    norm = Math.sqrt(dot(w, w));
  }
  return w.map((a) => a / norm);
}

function privUnit(proto, x, stream) {
  const { params } = proto.mechanism;
  const sampler = proto.sampler;
  const u = unitDirection(stream, x, params.radius);
  const cap = chooseOne(stream, proto.law("keep", sampler.keep)) === 0;
  const t = innerProduct(stream, sampler, params.d, cap);
  const w = perpendicular(stream, u);
  const side = Math.sqrt(Math.max(0.0, (1.0 - t) * (1.0 + t)));
  const bound = sampler.bound;
  return snapAll(stream, u.map((a, i) => bound * (t * a + side * w[i])), sampler.step);
}

function privUnitG(proto, x, stream) {
  const { params } = proto.mechanism;
  const sampler = proto.sampler;
  const { gamma, rate } = sampler;
  const u = unitDirection(stream, x, params.radius);
  const tail = chooseOne(stream, proto.law("keep", sampler.keep)) === 0;
  let alpha;
  for (let round = 0; ; round++) {
    if (round >= MAX_ROUNDS) throw tooManyRounds();
    if (tail) {
      // gamma + E/rate, kept when E' >= (z - rate)^2 / 2
      alpha = gamma + exponential(stream, 1)[0] / rate;
      if (exponential(stream, 1)[0] >= 0.5 * (alpha - rate) * (alpha - rate)) break;
    } else {
      alpha = gaussianTails(stream, 1)[0];
      if (alpha < gamma) break;
    }
  }
  const g = gaussianTails(stream, params.d);
  const shift = alpha - dot(g, u);
  const scale = sampler.scale;
  return snapAll(stream, g.map((a, i) => scale * (a + shift * u[i])), sampler.step);
}

const MECHANISMS = new Map([
  ["Channel", channel],
  ["GRR", grr],
  ["UE", unary],
  ["SUE", unary],
  ["OUE", unary],
  ["LH", localHashing],
  ["OLH", localHashing],
  ["BLH", localHashing],
  ["HR", hadamard],
  ["SS", subset],
  ["Duchi", duchi],
  ["DuchiL2", duchiL2],
  ["Laplace", laplace],
  ["Piecewise", piecewise],
  ["Hybrid", hybrid],
  ["SquareWave", squareWave],
  ["staircase", staircase],
  ["gaussian", gaussianNoise],
  ["cms", cms],
  ["hcms", hcms],
  ["privunit", privUnit],
  ["privunitg", privUnitG],
]);
for (const [name, round] of MEMOIZED) {
  MECHANISMS.set(name, (proto, x, stream) => round(proto, x, stream, { entries: new Map(), sampled: [] }));
}

// ---------------------------------------------------------------------------- Bloom RAPPOR
const UTF8 = new TextEncoder();
const BLOOM_LIMITS = [["num_bits", 1 << 16], ["num_hashes", 8], ["num_cohorts", 1 << 16]];

function bloomParams(params) {
  if (!isObject(params)) throw new TypeError("params must be an object");
  const out = {};
  for (const [name, limit] of BLOOM_LIMITS) {
    const value = params[name];
    if (!Number.isInteger(value) || value < 1 || value > limit) {
      throw new RangeError(`params.${name} must be an integer in 1 .. ${limit}`);
    }
    out[name] = value;
  }
  for (const name of ["f", "p", "q"]) {
    if (typeof params[name] !== "number" || !Number.isFinite(params[name])) {
      throw new TypeError(`params.${name} must be a number`);
    }
    out[name] = params[name];
  }
  if (!(out.f > 0 && out.f < 1 && out.p >= 0 && out.p < out.q && out.q <= 1)) {
    throw new RangeError("params need 0 < f < 1 and 0 <= p < q <= 1");
  }
  return out;
}

function doubleHex(x) {
  DOUBLE.setFloat64(0, x);
  let hex = "";
  for (let i = 0; i < 8; i++) hex += DOUBLE.getUint8(i).toString(16).padStart(2, "0");
  return hex;
}

/** The string that memos of this RAPPOR configuration carry (the library's `key`). */
export function bloomRapporKey(params) {
  const p = bloomParams(params);
  const doubles = [p.f, p.p, p.q].map(doubleHex).join(":");
  return `bloom-rappor:${p.num_bits}:${p.num_hashes}:${p.num_cohorts}:${doubles}`;
}

/**
 * Bloom-filter bits of `value` in `cohort`: SHA-256 of the 4-byte big-endian cohort and the
 * UTF-8 value, 4-byte big-endian words modulo `numBits` (one per hash).
 */
export function bloomPositions(value, cohort, numBits, numHashes) {
  const text = UTF8.encode(value);
  const input = new Uint8Array(4 + text.length);
  new DataView(input.buffer).setUint32(0, cohort);
  input.set(text, 4);
  const view = new DataView(sha256(input).buffer);
  const out = [];
  for (let i = 0; i < numHashes; i++) out.push(view.getUint32(4 * i) % numBits);
  return out;
}

const MEMO_TAG = UTF8.encode("ldp-rappor-memo\0");

function bloomMemoKey(value) {
  const text = UTF8.encode(value);
  const input = new Uint8Array(MEMO_TAG.length + text.length);
  input.set(MEMO_TAG);
  input.set(text, MEMO_TAG.length);
  const view = new DataView(sha256(input).buffer);
  // the top 52 bits of the first 8 bytes: an exact Number
  return view.getUint32(0) * 2 ** 20 + (view.getUint32(4) >>> 12);
}

/**
 * One report of RAPPOR with Bloom filters: `{ record: { cohort, report }, memo }`.
 *
 * `params` holds `num_bits`, `num_hashes`, `num_cohorts`, `f`, `p`, `q` (as the library's
 * `BloomRAPPOR`). A new client (no memo) draws its cohort; each string's permanent response is
 * drawn once and kept in the memo, which stays on the device (never send it). Randomness is
 * read in the library's order: the cohort, the permanent bits of a new string, then the
 * instantaneous bits.
 */
export function bloomRapporRound(params, value, { memo, randbytes } = {}) {
  const p = bloomParams(params);
  if (typeof value !== "string") throw new TypeError("the answer must be a string");
  const keyText = bloomRapporKey(p);
  const stream = new Stream(randbytes ?? cryptoBytes);
  const entries = new Map();
  let sampled = [];
  if (memo !== undefined && memo !== null) {
    if (!isObject(memo) || memo.format !== MEMO_FORMAT) {
      throw new TypeError("memo must be the object returned by the previous round");
    }
    if (memo.mechanism !== keyText) throw new RangeError("the memo belongs to another configuration");
    for (const entry of memo.entries ?? []) entries.set(entry[0], [...entry[1]]);
    sampled = [...(memo.sampled ?? [])];
  }
  if (sampled.length === 0) sampled = randint(stream, p.num_cohorts, 1);
  const cohort = sampled[0];
  if (!(Number.isInteger(cohort) && cohort >= 0 && cohort < p.num_cohorts)) {
    throw new RangeError("the memo holds a cohort this configuration cannot draw");
  }
  const m = p.num_bits;
  const key = bloomMemoKey(value);
  if (!entries.has(key)) {
    const half = p.f / 2.0;
    const laws = [exactLaw([half, 1.0 - half]), exactLaw([1.0 - half, half])];
    const signal = new Array(m).fill(0);
    for (const position of bloomPositions(value, cohort, m, p.num_hashes)) signal[position] = 1;
    entries.set(key, pack(choose(stream, laws, signal).map((index) => index === 0)));
  }
  const packed = entries.get(key);
  const memoBits = [];
  for (let v = 0; v < m; v++) memoBits.push((packed[v >> 3] >> (7 - (v % 8))) & 1);
  const laws = [exactLaw([p.p, 1.0 - p.p]), exactLaw([p.q, 1.0 - p.q])];
  const report = choose(stream, laws, memoBits).map((index) => (index === 0 ? 1 : 0));
  const keys = [...entries.keys()].sort((x, y) => x - y);
  return {
    record: { cohort, report },
    memo: {
      format: MEMO_FORMAT,
      mechanism: keyText,
      entries: keys.map((k) => [k, [...entries.get(k)]]),
      sampled: [cohort],
    },
  };
}
