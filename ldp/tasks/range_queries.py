"""Range queries over an ordinal domain: a hierarchical (B-ary tree) histogram with
consistency (Cormode-Kulkarni-Srivastava (2019); Hay et al. (2010)).

The values ``0 .. k - 1`` are the leaves of a complete ``B``-ary tree of height ``h``
(``B^h >= k``; leaves past ``k - 1`` are padding). Level ``l = 1 .. h`` has ``B^l`` nodes,
node ``v`` holding the values ``v B^(h-l) .. (v + 1) B^(h-l) - 1``; the root (level 0) is
the whole population and is known. Each user draws a level uniformly (an exact coin,
independent of the value) and reports the node of their value at that level through a pure
frequency oracle at the full ``epsilon``: splitting the users, not the budget, as
Cormode-Kulkarni-Srivastava (2019) recommend. The report ``(level, oracle report)`` is
``epsilon``-LDP because the level carries no information.

**Estimates.** Node ``v`` of level ``l`` is estimated by the Horvitz-Thompson form
``y_v = h (C_v - n_l q) / ((p - q) n)`` (``n_l`` reports at level ``l`` out of ``n``): unbiased
for the node's frequency over the level draw and the oracle's noise together. A range
``[a, b)`` is answered from the nodes of its ``B``-adic decomposition (at most ``2(B - 1)``
per level), or, with consistency, from Hay et al. (2010)'s two-pass least squares: bottom-up
``z_v = (B^i - B^(i-1))/(B^i - 1) y_v + (B^(i-1) - 1)/(B^i - 1) sum_children z`` (height
``i``, leaves ``i = 1``), then top-down from the known root
``x_v = z_v + (x_parent - sum_siblings z)/B``. The result is a tree whose every node is the
sum of its children, and it is a linear map that fixes consistent trees, so range answers
stay unbiased. Those weights are the least-squares ones for equal node variances; when the
levels' oracles differ (``"auto"`` puts GRR on the small top levels) the bottom-up pass
weights a node and its children's sum by their inverse variances at ``f -> 0`` instead
(which is Hay et al.'s form when they are equal), the weighted least-squares fit for
independent noise. The noise is not exactly independent (the level draw couples the levels
by ``-f/n``), so this is not claimed optimal; the answers stay unbiased and their variance
below stays exact.

**Exact variance.** A range answer is ``w . y + c`` for weights ``w`` over the nodes (the
decomposition's indicator, or the adjoint of the two passes). Users are independent, so
its variance is a sum over users; for fixed data with leaf frequencies ``f`` it is

``(h/n) sum_l w_l' M_l w_l - (1/n) sum_leaves f_j (sum of w over the ancestors of j)^2``

where ``M_l[v, v] = V_l(f_v) + f_v`` (``V_l`` the oracle's per-user variance) and, for
``v != w`` on one level, ``M_l[v, w] = (e1 (f_v + f_w) + e0 (1 - f_v - f_w)) / (p - q)^2``,
with ``e0 = P(both supported | neither) - q^2`` and ``e1 = P(both | one) - p q``: ``0`` for
unary encoding (independent bits) and for local hashing over ``GF(2)`` (``g`` a power of two:
the linear family is 3-wise independent), ``-q^2`` and ``-p q`` for GRR (one value per
report). The last term is the level draw: a user reports at one level only. With equal node
variances the worst range over ``B^h = 256`` values has ``2.414`` (``B = 2``) and ``4.603``
(``B = 4``) node variances after consistency, against ``14`` and ``20`` without.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ldp._frozen import Frozen, frozen_array
from ldp._sampling import randint
from ldp._validation import as_real_array, check_integer, check_random_state
from ldp.mechanisms.base import FrequencyOracle, SupportCounts
from ldp.mechanisms.categorical.grr import GRR
from ldp.mechanisms.categorical.local_hashing import BLH, OLH
from ldp.mechanisms.categorical.unary import OUE, SUE
from ldp.mechanisms.limits import (
    CHUNK_ELEMENTS,
    check_categories,
    check_convention,
    check_mechanism_epsilon,
    check_n,
)
from ldp.tasks.selection import recommend
from ldp.tasks.tree import (
    b_adic_nodes,
    consistency_adjoint,
    expand_children,
    sum_children,
    tree_consistency,
)

__all__ = [
    "LEVEL_ORACLES",
    "BranchingChoice",
    "HierarchicalCounts",
    "HierarchicalHistogram",
    "HierarchicalReports",
    "RangeEstimate",
    "recommend_branching",
]

#: The frequency oracles a level may use: those whose joint support law of two values is
#: known exactly (the range variance needs it). ``"auto"`` takes, per level, GRR or OUE,
#: whichever has the smaller variance at ``f -> 0``.
LEVEL_ORACLES = ("auto", "GRR", "OUE", "SUE", "OLH", "BLH")

#: Largest number of leaves ``B^h`` (each level's statistic has ``B^l`` counts).
MAX_LEAVES = 1 << 20


def _level_oracle(name: str, size: int, epsilon: float) -> FrequencyOracle:
    if name == "auto":  # recommend's criterion: the smaller variance at f -> 0
        chosen = recommend(size, epsilon, candidates=("GRR", "OUE"), tolerance=0.0).mechanism
        return cast(FrequencyOracle, chosen)  # the candidates are oracles, never sketches
    builders: dict[str, Callable[[int, float], FrequencyOracle]] = {
        "GRR": GRR,
        "OUE": OUE,
        "SUE": SUE,
        "OLH": OLH,
        "BLH": BLH,
    }
    oracle = builders[name](size, epsilon)
    try:
        oracle.pair_covariance()
    except ValueError as error:  # local hashing whose g is not a power of two
        raise ValueError(
            f"oracle={name!r} needs a power-of-two number of buckets for the exact range "
            f"variance (3-wise independent hashing); at epsilon={epsilon!r}, {error}: use "
            "'BLH', 'OUE' or 'auto'"
        ) from None
    return oracle


# ----------------------------------------------------------------------------- values
@dataclass(frozen=True, eq=False)
class HierarchicalReports:
    """What the users of a :class:`~ldp.tasks.HierarchicalHistogram` send: each one's
    level and, per level, the oracle reports of the users at that level (in user order).

    Parameters
    ----------
    levels : ndarray of int
        The level ``1 .. h`` of each user.
    reports : tuple of ndarray
        ``reports[l - 1]``: the native reports of level ``l``'s oracle.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks import HierarchicalHistogram
    >>> tree = HierarchicalHistogram(16, 1.0, branching=4)
    >>> sent = tree.privatize(np.arange(16), rng=0)
    >>> sent.n, len(sent.reports), int(sum(r.shape[0] for r in sent.reports))
    (16, 2, 16)
    """

    levels: np.ndarray
    reports: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        levels = np.asarray(self.levels)
        if levels.ndim != 1 or levels.dtype.kind not in "iu":
            raise ValueError(
                f"levels must be a 1-D integer array, got {levels.dtype} {levels.shape}"
            )
        object.__setattr__(self, "levels", frozen_array(levels))
        object.__setattr__(
            self, "reports", tuple(frozen_array(np.asarray(r)) for r in self.reports)
        )

    @property
    def n(self) -> int:
        """Number of users."""
        return int(self.levels.size)


@dataclass(frozen=True, eq=False)
class HierarchicalCounts:
    """The mergeable statistic of a :class:`~ldp.tasks.HierarchicalHistogram`: one
    :class:`~ldp.mechanisms.SupportCounts` per level (add chunks with ``+``).

    Parameters
    ----------
    levels : tuple of SupportCounts
        Level ``l``'s support counts at index ``l - 1``.
    mechanism : str
        The key of the tree that made them.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks import HierarchicalHistogram
    >>> tree = HierarchicalHistogram(16, 1.0)
    >>> a = tree.aggregate(tree.privatize(np.arange(8), rng=1))
    >>> b = tree.aggregate(tree.privatize(np.arange(8, 16), rng=2))
    >>> (a + b).n
    16
    """

    levels: tuple[SupportCounts, ...]
    mechanism: str

    @property
    def n(self) -> int:
        """Number of reports over all levels."""
        return sum(level.n for level in self.levels)

    def __add__(self, other: HierarchicalCounts) -> HierarchicalCounts:
        if not isinstance(other, HierarchicalCounts):
            return NotImplemented
        if other.mechanism != self.mechanism:
            raise ValueError(
                f"cannot add counts of {other.mechanism} to counts of {self.mechanism}"
            )
        merged = tuple(a + b for a, b in zip(self.levels, other.levels, strict=True))
        return HierarchicalCounts(merged, self.mechanism)

    def __radd__(self, other: object) -> HierarchicalCounts:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def _check_range(a: ArrayLike, b: ArrayLike, k: int) -> tuple[np.ndarray, np.ndarray]:
    lo = np.asarray(a)
    hi = np.asarray(b)
    for name, arr in (("a", lo), ("b", hi)):
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name} must be an integer (or integer array), got {arr.dtype}")
    lo, hi = np.broadcast_arrays(lo.astype(np.int64), hi.astype(np.int64))
    bad = (lo < 0) | (hi > k) | (lo >= hi)
    if np.any(bad):
        raise ValueError(f"ranges [a, b) must satisfy 0 <= a < b <= k = {k}; got a={a!r}, b={b!r}")
    return lo, hi


# ----------------------------------------------------------------------------- mechanism
class HierarchicalHistogram(Frozen):
    """Range queries over ``0 .. k - 1`` by a ``B``-ary tree of frequency oracles
    (Cormode-Kulkarni-Srivastava (2019)) with Hay et al. (2010)'s consistency.

    Every user draws a level ``1 .. h`` uniformly and reports the node of their value at
    that level through the level's oracle at the full ``epsilon`` (module notes). The
    server estimates every node, makes the tree consistent and answers ``[a, b)`` with its
    exact variance.

    Parameters
    ----------
    k : int
        Number of ordinal values (``>= 2``); the tree has ``B^h >= k`` leaves.
    epsilon : float
        Privacy level of every report.
    branching : int, default 4
        ``B`` (``2 .. 256``). Without consistency the worst range's variance bound
        ``2 (B - 1) h^2`` is smallest near ``B = 5`` (``ln B = 2 - 2/B``);
        :func:`~ldp.tasks.recommend_branching` compares the exact mean range variance
        of each ``B`` (``B = 2`` or ``4`` usually wins, with consistency). ``B >= k`` is the
        flat oracle (one level).
    oracle : {"auto", "GRR", "OUE", "SUE", "OLH", "BLH"}, default "auto"
        The levels' frequency oracle; ``"auto"`` uses GRR on levels with few nodes and OUE
        on the others (the smaller variance at ``f -> 0``); OLH/BLH keep reports small on
        large domains (OLH only when its ``g`` is a power of two).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks import HierarchicalHistogram
    >>> tree = HierarchicalHistogram(64, 2.0, branching=4)
    >>> tree.height, [o.name for o in tree.oracles]
    (3, ['GRR', 'GRR', 'OUE'])
    >>> values = np.random.default_rng(0).integers(0, 16, 30_000)   # uniform on 0..15
    >>> est = tree.estimate(tree.privatize(values, rng=1))
    >>> answer, sd = est.range(0, 8), float(np.sqrt(tree.variance(30_000, 0, 8)))
    >>> bool(abs(answer - 0.5) < 5 * sd)
    True
    """

    def __init__(self, k: int, epsilon: float, branching: int = 4, oracle: str = "auto") -> None:
        self._k = check_integer(k, "k", low=2)
        self._eps_budget = check_mechanism_epsilon(epsilon)
        self._b = check_integer(branching, "branching", low=2)
        if self._b > 256:
            raise ValueError(f"branching must be <= 256, got {self._b}")
        if oracle not in LEVEL_ORACLES:
            raise ValueError(f"oracle must be one of {LEVEL_ORACLES}, got {oracle!r}")
        self._oracle = str(oracle)
        height = 1
        while self._b**height < self._k:
            height += 1
        self._h = height
        if self._b**height > MAX_LEAVES:
            raise ValueError(
                f"the tree needs B^h = {self._b**height} leaves for k = {self._k}; the limit is "
                f"MAX_LEAVES = {MAX_LEAVES}"
            )
        self._oracles = tuple(
            _level_oracle(self._oracle, self._b**level, self._eps_budget)
            for level in range(1, height + 1)
        )
        # the noise variance of one node per level at f -> 0 (the factor h / n is common)
        self._level_variances = tuple(float(o.variance(1)) for o in self._oracles)

    # ----------------------------------------------------------------- identity
    name = "HierarchicalHistogram"

    @property
    def params(self) -> dict[str, object]:
        """``{"k", "epsilon", "branching", "oracle"}``."""
        return {
            "k": self._k,
            "epsilon": self._eps_budget,
            "branching": self._b,
            "oracle": self._oracle,
        }

    @property
    def key(self) -> str:
        """Identifies the tree and its parameters."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({args})"

    def __repr__(self) -> str:
        return self.key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HierarchicalHistogram):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def k(self) -> int:
        """Number of values."""
        return self._k

    @property
    def branching(self) -> int:
        """``B``."""
        return self._b

    @property
    def height(self) -> int:
        """``h``: the number of reported levels."""
        return self._h

    @property
    def leaves(self) -> int:
        """``B^h``."""
        return self._b**self._h

    @property
    def oracles(self) -> tuple[FrequencyOracle, ...]:
        """The oracle of each level ``1 .. h``."""
        return self._oracles

    @property
    def epsilon(self) -> float:
        """The largest of the levels' exact epsilons (the level is drawn independently of
        the value, so a report is as private as the oracle that made it)."""
        return max(o.epsilon for o in self._oracles)

    # ----------------------------------------------------------------- users
    def privatize(self, values: ArrayLike, *, rng: object = None) -> HierarchicalReports:
        """One report per user: a uniform level and the oracle report of the value's node.

        Parameters
        ----------
        values : array_like of int
            Values in ``0 .. k - 1`` (1-D).
        rng : None, int, Generator or "os"
            ``"os"`` on devices.

        Returns
        -------
        HierarchicalReports
        """
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        levels = randint(gen, self._h, x.size) + 1
        reports = []
        for level, oracle in enumerate(self._oracles, start=1):
            nodes = x[levels == level] // self._b ** (self._h - level)
            reports.append(oracle.privatize(nodes, rng=gen))
        return HierarchicalReports(
            levels.astype(np.int8 if self._h < 128 else np.int64), tuple(reports)
        )

    # ----------------------------------------------------------------- server
    def aggregate(self, reports: HierarchicalReports) -> HierarchicalCounts:
        """The support counts of every level (checked by each oracle's codec)."""
        if not isinstance(reports, HierarchicalReports):
            raise TypeError(
                "reports must be HierarchicalReports (from privatize), got "
                f"{type(reports).__name__}"
            )
        if len(reports.reports) != self._h:
            raise ValueError(f"reports must hold {self._h} levels, got {len(reports.reports)}")
        levels = reports.levels
        if levels.size and (levels.min() < 1 or levels.max() > self._h):
            raise ValueError(f"levels must lie in 1..{self._h}")
        counts = []
        for level, (oracle, native) in enumerate(
            zip(self._oracles, reports.reports, strict=True), 1
        ):
            expected = int(np.count_nonzero(levels == level))
            if native.shape[0] != expected:
                raise ValueError(
                    f"level {level} has {expected} users but {native.shape[0]} reports"
                )
            counts.append(oracle.aggregate(native))
        return HierarchicalCounts(tuple(counts), self.key)

    def _counts_of(self, data: HierarchicalReports | HierarchicalCounts) -> HierarchicalCounts:
        if isinstance(data, HierarchicalCounts):
            if data.mechanism != self.key:
                raise ValueError(f"counts come from {data.mechanism}, not from {self.key}")
            return data
        return self.aggregate(data)

    def node_estimates(
        self, data: HierarchicalReports | HierarchicalCounts
    ) -> tuple[np.ndarray, ...]:
        """Unbiased frequency estimates of every node, level by level (Horvitz-Thompson:
        ``h (C_v - n_l q) / ((p - q) n)``)."""
        counts = self._counts_of(data)
        n = counts.n
        if n == 0:
            raise ValueError("cannot estimate from zero reports")
        out = []
        for oracle, level in zip(self._oracles, counts.levels, strict=True):
            gap = oracle.p - oracle.q
            out.append(self._h * (level.counts - level.n * oracle.q) / (gap * n))
        return tuple(out)

    def estimate(
        self, data: HierarchicalReports | HierarchicalCounts, consistency: bool = True
    ) -> RangeEstimate:
        """The estimated tree, ready to answer range queries.

        Parameters
        ----------
        data : HierarchicalReports or HierarchicalCounts
        consistency : bool, default True
            Apply :func:`~ldp.tasks.tree_consistency` (Hay et al. (2010)); otherwise
            answer from the raw nodes of each range's ``B``-adic decomposition.

        Returns
        -------
        RangeEstimate
        """
        if not isinstance(consistency, bool):
            raise TypeError(f"consistency must be True or False, got {consistency!r}")
        counts = self._counts_of(data)
        nodes = self.node_estimates(counts)
        if consistency:
            leaves = tree_consistency(nodes, self._b, variances=self._level_variances)[-1]
        else:
            leaves = nodes[-1]
        return RangeEstimate(self, nodes, leaves, counts.n, consistency)

    # ----------------------------------------------------------------- variance
    def _weights(
        self, lo: np.ndarray, hi: np.ndarray, consistency: bool
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Node weights ``(R, B^l)`` per level and the root coefficient ``(R,)`` of the
        answers to the ranges ``[lo, hi)`` (flattened)."""
        lo, hi = lo.ravel(), hi.ravel()
        positions = np.arange(self.leaves)
        if consistency:
            # linear in the leaf indicator: [lo, hi) = [0, hi) - [0, lo), and ranges share ends
            ends, inverse = np.unique(np.concatenate([lo, hi]), return_inverse=True)
            prefixes = (positions < ends[:, None]).astype(float)
            levels, root = consistency_adjoint(prefixes, self._b, self._h, self._level_variances)
            first, last = inverse[: lo.size], inverse[lo.size :]
            return [w[last] - w[first] for w in levels], root[last] - root[first]
        weights = [np.zeros((lo.size, self._b**level)) for level in range(1, self._h + 1)]
        root = np.zeros(lo.size)
        for r, (a, b) in enumerate(zip(lo, hi, strict=True)):
            for level, index in b_adic_nodes(int(a), int(b), self._b, self._h):
                if level == 0:
                    root[r] = 1.0
                else:
                    weights[level - 1][r, index] = 1.0
        return weights, root

    def variance(
        self,
        n: int,
        a: ArrayLike,
        b: ArrayLike,
        f: ArrayLike | None = None,
        convention: str = "fixed",
        consistency: bool = True,
    ) -> float | np.ndarray:
        """Exact variance of the answer to ``[a, b)`` (module notes for the formula).

        Parameters
        ----------
        n : int
            Number of users.
        a, b : int or array_like of int
            Ranges ``[a, b)``, ``0 <= a < b <= k`` (broadcast together).
        f : array_like, optional
            The users' value frequencies (length ``k``, summing to one); ``None`` is
            ``f -> 0``, the noise alone (the usual comparison of oracles).
        convention : {"fixed", "iid"}
            ``iid`` adds ``F (1 - F) / n`` for the range's mass ``F``.
        consistency : bool, default True
            The variance with or without Hay et al.'s consistency.

        Returns
        -------
        float or ndarray
            One variance per range.
        """
        users = check_n(n)
        conv = check_convention(convention)
        lo, hi = _check_range(a, b, self._k)
        freq = self._leaf_frequencies(f)
        flat_lo, flat_hi = lo.ravel(), hi.ravel()
        step = max(1, CHUNK_ELEMENTS // self.leaves)  # ranges per pass: bounded memory
        out = np.empty(flat_lo.size)
        for start in range(0, flat_lo.size, step):
            part = slice(start, start + step)
            weights, _ = self._weights(flat_lo[part], flat_hi[part], bool(consistency))
            out[part] = self._variance_of(weights, freq, users)
        if conv == "iid":
            cum = np.concatenate([[0.0], np.cumsum(freq)])
            mass = cum[hi.ravel()] - cum[lo.ravel()]
            out += mass * (1.0 - mass) / users
        shaped = out.reshape(lo.shape)
        return float(shaped) if shaped.ndim == 0 else shaped

    def _bilinear(
        self, u: list[np.ndarray], v: list[np.ndarray], leaves: np.ndarray, n: int
    ) -> np.ndarray:
        """``Cov(u . y, v . y)`` for node weights ``u, v`` (per level, ``(R, B^l)``) at leaf
        frequencies ``leaves``: the bilinear form of the module notes."""
        total = np.zeros(u[0].shape[0])
        per_level_f = [leaves]
        for _ in range(self._h - 1):
            per_level_f.append(sum_children(per_level_f[-1], self._b))
        per_level_f = per_level_f[::-1]  # level 1 first
        data = bool(np.any(leaves > 0))
        up: np.ndarray | None = None  # sums of the weights of each leaf's ancestors
        vp: np.ndarray | None = None
        for wu, wv, fl, oracle in zip(u, v, per_level_f, self._oracles, strict=True):
            gap2 = (oracle.p - oracle.q) ** 2
            e0, e1 = oracle.pair_covariance()
            alpha, beta = e0 / gap2, (e1 - e0) / gap2
            diagonal = np.asarray(oracle.variance(1, np.clip(fl, 0.0, 1.0))) + fl
            both = wu * wv
            total += both @ diagonal
            if alpha or beta:
                su, sv = wu.sum(axis=1), wv.sum(axis=1)
                total += alpha * (su * sv - both.sum(axis=1))
                total += beta * ((wu @ fl) * sv + su * (wv @ fl) - 2.0 * (both @ fl))
            if data:
                up = wu if up is None else expand_children(up, self._b) + wu
                vp = wv if vp is None else expand_children(vp, self._b) + wv
        level_draw = (up * vp) @ leaves if up is not None and vp is not None else 0.0
        return (self._h * total - level_draw) / n

    def _variance_of(self, weights: list[np.ndarray], leaves: np.ndarray, n: int) -> np.ndarray:
        return self._bilinear(weights, weights, leaves, n)

    def _leaf_frequencies(self, f: ArrayLike | None) -> np.ndarray:
        freq = np.zeros(self.leaves)
        if f is not None:
            given = as_real_array(f, "f")
            if given.shape != (self._k,):
                raise ValueError(f"f must have {self._k} frequencies, got shape {given.shape}")
            if np.any(given < 0) or abs(given.sum() - 1) > 1e-9:
                raise ValueError(
                    f"f must be non-negative frequencies summing to 1, got min {given.min():g} "
                    f"and sum {given.sum():.12g}"
                )
            freq[: self._k] = given
        return freq

    def mean_variance(self, n: int, f: ArrayLike | None = None) -> float:
        """Exact mean of ``variance`` (with consistency, fixed data) over all
        ``k (k + 1) / 2`` ranges ``[a, b)``, in ``O(k B^h)``.

        The answer's weights are differences of prefix weights, ``w(a, b) = P_b - P_a``, and
        the variance is a quadratic form ``Q``, so the sum over ranges is
        ``(k + 1) sum_x Q(P_x) - Q(sum_x P_x)``.

        Parameters
        ----------
        n : int
            Number of users.
        f : array_like, optional
            The users' value frequencies (``None``: ``f -> 0``).

        Returns
        -------
        float
        """
        users = check_n(n)
        freq = self._leaf_frequencies(f)
        positions = np.arange(self.leaves)
        step = max(1, CHUNK_ELEMENTS // self.leaves)
        sum_q = 0.0
        sum_p = [np.zeros((1, self._b**level)) for level in range(1, self._h + 1)]
        for start in range(0, self._k + 1, step):
            ends = np.arange(start, min(start + step, self._k + 1))
            prefixes = (positions < ends[:, None]).astype(float)
            weights, _ = consistency_adjoint(prefixes, self._b, self._h, self._level_variances)
            sum_q += float(self._bilinear(weights, weights, freq, users).sum())
            sum_p = [
                acc + w.sum(axis=0, keepdims=True) for acc, w in zip(sum_p, weights, strict=True)
            ]
        pairs = self._k * (self._k + 1) / 2.0
        whole = float(self._bilinear(sum_p, sum_p, freq, users)[0])
        return ((self._k + 1) * sum_q - whole) / pairs


@dataclass(frozen=True, eq=False)
class RangeEstimate:
    """The estimated tree of a :class:`~ldp.tasks.HierarchicalHistogram`: it answers
    ``[a, b)`` queries.

    Parameters
    ----------
    mechanism : HierarchicalHistogram
        The tree that made the reports.
    nodes : tuple of ndarray
        Unbiased node estimates, levels ``1 .. h``.
    leaves : ndarray
        The leaf frequencies the answers sum (consistent, or the raw leaf level).
    n : int
        Number of reports.
    consistency : bool
        Whether Hay et al.'s consistency was applied.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks import HierarchicalHistogram
    >>> tree = HierarchicalHistogram(16, 4.0, branching=2)
    >>> est = tree.estimate(tree.privatize(np.repeat(np.arange(16), 2000), rng=3))
    >>> round(est.range(0, 16), 12), bool(abs(est.range(4, 12) - 0.5) < 0.05)
    (1.0, True)
    """

    mechanism: HierarchicalHistogram
    nodes: tuple[np.ndarray, ...]
    leaves: np.ndarray
    n: int
    consistency: bool

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "nodes", tuple(frozen_array(np.asarray(y, float)) for y in self.nodes)
        )
        object.__setattr__(self, "leaves", frozen_array(np.asarray(self.leaves, float)))

    @property
    def frequencies(self) -> np.ndarray:
        """Estimated frequency of each value ``0 .. k - 1`` (may be negative: unbiased)."""
        return self.leaves[: self.mechanism.k]

    def range(self, a: ArrayLike, b: ArrayLike) -> float | np.ndarray:
        """The estimated fraction of users with a value in ``[a, b)`` (``0 <= a < b <= k``)."""
        lo, hi = _check_range(a, b, self.mechanism.k)
        if self.consistency:
            cum = np.concatenate([[0.0], np.cumsum(self.leaves)])
            out = cum[hi] - cum[lo]
        else:
            flat = np.empty(lo.size)
            for r, (x, y) in enumerate(zip(lo.ravel(), hi.ravel(), strict=True)):
                nodes = b_adic_nodes(
                    int(x), int(y), self.mechanism.branching, self.mechanism.height
                )
                flat[r] = sum(1.0 if lv == 0 else self.nodes[lv - 1][i] for lv, i in nodes)
            out = flat.reshape(lo.shape)
        return float(out) if np.ndim(out) == 0 else out

    def variance(self, a: ArrayLike, b: ArrayLike, convention: str = "fixed") -> float | np.ndarray:
        """Plug-in variance of ``range``: ``HierarchicalHistogram.variance`` at the
        estimated frequencies (clipped at zero and renormalised)."""
        f = np.maximum(self.frequencies, 0.0)
        f = f / f.sum() if f.sum() > 0 else np.full(f.size, 1.0 / f.size)
        return self.mechanism.variance(self.n, a, b, f, convention, self.consistency)


# ----------------------------------------------------------------------------- planning
#: Largest ``k`` :func:`recommend_branching` evaluates (the exact mean costs ``O(k B^h)``).
MAX_PLANNED_VALUES = 1 << 12
#: The branchings :func:`recommend_branching` tries by default: around the optimum
#: ``ln B = 2 - 2/B`` (``B ~ 4.9``) and the powers of two.
DEFAULT_BRANCHINGS = (2, 3, 4, 5, 8, 16)


@dataclass(frozen=True)
class BranchingChoice:
    """The branching :func:`~ldp.tasks.recommend_branching` chose, why, and the table
    behind it.

    Parameters
    ----------
    branching : int
        The chosen ``B`` (``k`` itself, with ``h = 1``, is the flat oracle).
    reason : str
        The criterion, the runner-up and the flat oracle's figure.
    table : tuple of (branching, height, leaves, mean variance)
        Every candidate: the exact mean variance of a range answer over all ranges, at
        ``f -> 0``, for ``n`` users (per user if ``n`` is None).

    Examples
    --------
    >>> from ldp.tasks import recommend_branching
    >>> choice = recommend_branching(64, 1.0, candidates=(2, 4, 8))
    >>> choice.branching, [row[0] for row in choice.table]
    (4, [2, 4, 8, 64])
    """

    branching: int
    reason: str
    table: tuple[tuple[int, int, int, float], ...]

    def __str__(self) -> str:
        lines = [self.reason, f"{'B':>6} {'h':>3} {'leaves':>8} {'mean var':>12}"]
        for b, h, leaves, mean in self.table:
            lines.append(f"{b:>6} {h:>3} {leaves:>8} {mean:12.6g}")
        return "\n".join(lines)


def recommend_branching(
    k: int,
    epsilon: float,
    n: int | None = None,
    candidates: Sequence[int] | None = None,
    oracle: str = "auto",
) -> BranchingChoice:
    """The tree for range queries over ``k`` ordinal values: the branching ``B`` whose
    :class:`~ldp.tasks.HierarchicalHistogram` (with consistency) has the smallest mean
    exact variance over ranges, compared with the flat oracle (``B = k``, one level, when
    ``k <= 256``).

    The criterion is the exact mean variance over all ``k (k + 1) / 2`` ranges
    (``HierarchicalHistogram.mean_variance``) at ``f -> 0`` (the noise alone, as
    :func:`~ldp.tasks.recommend` compares oracles).

    Parameters
    ----------
    k : int
        Number of values, ``2 .. 4096``.
    epsilon : float
        Privacy level.
    n : int, optional
        Number of users; only scales the variances shown.
    candidates : sequence of int, optional
        Branchings to try (default ``DEFAULT_BRANCHINGS``: 2, 3, 4, 5, 8, 16).
    oracle : str, default "auto"
        The levels' oracle (``LEVEL_ORACLES``).

    Returns
    -------
    BranchingChoice
        The chosen branching, the reason and the table of every candidate.

    Examples
    --------
    >>> from ldp.tasks import recommend_branching
    >>> recommend_branching(1024, 1.0).branching
    4
    """
    size = check_integer(k, "k", low=2)
    if size > MAX_PLANNED_VALUES:
        raise ValueError(f"k must be <= {MAX_PLANNED_VALUES} (MAX_PLANNED_VALUES), got {size}")
    users = 1 if n is None else check_n(n)
    options = list(DEFAULT_BRANCHINGS) if candidates is None else list(candidates)
    if not options:
        raise ValueError("candidates must name at least one branching")
    for b in options:
        check_integer(b, "candidates", low=2)
    if size <= 256 and size not in options:
        options.append(size)  # the flat oracle
    rows = []
    for b in sorted(set(options)):
        tree = HierarchicalHistogram(size, epsilon, branching=b, oracle=oracle)
        rows.append((b, tree.height, tree.leaves, tree.mean_variance(users)))
    ranked = sorted(rows, key=lambda r: (r[3], r[0]))
    best = ranked[0]
    per = f" for n = {users}" if n is not None else " per user (divide by n)"
    reason = (
        f"B = {best[0]} (height {best[1]}) has the smallest mean range variance, {best[3]:.6g}{per}"
    )
    if len(ranked) > 1:
        second = ranked[1]
        reason += f"; runner-up B = {second[0]} at {second[3] / best[3]:.3f}x"
    flat = [r for r in rows if r[0] == size]
    if flat and flat[0] is not best:
        reason += f"; the flat oracle has {flat[0][3] / best[3]:.3g}x the variance"
    return BranchingChoice(best[0], reason + ".", tuple(rows))
