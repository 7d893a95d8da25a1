r"""Calibration: the largest per-report epsilon that keeps a deployment within a target.

A deployment fixes a central target ``(epsilon, delta)`` by policy and asks which
per-report ``eps0`` meets it after

* ``folds = T`` reports of one mechanism (the exact composition :func:`~ldp.accounting.
  compose`, adaptive worst case: it also covers a value that changes between reports);
* shuffling ``n_shuffled = n`` users' single reports (the clone bound of
  :mod:`ldp.accounting.amplification.shuffle`, with the clone probability of the
  mechanism's own matrix, and for k-RR the smaller of it and the privacy blanket bound of
  Balle-Bell-Gascón-Nissim (2019));
* both: ``T`` shuffled rounds of ``n`` users (the clone pair's privacy-loss distribution
  composed ``T`` times).

The search is a bisection on ``eps0`` of the test ``delta_upper(target_epsilon; eps0) <=
target_delta``, where ``delta_upper`` is the accountant's upper bound (exact for
compositions of finite channels). It returns the lower end of the final bracket, a value at
which the test was evaluated and passed, rounded down: re-accounting the returned epsilon
meets the target, floating point included, whether or not the accountant is monotone in
``eps0``. For k-RR every exact profile is non-decreasing in ``eps0`` (k-RR at a smaller
epsilon is k-RR at a larger one followed by a symmetric k-ary channel: post-processing),
so there the value is also the largest one up to the bisection tolerance (``rtol``, a
relative ``1e-6`` by default): ``eps0 * (1 + 1e-3)`` misses the target
(tests/accounting/composition/test_calibration.py).

A user-defined family ``parameter -> PrivacyProfile`` (``family=``, with a ``bracket`` and
whether the family leaks more as the parameter grows) is calibrated the same way: the
curve of one's own is asked for its ``delta`` (composed ``folds`` times by
:func:`~ldp.accounting.compose`), and the end of the final bracket on the safe side is
returned (the largest epsilon-like parameter, the smallest noise-like one).

A target ``mu`` (Gaussian DP, Dong-Roth-Su (2022)) is met the same way, with the test
``mu_upper(eps0) <= target_mu``: the GDP level of the ``T``-fold composition read from the
tails of its privacy-loss distribution (exact for k-RR), or, with a shuffler, of the clone
pair (one round) times ``sqrt(T)`` (GDP composes exactly, so this is an upper bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ldp._numerics import bisect_monotone
from ldp._validation import check_epsilon, check_integer, check_scalar
from ldp.accounting.amplification.blanket import BLANKET_BOUNDS, blanket_delta
from ldp.accounting.amplification.shuffle import (
    MAX_ROUNDS,
    clone_pair_pld,
    clone_probability,
    krr_alphabet,
    shuffle_delta,
    shuffle_pld,
)
from ldp.accounting.composition.exact import Composition, compose
from ldp.channel import Channel
from ldp.core import Mechanism, PrivacyProfile, check_privacy_profile
from ldp.mechanisms import k_rr
from ldp.mechanisms.limits import MIN_EPSILON

__all__ = ["calibrate"]

#: Largest per-report epsilon the search considers (``epsilon_max`` default).
DEFAULT_EPSILON_MAX = 30.0
_UNIT = float(np.finfo(np.float64).eps) / 2.0


def _family(mechanism: object, k: int | None) -> tuple[Callable[[float], Mechanism], str]:
    """A map ``eps -> mechanism`` and its name."""
    if isinstance(mechanism, str):
        name = mechanism.lower()
        if name in ("rr", "randomized-response"):
            return (lambda e: k_rr(2, e)), "randomized response"
        if name in ("k-rr", "krr", "grr"):
            if k is None:
                raise ValueError("k is needed for mechanism='k-rr' (the alphabet size)")
            size = check_integer(k, "k", low=2)
            return (lambda e: k_rr(size, e)), f"{size}-RR"
        raise ValueError(
            f"mechanism must be 'k-rr', 'rr', a Mechanism with an epsilon parameter or a "
            f"callable epsilon -> Mechanism, got {mechanism!r}"
        )
    if isinstance(mechanism, Channel):
        m = mechanism.matrix
        size = m.shape[0]
        off = m[~np.eye(size, dtype=bool)] if size > 1 else np.zeros(0)
        diag = np.diag(m) if m.shape[0] == m.shape[1] else None
        if (
            diag is None
            or size < 2
            or not np.allclose(diag, diag[0], rtol=1e-12, atol=0)
            or not np.allclose(off, off[0], rtol=1e-12, atol=0)
        ):
            raise TypeError(
                "mechanism: a Channel other than k-RR has no epsilon parameter; pass a "
                "callable epsilon -> Mechanism"
            )
        return (lambda e: k_rr(size, e)), f"{size}-RR"
    if isinstance(mechanism, Mechanism):
        params = mechanism.params
        if "epsilon" not in params:
            raise TypeError(
                f"mechanism {mechanism!r} has no epsilon parameter; pass a callable "
                "epsilon -> Mechanism"
            )
        cls = type(mechanism)
        return (lambda e: cls.from_params({**params, "epsilon": e})), repr(mechanism)
    if callable(mechanism):

        def build(e: float) -> Mechanism:
            out = mechanism(e)
            if not isinstance(out, Mechanism):
                raise TypeError(
                    f"mechanism(epsilon) must return a Mechanism, got {type(out).__name__}"
                )
            return out

        return build, getattr(mechanism, "__name__", "mechanism")
    raise TypeError(
        f"mechanism must be 'k-rr', 'rr', a Mechanism or a callable, got {type(mechanism).__name__}"
    )


def _mu_accountant(
    build: Callable[[float], Mechanism],
    folds: int | None,
    n_shuffled: int | None,
    interval: float,
) -> Callable[[float], float]:
    """``eps0 -> mu_upper`` of the deployment: the smallest ``mu`` it is ``mu``-GDP for."""
    t = 1 if folds is None else folds
    if n_shuffled is None:

        def mu(eps0: float) -> float:
            return compose(build(eps0), t, adaptive=True).gdp_mu

        return mu

    def shuffled_mu(eps0: float) -> float:
        mech = build(eps0)
        e0 = float(mech.epsilon)
        one = clone_pair_pld(e0, n_shuffled, clone_probability(mech, e0), interval).gdp_mu
        # GDP composes exactly (G_a x G_b = G_sqrt(a^2 + b^2)) and composition is monotone
        return math.sqrt(t) * one * (1.0 + 4.0 * _UNIT) if t > 1 else one

    return shuffled_mu


def _accountant(
    build: Callable[[float], Mechanism],
    folds: int | None,
    n_shuffled: int | None,
    target_epsilon: float,
    interval: float,
) -> Callable[[float], float]:
    """``eps0 -> delta_upper(target_epsilon)`` of the deployment."""
    if n_shuffled is None:
        t = 1 if folds is None else folds

        def delta(eps0: float) -> float:
            return float(compose(build(eps0), t, adaptive=True).delta(target_epsilon))

        return delta
    if folds is None or folds == 1:

        def shuffled_delta(eps0: float) -> float:
            mech = build(eps0)
            e0 = float(mech.epsilon)
            value = shuffle_delta(target_epsilon, e0, n_shuffled, clone_probability(mech, e0))
            k = krr_alphabet(mech)
            if k is not None and value > 0.0:  # k-RR: the privacy blanket may be tighter
                for bound in BLANKET_BOUNDS:
                    value = min(
                        value, blanket_delta(target_epsilon, e0, n_shuffled, k=k, bound=bound)
                    )
            return value

        return shuffled_delta

    def rounds_delta(eps0: float) -> float:
        mech = build(eps0)
        e0 = float(mech.epsilon)
        try:
            pld = shuffle_pld(
                e0,
                n_shuffled,
                rounds=folds,
                clone_probability=clone_probability(mech, e0),
                interval=interval,
            )
        except ValueError:
            # a composition too large to hold is not known to meet the target: refused
            # (the search stays on the side that was shown to meet it)
            return 1.0
        return float(pld.delta(target_epsilon))

    return rounds_delta


def _curve_family_parameter(
    family: Callable[[float], PrivacyProfile],
    bracket: object,
    increasing: bool,
    folds: int | None,
    meets_target: Callable[[PrivacyProfile], bool],
    tol: float,
    target: str,
) -> float:
    """The parameter in ``bracket`` whose profile meets the target, on the safe side: the
    largest one when the family leaks more as the parameter grows, the smallest otherwise
    (the end of the final bisection bracket at which the test was evaluated and passed)."""
    if not callable(family):
        raise TypeError(f"family must be a callable parameter -> PrivacyProfile, got {family!r}")
    if not isinstance(increasing, bool):
        raise TypeError(f"increasing must be True or False, got {increasing!r}")
    if not isinstance(bracket, (tuple, list)) or len(bracket) != 2:
        raise TypeError(f"bracket must be a pair (low, high), got {bracket!r}")
    low = check_scalar(bracket[0], "bracket[0]", allow_inf=False)
    high = check_scalar(bracket[1], "bracket[1]", allow_inf=False)
    if not low < high:
        raise ValueError(f"bracket must have low < high, got {bracket!r}")
    t = 1 if folds is None else folds

    def meets(x: float) -> bool:
        profile = check_privacy_profile(family(x), f"family({x!r})")
        return meets_target(profile if t == 1 else compose(profile, t, adaptive=True))

    # the end that leaks least must meet the target, the other one is returned if it does
    safe, risky = (low, high) if increasing else (high, low)
    if meets(risky):
        return risky
    if not meets(safe):
        raise ValueError(
            f"{target} is unreachable: even the parameter {safe!r} (the bracket end that "
            "leaks least) misses it"
        )
    return bisect_monotone(
        meets,
        low,
        high,
        side="low" if increasing else "high",
        ends=(True, False) if increasing else (False, True),
        rtol=tol / (1.0 + tol),
    )


def calibrate(
    target_epsilon: float | None = None,
    target_delta: float | None = None,
    *,
    target_mu: float | None = None,
    mechanism: str | PrivacyProfile | Callable[[float], PrivacyProfile] = "k-rr",
    family: Callable[[float], PrivacyProfile] | None = None,
    bracket: tuple[float, float] | None = None,
    increasing: bool = True,
    k: int | None = None,
    folds: int | None = None,
    n_shuffled: int | None = None,
    epsilon_max: float = DEFAULT_EPSILON_MAX,
    interval: float = 1e-4,
    rtol: float = 1e-6,
) -> float:
    """The largest per-report epsilon whose deployment meets a central ``(epsilon, delta)``
    or a central ``mu``-GDP target.

    Parameters
    ----------
    target_epsilon : float, optional
        Central epsilon, ``>= 0`` (with ``target_delta``).
    target_delta : float, optional
        Central delta, in ``[0, 1)``.
    target_mu : float, optional
        Central GDP level ``mu > 0``, instead of ``(epsilon, delta)``: the deployment's
        trade-off curve must lie above ``G_mu`` (Dong-Roth-Su (2022), Definition 2.4). Without
        a shuffler the level is read exactly from the ``T``-fold composition
        (:attr:`~ldp.accounting.Composition.gdp_mu`); with one, from the clone pair's
        privacy-loss distribution (lattice ``interval``, losses rounded up), and ``T``
        shuffled rounds take ``sqrt(T)`` times the one-round level (GDP composes exactly,
        Dong-Roth-Su (2022), Corollary 3.3): an upper bound.
    mechanism : {"k-rr", "rr"}, Mechanism or callable, default "k-rr"
        The per-report mechanism as a family in epsilon: ``"k-rr"`` (with ``k``), ``"rr"``,
        a k-RR :class:`~ldp.Channel`, a mechanism with an ``epsilon`` parameter
        (``GRR(16, 1.0)``, ``OUE(10, 1.0)``: rebuilt at each candidate) or a callable
        ``epsilon -> Mechanism``.
    family : callable, optional
        A user-defined family ``parameter -> PrivacyProfile`` (a trade-off curve of one's
        own, a mechanism, a channel: anything with ``delta``, ``epsilon_for_delta`` and
        ``tv``) instead of ``mechanism``; needs ``bracket``. The result is then the
        parameter in ``bracket`` whose profile (composed ``folds`` times) meets the target,
        on the safe side. Not with a shuffler.
    bracket : (float, float), optional
        ``(low, high)``, finite, for ``family``: the end that leaks least must meet the
        target (else ``ValueError``); the other is returned when it meets it too.
    increasing : bool, default True
        For ``family``: ``True`` when the family leaks more as the parameter grows (an
        epsilon: the largest parameter that meets the target is returned, rounded down),
        ``False`` when it leaks less (a noise scale: the smallest, rounded up).
    k : int, optional
        Alphabet size for ``mechanism="k-rr"``.
    folds : int, optional
        Number of reports per user (``T``; default 1).
    n_shuffled : int, optional
        Number of users shuffled together each round (default: no shuffler).
    epsilon_max : float, default 30
        Largest per-report epsilon considered (returned when it meets the target).
    interval : float, default 1e-4
        Lattice spacing of the privacy-loss distribution for ``T > 1`` shuffled rounds (and
        for a ``target_mu`` with a shuffler).
    rtol : float, default 1e-6
        Relative width of the final bracket: the true largest epsilon is below
        ``result * (1 + rtol)`` when the accountant is monotone (a larger ``rtol`` saves
        evaluations; the result still meets the target).

    Returns
    -------
    float
        The per-report epsilon (rounded down), or with ``family`` the parameter (rounded on
        the safe side). Re-accounting it meets the target.

    Raises
    ------
    ValueError
        For bad arguments, and when no per-report epsilon in ``[1e-6, epsilon_max]`` meets
        the target.

    Examples
    --------
    >>> from ldp.accounting import calibrate
    >>> round(calibrate(2.0, 1e-6, mechanism="k-rr", k=10, folds=10), 5)
    0.28753
    >>> round(calibrate(0.5, 1e-6, mechanism="k-rr", k=2, n_shuffled=10_000), 3)
    4.336
    >>> round(calibrate(target_mu=1.0, k=4, folds=365), 5)   # a year of daily reports
    0.07333
    """
    if target_mu is not None:
        if target_epsilon is not None or target_delta is not None:
            raise ValueError(
                "give target_mu or (target_epsilon, target_delta), not both; got "
                f"target_mu={target_mu!r}, target_epsilon={target_epsilon!r}, "
                f"target_delta={target_delta!r}"
            )
        mu_t = check_scalar(target_mu, "target_mu", low=0.0, low_open=True)
        eps_t, d_t = 0.0, 0.0
    else:
        if target_epsilon is None or target_delta is None:
            raise ValueError(
                "target_epsilon and target_delta are needed (or target_mu); got "
                f"target_epsilon={target_epsilon!r}, target_delta={target_delta!r}"
            )
        mu_t = None
        eps_t = check_epsilon(target_epsilon, "target_epsilon", allow_inf=False)
        d_t = check_scalar(target_delta, "target_delta", low=0.0, high=1.0, high_open=True)
    if folds is not None:
        folds = check_integer(folds, "folds", low=1)
    if family is not None:
        if n_shuffled is not None or k is not None or mechanism != "k-rr":
            raise ValueError(
                "family takes no mechanism, k or n_shuffled; got "
                f"mechanism={mechanism!r}, k={k!r}, n_shuffled={n_shuffled!r}"
            )
        if bracket is None:
            raise ValueError("family needs bracket=(low, high), got bracket=None")
        tol = check_scalar(rtol, "rtol", low=1e-12, high=0.5)
        if mu_t is not None:
            level = mu_t

            def mu_met(p: PrivacyProfile) -> bool:
                composed = p if isinstance(p, Composition) else compose(p, 1, adaptive=True)
                return composed.gdp_mu <= level

            meets_target, target = mu_met, f"target_mu={mu_t!r}"
        else:

            def delta_met(p: PrivacyProfile) -> bool:
                return float(p.delta(eps_t)) <= d_t

            meets_target = delta_met
            target = f"target_epsilon={eps_t!r}, target_delta={d_t!r}"
        return _curve_family_parameter(
            family, bracket, increasing, folds, meets_target, tol, target
        )
    if bracket is not None:
        raise ValueError(f"bracket is for family; got bracket={bracket!r} without one")
    if n_shuffled is not None and folds is not None and folds > MAX_ROUNDS:
        raise ValueError(f"folds must be <= {MAX_ROUNDS} with n_shuffled, got {folds}")
    if n_shuffled is not None:
        n_shuffled = check_integer(n_shuffled, "n_shuffled", low=1)
    top = check_scalar(epsilon_max, "epsilon_max", low=MIN_EPSILON, low_open=True, high=700.0)
    spacing = check_scalar(interval, "interval", low=0.0, low_open=True, high=1.0)
    tol = check_scalar(rtol, "rtol", low=1e-12, high=0.5)
    build, _ = _family(mechanism, k)
    if mu_t is not None:
        mu_at = _mu_accountant(build, folds, n_shuffled, spacing)

        def meets(eps0: float) -> bool:
            return mu_at(eps0) <= mu_t

        target = f"target_mu={mu_t!r}"
        return _search(meets, top, tol, target)
    if n_shuffled is not None and folds is not None and folds > 1:
        # T rounds leak at least what one round does: the one-round answer (cheap) bounds
        # the search from above, and keeps the composed distribution small
        one = calibrate(
            eps_t,
            d_t,
            mechanism=mechanism,
            k=k,
            n_shuffled=n_shuffled,
            epsilon_max=top,
            rtol=tol,
        )
        top = min(top, one * (1.0 + 2.0 * tol))
    delta_at = _accountant(build, folds, n_shuffled, eps_t, spacing)

    def feasible(eps0: float) -> bool:
        return delta_at(eps0) <= d_t

    return _search(feasible, top, tol, f"target_epsilon={eps_t!r}, target_delta={d_t!r}")


def _search(feasible: Callable[[float], bool], top: float, tol: float, target: str) -> float:
    """The lower end of a bisection on ``feasible`` in ``[MIN_EPSILON, top]``: a value at
    which the test was evaluated and passed."""
    if feasible(top):
        return top
    # halve down from the top until a value meets the target (deployed answers are usually
    # within a few halvings of the top, and large-epsilon evaluations are the cheap ones)
    lo, hi = None, top
    x = top / 2.0
    while x >= MIN_EPSILON:
        if feasible(x):
            lo = x
            break
        hi, x = x, x / 2.0
    if lo is None:
        if not feasible(MIN_EPSILON):
            raise ValueError(
                f"{target} is unreachable: even a per-report epsilon of {MIN_EPSILON:g} misses it"
            )
        lo = MIN_EPSILON
    # hi - lo <= tol * lo is hi - lo <= tol / (1 + tol) * hi: the rule of bisect_monotone
    return bisect_monotone(feasible, lo, hi, side="low", ends=(True, False), rtol=tol / (1.0 + tol))
