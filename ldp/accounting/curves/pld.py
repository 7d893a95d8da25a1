r"""Privacy-loss distributions (PLDs) on a lattice, and their exact composition.

For an ordered pair ``(P, Q)`` the privacy loss is :math:`L = \log(p/q)` and its law under
``P`` determines the hockey-stick profile

.. math:: \delta(\varepsilon) = E_{e^\varepsilon}(P \| Q)
          = P(q = 0) + E_P\big[(1 - e^{\varepsilon - L})_+\big],

for every real ``epsilon`` (Ghazi-Issa (2023), §1; Tran-Koskela-Räisä-Honkela (2025), §1).
Losses add under composition, so the PLD of a product is the convolution of the PLDs.

Representation. A :class:`PrivacyLossDistribution` holds the ``P``-masses of the losses
``interval * k`` for consecutive integers ``k`` plus an atom at ``+inf`` (``P``-mass where
``q = 0``). Finite pairs whose log-ratios are commensurate (randomized response, k-RR, the
erasure mechanisms of Ghazi-Issa (2023), their products) are represented *exactly*. Other
losses are rounded **up** to the lattice; ``delta`` is increasing in every loss, so the
result is an upper bound (the "pessimistic" discretisation), and ``exact`` is ``False``.

Why the reported numbers are upper bounds that hold, floating point included:

* losses are never rounded down. A loss computed as ``log p - log q`` is within a known
  bound of the exact log-ratio of the two doubles; it is put on a lattice point only when it
  is within that bound of it (a commensurate pair: RR at ``eps = 16`` sits a few ulps off
  its lattice) and otherwise rounded up to the next lattice point. How far an exact loss may
  still exceed its lattice point is kept in ``shift`` (``~1e-15`` for exact lattices, ``0``
  for lattices built exactly), which adds under composition; the profile is read at
  ``eps - shift`` and ``epsilon(delta)`` adds it back;
* convolutions of short arrays are direct (sums of non-negative terms); long ones use FFT,
  whose error in the L1 norm is bounded by ``8 u log2(N) sqrt(N) ||a||_2 ||b||_2``
  (``u`` the unit round-off); L1 errors add under composition, the bound is carried along
  in ``error`` and ``delta(eps)`` adds it (delta is a sum of masses with weights in
  ``[0, 1]``, so an L1 error of ``e`` moves it by at most ``e``);
* tails of computed mass below ``truncation`` are moved pessimistically: the right tail to
  ``+inf``, the left tail up to the first kept point (an L1-non-expansive map, so the error
  bound survives it);
* ``delta`` on the lattice points uses the positive backward recurrence
  ``D_{j-1} = (1 - e^{-h}) A_j + e^{-h} D_j`` (``A_j`` the mass at or above point ``j``;
  Ghazi-Issa (2023), §3), and between lattice points the exact interpolation in ``e^eps``;
  a recurrence of ``N`` positive steps has relative rounding error below ``4 N u``, and the
  finite part is multiplied by ``1 + 4 (N + 4) u``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike
from scipy.fft import irfft, next_fast_len, rfft
from scipy.signal import fftconvolve, lfilter
from scipy.special import ndtri

from ldp._frozen import Frozen
from ldp._validation import check_integer, check_pmf, check_scalar
from ldp.accounting.curves._common import as_levels, out

__all__ = ["PrivacyLossDistribution"]

#: Lattice spacing used when losses are not commensurate and no interval is given.
DEFAULT_INTERVAL = 1e-4
#: Largest lattice span accepted (points) for one PLD.
MAX_POINTS = 1 << 24
_UNIT = np.finfo(np.float64).eps / 2.0
_DIRECT = 1 << 18  # len(a) * len(b) below which convolution is direct
#: Largest denominator tried when looking for a common lattice of the losses.
_DENOMINATOR = 64
#: Relative allowance on a tail sum of masses when the GDP level is read from them. A direct
#: convolution (the only kind without an absolute ``error``) runs when the shorter array
#: has at most 512 points, and moves each mass by a relative ``(2 m + 2) u <= 1026 u``
#: (rounded up); ``1e-6`` covers about ``9e6`` such steps (``10^7`` folds take 48).
_TAIL_REL = 1e-6
#: Masses below this may have underflowed (they are added to every upper tail).
_TINY = 1e-290


def loss_slack(log_p: np.ndarray, log_q: np.ndarray, loss: np.ndarray, size: int = 2) -> np.ndarray:
    """A bound on ``|fl(log p) - fl(log q) - log(p/q)|``: ``log`` within one ulp (``2u``
    relative), one subtraction, and room for ``p`` and ``q`` themselves carrying a relative
    error of ``(size + 1) u`` (a normalisation by a sum of ``size`` terms)."""
    return _UNIT * (2.0 * (np.abs(log_p) + np.abs(log_q) + np.abs(loss)) + 4.0 * (size + 2))


def find_lattice(losses: np.ndarray, slack: np.ndarray | None = None) -> tuple[float, float] | None:
    """``(h, h_slack)`` with every loss within its slack of a multiple of ``h``, or ``None``.

    ``h`` is the smallest non-zero ``|loss|`` divided by the least common denominator of the
    ratios (denominators up to 64); ``h_slack`` bounds how far ``h`` may be from a spacing
    on which the exact losses lie, per lattice step.
    """
    if slack is None:
        slack = 8.0 * _UNIT * (np.abs(losses) + 1.0)
    scale = float(np.max(np.abs(losses))) if losses.size else 0.0
    nonzero = np.abs(losses) > slack + 8.0 * _UNIT * scale  # rounding noise around 0
    if not np.any(nonzero):
        return 1.0, 0.0
    i = int(np.argmin(np.where(nonzero, np.abs(losses), np.inf)))
    base, base_slack = float(abs(losses[i])), float(slack[i])
    ratios = losses / base
    denominators = 1
    tol = (slack + np.abs(ratios) * base_slack) / base + 8.0 * _UNIT * np.maximum(
        1.0, np.abs(ratios)
    )
    for r, t in zip(ratios, tol):
        frac = Fraction(float(r)).limit_denominator(_DENOMINATOR)
        if abs(float(frac) - r) > t:
            return None
        denominators = math.lcm(denominators, frac.denominator)
    h = base / denominators
    if (losses.max() - losses.min()) / h > MAX_POINTS:
        return None
    return h, base_slack / denominators + 2.0 * _UNIT * h


def _tail_sums(probs: np.ndarray, tau: float) -> np.ndarray:
    """``np.cumsum(probs)`` up to its first value above ``tau``, the same values (a prefix
    is summed in the same order) without a pass over all of a long array."""
    length = 4096
    while True:
        sums = np.cumsum(probs[:length])
        if length >= probs.size or sums[-1] > tau:
            return sums
        length *= 8


def _convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """``a * b`` and an absolute L1 error bound of the computation (``0`` when the entries
    are rounded up instead)."""
    if len(a) * len(b) <= _DIRECT or min(len(a), len(b)) <= 32:
        # direct sums of non-negative terms: relative error <= min(len) u per entry, so
        # rounding every entry up keeps the relative precision of small masses
        c = np.convolve(a, b) * (1.0 + (min(len(a), len(b)) + 2) * _UNIT)
        return c, 0.0
    size = len(a) + len(b) - 1
    if np.count_nonzero(a) * np.count_nonzero(b) <= 2 * size:
        at_a, at_b = np.flatnonzero(a), np.flatnonzero(b)
        # few atoms (the first powers of a finite channel's pair): sum the products of the
        # atoms directly; at most min(nnz) non-negative terms per entry, rounded up as above
        c = np.bincount(
            (at_a[:, None] + at_b[None, :]).ravel(),
            weights=(a[at_a][:, None] * b[at_b][None, :]).ravel(),
            minlength=size,
        )
        return c * (1.0 + (min(at_a.size, at_b.size) + 2) * _UNIT), 0.0
    if a is b:  # a square: one forward transform instead of two
        length = next_fast_len(size, real=True)
        spectrum = rfft(a, length)
        c = irfft(spectrum * spectrum, length)[:size]
    else:
        c = fftconvolve(a, b)
    bound = (
        8.0
        * _UNIT
        * max(1.0, math.log2(size))
        * math.sqrt(size)
        * float(np.linalg.norm(a) * np.linalg.norm(b))
    )
    return np.maximum(c, 0.0, out=c), bound


class PrivacyLossDistribution(Frozen):
    """The ``P``-law of the privacy loss ``log(p/q)`` of an ordered pair, on a lattice.

    Build one with :meth:`from_pair`, :meth:`from_tradeoff` or :meth:`from_loss_cdf`;
    compose with :meth:`compose` and :meth:`self_compose`.

    Parameters
    ----------
    probs : array_like
        Non-negative masses of the losses ``interval * (offset + i)``.
    offset : int
        Lattice index of ``probs[0]``.
    interval : float
        Lattice spacing ``h > 0``.
    inf_mass : float, default 0
        Mass of the loss ``+inf``.
    exact : bool, default False
        Whether the losses are on the lattice up to floating point (no rounding up).
    error : float, default 0
        Bound on the L1 norm of the floating-point error of ``probs``.
    shift : float, default 0
        Bound on how far an exact loss exceeds the lattice point it is held at (the
        floating-point allowance of an exact lattice); the profile is read at
        ``eps - shift``.

    Examples
    --------
    >>> from ldp.accounting.curves.pld import PrivacyLossDistribution
    >>> import numpy as np
    >>> e = np.exp(1.0)
    >>> rr = PrivacyLossDistribution.from_pair([e / (1 + e), 1 / (1 + e)],
    ...                                        [1 / (1 + e), e / (1 + e)])
    >>> rr.exact, rr.interval, round(rr.tv, 6)
    (True, 1.0, 0.462117)
    >>> ten = rr.self_compose(10)
    >>> round(ten.delta(3.0), 8), round(ten.tv, 8)
    (0.6198918, 0.86959746)
    """

    __slots__ = ("_cache", "error", "exact", "inf_mass", "interval", "offset", "probs", "shift")

    def __init__(
        self,
        probs: ArrayLike,
        offset: int,
        interval: float,
        inf_mass: float = 0.0,
        *,
        exact: bool = False,
        error: float = 0.0,
        shift: float = 0.0,
    ) -> None:
        arr, _ = as_levels(probs, "probs", low=0.0, allow_inf=False)
        arr = np.atleast_1d(arr)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"probs must be a non-empty 1-D array, got shape {arr.shape}")
        self.probs = arr
        self.probs.setflags(write=False)
        self.offset = check_integer(offset, "offset")
        self.interval = check_scalar(interval, "interval", low=0.0, low_open=True)
        self.inf_mass = check_scalar(inf_mass, "inf_mass", low=0.0, high=1.0 + 1e-9)
        total = float(arr.sum()) + self.inf_mass
        if total > 1.0 + 1e-6:
            raise ValueError(f"probs and inf_mass must sum to at most 1, got {total!r}")
        self.exact = bool(exact)
        self.error = check_scalar(error, "error", low=0.0)
        self.shift = check_scalar(shift, "shift", low=0.0)
        self._cache: dict = {}

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_pair(
        cls,
        p: ArrayLike,
        q: ArrayLike,
        interval: float | None = None,
        *,
        interval_slack: float = 0.0,
        fallback: float = DEFAULT_INTERVAL,
    ) -> PrivacyLossDistribution:
        """The PLD of ``L = log(p/q)`` under ``P`` for finite distributions.

        With ``interval=None`` a lattice on which every finite loss lies (up to the rounding
        of its computation) is looked for (commensurate log-ratios); if there is none,
        losses are rounded up to a lattice of spacing ``fallback`` (``DEFAULT_INTERVAL``).
        With an explicit ``interval`` losses are rounded up to it (exact when they already
        lie on it); ``interval_slack >= 0`` is the absolute error the given interval may
        carry (a lattice found for several pairs at once). Losses are never rounded down.
        """
        first = check_pmf(p, "p", ndim=1)
        second = check_pmf(q, "q", ndim=1)
        if first.shape != second.shape:
            raise ValueError(
                f"p and q must have the same length, got {first.size} and {second.size}"
            )
        slack = check_scalar(interval_slack, "interval_slack", low=0.0)
        spacing = check_scalar(fallback, "fallback", low=0.0, low_open=True)
        return cls._from_pair(first, second, interval, slack, spacing)

    @classmethod
    def _from_pair(
        cls,
        first: np.ndarray,
        second: np.ndarray,
        interval: float | None,
        interval_slack: float = 0.0,
        fallback: float = DEFAULT_INTERVAL,
    ) -> PrivacyLossDistribution:
        """``from_pair`` without the checks; ``first`` and ``second`` may carry a relative
        rounding error of ``(len + 1) u`` (a normalisation), which the slack covers."""
        inf_mass = float(first[second == 0].sum())
        keep = (first > 0) & (second > 0)
        log_p, log_q = np.log(first[keep]), np.log(second[keep])
        losses = log_p - log_q
        slack = loss_slack(log_p, log_q, losses, first.size)
        # the masses may be a relative (len + 1) u off: round them up (and the +inf atom)
        up = 1.0 + (first.size + 2) * _UNIT
        return cls._from_atoms(
            losses,
            first[keep] * up,
            min(1.0, inf_mass * up),
            interval,
            slack,
            interval_slack,
            fallback,
        )

    @classmethod
    def _from_atoms(
        cls,
        losses: np.ndarray,
        masses: np.ndarray,
        inf_mass: float,
        interval: float | None,
        slack: np.ndarray,
        interval_slack: float = 0.0,
        fallback: float = DEFAULT_INTERVAL,
    ) -> PrivacyLossDistribution:
        if losses.size == 0:
            return cls(np.zeros(1), 0, interval or 1.0, inf_mass, exact=True)
        found = find_lattice(losses, slack) if interval is None else None
        if found is not None:
            h, h_slack = found
        elif interval is None:
            h, h_slack = check_scalar(fallback, "interval", low=0.0, low_open=True), 0.0
        else:
            h = check_scalar(interval, "interval", low=0.0, low_open=True)
            h_slack = check_scalar(interval_slack, "interval_slack", low=0.0)
        scaled = losses / h
        nearest = np.round(scaled)
        on_lattice = nearest * h
        # within the rounding of the computation of the loss (and of h): on the lattice
        tol = slack + np.abs(nearest) * h_slack + 4.0 * _UNIT * np.abs(on_lattice)
        snapped = np.abs(losses - on_lattice) <= tol
        k = np.where(snapped, nearest, np.ceil(scaled))
        points = k * h
        # how far an exact loss may exceed its lattice point (real arithmetic, rounded up)
        excess = losses + slack - points + 4.0 * _UNIT * (np.abs(losses) + np.abs(points))
        shift = max(0.0, float(np.max(excess)))
        k = k.astype(np.int64)
        low = int(k.min())
        if int(k.max()) - low + 1 > MAX_POINTS:
            raise ValueError(
                f"interval={h!r} gives {int(k.max()) - low + 1} lattice points (max "
                f"{MAX_POINTS}); use a larger interval"
            )
        # sums of the masses on each point, rounded up (relative error <= size u)
        probs = np.bincount(k - low, weights=masses) * (1.0 + (masses.size + 1) * _UNIT)
        exact = bool(np.all(snapped))
        return cls(probs, low, h, inf_mass, exact=exact, shift=shift)

    @classmethod
    def from_tradeoff(cls, f, interval: float | None = None) -> PrivacyLossDistribution:
        """The PLD whose profile is the profile of a piecewise-linear trade-off ``f``.

        ``f = T(P, Q)`` has profile ``E_{e^eps}(Q || P)``, so this is the PLD of the
        dominating pair ``(Q, P)`` (one atom per linear piece; ``1 - f(0)`` at ``+inf``).
        """
        pair = f.dominating_pair() if callable(getattr(f, "dominating_pair", None)) else None
        if pair is None:
            raise TypeError(
                f"f must be a curve with a finite dominating pair (a piecewise-linear "
                f"trade-off function), got {type(f).__name__}"
            )
        p, q = pair
        return cls.from_pair(q, p, interval)

    @classmethod
    def from_loss_cdf(
        cls,
        cdf: Callable[[np.ndarray], np.ndarray],
        sf: Callable[[np.ndarray], np.ndarray],
        lower: float,
        upper: float,
        interval: float,
        inf_mass: float = 0.0,
    ) -> PrivacyLossDistribution:
        """Pessimistic discretisation of a continuous loss law given by its CDF.

        The mass of ``(l_{k-1}, l_k]`` goes to ``l_k`` (rounded up); everything at or below
        the first lattice point at or above ``lower`` goes to that point, and the mass
        above the last point at or above ``upper`` goes to ``+inf``. Masses are differences
        of ``cdf`` below the median and of ``sf`` above it, so small tails keep their
        relative precision; their rounding (a few units in the last place of each CDF
        value) is bounded in ``error``.
        """
        h = check_scalar(interval, "interval", low=0.0, low_open=True)
        lo = math.ceil(lower / h)
        hi = max(math.ceil(upper / h), lo)
        if hi - lo + 1 > MAX_POINTS:
            raise ValueError(f"interval={h!r} gives {hi - lo + 1} lattice points; use a larger one")
        grid = np.arange(lo, hi + 1) * h
        c = np.clip(cdf(grid), 0.0, 1.0)
        s = np.clip(sf(grid), 0.0, 1.0)
        use_cdf = c <= 0.5
        masses = np.empty(grid.size)
        masses[0] = c[0]
        diff_c = np.diff(c)
        diff_s = -np.diff(s)
        masses[1:] = np.where(use_cdf[1:], diff_c, diff_s)
        masses = np.clip(masses, 0.0, None)
        # each CDF value is within 8 u of its magnitude: a bound on the L1 error of masses
        error = 16.0 * _UNIT * float(np.minimum(c, s).sum() + 1.0)
        shift = 4.0 * _UNIT * float(np.max(np.abs(grid)))  # the grid points are rounded
        return cls(
            masses, lo, h, min(1.0, inf_mass + float(s[-1])), exact=False, error=error, shift=shift
        )

    # ------------------------------------------------------------------ composition
    def compose(
        self, other: PrivacyLossDistribution, truncation: float | None = None
    ) -> PrivacyLossDistribution:
        """The PLD of the product pair (losses add; the ``+inf`` atoms combine).

        Both PLDs must share the lattice spacing. ``truncation`` (default ``0`` for exact
        PLDs, ``1e-15`` otherwise) is the tail mass moved pessimistically on each side.
        """
        if not isinstance(other, PrivacyLossDistribution):
            raise TypeError(f"other must be a PrivacyLossDistribution, got {type(other).__name__}")
        if not math.isclose(self.interval, other.interval, rel_tol=1e-12):
            raise ValueError(
                f"interval mismatch: {self.interval!r} vs {other.interval!r}; build both PLDs "
                "on the same lattice"
            )
        if self.interval != other.interval:  # equal up to 1e-12: the larger spacing covers
            gap = abs(self.interval - other.interval) * (
                abs(self.offset) + self.probs.size + abs(other.offset) + other.probs.size
            )
        else:
            gap = 0.0
        size = self.probs.size + other.probs.size - 1
        if size > MAX_POINTS:
            raise ValueError(
                f"the composed privacy-loss distribution would span {size} lattice points "
                f"(interval {self.interval:.3g}); the limit is MAX_POINTS = 2^24 "
                "(ldp.accounting.curves.pld): pass a coarser interval= (the bound stays an upper "
                "bound, looser by about n * interval in epsilon) or fewer reports"
            )
        probs, err = _convolve(self.probs, other.probs)
        error = self.error + other.error + err + self.error * other.error
        inf_mass = 1.0 - (1.0 - self.inf_mass) * (1.0 - other.inf_mass)
        exact = self.exact and other.exact
        shift = (self.shift + other.shift + gap) * (1.0 + 4.0 * _UNIT)
        tau = (0.0 if exact else 1e-15) if truncation is None else truncation
        return self._truncated(
            probs, self.offset + other.offset, inf_mass, exact, error, tau, shift
        )

    def _truncated(
        self,
        probs: np.ndarray,
        offset: int,
        inf_mass: float,
        exact: bool,
        error: float,
        tau: float,
        shift: float,
    ) -> PrivacyLossDistribution:
        if tau > 0 and probs.size > 1:
            left = _tail_sums(probs, tau)
            cut_left = int(np.searchsorted(left, tau, side="right"))
            cut_left = min(cut_left, probs.size - 1)
            right = _tail_sums(probs[::-1], tau)
            cut_right = int(np.searchsorted(right, tau, side="right"))
            cut_right = min(cut_right, probs.size - 1 - cut_left)
            if cut_left or cut_right:
                moved_left = float(left[cut_left - 1]) if cut_left else 0.0
                moved_right = float(right[cut_right - 1]) if cut_right else 0.0
                probs = probs[cut_left : probs.size - cut_right].copy()
                probs[0] += moved_left
                offset += cut_left
                inf_mass = min(1.0, inf_mass + moved_right)
                exact = False
        elif error == 0.0 and probs.size > 1:
            nz = np.nonzero(probs)[0]
            if nz.size:
                probs, offset = probs[nz[0] : nz[-1] + 1], offset + int(nz[0])
        return self._built(probs, offset, min(inf_mass, 1.0), exact, error, shift)

    def _built(self, probs, offset, inf_mass, exact, error, shift) -> PrivacyLossDistribution:
        """A distribution on this lattice from values computed here (unchecked, unlike
        ``__init__``, whose pass over every mass is for values from outside)."""
        built = PrivacyLossDistribution.__new__(PrivacyLossDistribution)
        probs.setflags(write=False)  # a float64 array of this module's own
        fields = {"probs": probs, "offset": int(offset), "interval": self.interval, "_cache": {}}
        fields.update(inf_mass=float(inf_mass), exact=exact, error=float(error), shift=shift)
        for name, value in fields.items():
            object.__setattr__(built, name, value)
        built._freeze()
        return built

    def self_compose(self, n: int, truncation: float | None = None) -> PrivacyLossDistribution:
        """The PLD of ``n`` independent copies (binary powering; ``n = 0`` is no release)."""
        n = check_integer(n, "n", low=0)
        if n == 0:
            return PrivacyLossDistribution(np.ones(1), 0, self.interval, 0.0, exact=True)
        self.check_span(n, truncation)
        result: PrivacyLossDistribution | None = None
        tau = (0.0 if self.exact else 1e-15) if truncation is None else truncation
        base = self
        if tau > 0.0 and n > 1:  # the tails every composition would cut, cut once up front
            base = self._truncated(
                self.probs, self.offset, self.inf_mass, self.exact, self.error, tau, self.shift
            )
        while True:
            if n & 1:
                result = base if result is None else result.compose(base, truncation)
            n >>= 1
            if not n:
                break
            base = base.compose(base, truncation)
        assert result is not None  # n >= 1 has a set bit
        return result

    def check_span(self, n: int, truncation: float | None = None) -> None:
        """Refuse up front an ``n``-fold power whose lattice would exceed ``MAX_POINTS``:
        without truncation the span is ``n (size - 1) + 1`` points; with it, the sum of ``n``
        losses keeps about ``20`` standard deviations, and the last squaring convolves two
        such spans: ``40 sd sqrt(n)`` points (the check in :meth:`compose` is the hard
        limit)."""
        size = self.probs.size
        tau = (0.0 if self.exact else 1e-15) if truncation is None else truncation
        if tau == 0.0:
            estimate = n * (size - 1) + 1
        else:
            total = float(self.probs.sum())
            if total <= 0.0:
                return
            points = np.arange(size, dtype=np.float64)
            mean = float(points @ self.probs) / total
            sd = math.sqrt(max(float(((points - mean) ** 2) @ self.probs) / total, 0.0))
            estimate = int(40.0 * sd * math.sqrt(n)) + 2 * size
        if estimate > MAX_POINTS:
            raise ValueError(
                f"{n} compositions would span about {estimate} lattice points (interval "
                f"{self.interval:.3g}); the limit is MAX_POINTS = 2^24 "
                "(ldp.accounting.curves.pld): pass a coarser interval= (the bound stays an upper "
                "bound, looser by about n * interval in epsilon) or fewer reports"
            )

    # ------------------------------------------------------------------ profile
    @property
    def levels(self) -> np.ndarray:
        """The levels ``eps`` where :meth:`delta` bends (it is linear in ``e^eps`` between
        consecutive ones): the lattice of losses, shifted, from one below the support."""
        return self._lattice()[0] + self.shift

    @property
    def top_level(self) -> float:
        """The smallest level (a double) at which :meth:`delta` reads ``inf_mass`` exactly.

        Every finite loss lies at or below it (the top lattice point plus ``shift``), so the
        profile there is the ``+inf`` atom alone, ``delta(inf)``: ``0`` for a pure pair. It is
        found by stepping up from the last of :attr:`levels` until the reported (rounded-up)
        profile says so, so the value is certified by the same evaluation as every other.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.accounting.curves.pld import PrivacyLossDistribution
        >>> e = np.exp(0.9)
        >>> rr = PrivacyLossDistribution.from_pair([e / (1 + e), 1 / (1 + e)],
        ...                                        [1 / (1 + e), e / (1 + e)])
        >>> top = rr.top_level
        >>> bool(abs(top - 0.9) < 1e-12), float(rr.delta(top))
        (True, 0.0)
        """
        if "top" not in self._cache:
            level = float(self.levels[-1])
            step = 0.0
            for _ in range(200):
                if float(self._delta(np.array([level]))[0]) <= self.inf_mass:
                    break
                step = max(2.0 * step, 4.0 * _UNIT * max(abs(level), self.interval))
                level = level + step
            else:  # pragma: no cover - the profile is inf_mass above every finite loss
                level = math.inf
            self._cache["top"] = level
        return float(self._cache["top"])

    @property
    def gdp_mu(self) -> float:
        r"""The smallest ``mu`` such that the profile is ``mu``-GDP (rounded up).

        The symmetric trade-off curve whose profile is :meth:`delta` on ``eps >= 0`` has one
        vertex per lattice threshold ``l >= 0``, ``(alpha, beta) = (Q(L >= l), P(L < l))``
        (``Q``-masses ``p e^{-L}``, the ``+inf`` atom in ``P`` only). ``G_mu`` is convex, so
        it lies below the curve iff it lies below every vertex (the mirror vertices give the
        same values):

        .. math:: \mu = \max_{l \ge 0}\ \Phi^{-1}(1 - \alpha_l) + \Phi^{-1}(1 - \beta_l)
                  = \max_{l \ge 0}\ \Phi^{-1}(P(L \ge l)) - \Phi^{-1}(Q(L \ge l)).

        Both tails are summed from the small end (``Q``-tails in log space), so vertices
        within ``1e-16`` of a corner keep their precision: the trade-off curve of a long
        composition, stored as doubles, cannot (its ``beta`` rounds to 1 and its ``alpha`` to
        0 there), which makes :func:`~ldp.accounting.get_mu_from_tradeoff` of it ``inf``.
        Rounded outward: ``alpha`` and ``beta`` are lowered by a relative ``1e-6`` (far above
        the rounding of the masses) and by ``error``, losses raised by ``shift``; masses
        below ``1e-290`` count as possibly underflowed. A positive ``inf_mass`` gives ``inf``
        (no finite ``mu``); exact for an exact PLD up to these allowances.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.accounting.curves.pld import PrivacyLossDistribution
        >>> e = np.exp(1.0)
        >>> rr = PrivacyLossDistribution.from_pair([e / (1 + e), 1 / (1 + e)],
        ...                                        [1 / (1 + e), e / (1 + e)])
        >>> round(rr.gdp_mu, 5)       # -2 Phi^{-1}(1 / (1 + e)): randomized response
        1.23204
        >>> round(rr.self_compose(365).gdp_mu, 4)
        18.741
        """
        if "mu" not in self._cache:
            self._cache["mu"] = self._gdp_mu()
        return float(self._cache["mu"])

    def _gdp_mu(self) -> float:
        if self.inf_mass > 0.0:
            return math.inf
        probs = self.probs
        n = probs.size
        raw = (self.offset + np.arange(n)) * self.interval
        losses = raw + self.shift
        losses = losses + 4.0 * _UNIT * (np.abs(raw) + self.shift)  # rounded up
        rel = _TAIL_REL
        upper = np.cumsum(probs[::-1])[::-1]  # P(L >= l_j), from the small end
        lower = np.concatenate(([0.0], np.cumsum(probs)[:-1]))  # P(L < l_j)
        with np.errstate(divide="ignore"):
            log_q = np.log(probs) - losses
        log_qtail = np.logaddexp.accumulate(log_q[::-1])[::-1]  # log Q(L >= l_j)
        last = int(np.max(np.nonzero(probs > 0.0)[0])) if np.any(probs > 0.0) else -1
        use = (losses >= 0.0) & (np.arange(n) <= last)
        if not np.any(use):
            return 0.0
        up_p = upper[use] * (1.0 + rel) + self.error + n * _TINY
        low_p = lower[use] * (1.0 - rel) - self.error
        # z(beta) = Phi^{-1}(1 - beta) = Phi^{-1}(P(L >= l)): an upper bound both ways
        with np.errstate(divide="ignore", invalid="ignore"):
            z_beta = np.minimum(
                ndtri(np.minimum(up_p, 1.0)),
                np.where(low_p > 0.0, -ndtri(np.clip(low_p, 0.0, 1.0)), np.inf),
            )
        # z(alpha) = -Phi^{-1}(alpha) from a lower bound on alpha = Q(L >= l)
        log_a = log_qtail[use] + math.log1p(-rel) - 4.0 * _UNIT * (np.abs(log_qtail[use]) + 1)
        z_alpha = np.empty(log_a.shape)
        with np.errstate(under="ignore", invalid="ignore", divide="ignore"):
            a = np.exp(log_a) * (1.0 - 4.0 * _UNIT)
            if self.error > 0.0:
                a = a - self.error * np.exp(-losses[use] + 4.0 * _UNIT * np.abs(losses[use]))
            tiny = log_a < -650.0
            # Phi(-z) <= phi(z) / z: z = sqrt(-2 log alpha) has Phi(-z) <= alpha (z >= 1)
            z_alpha = np.where(
                tiny,
                np.sqrt(np.maximum(-2.0 * log_a, 1.0)),
                np.where(a > 0.0, -ndtri(np.clip(a, 0.0, 1.0)), np.inf),
            )
            total = z_alpha + z_beta
        total = np.where(np.isnan(total), np.inf, total)
        best = float(np.max(total))
        if not math.isfinite(best):
            return best
        # ndtri within a few ulps: both terms rounded up
        scale = float(np.max(np.abs(z_alpha[np.isfinite(z_alpha)]), initial=0.0)) + float(
            np.max(np.abs(z_beta[np.isfinite(z_beta)]), initial=0.0)
        )
        return max(0.0, best + 16.0 * _UNIT * (scale + 1.0))

    def _lattice(self) -> tuple[np.ndarray, np.ndarray]:
        """Levels ``l_j`` (one below the support to the top) and ``D_j`` = finite part.

        ``D_j`` is rounded up: the recurrence has relative rounding error below ``4 N u``.
        """

        def compute():
            probs, offset = self.probs, self.offset
            if offset > -1:  # make sure eps = 0 lies inside the lattice
                probs = np.concatenate((np.zeros(offset + 1), probs))
                offset = -1
            h = self.interval
            tail = np.cumsum(probs[::-1])  # A_{n-1}, A_{n-2}, ..., A_0
            d = lfilter([-math.expm1(-h)], [1.0, -math.exp(-h)], tail)
            levels = (offset - 1 + np.arange(probs.size + 1)) * h
            values = np.concatenate((d[::-1], [0.0]))  # D at l_{-1} .. l_{n-1}
            inflate = 1.0 + 4.0 * (probs.size + 4) * _UNIT
            return levels, np.clip(values, 0.0, None) * inflate

        if "lattice" not in self._cache:
            self._cache["lattice"] = compute()
        return self._cache["lattice"]

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        levels, values = self._lattice()
        h = self.interval
        flat = np.asarray(eps, dtype=np.float64).ravel()
        if self.shift > 0.0:  # read the lattice profile at eps - shift (rounded down)
            flat = np.nextafter(flat - self.shift, -np.inf)
        j = np.clip(np.searchsorted(levels, flat, side="right") - 1, 0, levels.size - 1)
        nxt = np.minimum(j + 1, levels.size - 1)
        with np.errstate(over="ignore", invalid="ignore"):
            w = np.clip(np.expm1(flat - levels[j]) / math.expm1(h), 0.0, 1.0)
        # linear in e^eps between lattice points; the 1 + 4u covers the interpolation
        finite = np.where(
            j == levels.size - 1, 0.0, ((1.0 - w) * values[j] + w * values[nxt]) * (1 + 4 * _UNIT)
        )
        below = flat < levels[0]
        if np.any(below):
            probs = self.probs
            losses = (self.offset + np.arange(probs.size)) * h
            with np.errstate(over="ignore", divide="ignore"):
                lq = np.log(np.sum(probs * np.exp(-(losses - losses.min())))) - losses.min()
                low_value = (probs.sum() - np.exp(flat + lq)) * (1.0 + 4.0 * probs.size * _UNIT)
                finite = np.where(below, low_value, finite)
        # the floating-point allowance applies where lattice mass lies above eps
        total = self.inf_mass + finite + np.where(j < levels.size - 1, self.error, 0.0)
        return np.clip(total, 0.0, 1.0).reshape(np.shape(eps))

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """``E_{e^eps}(P || Q)`` for real ``epsilon`` (``inf`` allowed): an upper bound.

        Exact for an exact PLD up to the floating-point allowances (which are added); for a
        rounded-up PLD an upper bound on the profile of the underlying pair.
        """
        e, scalar = as_levels(epsilon, "epsilon")
        return out(self._delta(e), scalar)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """Smallest ``eps >= 0`` with ``delta(eps) <= delta`` (``inf`` if none), rounded up."""
        d, scalar = as_levels(delta, "delta", low=0.0, high=1.0)
        return out(self._epsilon(d), scalar)

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        """Synonym of :meth:`epsilon_for_delta` (the older spelling)."""
        return self.epsilon_for_delta(delta)

    def _epsilon(self, d: np.ndarray) -> np.ndarray:
        levels, values = self._lattice()
        h = self.interval
        flat = d.ravel()
        # on [l_j, l_{j+1}] the bound is inf + error + interp(D), non-increasing
        base = self.inf_mass + self.error
        left = base + values[:-1] * (1 + 4 * _UNIT)
        right = base + values[1:] * (1 + 4 * _UNIT)
        # first segment (with l_{j+1} > 0) whose right end is at or below the target
        start = int(np.searchsorted(levels, 0.0, side="right")) - 1
        seg_right = right[start:]
        # seg_right is non-increasing: find first index with seg_right <= target
        idx = np.searchsorted(-seg_right, -flat, side="left")
        result = np.full(flat.shape, np.inf)
        ok = idx < seg_right.size
        j = start + idx[ok]
        target = flat[ok]
        lv = levels[j]
        span = left[j] - right[j]
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(span > 0, (left[j] - target) / span, 0.0)
        w = np.clip(w, 0.0, 1.0)
        eps = np.where(left[j] <= target, lv, lv + np.log1p(w * math.expm1(h)))
        result[ok] = np.maximum(eps, 0.0)
        # at the top lattice point no mass lies above: delta = inf_mass there
        top = ~ok & (flat >= self.inf_mass)
        result[top] = max(float(levels[-1]), 0.0)
        finite = np.isfinite(result)
        result[finite] = np.nextafter(result[finite] + self.shift, np.inf)
        result[flat >= self._delta(np.zeros(1))[0]] = 0.0
        # rounding of the inversion: step up until the reported profile is at the target
        for _ in range(8):
            finite = np.isfinite(result)
            bad = finite & (self._delta(result) > flat)
            if not np.any(bad):
                break
            result[bad] = np.nextafter(result[bad] * (1.0 + 4.0 * _UNIT) + 4.0 * _UNIT * h, np.inf)
        return result.reshape(d.shape)

    @property
    def tv(self) -> float:
        """``delta(0)``, the total variation ``TV(P, Q)`` (upper bound)."""
        return float(self._delta(np.zeros(1))[0])

    def to_dp_accounting(self, add: PrivacyLossDistribution | None = None):
        """Export to ``dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution``.

        Requires the optional ``dp-accounting`` package. ``self`` is the remove-direction
        PMF and ``add`` (default: the same, i.e. a symmetric PLD) the add direction; both
        are marked pessimistic unless exact. dp-accounting's PLD of the same pair gives the
        same profile (checked in the tests). The floating-point ``shift`` (below ``1e-12``
        for exact lattices) has no counterpart there and is dropped.
        """
        try:
            from dp_accounting.pld import pld_pmf, privacy_loss_distribution
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "to_dp_accounting needs the optional dependency dp-accounting "
                "(pip install dp-accounting)"
            ) from exc

        def pmf(pld: PrivacyLossDistribution):
            probs = np.array(pld.probs)
            if pld.error:
                probs[-1] += pld.error  # carry the floating-point allowance, pessimistically
            return pld_pmf.DensePLDPmf(pld.interval, pld.offset, probs, pld.inf_mass, not pld.exact)

        other = self if add is None else add
        if not math.isclose(other.interval, self.interval, rel_tol=1e-12):
            raise ValueError("add must use the same interval")
        return privacy_loss_distribution.PrivacyLossDistribution(pmf(self), pmf(other))

    @property
    def losses(self) -> np.ndarray:
        """The lattice losses ``interval * (offset + i)``."""
        return (self.offset + np.arange(self.probs.size)) * self.interval

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "rounded up"
        return (
            f"<PrivacyLossDistribution {kind}, {self.probs.size} points, interval="
            f"{self.interval:.6g}, inf_mass={self.inf_mass:.3g}>"
        )
