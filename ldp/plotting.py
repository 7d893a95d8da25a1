"""Pictures of privacy, following scikit-learn's Display pattern.

Each display computes its data at construction (``from_*`` class methods), draws it with
``plot(ax=None, title=None)`` and keeps ``ax_``, ``figure_``, the drawn ``lines_`` and the
``legend_``. matplotlib is an optional extra (``pip install ".[plots]"`` from a checkout, or
``pip install matplotlib``) imported only when something is drawn.

Every display has a title, gives each curve a line style (and marker) of its own so that
curves that coincide stay distinguishable, labels curves briefly (the full citation is in the
data attributes and the docstrings), and places its legend inside the axes where it hides no
drawn point; when every such place would hide one, the legend goes beside the axes and the
figure's layout is tightened so that it stays inside the figure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._progress import progress as show_progress
from ldp._validation import as_real_array
from ldp.channel import Channel

__all__ = [
    "ContractionDisplay",
    "PrivacyProfileDisplay",
    "PrivacyUtilityDisplay",
    "RiskDisplay",
    "ShuffleDisplay",
    "TradeOffDisplay",
]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "plotting needs matplotlib: pip install matplotlib (from a checkout of ldpkit: "
            'pip install ".[plots]")'
        ) from exc
    return plt


def _axes(ax):
    if ax is None:
        _, ax = _pyplot().subplots()
    return ax


#: Line styles and markers given to successive curves (cycled).
STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P")
#: Legend locations tried, in order, inside the axes.
LEGEND_LOCATIONS = (
    "upper right",
    "upper left",
    "lower left",
    "lower right",
    "center right",
    "center left",
    "upper center",
    "lower center",
)


def _style(index: int, line_kwargs: dict, *, marker: bool = False) -> dict:
    """Keywords of the ``index``-th curve: its own line style (and hollow marker, drawn
    smaller for later curves so that coinciding points stay visible); the caller's keywords
    win."""
    out: dict[str, Any] = {}
    if "ls" not in line_kwargs and "linestyle" not in line_kwargs:
        out["linestyle"] = STYLES[index % len(STYLES)]
    if marker and "marker" not in line_kwargs:
        out.update(
            marker=MARKERS[index % len(MARKERS)],
            markersize=max(4.0, 10.0 - 2.0 * index),
            markerfacecolor="none",
        )
    out.update(line_kwargs)
    return out


def _points(line) -> np.ndarray:
    """The drawn vertices of ``line`` in display coordinates (finite ones only)."""
    xy = np.column_stack(
        [np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)]
    )
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    if line.axes.get_xscale() == "log" or line.axes.get_yscale() == "log":
        xy = xy[np.all(xy > 0, axis=1)]
    return line.get_transform().transform(xy) if xy.size else xy.reshape(0, 2)


def hidden_points(legend, lines) -> int:
    """How many drawn vertices of ``lines`` lie under ``legend`` (display coordinates)."""
    renderer = legend.figure.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    total = 0
    for line in lines:
        xy = _points(line)
        inside = (
            (xy[:, 0] >= box.x0)
            & (xy[:, 0] <= box.x1)
            & (xy[:, 1] >= box.y0)
            & (xy[:, 1] <= box.y1)
        )
        total += int(inside.sum())
    return total


def _finish(ax, lines: list, title: str, **legend_kwargs: Any):
    """Title the axes and place the legend where it hides no point of ``lines``."""
    ax.set_title(title)
    ax.figure.canvas.draw()  # fixes the view limits the placement depends on
    for loc in LEGEND_LOCATIONS:
        legend = ax.legend(loc=loc, **legend_kwargs)
        if hidden_points(legend, lines) == 0:
            return legend
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), **legend_kwargs)
    ax.figure.tight_layout()
    return legend


def _short(label: str) -> str:
    """A legend label: the head of a method description and its first citation."""
    head = re.split(r" \(|, ", label, maxsplit=1)[0]
    cited = re.search(
        r"[A-Z][\w'-]+(?: et al\.)? \(\d{4}\)(?:, (?:Theorem|Corollary|Lemma|Proposition) [\w.]+)?",
        label,
    )
    return head if cited is None or cited.group(0) in head else f"{head}, {cited.group(0)}"


def _role(role: str, label: str) -> str:
    """A legend label that says what the curve is (``lower bound: van Trees``)."""
    short = _short(label) if label else ""
    return role if short in ("", role) else f"{role}: {short}"


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

    def plot(self, ax=None, *, title: str | None = None, **line_kwargs) -> PrivacyProfileDisplay:
        """Draw the curves; returns ``self`` with ``ax_``, ``figure_``, ``lines_``,
        ``legend_``."""
        ax = _axes(ax)
        self.lines_ = [
            ax.plot(self.epsilons, values, label=name, **_style(i, line_kwargs))[0]
            for i, (name, values) in enumerate(self.deltas.items())
        ]
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(r"tight $\delta(\varepsilon)$")
        ax.set_ylim(bottom=0.0)
        self.legend_ = _finish(ax, self.lines_, title or r"Privacy profile $\delta(\varepsilon)$")
        self.ax_, self.figure_ = ax, ax.figure
        return self


class PrivacyUtilityDisplay:
    """Privacy-utility curves: the optimizer's value against the standard mechanisms.

    Parameters
    ----------
    epsilons : ndarray
        Levels on the horizontal axis.
    values : dict[str, ndarray]
        One curve per mechanism (``"optimum"`` is the optimizer's value).
    utility : str
        The utility being compared (axis label).

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

    def plot(self, ax=None, *, title: str | None = None, **line_kwargs) -> PrivacyUtilityDisplay:
        """Draw the curves (curves that coincide, such as the optimum and subset selection,
        keep distinct styles and nested markers); returns ``self`` with ``ax_``, ``figure_``,
        ``lines_``, ``legend_``."""
        ax = _axes(ax)
        self.lines_ = [
            ax.plot(self.epsilons, v, label=name, **_style(i, line_kwargs, marker=True))[0]
            for i, (name, v) in enumerate(self.values.items())
        ]
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(f"utility ({self.utility})")
        self.legend_ = _finish(
            ax, self.lines_, title or f"Utility ({self.utility}) against privacy"
        )
        self.ax_, self.figure_ = ax, ax.figure
        return self


# ------------------------------------------------------------------------------- trade-off
def _named(objects: object, kind: type, what: str) -> dict:
    if isinstance(objects, kind):
        return {what: objects}
    if (
        not isinstance(objects, dict)
        or not objects
        or not all(isinstance(v, kind) for v in objects.values())
    ):
        raise TypeError(f"expected a {kind.__name__} or a non-empty dict of them, got {objects!r}")
    return dict(objects)


class TradeOffDisplay:
    r"""Trade-off curves ``beta(alpha)`` (f-DP), with :math:`f_{\varepsilon,\delta}` and
    :math:`G_\mu` for comparison.

    The comparison curves are the tightest ones that the first curve satisfies: by default
    :math:`f_{\varepsilon,\delta}` at the curve's pure epsilon (or at ``epsilon = 1`` with
    its ``delta(1)`` when it is not pure), and :math:`G_\mu` with the smallest such ``mu``
    (:func:`~ldp.accounting.get_mu_from_tradeoff`; left out when it is infinite).

    Parameters
    ----------
    alphas : ndarray
        Type-I errors on the horizontal axis.
    curves : dict[str, ndarray]
        ``beta`` of each curve at ``alphas``.
    references : dict[str, ndarray]
        The comparison curves at ``alphas``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import ldp
    >>> from ldp.plotting import TradeOffDisplay
    >>> display = TradeOffDisplay.from_channel({"4-RR": ldp.k_rr(4, 1.0)})
    >>> [line.get_label() for line in display.lines_]
    ['4-RR', '$f_{\\varepsilon,\\delta}$, ε=1, δ=0', '$G_\\mu$, μ=0.873']
    """

    def __init__(
        self,
        alphas: np.ndarray,
        curves: dict[str, np.ndarray],
        references: dict[str, np.ndarray],
    ) -> None:
        self.alphas = alphas
        self.curves = curves
        self.references = references

    @classmethod
    def from_tradeoff(
        cls,
        tradeoffs: object,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        mu: float | None = None,
        alphas: ArrayLike | None = None,
        ax=None,
    ) -> TradeOffDisplay:
        """Plot trade-off functions (:class:`~ldp.accounting.TradeOffFunction`, or a dict).

        ``epsilon``/``delta`` choose the :math:`f_{\\varepsilon,\\delta}` reference (``delta``
        defaults to the first curve's ``delta(epsilon)``); ``mu`` the :math:`G_\\mu` one.
        """
        from ldp.accounting import (
            EpsDeltaTradeOff,
            GaussianTradeOff,
            TradeOffFunction,
            get_mu_from_tradeoff,
        )

        named = _named(tradeoffs, TradeOffFunction, "f")
        grid = np.linspace(0.0, 1.0, 501) if alphas is None else as_real_array(alphas, "alphas")
        if grid.ndim != 1 or grid.size < 2 or np.any((grid < 0) | (grid > 1)):
            raise ValueError("alphas must be a 1-D array of at least two values in [0, 1]")
        first = next(iter(named.values()))
        if epsilon is None:
            eps = float(first.epsilon_for_delta(0.0 if delta is None else delta))
            d = 0.0 if delta is None else float(delta)
            if math.isinf(eps):
                eps, d = 1.0, float(first.delta(1.0))
        else:
            eps = float(epsilon)
            d = float(first.delta(eps)) if delta is None else float(delta)
        references = {
            rf"$f_{{\varepsilon,\delta}}$, ε={eps:.3g}, δ={d:.3g}": np.asarray(
                EpsDeltaTradeOff(eps, d)(grid), dtype=np.float64
            )
        }
        if mu is None:
            try:
                mu = get_mu_from_tradeoff(first)
            except TypeError:  # not piecewise linear nor Gaussian
                mu = math.inf
        if math.isfinite(mu):
            references[rf"$G_\mu$, μ={mu:.3g}"] = np.asarray(
                GaussianTradeOff(mu)(grid), dtype=np.float64
            )
        curves = {name: np.asarray(f(grid), dtype=np.float64) for name, f in named.items()}
        return cls(grid, curves, references).plot(ax=ax)

    @classmethod
    def from_channel(cls, channels: dict[str, Channel] | Channel, **kwargs: Any) -> TradeOffDisplay:
        """Plot the worst-case trade-off curve of each channel (keywords: see
        :meth:`from_tradeoff`)."""
        from ldp.accounting import tradeoff_from_channel

        named = _named(channels, Channel, "channel")
        curves = {name: tradeoff_from_channel(c) for name, c in named.items()}
        return cls.from_tradeoff(curves, **kwargs)

    @classmethod
    def from_composition(cls, compositions: object, **kwargs: Any) -> TradeOffDisplay:
        """Plot the trade-off curve of each :class:`~ldp.accounting.Composition` (keywords:
        see :meth:`from_tradeoff`)."""
        from ldp.accounting import Composition

        named = _named(compositions, Composition, "composition")
        return cls.from_tradeoff({name: c.tradeoff for name, c in named.items()}, **kwargs)

    def plot(self, ax=None, *, title: str | None = None, **line_kwargs) -> TradeOffDisplay:
        """Draw the curves (solid, dash-dot, ...) and the references (grey, dashed and
        dotted); returns ``self`` with ``ax_``, ``figure_``, ``lines_``, ``legend_``."""
        ax = _axes(ax)
        self.lines_ = [
            ax.plot(self.alphas, beta, label=name, **_style(2 * i, line_kwargs))[0]
            for i, (name, beta) in enumerate(self.curves.items())
        ]
        for style, (name, beta) in zip(("--", ":"), self.references.items()):
            self.lines_.append(ax.plot(self.alphas, beta, style, color="grey", label=name)[0])
        ax.plot([0, 1], [1, 0], color="lightgrey", linewidth=0.8, zorder=0)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.0)
        ax.set_aspect("equal")
        ax.set_xlabel(r"type I error $\alpha$")
        ax.set_ylabel(r"type II error $\beta$")
        self.legend_ = _finish(ax, self.lines_, title or "Trade-off curves (f-DP)")
        self.ax_, self.figure_ = ax, ax.figure
        return self


