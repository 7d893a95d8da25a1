"""The results of a heavy-hitter search: the items found, level by level."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ldp.mechanisms.limits import check_categories
from ldp.tasks.strings import encode_strings

__all__ = ["HeavyHitterLevel", "HeavyHitters"]


# --------------------------------------------------------------------------- results
def _frozen_array(values: ArrayLike, dtype: type) -> np.ndarray:
    out: np.ndarray = np.array(values, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class HeavyHitterLevel:
    """One level of a prefix-tree search: what its group estimated and what it kept.

    Parameters
    ----------
    prefix_bits : int
        Length of this level's prefixes.
    users : int
        Users in this level's group.
    candidates : ndarray of int64
        The prefixes estimated (children of the prefixes kept one level up).
    estimates : ndarray of float64
        Their unbiased frequency estimates (one per candidate).
    kept : ndarray of int64
        The prefixes passed on (largest estimate first).
    sd : float
        Standard deviation of the estimate of a prefix of frequency zero (the oracle's exact
        variance over ``users`` reports).
    threshold : float or None
        The frequency a candidate had to reach (TreeHist); ``None`` for a top-``k`` level.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks import PEM
    >>> found = PEM(2.0, bits=8, k=2).run(np.repeat([3, 200], 5000), rng=0)
    >>> level = found.levels[0]
    >>> level.prefix_bits, level.candidates.size, level.kept.size
    (2, 4, 2)
    """

    prefix_bits: int
    users: int
    candidates: np.ndarray
    estimates: np.ndarray
    kept: np.ndarray
    sd: float
    threshold: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "candidates", _frozen_array(self.candidates, np.int64))
        object.__setattr__(self, "estimates", _frozen_array(self.estimates, np.float64))
        object.__setattr__(self, "kept", _frozen_array(self.kept, np.int64))
        if self.candidates.shape != self.estimates.shape:
            raise ValueError("candidates and estimates must have the same length")


@dataclass(frozen=True, eq=False)
class HeavyHitters:
    """The items a heavy-hitter search found, with estimated frequencies, largest first.

    Parameters
    ----------
    items : ndarray of int64
        The found ``bits``-bit values.
    frequencies : ndarray of float64
        Their estimated frequencies (fractions of the ``n`` users).
    n : int
        Number of users (all groups).
    epsilon : float
        The protocol's privacy level: every user sent one report of one level oracle, and
        this is the largest of their computed epsilons.
    bits : int
        Length of the values.
    method : str
        The search and its oracle, with the citation.
    levels : tuple of HeavyHitterLevel
        What each level estimated and kept (the last one of TreeHist is the final group).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks import heavy_hitters
    >>> values = np.repeat([7, 9, 300, 1000], [4000, 3000, 2000, 11000])
    >>> found = heavy_hitters(values, 4.0, k=3, bits=10, rng=0)
    >>> [int(v) for v in found.items], found.n
    ([1000, 7, 9], 20000)
    >>> found.recall([1000, 7, 9, 300])
    0.75
    """

    items: np.ndarray
    frequencies: np.ndarray
    n: int
    epsilon: float
    bits: int
    method: str
    levels: tuple[HeavyHitterLevel, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", _frozen_array(self.items, np.int64))
        object.__setattr__(self, "frequencies", _frozen_array(self.frequencies, np.float64))
        object.__setattr__(self, "levels", tuple(self.levels))
        if self.items.shape != self.frequencies.shape:
            raise ValueError("items and frequencies must have the same length")

    @property
    def counts(self) -> np.ndarray:
        """Estimated numbers of users, ``frequencies * n``."""
        return self.frequencies * self.n

    def recall(self, true_items: ArrayLike) -> float:
        """The fraction of ``true_items`` (e.g. the true top ``k``) among the found ``items``.

        Parameters
        ----------
        true_items : array_like of int
            The items that should have been found (at least one).

        Returns
        -------
        float
            In ``[0, 1]``.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import HeavyHitters
        >>> HeavyHitters(np.array([1, 2]), np.array([0.5, 0.2]), 10, 1.0, 4, "", ()).recall([2, 3])
        0.5
        """
        truth = np.unique(
            check_categories(np.atleast_1d(np.asarray(true_items)), 1 << self.bits, "true_items")
        )
        if truth.size == 0:
            raise ValueError("true_items must name at least one item")
        return float(np.isin(truth, self.items).mean())

    def labels(self, vocabulary: Iterable[str | bytes], method: str = "hash") -> list[list[str]]:
        """Name the found items: the strings of ``vocabulary`` that encode to each of them.

        Parameters
        ----------
        vocabulary : iterable of str or bytes
            Candidate strings known to the server (a dictionary, a crawl, past releases).
        method : {"hash", "bytes"}
            The encoding the users applied (:func:`encode_strings`).

        Returns
        -------
        list of list of str
            For each found item, the matching strings (empty when none matches).

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.tasks import HeavyHitters, encode_strings
        >>> code = encode_strings(["cat"], bits=20)
        >>> found = HeavyHitters(code, np.array([0.4]), 100, 1.0, 20, "", ())
        >>> found.labels(["dog", "cat", "eel"])
        [['cat']]
        """
        words = [w if isinstance(w, str) else w.decode("utf-8", "replace") for w in vocabulary]
        codes = encode_strings(words, self.bits, method)
        return [[w for w, c in zip(words, codes) if c == item] for item in self.items]
