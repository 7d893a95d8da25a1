"""A numpy-Generator-like source of randomness that reads the operating system's CSPRNG.

``rng="os"`` (accepted wherever ldp takes ``rng``) privatizes with :class:`OSGenerator`: every
draw comes from :func:`os.urandom`, so no seed and no generator state exists that a server
could learn or guess. A seeded numpy ``Generator`` is for simulation and reproducible
experiments only: whoever knows or can guess the seed (or the generator's state, which a
server can often reconstruct from enough past reports of a non-cryptographic generator such
as PCG64) knows the noise and can subtract it, undoing the privatization. On devices, use
``rng="os"``.

numpy's ``Generator`` cannot wrap a Python source of bits, so this class implements the
subset of its API that the privatizers use, with exact transformations of uniform bits:

* ``random``: ``(w >> 11) * 2**-53`` for a 64-bit word ``w``, uniform on the 2^53 multiples
  of ``2**-53`` in ``[0, 1)``, as numpy does;
* ``integers``: unbiased by rejection (draw ``ceil(log2(range))`` bits, reject values
  ``>= range``), never by a modulo;
* ``standard_normal``: Box-Muller on two such uniforms;
* ``bytes``: :func:`os.urandom` itself.

Simulation methods (``binomial``, ``multinomial``, ``choice``, ...) raise ``TypeError``: the
OS generator is for client-side privatization, not for simulating populations.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

import numpy as np

__all__ = ["ByteSource", "OSGenerator"]

_SUPPORTED = ("bytes", "integers", "random", "standard_normal")


def _count(size: Any) -> tuple[int, tuple[int, ...] | None]:
    if size is None:
        return 1, None
    given = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    for s in given:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral) or s < 0:
            raise ValueError(f"size must be a non-negative int or a tuple of them, got {size!r}")
    shape = tuple(int(s) for s in given)
    return math.prod(shape), shape


class ByteSource:
    """A source of randomness that is a function returning bytes.

    Every privatizer in ldp draws only whole bytes from it (``bytes(n)``; see
    ``ldp._sampling``), so any function ``randbytes(n) -> bytes`` can drive it:
    :func:`os.urandom` on a device, or a fixed byte string to check that two implementations
    of the protocol produce the same report from the same bytes (the test vectors in
    ``clients/``).

    Parameters
    ----------
    randbytes : callable
        ``randbytes(n)`` returns ``n`` random bytes.

    Examples
    --------
    >>> import io
    >>> from ldp._random import ByteSource
    >>> from ldp.mechanisms import GRR
    >>> stream = io.BytesIO(bytes(16))
    >>> GRR(4, 1.0).privatize([2], rng=ByteSource(stream.read)).tolist()
    [2]
    """

    def __init__(self, randbytes) -> None:
        if not callable(randbytes):
            raise TypeError(f"randbytes must be a function n -> bytes, got {randbytes!r}")
        self._randbytes = randbytes

    def __repr__(self) -> str:
        return f"ByteSource({self._randbytes!r})"

    def bytes(self, length: int) -> bytes:
        """``length`` random bytes from the source (a short read raises)."""
        if isinstance(length, (bool, np.bool_)) or not isinstance(length, numbers.Integral):
            raise TypeError(f"length must be an integer, got {length!r}")
        if length < 0:
            raise ValueError(f"length must be >= 0, got {length}")
        data = bytes(self._randbytes(int(length)))
        if len(data) != length:
            raise ValueError(
                f"the random source returned {len(data)} bytes where {length} were needed"
            )
        return data


class OSGenerator(ByteSource):
    """Uniform bits from :func:`os.urandom` behind the numpy ``Generator`` methods ldp uses.

    Pass ``rng="os"`` to any ``privatize`` (or an instance of this class). It has no seed and
    no state; two instances are indistinguishable.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._random import OSGenerator
    >>> gen = OSGenerator()
    >>> u = gen.random(1000)
    >>> bool(((0 <= u) & (u < 1)).all())
    True
    >>> sorted(set(gen.integers(0, 3, size=500).tolist()))
    [0, 1, 2]
    >>> from ldp.mechanisms import GRR
    >>> GRR(4, 1.0).privatize(np.array([0, 1, 2, 3]), rng="os").shape
    (4,)
    """

    def __init__(self) -> None:
        super().__init__(os.urandom)

    def __repr__(self) -> str:
        return "OSGenerator()"

    def __reduce__(self):
        return (OSGenerator, ())

    @staticmethod
    def _words(n: int) -> np.ndarray:
        """``n`` independent uniform 64-bit words."""
        return np.frombuffer(os.urandom(8 * n), dtype="<u8").astype(np.uint64)

    def random(self, size: Any = None, dtype: Any = np.float64) -> float | np.ndarray:
        """Uniform doubles on ``[0, 1)``: the top 53 bits of a word times ``2**-53``."""
        if np.dtype(dtype) != np.float64:
            raise TypeError(f"dtype must be float64 for the OS generator, got {dtype!r}")
        n, shape = _count(size)
        values = (self._words(n) >> np.uint64(11)).astype(np.float64) * 2.0**-53
        return float(values[0]) if shape is None else values.reshape(shape)

    def integers(
        self,
        low: int,
        high: int | None = None,
        size: Any = None,
        dtype: Any = np.int64,
        endpoint: bool = False,
    ) -> int | np.ndarray:
        """Uniform integers on ``[low, high)`` (``[0, low)`` if ``high`` is None), unbiased."""
        if high is None:
            low, high = 0, low
        for name, value in (("low", low), ("high", high)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                shown = value.item() if isinstance(value, np.generic) else value
                raise TypeError(f"{name} must be an integer for the OS generator, got {shown!r}")
        low, high = int(low), int(high) + (1 if endpoint else 0)
        span = high - low
        if span <= 0:
            raise ValueError(f"high must be > low, got low={low}, high={high}")
        kind = np.dtype(dtype)
        if kind.kind not in "iu":
            raise TypeError(f"dtype must be an integer dtype, got {dtype!r}")
        info = np.iinfo(kind)
        if low < info.min or high - 1 > info.max:
            raise ValueError(f"[low, high) = [{low}, {high}) is out of bounds for {kind}")
        if span > 2**64:
            raise ValueError(f"the range high - low must be <= 2**64, got {span}")
        n, shape = _count(size)
        bits = (span - 1).bit_length()
        drawn = np.empty(n, dtype=np.uint64)
        filled = 0
        while filled < n:
            # rejection: a candidate is accepted with probability span / 2^bits > 1/2
            need = n - filled
            words = self._words(need + need // 2 + 8)
            if bits < 64:
                words &= np.uint64((1 << bits) - 1)
            if span < 2**64:
                words = words[words < np.uint64(span)]
            accepted = words[:need]
            drawn[filled : filled + accepted.size] = accepted
            filled += accepted.size
        if low >= 0:
            out = (drawn + np.uint64(low)).astype(kind)
        else:  # two's complement wrap-around is exact modulo 2^64
            out = (drawn + np.uint64(low % 2**64)).view(np.int64).astype(kind)
        return out[0].item() if shape is None else out.reshape(shape)

    def standard_normal(self, size: Any = None, dtype: Any = np.float64) -> float | np.ndarray:
        """Standard normal draws by the Box-Muller transform of two uniforms."""
        if np.dtype(dtype) != np.float64:
            raise TypeError(f"dtype must be float64 for the OS generator, got {dtype!r}")
        n, shape = _count(size)
        radius = np.sqrt(-2.0 * np.log1p(-self.random(n)))  # 1 - u in (0, 1]
        values = radius * np.cos(2.0 * math.pi * self.random(n))
        return float(values[0]) if shape is None else values.reshape(shape)

    def __getattr__(self, name: str):
        if not name.startswith("_") and hasattr(np.random.Generator, name):

            def unsupported(*args: object, **kwargs: object) -> None:
                raise TypeError(
                    f"rng='os' does not provide {name}(): the OS generator is for client-side "
                    f"privatization and implements only {', '.join(_SUPPORTED)}; simulations "
                    "(simulate_counts, synthetic data) take a seeded numpy Generator"
                )

            return unsupported
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
