"""Privatize one answer on a device: the ldp protocol client, Python standard library only.

Copy this one file to the device (no numpy, no ldpkit). Given a protocol file published by
the server (``ldp design ... --out protocol.json``, or ``ldp.protocol.Protocol.save``) and
one answer, :func:`privatize` returns the record to send::

    import json, ldp_client
    protocol = json.load(open("protocol.json"))
    record = ldp_client.privatize(protocol, "bike")
    # {"fingerprint": "34e331bdb88dbf66", "report": [7]}

Every random bit comes from ``randbytes`` (default :func:`os.urandom`, the operating system's
CSPRNG). The sampling algorithm is the one ``docs/protocol.md`` specifies: exact for every
probability a double holds, and byte-for-byte the same as the ldp library's and the
JavaScript client's, so that the same bytes give the same report (checked against
``clients/test_vectors.json``).

Errors raise ``ValueError`` (or ``TypeError``) with one line; an answer outside the
protocol's domain is never echoed in the message.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import math
import os
import struct

__all__ = [
    "PROTOCOL_VERSION",
    "Protocol",
    "bloom_positions",
    "bloom_rappor_key",
    "bloom_rappor_round",
    "load_protocol",
    "privatize",
    "privatize_round",
]

PROTOCOL_VERSION = 1
_FORMAT = "ldp-protocol"
_LN2 = 0.6931471805599453
_TWO_PI = 6.283185307179586


# ----------------------------------------------------------------------------- the protocol
class Protocol(dict):
    """A checked protocol (a dict): pass it to :func:`privatize` to skip checking it again."""

    def law(self, key, weights):
        """The exact law of ``weights``, computed once per protocol."""
        cache = self.__dict__.setdefault("_laws", {})
        if key not in cache:
            cache[key] = _law(weights)
        return cache[key]


def load_protocol(protocol):
    """The protocol as a checked :class:`Protocol`: from its JSON text, a dict, or bytes.

    Checks the format, the version and the fingerprint (so that a truncated or edited file
    is refused); the server has checked the privacy when it wrote the file.
    """
    if isinstance(protocol, Protocol):
        return protocol
    if isinstance(protocol, (bytes, bytearray)):
        protocol = protocol.decode("utf-8")
    if isinstance(protocol, str):
        try:
            protocol = json.loads(protocol)
        except ValueError:
            raise ValueError("the protocol is not valid JSON (truncated?)") from None
    if not isinstance(protocol, dict):
        raise TypeError("protocol must be a dict or its JSON text")
    if protocol.get("format") != _FORMAT:
        raise ValueError("not an ldp protocol file")
    if protocol.get("version") != PROTOCOL_VERSION:
        raise ValueError(
            f"unsupported protocol version {protocol.get('version')!r}; this client reads "
            f"version {PROTOCOL_VERSION}"
        )
    for key in ("domain", "mechanism", "sampler", "report", "privacy", "fingerprint"):
        if key not in protocol:
            raise ValueError(f"the protocol lacks its {key!r} field")
    body = {k: v for k, v in protocol.items() if k != "fingerprint"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    if hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] != protocol["fingerprint"]:
        raise ValueError("the protocol's fingerprint does not match its content")
    if protocol["mechanism"].get("name") not in _MECHANISMS:
        raise ValueError(f"unknown mechanism {protocol['mechanism'].get('name')!r}")
    return Protocol(protocol)


def privatize(protocol, value, randbytes=os.urandom):
    """The report of one answer: ``{"fingerprint": ..., "report": [fields...]}``.

    Parameters
    ----------
    protocol : dict or str
        The protocol file's JSON text or its parsed dict.
    value
        The answer: one of the protocol's labels (categorical), a number within its bounds
        (interval), a list of numbers (vectors), or an item (a string, bytes or an integer)
        for the sketches ``cms`` and ``hcms``.
    randbytes : callable
        ``randbytes(n)`` returns ``n`` random bytes; :func:`os.urandom` on devices. A fixed
        byte string reproduces a report (tests only: a predictable source reveals the answer).
    """
    proto = load_protocol(protocol)
    stream = _Stream(randbytes)
    x = _encode(proto, value)
    name = proto["mechanism"]["name"]
    report = _MECHANISMS[name](proto, x, stream)
    return {"fingerprint": proto["fingerprint"], "report": report}


def privatize_round(protocol, value, memo=None, randbytes=os.urandom):
    """One round of a memoized (longitudinal) mechanism: ``(record, memo)``.

    The mechanisms ``l-grr``, ``l-osue``, ``l-oue``, ``rappor`` and ``dbitflip-pm`` draw a
    permanent response once per answer (per pattern for ``dbitflip-pm``) and reuse it in every
    later round; ``memo`` carries it between rounds. Keep the returned memo on the device
    (``json.dumps`` it) and pass it to the next round; **never send it**: it holds the
    client's past answers. ``memo=None`` starts a new client (what :func:`privatize` does).

    Parameters
    ----------
    protocol : dict or str
        The protocol file's JSON text or its parsed dict.
    value
        This round's answer.
    memo : dict, optional
        The memo returned by the previous round.
    randbytes : callable
        ``randbytes(n)`` returns ``n`` random bytes; :func:`os.urandom` on devices.
    """
    proto = load_protocol(protocol)
    name = proto["mechanism"]["name"]
    if name not in _MEMOIZED:
        raise ValueError(f"{name} is not a memoized mechanism: use privatize()")
    stream = _Stream(randbytes)
    x = _encode(proto, value)
    state = _check_memo(proto, memo)
    report = _MEMOIZED[name](proto, x, stream, state)
    return {"fingerprint": proto["fingerprint"], "report": report}, _memo_document(proto, state)


def _check_memo(proto, memo):
    if memo is None:
        return {"entries": {}, "sampled": []}
    if not isinstance(memo, dict) or memo.get("format") != _MEMO_FORMAT:
        raise ValueError("memo must be the dict returned by the previous round")
    if memo.get("mechanism") != proto["fingerprint"]:
        raise ValueError("the memo belongs to another protocol")
    entries = {}
    for entry in memo.get("entries", []):
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], list)):
            raise ValueError("the memo's entries are malformed")
        entries[entry[0]] = list(entry[1])
    return {"entries": entries, "sampled": list(memo.get("sampled", []))}


def _memo_document(proto, state):
    return {
        "format": _MEMO_FORMAT,
        "mechanism": proto["fingerprint"],
        "entries": [[key, list(state["entries"][key])] for key in sorted(state["entries"])],
        "sampled": list(state["sampled"]),
    }


class _Stream:
    def __init__(self, randbytes):
        if not callable(randbytes):
            raise TypeError("randbytes must be a function n -> bytes")
        self._randbytes = randbytes

    def take(self, n):
        if n == 0:
            return b""
        data = bytes(self._randbytes(n))
        if len(data) != n:
            raise ValueError(f"the random source returned {len(data)} bytes, {n} were needed")
        return data


# ----------------------------------------------------------------------------- answers
def _label_key(value):
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return ("number", float(value))
    if isinstance(value, str):
        return ("string", value)
    return None


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("the answer must be a number")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("the answer must be a finite number")
    return value


def _encode(proto, value):
    domain = proto["domain"]
    kind = domain["type"]
    if kind == "categorical":
        if domain["labels"] is None:
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not 0 <= value < domain["k"]
            ):
                raise ValueError(f"the answer must be a category 0 .. {domain['k'] - 1}")
            return value
        key = _label_key(value)
        for index, label in enumerate(domain["labels"]):
            if key is not None and _label_key(label) == key:
                return index
        raise ValueError(f"the answer is not one of the protocol's {domain['k']} labels")
    if kind == "interval":
        low, high, dimension = domain["low"], domain["high"], domain["dimension"]
        target = _mechanism_interval(proto)
        scale = (target[1] - target[0]) / (high - low)
        values = [value] if dimension == 1 else list(value) if isinstance(value, list) else None
        if values is None or len(values) != dimension:
            raise ValueError(f"the answer must be a list of {dimension} numbers")
        out = []
        for v in values:
            v = _number(v)
            if not low <= v <= high:
                raise ValueError(f"the answer lies outside the protocol's bounds [{low}, {high}]")
            out.append(min(max(target[0] + (v - low) * scale, target[0]), target[1]))
        return out[0] if dimension == 1 else out
    if kind == "items":
        return _item_bytes(value)
    if kind == "ball":
        dimension, radius = domain["dimension"], domain["radius"]
        if not isinstance(value, list) or len(value) != dimension:
            raise ValueError(f"the answer must be a list of {dimension} numbers")
        values = [_number(v) for v in value]
        if math.sqrt(_dot(values, values)) > radius * (1 + 1e-12):
            raise ValueError(f"the answer lies outside the ball of radius {radius}")
        return values
    raise ValueError(f"unknown domain type {kind!r}")


def _item_bytes(value):
    """An item's byte string: UTF-8 text, bytes as they are, an integer's decimal text."""
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("the answer is a string that is not valid Unicode") from None
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value).encode("ascii")
    raise TypeError("the answer must be a string, bytes or an integer (an item)")


def _mechanism_interval(proto):
    return (0.0, 1.0) if proto["mechanism"]["name"] == "SquareWave" else (-1.0, 1.0)


# ----------------------------------------------------------------------------- exact draws
def _law(weights):
    """Cumulative integer weights proportional to the doubles ``weights``, exactly."""
    ratios = [float(w).as_integer_ratio() for w in weights]
    shift = max(den.bit_length() - 1 for _, den in ratios)
    return list(
        itertools.accumulate(num << (shift - (den.bit_length() - 1)) for num, den in ratios)
    )


def _choose(stream, laws, which):
    """One exact draw per entry of ``which`` (an index into ``laws``), in rounds."""
    prefix = [0] * len(which)
    out = [0] * len(which)
    pending = list(range(len(which)))
    stage = 0
    while pending:
        stage += 1
        shift = 8 * stage
        data = stream.take(len(pending))
        still = []
        for byte, item in zip(data, pending):
            cumulative = laws[which[item]]
            total = cumulative[-1]
            value = prefix[item] * 256 + byte
            prefix[item] = value
            j = bisect.bisect_right(cumulative, (value * total) >> shift)
            if (cumulative[j] << shift) >= (value + 1) * total:
                out[item] = j
            else:
                still.append(item)
        pending = still
    return out


def _choose_one(stream, law):
    return _choose(stream, [law], [0])[0]


def _bernoulli(stream, probabilities):
    """One exact coin ``U < p`` per probability (doubles in [0, 1]), in rounds."""
    remainder = list(probabilities)
    out = [False] * len(remainder)
    pending = list(range(len(remainder)))
    while pending:
        data = stream.take(len(pending))
        still = []
        for byte, item in zip(data, pending):
            scaled = remainder[item] * 256.0
            digit = math.floor(scaled)
            rest = scaled - digit
            if byte < digit:
                out[item] = True
            elif byte == digit and rest > 0.0:
                remainder[item] = rest
                still.append(item)
        pending = still
    return out


def _randint(stream, bound, count):
    """``count`` uniform integers on ``0 .. bound - 1``, by rejection, in rounds."""
    out = [0] * count
    if bound == 1 or count == 0:
        return out
    bits = (bound - 1).bit_length()
    width = (bits + 7) // 8
    mask = (1 << bits) - 1
    pending = list(range(count))
    while pending:
        data = stream.take(width * len(pending))
        still = []
        for position, item in enumerate(pending):
            value = int.from_bytes(data[position * width : (position + 1) * width], "big") & mask
            if value < bound:
                out[item] = value
            else:
                still.append(item)
        pending = still
    return out


def _uniform(stream, count):
    data = stream.take(7 * count)
    return [(int.from_bytes(data[7 * i : 7 * i + 7], "big") >> 3) * 2.0**-53 for i in range(count)]


def _zero_bits(stream, count):
    out = [0] * count
    pending = list(range(count))
    while pending:
        data = stream.take(len(pending))
        still = []
        for byte, item in zip(data, pending):
            if byte == 0:
                out[item] += 8
                still.append(item)
            else:
                out[item] += 8 - byte.bit_length()
        pending = still
    return out


def _snap(stream, y, step):
    scaled = y / step
    low = math.floor(scaled)
    return (low + (1.0 if _bernoulli(stream, [scaled - low])[0] else 0.0)) * step


def _pack(bits):
    out = []
    for start in range(0, len(bits), 8):
        byte = 0
        for offset, bit in enumerate(bits[start : start + 8]):
            if bit:
                byte |= 0x80 >> offset
        out.append(byte)
    return out


def _dot(a, b):
    """``sum(a_i b_i)`` added left to right (the built-in ``sum`` of floats compensates its
    rounding from Python 3.12 on, which the other implementations do not)."""
    total = 0.0
    for u, v in zip(a, b):
        total += u * v
    return total


def _parity(value):
    return bin(value).count("1") & 1


# ----------------------------------------------------------------------------- mechanisms
def _channel(proto, x, stream):
    return [_choose_one(stream, proto.law(("row", x), proto["mechanism"]["params"]["matrix"][x]))]


def _grr(proto, x, stream):
    k = proto["mechanism"]["params"]["k"]
    if _choose_one(stream, proto.law("keep", proto["sampler"]["keep"])) == 0:
        return [x]
    other = _randint(stream, k - 1, 1)[0]
    return [other + (1 if other >= x else 0)]


def _unary(proto, x, stream):
    k = proto["mechanism"]["params"]["k"]
    laws = [
        proto.law("other", proto["sampler"]["other"]),
        proto.law("own", proto["sampler"]["own"]),
    ]
    drawn = _choose(stream, laws, [1 if v == x else 0 for v in range(k)])
    return _pack([index == 0 for index in drawn])


def _memo_grr(proto, x, stream, state):
    k = proto["mechanism"]["params"]["k"]
    sampler = proto["sampler"]

    def grr(law_name, value):
        if _choose_one(stream, proto.law(law_name, sampler[law_name])) == 0:
            return value
        other = _randint(stream, k - 1, 1)[0]
        return other + (1 if other >= value else 0)

    if x not in state["entries"]:
        state["entries"][x] = [grr("permanent", x)]
    return [grr("instant", state["entries"][x][0])]


def _unpack(packed, k):
    return [(packed[v // 8] >> (7 - v % 8)) & 1 for v in range(k)]


def _memo_unary(proto, x, stream, state):
    k = proto["mechanism"]["params"]["k"]
    sampler = proto["sampler"]
    if x not in state["entries"]:
        laws = [proto.law("other", sampler["other"]), proto.law("own", sampler["own"])]
        drawn = _choose(stream, laws, [1 if v == x else 0 for v in range(k)])
        state["entries"][x] = _pack([index == 0 for index in drawn])
    laws = [proto.law("zero", sampler["zero"]), proto.law("one", sampler["one"])]
    drawn = _choose(stream, laws, _unpack(state["entries"][x], k))
    return _pack([index == 0 for index in drawn])


def _memo_dbitflip(proto, x, stream, state):
    params, sampler = proto["mechanism"]["params"], proto["sampler"]
    k, b, d = params["k"], params["b"], params["d"]
    if not state["sampled"]:
        chosen = []
        for step in range(d):
            r = _randint(stream, b - step, 1)[0]
            for column in sorted(chosen):  # the r-th bucket not chosen yet
                if r >= column:
                    r += 1
            chosen.append(r)
        state["sampled"] = sorted(chosen)
    sampled = state["sampled"]
    bucket = x * b // k
    pattern = sampled.index(bucket) + 1 if bucket in sampled else 0
    if pattern not in state["entries"]:
        laws = [proto.law("other", sampler["other"]), proto.law("own", sampler["own"])]
        drawn = _choose(stream, laws, [1 if i + 1 == pattern else 0 for i in range(d)])
        state["entries"][pattern] = [1 if index == 0 else 0 for index in drawn]
    return list(sampled) + list(state["entries"][pattern])


def _first_round(function):
    def run(proto, x, stream):
        return function(proto, x, stream, {"entries": {}, "sampled": []})

    return run


def _hash(family, words, x):
    """``H(x)`` for the hash function packed in ``words`` (``docs/protocol.md``)."""
    fields = [0] * len(family["fields"])
    for word, members in zip(words, family["words"]):
        rest = word
        for i in members:
            rest, fields[i] = divmod(rest, family["fields"][i])
    if family["family"] == "ring":
        bits, g = family["bits"], family["modulus"]
        return (sum(fields[j] * ((x >> j) & 1) for j in range(bits)) + fields[bits]) % g
    p, power, digits = family["prime"], family["power"], family["digits"]
    c = fields[power]
    out, weight = 0, 1
    for r in range(power):
        if p == 2:
            h = _parity(fields[r] & x)
            out += (h ^ ((c >> r) & 1)) << r
        else:
            row, value, h = fields[r], x, 0
            for _ in range(digits):
                h += (row % p) * (value % p)
                row //= p
                value //= p
            out += ((h % p + (c // weight) % p) % p) * weight
        weight *= p
    return out


def _local_hashing(proto, x, stream):
    sampler = proto["sampler"]
    family = sampler["hash"]
    sizes = [math.prod(family["fields"][i] for i in members) for members in family["words"]]
    words = [_randint(stream, size, 1)[0] for size in sizes]
    hashed = _hash(family, words, x)
    if _choose_one(stream, proto.law("keep", sampler["keep"])) == 0:
        return [*words, hashed]
    other = _randint(stream, sampler["g"] - 1, 1)[0]
    return [*words, other + (1 if other >= hashed else 0)]


def _hadamard(proto, x, stream):
    sampler = proto["sampler"]
    inside = 1 if _choose_one(stream, proto.law("keep", sampler["keep"])) == 0 else 0
    y = _randint(stream, sampler["K"], 1)[0]
    row = x + 1
    if _parity(row & y) == inside:
        y ^= row & -row
    return [y]


def _subset(proto, x, stream):
    k = proto["mechanism"]["params"]["k"]
    d = proto["sampler"]["d"]
    include = _choose_one(stream, proto.law("include", proto["sampler"]["include"])) == 0
    count = d - 1 if include else d
    slots = k - 1  # slot o stands for value o + (o >= x)
    if proto["sampler"].get("members") == "rejection":  # index encoding: the members, sorted
        held = []
        seen = set()
        while len(held) < count:
            for t in _randint(stream, slots, count - len(held)):
                if t not in seen:
                    seen.add(t)
                    held.append(t)
        members = [t + (1 if t >= x else 0) for t in held] + ([x] if include else [])
        return sorted(members)
    bits = [False] * k
    rows = proto["sampler"].get("bernoulli_bits", 0)  # absent in older files: Floyd
    if rows:  # Bernoulli bits of probability 2^-rows, then corrected to `count` members
        width = (k + 7) // 8
        packed = [0xFF] * width
        for _ in range(rows):
            packed = [a & b for a, b in zip(packed, stream.take(width))]
        bits = [bool(packed[v >> 3] & (0x80 >> (v & 7))) for v in range(k)]
        bits[x] = False
        size = sum(bits)
        while size != count:
            t = _randint(stream, slots, 1)[0]
            v = t + (1 if t >= x else 0)
            if bits[v] == (size > count):  # a member to drop, or a non-member to add
                bits[v] = not bits[v]
                size += 1 if bits[v] else -1
    else:
        chosen = set()
        for j in range(slots - count, slots):  # Floyd's algorithm
            t = _randint(stream, j + 1, 1)[0]
            chosen.add(j if t in chosen else t)
        for o in chosen:
            bits[o + (1 if o >= x else 0)] = True
    if include:
        bits[x] = True
    return _pack(bits)


def _duchi_signs(proto, sampler, values, stream):
    """Duchi et al.'s cube mechanism on ``values`` (odd length after padding)."""
    v = [1 if bit else -1 for bit in _bernoulli(stream, [(1.0 + t) / 2.0 for t in values])]
    keep = proto.law(("duchi", "keep"), sampler["keep"])
    if len(values) == 1:
        truthful = _choose_one(stream, keep) == 0
        return [v[0] if truthful else -v[0]]
    z = [2 * bit - 1 for bit in _randint(stream, 2, len(values))]
    agree = sum(a * b for a, b in zip(z, v)) > 0
    truthful = _choose_one(stream, keep) == 0
    return z if agree == truthful else [-s for s in z]


