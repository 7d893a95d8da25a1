"""Heavy hitters over huge domains: the prefix-extending method (PEM) and TreeHist.

A value is a ``bits``-bit string, held as an integer in ``0 .. 2^bits - 1`` (most
significant bit first; strings map to such integers with :func:`encode_strings`). The
users are split by the library into disjoint groups of (nearly) equal size, fixed before any
report is read and independent of the values; the user of group ``i`` reports the
``lengths[i]``-bit prefix of its value (``value >> (bits - lengths[i])``) **once**, through a
frequency oracle of this package over ``2^lengths[i]`` categories at the full ``epsilon``.
A user's output is therefore one report of one registered oracle, and the protocol is
``epsilon``-LDP with ``epsilon`` the largest of the level oracles' own (computed) epsilons;
the group index carries no information about the value. On a device, the user of group
``i`` runs ``search.level_mechanism(i).privatize(search.prefixes(value, i), rng="os")`` (for
the default oracle a plain :class:`~ldp.mechanisms.OLH` over ``2^lengths[i]`` values, whose
protocol file and clients already exist), so no new client-side mechanism is needed.

The server walks down the prefix tree: the candidates of a level are the children (the
``lengths[i] - lengths[i-1]``-bit extensions) of the prefixes kept at the level above, and
each is estimated from its group's reports alone with
:meth:`~ldp.mechanisms.FrequencyOracle.estimate_values` (``O(n_i m)`` for ``m`` candidates,
never the full ``2^lengths[i]`` alphabet). The group is a uniformly random ``1/groups`` of
the population, so a group's estimate of a prefix frequency is unbiased for the population's
prefix frequency (over the oracle's noise and the random split); no rescaling by the number
of groups is needed on the frequency scale.

* :class:`PEM` (Wang-Li-Jha 2019): the first level has ``floor(log2 k) + 1`` bits and holds
  every prefix; each level keeps the ``k`` largest estimates and extends them by ``step`` bits;
  the last level's top ``k`` are the result (their estimates are those of the level that
  selected them, so they carry the selection's upward bias).
* :class:`TreeHist` (Bassily-Nissim-Stemmer-Thakurta 2017): the tree starts at the root, and a
  level keeps every candidate whose estimate reaches a threshold (by default a one-sided
  normal quantile of the level's noise with a union bound over the levels' candidates, so a
  prefix of frequency zero passes some level with probability at most about ``beta``); one
  more group reports the full value and estimates the surviving leaves, so the reported
  frequencies are unbiased given the selection. Its threshold is a *frequency* (a fraction):
  the peer implementation pure-LDP compares a count-scale default with a fraction, so that
  nothing passes unless ``n < 100``.

Examples
--------
>>> import numpy as np
>>> from ldp.tasks import PEM
>>> rng = np.random.default_rng(0)
>>> values = np.where(rng.random(60_000) < 0.3, 0xC0FFEE, rng.integers(0, 2**24, 60_000))
>>> found = PEM(4.0, bits=24, k=4).run(values, rng=1)
>>> hex(int(found.items[0])), bool(abs(found.frequencies[0] - 0.3) < 0.03)
('0xc0ffee', True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtri

from ldp._frozen import Frozen
from ldp._sampling import randint
from ldp._validation import check_integer, check_random_state, check_scalar, describe
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.limits import check_categories, check_mechanism_epsilon
from ldp.tasks.hitters import HeavyHitterLevel, HeavyHitters
from ldp.tasks.selection import FREQUENCY_ORACLES
from ldp.tasks.strings import PREFIX_ORACLES, check_bits, encode_strings

__all__ = ["PEM", "TreeHist", "heavy_hitters"]


# --------------------------------------------------------------------------- the searches
def _check_oracle(oracle: object) -> str:
    if oracle not in PREFIX_ORACLES:
        raise ValueError(
            f"oracle must be one of {', '.join(PREFIX_ORACLES)} (an oracle decodable at single "
            f"values over 2^bits categories), got {describe(oracle)}"
        )
    return str(oracle)


class _PrefixSearch(Frozen):
    """What PEM and TreeHist share: the levels, their oracles, the split, the reports."""

    _lengths: tuple[int, ...]

    def __init__(self, epsilon: float, bits: int, oracle: str) -> None:
        self._eps_budget = check_mechanism_epsilon(epsilon)
        self._bits = check_bits(bits)
        self._oracle = _check_oracle(oracle)
        self._mechanisms: dict[int, FrequencyOracle] = {}

    # ----------------------------------------------------------------- parameters
    @property
    def bits(self) -> int:
        """Length of the values."""
        return self._bits

    @property
    def oracle(self) -> str:
        """Name of the level oracle (a key of ``FREQUENCY_ORACLES``)."""
        return self._oracle

    @property
    def lengths(self) -> tuple[int, ...]:
        """Prefix length reported by each group (a group per level)."""
        return self._lengths

    @property
    def groups(self) -> int:
        """Number of groups the users are split into."""
        return len(self._lengths)

    def level_mechanism(self, level: int) -> FrequencyOracle:
        """The oracle the users of group ``level`` run on their prefix.

        Parameters
        ----------
        level : int
            Group index, ``0 .. groups - 1``.

        Returns
        -------
        FrequencyOracle
            The oracle over ``2^lengths[level]`` categories at the full epsilon.

        Examples
        --------
        >>> from ldp.tasks import PEM
        >>> PEM(4.0, bits=32, k=20).level_mechanism(0)
        OLH(k=32, epsilon=4.0, g=56)
        """
        i = self._check_level(level)
        length = self._lengths[i]
        if length not in self._mechanisms:
            self._mechanisms[length] = FREQUENCY_ORACLES[self._oracle](
                1 << length, self._eps_budget
            )
        return self._mechanisms[length]

    @property
    def epsilon(self) -> float:
        """The protocol's epsilon: the largest computed epsilon of the level oracles (each
        user sends one report of one of them)."""
        return max(self.level_mechanism(i).epsilon for i in range(self.groups))

    def _check_level(self, level: object) -> int:
        i = check_integer(level, "level", low=0)
        if i >= self.groups:
            raise ValueError(f"level must be < groups = {self.groups}, got {i}")
        return i

    def _check_values(self, values: ArrayLike) -> np.ndarray:
        return check_categories(values, 1 << self._bits, "values")

    # ----------------------------------------------------------------- client side
    def prefixes(self, values: ArrayLike, level: int) -> np.ndarray:
        """The ``lengths[level]``-bit prefixes of ``bits``-bit values.

        Parameters
        ----------
        values : array_like of int
            Values in ``0 .. 2^bits - 1``.
        level : int
            Group index.

        Returns
        -------
        ndarray of int64
            ``values >> (bits - lengths[level])``.

        Examples
        --------
        >>> from ldp.tasks import PEM
        >>> pem = PEM(1.0, bits=8, k=2, step=3)
        >>> pem.lengths, [int(p) for p in pem.prefixes([0b10110011], 1)]
        ((2, 5, 8), [22])
        """
        i = self._check_level(level)
        return self._check_values(values) >> (self._bits - self._lengths[i])

    def assign(self, n: int, rng: object = None) -> np.ndarray:
        """A group per user: a uniformly random split into ``groups`` groups of sizes that
        differ by at most one, independent of the values.

        Parameters
        ----------
        n : int
            Number of users.
        rng : None, int, numpy Generator or "os"
            Source of randomness.

        Returns
        -------
        ndarray of int64
            The group of each user.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import PEM
        >>> groups = PEM(1.0, bits=8, k=2, step=3).assign(10, rng=0)
        >>> np.bincount(groups).tolist()
        [4, 3, 3]
        """
        users = check_integer(n, "n", low=0)
        gen = check_random_state(rng)
        if isinstance(gen, np.random.Generator):
            order = gen.permutation(users)
        else:  # a byte source: sort uniform 53-bit keys (ties, ~n^2 2^-54, keep index order)
            order = np.argsort(randint(gen, 1 << 53, users), kind="stable")
        out = np.empty(users, dtype=np.int64)
        out[order] = np.arange(users, dtype=np.int64) % self.groups
        return out

    def privatize(self, values: ArrayLike, *, rng: object = None) -> tuple[np.ndarray, ...]:
        """Split the users into groups and privatize each one's prefix (a simulation of the
        devices; on a device see the module notes).

        Parameters
        ----------
        values : array_like of int
            One ``bits``-bit value per user.
        rng : None, int, numpy Generator or "os"
            Source of randomness (the split and the reports).

        Returns
        -------
        tuple of ndarray
            The reports of each group, in level order (a group's reports are those of
            :meth:`level_mechanism`).

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import PEM
        >>> reports = PEM(1.0, bits=8, k=2, step=3).privatize(np.arange(10), rng=0)
        >>> [r.shape[0] for r in reports]
        [4, 3, 3]
        """
        x = self._check_values(values)
        gen = check_random_state(rng)
        group = self.assign(x.size, gen)
        shift = self._bits - np.asarray(self._lengths, dtype=np.int64)
        return tuple(
            self.level_mechanism(i).privatize(x[group == i] >> shift[i], rng=gen)
            for i in range(self.groups)
        )

    # ----------------------------------------------------------------- server side
    def _check_reports(self, reports: object) -> tuple[np.ndarray, ...]:
        if not isinstance(reports, (tuple, list)) or len(reports) != self.groups:
            raise ValueError(
                f"reports must be a sequence of {self.groups} arrays (one per group), got "
                f"{describe(reports)}"
            )
        out = tuple(np.asarray(r) for r in reports)
        for i, r in enumerate(out):
            if r.shape[0] == 0:
                raise ValueError(f"reports[{i}] is empty: every group needs at least one user")
        return out

    def estimate_prefixes(self, reports: ArrayLike, level: int, prefixes: ArrayLike) -> np.ndarray:
        """Unbiased frequency estimates of ``prefixes`` from the reports of group ``level``.

        Parameters
        ----------
        reports : array_like
            The reports of group ``level`` (``privatize(...)[level]``).
        level : int
            Group index.
        prefixes : array_like of int
            ``lengths[level]``-bit prefixes.

        Returns
        -------
        ndarray of float64
            One estimate per prefix: unbiased for the group's prefix frequency, hence (the
            group being a uniformly random share of the users) for the population's.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import PEM
        >>> pem = PEM(2.0, bits=16, k=2)
        >>> reports = pem.privatize(np.full(30_000, 0xAB00), rng=0)
        >>> pem.lengths
        (2, 9, 16)
        >>> est = pem.estimate_prefixes(reports[1], 1, [0xAB00 >> 7, 0])
        >>> bool(abs(est[0] - 1) < 0.1 and abs(est[1]) < 0.1)
        True
        """
        i = self._check_level(level)
        return self.level_mechanism(i).estimate_values(reports, prefixes)

    def _level(
        self,
        reports: np.ndarray,
        level: int,
        parents: np.ndarray,
        parent_bits: int,
    ) -> tuple[np.ndarray, np.ndarray, float, int]:
        """Candidates (children of ``parents``), their estimates, the noise sd, the users."""
        extra = self._lengths[level] - parent_bits
        children = np.arange(1 << extra, dtype=np.int64)
        candidates = ((parents[:, None] << extra) | children[None, :]).ravel()
        mech = self.level_mechanism(level)
        estimates = mech.estimate_values(reports, candidates)
        users = int(reports.shape[0])
        sd = math.sqrt(float(mech.variance(users)))
        return candidates, estimates, sd, users

    def run(self, values: ArrayLike, rng: object = None) -> HeavyHitters:
        """Simulate the whole protocol: :meth:`privatize` then ``identify``.

        Parameters
        ----------
        values : array_like of int
            One ``bits``-bit value per user.
        rng : None, int, numpy Generator or "os"
            Source of randomness.

        Returns
        -------
        HeavyHitters
            The found items.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import TreeHist
        >>> found = TreeHist(4.0, bits=12, step=4).run(np.repeat([5, 4000], 20_000), rng=0)
        >>> sorted(int(v) for v in found.items)
        [5, 4000]
        """
        return self.identify(self.privatize(values, rng=rng))

    def identify(self, reports: Sequence[ArrayLike]) -> HeavyHitters:  # pragma: no cover
        raise NotImplementedError

    def _method(self, name: str, citation: str) -> str:
        return f"{name}, {citation}, with {self._oracle}"


class PEM(_PrefixSearch):
    """The prefix-extending method of Wang-Li-Jha (2019): the top ``k`` of ``bits``-bit values.

    Levels have prefix lengths ``s0, s0 + step, ...`` up to ``bits`` with
    ``s0 = floor(log2 k) + 1`` (as in the authors' code), one group of users per level. The
    first level estimates all ``2^s0`` prefixes; every level keeps its ``k`` largest estimates
    and the next one estimates their ``2^step`` extensions (``k 2^step`` candidates). A longer
    ``step`` means fewer groups (more users, less noise per level) but more candidates (a
    larger maximum of the noise, more computation).

    Parameters
    ----------
    epsilon : float
        Privacy level of each user's single report, in ``[1e-6, 700]``.
    bits : int
        Length of the values, ``1 .. MAX_BITS``.
    k : int
        Number of items to find, ``>= 1``.
    step : int, optional
        Bits added per level; by default the largest with at most 256 candidates per
        level (``k 2^step <= 256``), at least 1.
    start_bits : int, optional
        First prefix length; by default ``floor(log2 k) + 1`` (at most ``bits``).
    oracle : {"OLH", "BLH", "GRR", "HR"}
        The frequency oracle of every level (OLH, as in the paper, by default).

    Examples
    --------
    >>> from ldp.tasks import PEM
    >>> pem = PEM(4.0, bits=32, k=20)
    >>> pem.step, pem.lengths[:3], pem.groups, round(pem.epsilon, 12)
    (3, (5, 8, 11), 10, 4.0)
    """

    name = "PEM"

    def __init__(
        self,
        epsilon: float,
        bits: int = 32,
        k: int = 20,
        step: int | None = None,
        start_bits: int | None = None,
        oracle: str = "OLH",
    ) -> None:
        super().__init__(epsilon, bits, oracle)
        self._k = check_integer(k, "k", low=1)
        if step is None:
            step = max(1, math.floor(math.log2(256 / self._k)))
        self._step = check_integer(step, "step", low=1)
        if start_bits is None:
            start_bits = min(self._bits, self._k.bit_length())  # floor(log2 k) + 1
        s0 = check_integer(start_bits, "start_bits", low=1)
        if s0 > self._bits:
            raise ValueError(f"start_bits must be <= bits = {self._bits}, got {s0}")
        lengths = [s0]
        while lengths[-1] < self._bits:
            lengths.append(min(self._bits, lengths[-1] + self._step))
        self._lengths = tuple(lengths)

    @property
    def k(self) -> int:
        """Number of items to find."""
        return self._k

    @property
    def step(self) -> int:
        """Bits added per level."""
        return self._step

    def __repr__(self) -> str:
        return (
            f"PEM(epsilon={self._eps_budget!r}, bits={self._bits}, k={self._k}, "
            f"step={self._step}, start_bits={self._lengths[0]}, oracle={self._oracle!r})"
        )

    def identify(self, reports: Sequence[ArrayLike]) -> HeavyHitters:
        """The top ``k`` items from the reports of every group.

        Parameters
        ----------
        reports : sequence of array_like
            One report array per group, in level order (as :meth:`privatize` returns them).

        Returns
        -------
        HeavyHitters
            Up to ``k`` items, largest estimate first, with the last level's estimates.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import PEM
        >>> pem = PEM(4.0, bits=16, k=1)
        >>> reports = pem.privatize(np.full(20_000, 0xBEEF), rng=0)
        >>> hex(int(pem.identify(reports).items[0]))
        '0xbeef'
        """
        groups = self._check_reports(reports)
        kept = np.zeros(1, dtype=np.int64)
        parent_bits = 0
        levels = []
        estimates = np.zeros(0)
        for i, r in enumerate(groups):
            candidates, estimates, sd, users = self._level(r, i, kept, parent_bits)
            order = np.argsort(-estimates, kind="stable")[: self._k]
            kept = candidates[order]
            levels.append(
                HeavyHitterLevel(self._lengths[i], users, candidates, estimates, kept, sd)
            )
            estimates = estimates[order]
            parent_bits = self._lengths[i]
        return HeavyHitters(
            kept,
            estimates,
            sum(int(r.shape[0]) for r in groups),
            self.epsilon,
            self._bits,
            self._method("PEM", "Wang-Li-Jha (2019)"),
            tuple(levels),
        )


class TreeHist(_PrefixSearch):
    """TreeHist after Bassily-Nissim-Stemmer-Thakurta (2017): a thresholded prefix-tree walk,
    then a separate group estimates the surviving leaves.

    Levels have prefix lengths ``step, 2 step, ...`` up to ``bits``, one group of users each,
    and one more group reports the full value. A level estimates the ``2^step`` children of
    every prefix kept above and keeps those whose estimate reaches ``threshold`` (at most
    ``max_width`` of them, the largest). The default threshold of a level with ``m``
    candidates and ``L`` tree levels is ``z sd`` with ``z = Phi^-1(1 - beta / (m L))`` and
    ``sd`` the standard deviation of a zero-frequency estimate: a union bound over the walk
    on the normal approximation. The paper's threshold is of the same order,
    ``sqrt(log(d / beta) / (n epsilon^2))`` per level, with its own constant. Here every user
    reports once at the full epsilon (the pure-LDP implementation instead sends two reports
    at ``epsilon / 2``).

    Parameters
    ----------
    epsilon : float
        Privacy level of each user's single report, in ``[1e-6, 700]``.
    bits : int
        Length of the values, ``1 .. MAX_BITS``.
    step : int
        Bits added per level (1 for the paper's binary tree; default 4).
    threshold : float, optional
        The frequency (a fraction of the users, in ``(0, 1]``) a prefix must reach at
        every level; by default the union-bound threshold above.
    beta : float
        Probability budget of the default threshold, in ``(0, 1)``.
    max_width : int
        Most prefixes kept per level (bounds the work: a level estimates at most
        ``max_width 2^step`` candidates).
    k : int, optional
        Report only the ``k`` largest final estimates (all survivors by default).
    oracle : {"OLH", "BLH", "GRR", "HR"}
        The frequency oracle of every group.

    Examples
    --------
    >>> from ldp.tasks import TreeHist
    >>> tree = TreeHist(4.0, bits=32)
    >>> tree.lengths[:3], tree.groups, round(tree.epsilon, 12)
    ((4, 8, 12), 9, 4.0)
    """

    name = "TreeHist"

    def __init__(
        self,
        epsilon: float,
        bits: int = 32,
        step: int = 4,
        threshold: float | None = None,
        beta: float = 0.05,
        max_width: int = 64,
        k: int | None = None,
        oracle: str = "OLH",
    ) -> None:
        super().__init__(epsilon, bits, oracle)
        self._step = check_integer(step, "step", low=1)
        if threshold is not None:
            threshold = check_scalar(threshold, "threshold")
            if not 0.0 < threshold <= 1.0:
                raise ValueError(
                    f"threshold is a frequency (a fraction of the users) in (0, 1], got "
                    f"{threshold!r}"
                )
        self._threshold = threshold
        self._beta = check_scalar(beta, "beta")
        if not 0.0 < self._beta < 1.0:
            raise ValueError(f"beta must lie in (0, 1), got {self._beta!r}")
        self._max_width = check_integer(max_width, "max_width", low=1)
        self._top = None if k is None else check_integer(k, "k", low=1)
        tree = [*range(self._step, self._bits, self._step), self._bits]
        self._lengths = (*tree, self._bits)  # the tree levels, then the final group

    @property
    def step(self) -> int:
        """Bits added per level."""
        return self._step

    @property
    def tree_levels(self) -> int:
        """Levels of the walk (the groups but the final one)."""
        return self.groups - 1

    def __repr__(self) -> str:
        return (
            f"TreeHist(epsilon={self._eps_budget!r}, bits={self._bits}, step={self._step}, "
            f"threshold={self._threshold!r}, beta={self._beta!r}, "
            f"max_width={self._max_width}, k={self._top!r}, oracle={self._oracle!r})"
        )

    def level_threshold(self, sd: float, candidates: int) -> float:
        """The frequency a candidate must reach at a level with noise ``sd``.

        Parameters
        ----------
        sd : float
            Standard deviation of a zero-frequency estimate at the level.
        candidates : int
            Number of candidates estimated at the level.

        Returns
        -------
        float
            ``threshold`` if one was given, else ``Phi^-1(1 - beta / (candidates L)) sd``.

        Examples
        --------
        >>> from ldp.tasks import TreeHist
        >>> round(TreeHist(1.0, bits=8, step=4, beta=0.05).level_threshold(0.01, 25), 6)
        0.030902
        """
        if self._threshold is not None:
            return self._threshold
        m = check_integer(candidates, "candidates", low=1)
        return float(-ndtri(self._beta / (m * self.tree_levels))) * float(sd)

    def identify(self, reports: Sequence[ArrayLike]) -> HeavyHitters:
        """The leaves that pass every level, estimated by the final group.

        Parameters
        ----------
        reports : sequence of array_like
            One report array per group, in level order (the final group last).

        Returns
        -------
        HeavyHitters
            The surviving items (the ``k`` largest if ``k`` was given), largest final
            estimate first; their estimates come from the final group, whose reports played
            no part in the selection, so they are unbiased given it.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import TreeHist
        >>> tree = TreeHist(4.0, bits=8, step=4)
        >>> reports = tree.privatize(np.repeat([17, 230], [6000, 3000]), rng=0)
        >>> found = tree.identify(reports)
        >>> [int(v) for v in found.items], bool(abs(found.frequencies[0] - 2 / 3) < 0.05)
        ([17, 230], True)
        """
        groups = self._check_reports(reports)
        kept = np.zeros(1, dtype=np.int64)
        parent_bits = 0
        levels = []
        for i in range(self.tree_levels):
            candidates, estimates, sd, users = self._level(groups[i], i, kept, parent_bits)
            tau = self.level_threshold(sd, candidates.size)
            order = np.argsort(-estimates, kind="stable")[: self._max_width]
            order = order[estimates[order] >= tau]
            kept = candidates[order]
            levels.append(
                HeavyHitterLevel(self._lengths[i], users, candidates, estimates, kept, sd, tau)
            )
            parent_bits = self._lengths[i]
            if kept.size == 0:
                break
        last = self.groups - 1
        final = groups[last]
        mech = self.level_mechanism(last)
        estimates = mech.estimate_values(final, kept) if kept.size else np.zeros(0)
        order = np.argsort(-estimates, kind="stable")[: self._top]
        sd = math.sqrt(float(mech.variance(int(final.shape[0]))))
        levels.append(
            HeavyHitterLevel(self._bits, int(final.shape[0]), kept, estimates, kept[order], sd)
        )
        return HeavyHitters(
            kept[order],
            estimates[order],
            sum(int(r.shape[0]) for r in groups),
            self.epsilon,
            self._bits,
            self._method("TreeHist", "Bassily-Nissim-Stemmer-Thakurta (2017)"),
            tuple(levels),
        )


# --------------------------------------------------------------------------- one call
_METHODS = {"pem": PEM, "treehist": TreeHist}


def heavy_hitters(
    values: ArrayLike | Iterable[str | bytes],
    epsilon: float,
    k: int = 20,
    *,
    method: str = "pem",
    bits: int = 32,
    encoding: str = "hash",
    rng: object = None,
    **options: object,
) -> HeavyHitters:
    """Find the ``k`` most frequent values of a population under ``epsilon``-LDP (simulated).

    Strings (or bytes) are first mapped to ``bits``-bit codes by :func:`encode_strings`;
    integers must already lie in ``0 .. 2^bits - 1``. The users are split into groups and
    each reports one prefix once (see :class:`PEM` and :class:`TreeHist`).

    Parameters
    ----------
    values : array_like of int, or iterable of str or bytes
        One value per user.
    epsilon : float
        Privacy level of each user's single report.
    k : int
        Number of items to find (TreeHist: the most it reports).
    method : {"pem", "treehist"}
        The search.
    bits : int
        Length of the codes, ``1 .. MAX_BITS``.
    encoding : {"hash", "bytes"}
        How strings become codes (ignored for integers).
    rng : None, int, numpy Generator or "os"
        Source of randomness.
    **options
        Further parameters of :class:`PEM` (``step``, ``start_bits``, ``oracle``) or
        :class:`TreeHist` (``step``, ``threshold``, ``beta``, ``max_width``, ``oracle``).

    Returns
    -------
    HeavyHitters
        The found items (codes; for ``encoding="bytes"`` decode them with
        :func:`decode_strings`, for ``"hash"`` name them with :meth:`HeavyHitters.labels`).

    Examples
    --------
    >>> from ldp.tasks import decode_strings, heavy_hitters
    >>> rare = [f"w{i % 900}" for i in range(12000)]
    >>> words = ["the"] * 9000 + ["of"] * 6000 + ["a"] * 3000 + rare
    >>> found = heavy_hitters(words, 4.0, k=4, encoding="bytes", rng=0)
    >>> decode_strings(found.items[:3], bits=32)
    ['the', 'of', 'a']
    """
    if method not in _METHODS:
        raise ValueError(f"method must be 'pem' or 'treehist', got {describe(method)}")
    if isinstance(values, (str, bytes)):
        raise TypeError("values must hold one value per user, not be a single string")
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None:
        listed = list(values)  # type: ignore[arg-type]
        if listed and all(isinstance(v, (str, bytes)) for v in listed):
            arr = encode_strings(listed, bits, encoding)  # type: ignore[arg-type]
        else:
            arr = np.asarray(listed)
    elif arr.dtype.kind in "USO" and arr.size:
        arr = encode_strings(arr.tolist(), bits, encoding)
    if method == "pem":
        search: _PrefixSearch = PEM(epsilon, bits, k, **options)  # type: ignore[arg-type]
    else:
        search = TreeHist(epsilon, bits, k=k, **options)  # type: ignore[arg-type]
    return search.run(arr, rng)
