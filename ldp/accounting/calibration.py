r"""Calibration: the largest per-report epsilon that keeps a deployment within a target.

A deployment fixes a central target ``(epsilon, delta)`` by policy and asks which
per-report ``eps0`` meets it after

* ``folds = T`` reports of one mechanism (the exact composition :func:`~ldp.accounting.
  compose`, adaptive worst case: it also covers a value that changes between reports);
* shuffling ``n_shuffled = n`` users' single reports (the clone bound of
  :mod:`ldp.accounting.shuffle`, with the clone probability of the mechanism's own matrix);
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
(tests/test_accounting_calibration.py).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldp._mechanism import Mechanism
from ldp._validation import check_epsilon, check_integer, check_scalar
from ldp.accounting.composition import compose
from ldp.accounting.shuffle import (
    MAX_ROUNDS,
    clone_probability,
    shuffle_delta,
    shuffle_pld,
)
from ldp.channel import Channel
from ldp.mechanisms import k_rr
from ldp.mechanisms.base import MIN_EPSILON

__all__ = ["calibrate"]

#: Largest per-report epsilon the search considers (``epsilon_max`` default).
DEFAULT_EPSILON_MAX = 30.0


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
            return shuffle_delta(target_epsilon, e0, n_shuffled, clone_probability(mech, e0))

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


def calibrate(
    target_epsilon: float,
    target_delta: float,
    *,
    mechanism: object = "k-rr",
    k: int | None = None,
    folds: int | None = None,
    n_shuffled: int | None = None,
    epsilon_max: float = DEFAULT_EPSILON_MAX,
    interval: float = 1e-4,
    rtol: float = 1e-6,
) -> float:
    """The largest per-report epsilon whose deployment meets a central ``(epsilon, delta)``.

    Parameters
    ----------
    target_epsilon : float
        Central epsilon, ``>= 0``.
    target_delta : float
        Central delta, in ``[0, 1)``.
    mechanism : {"k-rr", "rr"}, Mechanism or callable, default "k-rr"
        The per-report mechanism as a family in epsilon: ``"k-rr"`` (with ``k``), ``"rr"``,
        a k-RR :class:`~ldp.Channel`, a mechanism with an ``epsilon`` parameter
        (``GRR(16, 1.0)``, ``OUE(10, 1.0)``: rebuilt at each candidate) or a callable
        ``epsilon -> Mechanism``.
    k : int, optional
        Alphabet size for ``mechanism="k-rr"``.
    folds : int, optional
        Number of reports per user (``T``; default 1).
    n_shuffled : int, optional
        Number of users shuffled together each round (default: no shuffler).
    epsilon_max : float, default 30
        Largest per-report epsilon considered (returned when it meets the target).
    interval : float, default 1e-4
        Lattice spacing of the privacy-loss distribution for ``T > 1`` shuffled rounds.
    rtol : float, default 1e-6
        Relative width of the final bracket: the true largest epsilon is below
        ``result * (1 + rtol)`` when the accountant is monotone (a larger ``rtol`` saves
        evaluations; the result still meets the target).

    Returns
    -------
    float
        The per-report epsilon (rounded down). Re-accounting it meets the target.

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
    """
    eps_t = check_epsilon(target_epsilon, "target_epsilon", allow_inf=False)
    d_t = check_scalar(target_delta, "target_delta", low=0.0, high=1.0, high_open=True)
    if folds is not None:
        folds = check_integer(folds, "folds", low=1)
        if n_shuffled is not None and folds > MAX_ROUNDS:
            raise ValueError(f"folds must be <= {MAX_ROUNDS} with n_shuffled, got {folds}")
    if n_shuffled is not None:
        n_shuffled = check_integer(n_shuffled, "n_shuffled", low=1)
    top = check_scalar(epsilon_max, "epsilon_max", low=MIN_EPSILON, low_open=True, high=700.0)
    spacing = check_scalar(interval, "interval", low=0.0, low_open=True, high=1.0)
    tol = check_scalar(rtol, "rtol", low=1e-12, high=0.5)
    build, _ = _family(mechanism, k)
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
                f"target_epsilon={eps_t!r}, target_delta={d_t!r} is unreachable: even a "
                f"per-report epsilon of {MIN_EPSILON:g} misses it"
            )
        lo = MIN_EPSILON
    while hi - lo > tol * lo:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if feasible(mid) else (lo, mid)
    return lo
