"""Exact sampling from a stream of random bytes: the draws every privatizer is made of.

Every mechanism in :mod:`ldp` draws its randomness through the five primitives below, and
nothing else. Each reads whole bytes from the generator's ``bytes(n)`` method (a numpy
``Generator``, the operating system's CSPRNG behind ``rng="os"``, or any
:class:`~ldp._random.ByteSource`), in an order fixed by the protocol specification
(``docs/protocol.md``), so that the dependency-free clients in ``clients/`` produce, for the
same bytes, the same reports as the library. The primitives are *exact*: a coin of
probability ``p`` comes up with probability ``p`` itself, not a 53-bit rounding of it, for
every probability a double can hold (``1e-300`` included), so that a rare outcome is never
rounded to zero (an infinite privacy loss) or inflated.

* ``choose(law)``: an index ``j`` with probability ``w_j / sum(w)`` for non-negative double
  weights ``w``, computed in exact integer arithmetic. The bytes ``b_1, b_2, ...`` are the
  base-256 digits of a uniform real ``U``; after ``t`` bytes, ``L = b_1 ... b_t`` (big-endian)
  places ``U`` in ``[L, L + 1) / 256^t``. With the exact cumulative weights ``C_j`` and total
  ``S``, let ``j`` be the smallest index with ``256^t C_j > L S``; the draw ends with ``j`` as
  soon as ``256^t C_j >= (L + 1) S`` (the whole interval lies in bucket ``j``), else it reads
  one more byte. One byte suffices with probability about ``1 - m / 256`` for ``m`` outcomes.
* ``bernoulli(p)``: ``U < p`` for a double ``p`` in ``[0, 1]``, by the same rule (the
  threshold ``p`` is exact, so its base-256 digits are compared one byte at a time).
* ``randint(n)``: uniform on ``0 .. n - 1`` by rejection: ``ceil(b / 8)`` bytes read as a
  big-endian integer, masked to its ``b = bit_length(n - 1)`` low bits, accepted when
  ``< n``; no bytes when ``n = 1``.
* ``uniform()``: seven bytes, big-endian, shifted right by 3: a multiple of ``2^-53`` in
  ``[0, 1)``.
* ``zero_bits()``: the number of zero bits before the first one bit of the stream (bytes
  read most significant bit first): ``P(J >= j) = 2^-j``, unbounded.

**Batches.** Vectorised over many draws (users, or the bits of one report), every primitive
proceeds in *rounds*: in round one each draw reads its first bytes, in order; in each later
round every draw still undecided (or rejected) reads its next bytes, in order. A batch of one
draw is the sequential algorithm. The clients implement exactly this order.

**Simulations.** With a numpy ``Generator`` (a seeded simulation, which no device replays) the
categorical frequency oracles draw the same laws from 64-bit words in another order
(:mod:`ldp._words`); a :class:`~ldp._random.ByteSource` and ``rng="os"`` always read the bytes
as above.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "STREAM_DRAWS",
    "ExactLaw",
    "bernoulli",
    "choose",
    "choose_streamed",
    "randint",
    "randint_into",
    "random_bytes",
    "uniform",
    "zero_bits",
]

#: Rounds of :func:`choose` decided with 64-bit integer tables (``256^7 = 2^56``); later
#: rounds (probability about ``m 2^-56`` per draw) use Python integers.
_TABLE_ROUNDS = 7
#: Largest bound of :func:`randint` (every report field is an integer below ``2^53``).
MAX_RANDINT = 1 << 53
#: Draws per block of the first round of :func:`randint_into` and :func:`choose_streamed`
#: (a multiple of 8: every block but the last reads a whole number of 8-byte words).
STREAM_DRAWS = 1 << 16


def random_bytes(gen: object, count: int) -> np.ndarray:
    """``count`` uniform bytes from ``gen`` as a ``uint8`` array.

    A numpy ``Generator`` gives them as little-endian 64-bit words (``integers`` is several
    times faster than ``Generator.bytes``; the words are uniform, so their bytes are too);
    every other source (:class:`~ldp._random.ByteSource`, the OS generator) is read through
    its ``bytes`` method, byte for byte.
    """
    if count <= 0:
        return np.empty(0, dtype=np.uint8)
    if isinstance(gen, np.random.Generator):
        words = gen.integers(0, 1 << 64, size=(int(count) + 7) // 8, dtype=np.uint64)
        return np.asarray(words, dtype="<u8").view(np.uint8)[: int(count)]
    data = gen.bytes(int(count))  # type: ignore[attr-defined]
    out = np.frombuffer(data, dtype=np.uint8)
    if out.size != count:
        raise RuntimeError(f"the random source returned {out.size} bytes, {count} were asked")
    return out


def _scaled_integers(weights: Sequence[float]) -> list[int]:
    """Integers proportional to the doubles ``weights``, exactly (a common power of two)."""
    ratios = [w.as_integer_ratio() for w in weights]
    shift = max(den.bit_length() - 1 for _, den in ratios)
    return [num << (shift - (den.bit_length() - 1)) for num, den in ratios]


class ExactLaw:
    """The law ``P(j) = w_j / sum(w)`` of finitely many double weights, sampled exactly.

    Parameters
    ----------
    weights : sequence of float
        Finite, non-negative, not all zero. The probabilities are their exact ratios (not a
        rounding of them), so that the law the sampler realises is the law the privacy
        computation sees.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._sampling import ExactLaw, choose
    >>> law = ExactLaw([1.0, 3.0])
    >>> draws = choose(np.random.default_rng(0), [law], np.zeros(40_000, dtype=int))
    >>> round(float(draws.mean()), 2)
    0.75
    """

    __slots__ = ("_cumulative", "_tables", "_total", "weights")

    def __init__(self, weights: Sequence[float]) -> None:
        values = [float(w) for w in weights]
        if not values:
            raise ValueError("weights must not be empty")
        for w in values:
            if not (math.isfinite(w) and w >= 0.0):
                raise ValueError(f"weights must be finite and non-negative, got {w!r}")
        ints = _scaled_integers(values)
        cumulative = list(itertools.accumulate(ints))
        if cumulative[-1] == 0:
            raise ValueError("weights must not all be zero")
        self.weights = tuple(values)
        self._cumulative = cumulative
        self._total = cumulative[-1]
        self._tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def size(self) -> int:
        """Number of outcomes."""
        return len(self.weights)

    def probabilities(self) -> list[float]:
        """The exact probabilities, rounded to doubles (for tests and display)."""
        previous = 0
        out = []
        for c in self._cumulative:
            out.append((c - previous) / self._total)
            previous = c
        return out

    def table(self, stage: int) -> tuple[np.ndarray, np.ndarray]:
        """``floor(256^t C_j / S)`` as uint64 and whether each division is inexact."""
        if stage not in self._tables:
            shift = 8 * stage
            floors = np.empty(len(self._cumulative), dtype=np.uint64)
            inexact = np.empty(len(self._cumulative), dtype=bool)
            for j, c in enumerate(self._cumulative):
                q, r = divmod(c << shift, self._total)
                floors[j] = q
                inexact[j] = r != 0
            self._tables[stage] = (floors, inexact)
        return self._tables[stage]

    def decide(self, prefix: int, stage: int) -> tuple[int, bool]:
        """``(j, decided)`` for the uniform's first ``stage`` bytes ``prefix`` (exact)."""
        shift = 8 * stage
        j = bisect.bisect_right(self._cumulative, (prefix * self._total) >> shift)
        return j, (self._cumulative[j] << shift) >= (prefix + 1) * self._total