def _duchi(proto, x, stream):
    d = proto["mechanism"]["params"]["d"]
    values = [x] if d == 1 else list(x)
    if d > 1 and d % 2 == 0:
        values.append(0.0)
    return _duchi_signs(proto, proto["sampler"], values, stream)[:d]


def _gaussian(stream, count):
    first = _uniform(stream, count)
    second = _uniform(stream, count)
    return [math.sqrt(-2.0 * math.log1p(-a)) * math.cos(_TWO_PI * b) for a, b in zip(first, second)]


def _unit(vector):
    norm = math.sqrt(_dot(vector, vector))
    if norm == 0:
        return [1.0] + [0.0] * (len(vector) - 1)
    return [v / norm for v in vector]


def _duchi_l2(proto, x, stream):
    params, sampler = proto["mechanism"]["params"], proto["sampler"]
    radius, d = params["radius"], params["d"]
    norm = math.sqrt(_dot(x, x))
    positive = _bernoulli(stream, [min(0.5 + norm / (2 * radius), 1.0)])[0]
    direction = _unit(_gaussian(stream, d))
    if norm > 0:
        direction = [v / norm for v in x]
    sign = 1.0 if positive else -1.0
    target = [v * sign for v in direction]
    z = _unit(_gaussian(stream, d))
    truthful = _choose_one(stream, proto.law("keep", sampler["keep"])) == 0
    if (_dot(z, target) > 0) != truthful:
        z = [-v for v in z]
    return [sampler["bound"] * v for v in z]


