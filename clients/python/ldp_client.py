"""Privatize one answer on a device: the ldp protocol client, Python standard library only.

Copy this one file to the device (no numpy, no ldpkit). Given a protocol file published by
the server (``ldp design ... --out protocol.json``, or ``ldp.protocol.Protocol.save``) and
one answer, :func:`privatize` returns the record to send::

    import json, ldp_client
    text = open("protocol.json").read()
    policy = {"max_epsilon": 2.0}                    # the app's, never the server's
    print(ldp_client.verify(text, policy))           # the privacy this device computed
    record = ldp_client.privatize(text, "bike", policy=policy)
    # {"id": "9f0c...", "fingerprint": "34e331bdb88dbf66", "report": [7]}

The record's ``id`` is 16 random bytes (hex) from :func:`os.urandom`: a collector
(``ldp serve``) stores a record once whatever the number of times it is sent, so an upload
that failed can be retried as it is.

**The server is not trusted.** Before it draws anything, the client computes the privacy of
the draw it is about to make from the sampler constants it will actually use (exact rational
arithmetic: no rounding can make a leak look smaller) and refuses a file whose constants give
more than the file states, or more than the app's policy allows. :func:`verify` returns that
device-computed privacy for the app to show. :func:`privatize_with_ledger` also keeps a
privacy ledger (plain JSON the app stores) per question, keyed by what determines privacy,
and refuses a report that would exceed the app's budget. ``docs/protocol.md`` specifies the
file, the checks and the ledger.

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
import copy
import hashlib
import itertools
import json
import math
import os
import struct
import sys
import time
from fractions import Fraction

__all__ = [
    "MARGINALS",
    "MAX_DEPTH",
    "MAX_PROTOCOL_BYTES",
    "PROTOCOL_VERSION",
    "Protocol",
    "bloom_positions",
    "bloom_rappor_key",
    "bloom_rappor_round",
    "canonical_json",
    "channel_delta_within",
    "compare_exp",
    "exp_bounds",
    "gaussian_delta_within",
    "load_protocol",
    "log_up",
    "mechanism_key",
    "privatize",
    "privatize_round",
    "privatize_with_ledger",
    "read_json",
    "smallest_double",
    "verify",
]

#: The format version this client writes about and prefers; it reads 1 and 2.
PROTOCOL_VERSION = 2
_VERSIONS = (1, 2)
_FORMAT = "ldp-protocol"
#: Largest protocol file (bytes of its JSON text) a client reads.
MAX_PROTOCOL_BYTES = 8 << 20
#: Deepest nesting of arrays and objects a protocol file may have.
MAX_DEPTH = 16
#: A draw still undecided after this many rounds means a broken random source (all 0xFF
#: bytes, say): with real randomness that happens with probability below 2^-2048.
MAX_ROUNDS = 2048
#: A rejection sampler that has not accepted after this many proposals is given constants
#: it cannot sample (honest constants accept within a few dozen).
MAX_PROPOSALS = 1 << 16
_LN2 = 0.6931471805599453
_TWO_PI = 6.283185307179586
_MEMO_FORMAT = "ldp-memo/2"
_LEGACY_MEMO_FORMAT = "ldp-memo/1"
_LEDGER_FORMAT = "ldp-ledger/1"

#: Version-1 mechanism names and the canonical id each one reads as.
V1_NAMES = {
    "Channel": "channel",
    "GRR": "grr",
    "UE": "unary-encoding",
    "SUE": "sue",
    "OUE": "oue",
    "LH": "local-hashing",
    "OLH": "olh",
    "BLH": "blh",
    "HR": "hadamard-response",
    "SS": "subset-selection",
    "Duchi": "duchi",
    "DuchiL2": "duchi-l2",
    "Laplace": "laplace",
    "Piecewise": "piecewise",
    "Hybrid": "hybrid",
    "SquareWave": "square-wave",
    "staircase": "staircase",
    "gaussian": "gaussian",
    "cms": "cms",
    "hcms": "hcms",
    "privunit": "privunit",
    "privunitg": "privunitg",
    "l-grr": "l-grr",
    "l-osue": "l-osue",
    "l-oue": "l-oue",
    "rappor": "rappor",
    "dbitflip-pm": "dbitflip-pm",
}


# ----------------------------------------------------------------------------- JSON text
def _refuse_constant(name):
    raise ValueError(f"the protocol holds {name}, which is not a finite number")


def _unique_keys(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the protocol repeats the key {key[:40]!r} in one object")
        out[key] = value
    return out


def _text_depth(text):
    """The deepest nesting of ``[`` and ``{`` in JSON text (strings skipped)."""
    depth = deepest = 0
    inside = escaped = False
    for char in text:
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def _value_depth(value):
    """The deepest nesting of lists and dicts in ``value`` (no recursion)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return depth
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


_MAX_INT_DIGITS = 4300


def read_json(text):
    """The JSON value of a protocol file's text (``str`` or UTF-8 ``bytes``), read within the
    limits every reader applies: at most ``MAX_PROTOCOL_BYTES``, nesting at most
    ``MAX_DEPTH``, no key repeated within an object, no ``NaN`` or ``Infinity``. Refusals are
    one-line ``ValueError`` messages."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_PROTOCOL_BYTES:
            raise ValueError(f"the protocol is larger than {MAX_PROTOCOL_BYTES} bytes: refused")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the protocol is not UTF-8 text") from None
    if not isinstance(text, str):
        raise TypeError(f"the protocol's text must be str or bytes, not {type(text).__name__}")
    if len(text) > MAX_PROTOCOL_BYTES or len(text.encode("utf-8", "surrogatepass")) > (
        MAX_PROTOCOL_BYTES
    ):
        raise ValueError(f"the protocol is larger than {MAX_PROTOCOL_BYTES} bytes: refused")
    if _text_depth(text) > MAX_DEPTH:
        raise ValueError(f"the protocol nests deeper than {MAX_DEPTH} levels: refused")
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_refuse_constant,
            parse_int=_parse_int,
        )
    except RecursionError:  # pragma: no cover - the depth was checked
        raise ValueError("the protocol nests too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"the protocol is not valid JSON (truncated?): {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}"
        ) from None


def _parse_int(literal):
    """An integer literal, within the 4300 digits every reader of the format accepts."""
    if len(literal.lstrip("-")) > _MAX_INT_DIGITS:
        raise ValueError(
            f"the protocol is not valid JSON (truncated?): an integer of more than "
            f"{_MAX_INT_DIGITS} digits"
        )
    return int(literal)


def _parse(protocol):
    """The protocol as a dict: from its JSON text (str or bytes) or a dict, within limits."""
    if isinstance(protocol, (str, bytes, bytearray)):
        protocol = read_json(protocol)
    if not isinstance(protocol, dict):
        raise TypeError("protocol must be a dict or its JSON text")
    if _value_depth(protocol) > MAX_DEPTH:
        raise ValueError(f"the protocol nests deeper than {MAX_DEPTH} levels: refused")
    return protocol


# ----------------------------------------------------------------------------- canonical JSON
def _jcs_number(value):
    """A number as ECMAScript writes it (RFC 8785, section 3.2.2.3)."""
    if isinstance(value, int):
        if abs(value) > 1 << 53:
            raise ValueError("the protocol holds an integer above 2^53, which JSON cannot keep")
        value = float(value)
    if not math.isfinite(value):
        raise ValueError("the protocol holds a number that is not finite")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mark = "+" if e >= 0 else "-"
        head = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{head}e{mark}{abs(e)}"
    return sign + text


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
                  "\t": "\\t"}  # fmt: skip


def _jcs_string(text):
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            raise ValueError("the protocol holds a string that is not valid Unicode")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def canonical_json(value):
    """The RFC 8785 (JSON Canonicalization Scheme) text of a JSON value.

    Object keys sorted by their UTF-16 code units, no whitespace, strings escaped as
    ECMAScript's ``JSON.stringify`` does, numbers written as ECMAScript writes doubles; the
    version-2 fingerprint hashes this text, so any language can reproduce it exactly.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _jcs_number(value)
    if isinstance(value, str):
        return _jcs_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("the protocol holds an object key that is not a string")
        keys = sorted(value, key=lambda key: key.encode("utf-16-be", "surrogatepass"))
        return (
            "{"
            + ",".join(_jcs_string(key) + ":" + canonical_json(value[key]) for key in keys)
            + "}"
        )
    raise TypeError(f"the protocol holds a {type(value).__name__}, which JSON cannot carry")


def _v1_canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)  # fmt: skip


def _hash_hex(document):
    """SHA-256 (hex) of the document's canonical text, its ``fingerprint`` field excluded."""
    body = {key: value for key, value in document.items() if key != "fingerprint"}
    try:
        text = _v1_canonical(body) if document.get("version") == 1 else canonical_json(body)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"the protocol cannot be canonicalised: {exc}") from None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def mechanism_key(protocol):
    """32 hex digits naming what determines a protocol's privacy (its mechanism, parameters,
    sampler constants and domain; not its question, labels or version): the key memos and
    the privacy ledger are kept under, so that republishing a question keeps its memo."""
    proto = load_protocol(protocol)
    domain = {key: value for key, value in proto["domain"].items() if key != "labels"}
    body = {
        "domain": domain,
        "mechanism": {"name": proto.mechanism_id, "params": proto["mechanism"]["params"]},
        "sampler": proto["sampler"],
    }
    text = "ldp-mechanism/1:" + canonical_json(body)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# ----------------------------------------------------------------------------- exact numbers
