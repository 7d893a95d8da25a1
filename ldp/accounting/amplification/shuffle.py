r"""Privacy amplification by shuffling: the central guarantee of ``n`` shuffled LDP reports.

``n`` users each send one report of an ``eps0``-LDP randomizer; a shuffler forwards the
multiset (neighbouring datasets differ in one user's value, ``n`` fixed). Every bound here
rests on the *clone reduction* of Feldman-McMillan-Talwar (2021): with
``alpha = e^eps0 / (e^eps0 + 1)`` and a *clone probability* ``p_c``, the shuffled output on
two neighbouring datasets is a post-processing of the pair on ``N^2``

.. math:: C \sim \mathrm{Bin}(n-1, p_c),\quad A \mid C \sim \mathrm{Bin}(C, 1/2),\quad
          \Delta \sim \mathrm{Bern}(\alpha),

``P = law(A + Delta, C - A + 1 - Delta)``, ``Q = law(A + 1 - Delta, C - A + Delta)``, so
``delta_shuffle(eps) <= E_{e^eps}(P || Q)`` (the pair is mirror-symmetric, so one direction
suffices). Each other user is, independently with probability ``p_c``, a "clone" of the
victim: a fair coin between the two components of the victim's two output laws. A valid
``p_c`` needs ``R(x) >= (p_c / 2) (R(x0) + R(x1))`` pointwise for every input ``x`` and every
pair ``x0, x1``:

* any ``eps0``-LDP randomizer: ``p_c = e^{-eps0}`` (Feldman-McMillan-Talwar (2021));
* k-RR (and any finite channel whose matrix allows more): ``p_c = 2 / (e^eps0 + 1)`` for
  k-RR, and in general the largest ``p_c`` the matrix satisfies, computed from the matrix
  here. Feldman-McMillan-Talwar (2023) state the ``2 / (e^eps0 + 1)`` reduction for every
  ``eps0``-LDP randomizer; their erratum withdraws that (it holds only for a restricted
  class), so this module uses it only where the condition above is checked on the
  mechanism's own matrix, which k-RR passes with equality.

Methods (``method=`` of :func:`shuffle_amplification`):

``"clones"``
    the numerical bound: ``E_{e^eps}(P || Q)`` computed exactly given ``C = c`` (the
    likelihood ratio is monotone in ``A``, so the optimal test is a threshold), summed over
    a ``+-20 sigma`` window of ``C`` with the mass outside it added in full; ``eps(delta)``
    by bisection, returning the upper end of the bracket (an evaluated feasible point). With
    ``mechanism=None`` (any ``eps0``-LDP randomizer) ``p_c = e^{-eps0}``; with a finite
    channel (``ldp.k_rr(k, eps0)``, :class:`~ldp.mechanisms.GRR`) the matrix's own clone
    probability (``2 / (e^eps0 + 1)`` for k-RR), which is never smaller.
``"closed-form"``
    Feldman-McMillan-Talwar (2021), Theorem 3.1: for ``eps0 <= log(n / (16 log(2/delta)))``,
    ``eps = log(1 + (e^eps0 - 1)/(e^eps0 + 1) * (8 sqrt(e^eps0 log(4/delta) / n) +
    8 e^eps0 / n))``; outside that range ``ValueError`` (never ``eps0``, never an
    extrapolation).
``"blanket"``
    the privacy blanket of Balle-Bell-Gascón-Nissim (2019)
    (:mod:`ldp.accounting.amplification.blanket`): the smaller of its Hoeffding and Bennett
    forms, with k-RR's blanket probability ``k / (e^eps0 + k - 1)`` for a k-RR mechanism and
    ``e^{-eps0}`` otherwise. One round.
``"auto"``
    the smallest of the bounds that apply: the numerical clone bound (never larger than the
    closed form where both apply in every case computed) and, for k-RR in one round, the
    blanket bound (the tighter one when ``k`` is large next to ``e^eps0``).

``rounds=T`` composes ``T`` shuffled rounds (fresh reports each round, the same victim):
the clone pair dominates every round, so by the composition theorem for trade-off curves
(Dong-Roth-Su (2022), Theorem 3.2) ``T`` rounds are dominated by ``(P^T, Q^T)``, whose
profile is computed from the pair's privacy-loss distribution (``ldp.accounting.curves.pld``:
losses rounded up to a lattice, masses outside a ``+-10 sigma`` window moved up to the
largest loss ``eps0``).

Every value is an upper bound that holds for the stated randomizer, floating point
included; tests/accounting/amplification/test_shuffle.py checks each one against the exact
``delta(eps)`` of shuffled k-RR, computed by enumerating every multinomial output for ``n <= 30``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from ldp._formulas import k_rr_probabilities
from ldp._frozen import Frozen
from ldp._numerics import bisect_monotone
from ldp._rounding import round_up
from ldp._validation import check_epsilon, check_integer, check_scalar, compact
from ldp.accounting.amplification.blanket import BLANKET_BOUNDS, blanket_delta, blanket_probability
from ldp.accounting.curves.pld import PrivacyLossDistribution
from ldp.channel import Channel
from ldp.core import Mechanism
from ldp.references import cite

__all__ = [
    "METHODS",
    "ShuffleAmplification",
    "clone_probability",
    "krr_alphabet",
    "shuffle_amplification",
    "shuffle_delta",
    "shuffle_pld",
]

#: The bounds :func:`shuffle_amplification` computes.
METHODS = ("auto", "clones", "closed-form", "blanket")
#: Half-width, in standard deviations of ``C``, of the window summed exactly (one round);
#: the mass outside is added in full, so the width trades only tightness (nil at 20) for
#: speed.
_WINDOW = 20.0
#: Half-width of the windows of ``C`` and ``A`` kept in the privacy-loss distribution.
_PLD_WINDOW = 10.0
#: Relative allowance for the rounding of the per-``c`` terms (scipy's binomial tails are
#: accurate to a few ulps; this is many orders of magnitude above that).
_REL = 1e-10
#: Largest ``n`` accepted (the numerical sum costs ``O(sqrt(n p_c))`` per evaluation).
MAX_USERS = 10**10
#: Largest number of shuffled rounds composed.
MAX_ROUNDS = 100_000
#: Bisection stops when the bracket is this narrow (absolute, in epsilon).
_TOL = 1e-9


class ShuffleAmplification(Frozen):
    """The central ``(epsilon, delta)`` of shuffled reports: an upper bound that holds.

    Parameters
    ----------
    epsilon : float
        Central epsilon (rounded up): the shuffled output of ``rounds`` rounds of ``n``
        reports is ``(epsilon, delta)``-DP.
    delta : float
        The delta it was computed for.
    epsilon0 : float
        The local (per-report) epsilon.
    n : int
        Number of users shuffled together.
    rounds : int
        Number of shuffled rounds composed.
    method : str
        ``"clones"``, ``"closed-form"`` or ``"blanket"`` (the one reported).
    clone_probability : float
        ``p_c`` of the clone reduction used (``e^{-eps0}`` for a generic randomizer); for
        ``method="blanket"`` the blanket probability ``gamma``.
    citation : str
        Author-year citation of the bound.
    description : str
        A sentence saying what was computed.
    pld : PrivacyLossDistribution or None
        The composed privacy-loss distribution of the clone pair (``rounds > 1``).

    Examples
    --------
    >>> from ldp.accounting import shuffle_amplification
    >>> r = shuffle_amplification(4.0, 100_000, 1e-6, method="closed-form")
    >>> round(r.epsilon, 4), r.citation
    (0.5346, 'Feldman-McMillan-Talwar (2021), Theorem 3.1')
    """

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float,
        epsilon0: float,
        n: int,
        rounds: int,
        method: str,
        clone_probability: float,
        citation: str,
        description: str,
        pld: PrivacyLossDistribution | None = None,
    ) -> None:
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.epsilon0 = float(epsilon0)
        self.n = int(n)
        self.rounds = int(rounds)
        self.method = method
        self.clone_probability = float(clone_probability)
        self.citation = citation
        self.description = description
        self.pld = pld

    def __repr__(self) -> str:
        return (
            f"<ShuffleAmplification eps={self.epsilon:.6g} at delta={self.delta:.3g}: "
            f"{self.description}>"
        )


# ------------------------------------------------------------------ clone probability
def clone_probability(mechanism: object = None, epsilon0: float | None = None) -> float:
    """The largest clone probability ``p_c`` the clone reduction may use (rounded down).

    ``p_c`` is valid when every row satisfies ``R(x) >= (p_c / 2)(R(x0) + R(x1))``
    pointwise for all inputs ``x, x0, x1`` with ``x0 != x1``. For a finite channel it is
    ``min_z min_x R(x, z) / ((R_(1)(z) + R_(2)(z)) / 2)`` (``R_(1), R_(2)`` the two largest
    entries of column ``z``); for k-RR that is ``2 / (e^eps0 + 1)``. Without a mechanism
    (any ``eps0``-LDP randomizer) it is ``e^{-eps0}`` (Feldman-McMillan-Talwar (2021)).

    Examples
    --------
    >>> import math, ldp
    >>> from ldp.accounting.amplification.shuffle import clone_probability
    >>> abs(clone_probability(ldp.k_rr(8, 2.0)) - 2 / (math.e**2 + 1)) < 1e-12
    True
    >>> clone_probability(None, 2.0) == math.exp(-2.0)
    True
    """
    generic = math.exp(-epsilon0) if epsilon0 is not None else 0.0
    matrix = _matrix(mechanism)
    krr = _krr(mechanism)
    if matrix is None and krr is not None:  # k-RR: min over a column is q, its top two p + q
        k, eps = krr
        _, other, _ = k_rr_probabilities(k, eps)
        keep = 1.0 - (k - 1) * other
        value = 2.0 * other / (keep + other) * (1.0 - 1e-12)
        return min(1.0, max(value, generic))
    if matrix is None:
        return generic
    if matrix.shape[0] < 2:
        return 1.0
    top = -np.sort(-matrix, axis=0)[:2]  # the two largest entries of each column
    pair = (top[0] + top[1]) / 2.0
    used = pair > 0
    if not np.any(used):
        return 1.0
    value = float(np.min(matrix.min(axis=0)[used] / pair[used]))
    value *= 1.0 - 1e-12  # rounded down: a relative error of a few ulps per entry
    return min(1.0, max(value, generic))


def _krr(mechanism: object) -> tuple[int, float] | None:
    """``(k, epsilon)`` when the mechanism says it is k-RR (:meth:`Mechanism.krr_parameters`)."""
    return mechanism.krr_parameters() if isinstance(mechanism, Mechanism) else None


def _matrix(mechanism: object) -> np.ndarray | None:
    if mechanism is None:
        return None
    if isinstance(mechanism, Channel):
        return mechanism.matrix
    return None  # any other mechanism: the generic reduction (its epsilon only)


# ------------------------------------------------------------------ the clone pair
def _window(m: int, p_c: float, width: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Values ``c`` of ``Bin(m, p_c)`` within ``width`` sd of the mean, their masses, and
    (an upper bound on) the mass outside."""
    if m == 0 or p_c <= 0.0:
        return np.zeros(1, dtype=np.int64), np.ones(1), 0.0
    if p_c >= 1.0:
        return np.array([m], dtype=np.int64), np.ones(1), 0.0
    mu = m * p_c
    sd = math.sqrt(max(1.0, m * p_c * (1.0 - p_c)))
    lo = max(0, math.floor(mu - width * sd))
    hi = min(m, math.ceil(mu + width * sd))
    cs = np.arange(lo, hi + 1, dtype=np.int64)
    weights = binom.pmf(cs, m, p_c)
    outside = (binom.cdf(lo - 1, m, p_c) if lo > 0 else 0.0) + (
        binom.sf(hi, m, p_c) if hi < m else 0.0
    )
    return cs, weights, float(outside) * (1.0 + _REL)