# ----------------------------------------------------------------------------- contraction
_FAMILIES = ("rr", "k-rr", "binary-erasure")
_KINDS = ("tv", "kl", "chi2", "hellinger")


class ContractionDisplay:
    """Exact contraction coefficients of a mechanism family against epsilon, with the best
    theorem bound for each (:meth:`ldp.Channel.contraction_bound`).

    Parameters
    ----------
    epsilons : ndarray
        Levels on the horizontal axis.
    exact, bounds : dict[str, ndarray]
        Per kind (``"tv"``, ``"kl"``, ...), the coefficient and its bound at each level.
    theorems : dict[str, list[str]]
        Per kind, the theorem that gave each bound.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from ldp.plotting import ContractionDisplay
    >>> display = ContractionDisplay.from_family("k-rr", [0.5, 1.0, 2.0], k=4)
    >>> [line.get_label() for line in display.lines_]
    ['tv', 'tv bound', 'kl', 'kl bound', 'chi2', 'chi2 bound']
    >>> set(display.theorems["kl"])
    {'Ghazi-Issa (2023), Theorem 5'}
    """

    def __init__(
        self,
        epsilons: np.ndarray,
        exact: dict[str, np.ndarray],
        bounds: dict[str, np.ndarray],
        theorems: dict[str, list[str]],
        family: str = "",
    ) -> None:
        self.epsilons = epsilons
        self.exact = exact
        self.bounds = bounds
        self.theorems = theorems
        self.family = family

    @classmethod
    def from_family(
        cls,
        family: str | Callable[[float], Channel],
        epsilons: ArrayLike | None = None,
        *,
        k: int = 2,
        delta: float = 0.0,
        eta: float | None = None,
        kinds: Sequence[str] = ("tv", "kl", "chi2"),
        progress: bool = False,
        ax=None,
    ) -> ContractionDisplay:
        """Compute the coefficients of ``family`` at each epsilon and plot them.

        ``family`` is ``"rr"``, ``"k-rr"`` (alphabet ``k``), ``"binary-erasure"`` (with
        ``delta`` and ``eta``; ``eta=None`` is ``eta_max``) or a callable mapping epsilon to
        a :class:`~ldp.Channel`.
        """
        from ldp.mechanisms import binary_erasure, k_rr, randomized_response

        if callable(family):
            make, label = family, getattr(family, "__name__", "family")
        elif family == "rr":
            make, label = randomized_response, "randomized response"
        elif family == "k-rr":
            make, label = (lambda e: k_rr(k, e)), f"{k}-RR"
        elif family == "binary-erasure":
            make, label = (lambda e: binary_erasure(e, delta, eta)), "binary erasure"
        else:
            raise ValueError(f"family must be one of {_FAMILIES} or a callable, got {family!r}")
        if isinstance(kinds, str) or not all(kind in _KINDS for kind in kinds) or not kinds:
            raise ValueError(f"kinds must be a non-empty sequence of {_KINDS}, got {kinds!r}")
        levels = _levels(epsilons, np.linspace(0.1, 4.0, 40), "epsilons")
        exact: dict[str, list[float]] = {kind: [] for kind in kinds}
        bounds: dict[str, list[float]] = {kind: [] for kind in kinds}
        theorems: dict[str, list[str]] = {kind: [] for kind in kinds}
        for eps in show_progress(list(levels), progress, desc="contraction"):
            channel = make(float(eps))
            if not isinstance(channel, Channel):
                raise TypeError(f"family must return Channels, got {type(channel).__name__}")
            for kind in kinds:
                bound = channel.contraction_bound(kind)
                exact[kind].append(float(channel.contraction(kind)))
                bounds[kind].append(float(bound))
                theorems[kind].append(bound.theorem)
        return cls(
            levels,
            {kind: np.asarray(v) for kind, v in exact.items()},
            {kind: np.asarray(v) for kind, v in bounds.items()},
            theorems,
            label,
        ).plot(ax=ax)

    def plot(self, ax=None, *, title: str | None = None, **line_kwargs) -> ContractionDisplay:
        """Draw each coefficient (solid, with a marker of its own) and its bound (dashed, hollow
        marker, same colour); returns ``self`` with ``ax_``, ``figure_``, ``lines_``,
        ``legend_``."""
        ax = _axes(ax)
        self.lines_ = []
        for i, (kind, values) in enumerate(self.exact.items()):
            marker = MARKERS[i % len(MARKERS)]
            size = max(4.0, 9.0 - 2.0 * i)  # nested where kinds coincide (KL and chi2)
            style = {"linestyle": "-", "marker": marker, "markersize": size}
            (line,) = ax.plot(self.epsilons, values, label=kind, **{**style, **line_kwargs})
            (dashed,) = ax.plot(
                self.epsilons,
                self.bounds[kind],
                linestyle="--",
                marker=marker,
                markersize=size + 3.0,  # a ring around the coefficient's marker
                markerfacecolor="none",
                color=line.get_color(),
                label=f"{kind} bound",
            )
            self.lines_ += [line, dashed]
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel("contraction coefficient")
        ax.set_ylim(0.0, 1.02)
        default = f"Contraction: {self.family}" if self.family else "Contraction coefficients"
        self.legend_ = _finish(ax, self.lines_, title or default)
        self.ax_, self.figure_ = ax, ax.figure
        return self