#: Working precisions (bits) of the exact comparisons, tried in turn.
_PRECISIONS = (64, 128, 256, 1024, 4096, 16384)
_MAX_EXPONENT = 2000
_PI_DIGITS = (
    "31415926535897932384626433832795028841971693993751058209749445923078164062862089986280"
    "348253421170679821480865132823066470938446095505822317253594081284811174502841"
)
_PI_LOW = Fraction(int(_PI_DIGITS), 10 ** (len(_PI_DIGITS) - 1))
_PI_HIGH = _PI_LOW + Fraction(1, 10 ** (len(_PI_DIGITS) - 1))


def _exact(value, name):
    """A JSON number as an exact fraction (refuses booleans, non-numbers, non-finite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the protocol's {name} must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"the protocol's {name} must be finite")
    return Fraction(value)


def _ceil_div(a, b):
    return -((-a) // b)


def exp_bounds(t, bits):
    """Fractions ``lo <= e^t <= hi`` (relative gap about ``2^-bits``), ``|t| <= 2000``."""
    if t < 0:
        lo, hi = exp_bounds(-t, bits)
        return 1 / hi, 1 / lo
    if t == 0:
        return Fraction(1), Fraction(1)
    s = max(0, math.ceil(math.log2(t)) + 1)
    y = t / (1 << s)
    precision = bits + s + 16
    one = 1 << precision
    num, den = y.numerator, y.denominator
    lo_sum = hi_sum = 0
    lo_term = hi_term = one
    n = 0
    while True:
        lo_sum += lo_term
        hi_sum += hi_term
        n += 1
        lo_term = (lo_term * num) // (den * n)
        hi_term = _ceil_div(hi_term * num, den * n)
        if hi_term <= 1:
            break
    lo_int, hi_int = lo_sum, hi_sum + 2 * hi_term
    for _ in range(s):
        lo_int = (lo_int * lo_int) >> precision
        hi_int = _ceil_div(hi_int * hi_int, one)
    return Fraction(lo_int, one), Fraction(hi_int, one)


def _exp_range(t, bits):
    """Bounds ``(lo, hi)`` on ``e^t`` for ``t >= 0``; beyond ``t = 2000``, ``lo = e^2000``
    (still a lower bound) and ``hi = None`` (unbounded)."""
    if t <= _MAX_EXPONENT:
        return exp_bounds(t, bits)
    lo, _ = exp_bounds(Fraction(_MAX_EXPONENT), bits)
    return lo, None


def compare_exp(ratio, t):
    """The sign of ``ratio - e^t`` for fractions, decided exactly."""
    if t == 0:
        return (ratio > 1) - (ratio < 1)
    if ratio <= 0:
        return -1
    if abs(t) > _MAX_EXPONENT:
        raise ValueError("the protocol's privacy level is too large to compare")
    for bits in _PRECISIONS:
        lo, hi = exp_bounds(t, bits)
        if ratio < lo:
            return -1
        if ratio > hi:
            return 1
    raise ValueError("the privacy of the protocol could not be decided")  # pragma: no cover


def log_up(ratio):
    """The smallest double ``t >= 0`` with ``e^t >= ratio`` (``inf`` for ``None``)."""
    if ratio is None:
        return math.inf
    if ratio <= 1:
        return 0.0
    if ratio < 2:  # log1p of the exact excess keeps the relative precision of small levels
        guess = math.log1p(float(ratio - 1))
    else:
        guess = math.log(ratio.numerator) - math.log(ratio.denominator)
    if guess > _MAX_EXPONENT:
        return math.inf
    return smallest_double(lambda t: compare_exp(ratio, Fraction(t)) <= 0, max(guess, 0.0))


def smallest_double(holds, guess):
    """The smallest double ``t >= 0`` with ``holds(t)`` (``holds`` is monotone), searched
    from ``guess``: steps that double until the answer is bracketed, then bisection over the
    doubles (ordered as their bit patterns)."""

    def ordinal(t):
        return struct.unpack("<q", struct.pack("<d", t))[0]

    def double(i):
        return struct.unpack("<d", struct.pack("<q", i))[0]

    here = ordinal(guess)
    step = 1
    if holds(guess):
        high = here
        while True:
            low = max(high - step, 0)
            if low == 0 and holds(0.0):
                return 0.0
            if not holds(double(low)):
                break
            high, step = low, step * 2
    else:
        low = here
        while True:
            high = min(low + step, _LIMIT_ORDINAL)
            if holds(double(high)):
                break
            if high == _LIMIT_ORDINAL:
                raise ValueError(f"no double up to {_MAX_EXPONENT} satisfies the condition")
            low, step = high, step * 2
    while high - low > 1:
        middle = (low + high) // 2
        if holds(double(middle)):
            high = middle
        else:
            low = middle
    return double(high)


#: The bit pattern of 2000.0: searches over the doubles stay below it.
_LIMIT_ORDINAL = struct.unpack("<q", struct.pack("<d", float(_MAX_EXPONENT)))[0]


_LARGEST_DOUBLE = Fraction(sys.float_info.max)


def _float_up(value):
    """The smallest double at least the fraction ``value`` (``inf`` beyond the largest)."""
    if value > _LARGEST_DOUBLE:
        return math.inf
    out = float(value)
    while Fraction(out) < value:
        out = math.nextafter(out, math.inf)
    return out


def _sqrt_bounds(value, bits):
    """Fractions ``lo <= sqrt(value) <= hi`` for a fraction ``value >= 0``."""
    scale = 1 << (2 * bits)
    low = math.isqrt((value.numerator * scale) // value.denominator)
    high = math.isqrt(_ceil_div(value.numerator * scale, value.denominator)) + 1
    return Fraction(low, 1 << bits), Fraction(high, 1 << bits)


def _phi_lower_tail(x, bits):
    """Fractions bounding ``Phi(-x)`` for a fraction ``x >= 0`` (standard normal law).

    ``x <= 3``: ``1/2 - S / sqrt(2 pi)`` with the alternating series
    ``S = sum (-1)^n x^(2n+1) / (2^n n! (2n+1))``, whose partial sums bracket ``S`` once its
    terms decrease (``n >= 3``). ``x > 3``: ``phi(x) R(x)`` with the Laplace continued
    fraction ``R(x) = 1/(x + 1/(x + 2/(x + ...)))``, whose successive convergents bracket it.
    """
    hi_c = 1 / _sqrt_bounds(2 * _PI_LOW, bits + 8)[0]
    lo_c = 1 / _sqrt_bounds(2 * _PI_HIGH, bits + 8)[1]
    tolerance = Fraction(1, 1 << (bits + 8))
    if x <= 3:
        square = x * x
        term, total, n = x, x, 0
        while True:
            n += 1
            term = term * square * (2 * n - 1) / (2 * n * (2 * n + 1))
            previous = total
            total = total - term if n % 2 else total + term
            if n >= 4 and term < tolerance:
                break
        low_s, high_s = min(previous, total), max(previous, total)
        low_s = max(low_s, Fraction(0))
        return Fraction(1, 2) - hi_c * high_s, Fraction(1, 2) - lo_c * low_s
    half_square = x * x / 2
    if half_square > _MAX_EXPONENT:
        return Fraction(0), Fraction(1, 1 << 2800)
    exp_lo, exp_hi = exp_bounds(-half_square, bits + 8)
    depth = 8
    while True:
        convergents = []
        for size in (depth, depth + 1):
            tail = Fraction(0)
            for j in range(size, 0, -1):
                tail = j / (x + tail)
            convergents.append(1 / (x + tail))
        low_r, high_r = min(convergents), max(convergents)
        if high_r - low_r <= low_r * tolerance or depth > 4096:
            break
        depth *= 2
    return lo_c * exp_lo * low_r, hi_c * exp_hi * high_r


def _phi_bounds(x, bits):
    """Fractions bounding the standard normal distribution function at the fraction ``x``."""
    if x <= 0:
        return _phi_lower_tail(-x, bits)
    lo, hi = _phi_lower_tail(x, bits)
    return 1 - hi, 1 - lo


def _gaussian_delta_within(mu, epsilon, delta):
    """Whether ``Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) <= delta``, certified (the
    mu-GDP privacy profile of Dong, Roth and Su 2022); ``False`` when it cannot be shown."""
    a = mu / 2 - epsilon / mu
    b = -mu / 2 - epsilon / mu
    for bits in (64, 128, 256):
        phi_a = _phi_bounds(a, bits)
        phi_b = _phi_bounds(b, bits)
        exp_lo, exp_hi = _exp_range(epsilon, bits)
        upper = phi_a[1] - exp_lo * phi_b[0]
        if upper <= delta:
            return True
        if exp_hi is not None and phi_a[0] - exp_hi * phi_b[1] > delta:
            return False
    return False


# ----------------------------------------------------------------------------- the checks
def _integer(value, name, low, high=1 << 53):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"the protocol's {name} must be an integer in {low} .. {high}")
    return value


def _positive(value, name):
    out = _exact(value, name)
    if out <= 0:
        raise ValueError(f"the protocol's {name} must be positive")
    return out


def _weights(sampler, key, count=2):
    """The probabilities of the weights ``sampler[key]`` (exact fractions)."""
    weights = sampler.get(key) if isinstance(sampler, dict) else None
    if not isinstance(weights, list) or len(weights) != count:
        raise ValueError(f"the protocol's sampler.{key} must be a list of {count} weights")
    exact = [_exact(w, f"sampler.{key}") for w in weights]
    if any(w < 0 for w in exact) or sum(exact) == 0:
        raise ValueError(f"the protocol's sampler.{key} must be non-negative, not all zero")
    total = sum(exact)
    return [w / total for w in exact]


def _ratio(a, b):
    """``a / b`` for probabilities; ``None`` (infinite) when only ``b`` is zero."""
    if b == 0:
        return None if a > 0 else Fraction(1)
    return a / b


def _largest(*ratios):
    """The largest ratio (``None`` is infinite)."""
    if any(r is None for r in ratios):
        return None
    return max(ratios)


def _two_sided(p, q):
    """``max(p/q, q/p)``: the ratio of one report probability under two inputs."""
    return _largest(_ratio(p, q), _ratio(q, p))


def _randomized_response(keep, outputs):
    """Keep with probability ``keep``, else one of ``outputs - 1`` others uniformly."""
    return _two_sided(keep * (outputs - 1), 1 - keep)


def _unary_ratio(own, other):
    """Two inputs change two independent bits: ``own`` and ``other`` are the probabilities
    of a 1 for the input's own bit and for any other bit."""
    up = _largest(_ratio(own, other), _ratio(1 - own, 1 - other))
    down = _largest(_ratio(other, own), _ratio(1 - other, 1 - own))
    if up is None or down is None:
        return None
    return up * down


