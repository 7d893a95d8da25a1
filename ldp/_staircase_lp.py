r"""Column generation for the staircase LP of Kairouz-Oh-Viswanath (2016), with a certified
bound on its optimum.

The LP maximises :math:`\sum_s \mu(S_s)\theta_s` subject to :math:`\sum_s S_s\theta_s = 1_k`,
:math:`\theta \ge 0`, over the :math:`2^k` columns :math:`S_s = 1 + t s`,
:math:`s \in \{0,1\}^k`, :math:`t = e^\varepsilon - 1`; its value is the largest sublinear
utility :math:`\sum_z \mu(K_{\cdot z})` of any eps-LDP channel ``K``. Column generation
solves it on a few columns at a time (the *restricted master*), reads the dual vector
:math:`\lambda` of its equality constraints, and prices a new column by the largest reduced
cost :math:`r^* = \max_s \mu(S_s) - \lambda^\top S_s`.

**Certificate.** Every column has entries :math:`\ge 1`, so a feasible :math:`\theta` has
:math:`\sum_s\theta_s \le 1`, and for *any* :math:`\lambda`,
:math:`\mu^\top\theta = \lambda^\top S\theta + \sum_s(\mu_s - \lambda^\top S_s)\theta_s
\le 1^\top\lambda + \max(0, \bar r)` with :math:`\bar r \ge r^*`.

Two exact pricing steps give :math:`\bar r`:

* **Mutual information under a prior** ``P`` (:class:`MutualInformationPricer`): with
  :math:`w = P^\top s`, :math:`\mu(S_s) = \varphi(w) = \varepsilon e^\varepsilon w -
  (1 + t w)\log(1 + t w)`, concave in ``w``. A mixed-integer program (HiGHS) maximises
  :math:`z - t\lambda^\top s` with ``z`` below tangents of :math:`\varphi`; tangents lie above
  the concave :math:`\varphi`, so its dual bound is :math:`\ge r^*`, and tangents are added at
  the returned subset's weight until the bound and the subset's exact reduced cost meet.
* **Two linear functionals** (:class:`ZonotopePricer`): an f-divergence between two
  hypotheses, :math:`\mu(S_s) = (P_1^\top S_s) f(P_0^\top S_s / P_1^\top S_s)`, or Fisher
  information, :math:`(\dot p^\top S_s)^2 / p^\top S_s`, is a convex function of
  :math:`(a^\top s, b^\top s)`, so the reduced cost is a convex function of the point
  :math:`y(s) = (a^\top s, b^\top s, \lambda^\top s) \in \mathbb R^3`. Over the zonotope
  :math:`\{y(s): s \in [0,1]^k\}` a convex function is largest at a vertex, and every vertex is
  :math:`y(s)` for :math:`s_i = 1\{w^\top g_i > 0\}` (:math:`g_i = (a_i, b_i, \lambda_i)`)
  for a direction ``w`` in an open cell of the arrangement of the planes
  :math:`g_i^\perp`. Each cell has on its boundary a ray :math:`\pm g_i \times g_j`, so the
  vertices are found by visiting those :math:`O(k^2)` rays and flipping, around each, the
  generators that lie (within a tolerance far above round-off) in the planes through it:
  :math:`O(k^3)` work, exact, no solver.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, OptimizeWarning, linprog, milp
from scipy.special import xlogy

from ldp._quiet import quiet_stdout

__all__ = [
    "F_DIVERGENCES",
    "ColumnGenerationError",
    "MutualInformationPricer",
    "StaircaseSolution",
    "ZonotopePricer",
    "divergence_column_values",
    "mi_column_value",
    "solve_staircase_lp",
    "zonotope_vertex_patterns",
]

#: Safety margin (relative) on every computed bound, for round-off and solver tolerances.
SLACK = 1e-9
_INITIAL_TANGENTS = 64
_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
#: Generators within this relative distance of a plane are flipped both ways.
_TIE = 1e-9
#: Tie sets up to this size are flipped in every combination.
_MAX_TIES = 12

ColumnValues = Callable[[np.ndarray], np.ndarray]


#: ``f`` of each f-divergence between two hypotheses, on likelihood ratios.
F_DIVERGENCES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "kl": lambda t: xlogy(t, t),
    "tv": lambda t: 0.5 * np.abs(t - 1.0),
    "chi2": lambda t: (t - 1.0) ** 2,
    "hellinger": lambda t: (np.sqrt(t) - 1.0) ** 2,
}


def divergence_column_values(name: str, p0: np.ndarray, p1: np.ndarray) -> ColumnValues:
    """Column values ``b f(a / b)`` (``a = p0 . column``, ``b = p1 . column``) of the named
    f-divergence: their sum over the columns of a channel ``K`` is ``D_f(P0 K || P1 K)``."""
    generator = F_DIVERGENCES[name]

    def values(columns: np.ndarray) -> np.ndarray:
        a, b = p0 @ columns, p1 @ columns
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(b > 0, a / np.where(b > 0, b, 1.0), 0.0)
            out = np.where(b > 0, b * generator(ratio), 0.0)
        if name in ("kl", "chi2"):
            out = np.where((b == 0) & (a > 0), np.inf, out)
        elif name == "tv":
            out = np.where(b == 0, 0.5 * a, out)
        else:  # hellinger
            out = np.where(b == 0, a, out)
        return out  # per column; only the sum over columns is a divergence

    return values


class ColumnGenerationError(RuntimeError):
    """The staircase LP could not be solved to the requested certified gap."""


@dataclass(frozen=True)
class StaircaseSolution:
    """The restricted master's optimum and the certified bound on the full LP.

    ``columns`` are the used staircase columns (``k x J``) and ``weights`` their
    :math:`\\theta`; ``columns * weights`` is the (raw) channel.
    """

    columns: np.ndarray
    weights: np.ndarray
    value: float
    upper_bound: float
    rounds: int
    n_columns: int
    exact_pricings: int


def mi_column_value(w: np.ndarray, eps: float, t: float) -> np.ndarray:
    """Mutual information carried by a staircase column of prior weight ``w`` (times its
    probability): :math:`\\varepsilon e^\\varepsilon w - (1 + t w)\\log(1 + t w)`."""
    return eps * (t + 1.0) * w - (1.0 + t * w) * np.log1p(t * w)


def _mi_slope(w: np.ndarray, eps: float, t: float) -> np.ndarray:
    return eps * (t + 1.0) - t * (np.log1p(t * w) + 1.0)


class MutualInformationPricer:
    """Reduced costs, cheap and exact pricing for mutual information under ``prior``."""

    def __init__(self, prior: np.ndarray, eps: float, error: type[Exception]) -> None:
        self.p = prior
        self.eps = eps
        self.t = math.expm1(eps)
        self.k = prior.size
        self.error = error
        self.rng = np.random.default_rng(0)  # proposes columns only; the certificate is exact
        self.master_limit = 4 * self.k  # columns kept in the restricted master
        self.batch = 16  # columns proposed per round
        # denser where phi bends most (small w)
        self.tangents = list(np.linspace(0.0, 1.0, _INITIAL_TANGENTS) ** 2)

    def reduced(self, patterns: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Reduced costs of the 0/1 patterns (rows)."""
        w = patterns @ self.p
        return mi_column_value(w, self.eps, self.t) - lam.sum() - self.t * (patterns @ lam)

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
        current = float(mi_column_value(np.array(w), self.eps, self.t)) - lin
        for _ in range(4 * self.k):
            sign = np.where(s, -1.0, 1.0)
            flip = mi_column_value(w + sign * p, self.eps, self.t) - (lin + sign * tl)
            j = int(np.argmax(flip))
            move: tuple[int, ...] = (j,)
            best = float(flip[j])
            inside, outside = np.flatnonzero(s), np.flatnonzero(~s)
            if inside.size and outside.size:
                dw = p[outside][None, :] - p[inside][:, None]
                dl = tl[outside][None, :] - tl[inside][:, None]
                swap = mi_column_value(np.clip(w + dw, 0.0, 1.0), self.eps, self.t) - (lin + dl)
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
        unit: float,
        gap: float,
    ) -> tuple[np.ndarray | None, float]:
        """``(entering pattern or None, upper bound on every reduced cost)``.

        Returns as soon as the program's subset has reduced cost above ``enter`` and is not
        in ``present`` (it enters), or the upper bound is at most ``certify``; otherwise adds
        a tangent at the subset's weight and solves again (at most 400 times). The programs
        run to their gap without a time limit, so the answer does not depend on the machine."""
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
            slope = _mi_slope(w, self.eps, t)
            intercept = mi_column_value(w, self.eps, t) - slope * w
            # z - slope (p . s) <= intercept: z lies below every tangent, hence above phi
            a = np.hstack([-slope[:, None] * self.p[None, :] / unit, np.ones((w.size, 1))])
            with quiet_stdout():  # HiGHS may print to descriptor 1
                res = milp(
                    cost,
                    constraints=LinearConstraint(a, -np.inf, intercept / unit),
                    integrality=integrality,
                    bounds=bounds,
                    options={"mip_rel_gap": gap},
                )
            if res.x is None or res.status != 0:
                raise self.error(f"the exact pricing program failed: {res.message}")
            pattern = np.round(res.x[:k])
            value = float(self.reduced(pattern[None, :], lam)[0])
            dual = getattr(res, "mip_dual_bound", None)
            relaxed = -float(dual if dual is not None and np.isfinite(dual) else res.fun) * unit
            # the solver's tolerances (1e-6 relative at most) taken against us
            margin = SLACK * (unit + abs(relaxed) + abs(base))
            upper = min(upper, relaxed + margin - base)
            if value > enter and pattern.tobytes() not in present:
                return pattern, upper
            if upper <= certify or value >= upper - 2.0 * margin:
                return None, upper  # certified, or the bound is attained: no tangent helps
            self.tangents.append(float(pattern @ self.p))
        return None, upper


