"""Pictures of privacy, following scikit-learn's Display pattern.

Each display computes its data at construction (``from_*`` class methods), draws it with
``plot(ax=None)`` and keeps ``ax_``, ``figure_`` and the drawn ``lines_``. matplotlib is an
optional extra (``pip install "ldpkit[plots]"``) imported only when something is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ldp._progress import progress as show_progress
from ldp._validation import as_real_array
from ldp.channel import Channel

__all__ = ["PrivacyProfileDisplay", "PrivacyUtilityDisplay"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError('plotting needs matplotlib: pip install "ldpkit[plots]"') from exc
    return plt


def _axes(ax):
    if ax is None:
        _, ax = _pyplot().subplots()
    return ax


def _levels(values: ArrayLike | None, default: np.ndarray, name: str) -> np.ndarray:
    if values is None:
        return default
    levels = as_real_array(values, name)
    if levels.ndim != 1 or levels.size < 2 or np.any(levels < 0):
        raise ValueError(f"{name} must be a 1-D array of at least two levels >= 0")
    return levels


class PrivacyProfileDisplay:
    """The privacy profile ``delta(eps)`` of one or more channels.

    Parameters
    ----------
    epsilons : ndarray
        Levels on the horizontal axis.
    deltas : dict[str, ndarray]
        One curve per label.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import ldp
    >>> from ldp.plotting import PrivacyProfileDisplay
    >>> display = PrivacyProfileDisplay.from_channels(
    ...     {"4-RR": ldp.k_rr(4, 1.0), "erasure": ldp.binary_erasure(1.0, 0.01, 0.3)})
    >>> [line.get_label() for line in display.lines_]
    ['4-RR', 'erasure']
    """

    def __init__(self, epsilons: np.ndarray, deltas: dict[str, np.ndarray]) -> None:
        self.epsilons = epsilons
        self.deltas = deltas

    @classmethod
    def from_channels(
        cls,
        channels: dict[str, Channel] | Channel,
        epsilons: ArrayLike | None = None,
        *,
        ax=None,
    ) -> PrivacyProfileDisplay:
        """Compute each channel's exact profile and plot it."""
        if isinstance(channels, Channel):
            channels = {"channel": channels}
        if not channels or not all(isinstance(c, Channel) for c in channels.values()):
            raise TypeError("channels must be a Channel or a non-empty dict of Channels")
        finite = [c.epsilon for c in channels.values() if np.isfinite(c.epsilon)]
        top = 1.25 * max(finite) if finite and max(finite) > 0 else 3.0
        levels = _levels(epsilons, np.linspace(0.0, top, 101), "epsilons")
        deltas = {name: np.asarray(c.delta(levels)) for name, c in channels.items()}
        return cls(levels, deltas).plot(ax=ax)

    def plot(self, ax=None, **line_kwargs) -> PrivacyProfileDisplay:
        """Draw the curves; returns ``self`` with ``ax_``, ``figure_``, ``lines_``."""
        ax = _axes(ax)
        self.lines_ = [
            ax.plot(self.epsilons, values, label=name, **line_kwargs)[0]
            for name, values in self.deltas.items()
        ]
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(r"tight $\delta(\varepsilon)$")
        ax.set_ylim(bottom=0.0)
        ax.legend()
        self.ax_, self.figure_ = ax, ax.figure
        return self


class PrivacyUtilityDisplay:
    """Privacy-utility curves: the optimizer's value against the standard mechanisms.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from ldp.plotting import PrivacyUtilityDisplay
    >>> display = PrivacyUtilityDisplay.from_design(4, [0.5, 1.0, 2.0], utility="mi")
    >>> sorted(display.values)
    ['binary', 'k-RR', 'optimum', 'subset selection']
    """

    def __init__(self, epsilons: np.ndarray, values: dict[str, np.ndarray], utility: str):
        self.epsilons = epsilons
        self.values = values
        self.utility = utility

    @classmethod
    def from_design(
        cls,
        k: int,
        epsilons: Sequence[float],
        *,
        utility: str,
        prior: ArrayLike | None = None,
        hypotheses=None,
        progress: bool = False,
        ax=None,
    ) -> PrivacyUtilityDisplay:
        """Run :func:`ldp.design.compare` at each epsilon and plot the values."""
        from ldp.design import compare

        levels = _levels(epsilons, np.array([]), "epsilons")
        if not isinstance(utility, str):
            raise TypeError("utility must be a named utility, e.g. 'mi' or 'kl'")
        values: dict[str, list[float]] = {}
        for eps in show_progress(list(levels), progress, desc="privacy-utility"):
            table = compare(k, float(eps), utility=utility, prior=prior, hypotheses=hypotheses)
            for name, value in zip(table.mechanism, table.value, strict=True):
                values.setdefault(name, []).append(float(value))
        arrays = {name: np.asarray(v) for name, v in values.items() if len(v) == len(levels)}
        return cls(levels, arrays, utility).plot(ax=ax)

    def plot(self, ax=None, **line_kwargs) -> PrivacyUtilityDisplay:
        """Draw the curves; returns ``self`` with ``ax_``, ``figure_``, ``lines_``."""
        ax = _axes(ax)
        self.lines_ = [
            ax.plot(self.epsilons, v, marker="o", label=name, **line_kwargs)[0]
            for name, v in self.values.items()
        ]
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(f"utility ({self.utility})")
        ax.legend()
        self.ax_, self.figure_ = ax, ax.figure
        return self