def _laplace(proto, x, stream):
    sampler = proto["sampler"]
    scale = sampler["scale"]
    sign = -scale if _bernoulli(stream, [0.5])[0] else scale
    steps = _zero_bits(stream, 1)[0]
    rest = -math.log1p(-0.5 * _uniform(stream, 1)[0])
    noise = _LN2 * float(steps) + rest
    return [_snap(stream, x + sign * noise, sampler["step"])]


def _gaussian_noise(proto, x, stream):
    sampler = proto["sampler"]
    noise = _gaussian_tails(stream, 1)[0]
    return [_snap(stream, x + sampler["sigma"] * noise, sampler["step"])]


def _piecewise_value(proto, sampler, x, stream):
    c, width = sampler["C"], sampler["width"]
    window = _choose_one(stream, proto.law(("piecewise", "keep"), sampler["keep"])) == 0
    u = _uniform(stream, 1)[0]
    left = (c + 1) * x / 2 - width / 2
    if window:
        y = left + width * u
    else:
        y = (c + 1) * u - c
        if y >= left:
            y = y + width
    return _snap(stream, y, sampler["step"])


def _piecewise(proto, x, stream):
    return [_piecewise_value(proto, proto["sampler"], x, stream)]


def _hybrid(proto, x, stream):
    sampler = proto["sampler"]
    mix = sampler["mix"]
    use_piecewise = mix is not None and _choose_one(stream, proto.law("mix", mix)) == 0
    if use_piecewise:
        return [_piecewise_value(proto, sampler["piecewise"], x, stream)]
    return [sampler["bound"] * _duchi_signs(proto, sampler["duchi"], [x], stream)[0]]