# ------------------------------------------------------------------------------------ risk
class RiskDisplay:
    """A risk lower bound against the number of users, beside the risk achieved by the
    matching estimator (randomized response for ``bernoulli-mean``, k-RR for
    ``distribution``), on log-log axes.

    Parameters
    ----------
    ns : ndarray
        Numbers of users.
    lower : ndarray
        The lower bound at each ``n``.
    achieved : ndarray or None
        The achieved risk at each ``n`` (``None`` when the preset has no matching estimator).
    lower_label, achieved_label : str
        The theorem and the estimator (legend entries, after ``lower bound:`` and
        ``achieved:``).
    quantity : str
        What the lower bound bounds (``"minimax risk lower bound"``). With an achieved risk
        the vertical axis is the risk itself (``"minimax risk"``), which the two curves
        bound from below and above; alone, the bound's quantity names it.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from ldp.plotting import RiskDisplay
    >>> display = RiskDisplay.from_preset("distribution", [100, 1000, 10_000], epsilon=1.0, k=8)
    >>> bool((display.lower < display.achieved).all())
    True
    >>> print(display.lower_label)  # the legend names the theorem
    van Trees, Dirichlet prior on a sub-simplex (proof: 'Lower bounds' docs page, §2)
    >>> [text.get_text() for text in display.legend_.get_texts()]
    ['lower bound: van Trees', 'achieved: k-RR + unbiased frequency estimator']
    >>> display.ax_.get_ylabel()
    'minimax risk'
    """

    def __init__(
        self,
        ns: np.ndarray,
        lower: np.ndarray,
        achieved: np.ndarray | None,
        *,
        lower_label: str = "lower bound",
        achieved_label: str = "achieved",
        quantity: str = "risk",
    ) -> None:
        self.ns = ns
        self.lower = lower
        self.achieved = achieved
        self.lower_label = lower_label
        self.achieved_label = achieved_label
        self.quantity = quantity

    @classmethod
    def from_preset(
        cls,
        preset: str,
        ns: ArrayLike | None = None,
        *,
        epsilon: float,
        delta: float = 0.0,
        progress: bool = False,
        ax=None,
        **options: Any,
    ) -> RiskDisplay:
        """Evaluate a preset of :mod:`ldp.risk` at each ``n`` and plot it.

        ``preset`` and the options are those of :func:`ldp.risk.preset`: one of
        ``"bernoulli-mean"``, ``"moment-mean"`` (``moment=``), ``"ball-mean"`` (``d=``,
        ``r=``), ``"distribution"`` (``k=``, ``loss=``) or ``"beta-bernoulli"``; ``route=``
        picks the theorem where the preset has several.
        """
        from ldp.risk import preset as evaluate

        if ns is None:
            sizes = np.unique(np.round(np.geomspace(10, 1e6, 21))).astype(np.int64)
        else:
            sizes = np.asarray(ns)
            if sizes.ndim != 1 or sizes.size < 2 or sizes.dtype.kind not in "iu":
                raise ValueError("ns must be a 1-D array of at least two integers")
        lower, achieved = [], []
        for n in show_progress(sizes.tolist(), progress, desc=preset):
            low, high = evaluate(preset, int(n), epsilon, delta, **options)
            lower.append(low.value)
            achieved.append(None if high is None else high.value)
        return cls(
            sizes,
            np.asarray(lower),
            None if achieved[0] is None else np.asarray(achieved, dtype=np.float64),
            lower_label=low.method,
            achieved_label="" if high is None else high.method,
            quantity=low.quantity,
        ).plot(ax=ax)

    def plot(self, ax=None, *, title: str | None = None, **line_kwargs) -> RiskDisplay:
        """Draw the bound (and the achieved risk); returns ``self`` with ``ax_``,
        ``figure_``, ``lines_``, ``legend_``. Legend entries are short (method and first
        citation); ``lower_label`` and ``achieved_label`` keep the full descriptions."""
        ax = _axes(ax)
        both = self.achieved is not None
        self.lines_ = [
            ax.plot(
                self.ns,
                self.lower,
                label=_role("lower bound", self.lower_label) if both else _short(self.lower_label),
                **_style(0, line_kwargs, marker=True),
            )[0]
        ]
        if self.achieved is not None:
            self.lines_.append(
                ax.plot(
                    self.ns,
                    self.achieved,
                    label=_role("achieved", self.achieved_label),
                    **_style(1, line_kwargs, marker=True),
                )[0]
            )
        # with the achieved risk, the axis is the risk itself (one curve bounds it from below,
        # the other attains it) and the legend says which curve is which; alone, the bound's
        # quantity names the axis
        risk = (re.sub(r"\s*lower bound$", "", self.quantity) or "risk") if both else self.quantity
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of users $n$")
        ax.set_ylabel(risk)
        self.legend_ = _finish(ax, self.lines_, title or f"{risk} against $n$", fontsize="small")
        self.ax_, self.figure_ = ax, ax.figure
        return self