def _one_bit_ratio(own, other):
    """Two inputs change one bit (the other input's bit is not reported)."""
    return _largest(*(_two_sided(a, b) for a, b in ((own, other), (1 - own, 1 - other))))


def _categorical(proto, k):
    domain = proto["domain"]
    if domain.get("type") != "categorical" or domain.get("k") != k:
        raise ValueError(f"{proto.mechanism_id}: the domain must be {k} categories")


def _numeric(proto, dimension=1):
    domain = proto["domain"]
    if domain.get("type") != "interval" or domain.get("dimension") != dimension:
        raise ValueError(f"{proto.mechanism_id}: the domain must be an interval of dimension "
                         f"{dimension}")  # fmt: skip


def _ball(proto, d, radius):
    domain = proto["domain"]
    if (
        domain.get("type") != "ball"
        or domain.get("dimension") != d
        or (_exact(domain.get("radius"), "domain.radius") != radius)
    ):
        raise ValueError(f"{proto.mechanism_id}: the domain must be the ball of the mechanism")


def _params(proto):
    params = proto["mechanism"].get("params")
    if not isinstance(params, dict):
        raise ValueError("the protocol's mechanism.params must be an object")
    return params


def _step(sampler):
    _positive(sampler.get("step"), "sampler.step")


# each returns (ratio or None, level or None, extra): the privacy of one report as the largest
# likelihood ratio (None: infinite) or as a level epsilon itself, and for memoized mechanisms
# the ratio of the permanent response
def _check_channel(proto):
    matrix = _params(proto).get("matrix")
    if not isinstance(matrix, list) or len(matrix) < 2:
        raise ValueError("channel: params.matrix must be a list of at least 2 rows")
    width = len(matrix[0]) if isinstance(matrix[0], list) else 0
    if width < 1 or any(not isinstance(row, list) or len(row) != width for row in matrix):
        raise ValueError("channel: the rows of params.matrix must be lists of one length")
    _categorical(proto, len(matrix))
    rows = []
    for row in matrix:
        exact = [_exact(w, "params.matrix") for w in row]
        if any(w < 0 for w in exact) or sum(exact) == 0:
            raise ValueError("channel: a row of params.matrix is negative or all zero")
        rows.append(exact)
    return rows


def _channel_probabilities(rows):
    totals = [sum(row) for row in rows]
    return [[w / total for w in row] for row, total in zip(rows, totals)]


def _channel_ratio(rows):
    floats = [[float(w) for w in row] for row in rows]
    totals = [math.fsum(row) for row in floats]
    exact_totals = [sum(row) for row in rows]
    worst = Fraction(1)
    for z in range(len(rows[0])):
        column = [row[z] / total for row, total in zip(floats, totals)]
        high, low = max(column), min(column)
        if low < 1e-280:  # near underflow: every row is a candidate
            tops = bottoms = range(len(rows))
        else:
            tops = [x for x, v in enumerate(column) if v >= high * (1 - 1e-9)]
            bottoms = [x for x, v in enumerate(column) if v <= low * (1 + 1e-9)]
        top = max(rows[x][z] / exact_totals[x] for x in tops)
        bottom = min(rows[x][z] / exact_totals[x] for x in bottoms)
        if bottom == 0:
            if top > 0:
                return None
            continue
        worst = max(worst, top / bottom)
    return worst


def _channel_delta_within(rows, epsilon, delta):
    """Whether ``max_{x, x'} sum_z max(0, P(z|x) - e^eps P(z|x')) <= delta``, exactly."""
    k, m = len(rows), len(rows[0])
    if k * k * m > 1 << 22:
        raise ValueError("channel: too large to verify a delta > 0 on a device (k^2 m > 2^22)")
    probabilities = _channel_probabilities(rows)
    for bits in (64, 256, 1024):
        exp_lo, exp_hi = _exp_range(epsilon, bits)
        upper = lower = Fraction(0)
        for x in range(k):
            for y in range(k):
                if x == y:
                    continue
                px, py = probabilities[x], probabilities[y]
                upper = max(upper, _excess(px, py, exp_lo))
                if exp_hi is not None:
                    lower = max(lower, _excess(px, py, exp_hi))
        if upper <= delta:
            return True
        if exp_hi is not None and lower > delta:
            return False
    return False


def _excess(first, second, factor):
    """``sum_z max(0, first[z] - factor second[z])``."""
    return sum(max(Fraction(0), a - factor * b) for a, b in zip(first, second))


def _check_grr(proto):
    k = _integer(_params(proto).get("k"), "params.k", 2)
    _categorical(proto, k)
    keep = _weights(proto["sampler"], "keep")[0]
    return _randomized_response(keep, k), None, None


def _check_unary(proto):
    k = _integer(_params(proto).get("k"), "params.k", 2)
    _categorical(proto, k)
    own = _weights(proto["sampler"], "own")[0]
    other = _weights(proto["sampler"], "other")[0]
    return _unary_ratio(own, other), None, None


def _check_local_hashing(proto):
    k = _integer(_params(proto).get("k"), "params.k", 2)
    _categorical(proto, k)
    sampler = proto["sampler"]
    g = _integer(sampler.get("g"), "sampler.g", 2)
    family = sampler.get("hash")
    if not isinstance(family, dict):
        raise ValueError("the protocol's sampler.hash must be an object")
    fields = family.get("fields")
    words = family.get("words")
    if not isinstance(fields, list) or not fields or not isinstance(words, list):
        raise ValueError("the protocol's sampler.hash must have fields and words")
    for size in fields:
        _integer(size, "sampler.hash.fields", 1)
    used = []
    for word in words:
        if not isinstance(word, list) or not word:
            raise ValueError("the protocol's sampler.hash.words must be lists of field indices")
        size = 1
        for i in word:
            _integer(i, "sampler.hash.words", 0, len(fields) - 1)
            size *= fields[i]
            used.append(i)
        if size > 1 << 53:
            raise ValueError("the protocol's sampler.hash packs a word above 2^53")
    if sorted(used) != list(range(len(fields))):
        raise ValueError("the protocol's sampler.hash.words must use every field once")
    kind = family.get("family")
    if kind == "ring":
        bits = _integer(family.get("bits"), "sampler.hash.bits", 1, 64)
        if family.get("modulus") != g or len(fields) != bits + 1:
            raise ValueError("the ring hash must have modulus g and bits + 1 fields")
    elif kind == "field":
        p = _integer(family.get("prime"), "sampler.hash.prime", 2, 1 << 26)
        power = _integer(family.get("power"), "sampler.hash.power", 1, 64)
        digits = _integer(family.get("digits"), "sampler.hash.digits", 1, 64)
        if any(p % f == 0 for f in range(2, math.isqrt(p) + 1)) or p**power != g:
            raise ValueError("the field hash must have a prime p with p^power = g")
        if (
            len(fields) != power + 1
            or fields[power] != g
            or any(size != p**digits for size in fields[:power])
        ):
            raise ValueError("the field hash must have power rows of p^digits and then g")
    else:
        raise ValueError("the protocol's sampler.hash.family must be 'ring' or 'field'")
    keep = _weights(sampler, "keep")[0]
    return _randomized_response(keep, g), None, None


