r"""Mutual-information-optimal eps-LDP channels for ``k`` up to 64 by column generation.

The staircase LP of Kairouz-Oh-Viswanath (2016) maximises :math:`\sum_s \mu(S_s)\theta_s`
subject to :math:`\sum_s S_s\theta_s = 1_k`, :math:`\theta \ge 0`, over the :math:`2^k`
columns :math:`S_s = 1 + t s`, :math:`s \in \{0,1\}^k`, :math:`t = e^\varepsilon - 1`.
Column generation solves it on a few columns at a time (the *restricted master*), reads the
dual vector :math:`\lambda` of its equality constraints, and prices a new column by the
largest reduced cost :math:`r^* = \max_s \mu(S_s) - \lambda^\top S_s`. For mutual information
under a prior ``P``, with :math:`w(s) = P^\top s`,

.. math::
    \mu(S_s) = \varphi(w) = \varepsilon e^\varepsilon w - (1 + t w)\log(1 + t w),

a concave function of ``w``, so the reduced cost is
:math:`\varphi(P^\top s) - 1^\top\lambda - t\lambda^\top s`.

* Cheap pricing: the ``k + 1`` prefixes of the letters sorted by :math:`\lambda_x/P_x`,
  improved by single flips. It finds entering columns but proves nothing.
* Exact pricing: a mixed-integer program (HiGHS) maximising
  :math:`z - t\lambda^\top s` with ``z`` below the tangents of :math:`\varphi` at a growing
  set of points. Tangents lie above the concave :math:`\varphi`, so the program's dual bound
  :math:`\bar r` is an upper bound on :math:`r^*`; tangents are added at the returned
  subset's weight until the bound and the subset's exact reduced cost meet.

**Certificate.** Every column has entries :math:`\ge 1`, so a feasible :math:`\theta` has
:math:`\sum_s\theta_s \le 1`, and for *any* :math:`\lambda`,
:math:`\mu^\top\theta = \lambda^\top S\theta + \sum_s(\mu_s - \lambda^\top S_s)\theta_s
\le 1^\top\lambda + \max(0, \bar r)`. The returned ``gap`` is
:math:`(\text{that bound} - \text{value})/\text{that bound}`, with ``value`` the mutual
information of the certified channel (after the usual clean-up), so it holds for the channel
actually returned.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from ldp._quiet import quiet_stdout
from ldp.design.certify import DesignError, DesignResult, certified_result
from ldp.design.utility import Sublinear

__all__ = ["MAX_COLUMN_GENERATION_K", "column_generation"]

#: Largest alphabet for column generation.
MAX_COLUMN_GENERATION_K = 64

_INITIAL_TANGENTS = 64
#: Safety margin on the exact pricing bound for the solver's tolerances.
_SLACK = 1e-9
_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _phi(w: np.ndarray, eps: float, t: float) -> np.ndarray:
    return eps * (t + 1.0) * w - (1.0 + t * w) * np.log1p(t * w)


def _phi_slope(w: np.ndarray, eps: float, t: float) -> np.ndarray:
    return eps * (t + 1.0) - t * (np.log1p(t * w) + 1.0)


class _Pricer:
    """Reduced costs, cheap and exact pricing for one (prior, epsilon)."""

    def __init__(self, prior: np.ndarray, eps: float) -> None:
        self.p = prior
        self.eps = eps
        self.t = math.expm1(eps)
        self.k = prior.size
        self.rng = np.random.default_rng(0)
        # denser where phi bends most (small w)
        self.tangents = list(np.linspace(0.0, 1.0, _INITIAL_TANGENTS) ** 2)

    def reduced(self, patterns: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Reduced costs of the 0/1 patterns (rows)."""
        w = patterns @ self.p
        return _phi(w, self.eps, self.t) - lam.sum() - self.t * (patterns @ lam)

    def cheap(self, lam: np.ndarray, count: int) -> np.ndarray:
        """Up to ``count`` distinct patterns with the largest reduced costs among the
        ratio-ordered prefixes and their single-flip improvements."""
        with np.errstate(divide="ignore"):
            ratio = np.where(self.p > 0, lam / np.where(self.p > 0, self.p, 1.0), np.inf)
        order = np.argsort(ratio, kind="stable")
        prefixes = np.zeros((self.k + 1, self.k))
        for j in range(1, self.k + 1):
            prefixes[j, order[:j]] = 1.0
        values = self.reduced(prefixes, lam)
        top = np.argsort(-values)[: max(count, 1)]
        # plus random starts of every density (a fixed seed: this only proposes columns)
        starts = self.rng.random((count, self.k)) < self.rng.random((count, 1))
        starts = np.vstack([prefixes[top], starts.astype(np.float64)])
        found = np.unique(np.array([self._improve(row, lam) for row in starts]), axis=0)
        keep = np.argsort(-self.reduced(found, lam))[:count]
        return found[keep]

    def _improve(self, s: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Best single flips or swaps (one letter in, one out) until none helps; the reduced
        cost of each move is updated from the subset's weight and linear term."""
        s = s.astype(bool)
        p, tl = self.p, self.t * lam
        w, lin = float(p[s].sum()), float(tl[s].sum())
        current = float(_phi(np.array(w), self.eps, self.t)) - lin
        for _ in range(4 * self.k):
            sign = np.where(s, -1.0, 1.0)
            flip = _phi(w + sign * p, self.eps, self.t) - (lin + sign * tl)
            j = int(np.argmax(flip))
            move: tuple[int, ...] = (j,)
            best = float(flip[j])
            inside, outside = np.flatnonzero(s), np.flatnonzero(~s)
            if inside.size and outside.size:
                dw = p[outside][None, :] - p[inside][:, None]
                dl = tl[outside][None, :] - tl[inside][:, None]
                swap = _phi(np.clip(w + dw, 0.0, 1.0), self.eps, self.t) - (lin + dl)
                i = int(np.argmax(swap))
                if swap.flat[i] > best:
                    a, b = np.unravel_index(i, swap.shape)
                    best, move = float(swap.flat[i]), (inside[a], outside[b])
            if best <= current + 1e-15:
                break
            for x in move:
                s[x] = not s[x]
            w, lin, current = float(p[s].sum()), float(tl[s].sum()), best
        return s.astype(np.float64)

    def exact(
        self,
        lam: np.ndarray,
        enter: float,
        certify: float,
        present: set,
        deadline: float,
        unit: float,
        gap: float,
    ) -> tuple[np.ndarray | None, float]:
        """``(entering pattern or None, upper bound on every reduced cost)``.

        Returns as soon as the program's subset has reduced cost above ``enter`` and is not
        in ``present`` (it enters), or the upper bound is at most ``certify``; otherwise adds
        a tangent at the subset's weight and solves again."""
        k, t = self.k, self.t
        base = float(lam.sum())
        # variables s_1..s_k (binary) and z: maximise z - t lam.s, i.e. minimise -z + t lam.s
        cost = np.concatenate([t * lam / unit, [-1.0]])
        integrality = np.concatenate([np.ones(k), [0.0]])
        bounds = Bounds(
            np.concatenate([np.zeros(k), [-np.inf]]), np.concatenate([np.ones(k), [np.inf]])
        )
        upper = math.inf
        for _ in range(400):
            w = np.array(self.tangents)
            slope = _phi_slope(w, self.eps, t)
            intercept = _phi(w, self.eps, t) - slope * w
            # z - slope (p . s) <= intercept: z lies below every tangent, hence above phi
            a = np.hstack([-slope[:, None] * self.p[None, :] / unit, np.ones((w.size, 1))])
            left = deadline - time.monotonic()
            if left <= 0:
                raise DesignError("column generation ran out of time in an exact pricing step")
            with quiet_stdout():  # HiGHS may print to descriptor 1
                res = milp(
                    cost,
                    constraints=LinearConstraint(a, -np.inf, intercept / unit),
                    integrality=integrality,
                    bounds=bounds,
                    options={"time_limit": left, "mip_rel_gap": gap},
                )
            if res.x is None or res.status != 0:
                raise DesignError(f"the exact pricing program failed: {res.message}")
            pattern = np.round(res.x[:k])
            value = float(self.reduced(pattern[None, :], lam)[0])
            dual = getattr(res, "mip_dual_bound", None)
            relaxed = -float(dual if dual is not None and np.isfinite(dual) else res.fun) * unit
            # the solver's tolerances (1e-6 relative at most) taken against us
            margin = _SLACK * (unit + abs(relaxed) + abs(base))
            upper = min(upper, relaxed + margin - base)
            if value > enter and pattern.tobytes() not in present:
                return pattern, upper
            if upper <= certify or value >= upper - 2.0 * margin:
                return None, upper  # certified, or the bound is attained: no tangent helps
            self.tangents.append(float(pattern @ self.p))
        return None, upper


def _restricted_master(columns: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Solve ``max mu.theta, columns theta = 1, theta >= 0``: ``(theta, lambda, value)``."""
    ones = np.ones(columns.shape[0])
    unit = max(float(np.max(np.abs(mu))), 1e-300)  # solve at unit scale: tolerances are absolute
    with quiet_stdout():
        res = linprog(
            -mu / unit,
            A_eq=columns,
            b_eq=ones,
            bounds=(0, None),
            method="highs",
            options=_LP_OPTIONS,
        )
    if res.status != 0:
        raise DesignError(f"the restricted master LP failed: {res.message}")
    return res.x, -res.eqlin.marginals * unit, -float(res.fun) * unit


def column_generation(
    utility: Sublinear,
    prior: np.ndarray,
    epsilon: float,
    *,
    tolerance: float = 1e-5,
    time_limit: float = 300.0,
) -> DesignResult:
    """The mutual-information-optimal staircase channel, by column generation, certified.

    Stops when the certified relative gap of the restricted master is at most
    ``tolerance``; raises :class:`DesignError` if that does not happen within
    ``time_limit`` seconds. ``extras`` hold ``upper_bound`` (the certified bound on the
    optimum), ``rounds``, ``columns`` (in the final master) and ``exact_pricings``.
    """
    deadline = time.monotonic() + time_limit
    k = prior.size
    pricer = _Pricer(prior, epsilon)
    gamma = math.exp(epsilon)
    patterns = np.vstack([np.zeros((1, k)), np.eye(k)])  # the constant column and k-RR's
    rounds = exact_calls = 0
    while True:
        rounds += 1
        if time.monotonic() > deadline:
            raise DesignError(f"column generation did not reach the gap {tolerance:g} in time")
        columns = 1.0 + (gamma - 1.0) * patterns.T
        mu = utility.column_values(columns)
        theta, lam, value = _restricted_master(columns, mu)
        scale = max(abs(value), 1e-300)
        if patterns.shape[0] > 4 * k:  # keep the master small: the basis and the best others
            reduced = mu - lam @ columns
            keep = (theta > 0) | (reduced >= np.sort(reduced)[-2 * k])
            keep[0] = True
            patterns, columns, mu, theta = (
                patterns[keep],
                columns[:, keep],
                mu[keep],
                theta[keep],
            )
        present = {row.tobytes() for row in patterns}
        candidates = pricer.cheap(lam, 16)
        fresh = np.array([row.tobytes() not in present for row in candidates], dtype=bool)
        new = candidates[(pricer.reduced(candidates, lam) > 1e-10 * scale) & fresh]
        if new.shape[0] == 0:
            exact_calls += 1
            slack = tolerance * scale - (float(lam.sum()) - value)
            entering, upper = pricer.exact(
                lam, 1e-10 * scale, slack, present, deadline, scale, 0.1 * tolerance
            )
            bound = float(lam.sum()) + max(0.0, upper)
            if entering is None:
                if bound - value <= tolerance * scale:
                    break
                raise DesignError(
                    f"column generation stalled at a certified gap of {(bound - value) / scale:.3g}"
                    f" > {tolerance:g}"
                )
            new = entering[None, :]
        patterns = np.vstack([patterns, new])
    used = theta > 0
    raw = columns[:, used] * theta[used][None, :]
    result = certified_result(
        raw,
        value,
        "optimal",
        "HiGHS (column generation)",
        "staircase LP by column generation",
        epsilon,
        0.0,
        None,
        utility.of_channel,
        upper_bound=bound,
        rounds=rounds,
        columns=int(patterns.shape[0]),
        exact_pricings=exact_calls,
    )
    return replace(result, gap=max(0.0, (bound - result.value) / max(bound, 1e-300)))
