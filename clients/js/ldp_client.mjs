// Privatize one answer on a device: the ldp protocol client for browsers and Node >= 18.
//
// One ES module, no dependencies. Given a protocol file published by the server
// (`ldp.protocol.Protocol.save`) and one answer, `privatize` returns the record to send:
//
//     import { privatize, verify } from "./ldp_client.mjs";
//     const text = await (await fetch("protocol.json")).text();
//     const policy = { max_epsilon: 2 };             // the app's, never the server's
//     console.log(verify(text, policy));             // the privacy this device computed
//     const record = privatize(text, "bike", { policy });
//     // {id: "9f0c...", fingerprint: "34e331bdb88dbf66", report: [7]}
//
// The record's `id` is 16 random bytes (hex) from the platform's CSPRNG: a collector
// (`ldp serve`) stores a record once whatever the number of times it is sent, so an upload
// that failed can be retried as it is.
//
// The server is not trusted. Before it draws anything, the client computes the privacy of
// the draw it is about to make from the sampler constants it will actually use (exact
// rational arithmetic in BigInt: no rounding can make a leak look smaller) and refuses a file
// whose constants give more than the file states, or more than the app's policy allows.
// `verify` returns that device-computed privacy for the app to show (never show the file's
// `privacy` section). `privatizeWithLedger` also keeps a privacy ledger (plain JSON the app
// stores, in localStorage say) per question, keyed by what determines privacy, and refuses a
// report that would exceed the app's budget. docs/protocol.md specifies the file, the checks
// and the ledger.
//
// This is a port of the Python client (clients/python/ldp_client.py), operation for
// operation and with the same function names in camelCase: both accept and refuse the same
// files with the same one-line messages, compute bit-identical privacy numbers (the same
// integer algorithms at the same precisions), write memos and ledgers each reads from the
// other, and give the same report for the same random bytes (checked against
// clients/test_vectors.json and, across the two languages, by tests/clients/test_js_client.py).
//
// Every random bit comes from `crypto.getRandomValues` (the platform's CSPRNG), or from
// `randbytes(n) -> Uint8Array` when one is given (tests only: a predictable source reveals
// the answer). Every loop that reads randomness is bounded: a broken source (all 0x00 or all
// 0xFF bytes) makes a draw throw, never hang.
//
// Errors are thrown with one line; an answer is never echoed in a message. A protocol file
// that is refused throws a RangeError where the Python client raises ValueError and a
// TypeError where it raises TypeError, with the same message. Other arguments throw a
// TypeError when they have the wrong type or shape (an answer of the wrong type, a memo or
// ledger that is not the one returned, a randbytes that is not a function) and a RangeError
// when a value is out of range (an answer outside the labels or bounds, a policy value).
//
// Where JavaScript cannot do what Python does, and where this client is stricter:
// * Protocol text (a string or its UTF-8 bytes) is read by this module's own strict JSON
//   parser, which refuses repeated keys (JSON.parse keeps the last one), nesting deeper than
//   MAX_DEPTH, text above MAX_PROTOCOL_BYTES and NaN/Infinity, and remembers which numbers
//   were written as integers. A protocol given as an already-parsed object cannot be checked
//   for repeated keys, and in it an integral number counts as an integer (1.0 and 1 are the
//   same Number). A version-1 file is fingerprinted over Python's json.dumps text, which
//   writes 1 and 1.0 differently, so this client reads version 1 only from its text; the
//   Python client also reads it from a dict. Pass the file's text whenever you can.
// * The answers' domain is checked before anything is drawn: categorical labels must be null
//   or a list of k labels, an interval must have numbers low < high (the Python client reads
//   them unchecked when it privatizes).
// * The checks of a stated delta > 0 (channel, gaussian) refuse |epsilon| > 2000, as every
//   other exact comparison does (the Python client computes e^epsilon exactly there, which
//   does not end for a huge epsilon).
// * A number beyond the largest double is written `inf` in a message (the Python client
//   raises OverflowError there), and a row of a channel matrix whose sum is beyond it is
//   refused.
// * The ledger refuses a report whose charge is infinite (a memoized mechanism whose
//   permanent response is not randomized) instead of writing Infinity into it.

export const PROTOCOL_VERSION = 2;
const VERSIONS = [1, 2];
const FORMAT = "ldp-protocol";
/** Largest protocol file (bytes of its JSON text) this client reads. */
export const MAX_PROTOCOL_BYTES = 8 << 20;
/** Deepest nesting of arrays and objects a protocol file may have. */
export const MAX_DEPTH = 16;
// A draw still undecided after this many rounds means a broken random source (all 0xFF
// bytes, say): with real randomness that happens with probability below 2^-2048.
const MAX_ROUNDS = 2048;
// A rejection sampler that has not accepted after this many proposals is given constants it
// cannot sample (honest constants accept within a few dozen).
const MAX_PROPOSALS = 1 << 16;
const LN2 = 0.6931471805599453;
const TWO_PI = 6.283185307179586;
const REQUIRED = ["domain", "mechanism", "sampler", "report", "privacy", "fingerprint"];
const MEMO_FORMAT = "ldp-memo/2";
const LEGACY_MEMO_FORMAT = "ldp-memo/1";
const LEDGER_FORMAT = "ldp-ledger/1";
const CHUNK = 65536; // getRandomValues fills at most this many bytes per call
const TWO_53 = 2 ** 53;

/** Version-1 mechanism names and the canonical id each one reads as. */
export const V1_NAMES = Object.freeze({
  Channel: "channel",
  GRR: "grr",
  UE: "unary-encoding",
  SUE: "sue",
  OUE: "oue",
  LH: "local-hashing",
  OLH: "olh",
  BLH: "blh",
  HR: "hadamard-response",
  SS: "subset-selection",
  Duchi: "duchi",
  DuchiL2: "duchi-l2",
  Laplace: "laplace",
  Piecewise: "piecewise",
  Hybrid: "hybrid",
  SquareWave: "square-wave",
  staircase: "staircase",
  gaussian: "gaussian",
  cms: "cms",
  hcms: "hcms",
  privunit: "privunit",
  privunitg: "privunitg",
  "l-grr": "l-grr",
  "l-osue": "l-osue",
  "l-oue": "l-oue",
  rappor: "rappor",
  "dbitflip-pm": "dbitflip-pm",
});
const V1 = new Map(Object.entries(V1_NAMES));

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

// A report id: 16 random bytes in hexadecimal from the platform's CSPRNG (from `randbytes`,
// drawn after the report, only where the platform has none). A collector stores a record
// once however often it is sent, so a failed upload is retried with the same record.
function reportId(randbytes) {
  const bytes =
    webCrypto && typeof webCrypto.getRandomValues === "function" ? cryptoBytes(16) : randbytes(16);
  if (!(bytes instanceof Uint8Array) || bytes.length !== 16) {
    throw new TypeError("randbytes(16) must return a Uint8Array of 16 bytes");
  }
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
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

function broken() {
  return new RangeError(`the random source is broken: no decision after ${MAX_ROUNDS} rounds`);
}

// `rounds + 1`, or throws past `limit` rounds of one draw.
function another(rounds, limit = MAX_ROUNDS) {
  if (rounds >= limit) throw broken();
  return rounds + 1;
}

function notAccepted() {
  return new RangeError(
    `the sampler did not accept after ${MAX_PROPOSALS} proposals: the protocol's constants ` +
      "cannot be sampled",
  );
}

// ---------------------------------------------------------------------------- JSON text
// What the parser learnt about the numbers of each array and object it made: for a key
// (an index in an array), "float" when the number was written with a fraction or an
// exponent, or the exact BigInt of an integer above 2^53 in magnitude; absent for an
// integer (and for everything in objects the app passed already parsed).
const KINDS = new WeakMap();

function kindOf(owner, key) {
  const kinds = KINDS.get(owner);
  return kinds === undefined ? undefined : kinds.get(key);
}

function isDict(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

// `owner[key]` if it is the owner's own (Python's dict.get), else undefined.
function own(owner, key) {
  return owner !== null && typeof owner === "object" && Object.hasOwn(owner, key)
    ? owner[key]
    : undefined;
}

// Whether `owner[key]` equals the integer n (n <= 2^53: a larger integer never does, even
// when its nearest double is n), as Python's == compares numbers.
function equals(owner, key, n) {
  return own(owner, key) === n && typeof kindOf(owner, key) !== "bigint";
}

// Whether `owner[key]` is an integer as Python reads it (an int, not a bool, not a float).
function isInt(owner, key) {
  const value = own(owner, key);
  if (typeof value !== "number") return false;
  const kind = kindOf(owner, key);
  if (kind === "float") return false;
  return typeof kind === "bigint" || Number.isInteger(value);
}

function tooLarge() {
  return new RangeError(`the protocol is larger than ${MAX_PROTOCOL_BYTES} bytes: refused`);
}

function tooDeep() {
  return new RangeError(`the protocol nests deeper than ${MAX_DEPTH} levels: refused`);
}

const NOT_JSON = Symbol("not JSON");
const INT_DIGITS = 4300; // Python refuses longer integers in JSON text

// The JSON value of `text` (RFC 8259), its arrays and objects frozen, without recursion
// deeper than `limit` (a deeper text throws `tooDeep`): numbers as JSON.parse reads them
// (`Number(token)`), their kinds in KINDS. A repeated key throws when its object closes and
// NaN/Infinity when read (as Python's json module reports them); any other error throws
// NOT_JSON. With `constants`, NaN, Infinity and -Infinity are read as numbers.
function readJson(text, { limit = MAX_DEPTH, constants = false } = {}) {
  const n = text.length;
  let at = 0;
  let kind; // the kind of the number value() read last

  function space() {
    while (at < n) {
      const c = text.charCodeAt(at);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) at++;
      else break;
    }
  }

  function word(literal, result) {
    if (!text.startsWith(literal, at)) throw NOT_JSON;
    at += literal.length;
    return result;
  }

  function constant(name, result) {
    if (!text.startsWith(name, at)) throw NOT_JSON;
    if (!constants) {
      throw new RangeError(`the protocol holds ${name}, which is not a finite number`);
    }
    at += name.length;
    kind = "float";
    return result;
  }

  function digits() {
    const start = at;
    while (at < n && text.charCodeAt(at) >= 0x30 && text.charCodeAt(at) <= 0x39) at++;
    return at - start;
  }

  function number() {
    const start = at;
    if (text.charCodeAt(at) === 0x2d) at++;
    const first = text.charCodeAt(at);
    if (first === 0x30) at++;
    else if (first >= 0x31 && first <= 0x39) digits();
    else throw NOT_JSON;
    let float = false;
    if (text.charCodeAt(at) === 0x2e) {
      const c = text.charCodeAt(at + 1);
      if (c >= 0x30 && c <= 0x39) {
        at++;
        digits();
        float = true;
      }
    }
    const e = text.charCodeAt(at);
    if (e === 0x65 || e === 0x45) {
      const mark = at;
      at++;
      const sign = text.charCodeAt(at);
      if (sign === 0x2b || sign === 0x2d) at++;
      if (digits() > 0) float = true;
      else at = mark;
    }
    const token = text.slice(start, at);
    kind = undefined;
    if (float) {
      kind = "float";
    } else {
      const count = token.length - (token.charCodeAt(0) === 0x2d ? 1 : 0);
      if (count > INT_DIGITS) throw NOT_JSON;
      if (count > 15) {
        const exact = BigInt(token);
        if (exact > 2n ** 53n || exact < -(2n ** 53n)) kind = exact;
      }
    }
    return Number(token);
  }

  function string() {
    at++; // the opening quote
    let out = "";
    let start = at;
    for (;;) {
      if (at >= n) throw NOT_JSON;
      const c = text.charCodeAt(at);
      if (c === 0x22) {
        out += text.slice(start, at);
        at++;
        return out;
      }
      if (c === 0x5c) {
        out += text.slice(start, at);
        const e = text[at + 1];
        at += 2;
        if (e === '"' || e === "\\" || e === "/") out += e;
        else if (e === "b") out += "\b";
        else if (e === "f") out += "\f";
        else if (e === "n") out += "\n";
        else if (e === "r") out += "\r";
        else if (e === "t") out += "\t";
        else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4))) {
          out += String.fromCharCode(parseInt(text.slice(at, at + 4), 16));
          at += 4;
        } else {
          throw NOT_JSON;
        }
        start = at;
        continue;
      }
      if (c < 0x20) throw NOT_JSON;
      at++;
    }
  }

  function value(depth) {
    space();
    if (at >= n) throw NOT_JSON;
    const c = text.charCodeAt(at);
    kind = undefined;
    if (c === 0x7b || c === 0x5b) {
      if (depth >= limit) throw tooDeep();
      return c === 0x7b ? object(depth + 1) : array(depth + 1);
    }
    if (c === 0x22) return string();
    if (c === 0x2d && text.charCodeAt(at + 1) === 0x49) return constant("-Infinity", -Infinity);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return number();
    if (c === 0x74) return word("true", true);
    if (c === 0x66) return word("false", false);
    if (c === 0x6e) return word("null", null);
    if (c === 0x4e) return constant("NaN", NaN);
    if (c === 0x49) return constant("Infinity", Infinity);
    throw NOT_JSON;
  }

  function remember(container, kinds) {
    if (kinds.size > 0) KINDS.set(container, kinds);
    return Object.freeze(container);
  }

  function array(depth) {
    at++;
    const out = [];
    const kinds = new Map();
    space();
    if (text.charCodeAt(at) === 0x5d) {
      at++;
      return remember(out, kinds);
    }
    for (;;) {
      const item = value(depth);
      if (kind !== undefined) kinds.set(out.length, kind);
      out.push(item);
      space();
      const c = text.charCodeAt(at);
      at++;
      if (c === 0x5d) return remember(out, kinds);
      if (c !== 0x2c) throw NOT_JSON;
    }
  }

  function object(depth) {
    at++;
    const entries = [];
    const kinds = new Map();
    space();
    if (text.charCodeAt(at) === 0x7d) {
      at++;
      return remember({}, kinds);
    }
    for (;;) {
      space();
      if (text.charCodeAt(at) !== 0x22) throw NOT_JSON;
      const key = string();
      space();
      if (text.charCodeAt(at) !== 0x3a) throw NOT_JSON;
      at++;
      const item = value(depth);
      if (kind !== undefined) kinds.set(key, kind);
      entries.push([key, item]);
      space();
      const c = text.charCodeAt(at);
      at++;
      if (c === 0x7d) break;
      if (c !== 0x2c) throw NOT_JSON;
    }
    // as Python's object_pairs_hook: checked when the object closes, in the file's order
    const seen = new Set();
    for (const [key] of entries) {
      if (seen.has(key)) {
        throw new RangeError(
          `the protocol repeats the key ${pyRepr(pyPrefix(key, 40))} in one object`,
        );
      }
      seen.add(key);
    }
    return remember(Object.fromEntries(entries), kinds); // "__proto__" stays a plain key
  }

  const result = value(0);
  kind = undefined;
  space();
  if (at < n) throw NOT_JSON;
  return result;
}