def _check_hadamard(proto):
    k = _integer(_params(proto).get("k"), "params.k", 2)
    _categorical(proto, k)
    big = _integer(proto["sampler"].get("K"), "sampler.K", 2)
    if big & (big - 1) or big <= k:
        raise ValueError("hadamard-response: sampler.K must be a power of two above k")
    keep = _weights(proto["sampler"], "keep")[0]
    return _two_sided(keep, 1 - keep), None, None


def _check_subset(proto):
    params, sampler = _params(proto), proto["sampler"]
    k = _integer(params.get("k"), "params.k", 2)
    _categorical(proto, k)
    d = _integer(sampler.get("d"), "sampler.d", 1, k - 1)
    if sampler.get("members", "rejection") != "rejection":
        raise ValueError("subset-selection: sampler.members must be 'rejection'")
    if "bernoulli_bits" in sampler:
        _integer(sampler["bernoulli_bits"], "sampler.bernoulli_bits", 0, 3)
    include = _weights(sampler, "include")[0]
    # a subset holding x has probability include / C(k-1, d-1) under x and
    # (1 - include) / C(k-1, d) under x' (it then does not hold x'): ratio include (k-d) / d
    return _two_sided(include * (k - d), (1 - include) * d), None, None


def _check_coin(proto, sampler):
    keep = _weights(sampler, "keep")[0]
    return _two_sided(keep, 1 - keep)


def _check_duchi(proto):
    d = _integer(_params(proto).get("d"), "params.d", 1, 1 << 31)
    _numeric(proto, d)
    return _check_coin(proto, proto["sampler"]), None, None


def _check_duchi_l2(proto):
    params = _params(proto)
    d = _integer(params.get("d"), "params.d", 1, 1 << 31)
    _ball(proto, d, _positive(params.get("radius"), "params.radius"))
    _positive(proto["sampler"].get("bound"), "sampler.bound")
    return _check_coin(proto, proto["sampler"]), None, None


def _check_laplace(proto):
    _numeric(proto)
    _step(proto["sampler"])
    scale = _positive(proto["sampler"].get("scale"), "sampler.scale")
    return None, 2 / scale, None  # density ratio e^(|x - x'| / scale), |x - x'| <= 2


def _piecewise_ratio(sampler):
    if not isinstance(sampler, dict):
        raise ValueError("the protocol's piecewise constants must be an object")
    _step(sampler)
    c = _exact(sampler.get("C"), "sampler.C")
    width = _exact(sampler.get("width"), "sampler.width")
    if not c > 1 or width != c - 1:
        raise ValueError("piecewise: sampler.C must exceed 1 and sampler.width be C - 1")
    keep = _weights(sampler, "keep")[0]
    # the window (length width) has mass keep, the tails (length C + 1) the rest
    return _two_sided(keep * (c + 1), (1 - keep) * width)


def _check_piecewise(proto):
    _numeric(proto)
    return _piecewise_ratio(proto["sampler"]), None, None


def _check_hybrid(proto):
    _numeric(proto)
    sampler = proto["sampler"]
    _positive(sampler.get("bound"), "sampler.bound")
    duchi = sampler.get("duchi")
    if not isinstance(duchi, dict):
        raise ValueError("hybrid: sampler.duchi must be an object")
    ratios = [_check_coin(proto, duchi)]
    if sampler.get("mix") is not None:
        _weights(sampler, "mix")
        ratios.append(_piecewise_ratio(sampler.get("piecewise")))
    return _largest(*ratios), None, None  # a mixture is no worse than its worst part


def _check_square_wave(proto):
    _numeric(proto)
    sampler = proto["sampler"]
    _step(sampler)
    b = _positive(sampler.get("b"), "sampler.b")
    near = _weights(sampler, "keep")[0]
    # mass near on [v - b, v + b] (length 2b), the rest on length 1
    return _two_sided(near, (1 - near) * 2 * b), None, None


def _check_staircase(proto):
    _numeric(proto)
    sampler = proto["sampler"]
    _step(sampler)
    b = _exact(sampler.get("b"), "sampler.b")
    p0 = _exact(sampler.get("p0"), "sampler.p0")
    gamma = _exact(sampler.get("gamma"), "sampler.gamma")
    sensitivity = _exact(sampler.get("sensitivity"), "sampler.sensitivity")
    if not (0 < b < 1 and 0 <= p0 <= 1 and 0 <= gamma <= 1 and sensitivity >= 2):
        raise ValueError("staircase: needs 0 < b < 1, p0 and gamma in [0, 1], sensitivity >= 2")
    if 1 - b < Fraction(1, 1 << 24):
        raise ValueError("staircase: sampler.b is so close to 1 that sampling would not end")
    if gamma in (0, 1):
        if p0 != gamma:
            raise ValueError("staircase: a step of zero width must have no mass")
        return 1 / b, None, None
    # density levels along |noise|: b^g p0/gamma, then b^g (1-p0)/(1-gamma); two points at
    # most `sensitivity` apart are in one step, adjacent steps or the same step of the
    # next period
    low, high = p0 / gamma, (1 - p0) / (1 - gamma)
    if low == 0 or high == 0:
        return None, None, None
    return max(1 / b, low / high, high / low, high / (b * low), b * low / high), None, None


def _check_gaussian(proto):
    _numeric(proto)
    _step(proto["sampler"])
    return None, None, 2 / _positive(proto["sampler"].get("sigma"), "sampler.sigma")


def _check_items(proto):
    if proto["domain"].get("type") != "items":
        raise ValueError(f"{proto.mechanism_id}: the domain must be items")
    params = _params(proto)
    width = _integer(params.get("width"), "params.width", 1, 1 << 24)
    _integer(params.get("depth"), "params.depth", 1, 1 << 24)
    if not isinstance(params.get("salt"), str):
        raise ValueError("the protocol's params.salt must be a string")
    return width


def _check_cms(proto):
    width = _check_items(proto)
    own = _weights(proto["sampler"], "own")[0]
    other = _weights(proto["sampler"], "other")[0]
    return (_unary_ratio(own, other) if width > 1 else Fraction(1)), None, None


def _check_hcms(proto):
    width = _check_items(proto)
    if width & (width - 1):
        raise ValueError("hcms: params.width must be a power of two")
    return _check_coin(proto, proto["sampler"]), None, None


def _check_uncertified(proto):
    params = _params(proto)
    d = _integer(params.get("d"), "params.d", 2, 1 << 24)
    _ball(proto, d, _positive(params.get("radius"), "params.radius"))
    return "uncertified", None, None


def _check_lgrr(proto):
    k = _integer(_params(proto).get("k"), "params.k", 2)
    _categorical(proto, k)
    p1 = _weights(proto["sampler"], "permanent")[0]
    p2 = _weights(proto["sampler"], "instant")[0]
    same = p1 * p2 + (1 - p1) * (1 - p2) / (k - 1)  # the two rounds make one k-RR
    return _randomized_response(same, k), None, _randomized_response(p1, k)


def _check_memo_unary(proto):
    k = _integer(_params(proto).get("k"), "params.k", 2)
    _categorical(proto, k)
    sampler = proto["sampler"]
    own, other = _weights(sampler, "own")[0], _weights(sampler, "other")[0]
    one, zero = _weights(sampler, "one")[0], _weights(sampler, "zero")[0]
    reported_own = own * one + (1 - own) * zero
    reported_other = other * one + (1 - other) * zero
    return _unary_ratio(reported_own, reported_other), None, _unary_ratio(own, other)


def _check_dbitflip(proto):
    params = _params(proto)
    k = _integer(params.get("k"), "params.k", 2)
    b = _integer(params.get("b"), "params.b", 1, k)
    d = _integer(params.get("d"), "params.d", 1, b)
    _categorical(proto, k)
    own = _weights(proto["sampler"], "own")[0]
    other = _weights(proto["sampler"], "other")[0]
    if b == 1:
        ratio = Fraction(1)
    elif d == 1:
        ratio = _one_bit_ratio(own, other)
    else:
        ratio = _largest(_unary_ratio(own, other), _one_bit_ratio(own, other))
    return ratio, None, ratio  # no fresh noise per round: a report is its permanent part