def _square_wave(proto, x, stream):
    sampler = proto["sampler"]
    b = sampler["b"]
    near = _choose_one(stream, proto.law("keep", sampler["keep"])) == 0
    u = _uniform(stream, 1)[0]
    y = (x - b) + (2 * b) * u if near else (u - b if u < x else u + b)
    return [_snap(stream, y, sampler["step"])]


def _staircase(proto, x, stream):
    sampler = proto["sampler"]
    d, g = sampler["sensitivity"], sampler["gamma"]
    negative = _bernoulli(stream, [0.5])[0]
    periods = 0
    while _bernoulli(stream, [sampler["b"]])[0]:
        periods += 1
    lower = _bernoulli(stream, [sampler["p0"]])[0]
    u = _uniform(stream, 1)[0]
    within = g * d * u if lower else g * d + (1.0 - g) * d * u
    noise = float(periods) * d + within
    return [_snap(stream, x + (-noise if negative else noise), sampler["step"])]


_SKETCH_PREFIX = b"ldpkit/sketch-hash/v1\x00"


def _sketch_hash(params, row, item):
    """``h_row(item)``: the first 8 bytes of SHA-256(prefix, salt, row, item) mod width."""
    salt = params["salt"].encode("utf-8")
    message = _SKETCH_PREFIX + len(salt).to_bytes(4, "big") + salt + row.to_bytes(4, "big") + item
    return int.from_bytes(hashlib.sha256(message).digest()[:8], "big") % params["width"]