// The deepest nesting of `[` and `{` in JSON text (strings skipped), as the Python client
// measures it before it parses.
function textDepth(text) {
  let depth = 0;
  let deepest = 0;
  let inside = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inside) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inside = false;
    } else if (c === 0x22) {
      inside = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > MAX_DEPTH) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

// The deepest nesting of arrays and plain objects in `value` (no recursion; a cycle is
// infinitely deep).
function valueDepth(value) {
  let deepest = 0;
  const stack = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop();
    if (Array.isArray(item) || isDict(item)) {
      if (depth > MAX_DEPTH) return depth;
      deepest = Math.max(deepest, depth);
      for (const child of Array.isArray(item) ? item : Object.values(item)) {
        stack.push([child, depth + 1]);
      }
    }
  }
  return deepest;
}

// A frozen copy of the arrays and plain objects of a value already checked to be shallow;
// anything else is kept as it is (canonicalJson refuses what JSON cannot carry).
function frozenCopy(value) {
  if (Array.isArray(value)) return Object.freeze(Array.from(value, frozenCopy));
  if (isDict(value)) {
    return Object.freeze(
      Object.fromEntries(Object.entries(value).map(([key, item]) => [key, frozenCopy(item)])),
    );
  }
  return value;
}

const UTF8 = new TextEncoder();
const UTF8_STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// The size checks of a protocol's text, in the Python client's order: code points, then
// (the text must be Unicode) its UTF-8 bytes.
function checkTextSize(text) {
  if (text.length <= MAX_PROTOCOL_BYTES / 3 && !LONE_SURROGATE.test(text)) return;
  let points = 0;
  let bytes = 0;
  let lone = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    points++;
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else {
      if (c >= 0xd800 && c <= 0xdfff) lone = true;
      bytes += 3;
    }
  }
  if (points > MAX_PROTOCOL_BYTES) throw tooLarge();
  if (lone) throw new RangeError("the protocol is not UTF-8 text");
  if (bytes > MAX_PROTOCOL_BYTES) throw tooLarge();
}

// The protocol as a document (a frozen plain object): from its JSON text (a string or UTF-8
// bytes) or an object, within the limits. `fromText` tells which.
function parse(protocol) {
  let text = null;
  if (protocol instanceof ArrayBuffer || ArrayBuffer.isView(protocol)) {
    const bytes =
      protocol instanceof ArrayBuffer
        ? new Uint8Array(protocol)
        : new Uint8Array(protocol.buffer, protocol.byteOffset, protocol.byteLength);
    if (bytes.length > MAX_PROTOCOL_BYTES) throw tooLarge();
    try {
      text = UTF8_STRICT.decode(bytes);
    } catch {
      throw new RangeError("the protocol is not UTF-8 text");
    }
  } else if (typeof protocol === "string") {
    text = protocol;
  }
  if (text !== null) {
    checkTextSize(text);
    if (textDepth(text) > MAX_DEPTH) throw tooDeep();
    let document;
    try {
      document = readJson(text);
    } catch (error) {
      if (error === NOT_JSON) throw new RangeError("the protocol is not valid JSON (truncated?)");
      throw error;
    }
    if (!isDict(document)) throw new TypeError("protocol must be an object or its JSON text");
    return { document, fromText: true };
  }
  if (!isDict(protocol)) throw new TypeError("protocol must be an object or its JSON text");
  if (valueDepth(protocol) > MAX_DEPTH) throw tooDeep();
  return { document: frozenCopy(protocol), fromText: false };
}

// ---------------------------------------------------------------------------- Python's text
// Messages name values as the Python client's f-strings do (repr, str), so that both clients
// refuse a file with the same words.
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hexDigits(code, width) {
  return code.toString(16).padStart(width, "0");
}

// repr() of a Python str.
function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0);
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (char === "\t") out += "\\t";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\x${hexDigits(code, 2)}`;
    else if (code < 0x7f || !NOT_PRINTABLE.test(char)) out += char;
    else if (code <= 0xff) out += `\\x${hexDigits(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hexDigits(code, 4)}`;
    else out += `\\U${hexDigits(code, 8)}`;
  }
  return out + quote;
}

// The first `count` code points of `text` (Python's text[:count]).
function pyPrefix(text, count) {
  let end = 0;
  for (let i = 0; i < count && end < text.length; i++) {
    const c = text.charCodeAt(end);
    end += c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, end);
}

// repr() of a Python float: the shortest digits that round-trip (those of Number's
// toString), fixed notation for decimal exponents -4 .. 15 with at least one digit after
// the point, else d.ddde+XX with a signed exponent of at least two digits.
// " per 1 day", " per 2.5 days" (as the Python client writes it); "" without a period.
function perPeriod(period) {
  if (period === null) return "";
  const days = Number.isInteger(period) && Math.abs(period) < 1e15 ? String(period) : pyFloat(period);
  return ` per ${days} day${period === 1 ? "" : "s"}`;
}

function pyFloat(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, exponent = "0"] = String(Math.abs(x)).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  let digits = whole + fraction;
  let point = whole.length + Number(exponent); // x = 0.digits * 10^point
  const lead = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(lead).replace(/0+$/, "");
  point -= lead;
  if (point <= -4 || point > 16) {
    const e = point - 1;
    const head = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    return `${sign}${head}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point < digits.length) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
}

// repr() of a Python number: an int when `integer`, else a float.
function pyNumber(value, integer) {
  return integer && Number.isInteger(value) ? BigInt(value).toString() : pyFloat(value);
}

// str() of the Python value that `value` (with its KINDS entry `kind`) is.
function pyStr(value, kind) {
  if (typeof value === "string") return value;
  return pyValue(value, kind, 0);
}

function pyValue(value, kind, depth) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return pyRepr(value);
  if (typeof value === "number") {
    if (typeof kind === "bigint") return kind.toString();
    return pyNumber(value, kind !== "float");
  }
  if (depth > MAX_DEPTH) return "...";
  if (Array.isArray(value)) {
    const items = Array.from(value, (item, i) => pyValue(item, kindOf(value, i), depth + 1));
    return `[${items.join(", ")}]`;
  }
  if (isDict(value)) {
    const items = Object.entries(value).map(
      ([key, item]) => `${pyRepr(key)}: ${pyValue(item, kindOf(value, key), depth + 1)}`,
    );
    return `{${items.join(", ")}}`;
  }
  return String(value);
}

// ---------------------------------------------------------------------------- canonical JSON
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function describe(value) {
  if (value === undefined) return "undefined";
  if (typeof value === "object") return `a ${value.constructor?.name ?? "object"}`;
  return `a ${typeof value}`;
}

function jcsNumber(value, kind) {
  if (typeof kind === "bigint") {
    throw new RangeError("the protocol holds an integer above 2^53, which JSON cannot keep");
  }
  if (!Number.isFinite(value)) throw new RangeError("the protocol holds a number that is not finite");
  return value === 0 ? "0" : String(value);
}

function jcsString(text) {
  if (LONE_SURROGATE.test(text)) {
    throw new RangeError("the protocol holds a string that is not valid Unicode");
  }
  return JSON.stringify(text);
}

function jcs(value, kind, depth) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") return jcsNumber(value, kind);
  if (typeof value === "string") return jcsString(value);
  const container = Array.isArray(value) || isDict(value);
  if (container && depth >= MAX_DEPTH) throw tooDeep();
  if (Array.isArray(value)) {
    const items = [];
    for (let i = 0; i < value.length; i++) items.push(jcs(value[i], kindOf(value, i), depth + 1));
    return `[${items.join(",")}]`;
  }
  if (isDict(value)) {
    const keys = Object.keys(value).sort(); // UTF-16 code units, as RFC 8785 sorts
    const items = keys.map(
      (key) => `${jcsString(key)}:${jcs(value[key], kindOf(value, key), depth + 1)}`,
    );
    return `{${items.join(",")}}`;
  }
  throw new TypeError(`the protocol holds ${describe(value)}, which JSON cannot carry`);
}

/**
 * The RFC 8785 (JSON Canonicalization Scheme) text of a JSON value.
 *
 * Object keys sorted by their UTF-16 code units, no whitespace, strings escaped as
 * JSON.stringify does, numbers as JavaScript writes them; the version-2 fingerprint hashes
 * this text. Refuses lone surrogates, non-finite numbers, integers above 2^53 read from a
 * protocol's text, and values JSON cannot carry.
 */
export function canonicalJson(value) {
  return jcs(value, undefined, 0);
}

// The text Python's json.dumps(value, sort_keys=True, separators=(",", ":"),
// ensure_ascii=True, allow_nan=False) writes, from a document read from its text: the
// version-1 fingerprint hashes it.
function v1Canonical(value, kind) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") {
    if (typeof kind === "bigint") return kind.toString();
    if (kind !== "float" && Number.isInteger(value)) return BigInt(value).toString();
    if (!Number.isFinite(value)) {
      throw new RangeError("Out of range float values are not JSON compliant");
    }
    return pyFloat(value);
  }
  if (typeof value === "string") return v1String(value);
  if (Array.isArray(value)) {
    return `[${Array.from(value, (item, i) => v1Canonical(item, kindOf(value, i))).join(",")}]`;
  }
  if (isDict(value)) {
    const keys = Object.keys(value).sort(compareCodePoints); // Python sorts by code point
    return `{${keys.map((key) => `${v1String(key)}:${v1Canonical(value[key], kindOf(value, key))}`).join(",")}}`;
  }
  throw new TypeError(`the protocol holds ${describe(value)}, which JSON cannot carry`);
}

const V1_ESCAPES = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function v1String(text) {
  let out = '"';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    out += text.slice(start, i);
    out += V1_ESCAPES[text[i]] ?? `\\u${hexDigits(c, 4)}`; // every UTF-16 code unit
    start = i + 1;
  }
  return `${out}${text.slice(start)}"`;
}

function compareCodePoints(a, b) {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(j);
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return (i < a.length ? 1 : 0) - (j < b.length ? 1 : 0);
}

// A copy of an object without `key`, keeping what the parser learnt about its numbers.
function without(value, key) {
  const out = Object.fromEntries(Object.entries(value).filter(([name]) => name !== key));
  const kinds = KINDS.get(value);
  if (kinds !== undefined) KINDS.set(out, kinds);
  return out;
}

function toHex(bytes) {
  let out = "";
  for (const byte of bytes) out += hexDigits(byte, 2);
  return out;
}

// SHA-256 (hex) of the document's canonical text, its `fingerprint` field excluded.
function hashHex(document, fromText) {
  const body = without(document, "fingerprint");
  let text;
  if (document.version === 1 && !fromText) {
    throw new TypeError(
      "a version-1 protocol must be given as its JSON text (its fingerprint tells 1 from 1.0, " +
        "which an object cannot): pass the file's text",
    );
  }
  try {
    text = document.version === 1 ? v1Canonical(body) : canonicalJson(body);
  } catch (error) {
    throw new RangeError(`the protocol cannot be canonicalised: ${error.message}`);
  }
  return toHex(sha256(UTF8.encode(text)));
}

/**
 * 32 hex digits naming what determines a protocol's privacy (its mechanism, parameters,
 * sampler constants and domain; not its question, labels or version): the key memos and the
 * privacy ledger are kept under, so that republishing a question keeps its memo.
 */
export function mechanismKey(protocol) {
  const proto = loadProtocol(protocol);
  const body = {
    domain: without(proto.domain, "labels"),
    mechanism: { name: proto[ID], params: proto.mechanism.params },
    sampler: proto.sampler,
  };
  const text = `ldp-mechanism/1:${canonicalJson(body)}`;
  return toHex(sha256(UTF8.encode(text))).slice(0, 32);
}

// ---------------------------------------------------------------------------- exact numbers
// A rational number is a pair [numerator, denominator] of BigInts with a positive
// denominator, not necessarily in lowest terms: every comparison, floor and ceiling below is
// independent of the representation (which is what makes these functions return what the
// Python client's Fractions give), and sizes grow only linearly where it matters.
const PRECISIONS = [64, 128, 256, 1024, 4096, 16384];
const MAX_EXPONENT = 2000;
const PI_DIGITS =
  "31415926535897932384626433832795028841971693993751058209749445923078164062862089986280" +
  "348253421170679821480865132823066470938446095505822317253594081284811174502841";