def _decide_tables(law: ExactLaw, prefix: np.ndarray, stage: int) -> tuple[np.ndarray, np.ndarray]:
    floors, inexact = law.table(stage)
    first_above = np.searchsorted(floors, prefix, side="right")
    previous = np.maximum(first_above - 1, 0)
    undecided = (first_above > 0) & (floors[previous] == prefix) & inexact[previous]
    return np.where(undecided, previous, first_above), ~undecided


def _first_byte_tables(laws: Sequence[ExactLaw]) -> tuple[np.ndarray, np.ndarray]:
    """For every law and every first byte: the outcome, and whether that byte decides it
    (flattened as ``law * 256 + byte``); the same decisions as :func:`_decide_tables`."""
    picks = np.empty((len(laws), 256), dtype=np.int64)
    dones = np.empty((len(laws), 256), dtype=bool)
    every_byte = np.arange(256, dtype=np.uint64)
    for i, law in enumerate(laws):
        picks[i], dones[i] = _decide_tables(law, every_byte, 1)
    return picks.ravel(), dones.ravel()


def _decide_grouped(
    laws: Sequence[ExactLaw], ids: np.ndarray, current: np.ndarray, stage: int
) -> tuple[np.ndarray, np.ndarray]:
    pick = np.empty(ids.size, dtype=np.int64)
    done = np.empty(ids.size, dtype=bool)
    if len(laws) <= 4:
        for law_id in range(len(laws)):
            sel = ids == law_id
            if np.any(sel):
                pick[sel], done[sel] = _decide_tables(laws[law_id], current[sel], stage)
        return pick, done
    order = np.argsort(ids, kind="stable")
    bounds = np.flatnonzero(np.diff(ids[order])) + 1
    for part in np.split(order, bounds):
        if part.size:
            law = laws[int(ids[part[0]])]
            pick[part], done[part] = _decide_tables(law, current[part], stage)
    return pick, done


