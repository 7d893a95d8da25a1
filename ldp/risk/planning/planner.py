r"""How many users (or how much epsilon) a target risk needs: achieved and provably necessary.

:func:`gap` sets a problem's lower bound (``ldp.risk.bounds.minimax``) beside the worst-case
risk of the best mechanism in the library (``ldp.risk.achieved.achievable``). :func:`plan` inverts
both in ``n`` (or in ``epsilon``): ``n_required`` is the smallest ``n`` at which the best
mechanism's worst-case risk is at most the target, and ``n_lower_bound`` the smallest ``n``
at which the lower bound allows it, so that *no* protocol covered by the bound reaches the
target with fewer users. Both risks decrease in ``n`` and in ``epsilon`` (every prior of the
bounds gives a bound decreasing in both), so bisection finds the thresholds exactly.

Problems (:data:`PROBLEMS`):

* ``"distribution"``: a law on ``k`` categories, ``loss`` ``"l2sq"`` (default), ``"l1"`` or
  ``"tv"``;
* ``"mean"``: the mean of :math:`X\in[-r, r]`;
* ``"mean-box"``, ``"mean-ball"``: the mean of :math:`X\in[-r, r]^d` or of the l2 ball of
  radius ``r``, squared l2 loss;
* ``"marginals"``: the ``marginals`` (default every 2-way marginal) of a table whose columns
  have ``sizes`` categories, collected by one of the designs of :mod:`ldp.tasks.marginals`
  (``method``, default the one ``MarginalEstimator(method="auto")`` fits with the given
  ``consistency``, default on): the risk is the largest, over the marginals, of the
  worst-case expected squared l2 error of an unbiased marginal
  (:func:`~ldp.risk.marginals_risk`; the ``"distribution"`` loss, per marginal), beside
  :func:`~ldp.risk.marginals_lower_bound` (the one-column bound for the marginal of most
  cells with all ``n`` users); the design's total variance over the marginals before and
  after the consistency step is reported beside it;
* ``"binary-test"``: test :math:`\mathrm{Bern}(p_0)` against :math:`\mathrm{Bern}(p_1)` at
  type-I error ``alpha``; the target is the type-II error. Exact: ``n_required`` equals
  ``n_lower_bound``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ldp._numerics import bisect_monotone, first_integer
from ldp._validation import check_epsilon, check_scalar
from ldp.risk._common import Bound, check_n
from ldp.risk.achieved.achievable import best_distribution_risk, best_mean_risk
from ldp.risk.achieved.marginals import marginals_risk
from ldp.risk.bounds.marginals import marginals_lower_bound
from ldp.risk.bounds.minimax import (
    binary_test_sample_size,
    distribution_lower_bound,
    mean_estimation,
)
from ldp.risk.bounds.testing import best_binary_test, sample_size_lower_bound
from ldp.tasks.marginals import ORACLES

__all__ = ["PROBLEMS", "Plan", "RiskGap", "TargetOutOfReach", "gap", "plan"]

#: The problems :func:`gap` and :func:`plan` know.
PROBLEMS = ("distribution", "mean", "mean-box", "mean-ball", "marginals", "binary-test")
#: Largest ``n`` searched (``2^50``).
MAX_USERS = 1 << 50
#: Largest ``epsilon`` searched by the inverse question.
MAX_EPSILON = 50.0


class TargetOutOfReach(ValueError):
    """:func:`plan`'s refusal of a target the best mechanism does not reach within the
    searched range: every ``n <= 2^50`` at the given epsilon, or every ``epsilon <= 50``
    with the given ``n``.

    A :class:`ValueError` whose attributes say which question was asked, so that a caller
    (the ``ldp plan`` command) can word it in its own terms.

    Attributes
    ----------
    target_risk : float
        The target that was asked for.
    epsilon : float or None
        The epsilon given (the question was: how many users?), else None.
    n : int or None
        The number of users given (the question was: how much epsilon?), else None.

    Examples
    --------
    >>> from ldp.risk import TargetOutOfReach, plan
    >>> try:
    ...     plan("mean", 1e-6, 1e-14)
    ... except TargetOutOfReach as refusal:
    ...     print(refusal.target_risk, refusal.epsilon, refusal.n)
    1e-14 1e-06 None
    """

    def __init__(
        self, message: str, *, target_risk: float, epsilon: float | None, n: int | None
    ) -> None:
        super().__init__(message)
        self.target_risk = target_risk
        self.epsilon = epsilon
        self.n = n


@dataclass(frozen=True)
class RiskGap:
    """A lower bound beside the risk the library achieves, and their ratio (what
    :func:`gap` returns).

    Parameters
    ----------
    lower : Bound
        The minimax lower bound.
    achieved : Bound
        The worst-case risk of the best mechanism (``achieved.mechanism`` names it).
    ratio : float
        ``achieved.value / lower.value`` (``inf`` when the bound is 0).

    Examples
    --------
    >>> from ldp.risk import gap
    >>> g = gap("mean", 10_000, 1.0)
    >>> g.lower.value <= g.achieved.value, g.ratio >= 1
    (True, True)
    """

    lower: Bound
    achieved: Bound
    ratio: float


@dataclass(frozen=True)
class Plan:
    """The answer of :func:`plan`.

    Parameters
    ----------
    problem : str
    target_risk : float
    epsilon, n : float or None
        What was given (the other one is what was asked).
    n_required : int or None
        Smallest ``n`` at which the best mechanism meets the target (at ``epsilon``).
    n_lower_bound : int or None
        Smallest ``n`` the lower bound allows: with fewer users no protocol meets the target.
    epsilon_required, epsilon_lower_bound : float or None
        The inverse question (given ``n``): the smallest ``epsilon`` at which the best
        mechanism meets the target (to ``1e-6`` relative, rounded up), and the ``epsilon``
        below which no protocol does (rounded down).
    mechanism : str
        The mechanism the library would use (``"uniform"`` or ``"zero"``: ignore the data).
    gap : RiskGap
        The bound and the achieved risk at the reported ``(n, epsilon)``.
    protocols : str
        Which protocols the lower bound covers.

    Examples
    --------
    >>> from ldp.risk import plan
    >>> p = plan("mean", 1.0, 1e-3)
    >>> p.n_lower_bound <= p.n_required, p.gap.achieved.value <= 1e-3
    (True, True)
    """

    problem: str
    target_risk: float
    epsilon: float | None
    n: int | None
    n_required: int | None
    n_lower_bound: int | None
    epsilon_required: float | None
    epsilon_lower_bound: float | None
    mechanism: str
    gap: RiskGap
    protocols: str

    def __str__(self) -> str:
        lines = [f"{self.problem}: target risk {self.target_risk:g}"]
        if self.n_required is not None:
            lines.append(f"  epsilon = {self.epsilon:g}")
            lines.append(f"  users needed by {self.mechanism}: {self.n_required}")
            lines.append(f"  users no protocol can do without: {self.n_lower_bound}")
        else:
            lines.append(f"  n = {self.n}")
            lines.append(f"  epsilon needed by {self.mechanism}: {self.epsilon_required:.6g}")
            lines.append(f"  epsilon no protocol can do without: {self.epsilon_lower_bound:.6g}")
        lines.append(f"  lower bound covers {self.protocols} protocols")
        if self.problem == "marginals":
            params = self.gap.achieved.params
            lines.append(
                f"  total variance over the marginals: {params['total_unbiased']:.6g} unbiased, "
                f"{params['total_consistent']:.6g} after consistency "
                f"(auto ranks the designs by the {'second' if params['consistency'] else 'first'})"
            )
        return "\n".join(lines)


def _options(problem: str, options: dict) -> dict:
    allowed = {
        "distribution": ("k", "loss"),
        "mean": ("r",),
        "mean-box": ("d", "r"),
        "mean-ball": ("d", "r"),
        "marginals": ("sizes", "marginals", "method", "consistency", "candidates"),
        "binary-test": ("p0", "p1", "alpha"),
    }[problem]
    given = {key: value for key, value in options.items() if value is not None}
    extra = sorted(set(given) - set(allowed))
    if extra:
        raise TypeError(f"problem {problem!r} does not take {', '.join(extra)}")
    needed: tuple[str, ...] = {
        "distribution": ("k",),
        "mean-box": ("d",),
        "mean-ball": ("d",),
        "marginals": ("sizes",),
    }.get(problem, ())
    if problem == "binary-test":
        needed = ("p0", "p1", "alpha")
    missing = [key for key in needed if key not in given]
    if missing:
        raise TypeError(f"problem {problem!r} needs {', '.join(missing)}")
    return given


def _check_problem(problem: object) -> str:
    if problem not in PROBLEMS:
        raise ValueError(f"problem must be one of {PROBLEMS}, got {problem!r}")
    return str(problem)


_DOMAINS = {"mean": "interval", "mean-box": "box", "mean-ball": "ball"}


def _lower(problem: str, n: int, eps: float, opts: dict) -> Bound:
    if problem == "distribution":
        return distribution_lower_bound(opts["k"], n, eps, loss=opts.get("loss", "l2sq"))
    if problem == "marginals":
        return marginals_lower_bound(opts["sizes"], n, eps, marginals=opts.get("marginals", 2))
    d, r = opts.get("d", 1), opts.get("r", 1.0)
    return mean_estimation(n, eps, d=d, domain=_DOMAINS[problem], r=r)


def _achieved(problem: str, n: int, eps: float, opts: dict) -> Bound:
    if problem == "distribution":
        return best_distribution_risk(opts["k"], n, eps, loss=opts.get("loss", "l2sq"))
    if problem == "marginals":
        way, design = opts.get("marginals", 2), opts.get("method", "auto")
        consistent = opts.get("consistency", True)
        oracles = opts.get("candidates", ORACLES)
        return marginals_risk(
            opts["sizes"],
            n,
            eps,
            marginals=way,
            method=design,
            consistency=consistent,
            candidates=oracles,
        )
    d, r = opts.get("d", 1), opts.get("r", 1.0)
    return best_mean_risk(n, eps, d=d, domain=_DOMAINS[problem], r=r)


def _pair(problem: str, n: int, eps: float, opts: dict) -> RiskGap:
    lower, achieved = _lower(problem, n, eps, opts), _achieved(problem, n, eps, opts)
    ratio = achieved.value / lower.value if lower.value > 0 else math.inf
    return RiskGap(lower, achieved, ratio)


def gap(problem: str, n: int, epsilon: float, **options: object) -> RiskGap:
    """The lower bound of a problem beside the best achieved risk, and their ratio.

    Parameters
    ----------
    problem : {"distribution", "mean", "mean-box", "mean-ball", "marginals"}
    n : int
        Number of users.
    epsilon : float
        Privacy level (``> 0``, finite).
    **options
        ``k`` and ``loss`` (distribution); ``d`` (box, ball) and ``r``; ``sizes``,
        ``marginals``, ``method``, ``consistency`` and ``candidates`` (marginals).

    Returns
    -------
    RiskGap
        The bound (``lower``), the best achieved risk (``achieved``) and their ratio.

    Examples
    --------
    >>> from ldp.risk import gap
    >>> g = gap("distribution", 100_000, 1.0, k=10)
    >>> g.achieved.mechanism, round(g.ratio, 2)
    ('SS', 1.3)
    """
    name = _check_problem(problem)
    if name == "binary-test":
        raise ValueError("binary-test is exact: use plan() or binary_test_sample_size()")
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    return _pair(name, users, eps, _options(name, options))


class _Unreachable(Exception):
    """The searched range ends before the predicate holds."""


def _first_n(predicate) -> int:
    """Smallest ``n >= 1`` with ``predicate(n)`` (monotone), or raise past MAX_USERS."""
    n = first_integer(predicate, 1, MAX_USERS)
    if n is None:
        raise _Unreachable
    return n


def _first_epsilon(predicate, *, upward: bool) -> float:
    """Smallest ``eps`` in ``(0, MAX_EPSILON]`` with ``predicate(eps)`` to 1e-6 relative;
    returned from above (``upward``) or from below."""
    if not predicate(MAX_EPSILON):
        raise _Unreachable
    # epsilon = 0 is never evaluated: it stands as the end where the predicate fails
    return bisect_monotone(
        predicate,
        0.0,
        MAX_EPSILON,
        side="high" if upward else "low",
        ends=(False, True),
        rtol=1e-7,
        scale=1e-12,
    )


def plan(
    problem: str,
    epsilon: float | None,
    target_risk: float,
    *,
    n: int | None = None,
    k: int | None = None,
    d: int | None = None,
    r: float | None = None,
    loss: str | None = None,
    p0: float | ArrayLike | None = None,
    p1: float | ArrayLike | None = None,
    alpha: float | None = None,
    sizes: Sequence[int] | None = None,
    marginals: int | Sequence[Sequence[int]] | None = None,
    method: str | None = None,
    consistency: bool | None = None,
    candidates: Sequence[str] | None = None,
) -> Plan:
    r"""Users needed for a target risk at ``epsilon`` (or ``epsilon`` needed with ``n`` users).

    Parameters
    ----------
    problem : {"distribution", "mean", "mean-box", "mean-ball", "marginals", "binary-test"}
    epsilon : float or None
        Privacy level; ``None`` asks the inverse question (then ``n`` is required).
    target_risk : float
        The worst-case risk to reach (``> 0``); for ``"binary-test"`` the type-II error.
    n : int, optional
        Number of users, for the inverse question.
    k, loss : optional
        ``"distribution"``: alphabet size and loss (``"l2sq"``, ``"l1"``, ``"tv"``).
    d, r : optional
        Means: dimension (box, ball) and half-width or radius (default 1).
    sizes, marginals, method, consistency, candidates : optional
        ``"marginals"``: the columns' category counts, the marginals (an int ``k`` for every
        k-way marginal, default 2, or column tuples), the design (``"auto"``, default,
        ``"joint"``, ``"groups"``, ``"fourier"``), whether the tables will be made
        consistent (default ``True``, as ``MarginalEstimator``) and the oracles a group may
        use (default GRR and OUE). ``"auto"`` is the design
        ``MarginalEstimator(method="auto", consistency=..., candidates=...)`` fits. The risk is the
        largest worst-case expected squared l2 error of an unbiased marginal; ``mechanism``
        names the design and its oracles, and ``gap.achieved`` holds its total variance over
        the marginals before (``total_unbiased``) and after (``total_consistent``) the
        consistency's linear step.
    p0, p1, alpha : optional
        ``"binary-test"``: the two hypotheses and the type-I error. Two success
        probabilities (Bernoulli laws): the answer is exact, randomized response meets it
        and no sequentially interactive protocol does better. Two pmfs on ``k`` letters:
        ``n_required`` is randomized response on the best likelihood-ratio set
        (:func:`~ldp.risk.best_binary_test`, exact) and ``n_lower_bound`` the KL
        ceiling bound (:func:`~ldp.risk.sample_size_lower_bound`).

    Returns
    -------
    Plan

    Raises
    ------
    ValueError
        Unknown problem, bad option, or a target no ``n`` (no ``epsilon <= 50``) reaches;
        the message says which side cannot reach it.

    Examples
    --------
    >>> from ldp.risk import plan
    >>> p = plan("distribution", 1.0, 1e-3, k=10)
    >>> p.mechanism, p.n_lower_bound <= p.n_required
    ('SS', True)
    >>> plan("binary-test", 1.0, 0.2, p0=0.5, p1=0.6, alpha=0.05).n_required
    723
    >>> p = plan("marginals", 1.0, 1e-3, sizes=(2, 3, 4, 5))
    >>> p.mechanism, p.n_lower_bound <= p.n_required
    ('groups:GRR/OUE', True)
    >>> plan("marginals", 1.0, 1e-3, sizes=(2, 2, 2, 2)).mechanism
    'groups:GRR'
    >>> plan("marginals", 1.0, 1e-3, sizes=(2, 2, 2, 2), consistency=False).mechanism
    'fourier:GRR'
    """
    name = _check_problem(problem)
    target = check_scalar(target_risk, "target_risk", low=0.0, low_open=True)
    given = {"k": k, "d": d, "r": r, "loss": loss, "p0": p0, "p1": p1, "alpha": alpha}
    given.update({"sizes": sizes, "marginals": marginals, "method": method})
    given.update({"consistency": consistency, "candidates": candidates})
    opts = _options(name, given)
    if epsilon is None:
        if n is None:
            raise TypeError("pass epsilon (how many users?) or n (how much epsilon?)")
        return _plan_epsilon(name, check_n(n), target, opts)
    if n is not None:
        raise TypeError("pass either epsilon or n, not both: the other one is the question")
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    if name == "binary-test":
        if target >= 1.0:
            raise ValueError(f"target_risk (the type-II error) must be < 1, got {target!r}")
        achieved, lower = _test_sizes(opts, eps, target)
        assert lower is not None
        if math.isinf(achieved.value):
            raise ValueError("no number of users separates p0 and p1 (they are equal)")
        pair = RiskGap(lower, achieved, achieved.value / max(lower.value, 1.0))
        return Plan(
            name,
            target,
            eps,
            None,
            int(achieved.value),
            int(lower.value),
            None,
            None,
            "RR",
            pair,
            "sequentially interactive",
        )

    def achieved_ok(m: int) -> bool:
        return _achieved(name, m, eps, opts).value <= target

    def lower_ok(m: int) -> bool:
        return _lower(name, m, eps, opts).value <= target

    try:
        n_required = _first_n(achieved_ok)
    except _Unreachable:
        raise TargetOutOfReach(
            f"target_risk={target:g} is out of reach: the best mechanism's risk stays above it "
            f"for every n <= 2^50 at epsilon={eps:g}",
            target_risk=target,
            epsilon=eps,
            n=None,
        ) from None
    n_lower = _first_n(lower_ok)
    pair = _pair(name, n_required, eps, opts)
    return Plan(
        name,
        target,
        eps,
        None,
        n_required,
        n_lower,
        None,
        None,
        str(pair.achieved.mechanism),
        pair,
        str(pair.lower.protocols),
    )


def _test_sizes(
    opts: dict, eps: float, target: float, *, lower: bool = True, pair_ceiling: bool = True
) -> tuple[Bound, Bound | None]:
    """``(achieved, lower)`` sample sizes of the binary test: exact (both the same) for two
    Bernoulli laws, randomized response on the best likelihood-ratio set against the KL
    ceiling bound for two pmfs (``lower=False`` skips the bound)."""
    p0, p1 = opts["p0"], opts["p1"]
    if np.ndim(p0) == 0 and np.ndim(p1) == 0:
        exact = binary_test_sample_size(p0, p1, eps, alpha=opts["alpha"], beta=target)
        return exact, exact
    if np.ndim(p0) == 0 or np.ndim(p1) == 0:
        raise TypeError("p0 and p1 must both be probabilities or both be pmfs")
    achieved = best_binary_test(p0, p1, eps, alpha=opts["alpha"], beta=target)
    if not lower:
        return achieved, None
    bound = sample_size_lower_bound(
        p0, p1, eps, alpha=opts["alpha"], beta=target, pair_ceiling=pair_ceiling
    )
    return achieved, bound


def _test_lower(opts: dict, eps: float, target: float, *, pair_ceiling: bool = True) -> Bound:
    p0, p1 = opts["p0"], opts["p1"]
    if np.ndim(p0) == 0 and np.ndim(p1) == 0:
        return binary_test_sample_size(p0, p1, eps, alpha=opts["alpha"], beta=target)
    return sample_size_lower_bound(
        p0, p1, eps, alpha=opts["alpha"], beta=target, pair_ceiling=pair_ceiling
    )


def _plan_epsilon(name: str, users: int, target: float, opts: dict) -> Plan:
    if name == "binary-test":
        if target >= 1.0:
            raise ValueError(f"target_risk (the type-II error) must be < 1, got {target!r}")

        def ok(eps: float) -> bool:
            return _test_sizes(opts, eps, target, lower=False)[0].value <= users

        def possible(eps: float) -> bool:  # the fast ceiling: the search evaluates it often
            return _test_lower(opts, eps, target, pair_ceiling=False).value <= users

        try:
            up = _first_epsilon(ok, upward=True)
        except _Unreachable:
            raise TargetOutOfReach(
                f"target_risk={target:g} is out of reach with n={users}: not even at "
                f"epsilon={MAX_EPSILON:g}",
                target_risk=target,
                epsilon=None,
                n=users,
            ) from None
        down = _first_epsilon(possible, upward=False)
        achieved, lower = _test_sizes(opts, up, target)
        assert lower is not None
        return Plan(
            name,
            target,
            None,
            users,
            None,
            None,
            up,
            down,
            "RR",
            RiskGap(lower, achieved, achieved.value / max(lower.value, 1.0)),
            "sequentially interactive",
        )

    def achieved_ok(eps: float) -> bool:
        return _achieved(name, users, eps, opts).value <= target

    def lower_ok(eps: float) -> bool:
        return _lower(name, users, eps, opts).value <= target

    try:
        eps_required = _first_epsilon(achieved_ok, upward=True)
    except _Unreachable:
        raise TargetOutOfReach(
            f"target_risk={target:g} is out of reach with n={users}: the best mechanism's risk "
            f"stays above it for every epsilon <= {MAX_EPSILON:g}",
            target_risk=target,
            epsilon=None,
            n=users,
        ) from None
    eps_lower = _first_epsilon(lower_ok, upward=False)
    pair = _pair(name, users, eps_required, opts)
    return Plan(
        name,
        target,
        None,
        users,
        None,
        None,
        eps_required,
        eps_lower,
        str(pair.achieved.mechanism),
        pair,
        str(pair.lower.protocols),
    )