_CHECKS = {
    "channel": None,  # special: a delta > 0 can be stated
    "grr": _check_grr,
    "unary-encoding": _check_unary,
    "sue": _check_unary,
    "oue": _check_unary,
    "local-hashing": _check_local_hashing,
    "olh": _check_local_hashing,
    "blh": _check_local_hashing,
    "hadamard-response": _check_hadamard,
    "subset-selection": _check_subset,
    "duchi": _check_duchi,
    "duchi-l2": _check_duchi_l2,
    "laplace": _check_laplace,
    "piecewise": _check_piecewise,
    "hybrid": _check_hybrid,
    "square-wave": _check_square_wave,
    "staircase": _check_staircase,
    "gaussian": _check_gaussian,
    "cms": _check_cms,
    "hcms": _check_hcms,
    "privunit": _check_uncertified,
    "privunitg": _check_uncertified,
    "l-grr": _check_lgrr,
    "l-osue": _check_memo_unary,
    "l-oue": _check_memo_unary,
    "rappor": _check_memo_unary,
    "dbitflip-pm": _check_dbitflip,
}


def _stated(proto):
    privacy = proto["privacy"]
    if not isinstance(privacy, dict):
        raise ValueError("the protocol's privacy must be an object")
    epsilon = _exact(privacy.get("epsilon"), "privacy.epsilon")
    delta = _exact(privacy.get("delta"), "privacy.delta")
    if epsilon < 0 or not 0 <= delta < 1:
        raise ValueError("the protocol's privacy needs epsilon >= 0 and delta in [0, 1)")
    return epsilon, delta


def _refuse(proto, computed, stated):
    return ValueError(
        f"{proto.mechanism_id}: the sampler constants give {computed} (computed on this device), "
        f"above the {stated} the protocol states: refused"
    )


def _device_privacy(proto):
    """The privacy of one report, computed from the constants this client will use."""
    name = proto.mechanism_id
    if not isinstance(proto["sampler"], dict):
        raise ValueError("the protocol's sampler must be an object")
    epsilon, delta = _stated(proto)
    out = {"mechanism": name, "delta": float(delta), "certified": True}
    if name == "channel":
        rows = _check_channel(proto)
        if delta == 0:
            ratio = _channel_ratio(rows)
            if ratio is not None and compare_exp(ratio, epsilon) <= 0:
                out["epsilon"] = log_up(ratio)
                return out
            raise _refuse(proto, f"epsilon = {log_up(ratio)!r}", f"epsilon = {float(epsilon)!r}")
        if not _channel_delta_within(rows, epsilon, delta):
            raise _refuse(proto, f"a delta above {float(delta)!r} at epsilon = "
                          f"{float(epsilon)!r}", f"delta = {float(delta)!r}")  # fmt: skip
        out["epsilon"] = float(epsilon)
        return out
    ratio, level, extra = _CHECKS[name](proto)
    if ratio == "uncertified":
        out.update(epsilon=float(epsilon), certified=False)
        return out
    if name == "gaussian":
        mu = extra
        if delta == 0 or not _gaussian_delta_within(mu, epsilon, delta):
            raise _refuse(proto, f"mu = {_float_up(mu)!r} (delta above the stated one at "
                          f"epsilon = {float(epsilon)!r})",
                          f"delta = {float(delta)!r}")  # fmt: skip
        out.update(epsilon=float(epsilon), mu=_float_up(mu))
        return out
    if level is not None:
        if level > epsilon:
            raise _refuse(proto, f"epsilon = {_float_up(level)!r}", f"epsilon = {float(epsilon)!r}")
        out["epsilon"] = _float_up(level)
    else:
        if ratio is None or compare_exp(ratio, epsilon) > 0:
            raise _refuse(proto, f"epsilon = {log_up(ratio)!r}", f"epsilon = {float(epsilon)!r}")
        out["epsilon"] = log_up(ratio)
    if name in _MEMO_NAMES:
        out["epsilon_permanent"] = log_up(extra)
    return out


_MEMO_NAMES = ("l-grr", "l-osue", "l-oue", "rappor", "dbitflip-pm")


def gaussian_delta_within(mu, epsilon, delta):
    """Whether ``Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) <= delta``, certified in
    exact arithmetic (the check a device makes of a Gaussian protocol's stated pair).

    ``mu``, ``epsilon`` and ``delta`` are numbers or fractions; ``False`` when the bound
    cannot be shown.
    """
    return _gaussian_delta_within(_rational(mu, "mu"), _rational(epsilon, "epsilon"),
                                  _rational(delta, "delta"))  # fmt: skip


def channel_delta_within(matrix, epsilon, delta):
    """Whether a channel's profile ``max_{x, x'} sum_z max(0, P(z|x) - e^eps P(z|x'))`` is at
    most ``delta`` at ``epsilon``, for the rows of ``matrix`` divided by their exact sums
    (the check a device makes of a channel stated with ``delta > 0``)."""
    rows = [[_rational(w, "matrix") for w in row] for row in matrix]
    return _channel_delta_within(rows, _rational(epsilon, "epsilon"), _rational(delta, "delta"))


def _rational(value, name):
    return value if isinstance(value, Fraction) else _exact(value, name)


# ----------------------------------------------------------------------------- the protocol
class Protocol(dict):
    """A checked protocol (a dict): pass it to :func:`privatize` to skip checking it again.
    Only :func:`load_protocol` makes one; treat it as read-only.

    ``mechanism_id`` is the canonical mechanism id, ``pin`` the SHA-256 (64 hex digits) of its
    canonical text, ``privacy`` the privacy this client computed from its constants.
    """

    mechanism_id: str
    pin: str
    privacy: dict

    def law(self, key, weights):
        """The exact law of ``weights``, computed once per protocol."""
        cache = self.__dict__.setdefault("_laws", {})
        if key not in cache:
            cache[key] = _law(weights)
        return cache[key]


def load_protocol(protocol):
    """The protocol as a checked :class:`Protocol`: from its JSON text, bytes, or a dict.

    Refuses (``ValueError``/``TypeError``, one line) a file above ``MAX_PROTOCOL_BYTES`` or
    nested deeper than ``MAX_DEPTH``, repeated keys, a version other than 1 or 2 (an
    integer), a missing field, a fingerprint that does not match the content, an unknown
    mechanism, constants this client cannot sample, and constants whose privacy (computed
    here, exactly) exceeds the privacy the file states.
    """
    if isinstance(protocol, Protocol) and hasattr(protocol, "privacy"):
        return protocol  # checked by this function already
    document = _parse(dict(protocol) if isinstance(protocol, Protocol) else protocol)
    if document.get("format") != _FORMAT:
        raise ValueError("not an ldp protocol file (its format is not 'ldp-protocol')")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version not in _VERSIONS:
        raise ValueError(
            f"unsupported protocol version {str(version)[:20]!r}; this client reads versions "
            "1 and 2 (integers)"
        )
    for key in ("domain", "mechanism", "sampler", "report", "privacy", "fingerprint"):
        if key not in document:
            raise ValueError(f"the protocol lacks its {key!r} field")
    content_hash = _hash_hex(document)
    if content_hash[:16] != document["fingerprint"]:
        raise ValueError("the protocol's fingerprint does not match its content")
    if not isinstance(document["mechanism"], dict) or not isinstance(document["domain"], dict):
        raise ValueError("the protocol's mechanism and domain must be objects")
    name = document["mechanism"].get("name")
    if name == MARGINALS and version == 2:
        return _load_marginals(document, content_hash)
    canonical = V1_NAMES.get(name) if version == 1 else name
    if canonical not in _CHECKS or (version == 2 and name not in V1_NAMES.values()):
        raise ValueError(f"unknown mechanism {str(name)[:40]!r}")
    proto = Protocol(document)
    proto.mechanism_id = canonical
    proto.pin = content_hash
    proto.privacy = _device_privacy(proto)
    _check_answers(proto)
    return proto


def _check_answers(proto):
    """What the sampler reads of the answers' domain beyond what the privacy checks constrain:
    refused here, before anything is drawn."""
    domain = proto["domain"]
    if domain.get("type") == "categorical":
        labels = domain.get("labels", _MISSING)
        if labels is not None and not (
            isinstance(labels, list)
            and len(labels) == domain["k"]
            and all(_label_key(label) is not None for label in labels)
        ):
            raise ValueError(
                f"the protocol's domain.labels must be null or a list of {domain['k']} labels "
                "(strings, finite numbers or booleans)"
            )
    elif domain.get("type") == "interval":
        low, high = domain.get("low"), domain.get("high")
        if not (_is_number(low) and _is_number(high) and low < high):
            raise ValueError(
                "the protocol's domain.low and domain.high must be numbers, low < high"
            )


_MISSING = object()

# ----------------------------------------------------------------------------- marginals
#: The mechanism id of a marginals protocol: a row of a table, one group of its columns drawn
#: uniformly on the device, that group's cell (or parity bit) through the group's protocol.
MARGINALS = "marginals"
#: Most columns and groups a marginals protocol may have.
MAX_COLUMNS = 256
MAX_GROUPS = 4096
_MARGINAL_METHODS = ("joint", "groups", "fourier")