# ------------------------------------------------------------------ zonotope vertex pricing
def _all_combinations(count: int) -> np.ndarray:
    codes = np.arange(1 << count, dtype=np.int64)
    return ((codes[:, None] >> np.arange(count)[None, :]) & 1).astype(bool)


def _planar_patterns(vectors: np.ndarray) -> np.ndarray:
    """Sign patterns ``h_m . w > 0`` of the open sectors of a central line arrangement in the
    plane (``vectors`` is ``(m, 2)``), near-ties flipped both ways."""
    norms = np.linalg.norm(vectors, axis=1)
    live = norms > 0
    angles = np.arctan2(vectors[live, 1], vectors[live, 0])
    bounds = np.sort(np.mod(np.concatenate([angles + np.pi / 2, angles - np.pi / 2]), 2 * np.pi))
    if bounds.size == 0:
        return np.zeros((1, vectors.shape[0]), dtype=bool)
    mids = (bounds + np.diff(np.append(bounds, bounds[0] + 2 * np.pi)) / 2)[:, None]
    directions = np.hstack([np.cos(mids), np.sin(mids)])
    dots = directions @ vectors.T
    out = []
    for row, dot in zip(dots > 0, dots):
        ties = np.flatnonzero(np.abs(dot) <= _TIE * norms)
        if ties.size == 0 or ties.size > _MAX_TIES:
            out.append(row[None, :])
            continue
        block = np.repeat(row[None, :], 1 << ties.size, axis=0)
        block[:, ties] = _all_combinations(ties.size)
        out.append(block)
    return np.vstack(out)