def _cms(proto, x, stream):
    params, sampler = proto["mechanism"]["params"], proto["sampler"]
    width = params["width"]
    row = _randint(stream, params["depth"], 1)[0]
    bucket = _sketch_hash(params, row, x)
    laws = [proto.law("other", sampler["other"]), proto.law("own", sampler["own"])]
    drawn = _choose(stream, laws, [1 if a == bucket else 0 for a in range(width)])
    return [row, *_pack([index == 0 for index in drawn])]


def _hcms(proto, x, stream):
    params = proto["mechanism"]["params"]
    row = _randint(stream, params["depth"], 1)[0]
    column = _randint(stream, params["width"], 1)[0]
    flip = _choose_one(stream, proto.law("keep", proto["sampler"]["keep"])) == 1
    plus = (_parity(column & _sketch_hash(params, row, x)) == 0) != flip
    return [row, column, 1 if plus else 0]


# ----------------------------------------------------------------------------- unit vectors
def _snap_all(stream, ys, step):
    """Unbiased randomized rounding of every entry of ``ys`` (the coins in rounds)."""
    scaled = [y / step for y in ys]
    lows = [math.floor(v) for v in scaled]
    ups = _bernoulli(stream, [v - low for v, low in zip(scaled, lows)])
    return [(low + (1.0 if up else 0.0)) * step for low, up in zip(lows, ups)]