const PI_LOW = [BigInt(PI_DIGITS), 10n ** BigInt(PI_DIGITS.length - 1)];
const PI_HIGH = [PI_LOW[0] + 1n, PI_LOW[1]];
const ZERO = [0n, 1n];
const ONE = [1n, 1n];
const TWO = [2n, 1n];
const HALF = [1n, 2n];

function add([a, b], [c, d]) {
  return b === d ? [a + c, b] : [a * d + c * b, b * d];
}

function sub([a, b], [c, d]) {
  return b === d ? [a - c, b] : [a * d - c * b, b * d];
}

function mul([a, b], [c, d]) {
  return [a * c, b * d];
}

function inv([a, b]) {
  if (a === 0n) throw new RangeError("division by zero");
  return a < 0n ? [-b, -a] : [b, a];
}

function div(x, y) {
  return mul(x, inv(y));
}

function neg([a, b]) {
  return [-a, b];
}

function sign([a]) {
  return a > 0n ? 1 : a < 0n ? -1 : 0;
}

function cmp([a, b], [c, d]) {
  const left = a * d;
  const right = c * b;
  return left < right ? -1 : left > right ? 1 : 0;
}

function max(x, y) {
  return cmp(x, y) >= 0 ? x : y;
}

function bitLengthBig(n) {
  // n >= 0n
  if (n === 0n) return 0;
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0], 16)));
}

function floorDiv(a, b) {
  // b > 0n
  const q = a / b;
  return a < 0n && q * b !== a ? q - 1n : q;
}

function ceilDiv(a, b) {
  return -floorDiv(-a, b);
}

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

// A finite double as an exact rational.
function fromDouble(x) {
  if (x === 0) return ZERO;
  const [m, e] = decompose(Math.abs(x));
  const n = x < 0 ? -m : m;
  return e >= 0 ? [n << BigInt(e), 1n] : [n, 1n << BigInt(-e)];
}

// An exact sum of finite doubles (or [integer, 0] pairs): [M, E] with sum = M * 2^E.
function dyadicSum(parts) {
  let exponent = Infinity;
  for (const [, e] of parts) if (e < exponent) exponent = e;
  let total = 0n;
  for (const [m, e] of parts) total += m << BigInt(e - exponent);
  return [total, exponent === Infinity ? 0 : exponent];
}

function dyadic(x) {
  const [m, e] = decompose(Math.abs(x));
  return [x < 0 ? -m : m, e];
}

function dyadicValue([m, e]) {
  return e >= 0 ? [m << BigInt(e), 1n] : [m, 1n << BigInt(-e)];
}

// 2^e as a double, exactly, for -1074 <= e <= 1023 (Infinity above).
function pow2(e) {
  if (e > 1023) return Infinity;
  if (e >= -1022) {
    DOUBLE.setUint32(0, (e + 1023) << 20);
    DOUBLE.setUint32(4, 0);
  } else {
    const shift = e + 1074; // the subnormal's single bit
    DOUBLE.setUint32(0, shift >= 32 ? 1 << (shift - 32) : 0);
    DOUBLE.setUint32(4, shift < 32 ? (1 << shift) >>> 0 : 0);
  }
  return DOUBLE.getFloat64(0);
}

// The nearest double to a rational (ties to even; Infinity beyond the largest double), as
// Python's int / int and float(Fraction) give it.
function toDouble([n, d]) {
  if (n === 0n) return 0;
  const negative = n < 0n;
  if (negative) n = -n;
  let e = bitLengthBig(n) - bitLengthBig(d) - 53; // n / (d 2^e) in [2^52, 2^54)
  let q;
  let r;
  let divisor;
  const divide = () => {
    if (e >= 0) {
      divisor = d << BigInt(e);
      q = n / divisor;
      r = n % divisor;
    } else {
      divisor = d;
      const scaled = n << BigInt(-e);
      q = scaled / divisor;
      r = scaled % divisor;
    }
  };
  if (e < -1074) e = -1074;
  divide();
  if (q >= 1n << 53n) {
    e += 1;
    divide();
  }
  const twice = 2n * r;
  if (twice > divisor || (twice === divisor && (q & 1n) === 1n)) q += 1n;
  const out = Number(q) * pow2(e);
  return negative ? -out : out;
}

function ordinal(t) {
  DOUBLE.setFloat64(0, t);
  return DOUBLE.getBigInt64(0);
}

function fromOrdinal(i) {
  DOUBLE.setBigInt64(0, i);
  return DOUBLE.getFloat64(0);
}

function nextUp(x) {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return 5e-324;
  const i = ordinal(x);
  return fromOrdinal(x > 0 ? i + 1n : i - 1n);
}

// log of a positive BigInt (a starting guess only).
function bigLog(n) {
  const bits = bitLengthBig(n);
  if (bits <= 1000) return Math.log(Number(n));
  const shift = bits - 60;
  return Math.log(Number(n >> BigInt(shift))) + shift * Math.LN2;
}

// Rationals lo <= e^t <= hi (relative gap about 2^-bits), |t| <= 2000.
function expBounds(t, bits) {
  if (sign(t) < 0) {
    const [lo, hi] = expBounds(neg(t), bits);
    return [inv(hi), inv(lo)];
  }
  if (sign(t) === 0) return [ONE, ONE];
  const s = Math.max(0, Math.ceil(Math.log2(toDouble(t))) + 1);
  const precision = BigInt(bits + s + 16);
  const one = 1n << precision;
  const num = t[0];
  const den = t[1] << BigInt(s); // y = t / 2^s
  let loSum = 0n;
  let hiSum = 0n;
  let loTerm = one;
  let hiTerm = one;
  let n = 0n;
  for (;;) {
    loSum += loTerm;
    hiSum += hiTerm;
    n += 1n;
    loTerm = (loTerm * num) / (den * n);
    hiTerm = ceilDiv(hiTerm * num, den * n);
    if (hiTerm <= 1n) break;
  }
  let loInt = loSum;
  let hiInt = hiSum + 2n * hiTerm;
  for (let i = 0; i < s; i++) {
    loInt = (loInt * loInt) >> precision;
    hiInt = ceilDiv(hiInt * hiInt, one);
  }
  return [
    [loInt, one],
    [hiInt, one],
  ];
}

function tooLargeToCompare() {
  return new RangeError("the protocol's privacy level is too large to compare");
}

// The sign of ratio - e^t for rationals, decided exactly.
function compareExp(ratio, t) {
  if (sign(t) === 0) return cmp(ratio, ONE);
  if (sign(ratio) <= 0) return -1;
  if (cmp(sign(t) < 0 ? neg(t) : t, [BigInt(MAX_EXPONENT), 1n]) > 0) throw tooLargeToCompare();
  for (const bits of PRECISIONS) {
    const [lo, hi] = expBounds(t, bits);
    if (cmp(ratio, lo) < 0) return -1;
    if (cmp(ratio, hi) > 0) return 1;
  }
  throw new RangeError("the privacy of the protocol could not be decided");
}

// The smallest double t >= 0 with e^t >= ratio (Infinity for null, an infinite ratio).
function logUp(ratio) {
  if (ratio === null) return Infinity;
  if (cmp(ratio, ONE) <= 0) return 0;
  let guess;
  if (cmp(ratio, TWO) < 0) {
    // log1p of the exact excess keeps the relative precision of small levels
    guess = Math.log1p(toDouble(sub(ratio, ONE)));
  } else {
    guess = bigLog(ratio[0]) - bigLog(ratio[1]);
  }
  if (guess > MAX_EXPONENT) return Infinity;
  return smallestDouble((t) => compareExp(ratio, fromDouble(t)) <= 0, Math.max(guess, 0));
}

// The smallest double t >= 0 with holds(t) (holds is monotone), searched from `guess`: steps
// that double until the answer is bracketed, then bisection over the doubles (ordered as
// their bit patterns).
function smallestDouble(holds, guess) {
  const here = ordinal(guess);
  let step = 1n;
  let low;
  let high;
  if (holds(guess)) {
    high = here;
    for (;;) {
      low = high - step > 0n ? high - step : 0n;
      if (low === 0n && holds(0)) return 0;
      if (!holds(fromOrdinal(low))) break;
      high = low;
      step *= 2n;
    }
  } else {
    low = here;
    for (;;) {
      high = low + step;
      if (holds(fromOrdinal(high))) break;
      low = high;
      step *= 2n;
    }
  }
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (holds(fromOrdinal(middle))) high = middle;
    else low = middle;
  }
  return fromOrdinal(high);
}

// The smallest double at least the rational `value` (Infinity beyond the largest double).
function floatUp(value) {
  let out = toDouble(value);
  while (Number.isFinite(out) && cmp(fromDouble(out), value) < 0) out = nextUp(out);
  return out;
}