# --------------------------------------------------------------------------------- shuffle
class ShuffleDisplay:
    """Central epsilon after shuffling against the number of users, one curve per ``eps0``.

    Each value is the upper bound of :func:`ldp.accounting.shuffle_amplification` (the
    numerical clone bound of Feldman-McMillan-Talwar (2021); with a k-RR mechanism the
    k-RR clone probability of Feldman-McMillan-Talwar (2023)); the dotted lines are the
    local epsilons ``eps0`` (no amplification).

    Parameters
    ----------
    ns : ndarray
        Numbers of users.
    epsilons : dict[float, ndarray]
        ``eps0 -> central epsilon at each n``.
    delta : float
        The central delta.
    label : str
        What was shuffled (the title).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from ldp.plotting import ShuffleDisplay
    >>> display = ShuffleDisplay.from_epsilons([1.0, 4.0], [1000, 10_000, 100_000], delta=1e-6)
    >>> [round(float(v), 4) for v in display.epsilons[4.0]]
    [3.99, 0.6009, 0.1698]
    >>> [line.get_label() for line in display.lines_]
    ['eps0 = 1', 'eps0 = 4']
    """

    def __init__(
        self,
        ns: np.ndarray,
        epsilons: dict[float, np.ndarray],
        *,
        delta: float,
        label: str = "any eps0-LDP randomizer",
    ) -> None:
        self.ns = ns
        self.epsilons = epsilons
        self.delta = delta
        self.label = label

    @classmethod
    def from_epsilons(
        cls,
        epsilon0s: Sequence[float] = (1.0, 2.0, 4.0, 8.0),
        ns: ArrayLike | None = None,
        *,
        delta: float = 1e-6,
        k: int | None = None,
        progress: bool = False,
        ax=None,
    ) -> ShuffleDisplay:
        """Compute the bound at each ``(eps0, n)`` and plot it.

        ``k=None`` is the bound for any ``eps0``-LDP randomizer; an integer ``k`` is k-RR
        (:func:`ldp.k_rr`).
        """
        from ldp.accounting import shuffle_amplification
        from ldp.mechanisms import k_rr

        if ns is None:
            sizes = np.unique(np.round(np.geomspace(100, 1e7, 11))).astype(np.int64)
        else:
            sizes = np.asarray(as_real_array(ns, "ns"), dtype=np.float64)
            if sizes.ndim != 1 or sizes.size < 1 or np.any(sizes < 1) or np.any(sizes % 1):
                raise ValueError("ns must be a 1-D array of integers >= 1")
            sizes = sizes.astype(np.int64)
        levels = [float(e) for e in epsilon0s]
        if not levels:
            raise ValueError("epsilon0s must name at least one local epsilon")
        epsilons = {}
        for eps0 in show_progress(levels, progress, desc="epsilon0"):
            mech = None if k is None else k_rr(k, eps0)
            epsilons[eps0] = np.array(
                [shuffle_amplification(eps0, int(n), delta, mechanism=mech).epsilon for n in sizes]
            )
        label = "any eps0-LDP randomizer" if k is None else f"{k}-RR"
        return cls(sizes, epsilons, delta=delta, label=label).plot(ax=ax)

    def plot(self, ax=None, **line_kwargs) -> ShuffleDisplay:
        """Draw the curves; returns ``self`` with ``ax_``, ``figure_``, ``lines_``."""
        ax = _axes(ax)
        self.lines_ = []
        for eps0, values in self.epsilons.items():
            (line,) = ax.plot(self.ns, values, marker="o", label=f"eps0 = {eps0:g}", **line_kwargs)
            ax.axhline(eps0, color=line.get_color(), linestyle=":", linewidth=0.8)
            self.lines_.append(line)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("users shuffled together, n")
        ax.set_ylabel(rf"central $\varepsilon$ at $\delta$ = {self.delta:g}")
        ax.set_title(f"shuffled reports of {self.label}")
        ax.legend()
        self.ax_, self.figure_ = ax, ax.figure
        return self