def _exponential(stream, count):
    steps = _zero_bits(stream, count)
    rest = [-math.log1p(-0.5 * u) for u in _uniform(stream, count)]
    return [_LN2 * float(j) + r for j, r in zip(steps, rest)]


def _gaussian_tails(stream, count):
    radius = [math.sqrt(2.0 * e) for e in _exponential(stream, count)]
    return [r * math.cos(_TWO_PI * u) for r, u in zip(radius, _uniform(stream, count))]


def _unit_direction(stream, x, radius):
    """``+-x/||x||`` (minus with probability ``(1 - ||x||/radius)/2``), uniform for ``x = 0``."""
    norm = math.sqrt(_dot(x, x))
    positive = _bernoulli(stream, [min(0.5 + norm / (2.0 * radius), 1.0)])[0]
    u = [v / norm for v in x] if norm > 0 else _unit(_gaussian(stream, len(x)))
    return u if positive else [-v for v in u]


def _gamma(stream, shape):
    """Marsaglia-Tsang: one Gamma(shape) draw, shape >= 1."""
    dd = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * dd)
    while True:
        x = _gaussian(stream, 1)[0]
        u = _uniform(stream, 1)[0]
        cx = c * x
        if cx > -1.0:
            v = (1.0 + cx) * (1.0 + cx) * (1.0 + cx)
            bound = 0.5 * x * x + dd * (3.0 * math.log1p(cx) - cx * (3.0 + cx * (3.0 + cx)))
            if math.log1p(-u) < bound:
                return dd * v