function isqrt(n) {
  if (n < 2n) return n;
  let x = 1n << BigInt((bitLengthBig(n) + 1) >> 1); // at least sqrt(n)
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

// Rationals lo <= sqrt(value) <= hi for a rational value >= 0.
function sqrtBounds([num, den], bits) {
  const scale = 1n << BigInt(2 * bits);
  const unit = 1n << BigInt(bits);
  const low = isqrt(floorDiv(num * scale, den));
  const high = isqrt(ceilDiv(num * scale, den)) + 1n;
  return [
    [low, unit],
    [high, unit],
  ];
}

// Rationals bounding Phi(-x) for a rational x >= 0 (standard normal law).
//
// x <= 3: 1/2 - S / sqrt(2 pi) with the alternating series
// S = sum (-1)^n x^(2n+1) / (2^n n! (2n+1)), whose partial sums bracket S once its terms
// decrease (n >= 3). x > 3: phi(x) R(x) with the Laplace continued fraction
// R(x) = 1/(x + 1/(x + 2/(x + ...))), whose successive convergents bracket it.
function phiLowerTail(x, bits) {
  const hiC = inv(sqrtBounds(mul(TWO, PI_LOW), bits + 8)[0]);
  const loC = inv(sqrtBounds(mul(TWO, PI_HIGH), bits + 8)[1]);
  const tolerance = BigInt(bits + 8); // 2^-tolerance
  const [a, b] = x;
  if (cmp(x, [3n, 1n]) <= 0) {
    // term = T/D and total = S/D over one growing denominator D: the same rationals as
    // term = term x^2 (2n - 1) / (2n (2n + 1)), total -/+= term
    const a2 = a * a;
    const b2 = b * b;
    let D = b;
    let T = a;
    let S = a;
    let previous;
    let n = 0n;
    for (;;) {
      n += 1n;
      const factor = b2 * 2n * n * (2n * n + 1n);
      D *= factor;
      T *= a2 * (2n * n - 1n);
      previous = S * factor;
      S = n % 2n === 1n ? previous - T : previous + T;
      if (n >= 4n && T << tolerance < D) break;
    }
    let lowS = previous < S ? previous : S;
    const highS = previous < S ? S : previous;
    if (lowS < 0n) lowS = 0n;
    return [sub(HALF, mul(hiC, [highS, D])), sub(HALF, mul(loC, [lowS, D]))];
  }
  const halfSquare = mul(mul(x, x), HALF);
  if (cmp(halfSquare, [BigInt(MAX_EXPONENT), 1n]) > 0) return [ZERO, [1n, 1n << 2800n]];
  const [expLo, expHi] = expBounds(neg(halfSquare), bits + 8);
  let depth = 8;
  let lowR;
  let highR;
  for (;;) {
    const convergents = [];
    for (const size of [depth, depth + 1]) {
      let p = 0n; // tail = p / q
      let q = 1n;
      for (let j = size; j >= 1; j--) {
        // tail = j / (x + tail) = j b q / (a q + p b)
        const next = a * q + p * b;
        p = BigInt(j) * b * q;
        q = next;
      }
      convergents.push([b * q, a * q + p * b]); // 1 / (x + tail)
    }
    [lowR, highR] = cmp(convergents[0], convergents[1]) <= 0 ? convergents : [convergents[1], convergents[0]];
    const gap = sub(highR, lowR);
    if (cmp([gap[0] << tolerance, gap[1]], lowR) <= 0 || depth > 4096) break;
    depth *= 2;
  }
  return [mul(mul(loC, expLo), lowR), mul(mul(hiC, expHi), highR)];
}

// Rationals bounding the standard normal distribution function at the rational x.
function phiBounds(x, bits) {
  if (sign(x) <= 0) return phiLowerTail(neg(x), bits);
  const [lo, hi] = phiLowerTail(x, bits);
  return [sub(ONE, hi), sub(ONE, lo)];
}

// Whether Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) <= delta, certified (the mu-GDP
// privacy profile of Dong, Roth and Su 2022); false when it cannot be shown.
// Bounds [lo, hi] on e^t for t >= 0; beyond t = 2000, lo = e^2000 (still a lower bound) and
// hi = null (unbounded).
function expRange(t, bits) {
  const limit = [BigInt(MAX_EXPONENT), 1n];
  if (cmp(t, limit) <= 0) return expBounds(t, bits);
  return [expBounds(limit, bits)[0], null];
}

function gaussianDeltaWithin(mu, epsilon, delta) {
  const half = mul(mu, HALF);
  const a = sub(half, div(epsilon, mu));
  const b = sub(neg(half), div(epsilon, mu));
  for (const bits of [64, 128, 256]) {
    const phiA = phiBounds(a, bits);
    const phiB = phiBounds(b, bits);
    const [expLo, expHi] = expRange(epsilon, bits);
    const upper = sub(phiA[1], mul(expLo, phiB[0]));
    if (cmp(upper, delta) <= 0) return true;
    if (expHi !== null && cmp(sub(phiA[0], mul(expHi, phiB[1])), delta) > 0) return false;
  }
  return false;
}

// ---------------------------------------------------------------------------- the checks
// `owner[key]` read as Python's checks read it; `name` is how messages call it.
function exact(owner, key, name) {
  const value = own(owner, key);
  if (typeof value !== "number") throw new RangeError(`the protocol's ${name} must be a number`);
  const kind = kindOf(owner, key);
  if (typeof kind === "bigint") return [kind, 1n];
  if (!Number.isFinite(value)) throw new RangeError(`the protocol's ${name} must be finite`);
  return fromDouble(value);
}

function integer(owner, key, name, low, high = TWO_53) {
  const value = own(owner, key);
  const kind = kindOf(owner, key);
  const exactValue = typeof kind === "bigint" ? kind : value;
  if (!isInt(owner, key) || !(low <= exactValue && exactValue <= high)) {
    throw new RangeError(`the protocol's ${name} must be an integer in ${low} .. ${high}`);
  }
  return value;
}

function positive(owner, key, name) {
  const out = exact(owner, key, name);
  if (sign(out) <= 0) throw new RangeError(`the protocol's ${name} must be positive`);
  return out;
}

// The probabilities of the weights sampler[key] (exact rationals).
function weights(sampler, key, count = 2) {
  const list = isDict(sampler) ? own(sampler, key) : undefined;
  if (!Array.isArray(list) || list.length !== count) {
    throw new RangeError(`the protocol's sampler.${key} must be a list of ${count} weights`);
  }
  const values = list.map((_, i) => exact(list, i, `sampler.${key}`));
  let total = ZERO;
  for (const w of values) total = add(total, w);
  if (values.some((w) => sign(w) < 0) || sign(total) === 0) {
    throw new RangeError(`the protocol's sampler.${key} must be non-negative, not all zero`);
  }
  return values.map((w) => div(w, total));
}

// Likelihood ratios are rationals, or null for an infinite one.
// a / b for probabilities; null (infinite) when only b is zero.
function ratio(a, b) {
  if (sign(b) === 0) return sign(a) > 0 ? null : ONE;
  return div(a, b);
}

// The largest ratio (null is infinite).
function largest(...ratios) {
  if (ratios.some((r) => r === null)) return null;
  return ratios.reduce(max);
}

// max(p/q, q/p): the ratio of one report probability under two inputs.
function twoSided(p, q) {
  return largest(ratio(p, q), ratio(q, p));
}

// Keep with probability `keep`, else one of `outputs - 1` others uniformly.
function randomizedResponse(keep, outputs) {
  return twoSided(mul(keep, [BigInt(outputs - 1), 1n]), sub(ONE, keep));
}

// Two inputs change two independent bits: `own` and `other` are the probabilities of a 1 for
// the input's own bit and for any other bit.
function unaryRatio(ownBit, other) {
  const up = largest(ratio(ownBit, other), ratio(sub(ONE, ownBit), sub(ONE, other)));
  const down = largest(ratio(other, ownBit), ratio(sub(ONE, other), sub(ONE, ownBit)));
  if (up === null || down === null) return null;
  return mul(up, down);
}

// Two inputs change one bit (the other input's bit is not reported).
function oneBitRatio(ownBit, other) {
  return largest(twoSided(ownBit, other), twoSided(sub(ONE, ownBit), sub(ONE, other)));
}

function categorical(proto, k) {
  const domain = proto.domain;
  if (own(domain, "type") !== "categorical" || !equals(domain, "k", k)) {
    throw new RangeError(`${proto[ID]}: the domain must be ${k} categories`);
  }
}

function numeric(proto, dimension = 1) {
  const domain = proto.domain;
  if (own(domain, "type") !== "interval" || !equals(domain, "dimension", dimension)) {
    throw new RangeError(`${proto[ID]}: the domain must be an interval of dimension ${dimension}`);
  }
}

function ball(proto, d, radius) {
  const domain = proto.domain;
  if (
    own(domain, "type") !== "ball" ||
    !equals(domain, "dimension", d) ||
    cmp(exact(domain, "radius", "domain.radius"), radius) !== 0
  ) {
    throw new RangeError(`${proto[ID]}: the domain must be the ball of the mechanism`);
  }
}

function params(proto) {
  const out = own(proto.mechanism, "params");
  if (!isDict(out)) throw new RangeError("the protocol's mechanism.params must be an object");
  return out;
}

function step(sampler) {
  positive(sampler, "step", "sampler.step");
}

// Each returns [ratio or null, level or null, extra]: the privacy of one report as the
// largest likelihood ratio (null: infinite) or as a level epsilon itself, and for memoized
// mechanisms the ratio of the permanent response.

// The rows of a channel's matrix as integers W[x][z] with P(z|x) = W[x][z] / S[x], and the
// doubles the file holds.
function checkChannel(proto) {
  const matrix = own(params(proto), "matrix");
  if (!Array.isArray(matrix) || matrix.length < 2) {
    throw new RangeError("channel: params.matrix must be a list of at least 2 rows");
  }
  const width = Array.isArray(matrix[0]) ? matrix[0].length : 0;
  if (width < 1 || matrix.some((row) => !Array.isArray(row) || row.length !== width)) {
    throw new RangeError("channel: the rows of params.matrix must be lists of one length");
  }
  categorical(proto, matrix.length);
  const W = [];
  const S = [];
  for (const row of matrix) {
    const parts = row.map((_, z) => {
      const value = exact(row, z, "params.matrix");
      const kind = kindOf(row, z);
      return typeof kind === "bigint" ? [kind, 0] : dyadic(row[z]);
    });
    const [, exponent] = dyadicSum(parts);
    const integers = parts.map(([m, e]) => m << BigInt(e - exponent));
    const total = integers.reduce((s, w) => s + w, 0n);
    if (integers.some((w) => w < 0n) || total === 0n) {
      throw new RangeError("channel: a row of params.matrix is negative or all zero");
    }
    W.push(integers);
    S.push(total);
  }
  return { W, S, floats: matrix };
}

function channelTooLarge() {
  return new RangeError("channel: params.matrix holds numbers too large for doubles");
}

// The correctly rounded sum of doubles (Python's math.fsum).
function fsum(values) {
  if (!values.every(Number.isFinite)) throw channelTooLarge();
  const out = toDouble(dyadicValue(dyadicSum(values.map(dyadic))));
  if (!Number.isFinite(out)) throw channelTooLarge();
  return out;
}

function channelRatio({ W, S, floats }) {
  const totals = floats.map(fsum);
  let worst = ONE;
  for (let z = 0; z < W[0].length; z++) {
    const column = floats.map((row, x) => row[z] / totals[x]);
    const high = Math.max(...column);
    const low = Math.min(...column);
    let tops;
    let bottoms;
    if (low < 1e-280) {
      // near underflow: every row is a candidate
      tops = bottoms = W.map((_, x) => x);
    } else {
      tops = column.flatMap((v, x) => (v >= high * (1 - 1e-9) ? [x] : []));
      bottoms = column.flatMap((v, x) => (v <= low * (1 + 1e-9) ? [x] : []));
    }
    const top = tops.map((x) => [W[x][z], S[x]]).reduce(max);
    const bottom = bottoms.map((x) => [W[x][z], S[x]]).reduce((a, b) => (cmp(a, b) <= 0 ? a : b));
    if (sign(bottom) === 0) {
      if (sign(top) > 0) return null;
      continue;
    }
    worst = max(worst, div(top, bottom));
  }
  return worst;
}

// Whether max over x, x' of sum_z max(0, P(z|x) - e^eps P(z|x')) <= delta, exactly.
function channelDeltaWithin({ W, S }, epsilon, delta) {
  const k = W.length;
  const m = W[0].length;
  if (k * k * m > 1 << 22) {
    throw new RangeError("channel: too large to verify a delta > 0 on a device (k^2 m > 2^22)");
  }
  const [dn, dd] = delta;
  for (const bits of [64, 256, 1024]) {
    const [[lowN, lowD], high] = expRange(epsilon, bits);
    const bounded = high !== null;
    const [highN, highD] = bounded ? high : [0n, 1n];
    // with P = W / S: sum_z max(0, W_xz/S_x - (N/D) W_yz/S_y)
    //   = sum_z max(0, W_xz S_y D - N W_yz S_x) / (S_x S_y D)
    let upperWithin = true;
    let lowerAbove = false;
    for (let x = 0; x < k; x++) {
      for (let y = 0; y < k; y++) {
        if (x === y) continue;
        let upper = 0n;
        let lower = 0n;
        for (let z = 0; z < m; z++) {
          const a = W[x][z] * S[y];
          const b = W[y][z] * S[x];
          const u = a * lowD - lowN * b;
          if (u > 0n) upper += u;
          if (bounded) {
            const v = a * highD - highN * b;
            if (v > 0n) lower += v;
          }
        }
        const scale = dn * S[x] * S[y];
        if (upper * dd > scale * lowD) upperWithin = false;
        if (bounded && lower * dd > scale * highD) lowerAbove = true;
      }
    }
    if (upperWithin) return true;
    if (lowerAbove) return false;
  }
  return false;
}

function checkGrr(proto) {
  const k = integer(params(proto), "k", "params.k", 2);
  categorical(proto, k);
  const keep = weights(proto.sampler, "keep")[0];
  return [randomizedResponse(keep, k), null, null];
}

function checkUnary(proto) {
  const k = integer(params(proto), "k", "params.k", 2);
  categorical(proto, k);
  const ownBit = weights(proto.sampler, "own")[0];
  const other = weights(proto.sampler, "other")[0];
  return [unaryRatio(ownBit, other), null, null];
}

function isPrime(p) {
  for (let f = 2; f * f <= p; f++) if (p % f === 0) return false;
  return true;
}

function checkLocalHashing(proto) {
  const k = integer(params(proto), "k", "params.k", 2);
  categorical(proto, k);
  const sampler = proto.sampler;
  const g = integer(sampler, "g", "sampler.g", 2);
  const family = own(sampler, "hash");
  if (!isDict(family)) throw new RangeError("the protocol's sampler.hash must be an object");
  const fields = own(family, "fields");
  const words = own(family, "words");
  if (!Array.isArray(fields) || fields.length === 0 || !Array.isArray(words)) {
    throw new RangeError("the protocol's sampler.hash must have fields and words");
  }
  fields.forEach((_, i) => integer(fields, i, "sampler.hash.fields", 1));
  const used = [];
  for (const word of words) {
    if (!Array.isArray(word) || word.length === 0) {
      throw new RangeError("the protocol's sampler.hash.words must be lists of field indices");
    }
    let size = 1n;
    word.forEach((_, j) => {
      const i = integer(word, j, "sampler.hash.words", 0, fields.length - 1);
      size *= BigInt(fields[i]);
      used.push(i);
    });
    if (size > 2n ** 53n) throw new RangeError("the protocol's sampler.hash packs a word above 2^53");
  }
  used.sort((a, b) => a - b);
  if (used.length !== fields.length || used.some((i, j) => i !== j)) {
    throw new RangeError("the protocol's sampler.hash.words must use every field once");
  }
  const kind = own(family, "family");
  if (kind === "ring") {
    const bits = integer(family, "bits", "sampler.hash.bits", 1, 64);
    if (!equals(family, "modulus", g) || fields.length !== bits + 1) {
      throw new RangeError("the ring hash must have modulus g and bits + 1 fields");
    }
  } else if (kind === "field") {
    const p = integer(family, "prime", "sampler.hash.prime", 2, 1 << 26);
    const power = integer(family, "power", "sampler.hash.power", 1, 64);
    const digits = integer(family, "digits", "sampler.hash.digits", 1, 64);
    if (!isPrime(p) || BigInt(p) ** BigInt(power) !== BigInt(g)) {
      throw new RangeError("the field hash must have a prime p with p^power = g");
    }
    const row = BigInt(p) ** BigInt(digits);
    if (
      fields.length !== power + 1 ||
      fields[power] !== g ||
      fields.slice(0, power).some((size) => BigInt(size) !== row)
    ) {
      throw new RangeError("the field hash must have power rows of p^digits and then g");
    }
  } else {
    throw new RangeError("the protocol's sampler.hash.family must be 'ring' or 'field'");
  }
  const keep = weights(sampler, "keep")[0];
  return [randomizedResponse(keep, g), null, null];
}

function checkHadamard(proto) {
  const k = integer(params(proto), "k", "params.k", 2);
  categorical(proto, k);
  const big = BigInt(integer(proto.sampler, "K", "sampler.K", 2));
  if ((big & (big - 1n)) !== 0n || big <= BigInt(k)) {
    throw new RangeError("hadamard-response: sampler.K must be a power of two above k");
  }
  const keep = weights(proto.sampler, "keep")[0];
  return [twoSided(keep, sub(ONE, keep)), null, null];
}

function checkSubset(proto) {
  const sampler = proto.sampler;
  const k = integer(params(proto), "k", "params.k", 2);
  categorical(proto, k);
  const d = integer(sampler, "d", "sampler.d", 1, k - 1);
  if (Object.hasOwn(sampler, "members") && sampler.members !== "rejection") {
    throw new RangeError("subset-selection: sampler.members must be 'rejection'");
  }
  if (Object.hasOwn(sampler, "bernoulli_bits")) {
    integer(sampler, "bernoulli_bits", "sampler.bernoulli_bits", 0, 3);
  }
  const include = weights(sampler, "include")[0];
  // a subset holding x has probability include / C(k-1, d-1) under x and
  // (1 - include) / C(k-1, d) under x' (it then does not hold x'): ratio include (k-d) / d
  return [
    twoSided(mul(include, [BigInt(k - d), 1n]), mul(sub(ONE, include), [BigInt(d), 1n])),
    null,
    null,
  ];
}

function checkCoin(sampler) {
  const keep = weights(sampler, "keep")[0];
  return twoSided(keep, sub(ONE, keep));
}

function checkDuchi(proto) {
  const d = integer(params(proto), "d", "params.d", 1, 2 ** 31);
  numeric(proto, d);
  return [checkCoin(proto.sampler), null, null];
}

function checkDuchiL2(proto) {
  const p = params(proto);
  const d = integer(p, "d", "params.d", 1, 2 ** 31);
  ball(proto, d, positive(p, "radius", "params.radius"));
  positive(proto.sampler, "bound", "sampler.bound");
  return [checkCoin(proto.sampler), null, null];
}

function checkLaplace(proto) {
  numeric(proto);
  step(proto.sampler);
  const scale = positive(proto.sampler, "scale", "sampler.scale");
  return [null, div(TWO, scale), null]; // density ratio e^(|x - x'| / scale), |x - x'| <= 2
}

function piecewiseRatio(sampler) {
  if (!isDict(sampler)) throw new RangeError("the protocol's piecewise constants must be an object");
  step(sampler);
  const c = exact(sampler, "C", "sampler.C");
  const width = exact(sampler, "width", "sampler.width");
  if (!(cmp(c, ONE) > 0) || cmp(width, sub(c, ONE)) !== 0) {
    throw new RangeError("piecewise: sampler.C must exceed 1 and sampler.width be C - 1");
  }
  const keep = weights(sampler, "keep")[0];
  // the window (length width) has mass keep, the tails (length C + 1) the rest
  return twoSided(mul(keep, add(c, ONE)), mul(sub(ONE, keep), width));
}

function checkPiecewise(proto) {
  numeric(proto);
  return [piecewiseRatio(proto.sampler), null, null];
}

function checkHybrid(proto) {
  numeric(proto);
  const sampler = proto.sampler;
  positive(sampler, "bound", "sampler.bound");
  const duchiConstants = own(sampler, "duchi");
  if (!isDict(duchiConstants)) throw new RangeError("hybrid: sampler.duchi must be an object");
  const ratios = [checkCoin(duchiConstants)];
  const mix = own(sampler, "mix");
  if (mix !== null && mix !== undefined) {
    weights(sampler, "mix");
    ratios.push(piecewiseRatio(own(sampler, "piecewise")));
  }
  return [largest(...ratios), null, null]; // a mixture is no worse than its worst part
}

function checkSquareWave(proto) {
  numeric(proto);
  const sampler = proto.sampler;
  step(sampler);
  const b = positive(sampler, "b", "sampler.b");
  const near = weights(sampler, "keep")[0];
  // mass near on [v - b, v + b] (length 2b), the rest on length 1
  return [twoSided(near, mul(mul(sub(ONE, near), TWO), b)), null, null];
}

function checkStaircase(proto) {
  numeric(proto);
  const sampler = proto.sampler;
  step(sampler);
  const b = exact(sampler, "b", "sampler.b");
  const p0 = exact(sampler, "p0", "sampler.p0");
  const gamma = exact(sampler, "gamma", "sampler.gamma");
  const sensitivity = exact(sampler, "sensitivity", "sampler.sensitivity");
  const within = (v) => sign(v) >= 0 && cmp(v, ONE) <= 0;
  if (!(sign(b) > 0 && cmp(b, ONE) < 0 && within(p0) && within(gamma) && cmp(sensitivity, TWO) >= 0)) {
    throw new RangeError("staircase: needs 0 < b < 1, p0 and gamma in [0, 1], sensitivity >= 2");
  }
  if (cmp(sub(ONE, b), [1n, 1n << 24n]) < 0) {
    throw new RangeError("staircase: sampler.b is so close to 1 that sampling would not end");
  }
  if (sign(gamma) === 0 || cmp(gamma, ONE) === 0) {
    if (cmp(p0, gamma) !== 0) throw new RangeError("staircase: a step of zero width must have no mass");
    return [inv(b), null, null];
  }
  // density levels along |noise|: b^g p0/gamma, then b^g (1-p0)/(1-gamma); two points at
  // most `sensitivity` apart are in one step, adjacent steps or the same step of the next
  // period
  const low = div(p0, gamma);
  const high = div(sub(ONE, p0), sub(ONE, gamma));
  if (sign(low) === 0 || sign(high) === 0) return [null, null, null];
  return [
    [inv(b), div(low, high), div(high, low), div(high, mul(b, low)), div(mul(b, low), high)].reduce(max),
    null,
    null,
  ];
}

function checkGaussian(proto) {
  numeric(proto);
  step(proto.sampler);
  return [null, null, div(TWO, positive(proto.sampler, "sigma", "sampler.sigma"))];
}

function checkItems(proto) {
  if (own(proto.domain, "type") !== "items") {
    throw new RangeError(`${proto[ID]}: the domain must be items`);
  }
  const p = params(proto);
  const width = integer(p, "width", "params.width", 1, 1 << 24);
  integer(p, "depth", "params.depth", 1, 1 << 24);
  if (typeof own(p, "salt") !== "string") {
    throw new RangeError("the protocol's params.salt must be a string");
  }
  return width;
}

function checkCms(proto) {
  const width = checkItems(proto);
  const ownBit = weights(proto.sampler, "own")[0];
  const other = weights(proto.sampler, "other")[0];
  return [width > 1 ? unaryRatio(ownBit, other) : ONE, null, null];
}

function checkHcms(proto) {
  const width = checkItems(proto);
  if ((width & (width - 1)) !== 0) throw new RangeError("hcms: params.width must be a power of two");
  return [checkCoin(proto.sampler), null, null];
}

const UNCERTIFIED = Symbol("uncertified");

function checkUncertified(proto) {
  const p = params(proto);
  const d = integer(p, "d", "params.d", 2, 1 << 24);
  ball(proto, d, positive(p, "radius", "params.radius"));
  return [UNCERTIFIED, null, null];
}

function checkLgrr(proto) {
  const k = integer(params(proto), "k", "params.k", 2);
  categorical(proto, k);
  const p1 = weights(proto.sampler, "permanent")[0];
  const p2 = weights(proto.sampler, "instant")[0];
  // the two rounds make one k-RR
  const same = add(mul(p1, p2), div(mul(sub(ONE, p1), sub(ONE, p2)), [BigInt(k - 1), 1n]));
  return [randomizedResponse(same, k), null, randomizedResponse(p1, k)];
}

function checkMemoUnary(proto) {
  const k = integer(params(proto), "k", "params.k", 2);
  categorical(proto, k);
  const sampler = proto.sampler;
  const ownBit = weights(sampler, "own")[0];
  const other = weights(sampler, "other")[0];
  const one = weights(sampler, "one")[0];
  const zero = weights(sampler, "zero")[0];
  const reportedOwn = add(mul(ownBit, one), mul(sub(ONE, ownBit), zero));
  const reportedOther = add(mul(other, one), mul(sub(ONE, other), zero));
  return [unaryRatio(reportedOwn, reportedOther), null, unaryRatio(ownBit, other)];
}

function checkDBitFlip(proto) {
  const p = params(proto);
  const k = integer(p, "k", "params.k", 2);
  const b = integer(p, "b", "params.b", 1, k);
  const d = integer(p, "d", "params.d", 1, b);
  categorical(proto, k);
  const ownBit = weights(proto.sampler, "own")[0];
  const other = weights(proto.sampler, "other")[0];
  let out;
  if (b === 1) out = ONE;
  else if (d === 1) out = oneBitRatio(ownBit, other);
  else out = largest(unaryRatio(ownBit, other), oneBitRatio(ownBit, other));
  return [out, null, out]; // no fresh noise per round: a report is its permanent part
}

const CHECKS = new Map([
  ["channel", null], // special: a delta > 0 can be stated
  ["grr", checkGrr],
  ["unary-encoding", checkUnary],
  ["sue", checkUnary],
  ["oue", checkUnary],
  ["local-hashing", checkLocalHashing],
  ["olh", checkLocalHashing],
  ["blh", checkLocalHashing],
  ["hadamard-response", checkHadamard],
  ["subset-selection", checkSubset],
  ["duchi", checkDuchi],
  ["duchi-l2", checkDuchiL2],
  ["laplace", checkLaplace],
  ["piecewise", checkPiecewise],
  ["hybrid", checkHybrid],
  ["square-wave", checkSquareWave],
  ["staircase", checkStaircase],
  ["gaussian", checkGaussian],
  ["cms", checkCms],
  ["hcms", checkHcms],
  ["privunit", checkUncertified],
  ["privunitg", checkUncertified],
  ["l-grr", checkLgrr],
  ["l-osue", checkMemoUnary],
  ["l-oue", checkMemoUnary],
  ["rappor", checkMemoUnary],
  ["dbitflip-pm", checkDBitFlip],
]);

const MEMO_NAMES = ["l-grr", "l-osue", "l-oue", "rappor", "dbitflip-pm"];

function stated(proto) {
  const privacy = proto.privacy;
  if (!isDict(privacy)) throw new RangeError("the protocol's privacy must be an object");
  const epsilon = exact(privacy, "epsilon", "privacy.epsilon");
  const delta = exact(privacy, "delta", "privacy.delta");
  if (sign(epsilon) < 0 || sign(delta) < 0 || cmp(delta, ONE) >= 0) {
    throw new RangeError("the protocol's privacy needs epsilon >= 0 and delta in [0, 1)");
  }
  return [epsilon, delta];
}

function refuse(proto, computed, statedText) {
  return new RangeError(
    `${proto[ID]}: the sampler constants give ${computed} (computed on this device), above ` +
      `the ${statedText} the protocol states: refused`,
  );
}

// The privacy of one report, computed from the constants this client will use.
function devicePrivacy(proto) {
  const name = proto[ID];
  if (!isDict(proto.sampler)) throw new RangeError("the protocol's sampler must be an object");
  const [epsilon, delta] = stated(proto);
  const out = { mechanism: name, delta: toDouble(delta), certified: true };
  const statedEpsilon = `epsilon = ${pyFloat(toDouble(epsilon))}`;
  if (name === "channel") {
    const rows = checkChannel(proto);
    if (sign(delta) === 0) {
      const worst = channelRatio(rows);
      if (worst !== null && compareExp(worst, epsilon) <= 0) {
        out.epsilon = logUp(worst);
        return out;
      }
      throw refuse(proto, `epsilon = ${pyFloat(logUp(worst))}`, statedEpsilon);
    }
    if (!channelDeltaWithin(rows, epsilon, delta)) {
      throw refuse(
        proto,
        `a delta above ${pyFloat(toDouble(delta))} at ${statedEpsilon}`,
        `delta = ${pyFloat(toDouble(delta))}`,
      );
    }
    out.epsilon = toDouble(epsilon);
    return out;
  }
  const [worst, level, extra] = CHECKS.get(name)(proto);
  if (worst === UNCERTIFIED) {
    out.epsilon = toDouble(epsilon);
    out.certified = false;
    return out;
  }
  if (name === "gaussian") {
    const mu = extra;
    if (sign(delta) === 0 || !gaussianDeltaWithin(mu, epsilon, delta)) {
      throw refuse(
        proto,
        `mu = ${pyFloat(floatUp(mu))} (delta above the stated one at ${statedEpsilon})`,
        `delta = ${pyFloat(toDouble(delta))}`,
      );
    }
    out.epsilon = toDouble(epsilon);
    out.mu = floatUp(mu);
    return out;
  }
  if (level !== null) {
    if (cmp(level, epsilon) > 0) throw refuse(proto, `epsilon = ${pyFloat(floatUp(level))}`, statedEpsilon);
    out.epsilon = floatUp(level);
  } else {
    if (worst === null || compareExp(worst, epsilon) > 0) {
      throw refuse(proto, `epsilon = ${pyFloat(logUp(worst))}`, statedEpsilon);
    }
    out.epsilon = logUp(worst);
  }
  if (MEMO_NAMES.includes(name)) out.epsilon_permanent = logUp(extra);
  return out;
}

// What the sampler reads of the answers' domain beyond what the checks above constrain:
// refused here, before anything is drawn (see the header).
function checkAnswers(proto) {
  const domain = proto.domain;
  if (domain.type === "categorical") {
    const labels = own(domain, "labels");
    if (
      labels !== null &&
      !(Array.isArray(labels) && labels.length === domain.k && labels.every((l) => labelKey(l) !== null))
    ) {
      throw new RangeError(
        `the protocol's domain.labels must be null or a list of ${domain.k} labels (strings, ` +
          "finite numbers or booleans)",
      );
    }
  } else if (domain.type === "interval") {
    const low = own(domain, "low");
    const high = own(domain, "high");
    if (typeof low !== "number" || typeof high !== "number" || !(low < high)) {
      throw new RangeError("the protocol's domain.low and domain.high must be numbers, low < high");
    }
  }
}

// ---------------------------------------------------------------------------- the protocol
const ID = Symbol("mechanism id");
const PIN = Symbol("pin");
const PRIVACY = Symbol("device privacy");
const CACHE = Symbol("laws");
const GROUPS = Symbol("marginal groups");

// A checked protocol: the document's fields (frozen), and under symbols its canonical
// mechanism id, its pin (64 hex digits) and the privacy this client computed.
class LoadedProtocol {
  // `marginals` (a marginals protocol): its checked groups and the privacy computed of them.
  constructor(document, id, pin, marginals = null) {
    for (const [key, value] of Object.entries(document)) {
      Object.defineProperty(this, key, { value, enumerable: true });
    }
    const kinds = KINDS.get(document);
    if (kinds !== undefined) KINDS.set(this, kinds);
    Object.defineProperty(this, ID, { value: id });
    Object.defineProperty(this, PIN, { value: pin });
    Object.defineProperty(this, CACHE, { value: new Map() });
    if (marginals === null) {
      Object.defineProperty(this, PRIVACY, { value: Object.freeze(devicePrivacy(this)) });
      checkAnswers(this);
    } else {
      Object.defineProperty(this, PRIVACY, { value: Object.freeze(marginals.privacy) });
      Object.defineProperty(this, GROUPS, { value: Object.freeze(marginals.groups) });
    }
    Object.freeze(this);
  }
}

// The exact law of `weights` for the protocol's draws, computed once per protocol.
function law(proto, key, weightList) {
  const cache = proto[CACHE];
  let out = cache.get(key);
  if (out === undefined) {
    out = exactLaw(weightList);
    cache.set(key, out);
  }
  return out;
}

/**
 * The protocol, checked and ready to be passed to `privatize` many times.
 *
 * Refuses (one line) a file above MAX_PROTOCOL_BYTES or nested deeper than MAX_DEPTH,
 * repeated keys, a version other than 1 or 2 (an integer), a missing field, a fingerprint
 * that does not match the content, an unknown mechanism, constants this client cannot
 * sample, and constants whose privacy (computed here, exactly) exceeds the privacy the file
 * states.
 *
 * @param protocol the protocol file's JSON text (a string, or its UTF-8 bytes; preferred:
 *   repeated keys are caught only in text, and a version-1 file is read only from its text)
 *   or its parsed object.
 * @returns a frozen object with the protocol's fields (`question`, `domain`, `privacy`,
 *   `fingerprint`, ...): pass it to `verify` and `privatize` to skip checking it again.
 */
export function loadProtocol(protocol) {
  if (protocol instanceof LoadedProtocol) return protocol;
  const { document, fromText } = parse(protocol);
  return loadDocument(document, fromText);
}

function loadDocument(document, fromText) {
  if (own(document, "format") !== FORMAT) {
    throw new RangeError("not an ldp protocol file (its format is not 'ldp-protocol')");
  }
  const version = own(document, "version");
  if (!isInt(document, "version") || !VERSIONS.includes(version)) {
    const text = pyPrefix(pyStr(version, kindOf(document, "version")), 20);
    throw new RangeError(
      `unsupported protocol version ${pyRepr(text)}; this client reads versions 1 and 2 (integers)`,
    );
  }
  for (const key of REQUIRED) {
    if (!Object.hasOwn(document, key)) throw new RangeError(`the protocol lacks its ${pyRepr(key)} field`);
  }
  const contentHash = hashHex(document, fromText);
  if (contentHash.slice(0, 16) !== document.fingerprint) {
    throw new RangeError("the protocol's fingerprint does not match its content");
  }
  if (!isDict(document.mechanism) || !isDict(document.domain)) {
    throw new RangeError("the protocol's mechanism and domain must be objects");
  }
  const name = own(document.mechanism, "name");
  if (Array.isArray(name) || isDict(name)) {
    throw new TypeError(`unhashable type: '${Array.isArray(name) ? "list" : "dict"}'`);
  }
  if (name === MARGINALS && version === 2) return loadMarginals(document, fromText, contentHash);
  const canonical = version === 1 ? (typeof name === "string" ? V1.get(name) : undefined) : name;
  if (typeof canonical !== "string" || !CHECKS.has(canonical)) {
    const text = pyPrefix(pyStr(name, kindOf(document.mechanism, "name")), 40);
    throw new RangeError(`unknown mechanism ${pyRepr(text)}`);
  }
  return new LoadedProtocol(document, canonical, contentHash);
}

// ---------------------------------------------------------------------------- marginals
// A marginals protocol: a row of a table; one group of its columns drawn uniformly on the
// device; that group's cell (or the parity of its binary columns) through the group's own
// protocol. The report is the group index followed by the group's fields.
export const MARGINALS = "marginals";
export const MAX_COLUMNS = 256;
export const MAX_GROUPS = 4096;
const MARGINAL_METHODS = ["joint", "groups", "fourier"];
const DOCUMENT_KEYS = [
  "format", "version", "question", "domain", "mechanism", "sampler", "report", "privacy", "fingerprint",
];

function sameKeys(value, keys) {
  const mine = Object.keys(value);
  return mine.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

function tableColumns(domain) {
  const columns = own(domain, "type") === "table" ? own(domain, "columns") : undefined;
  if (!sameKeys(domain, ["type", "columns"]) || !Array.isArray(columns)) {
    throw new RangeError("a marginals protocol's domain must be {'type': 'table', 'columns': [...]}");
  }
  if (!(columns.length >= 1 && columns.length <= MAX_COLUMNS)) {
    throw new RangeError(`a marginals protocol must have 1 .. ${MAX_COLUMNS} columns`);
  }
  const names = new Set();
  columns.forEach((column, j) => {
    if (!isDict(column) || !sameKeys(column, ["name", "k", "labels"])) {
      throw new RangeError(`the protocol's domain.columns[${j}] must have name, k and labels`);
    }
    if (typeof column.name !== "string" || names.has(column.name)) {
      throw new RangeError(`the protocol's domain.columns[${j}].name must be a new string`);
    }
    names.add(column.name);
    const k = integer(column, "k", `domain.columns[${j}].k`, 1);
    const labels = column.labels;
    if (
      labels !== null &&
      !(
        Array.isArray(labels) &&
        labels.length === k &&
        labels.every((label) => labelKey(label) !== null) &&
        new Set(labels.map((label) => `${labelKey(label)}:${String(label)}`)).size === k
      )
    ) {
      throw new RangeError(
        `the protocol's domain.columns[${j}].labels must be null or a list of ${k} distinct labels ` +
          "(strings, finite numbers or booleans)",
      );
    }
  });
  return columns;
}

function columnIndices(value, count, name) {
  if (!Array.isArray(value) || value.length === 0) {
    throw new RangeError(`the protocol's ${name} must be a non-empty list of column indices`);
  }
  for (let i = 0; i < value.length; i++) {
    if (!isInt(value, i) || !(value[i] >= 0 && value[i] < count)) {
      throw new RangeError(`the protocol's ${name} names a column outside 0 .. ${count - 1}`);
    }
  }
  if (new Set(value).size !== value.length) throw new RangeError(`the protocol's ${name} repeats a column`);
  return value;
}

// Every group's protocol is checked as a protocol of its own (fingerprint and privacy,
// computed here); the file's stated privacy must be at least the largest group's (the group
// is drawn independently of the row, so it adds nothing).
function loadMarginals(document, fromText, contentHash) {
  if (!sameKeys(document, DOCUMENT_KEYS)) {
    throw new RangeError("a marginals protocol has exactly the fields of a protocol file");
  }
  const columns = tableColumns(document.domain);
  const params = own(document.mechanism, "params");
  if (!sameKeys(document.mechanism, ["name", "params"]) || !isDict(params)) {
    throw new RangeError("the protocol's mechanism must be {'name': 'marginals', 'params': ...}");
  }
  if (!sameKeys(params, ["method", "tables", "epsilon"]) || !MARGINAL_METHODS.includes(params.method)) {
    throw new RangeError(
      "the protocol's mechanism.params must be a method ('joint', 'groups' or 'fourier'), tables and epsilon",
    );
  }
  if (!Array.isArray(params.tables) || params.tables.length === 0) {
    throw new RangeError("the protocol's mechanism.params.tables must be a non-empty list");
  }
  params.tables.forEach((table, t) => columnIndices(table, columns.length, `mechanism.params.tables[${t}]`));
  const sampler = document.sampler;
  if (!isDict(sampler) || !sameKeys(sampler, ["draw", "groups"])) {
    throw new RangeError("the protocol's sampler must be {'draw': 'uniform', 'groups': [...]}");
  }
  if (sampler.draw !== "uniform") throw new RangeError("the protocol's sampler.draw must be 'uniform'");
  const groups = sampler.groups;
  if (!Array.isArray(groups) || !(groups.length >= 1 && groups.length <= MAX_GROUPS)) {
    throw new RangeError(`the protocol's sampler.groups must be a list of 1 .. ${MAX_GROUPS}`);
  }
  const field = { name: "group", type: "int", min: 0, max: groups.length - 1 };
  if (!sameCanonical(document.report, { fields: [field] })) {
    throw new RangeError("the protocol's report must be {'fields': [the group field, 0 .. groups - 1]}");
  }
  const [epsilon, delta] = stated(document);
  const loaded = [];
  let largest = ZERO;
  groups.forEach((group, g) => {
    const where = `sampler.groups[${g}]`;
    if (!isDict(group) || !sameKeys(group, ["columns", "input", "protocol"])) {
      throw new RangeError(`the protocol's ${where} must have columns, input and protocol`);
    }
    const cols = columnIndices(group.columns, columns.length, `${where}.columns`);
    const inner = group.protocol;
    if (!isDict(inner) || own(inner, "version") !== 2) {
      throw new RangeError(`the protocol's ${where}.protocol must be a version-2 protocol object`);
    }
    let sub;
    try {
      if (valueDepth(inner) > MAX_DEPTH) throw tooDeep();
      sub = loadDocument(inner, fromText);
    } catch (error) {
      if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
      throw new RangeError(`${where}.protocol: ${error.message}`);
    }
    const domain = sub.domain;
    if (own(domain, "type") !== "categorical" || own(domain, "labels") !== null) {
      throw new RangeError(`${where}.protocol must be categorical without labels (cells)`);
    }
    const kind = group.input;
    let cells;
    if (kind === "cell") {
      cells = cols.reduce((product, c) => product * BigInt(columns[c].k), 1n);
    } else if (kind === "parity" && cols.every((c) => columns[c].k === 2)) {
      cells = 2n;
    } else {
      throw new RangeError(`the protocol's ${where}.input must be 'cell', or 'parity' of binary columns`);
    }
    const k = typeof kindOf(domain, "k") === "bigint" ? kindOf(domain, "k") : BigInt(domain.k);
    if (k !== cells) throw new RangeError(`${where}.protocol has ${k} inputs, not the group's ${cells}`);
    const privacy = sub[PRIVACY];
    if (MEMOIZED.has(sub[ID]) || !privacy.certified || privacy.delta !== 0) {
      throw new RangeError(`${where}.protocol: a group's protocol must be pure and certified, not memoized`);
    }
    largest = max(largest, fromDouble(privacy.epsilon));
    loaded.push([cols, kind, sub]);
  });
  if (sign(delta) !== 0) throw new RangeError("a marginals protocol states delta = 0 (its groups are pure)");
  if (cmp(largest, epsilon) > 0) {
    throw new RangeError(
      `marginals: the groups' constants give epsilon = ${pyFloat(toDouble(largest))} (computed on ` +
        `this device), above the epsilon = ${pyFloat(toDouble(epsilon))} the protocol states: refused`,
    );
  }
  const privacy = {
    mechanism: MARGINALS,
    delta: 0,
    certified: true,
    epsilon: toDouble(largest),
    groups: groups.length,
  };
  return new LoadedProtocol(document, MARGINALS, contentHash, { privacy, groups: loaded });
}

function sameCanonical(a, b) {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

// The codes of a row (an object by column name, or an array in column order), every column
// checked before anything is drawn, so that an error never depends on the group.
function encodeRow(proto, row) {
  const columns = proto.domain.columns;
  let values;
  if (isDict(row)) {
    const keys = Object.keys(row);
    if (keys.length !== columns.length || !columns.every((column) => Object.hasOwn(row, column.name))) {
      throw new RangeError(`the answer must give exactly the protocol's ${columns.length} columns`);
    }
    values = columns.map((column) => row[column.name]);
  } else if (Array.isArray(row) && row.length === columns.length) {
    values = row;
  } else {
    throw new RangeError(`the answer must be a dict or list of ${columns.length} column values`);
  }
  return columns.map((column, j) => {
    const domain = { type: "categorical", k: column.k, labels: column.labels };
    try {
      return encode({ domain }, values[j]);
    } catch {
      throw new RangeError(
        `the answer of column ${pyRepr(pyPrefix(column.name, 40))} is not one of its ${column.k} categories`,
      );
    }
  });
}

// Draw the group uniformly, then privatize its cell (row-major over its columns, the first
// column slowest) or the parity of its binary columns with its protocol.
function marginals(proto, codes, stream) {
  const groups = proto[GROUPS];
  const g = randint(stream, groups.length, 1)[0];
  const [cols, kind, sub] = groups[g];
  const columns = proto.domain.columns;
  let x = 0;
  if (kind === "parity") {
    for (const c of cols) x ^= codes[c];
  } else {
    for (const c of cols) x = x * columns[c].k + codes[c];
  }
  return [g, ...MECHANISMS.get(sub[ID])(sub, x, stream)];
}

const POLICY_KEYS = ["budget", "max_delta", "max_epsilon", "pinned_fingerprints"];

// The options object of privatize and its kin. A policy passed in its place (the Python
// client's positional form: only policy keys) is read as {policy}; any other key is refused,
// so that a misspelt option never runs without the app's policy.
function readOptions(options, known) {
  if (options === undefined || options === null) return {};
  if (!isDict(options)) throw new TypeError("options must be an object");
  const keys = Object.keys(options);
  if (keys.length > 0 && keys.every((key) => POLICY_KEYS.includes(key))) return { policy: options };
  const unknown = keys.filter((key) => !known.includes(key)).sort(compareCodePoints);
  if (unknown.length > 0) {
    const list = (items) => `[${items.map(pyRepr).join(", ")}]`;
    throw new TypeError(`options has unknown key(s) ${list(unknown)}; known: ${list(known)}`);
  }
  return options;
}

function isNumber(value) {
  return typeof value === "number";
}

function checkPolicy(policy) {
  if (policy === undefined || policy === null) return {};
  if (!isDict(policy)) {
    throw new TypeError("policy must be an object (max_epsilon, max_delta, pinned_fingerprints, budget)");
  }
  const unknown = Object.keys(policy)
    .filter((key) => !POLICY_KEYS.includes(key))
    .sort(compareCodePoints);
  if (unknown.length > 0) {
    const list = (keys) => `[${keys.map(pyRepr).join(", ")}]`;
    throw new RangeError(`policy has unknown key(s) ${list(unknown)}; known: ${list(POLICY_KEYS)}`);
  }
  const out = { ...policy };
  for (const key of ["max_epsilon", "max_delta"]) {
    if (Object.hasOwn(policy, key)) {
      const value = policy[key];
      if (!isNumber(value) || !(Number.isFinite(value) && value >= 0)) {
        throw new RangeError(`policy['${key}'] must be a finite number >= 0`);
      }
    }
  }
  const pins = own(policy, "pinned_fingerprints");
  if (
    pins !== undefined &&
    pins !== null &&
    !(Array.isArray(pins) && pins.every((p) => typeof p === "string" && /^(?:[0-9a-f]{16}|[0-9a-f]{64})$/.test(p)))
  ) {
    throw new RangeError(
      "policy['pinned_fingerprints'] must be a list of lowercase hex fingerprints (16 digits) " +
        "or pins (64 digits)",
    );
  }
  if (Object.hasOwn(policy, "budget")) out.budget = checkBudget(policy.budget);
  return out;
}

function checkBudget(budget) {
  if (!isDict(budget) || Object.keys(budget).some((key) => !["epsilon", "delta", "period_days"].includes(key))) {
    throw new RangeError("policy['budget'] must be {'epsilon': e, 'delta': d, 'period_days': n}");
  }
  const out = {};
  for (const [key, fallback] of [
    ["epsilon", null],
    ["delta", 0],
    ["period_days", null],
  ]) {
    let value = Object.hasOwn(budget, key) ? budget[key] : fallback;
    if (value === undefined) value = null;
    if (value === null && key !== "epsilon") {
      out[key] = null;
      continue;
    }
    if (!isNumber(value) || !(Number.isFinite(value) && (key === "delta" ? value >= 0 : value > 0))) {
      throw new RangeError(
        `policy['budget']['${key}'] must be a finite number ${key === "delta" ? ">= 0" : "> 0"}`,
      );
    }
    out[key] = value;
  }
  return out;
}

/**
 * The privacy of one report of `protocol`, computed on this device.
 *
 * `epsilon` is the exact level of the constants this client samples with, rounded up to a
 * double (the smallest double t with e^t at least the largest likelihood ratio); `delta` is 0
 * for a pure mechanism, else the stated delta that this client checked at the stated epsilon
 * (`channel` and `gaussian`); `mechanism` the canonical id; `certified` is false only for
 * `privunit` and `privunitg`, whose privacy this client cannot bound exactly and which run
 * only when the app pins their fingerprint; memoized mechanisms add `epsilon_permanent`, the
 * gaussian `mu`; `fingerprint` is the file's. Show this number to the person, never the
 * file's. The same numbers, bit for bit, as the Python client's `verify`.
 *
 * @param protocol the protocol file's JSON text (preferred), its parsed object, or
 *   `loadProtocol(...)`.
 * @param policy the app's own policy, shipped with the app and never taken from the server:
 *   `max_epsilon` and `max_delta` (default 0 when a policy is given), `pinned_fingerprints`
 *   (if given, only these protocols run: 16-digit fingerprints or, stronger, 64-digit pins),
 *   `budget` (for `privatizeWithLedger`: `{epsilon, delta, period_days}`).
 */
export function verify(protocol, policy) {
  const proto = loadProtocol(protocol);
  const rules = checkPolicy(policy);
  const out = { ...proto[PRIVACY], fingerprint: proto.fingerprint };
  const pins = own(rules, "pinned_fingerprints");
  const pinned =
    pins !== undefined && pins !== null && (pins.includes(proto.fingerprint) || pins.includes(proto[PIN]));
  if (pins !== undefined && pins !== null && !pinned) {
    throw new RangeError(`the protocol ${proto.fingerprint} is not one the app pinned`);
  }
  if (!out.certified && !pinned) {
    throw new RangeError(
      `${proto[ID]}: this client cannot bound its privacy exactly; it runs only when the app ` +
        "pins the protocol (policy['pinned_fingerprints'])",
    );
  }
  if (policy !== undefined && policy !== null) {
    if (Object.hasOwn(rules, "max_epsilon") && out.epsilon > rules.max_epsilon) {
      throw new RangeError(
        `${proto[ID]}: epsilon = ${pyFloat(out.epsilon)} is above the app's max_epsilon = ` +
          `${pyNumber(rules.max_epsilon, true)}: refused`,
      );
    }
    const most = Object.hasOwn(rules, "max_delta") ? rules.max_delta : 0;
    if (out.delta > most) {
      const mostText = Object.hasOwn(rules, "max_delta") ? pyNumber(most, true) : "0.0";
      throw new RangeError(
        `${proto[ID]}: delta = ${pyFloat(out.delta)} is above the app's max_delta = ${mostText}: refused`,
      );
    }
  }
  return out;
}

/**
 * The report of one answer: `{id, fingerprint, report}` (report: an array of numbers; id: 16
 * random bytes in hexadecimal, which makes a retried upload idempotent).
 *
 * The protocol is verified first (`verify`, with `policy`); nothing is drawn from a protocol
 * that fails.
 *
 * @param protocol the protocol's JSON text, its parsed object, or `loadProtocol(...)`.
 * @param value the answer: one of the protocol's labels (categorical; the index 0 .. k-1
 *   when its labels are null), a number within its bounds (interval), an array of numbers
 *   (vectors), an item (a string, bytes or an integer) for the sketches `cms` and `hcms`,
 *   or a row for a `marginals` protocol (an object by column name, or an array in column
 *   order): the report is then the group drawn on this device followed by the group's fields.
 * @param options.policy the app's policy (see `verify`). The policy itself may be passed as
 *   `options` (as the Python client takes it); any key that is neither an option nor a
 *   policy key is refused with a TypeError, so a misspelt option never drops the policy.
 * @param options.randbytes `n -> Uint8Array` of n random bytes; default crypto.getRandomValues.
 */
export function privatize(protocol, value, options) {
  const { policy, randbytes } = readOptions(options, ["policy", "randbytes"]);
  const proto = loadProtocol(protocol);
  verify(proto, policy);
  const stream = new Stream(randbytes === undefined ? cryptoBytes : randbytes);
  const x = encode(proto, value);
  const report = MECHANISMS.get(proto[ID])(proto, x, stream);
  return { id: reportId(randbytes), fingerprint: proto.fingerprint, report };
}

/**
 * One round of a memoized (longitudinal) mechanism (`l-grr`, `l-osue`, `l-oue`, `rappor`,
 * `dbitflip-pm`): `{record, memo}`.
 *
 * The permanent response of each answer (of each pattern, for `dbitflip-pm`) is drawn once
 * and reused in later rounds; `memo` carries it. Keep the returned memo on the device
 * (`JSON.stringify` it) and pass it to the next round; never send it: it holds the client's
 * past answers. No memo starts a new client (what `privatize` does). A memo belongs to the
 * mechanism (`mechanismKey`), not to the file: a republished file of the same mechanism
 * (another question text, say) keeps it. Memos of the Python client are read, and it reads
 * these.
 *
 * @param protocol the protocol's JSON text, its parsed object, or `loadProtocol(...)`.
 * @param value this round's answer.
 * @param options.memo the memo returned by the previous round (optional).
 * @param options.policy the app's policy (see `verify`).
 * @param options.randbytes `n -> Uint8Array` of n random bytes; default crypto.getRandomValues.
 */
export function privatizeRound(protocol, value, options) {
  const { memo, policy, randbytes } = readOptions(options, ["memo", "policy", "randbytes"]);
  const proto = loadProtocol(protocol);
  verify(proto, policy);
  const name = proto[ID];
  const round = MEMOIZED.get(name);
  if (round === undefined) throw new RangeError(`${name} is not a memoized mechanism: use privatize()`);
  const key = mechanismKey(proto);
  const stream = new Stream(randbytes === undefined ? cryptoBytes : randbytes);
  const x = encode(proto, value);
  const state = checkMemo(proto, key, memo);
  const report = round(proto, x, stream, state);
  const record = { id: reportId(randbytes), fingerprint: proto.fingerprint, report };
  return { record, memo: memoDocument(key, state) };
}

function checkMemo(proto, key, memo) {
  if (memo === undefined || memo === null) return { entries: new Map(), sampled: [] };
  if (!isDict(memo) || (memo.format !== MEMO_FORMAT && memo.format !== LEGACY_MEMO_FORMAT)) {
    throw new TypeError("memo must be the object returned by the previous round");
  }
  const owner = memo.format === MEMO_FORMAT ? key : proto.fingerprint;
  if (own(memo, "mechanism") !== owner) throw new RangeError("the memo belongs to another mechanism");
  return memoState(memo);
}

function isIntegerList(list) {
  return Array.isArray(list) && list.every((v) => Number.isInteger(v));
}

function memoState(memo) {
  const entries = new Map();
  const list = Object.hasOwn(memo, "entries") ? memo.entries : [];
  if (!Array.isArray(list)) throw new TypeError("the memo's entries are malformed");
  for (const entry of list) {
    if (!(Array.isArray(entry) && entry.length === 2 && Number.isInteger(entry[0]) && isIntegerList(entry[1]))) {
      throw new TypeError("the memo's entries are malformed");
    }
    entries.set(entry[0], [...entry[1]]);
  }
  const sampled = Object.hasOwn(memo, "sampled") ? memo.sampled : [];
  if (!isIntegerList(sampled)) throw new TypeError("the memo's sampled buckets are malformed");
  return { entries, sampled: [...sampled] };
}

function memoDocument(key, state) {
  const keys = [...state.entries.keys()].sort((a, b) => a - b);
  return {
    format: MEMO_FORMAT,
    mechanism: key,
    entries: keys.map((k) => [k, [...state.entries.get(k)]]),
    sampled: [...state.sampled],
  };
}

// ---------------------------------------------------------------------------- the ledger
const DAY = 86400.0;

// A plain, unfrozen copy of a JSON value (own keys as data properties, "__proto__" too).
function plainCopy(value) {
  if (Array.isArray(value)) return Array.from(value, plainCopy);
  if (isDict(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainCopy(item)]));
  }
  return value;
}

function setOwn(target, key, value) {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function checkLedger(ledger) {
  if (ledger === undefined || ledger === null) return { format: LEDGER_FORMAT, questions: {} };
  if (typeof ledger === "string" || ledger instanceof ArrayBuffer || ArrayBuffer.isView(ledger)) {
    try {
      const text = typeof ledger === "string" ? ledger : UTF8_STRICT.decode(ledger);
      ledger = readJson(text, { constants: true });
    } catch {
      throw new TypeError("the ledger is not valid JSON");
    }
  }
  if (!isDict(ledger) || ledger.format !== LEDGER_FORMAT) {
    throw new TypeError("ledger must be the object returned by privatizeWithLedger (or null)");
  }
  if (valueDepth(ledger) > MAX_DEPTH) throw new TypeError("the ledger's questions are malformed");
  const questions = own(ledger, "questions");
  if (!isDict(questions)) throw new TypeError("the ledger's questions are malformed");
  for (const record of Object.values(questions)) {
    if (!isDict(record) || !isDict(own(record, "memos"))) {
      throw new TypeError("the ledger's questions are malformed");
    }
    const charges = own(record, "charges");
    if (
      !Array.isArray(charges) ||
      !charges.every((c) => Array.isArray(c) && c.length === 3 && c.every((v) => isNumber(v) && Number.isFinite(v)))
    ) {
      throw new TypeError("the ledger's charges are malformed");
    }
    for (const memo of Object.values(record.memos)) {
      if (!isDict(memo)) throw new TypeError("the memo's entries are malformed");
      memoState(memo);
    }
  }
  return plainCopy(ledger);
}

// An exact sum of doubles, as a rational.
function exactSum(values) {
  return dyadicValue(dyadicSum(values.map(dyadic)));
}

/**
 * A report of `value` charged to the device's privacy ledger: `{record, ledger}`.
 *
 * The ledger (plain JSON; store it on the device, never send it) keeps, per `questionId` (a
 * name the app chooses), the memoized permanent responses of each mechanism and the privacy
 * charged per period. A report is charged what this device can compute and bound: a memoized
 * mechanism charges its permanent epsilon once for each new permanent response (every later
 * report of it is free: it reveals nothing the permanent response did not), any other
 * mechanism its epsilon and delta per report (basic composition, an upper bound; the
 * server-side accountant is tighter). A report that would take the question's charges within
 * the last `policy.budget.period_days` days (all time, when not given) above
 * `policy.budget.epsilon` (or `delta`) is refused with a RangeError and nothing is sent or
 * changed. Memos are kept under the mechanism's key (`mechanismKey`): a republished file of
 * the same mechanism keeps its memo, a changed mechanism for the same question starts a new
 * one and is charged in full. The Python client reads these ledgers and writes ones this
 * client reads.
 *
 * @param protocol the protocol file.
 * @param value the answer.
 * @param questionId the app's name for the question (not the file's text).
 * @param options.ledger the ledger returned by the previous call (or its JSON text); none
 *   starts one.
 * @param options.policy the app's policy (`verify`), with its `budget`.
 * @param options.now the time in seconds since the epoch (default: the clock).
 * @param options.randbytes `n -> Uint8Array` of n random bytes; default crypto.getRandomValues.
 */
export function privatizeWithLedger(protocol, value, questionId, options) {
  const { ledger, policy, now, randbytes } = readOptions(options, ["ledger", "policy", "now", "randbytes"]);
  if (typeof questionId !== "string" || questionId === "") {
    throw new TypeError("questionId must be a non-empty string");
  }
  const proto = loadProtocol(protocol);
  const info = verify(proto, policy);
  const rules = checkPolicy(policy);
  const budget = own(rules, "budget");
  const book = checkLedger(ledger);
  const instant = now === undefined || now === null ? Date.now() / 1000 : now;
  if (!isNumber(instant) || !Number.isFinite(instant)) {
    throw new RangeError("now must be a finite number of seconds");
  }
  if (!Object.hasOwn(book.questions, questionId)) setOwn(book.questions, questionId, { memos: {}, charges: [] });
  const recordBook = book.questions[questionId];
  const key = mechanismKey(proto);
  const x = encode(proto, value);
  const name = proto[ID];
  let state;
  let charge;
  if (MEMOIZED.has(name)) {
    state = memoState(own(recordBook.memos, key) ?? {});
    const fresh = !state.entries.has(memoKey(proto, x, state));
    charge = fresh ? [info.epsilon_permanent, 0] : [0, 0];
  } else {
    charge = [info.epsilon, info.delta];
  }
  const quoted = pyRepr(pyPrefix(questionId, 40));
  if (!Number.isFinite(charge[0])) {
    throw new RangeError(
      `question ${quoted}: this report's privacy loss cannot be bounded on this device ` +
        `(epsilon = ${pyFloat(charge[0])}): refused, nothing sent`,
    );
  }
  const charges = recordBook.charges;
  if (budget !== undefined) {
    const period = budget.period_days;
    const start = period === null ? -Infinity : instant - period * DAY;
    const window = charges.filter((c) => c[0] > start);
    const spentEpsilon = exactSum([...window.map((c) => c[1]), charge[0]]);
    const spentDelta = exactSum([...window.map((c) => c[2]), charge[1]]);
    if (cmp(spentEpsilon, fromDouble(budget.epsilon)) > 0 || cmp(spentDelta, fromDouble(budget.delta)) > 0) {
      throw new RangeError(
        `question ${quoted}: this report would bring its privacy loss to ` +
          `epsilon = ${pyFloat(floatUp(spentEpsilon))}, delta = ${pyFloat(floatUp(spentDelta))}, ` +
          `over the app's budget (epsilon ${pyFloat(budget.epsilon)}, delta ${pyFloat(budget.delta)}` +
          `${perPeriod(period)}): refused, nothing sent`,
      );
    }
    if (period !== null) charges.splice(0, charges.length, ...window);
  }
  const stream = new Stream(randbytes === undefined ? cryptoBytes : randbytes);
  let report;
  if (MEMOIZED.has(name)) {
    report = MEMOIZED.get(name)(proto, x, stream, state);
    setOwn(recordBook.memos, key, memoDocument(key, state));
  } else {
    report = MECHANISMS.get(name)(proto, x, stream);
  }
  if (charge[0] > 0 || charge[1] > 0) charges.push([instant, charge[0], charge[1]]);
  return { record: { id: reportId(randbytes), fingerprint: proto.fingerprint, report }, ledger: book };
}

// The key of the memo entry a round of `x` uses (draws nothing).
function memoKey(proto, x, state) {
  if (proto[ID] !== "dbitflip-pm") return x;
  if (state.sampled.length === 0) return null; // a new client: its first permanent response is new
  const bucket = bucketOf(proto, x);
  return state.sampled.indexOf(bucket) + 1; // 0 when not sampled
}

function bucketOf(proto, x) {
  const { k, b } = proto.mechanism.params;
  return Number((BigInt(x) * BigInt(b)) / BigInt(k));
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
  return proto[ID] === "square-wave" ? [0.0, 1.0] : [-1.0, 1.0];
}

// An item's byte string: UTF-8 text, bytes as they are, an integer's decimal text.
function itemBytes(value) {
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) {
      throw new RangeError("the answer is a string that is not valid Unicode");
    }
    return UTF8.encode(value);
  }
  if (value instanceof Uint8Array) return Uint8Array.from(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (typeof value === "bigint") return UTF8.encode(value.toString());
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      throw new RangeError("a numeric item must be a safe integer (pass larger ones as BigInt)");
    }
    return UTF8.encode(String(value)); // -0 is "0"
  }
  throw new TypeError("the answer must be a string, bytes or an integer (an item)");
}