def zonotope_vertex_patterns(generators: np.ndarray) -> np.ndarray:
    """0/1 patterns ``s`` (rows, bool) whose images ``s @ generators`` include every vertex of
    the zonotope ``{s @ generators: s in [0, 1]^k}`` (``generators`` is ``(k, 3)``).

    Identical generators share one sign at every vertex and are visited once. Small
    problems (at most 12 distinct generators) are enumerated outright.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._staircase_lp import zonotope_vertex_patterns
    >>> g = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])
    >>> len(zonotope_vertex_patterns(g))   # the unit cube: 8 vertices
    8
    """
    gens = np.asarray(generators, dtype=np.float64)
    k = gens.shape[0]
    scale = np.max(np.abs(gens), axis=0)
    gens = gens / np.where(scale > 0, scale, 1.0)  # a linear map: the same vertex patterns
    distinct, owner = np.unique(gens, axis=0, return_inverse=True)
    owner = owner.reshape(-1)
    zero = ~np.any(distinct != 0.0, axis=1)
    m = distinct.shape[0]
    if m <= _MAX_TIES:
        grouped = _all_combinations(m)
    else:
        grouped = _ray_patterns(distinct, zero)
    grouped[:, zero] = False  # a zero generator moves nothing
    grouped = np.unique(grouped, axis=0)
    patterns = grouped[:, owner]
    assert patterns.shape[1] == k
    return patterns