def _inner_product(stream, sampler, d, cap):
    gamma, envelope, angle = sampler["gamma"], sampler["envelope"], sampler["angle"]
    if angle is not None:  # d = 2: a uniform angle on the cap or off it
        u = _uniform(stream, 1)[0]
        return math.cos(angle["angle"] * u if cap else angle["angle"] + angle["rest"] * u)
    if cap and envelope is not None:
        k, rate, length = envelope["k"], envelope["rate"], envelope["length"]
        while True:
            first, second = _uniform(stream, 1)[0], _uniform(stream, 1)[0]
            if length > 0:
                t = gamma + (1.0 - gamma) * (-math.log1p(first * envelope["shrink"]) / length)
            else:
                t = gamma + (1.0 - gamma) * first
            if t < 1.0:
                ratio = k * (math.log1p(-t * t) - envelope["base"]) + rate * (t - gamma)
                if math.log1p(-second) <= min(ratio, 0.0):
                    return t
    while True:
        g = _gaussian(stream, 1)[0]
        rest = 2.0 * _gamma(stream, (d - 1) / 2.0)
        t = g / math.sqrt(g * g + rest)
        if (t >= gamma) == cap:
            return t


def _perpendicular(stream, u):
    g = _gaussian(stream, len(u))
    along = _dot(g, u)
    w = [a - along * b for a, b in zip(g, u)]
    norm = math.sqrt(_dot(w, w))
    if norm == 0:  # probability 0: any perpendicular direction
        j = min(range(len(u)), key=lambda i: abs(u[i]))
        w = [-u[j] * b for b in u]
        w[j] += 1.0
        norm = math.sqrt(_dot(w, w))
    return [a / norm for a in w]


def _privunit(proto, x, stream):
    params, sampler = proto["mechanism"]["params"], proto["sampler"]
    d = params["d"]
    u = _unit_direction(stream, x, params["radius"])
    cap = _choose_one(stream, proto.law("keep", sampler["keep"])) == 0
    t = _inner_product(stream, sampler, d, cap)
    w = _perpendicular(stream, u)
    side = math.sqrt(max(0.0, (1.0 - t) * (1.0 + t)))
    bound = sampler["bound"]
    return _snap_all(stream, [bound * (t * a + side * b) for a, b in zip(u, w)], sampler["step"])


def _privunitg(proto, x, stream):
    params, sampler = proto["mechanism"]["params"], proto["sampler"]
    d, gamma, rate = params["d"], sampler["gamma"], sampler["rate"]
    u = _unit_direction(stream, x, params["radius"])
    tail = _choose_one(stream, proto.law("keep", sampler["keep"])) == 0
    while True:
        if tail:  # gamma + E/rate, kept when E' >= (z - rate)^2 / 2
            alpha = gamma + _exponential(stream, 1)[0] / rate
            if _exponential(stream, 1)[0] >= 0.5 * (alpha - rate) * (alpha - rate):
                break
        else:
            alpha = _gaussian_tails(stream, 1)[0]
            if alpha < gamma:
                break
    g = _gaussian_tails(stream, d)
    shift = alpha - _dot(g, u)
    scale = sampler["scale"]
    return _snap_all(stream, [scale * (a + shift * b) for a, b in zip(g, u)], sampler["step"])


_MECHANISMS = {
    "Channel": _channel,
    "GRR": _grr,
    "UE": _unary,
    "SUE": _unary,
    "OUE": _unary,
    "LH": _local_hashing,
    "OLH": _local_hashing,
    "BLH": _local_hashing,
    "HR": _hadamard,
    "SS": _subset,
    "Duchi": _duchi,
    "DuchiL2": _duchi_l2,
    "Laplace": _laplace,
    "Piecewise": _piecewise,
    "Hybrid": _hybrid,
    "SquareWave": _square_wave,
    "staircase": _staircase,
    "gaussian": _gaussian_noise,
    "cms": _cms,
    "hcms": _hcms,
    "privunit": _privunit,
    "privunitg": _privunitg,
}

_MEMO_FORMAT = "ldp-memo/1"