def choose(gen: object, laws: Sequence[ExactLaw], which: np.ndarray) -> np.ndarray:
    """One exact draw per entry of ``which``: an index of ``laws[which[i]]``.

    Draws proceed in rounds (module notes): every draw reads one byte per round until the
    bytes read so far decide it. The first round, which decides all but about ``1/256`` of
    the draws, is one lookup per draw in a table of every law's decision for every byte.
    """
    which = np.asarray(which, dtype=np.int64).ravel()
    n = which.size
    if n == 0:
        return np.empty(0, dtype=np.int64)
    first = random_bytes(gen, n)
    picks, dones = _first_byte_tables(laws)
    at = first if len(laws) == 1 else which * 256 + first  # one law: the byte is the index
    out = picks[at]
    pending = np.flatnonzero(~dones[at])
    if pending.size:
        out[pending] = choose_after_first_byte(gen, laws, which[pending], first[pending])
    return out


def first_byte_thresholds(law: ExactLaw) -> tuple[int, bool]:
    """For a two-outcome law: the first byte ``t`` with ``byte < t`` deciding outcome 0 and
    ``byte > t`` outcome 1, and whether ``byte == t`` is undecided (else outcome 1)."""
    if law.size != 2:
        raise ValueError(f"first_byte_thresholds needs a law of two outcomes, got {law.size}")
    floors, inexact = law.table(1)
    return int(floors[0]), bool(inexact[0])


def choose_after_first_byte(
    gen: object, laws: Sequence[ExactLaw], which: np.ndarray, first: np.ndarray
) -> np.ndarray:
    """Finish draws whose first bytes ``first`` did not decide them (as :func:`choose`
    does from its second round on: the same bytes, in the same order)."""
    pending = np.arange(which.size)
    out = np.empty(which.size, dtype=np.int64)
    prefix = np.asarray(first, dtype=np.uint64)  # the bytes read so far, one per pending draw
    big: list[int] | None = None
    stage = 1
    while pending.size:
        stage += 1
        drawn = random_bytes(gen, pending.size)
        if stage <= _TABLE_ROUNDS:
            current = prefix * np.uint64(256) + drawn
            pick, done = _decide_grouped(laws, which[pending], current, stage)
            out[pending[done]] = pick[done]
            pending, prefix = pending[~done], current[~done]
            if stage == _TABLE_ROUNDS and pending.size:
                big = [int(v) for v in prefix]
        else:
            assert big is not None
            keep = []
            still = []
            for position, item in enumerate(pending):
                value = big[position] * 256 + int(drawn[position])
                j, decided = laws[int(which[item])].decide(value, stage)
                if decided:
                    out[item] = j
                else:
                    keep.append(position)
                    still.append(value)
            pending = pending[np.asarray(keep, dtype=np.int64)]
            big = still
    return out


def bernoulli(gen: object, p: np.ndarray) -> np.ndarray:
    """One exact coin ``U < p`` per entry of ``p`` (doubles in ``[0, 1]``).

    Compares the bytes of ``U`` with the base-256 digits of ``p``: a byte below the digit
    decides ``True``, above it ``False``; an equal byte moves to the next digit (``False`` if
    ``p`` has no digits left). Every step is exact in double arithmetic.
    """
    remainder = np.array(p, dtype=np.float64).ravel()
    if remainder.size and not (np.all(remainder >= 0.0) and np.all(remainder <= 1.0)):
        raise ValueError("bernoulli needs probabilities in [0, 1]")
    out = np.zeros(remainder.size, dtype=bool)
    pending = np.arange(remainder.size)
    while pending.size:
        drawn = random_bytes(gen, pending.size).astype(np.float64)
        scaled = remainder[pending] * 256.0
        digit = np.floor(scaled)
        rest = scaled - digit
        below = drawn < digit
        tied = (drawn == digit) & (rest > 0.0)
        out[pending[below]] = True
        remainder[pending[tied]] = rest[tied]
        pending = pending[tied]
    return out


def _big_endian(raw: np.ndarray) -> np.ndarray:
    """The rows of ``raw`` (``width <= 8`` bytes each) as big-endian ``uint64`` values: the
    bytes are copied in reverse order into zero-padded 4- or 8-byte little-endian words (the
    native order of common machines, so the conversion needs no byte swap)."""
    rows, width = raw.shape
    size = 4 if width <= 4 else 8
    words = np.zeros((rows, size), dtype=np.uint8)
    words[:, :width] = raw[:, ::-1]
    return words.view(f"<u{size}").reshape(rows).astype(np.uint64)