def _table_columns(domain):
    columns = domain.get("columns") if domain.get("type") == "table" else None
    if set(domain) != {"type", "columns"} or not isinstance(columns, list):
        raise ValueError("a marginals protocol's domain must be {'type': 'table', 'columns': "
                         "[...]}")  # fmt: skip
    if not 1 <= len(columns) <= MAX_COLUMNS:
        raise ValueError(f"a marginals protocol must have 1 .. {MAX_COLUMNS} columns")
    names = set()
    for j, column in enumerate(columns):
        if not isinstance(column, dict) or set(column) != {"name", "k", "labels"}:
            raise ValueError(f"the protocol's domain.columns[{j}] must have name, k and labels")
        if not isinstance(column["name"], str) or column["name"] in names:
            raise ValueError(f"the protocol's domain.columns[{j}].name must be a new string")
        names.add(column["name"])
        k = _integer(column["k"], f"domain.columns[{j}].k", 1)
        labels = column["labels"]
        if labels is not None and not (
            isinstance(labels, list)
            and len(labels) == k
            and all(_label_key(label) is not None for label in labels)
            and len({_label_key(label) for label in labels}) == k
        ):
            raise ValueError(
                f"the protocol's domain.columns[{j}].labels must be null or a list of {k} "
                "distinct labels (strings, finite numbers or booleans)"
            )
    return columns


def _column_indices(value, count, name):
    if not isinstance(value, list) or not value:
        raise ValueError(f"the protocol's {name} must be a non-empty list of column indices")
    for index in value:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise ValueError(f"the protocol's {name} names a column outside 0 .. {count - 1}")
    if len(set(value)) != len(value):
        raise ValueError(f"the protocol's {name} repeats a column")
    return value


def _load_marginals(document, content_hash):
    """A marginals protocol, checked: every group's protocol as a protocol of its own (its
    fingerprint and privacy, computed here), the group's cells, and the stated privacy, at
    least the largest group's (a group drawn independently of the row adds nothing)."""
    extra = sorted(set(document) - {"format", "version", "question", "domain", "mechanism",
                                     "sampler", "report", "privacy", "fingerprint"})  # fmt: skip
    if extra or "question" not in document:
        raise ValueError("a marginals protocol has exactly the fields of a protocol file")
    columns = _table_columns(document["domain"])
    params = document["mechanism"].get("params")
    if set(document["mechanism"]) != {"name", "params"} or not isinstance(params, dict):
        raise ValueError("the protocol's mechanism must be {'name': 'marginals', 'params': ...}")
    if set(params) != {"method", "tables", "epsilon"} or not any(
        params["method"] == method for method in _MARGINAL_METHODS
    ):
        raise ValueError("the protocol's mechanism.params must be a method ('joint', 'groups' "
                         "or 'fourier'), tables and epsilon")  # fmt: skip
    if not isinstance(params["tables"], list) or not params["tables"]:
        raise ValueError("the protocol's mechanism.params.tables must be a non-empty list")
    for t, table in enumerate(params["tables"]):
        _column_indices(table, len(columns), f"mechanism.params.tables[{t}]")
    sampler = document["sampler"]
    if not isinstance(sampler, dict) or set(sampler) != {"draw", "groups"}:
        raise ValueError("the protocol's sampler must be {'draw': 'uniform', 'groups': [...]}")
    if not (isinstance(sampler["draw"], str) and sampler["draw"] == "uniform"):
        raise ValueError("the protocol's sampler.draw must be 'uniform'")
    groups = sampler["groups"]
    if not isinstance(groups, list) or not 1 <= len(groups) <= MAX_GROUPS:
        raise ValueError(f"the protocol's sampler.groups must be a list of 1 .. {MAX_GROUPS}")
    report = document["report"]
    field = {"name": "group", "type": "int", "min": 0, "max": len(groups) - 1}
    if canonical_json(report) != canonical_json({"fields": [field]}):
        raise ValueError(
            "the protocol's report must be {'fields': [the group field, 0 .. groups - 1]}"
        )
    epsilon, delta = _stated(document)
    loaded, largest = [], Fraction(0)
    for g, group in enumerate(groups):
        where = f"sampler.groups[{g}]"
        if not isinstance(group, dict) or set(group) != {"columns", "input", "protocol"}:
            raise ValueError(f"the protocol's {where} must have columns, input and protocol")
        cols = _column_indices(group["columns"], len(columns), f"{where}.columns")
        inner = group["protocol"]
        if not isinstance(inner, dict) or inner.get("version") != 2:
            raise ValueError(f"the protocol's {where}.protocol must be a version-2 protocol object")
        try:
            sub = load_protocol(inner)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}.protocol: {exc}") from None
        domain = sub["domain"]
        if domain.get("type") != "categorical" or domain.get("labels") is not None:
            raise ValueError(f"{where}.protocol must be categorical without labels (cells)")
        kind = group["input"]
        if isinstance(kind, str) and kind == "cell":
            cells = math.prod(columns[c]["k"] for c in cols)
        elif isinstance(kind, str) and kind == "parity" and all(columns[c]["k"] == 2 for c in cols):
            cells = 2
        else:
            raise ValueError(
                f"the protocol's {where}.input must be 'cell', or 'parity' of binary columns"
            )
        if domain["k"] != cells:
            raise ValueError(f"{where}.protocol has {domain['k']} inputs, not the group's {cells}")
        own = sub.privacy
        if sub.mechanism_id in _MEMOIZED or not own["certified"] or own["delta"] != 0:
            raise ValueError(
                f"{where}.protocol: a group's protocol must be pure and certified, not memoized"
            )
        largest = max(largest, Fraction(own["epsilon"]))
        loaded.append((cols, kind, sub))
    if delta != 0:
        raise ValueError("a marginals protocol states delta = 0 (its groups are pure)")
    if largest > epsilon:
        raise ValueError(
            f"marginals: the groups' constants give epsilon = {float(largest)!r} (computed on "
            f"this device), above the epsilon = {float(epsilon)!r} the protocol states: refused"
        )
    proto = Protocol(document)
    proto.mechanism_id = MARGINALS
    proto.pin = content_hash
    proto.privacy = {"mechanism": MARGINALS, "delta": 0.0, "certified": True,
                     "epsilon": float(largest), "groups": len(groups)}  # fmt: skip
    proto.groups = loaded
    return proto


def _encode_row(proto, row):
    """The codes of a row (a dict by column name, or a list in column order), every column
    checked before anything is drawn (so that an error never depends on the group)."""
    columns = proto["domain"]["columns"]
    if isinstance(row, dict):
        if set(row) != {column["name"] for column in columns}:
            raise ValueError(f"the answer must give exactly the protocol's {len(columns)} columns")
        values = [row[column["name"]] for column in columns]
    elif isinstance(row, list) and len(row) == len(columns):
        values = row
    else:
        raise ValueError(f"the answer must be a dict or list of {len(columns)} column values")
    codes = []
    for column, value in zip(columns, values):
        domain = {"type": "categorical", "k": column["k"], "labels": column["labels"]}
        try:
            codes.append(_encode({"domain": domain}, value))
        except (TypeError, ValueError):
            raise ValueError(f"the answer of column {column['name'][:40]!r} is not one of its "
                             f"{column['k']} categories") from None  # fmt: skip
    return codes


def _marginals(proto, codes, stream):
    """Draw the group uniformly, then privatize its cell (row-major over its columns, the
    first column slowest) or the parity of its binary columns with its protocol."""
    g = _randint(stream, len(proto.groups), 1)[0]
    cols, kind, sub = proto.groups[g]
    columns = proto["domain"]["columns"]
    if kind == "parity":
        x = sum(codes[c] for c in cols) % 2
    else:
        x = 0
        for c in cols:
            x = x * columns[c]["k"] + codes[c]
    return [g, *_MECHANISMS[sub.mechanism_id](sub, x, stream)]


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_POLICY_KEYS = {"max_epsilon", "max_delta", "pinned_fingerprints", "budget"}


def _check_policy(policy):
    if policy is None:
        return {}
    if not isinstance(policy, dict):
        raise TypeError("policy must be a dict (max_epsilon, max_delta, pinned_fingerprints, "
                        "budget)")  # fmt: skip
    unknown = sorted(set(policy) - _POLICY_KEYS)
    if unknown:
        raise ValueError(f"policy has unknown key(s) {unknown}; known: {sorted(_POLICY_KEYS)}")
    out = dict(policy)
    for key in ("max_epsilon", "max_delta"):
        if key in policy:
            value = policy[key]
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (math.isfinite(value) and value >= 0)
            ):
                raise ValueError(f"policy[{key!r}] must be a finite number >= 0")
    pins = policy.get("pinned_fingerprints")
    if pins is not None and not (
        isinstance(pins, list) and all(isinstance(p, str) and _is_pin(p) for p in pins)
    ):
        raise ValueError(
            "policy['pinned_fingerprints'] must be a list of lowercase hex fingerprints "
            "(16 digits) or pins (64 digits)"
        )
    if "budget" in policy:
        out["budget"] = _check_budget(policy["budget"])
    return out


def _is_pin(text):
    return len(text) in (16, 64) and all(c in "0123456789abcdef" for c in text)