#: Memoized mechanisms: one round given the client's memo state.
_MEMOIZED = {
    "l-grr": _memo_grr,
    "l-osue": _memo_unary,
    "l-oue": _memo_unary,
    "rappor": _memo_unary,
    "dbitflip-pm": _memo_dbitflip,
}
_MECHANISMS.update({name: _first_round(function) for name, function in _MEMOIZED.items()})


# ----------------------------------------------------------------------------- Bloom RAPPOR
_BLOOM_LIMITS = {"num_bits": 1 << 16, "num_hashes": 8, "num_cohorts": 1 << 16}


def _bloom_params(params):
    if not isinstance(params, dict):
        raise TypeError("params must be a dict (num_bits, num_hashes, num_cohorts, f, p, q)")
    out = {}
    for name, limit in _BLOOM_LIMITS.items():
        value = params.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
            raise ValueError(f"params[{name!r}] must be an integer in 1 .. {limit}")
        out[name] = value
    for name in ("f", "p", "q"):
        value = params.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"params[{name!r}] must be a number")
        out[name] = float(value)
    if not (0.0 < out["f"] < 1.0 and 0.0 <= out["p"] < out["q"] <= 1.0):
        raise ValueError("params need 0 < f < 1 and 0 <= p < q <= 1")
    return out


def bloom_rappor_key(params):
    """The string that memos of this RAPPOR configuration carry (the library's ``key``)."""
    p = _bloom_params(params)
    doubles = ":".join(struct.pack(">d", p[name]).hex() for name in ("f", "p", "q"))
    return f"bloom-rappor:{p['num_bits']}:{p['num_hashes']}:{p['num_cohorts']}:{doubles}"


def bloom_positions(value, cohort, num_bits, num_hashes):
    """Bloom-filter bits of ``value`` in ``cohort``: SHA-256 of the 4-byte big-endian cohort
    and the UTF-8 value, 4-byte big-endian words modulo ``num_bits`` (one per hash)."""
    hashed = hashlib.sha256(cohort.to_bytes(4, "big") + value.encode("utf-8")).digest()
    return [int.from_bytes(hashed[4 * i : 4 * i + 4], "big") % num_bits for i in range(num_hashes)]


def bloom_rappor_round(params, value, memo=None, randbytes=os.urandom):
    """One report of RAPPOR with Bloom filters: ``({"cohort": j, "report": bits}, memo)``.

    ``params`` holds ``num_bits``, ``num_hashes``, ``num_cohorts``, ``f``, ``p``, ``q`` (as
    ``ldp.mechanisms.BloomRAPPOR``). A new client (``memo=None``) draws its cohort; the
    permanent response of each string is drawn once and kept in the memo, which stays on the
    device (never send it). Randomness is read in the library's order: the cohort, the
    permanent bits of a new string, then the instantaneous bits.
    """
    p = _bloom_params(params)
    if not isinstance(value, str):
        raise TypeError("the answer must be a string")
    key_text = bloom_rappor_key(p)
    stream = _Stream(randbytes)
    if memo is None:
        entries, sampled = {}, []
    else:
        if not isinstance(memo, dict) or memo.get("format") != _MEMO_FORMAT:
            raise ValueError("memo must be the dict returned by the previous round")
        if memo.get("mechanism") != key_text:
            raise ValueError("the memo belongs to another configuration")
        entries = {entry[0]: list(entry[1]) for entry in memo.get("entries", [])}
        sampled = list(memo.get("sampled", []))
    if not sampled:
        sampled = _randint(stream, p["num_cohorts"], 1)
    cohort = sampled[0]
    if not 0 <= cohort < p["num_cohorts"]:
        raise ValueError("the memo holds a cohort this configuration cannot draw")
    m = p["num_bits"]
    tag = hashlib.sha256(b"ldp-rappor-memo\x00" + value.encode("utf-8")).digest()
    key = int.from_bytes(tag[:8], "big") >> 12  # 52 bits: exact in JSON everywhere
    if key not in entries:
        half = p["f"] / 2.0
        laws = [_law((half, 1.0 - half)), _law((1.0 - half, half))]
        signal = [0] * m
        for position in bloom_positions(value, cohort, m, p["num_hashes"]):
            signal[position] = 1
        entries[key] = _pack([index == 0 for index in _choose(stream, laws, signal)])
    laws = [_law((p["p"], 1.0 - p["p"])), _law((p["q"], 1.0 - p["q"]))]
    drawn = _choose(stream, laws, _unpack(entries[key], m))
    document = {
        "format": _MEMO_FORMAT,
        "mechanism": key_text,
        "entries": [[k, list(entries[k])] for k in sorted(entries)],
        "sampled": [cohort],
    }
    return {"cohort": cohort, "report": [1 if index == 0 else 0 for index in drawn]}, document