def randint(gen: object, bound: int, n: int) -> np.ndarray:
    """``n`` independent uniform integers on ``0 .. bound - 1`` (exact, by rejection)."""
    bound = int(bound)
    if not 1 <= bound <= MAX_RANDINT:
        raise ValueError(f"randint needs 1 <= bound <= 2^53, got {bound}")
    out = np.zeros(n, dtype=np.int64)
    if bound == 1 or n == 0:
        return out
    bits = (bound - 1).bit_length()
    width = (bits + 7) // 8
    mask = (1 << bits) - 1
    pending = None  # round one: every draw, in order
    count = n
    while count:
        value = _big_endian_words(random_bytes(gen, count * width), width) & mask
        accepted = value < bound
        if pending is None:
            out[:] = value
            pending = np.flatnonzero(~accepted)
        else:
            out[pending[accepted]] = value[accepted]
            pending = pending[~accepted]
        count = pending.size
    return out


def randint_into(gen: object, bound: int, out: np.ndarray) -> None:
    """:func:`randint` of ``out.size`` draws written into ``out`` (a writable 1-D integer
    array or view, e.g. a column of a report): the same bytes in the same order, the same
    values, with temporaries of :data:`STREAM_DRAWS` draws at a time.

    The first round reads its bytes block by block (a numpy ``Generator`` gives the same
    bytes for blocks of whole 8-byte words as at once; a byte source is a stream); the
    rejected draws are redrawn in later rounds, as :func:`randint` does.
    """
    bound = int(bound)
    if not 1 <= bound <= MAX_RANDINT:
        raise ValueError(f"randint needs 1 <= bound <= 2^53, got {bound}")
    n = out.size
    if bound == 1 or n == 0:
        out[...] = 0
        return
    bits = (bound - 1).bit_length()
    width = (bits + 7) // 8
    mask = (1 << bits) - 1
    rejected = []
    for start in range(0, n, STREAM_DRAWS):
        stop = min(start + STREAM_DRAWS, n)
        value = _big_endian_words(random_bytes(gen, (stop - start) * width), width) & mask
        out[start:stop] = value
        if bound <= mask:  # a power-of-two bound rejects nothing
            bad = np.flatnonzero(value >= bound)
            if bad.size:
                rejected.append(bad + start)
    pending = np.concatenate(rejected) if rejected else np.empty(0, dtype=np.int64)
    while pending.size:
        value = _big_endian_words(random_bytes(gen, pending.size * width), width) & mask
        accepted = value < bound
        out[pending[accepted]] = value[accepted]
        pending = pending[~accepted]


def choose_streamed(gen: object, law: ExactLaw, n: int) -> np.ndarray:
    """``choose(gen, [law], zeros(n))`` (the same bytes, the same draws) as the smallest
    unsigned integer type that holds the outcomes, with temporaries of
    :data:`STREAM_DRAWS` draws at a time in the first round."""
    dtype = np.uint8 if law.size <= 1 << 8 else np.int64
    out = np.empty(n, dtype=dtype)
    picks, dones = _first_byte_tables([law])
    small = picks.astype(dtype)
    undecided, firsts = [], []
    for start in range(0, n, STREAM_DRAWS):
        stop = min(start + STREAM_DRAWS, n)
        first = random_bytes(gen, stop - start)
        out[start:stop] = small[first]
        open_ = np.flatnonzero(~dones[first])
        if open_.size:
            undecided.append(open_ + start)
            firsts.append(first[open_])
    if undecided:
        pending = np.concatenate(undecided)
        which = np.zeros(pending.size, dtype=np.int64)
        out[pending] = choose_after_first_byte(gen, [law], which, np.concatenate(firsts))
    return out


def _big_endian_words(raw: np.ndarray, width: int) -> np.ndarray:
    """Consecutive ``width``-byte big-endian words of ``raw`` as int64 (``width <= 7``);
    up to 4 bytes by shifts in 32-bit arithmetic (the common case: bounds below ``2^32``)."""
    if width == 1:
        return raw.astype(np.int64)
    if width <= 4:
        rows = raw.reshape(-1, width)
        value = rows[:, 0].astype(np.uint32)
        for column in range(1, width):
            value <<= np.uint32(8)
            value |= rows[:, column]
        return value.astype(np.int64)
    return _big_endian(raw.reshape(-1, width)).astype(np.int64)


def uniform(gen: object, n: int) -> np.ndarray:
    """``n`` uniform doubles on ``[0, 1)``, multiples of ``2^-53`` (seven bytes each)."""
    raw = random_bytes(gen, 7 * n).reshape(n, 7)
    return (_big_endian(raw) >> np.uint64(3)).astype(np.float64) * 2.0**-53


def zero_bits(gen: object, n: int) -> np.ndarray:
    """``n`` counts of zero bits before the first one bit (``P(J >= j) = 2^-j``)."""
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        drawn = random_bytes(gen, pending.size)
        zero = drawn == 0
        leading = 8 - np.frexp(drawn.astype(np.float64))[1]  # 7 - floor(log2 b) for b > 0
        out[pending] += np.where(zero, 8, leading)
        pending = pending[zero]
    return out