def _check_budget(budget):
    if not isinstance(budget, dict) or set(budget) - {"epsilon", "delta", "period_days"}:
        raise ValueError("policy['budget'] must be {'epsilon': e, 'delta': d, 'period_days': n}")
    out = {}
    for key, default in (("epsilon", None), ("delta", 0.0), ("period_days", None)):
        value = budget.get(key, default)
        if value is None and key != "epsilon":
            out[key] = None
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not (math.isfinite(value) and (value > 0 if key != "delta" else value >= 0))
        ):
            raise ValueError(f"policy['budget'][{key!r}] must be a finite number "
                             f"{'>= 0' if key == 'delta' else '> 0'}")  # fmt: skip
        out[key] = float(value)
    return out


def verify(protocol, policy=None):
    """The privacy of one report of ``protocol``, computed on this device: a dict.

    ``epsilon`` is the exact level of the constants this client samples with, rounded up to a
    double (the smallest double ``t`` with ``e^t`` at least the largest likelihood ratio);
    ``delta`` is 0 for a pure mechanism, else the stated delta that this client checked at
    the stated epsilon (``channel`` and ``gaussian``); ``mechanism`` the canonical id;
    ``certified`` is ``False`` only for ``privunit`` and ``privunitg``, whose privacy this
    client cannot bound exactly and which run only when the app pins their fingerprint;
    memoized mechanisms add ``epsilon_permanent``, the gaussian ``mu``. Show this number to
    the person, never the file's.

    Parameters
    ----------
    protocol : str, bytes, dict or Protocol
        The protocol file's JSON text (preferred: repeated keys are caught only in text) or
        its parsed dict.
    policy : dict, optional
        The app's own policy, shipped with the app and never taken from the server:
        ``max_epsilon`` and ``max_delta`` (default 0 when a policy is given),
        ``pinned_fingerprints`` (if given, only these protocols run: 16-digit fingerprints or,
        stronger, 64-digit pins), ``budget`` (for :func:`privatize_with_ledger`).
    """
    proto = load_protocol(protocol)
    rules = _check_policy(policy)
    out = dict(proto.privacy, fingerprint=proto["fingerprint"])
    pins = rules.get("pinned_fingerprints")
    pinned = pins is not None and (proto["fingerprint"] in pins or proto.pin in pins)
    if pins is not None and not pinned:
        raise ValueError(f"the protocol {proto['fingerprint']} is not one the app pinned")
    if not out["certified"] and not pinned:
        raise ValueError(
            f"{proto.mechanism_id}: this client cannot bound its privacy exactly; it runs only "
            "when the app pins the protocol (policy['pinned_fingerprints'])"
        )
    if policy is not None:
        if "max_epsilon" in rules and out["epsilon"] > rules["max_epsilon"]:
            raise ValueError(f"{proto.mechanism_id}: epsilon = {out['epsilon']!r} is above the "
                             f"app's max_epsilon = {rules['max_epsilon']!r}: refused")  # fmt: skip
        most = rules.get("max_delta", 0.0)
        if out["delta"] > most:
            raise ValueError(
                f"{proto.mechanism_id}: delta = {out['delta']!r} is above the app's max_delta = "
                f"{most!r}: refused"
            )
    return out


def _report_id():
    """A report id: 16 random bytes from the operating system, in hexadecimal. A collector
    stores a record once however often it is sent, so a failed upload is retried as it is."""
    return os.urandom(16).hex()


def privatize(protocol, value, policy=None, randbytes=os.urandom):
    """The report of one answer: ``{"id": ..., "fingerprint": ..., "report": [fields...]}``
    (``id``: 16 random bytes from :func:`os.urandom` in hexadecimal, whatever ``randbytes``
    is, which makes a retried upload idempotent).

    The protocol is verified first (:func:`verify`, with ``policy``); nothing is drawn from a
    protocol that fails.

    Parameters
    ----------
    protocol : str, bytes, dict or Protocol
        The protocol file's JSON text or its parsed dict.
    value
        The answer: one of the protocol's labels (categorical), a number within its bounds
        (interval), a list of numbers (vectors), an item (a string, bytes or an integer)
        for the sketches ``cms`` and ``hcms``, or a row for a ``marginals`` protocol (a dict
        by column name, or a list in column order): the report is then the group drawn on
        this device followed by the group's fields.
    policy : dict, optional
        The app's policy (see :func:`verify`).
    randbytes : callable
        ``randbytes(n)`` returns ``n`` random bytes; :func:`os.urandom` on devices. A fixed
        byte string reproduces a report (tests only: a predictable source reveals the answer).
    """
    proto = load_protocol(protocol)
    verify(proto, policy)
    stream = _Stream(randbytes)
    x = _encode(proto, value)
    report = _MECHANISMS[proto.mechanism_id](proto, x, stream)
    return {"id": _report_id(), "fingerprint": proto["fingerprint"], "report": report}


def privatize_round(protocol, value, memo=None, policy=None, randbytes=os.urandom):
    """One round of a memoized (longitudinal) mechanism: ``(record, memo)``.

    The mechanisms ``l-grr``, ``l-osue``, ``l-oue``, ``rappor`` and ``dbitflip-pm`` draw a
    permanent response once per answer (per pattern for ``dbitflip-pm``) and reuse it in every
    later round; ``memo`` carries it. Keep the returned memo on the device (``json.dumps``
    it) and pass it to the next round; **never send it**: it holds the client's past answers.
    ``memo=None`` starts a new client (what :func:`privatize` does). A memo belongs to the
    mechanism (:func:`mechanism_key`), not to the file: a republished file of the same
    mechanism (another question text, say) keeps it.

    Parameters
    ----------
    protocol : str, bytes, dict or Protocol
        The protocol file's JSON text or its parsed dict.
    value
        This round's answer.
    memo : dict, optional
        The memo returned by the previous round.
    policy : dict, optional
        The app's policy (see :func:`verify`).
    randbytes : callable
        ``randbytes(n)`` returns ``n`` random bytes; :func:`os.urandom` on devices.
    """
    proto = load_protocol(protocol)
    verify(proto, policy)
    name = proto.mechanism_id
    if name not in _MEMOIZED:
        raise ValueError(f"{name} is not a memoized mechanism: use privatize()")
    key = mechanism_key(proto)
    stream = _Stream(randbytes)
    x = _encode(proto, value)
    state = _check_memo(proto, key, memo)
    report = _MEMOIZED[name](proto, x, stream, state)
    record = {"id": _report_id(), "fingerprint": proto["fingerprint"], "report": report}
    return record, _memo_document(key, state)


def _check_memo(proto, key, memo):
    if memo is None:
        return {"entries": {}, "sampled": []}
    if not isinstance(memo, dict) or memo.get("format") not in (_MEMO_FORMAT, _LEGACY_MEMO_FORMAT):
        raise ValueError("memo must be the dict returned by the previous round")
    owner = key if memo["format"] == _MEMO_FORMAT else proto["fingerprint"]
    if memo.get("mechanism") != owner:
        raise ValueError("the memo belongs to another mechanism")
    return _memo_state(memo)


def _memo_state(memo):
    entries = {}
    for entry in memo.get("entries", []):
        if not (
            isinstance(entry, list)
            and len(entry) == 2
            and isinstance(entry[0], int)
            and isinstance(entry[1], list)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in entry[1])
        ):
            raise ValueError("the memo's entries are malformed")
        entries[entry[0]] = list(entry[1])
    sampled = memo.get("sampled", [])
    if not isinstance(sampled, list) or not all(isinstance(v, int) for v in sampled):
        raise ValueError("the memo's sampled buckets are malformed")
    return {"entries": entries, "sampled": list(sampled)}


def _memo_document(key, state):
    return {
        "format": _MEMO_FORMAT,
        "mechanism": key,
        "entries": [[k, list(state["entries"][k])] for k in sorted(state["entries"])],
        "sampled": list(state["sampled"]),
    }


# ----------------------------------------------------------------------------- the ledger
_DAY = 86400.0


def _check_ledger(ledger):
    if ledger is None:
        return {"format": _LEDGER_FORMAT, "questions": {}}
    if isinstance(ledger, (str, bytes, bytearray)):
        try:
            ledger = json.loads(ledger, object_pairs_hook=_unique_keys)
        except ValueError:
            raise ValueError("the ledger is not valid JSON") from None
    if not isinstance(ledger, dict) or ledger.get("format") != _LEDGER_FORMAT:
        raise ValueError("ledger must be the dict returned by privatize_with_ledger (or None)")
    questions = ledger.get("questions")
    if not isinstance(questions, dict):
        raise ValueError("the ledger's questions are malformed")
    for record in questions.values():
        if not isinstance(record, dict) or not isinstance(record.get("memos"), dict):
            raise ValueError("the ledger's questions are malformed")
        charges = record.get("charges")
        if not isinstance(charges, list) or not all(
            isinstance(c, list)
            and len(c) == 3
            and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in c
            )
            for c in charges
        ):
            raise ValueError("the ledger's charges are malformed")
        for memo in record["memos"].values():
            _memo_state(memo)
    return copy.deepcopy(ledger)