function encode(proto, value) {
  const domain = proto.domain;
  if (domain.type === "items") return itemBytes(value);
  if (domain.type === "table") return encodeRow(proto, value);
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
  if (Math.sqrt(dot(values, values)) > radius * (1 + 1e-12)) {
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
    if (++stage > MAX_ROUNDS) throw broken();
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
    if (++stage > MAX_ROUNDS) throw broken();
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
    if (++stage > MAX_ROUNDS) throw broken();
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
    if (++stage > MAX_ROUNDS) throw broken();
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
  return [chooseOne(stream, law(proto, `row ${x}`, proto.mechanism.params.matrix[x]))];
}

function grr(proto, x, stream) {
  const k = proto.mechanism.params.k;
  if (chooseOne(stream, law(proto, "keep", proto.sampler.keep)) === 0) return [x];
  const other = randint(stream, k - 1, 1)[0];
  return [other + (other >= x ? 1 : 0)];
}

function unary(proto, x, stream) {
  const k = proto.mechanism.params.k;
  const laws = [law(proto, "other", proto.sampler.other), law(proto, "own", proto.sampler.own)];
  const which = [];
  for (let v = 0; v < k; v++) which.push(v === x ? 1 : 0);
  return pack(choose(stream, laws, which).map((index) => index === 0));
}

function memoGrr(proto, x, stream, state) {
  const k = proto.mechanism.params.k;
  const draw = (name, value) => {
    if (chooseOne(stream, law(proto, name, proto.sampler[name])) === 0) return value;
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
    const laws = [law(proto, "other", sampler.other), law(proto, "own", sampler.own)];
    const which = [];
    for (let v = 0; v < k; v++) which.push(v === x ? 1 : 0);
    state.entries.set(x, pack(choose(stream, laws, which).map((index) => index === 0)));
  }
  const packed = state.entries.get(x);
  const memoBits = [];
  for (let v = 0; v < k; v++) memoBits.push((packed[v >> 3] >> (7 - (v % 8))) & 1);
  const laws = [law(proto, "zero", sampler.zero), law(proto, "one", sampler.one)];
  return pack(choose(stream, laws, memoBits).map((index) => index === 0));
}

function memoDBitFlip(proto, x, stream, state) {
  const { b, d } = proto.mechanism.params;
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
  const bucket = bucketOf(proto, x);
  const pattern = state.sampled.indexOf(bucket) + 1; // 0 when not sampled
  if (!state.entries.has(pattern)) {
    const laws = [law(proto, "other", sampler.other), law(proto, "own", sampler.own)];
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
  const laws = [law(proto, "other", sampler.other), law(proto, "own", sampler.own)];
  const which = Array.from({ length: params.width }, (_, a) => (a === bucket ? 1 : 0));
  const drawn = choose(stream, laws, which);
  return [row, ...pack(drawn.map((index) => index === 0))];
}

function hcms(proto, x, stream) {
  const params = proto.mechanism.params;
  const row = randint(stream, params.depth, 1)[0];
  const column = randint(stream, params.width, 1)[0];
  const flip = chooseOne(stream, law(proto, "keep", proto.sampler.keep)) === 1;
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
  if (chooseOne(stream, law(proto, "keep", sampler.keep)) === 0) return [...words, hashed];
  const other = randint(stream, sampler.g - 1, 1)[0];
  return [...words, other + (other >= hashed ? 1 : 0)];
}

function hadamard(proto, x, stream) {
  const sampler = proto.sampler;
  const inside = chooseOne(stream, law(proto, "keep", sampler.keep)) === 0 ? 1 : 0;
  let y = BigInt(randint(stream, sampler.K, 1)[0]);
  const row = BigInt(x) + 1n;
  if (parity(row & y) === inside) y ^= row & -row;
  return [Number(y)];
}

function subset(proto, x, stream) {
  const k = proto.mechanism.params.k;
  const d = proto.sampler.d;
  const include = chooseOne(stream, law(proto, "include", proto.sampler.include)) === 0;
  const count = include ? d - 1 : d;
  const slots = k - 1; // slot o stands for value o + (o >= x)
  if (proto.sampler.members === "rejection") {
    // index encoding: the members, sorted
    const seen = new Set();
    let rounds = 0;
    while (seen.size < count) {
      rounds = another(rounds, MAX_ROUNDS * (slots + 1));
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
    let rounds = 0;
    while (size !== count) {
      rounds = another(rounds, MAX_ROUNDS * (slots + 1));
      const t = randint(stream, slots, 1)[0];
      const v = t + (t >= x ? 1 : 0);
      if (bits[v] === size > count) {
        // a member to drop, or a non-member to add
        bits[v] = !bits[v];
        size += bits[v] ? 1 : -1;
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
  const keep = law(proto, "duchi keep", sampler.keep);
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
  const truthful = chooseOne(stream, law(proto, "keep", sampler.keep)) === 0;
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
  const window = chooseOne(stream, law(proto, "piecewise keep", sampler.keep)) === 0;
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
  // a file without `mix` is checked as Duchi only, and sampled so
  const usePiecewise = mix !== null && mix !== undefined && chooseOne(stream, law(proto, "mix", mix)) === 0;
  if (usePiecewise) return [piecewiseValue(proto, sampler.piecewise, x, stream)];
  return [sampler.bound * duchiSigns(proto, sampler.duchi, [x], stream)[0]];
}

function squareWave(proto, x, stream) {
  const sampler = proto.sampler;
  const b = sampler.b;
  const near = chooseOne(stream, law(proto, "keep", sampler.keep)) === 0;
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
  const limit = MAX_ROUNDS + Math.ceil(2048.0 / (1.0 - sampler.b)); // P(more) < 2^-2048
  while (bernoulli(stream, [sampler.b])[0]) periods = another(periods, limit);
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
  for (let proposal = 0; proposal < MAX_PROPOSALS; proposal++) {
    const x = gaussian(stream, 1)[0];
    const u = uniform(stream, 1)[0];
    const cx = c * x;
    if (cx > -1.0) {
      const v = (1.0 + cx) * (1.0 + cx) * (1.0 + cx);
      const bound = 0.5 * x * x + dd * (3.0 * Math.log1p(cx) - cx * (3.0 + cx * (3.0 + cx)));
      if (Math.log1p(-u) < bound) return dd * v;
    }
  }
  throw notAccepted();
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
    for (let proposal = 0; proposal < MAX_PROPOSALS; proposal++) {
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
    throw notAccepted();
  }
  for (let proposal = 0; proposal < MAX_PROPOSALS; proposal++) {
    const g = gaussian(stream, 1)[0];
    const rest = 2.0 * gammaDraw(stream, (d - 1) / 2.0);
    const t = g / Math.sqrt(g * g + rest);
    if (t >= gamma === cap) return t;
  }
  throw notAccepted();
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
  const cap = chooseOne(stream, law(proto, "keep", sampler.keep)) === 0;
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
  const tail = chooseOne(stream, law(proto, "keep", sampler.keep)) === 0;
  let alpha;
  for (let proposal = 0; ; proposal++) {
    if (proposal >= MAX_PROPOSALS) throw notAccepted();
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
  ["channel", channel],
  ["grr", grr],
  ["unary-encoding", unary],
  ["sue", unary],
  ["oue", unary],
  ["local-hashing", localHashing],
  ["olh", localHashing],
  ["blh", localHashing],
  ["hadamard-response", hadamard],
  ["subset-selection", subset],
  ["duchi", duchi],
  ["duchi-l2", duchiL2],
  ["laplace", laplace],
  ["piecewise", piecewise],
  ["hybrid", hybrid],
  ["square-wave", squareWave],
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
MECHANISMS.set(MARGINALS, marginals);

// ---------------------------------------------------------------------------- Bloom RAPPOR
const BLOOM_LIMITS = [["num_bits", 1 << 16], ["num_hashes", 8], ["num_cohorts", 1 << 16]];

function bloomParams(params) {
  if (!isDict(params)) throw new TypeError("params must be an object");
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
    if (!isDict(memo) || memo.format !== LEGACY_MEMO_FORMAT) {
      throw new TypeError("memo must be the object returned by the previous round");
    }
    if (own(memo, "mechanism") !== keyText) {
      throw new RangeError("the memo belongs to another configuration");
    }
    const state = memoState(memo);
    for (const [key, bits] of state.entries) entries.set(key, bits);
    sampled = state.sampled;
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
      format: LEGACY_MEMO_FORMAT,
      mechanism: keyText,
      entries: keys.map((k) => [k, [...entries.get(k)]]),
      sampled: [cohort],
    },
  };
}

// The Python client's names, for code written against either client.
export { privatizeRound as privatize_round, privatizeWithLedger as privatize_with_ledger };
