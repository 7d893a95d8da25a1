"""Request limits of the collector: the size of a body and the rate of uploads per client.

:class:`RateLimiter` is a token bucket per client address: ``rate`` uploads a second on
average, bursts of up to ``burst``; a client over it is answered 429 with the seconds to wait.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

__all__ = ["DEFAULT_MAX_BODY", "RateLimiter"]

#: Largest upload body, in bytes, unless the operator says otherwise (1 MiB: about 15,000
#: records of one field).
DEFAULT_MAX_BODY = 1 << 20
#: Clients remembered before idle ones are forgotten.
_MAX_CLIENTS = 100_000


class RateLimiter:
    """A token bucket per client: ``rate`` requests a second, bursts of ``burst``.

    Parameters
    ----------
    rate : float
        Requests a second each client may make on average (> 0).
    burst : int, optional
        Requests a client may make at once (default: ``max(1, ceil(2 * rate))``).
    clock : callable, optional
        Seconds, monotonic (default :func:`time.monotonic`).

    Examples
    --------
    >>> from ldp.collector.limits import RateLimiter
    >>> now = [0.0]
    >>> limiter = RateLimiter(1.0, burst=2, clock=lambda: now[0])
    >>> [limiter.wait("a") for _ in range(3)], limiter.wait("b")
    ([0.0, 0.0, 1.0], 0.0)
    >>> now[0] = 1.0
    >>> limiter.wait("a")
    0.0
    """

    def __init__(
        self, rate: float, *, burst: int | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if (
            isinstance(rate, bool)
            or not isinstance(rate, (int, float))
            or not (math.isfinite(rate) and rate > 0)
        ):
            raise ValueError(f"rate must be a positive number of requests a second, got {rate!r}")
        self.rate = float(rate)
        self.burst = max(1, math.ceil(2 * self.rate)) if burst is None else int(burst)
        if self.burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst!r}")
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def wait(self, client: str) -> float:
        """Take a token for ``client``: ``0.0`` when the request may go ahead, else the
        seconds until it may (nothing is taken then)."""
        with self._lock:
            now = self._clock()
            tokens, last = self._buckets.get(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                if len(self._buckets) >= _MAX_CLIENTS and client not in self._buckets:
                    self._forget(now)
                self._buckets[client] = (tokens - 1.0, now)
                return 0.0
            self._buckets[client] = (tokens, now)
            return (1.0 - tokens) / self.rate

    def _forget(self, now: float) -> None:
        """Drop the clients whose bucket is full again (they are as if new)."""
        full = self.burst / self.rate
        for client, (_, last) in list(self._buckets.items()):
            if now - last >= full:
                del self._buckets[client]