def privatize_with_ledger(
    protocol, value, question_id, ledger=None, policy=None, now=None, randbytes=os.urandom
):
    """A report of ``value`` charged to the device's privacy ledger: ``(record, ledger)``.

    The ledger (plain JSON; store it on the device, never send it) keeps, per
    ``question_id`` (a name the app chooses), the memoized permanent responses of each
    mechanism and the privacy charged per period. A report is charged what this device can
    compute and bound: a memoized mechanism charges its permanent epsilon once for each new
    permanent response (every later report of it is free: it reveals nothing the permanent
    response did not), any other mechanism its epsilon and delta per report (basic
    composition, an upper bound; the server-side accountant is tighter). A report that would
    take the question's charges within the last ``policy['budget']['period_days']`` days
    (all time, when not given) above ``policy['budget']['epsilon']`` (or ``delta``) is
    refused with ``ValueError`` and nothing is sent or changed. Memos are kept under the
    mechanism's key (:func:`mechanism_key`): a republished file of the same mechanism keeps
    its memo, a changed mechanism for the same question starts a new one and is charged in
    full.

    Parameters
    ----------
    protocol : str, bytes, dict or Protocol
        The protocol file.
    value
        The answer.
    question_id : str
        The app's name for the question (not the file's text).
    ledger : dict or str, optional
        The ledger returned by the previous call (or its JSON text); ``None`` starts one.
    policy : dict, optional
        The app's policy (:func:`verify`), with its ``budget``.
    now : float, optional
        The time in seconds since the epoch (default :func:`time.time`).
    randbytes : callable
        ``randbytes(n)`` returns ``n`` random bytes; :func:`os.urandom` on devices.
    """
    if not isinstance(question_id, str) or not question_id:
        raise TypeError("question_id must be a non-empty string")
    proto = load_protocol(protocol)
    info = verify(proto, policy)
    rules = _check_policy(policy)
    budget = rules.get("budget")
    book = _check_ledger(ledger)
    instant = time.time() if now is None else now
    if (
        isinstance(instant, bool)
        or not isinstance(instant, (int, float))
        or not math.isfinite(instant)
    ):
        raise ValueError("now must be a finite number of seconds")
    record_book = book["questions"].setdefault(question_id, {"memos": {}, "charges": []})
    key = mechanism_key(proto)
    x = _encode(proto, value)
    name = proto.mechanism_id
    if name in _MEMOIZED:
        state = _memo_state(record_book["memos"].get(key, {}))
        fresh = _memo_key(proto, x, state) not in state["entries"]
        charge = (info["epsilon_permanent"], 0.0) if fresh else (0.0, 0.0)
    else:
        charge = (info["epsilon"], info["delta"])
    charges = record_book["charges"]
    if budget is not None:
        period = budget["period_days"]
        start = -math.inf if period is None else instant - period * _DAY
        window = [c for c in charges if c[0] > start]
        spent_eps = sum((Fraction(c[1]) for c in window), Fraction(0)) + Fraction(charge[0])
        spent_delta = sum((Fraction(c[2]) for c in window), Fraction(0)) + Fraction(charge[1])
        if spent_eps > Fraction(budget["epsilon"]) or spent_delta > Fraction(budget["delta"]):
            raise ValueError(
                f"question {question_id[:40]!r}: this report would bring its privacy loss to "
                f"epsilon = {_float_up(spent_eps)!r}, delta = {_float_up(spent_delta)!r}, over "
                f"the app's budget (epsilon {budget['epsilon']!r}, delta {budget['delta']!r}"
                f"{_per(period)}): refused, nothing sent"
            )
        if period is not None:
            charges[:] = window
    stream = _Stream(randbytes)
    if name in _MEMOIZED:
        report = _MEMOIZED[name](proto, x, stream, state)
        record_book["memos"][key] = _memo_document(key, state)
    else:
        report = _MECHANISMS[name](proto, x, stream)
    if charge[0] > 0 or charge[1] > 0:
        charges.append([instant, charge[0], charge[1]])
    return {"id": _report_id(), "fingerprint": proto["fingerprint"], "report": report}, book


def _per(period):
    if period is None:
        return ""
    days = str(int(period)) if period == int(period) and abs(period) < 1e15 else repr(period)
    return f" per {days} day{'' if period == 1 else 's'}"


def _memo_key(proto, x, state):
    """The key of the memo entry a round of ``x`` uses (draws nothing)."""
    if proto.mechanism_id != "dbitflip-pm":
        return x
    if not state["sampled"]:
        return None  # a new client: its first permanent response is new
    params = proto["mechanism"]["params"]
    bucket = x * params["b"] // params["k"]
    sampled = state["sampled"]
    return sampled.index(bucket) + 1 if bucket in sampled else 0


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


def _broken():
    return ValueError(f"the random source is broken: no decision after {MAX_ROUNDS} rounds")


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
    if kind == "table":
        return _encode_row(proto, value)
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
    return (0.0, 1.0) if proto.mechanism_id == "square-wave" else (-1.0, 1.0)


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
        if stage > MAX_ROUNDS:
            raise _broken()
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


def _another(rounds, limit=MAX_ROUNDS):
    """``rounds + 1``, or :func:`_broken` past ``limit`` rounds of one draw."""
    if rounds >= limit:
        raise _broken()
    return rounds + 1


def _proposals():
    """The attempts of a rejection sampler; constants that never accept are refused."""
    yield from range(MAX_PROPOSALS)
    raise ValueError(
        f"the sampler did not accept after {MAX_PROPOSALS} proposals: the protocol's constants "
        "cannot be sampled"
    )


def _choose_one(stream, law):
    return _choose(stream, [law], [0])[0]


def _bernoulli(stream, probabilities):
    """One exact coin ``U < p`` per probability (doubles in [0, 1]), in rounds."""
    remainder = list(probabilities)
    out = [False] * len(remainder)
    pending = list(range(len(remainder)))
    rounds = 0
    while pending:
        rounds = _another(rounds)
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
    rounds = 0
    while pending:
        rounds = _another(rounds)
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
    rounds = 0
    while pending:
        rounds = _another(rounds)
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
        rounds = 0
        while len(held) < count:
            rounds = _another(rounds, MAX_ROUNDS * (slots + 1))
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
        rounds = 0
        while size != count:
            rounds = _another(rounds, MAX_ROUNDS * (slots + 1))
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
    limit = MAX_ROUNDS + math.ceil(2048.0 / (1.0 - sampler["b"]))  # P(more) < 2^-2048
    while _bernoulli(stream, [sampler["b"]])[0]:
        periods = _another(periods, limit)
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
    for _ in _proposals():
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
        for _ in _proposals():
            first, second = _uniform(stream, 1)[0], _uniform(stream, 1)[0]
            if length > 0:
                t = gamma + (1.0 - gamma) * (-math.log1p(first * envelope["shrink"]) / length)
            else:
                t = gamma + (1.0 - gamma) * first
            if t < 1.0:
                ratio = k * (math.log1p(-t * t) - envelope["base"]) + rate * (t - gamma)
                if math.log1p(-second) <= min(ratio, 0.0):
                    return t
    for _ in _proposals():
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
    for _ in _proposals():
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
    "channel": _channel,
    "grr": _grr,
    "unary-encoding": _unary,
    "sue": _unary,
    "oue": _unary,
    "local-hashing": _local_hashing,
    "olh": _local_hashing,
    "blh": _local_hashing,
    "hadamard-response": _hadamard,
    "subset-selection": _subset,
    "duchi": _duchi,
    "duchi-l2": _duchi_l2,
    "laplace": _laplace,
    "piecewise": _piecewise,
    "hybrid": _hybrid,
    "square-wave": _square_wave,
    "staircase": _staircase,
    "gaussian": _gaussian_noise,
    "cms": _cms,
    "hcms": _hcms,
    "privunit": _privunit,
    "privunitg": _privunitg,
}

#: Memoized mechanisms: one round given the client's memo state.
_MEMOIZED = {
    "l-grr": _memo_grr,
    "l-osue": _memo_unary,
    "l-oue": _memo_unary,
    "rappor": _memo_unary,
    "dbitflip-pm": _memo_dbitflip,
}
_MECHANISMS.update({name: _first_round(function) for name, function in _MEMOIZED.items()})
_MECHANISMS[MARGINALS] = _marginals


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
        if not isinstance(memo, dict) or memo.get("format") != _LEGACY_MEMO_FORMAT:
            raise ValueError("memo must be the dict returned by the previous round")
        if memo.get("mechanism") != key_text:
            raise ValueError("the memo belongs to another configuration")
        state = _memo_state(memo)
        entries, sampled = state["entries"], state["sampled"]
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
        "format": _LEGACY_MEMO_FORMAT,
        "mechanism": key_text,
        "entries": [[k, list(entries[k])] for k in sorted(entries)],
        "sampled": [cohort],
    }
    return {"cohort": cohort, "report": [1 if index == 0 else 0 for index in drawn]}, document