def _ray_patterns(gens: np.ndarray, zero: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(gens, axis=1)
    live = np.flatnonzero(~zero)
    i, j = np.triu_indices(live.size, 1)
    i, j = live[i], live[j]
    rays = np.cross(gens[i], gens[j])
    length = np.linalg.norm(rays, axis=1)
    keep = length > _TIE * norms[i] * norms[j]
    rays = rays[keep] / length[keep][:, None]
    # one visit per distinct ray (coplanar generators all give the same one); both signs of
    # each are visited below, so the sign is made canonical
    lead = np.take_along_axis(rays, np.argmax(np.abs(rays) > 1e-6, axis=1)[:, None], axis=1)
    rays = rays * np.sign(lead)
    _, first = np.unique(np.round(rays, 12), axis=0, return_index=True)
    rays = rays[np.sort(first)]
    length = np.ones(rays.shape[0])
    if rays.shape[0] == 0:  # all generators on one line: two vertices (and both ends)
        axis = gens[live[0]]
        along = gens @ axis
        return np.vstack([along > 0, along < 0])
    dots = rays @ gens.T  # (rays, m)
    ties = np.abs(dots) <= _TIE * length[:, None] * norms[None, :]
    ties[:, zero] = False
    positive = (dots > 0) & ~ties
    counts = ties.sum(axis=1)
    out = []
    for sign in (1.0, -1.0):
        base = positive if sign > 0 else ((dots < 0) & ~ties)
        generic = counts == 2  # the usual case: only the pair itself lies on the ray
        if np.any(generic):
            tie_index = np.argsort(~ties[generic], axis=1, kind="stable")[:, :2]
            block = np.repeat(base[generic], 4, axis=0)
            rows = np.arange(block.shape[0])
            combos = np.tile(_all_combinations(2), (int(generic.sum()), 1))
            block[rows, np.repeat(tie_index[:, 0], 4)] = combos[:, 0]
            block[rows, np.repeat(tie_index[:, 1], 4)] = combos[:, 1]
            out.append(block)
        for r in np.flatnonzero(~generic):
            tied = np.flatnonzero(ties[r])
            if tied.size <= _MAX_TIES:
                block = np.repeat(base[r][None, :], 1 << tied.size, axis=0)
                block[:, tied] = _all_combinations(tied.size)
            else:  # many generators in planes through the ray: the planar arrangement
                d = sign * rays[r] / length[r]
                e1 = np.cross(d, np.eye(3)[int(np.argmin(np.abs(d)))])
                e1 /= np.linalg.norm(e1)
                e2 = np.cross(d, e1)
                planar = _planar_patterns(gens[tied] @ np.column_stack([e1, e2]))
                block = np.repeat(base[r][None, :], planar.shape[0], axis=0)
                block[:, tied] = planar
            out.append(block)
    return np.unique(np.vstack(out), axis=0)


class ZonotopePricer:
    """Exact pricing for a utility of two linear functionals of the column (see the module
    docstring): every zonotope vertex pattern is scored."""

    def __init__(
        self,
        first: np.ndarray,
        second: np.ndarray,
        column_values: ColumnValues,
        eps: float,
    ) -> None:
        self.first, self.second = first, second
        self.values = column_values
        self.t = math.expm1(eps)
        self.k = first.size
        # the duals of these masters are degenerate: they are solved for a central dual
        # (``_restricted_master``) and pruned late
        self.master_limit = 64 * self.k
        self.batch = 4 * self.k
        self._cache: tuple[bytes, np.ndarray, np.ndarray] | None = None

    def reduced(self, patterns: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Reduced costs of the 0/1 patterns (rows)."""
        columns = 1.0 + self.t * patterns.T
        return self.values(columns) - lam.sum() - self.t * (patterns @ lam)

    def _scored(self, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = lam.tobytes()
        if self._cache is None or self._cache[0] != key:
            gens = np.column_stack([self.first, self.second, lam])
            patterns = zonotope_vertex_patterns(gens).astype(np.float64)
            self._cache = (key, patterns, self.reduced(patterns, lam))
        return self._cache[1], self._cache[2]

    def cheap(self, lam: np.ndarray, count: int) -> np.ndarray:
        """The ``count`` vertex patterns with the largest reduced costs."""
        patterns, reduced = self._scored(lam)
        return patterns[np.argsort(-reduced)[:count]]

    def certified_bound(self, lam: np.ndarray, unit: float) -> float:
        """``1'lam + max(0, max reduced cost)``, rounded up: a bound on the LP's optimum that
        holds for every ``lam``."""
        _, reduced = self._scored(lam)
        margin = SLACK * (unit + float(np.abs(lam).sum()) * (1.0 + self.t))
        total = float(lam.sum())
        return total + SLACK * abs(total) + max(0.0, float(reduced.max()) + margin)

    def stabilised_step(
        self, lam: np.ndarray, center: np.ndarray | None, best: float, unit: float
    ) -> tuple[np.ndarray, float, np.ndarray]:
        """One round of dual smoothing (Wentges 1997): price at a point between the best dual
        so far (``center``, whose certified bound is ``best``) and the master's ``lam``.

        Returns the new centre, its bound, and the patterns with a positive reduced cost at
        ``lam`` among the vertices at both points (the columns to enter)."""
        points = [lam] if center is None else [0.8 * center + 0.2 * lam, lam]
        for point in points:
            bound = self.certified_bound(point, unit)
            if bound < best:
                center, best = point, bound
        assert center is not None  # the first point always improves on inf
        found = np.vstack([self.cheap(point, self.batch) for point in points])
        found = np.unique(found, axis=0)
        entering = found[self.reduced(found, lam) > 1e-10 * unit]
        return center, best, entering


def _restricted_master(
    columns: np.ndarray, mu: np.ndarray, error: type[Exception], central: bool = False
) -> tuple[np.ndarray, np.ndarray, float]:
    """Solve ``max mu.theta, columns theta = 1, theta >= 0``: ``(theta, lambda, value)``.

    ``central``: by HiGHS's interior-point method without crossover, whose dual is a
    central point of the optimal dual face (a vertex of that face, what the simplex method
    returns, is an arbitrary corner of a face that degenerate masters make large; pricing
    at it lets the same columns come back round after round); its primal is not a vertex.
    """
    ones = np.ones(columns.shape[0])
    unit = max(float(np.max(np.abs(mu))), 1e-300)  # solve at unit scale: tolerances are absolute
    options = {**_LP_OPTIONS, "run_crossover": "off"} if central else _LP_OPTIONS
    with quiet_stdout(), warnings.catch_warnings():
        # run_crossover is a HiGHS option that scipy passes on verbatim, saying so
        warnings.filterwarnings("ignore", "Unrecognized options", OptimizeWarning)
        res = linprog(
            -mu / unit,
            A_eq=columns,
            b_eq=ones,
            bounds=(0, None),
            method="highs-ipm" if central else "highs",
            options=options,
        )
    if res.status != 0:
        raise error(f"the restricted master LP failed: {res.message}")
    return res.x, -res.eqlin.marginals * unit, -float(res.fun) * unit


def solve_staircase_lp(
    column_values: ColumnValues,
    pricer: MutualInformationPricer | ZonotopePricer,
    k: int,
    epsilon: float,
    *,
    tolerance: float,
    max_rounds: int,
    error: type[Exception] = ColumnGenerationError,
    initial: np.ndarray | None = None,
    give_up: bool = False,
) -> StaircaseSolution:
    """Column generation until the certified relative gap is at most ``tolerance``.

    Raises ``error`` when that does not happen within ``max_rounds`` rounds (restricted
    masters solved) or a solver fails; with ``give_up=True`` (two-hypothesis pricers only) it
    returns instead the best certified bound reached by then. The budget counts rounds, not
    seconds: the same inputs give the same columns, channel and bound on any machine.
    ``initial`` are extra starting patterns (rows). ``upper_bound`` holds for the full LP
    whatever the restricted master returned.
    """
    gamma = math.exp(epsilon)
    patterns = np.vstack([np.zeros((1, k)), np.eye(k)])  # the constant column and k-RR's
    if initial is not None:
        patterns = np.unique(np.vstack([patterns, initial]), axis=0)
    rounds = exact_calls = 0
    center: np.ndarray | None = None
    best = math.inf
    while True:
        rounds += 1
        columns = 1.0 + (gamma - 1.0) * patterns.T
        mu = column_values(columns)
        central = isinstance(pricer, ZonotopePricer)
        theta, lam, value = _restricted_master(columns, mu, error, central)
        late = rounds >= max_rounds  # this master is the last one the budget allows
        scale = max(abs(value), 1e-300)
        # keep the master small: the basis and the best others; a central master keeps far
        # more (the columns that span its optimal dual face are what keep its dual central)
        limit = pricer.master_limit * (4 if central else 1)
        if patterns.shape[0] > limit:
            reduced = mu - lam @ columns
            used = theta > (1e-9 * float(theta.max()) if central else 0.0)
            keep = used | (reduced >= np.sort(reduced)[-limit // 2])
            keep[0] = True
            patterns, columns, mu, theta = (
                patterns[keep],
                columns[:, keep],
                mu[keep],
                theta[keep],
            )
        present = {row.tobytes() for row in patterns}
        if isinstance(pricer, ZonotopePricer):  # exact pricing is cheap: stabilise the duals
            center, best, new = pricer.stabilised_step(lam, center, best, scale)
            bound = max(best, value)
            if best - value <= tolerance * scale or (late and give_up):
                # the design: a vertex of the last master (few outputs), by the simplex method
                theta, _, value = _restricted_master(columns, mu, error)
                bound = max(best, value)
                break
            if late:
                raise error(
                    f"column generation did not reach the gap {tolerance:g} in {max_rounds} rounds"
                )
            new = new[np.array([row.tobytes() not in present for row in new], dtype=bool)]
            if new.shape[0] == 0:
                raise error(
                    f"column generation stalled at a certified gap of {(best - value) / scale:.3g}"
                    f" > {tolerance:g}"
                )
            patterns = np.vstack([patterns, new])
            continue
        slack = tolerance * scale - (float(lam.sum()) - value)
        # a column whose reduced cost is within half the allowed gap cannot be what keeps
        # the certificate above it (and entering such columns cycles on degenerate masters)
        threshold = max(1e-10 * scale, 0.5 * slack)
        candidates = pricer.cheap(lam, pricer.batch)
        fresh = np.array([row.tobytes() not in present for row in candidates], dtype=bool)
        new = candidates[(pricer.reduced(candidates, lam) > threshold) & fresh]
        if new.shape[0] == 0:
            exact_calls += 1
            entering, upper = pricer.exact(lam, threshold, slack, present, scale, 0.1 * tolerance)
            bound = float(lam.sum()) * (1.0 + math.copysign(SLACK, lam.sum())) + max(0.0, upper)
            if entering is None:
                if bound - value <= tolerance * scale:
                    break
                raise error(
                    f"column generation stalled at a certified gap of {(bound - value) / scale:.3g}"
                    f" > {tolerance:g}"
                )
            new = entering[None, :]
        if late:
            raise error(
                f"column generation did not reach the gap {tolerance:g} in {max_rounds} rounds"
            )
        patterns = np.vstack([patterns, new])
    used = theta > 0
    return StaircaseSolution(
        columns=columns[:, used],
        weights=theta[used],
        value=value,
        upper_bound=bound,
        rounds=rounds,
        n_columns=int(patterns.shape[0]),
        exact_pricings=exact_calls,
    )