def _per_c(eps: float, eps0: float, cs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``E_{e^eps}(P_c || Q_c)`` for each ``c`` and an absolute rounding allowance."""
    alpha, beta = 1.0 / (1.0 + math.exp(-eps0)), 1.0 / (1.0 + math.exp(eps0))  # beta = 1 - alpha
    e = math.exp(eps)
    a_coef = alpha - e * beta
    # the likelihood ratio (alpha r + 1 - alpha) / ((1 - alpha) r + alpha), r = a/(c+1-a),
    # equals e^eps at a = (c + 1) r* / (1 + r*)
    r_star = (e * alpha - beta) / a_coef
    t_star = (cs + 1.0) * (r_star / (1.0 + r_star))
    base = np.ceil(t_star)
    best = np.zeros(cs.shape)
    size = np.zeros(cs.shape)
    for d in (-2.0, -1.0, 0.0, 1.0, 2.0):
        t = base + d
        # g(t) = P(A' >= t) - e^eps Q(A' >= t)
        #      = S(t)(1 - e^eps) + B(t - 1)(alpha - e^eps (1 - alpha))
        tail = binom.sf(t - 1.0, cs, 0.5)  # S(t) = Pr[Bin(c, 1/2) >= t]
        atom = binom.pmf(t - 1.0, cs, 0.5)
        g = tail * (1.0 - e) + atom * a_coef
        better = g > best
        best = np.where(better, g, best)
        size = np.where(better, tail * e + atom, size)
    return best, size


def shuffle_delta(
    epsilon: float, epsilon0: float, n: int, clone_probability: float | None = None
) -> float:
    """Upper bound on ``delta(epsilon)`` of ``n`` shuffled ``eps0``-LDP reports (the clone pair).

    ``E_{e^eps}(P || Q)`` of the pair of Feldman-McMillan-Talwar (2021) with clone
    probability ``clone_probability`` (default ``e^{-eps0}``, valid for every randomizer),
    summed exactly over a ``+-20 sigma`` window of ``C`` with the rest of its mass added in
    full, plus a rounding allowance.

    Examples
    --------
    >>> from ldp.accounting.amplification.shuffle import shuffle_delta
    >>> round(shuffle_delta(0.03, 1.0, 10_000), 10)
    0.0001428173
    """
    eps = check_epsilon(epsilon, allow_inf=False)
    eps0 = check_epsilon(epsilon0, "epsilon0", positive=True, allow_inf=False)
    n = check_integer(n, "n", low=1)
    p_c = math.exp(-eps0) if clone_probability is None else clone_probability
    p_c = check_scalar(p_c, "clone_probability", low=0.0, high=1.0)
    return _delta(eps, eps0, n, p_c)


def _delta(eps: float, eps0: float, n: int, p_c: float) -> float:
    if eps >= eps0:
        return 0.0  # the likelihood ratio of the pair never exceeds e^eps0
    cs, weights, outside = _window(n - 1, p_c, _WINDOW)
    h, size = _per_c(eps, eps0, cs)
    value = math.fsum(weights * h) * (1.0 + _REL) + _REL * math.fsum(weights * size) + outside
    return min(1.0, value)


def _epsilon(delta: float, eps0: float, n: int, p_c: float) -> float:
    """Smallest ``eps`` in ``[0, eps0]`` found by bisection with ``_delta(eps) <= delta``
    (the upper end of the final bracket, a point that was evaluated)."""
    return _bisect(lambda e: _delta(e, eps0, n, p_c), delta, eps0)


def _bisect(profile, delta: float, eps0: float) -> float:
    """Bisection on ``[0, eps0]`` for ``profile(eps) <= delta`` (``profile(eps0) = 0``): the
    upper end of the final bracket, a point that was evaluated and passed."""
    if profile(0.0) <= delta:
        return 0.0
    return bisect_monotone(
        lambda e: profile(e) <= delta,
        0.0,
        eps0,
        side="high",
        ends=(False, True),
        rtol=_TOL,
        scale=1.0,
    )


def krr_alphabet(mechanism: object) -> int | None:
    """``k`` when the mechanism is k-RR (a ``GRR`` or a k-RR ``Channel``), else ``None``.

    Examples
    --------
    >>> import ldp
    >>> from ldp.accounting.amplification.shuffle import krr_alphabet
    >>> krr_alphabet(ldp.k_rr(5, 1.0)), krr_alphabet(ldp.mechanisms.OUE(5, 1.0))
    (5, None)
    """
    krr = _krr(mechanism)
    return None if krr is None else krr[0]


def _blanket(eps0: float, n: int, delta: float, k: int | None) -> tuple[float, str, float]:
    """The blanket bound's epsilon, the inequality that gave it, and ``gamma``."""
    gamma = blanket_probability(eps0, k)
    best, which = eps0, BLANKET_BOUNDS[0]
    for bound in BLANKET_BOUNDS:
        value = _bisect(lambda e, b=bound: blanket_delta(e, eps0, n, k=k, bound=b), delta, eps0)
        if value < best:
            best, which = value, bound
    return best, which, gamma


# ------------------------------------------------------------------ closed form
def _closed_form_limit(n: int, delta: float) -> float:
    """``log(n / (16 log(2/delta)))``: the largest ``eps0`` Theorem 3.1 covers."""
    return math.log(n / (16.0 * math.log(2.0 / delta)))


def _closed_form(eps0: float, n: int, delta: float) -> float:
    limit = _closed_form_limit(n, delta)
    if not eps0 <= limit:
        raise ValueError(
            f"epsilon0 must be <= log(n / (16 log(2/delta))) = {limit:.6g} for the closed form "
            f"of Feldman-McMillan-Talwar (2021), Theorem 3.1 (n = {compact(n)}, delta = "
            f"{delta:g}), got {eps0!r}; use method='clones' (the numerical bound has no such "
            "condition)"
        )
    e0 = math.exp(eps0)
    x = 8.0 * math.sqrt(e0 * math.log(4.0 / delta) / n) + 8.0 * e0 / n
    value = math.log1p(math.tanh(eps0 / 2.0) * x)  # (e^eps0 - 1)/(e^eps0 + 1) = tanh(eps0/2)
    return round_up(value, 4)


# ------------------------------------------------------------------ T rounds
def _binomial_rows(cs: np.ndarray, half: int) -> np.ndarray:
    """``Bin(c, 1/2)`` masses at ``a = floor(c/2) - half - 1 .. floor(c/2) + half`` per row.

    The mass at ``floor(c/2)`` comes from scipy (relative error ~1e-15), the others from
    products of the exact ratios ``B(a+1)/B(a) = (c-a)/(a+1)`` outward (relative error at
    most ``half`` ulps): no large log-factorials cancel, and zero outside ``[0, c]``.
    """
    c = cs[:, None].astype(np.float64)
    mode = np.floor(c / 2.0)
    centre = binom.pmf(mode[:, 0], cs, 0.5)[:, None]
    up = np.arange(0, half)[None, :]  # from mode + j to mode + j + 1
    right = np.maximum((c - (mode + up)) / (mode + up + 1.0), 0.0)
    down = np.arange(0, half + 1)[None, :]  # from mode - j to mode - j - 1
    left = np.maximum((mode - down) / (c - (mode - down) + 1.0), 0.0)
    rows = np.empty((cs.size, 2 * half + 2))
    rows[:, half + 1] = centre[:, 0]
    rows[:, half + 2 :] = centre * np.cumprod(right, axis=1)
    rows[:, half::-1] = centre * np.cumprod(left, axis=1)
    return rows


def clone_pair_pld(
    epsilon0: float, n: int, clone_probability: float, interval: float = 1e-4
) -> PrivacyLossDistribution:
    """Pessimistic privacy-loss distribution of the clone pair ``(P, Q)`` (one round).

    The loss at ``(C, A') = (c, a)`` is ``log((alpha a + (1 - alpha)(c + 1 - a)) /
    ((1 - alpha) a + alpha (c + 1 - a)))``, rounded **up** to the lattice of spacing
    ``interval`` (with a margin for its floating-point error); the ``P``-masses of ``c`` and
    ``a`` outside ``+-10`` standard deviations go to the lattice point above ``eps0`` (no
    loss of the pair exceeds ``eps0``), so the distribution has no ``+inf`` atom. Built in
    blocks of ``c``, so memory stays ``O(sqrt(n))`` per block. The pair is mirror-symmetric,
    so this one direction gives the two-sided profile.

    Examples
    --------
    >>> from ldp.accounting.amplification.shuffle import clone_pair_pld, shuffle_delta
    >>> import math
    >>> pld = clone_pair_pld(2.0, 1000, math.exp(-2.0))
    >>> exact = shuffle_delta(0.5, 2.0, 1000)
    >>> bool(exact <= pld.delta(0.5) <= exact * 1.01 + 1e-12)
    True
    """
    eps0 = check_epsilon(epsilon0, "epsilon0", positive=True, allow_inf=False)
    n = check_integer(n, "n", low=1)
    h = check_scalar(interval, "interval", low=0.0, low_open=True, high=1.0)
    alpha, beta = 1.0 / (1.0 + math.exp(-eps0)), 1.0 / (1.0 + math.exp(eps0))  # beta = 1 - alpha
    cs, weights, outside = _window(n - 1, clone_probability, _PLD_WINDOW)
    low = math.floor(-eps0 / h) - 2
    size = math.ceil(eps0 / h) + 4 - low
    probs = np.zeros(size)
    missing = [outside]  # P-mass not kept: it goes to +inf
    block = 256
    for start in range(0, cs.size, block):
        c_block = cs[start : start + block]
        w_block = weights[start : start + block]
        half = math.ceil(_PLD_WINDOW * math.sqrt(max(1.0, float(c_block.max()))) / 2.0) + 2
        # B_c(a) on a = base - 1 .. base + half + 1, so that B_c(a - 1) is one column left
        grid = np.floor(c_block[:, None] / 2.0) + np.arange(-half - 1, half + 1)[None, :]
        cc = np.broadcast_to(c_block[:, None].astype(np.float64), grid.shape)
        b = _binomial_rows(c_block, half)
        a, c = grid[:, 1:], cc[:, 1:]
        keep = (a >= 0) & (a <= c + 1)
        w = np.broadcast_to(w_block[:, None], keep.shape)[keep]
        mass = w * (alpha * b[:, :-1][keep] + beta * b[:, 1:][keep])
        # the A-tails left out of row c: a < a_lo carries at most Pr[B <= a_lo - 1], a > a_hi
        # at most Pr[B >= a_hi] (B ~ Bin(c, 1/2)); computed as tails, without cancellation
        a_lo = np.floor(c_block / 2.0) - half
        a_hi = np.floor(c_block / 2.0) + half
        tails = binom.cdf(a_lo - 1.0, c_block, 0.5) + binom.sf(a_hi - 1.0, c_block, 0.5)
        missing.append(math.fsum(w_block * tails) * (1.0 + _REL))
        a, c = a[keep], c[keep]
        up = alpha * a + beta * (c + 1.0 - a)
        down = beta * a + alpha * (c + 1.0 - a)
        loss = np.log(up) - np.log(down)
        # rounded up past the floating-point error of the loss (a few ulps of eps0); a loss
        # below the lowest point is moved up to it
        index = np.ceil((loss + 1e-12 * (1.0 + eps0)) / h).astype(np.int64) - low
        index = np.maximum(index, 0)
        probs += np.bincount(index, weights=mass, minlength=size)
    probs *= 1.0 + _REL  # every mass rounded up (ratio products and bincount sums included)
    # no loss of the pair exceeds eps0 (the ratio alpha / (1 - alpha) at a = c + 1): the mass
    # left out goes to the lattice point above eps0 (with a step for its rounding), not to
    # +inf, so the distribution stays pure (finite GDP level; delta(eps0 + h) = 0)
    top = math.ceil(eps0 / h) + 1 - low
    probs[top] += min(1.0, math.fsum(missing)) * (1.0 + _REL)
    return PrivacyLossDistribution(probs, low, h, 0.0)


def shuffle_pld(
    epsilon0: float,
    n: int,
    *,
    rounds: int = 1,
    clone_probability: float | None = None,
    interval: float = 1e-4,
) -> PrivacyLossDistribution:
    """Privacy-loss distribution dominating ``rounds`` shuffled rounds of ``n`` reports.

    The clone pair's distribution (:func:`clone_pair_pld`) composed ``rounds`` times
    (Dong-Roth-Su (2022), Theorem 3.2); its ``delta(eps)`` is an upper bound on the
    profile of the ``rounds`` shuffled outputs.

    Examples
    --------
    >>> from ldp.accounting.amplification.shuffle import shuffle_pld
    >>> pld = shuffle_pld(2.0, 1000, rounds=5)
    >>> bool(0.0 < pld.delta(1.5) < 1e-7)
    True
    """
    eps0 = check_epsilon(epsilon0, "epsilon0", positive=True, allow_inf=False)
    p_c = math.exp(-eps0) if clone_probability is None else clone_probability
    p_c = check_scalar(p_c, "clone_probability", low=0.0, high=1.0)
    rounds = check_integer(rounds, "rounds", low=1)
    pld = clone_pair_pld(eps0, n, p_c, interval)
    return pld.self_compose(rounds, truncation=1e-15)


# ------------------------------------------------------------------ public entry point
def shuffle_amplification(
    epsilon0: float | None,
    n: int,
    delta: float,
    *,
    mechanism: object = None,
    method: str = "auto",
    rounds: int = 1,
    interval: float = 1e-4,
) -> ShuffleAmplification:
    """Central ``(epsilon, delta)`` after shuffling ``n`` users' ``eps0``-LDP reports.

    Parameters
    ----------
    epsilon0 : float or None
        The local epsilon of each report (``> 0``). ``None`` takes ``mechanism.epsilon``;
        with a mechanism it must be at least the mechanism's epsilon.
    n : int
        Number of users shuffled together (``>= 1``; ``n = 1`` is plain LDP).
    delta : float
        Target delta, in ``(0, 1)``.
    mechanism : Channel, GRR, Mechanism or None
        ``None``: any ``eps0``-LDP randomizer (clone probability ``e^{-eps0}``). A finite
        :class:`~ldp.Channel` (``ldp.k_rr(k, eps0)``) or :class:`~ldp.mechanisms.GRR`: the
        clone probability its matrix allows (``2 / (e^eps0 + 1)`` for k-RR; Feldman-McMillan-
        Talwar (2023)). Any other mechanism: its epsilon with the generic reduction.
    method : {"auto", "clones", "closed-form", "blanket"}
        See the module docstring. ``"auto"`` returns the smallest bound that applies.
    rounds : int, default 1
        Number of shuffled rounds (fresh reports each round); ``> 1`` composes the clone
        pair's privacy-loss distribution (Dong-Roth-Su (2022), Theorem 3.2).
    interval : float, default 1e-4
        Lattice spacing of that privacy-loss distribution (``rounds > 1``); each round adds at
        most ``interval`` to epsilon.

    Returns
    -------
    ShuffleAmplification
        ``.epsilon`` (rounded up), ``.delta``, ``.method``, ``.citation``.

    Notes
    -----
    For ``n = 10^6`` users of k-RR (any ``k``) with ``eps0 = 4`` and ``delta = 1e-8`` one
    round is ``(0.0451, 1e-8)``-DP by the clone bound (``0.0642`` for an arbitrary
    ``4``-LDP randomizer; the closed form gives ``0.2264``); for ``k = 16`` the blanket
    bound gives ``0.0450``.

    Examples
    --------
    >>> import ldp
    >>> from ldp.accounting import shuffle_amplification
    >>> k16 = ldp.k_rr(16, 4.0)
    >>> r = shuffle_amplification(4.0, 10**6, 1e-8, mechanism=k16, method="clones")
    >>> round(r.epsilon, 4), r.citation
    (0.0451, 'Feldman-McMillan-Talwar (2023)')
    >>> r = shuffle_amplification(4.0, 10**6, 1e-8, mechanism=k16)   # the smallest bound
    >>> round(r.epsilon, 5), r.citation
    (0.04503, 'Balle-Bell-Gascón-Nissim (2019)')
    >>> round(shuffle_amplification(4.0, 10**6, 1e-8).epsilon, 4)
    0.0642
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    n = check_integer(n, "n", low=1)
    if n > MAX_USERS:
        raise ValueError(f"n must be <= {MAX_USERS:.0e}, got {compact(n)}")
    d = check_scalar(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    rounds = check_integer(rounds, "rounds", low=1)
    if rounds > MAX_ROUNDS:
        raise ValueError(f"rounds must be <= {MAX_ROUNDS}, got {compact(rounds)}")
    spacing = check_scalar(interval, "interval", low=0.0, low_open=True, high=1.0)
    if mechanism is not None and not isinstance(mechanism, Mechanism):
        raise TypeError(
            f"mechanism must be a Channel, a Mechanism or None, got {type(mechanism).__name__}"
        )
    own = None if mechanism is None else float(mechanism.epsilon)
    if epsilon0 is None:
        if own is None:
            raise ValueError("epsilon0 is needed when no mechanism is given")
        eps0 = own
    else:
        eps0 = check_epsilon(epsilon0, "epsilon0", positive=True, allow_inf=False)
        if own is not None and eps0 < own * (1.0 - 1e-12):
            raise ValueError(f"epsilon0 must be >= the mechanism's epsilon {own!r}, got {eps0!r}")
    if not eps0 > 0.0 or not math.isfinite(eps0):
        raise ValueError(f"epsilon0 must be finite and > 0, got {eps0!r}")
    p_c = clone_probability(mechanism, eps0)
    stronger = p_c > math.exp(-eps0) * (1.0 + 1e-9)
    if method == "closed-form":
        if rounds != 1:
            raise ValueError(
                f"rounds must be 1 for method='closed-form' (a per-round bound), got {rounds}; "
                "use method='clones' to compose rounds"
            )
        value = _closed_form(eps0, n, d)
        return ShuffleAmplification(
            epsilon=value,
            delta=d,
            epsilon0=eps0,
            n=n,
            rounds=1,
            method="closed-form",
            clone_probability=math.exp(-eps0),
            citation=cite("feldman2021clones", "Theorem 3.1"),
            description=(
                f"closed form for {compact(n)} shuffled {eps0:g}-LDP reports "
                "(Feldman-McMillan-Talwar (2021), Theorem 3.1)"
            ),
        )
    k = krr_alphabet(mechanism)
    if method == "blanket":
        if rounds != 1:
            raise ValueError(
                f"rounds must be 1 for method='blanket' (a per-round bound), got {rounds}; use "
                "method='clones' to compose rounds"
            )
        return _blanket_result(eps0, n, d, k)
    citation = cite("feldman2023stronger") if stronger else cite("feldman2021clones")
    who = "k-RR-type clones" if stronger else "clones of any randomizer"
    if rounds == 1:
        value = _epsilon(d, eps0, n, p_c)
        if method == "auto" and k is not None:
            blanket = _blanket_result(eps0, n, d, k)
            if blanket.epsilon < value:
                return blanket
        if method == "auto" and eps0 <= _closed_form_limit(n, d):
            closed = _closed_form(eps0, n, d)
            if closed < value:  # not seen in practice: the numerical bound is the tighter
                return shuffle_amplification(eps0, n, d, method="closed-form")
        return ShuffleAmplification(
            epsilon=value,
            delta=d,
            epsilon0=eps0,
            n=n,
            rounds=1,
            method="clones",
            clone_probability=p_c,
            citation=citation,
            description=(
                f"numerical clone bound ({who}, p_c = {p_c:.6g}) for {compact(n)} shuffled "
                f"{eps0:g}-LDP reports"
            ),
        )
    pld = shuffle_pld(eps0, n, rounds=rounds, clone_probability=p_c, interval=spacing)
    value = min(float(pld.epsilon_for_delta(d)), rounds * eps0)
    return ShuffleAmplification(
        epsilon=value,
        delta=d,
        epsilon0=eps0,
        n=n,
        rounds=rounds,
        method="clones",
        clone_probability=p_c,
        citation=f"{citation}; {cite('dong2022', 'Theorem 3.2')}",
        description=(
            f"{rounds} rounds of {compact(n)} shuffled {eps0:g}-LDP reports: the clone pair "
            f"({who}, p_c = {p_c:.6g}) composed through its privacy-loss distribution "
            f"(lattice {spacing:g}, losses rounded up)"
        ),
        pld=pld,
    )


def _blanket_result(eps0: float, n: int, delta: float, k: int | None) -> ShuffleAmplification:
    value, which, gamma = _blanket(eps0, n, delta, k)
    who = f"{k}-RR" if k is not None else "any randomizer"
    return ShuffleAmplification(
        epsilon=value,
        delta=delta,
        epsilon0=eps0,
        n=n,
        rounds=1,
        method="blanket",
        clone_probability=gamma,
        citation=cite("balle2019blanket"),
        description=(
            f"privacy blanket ({who}, blanket probability {gamma:.6g}, {which.capitalize()}'s "
            f"inequality) for {compact(n)} shuffled {eps0:g}-LDP reports"
        ),
    )
