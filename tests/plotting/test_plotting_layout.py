"""Every display is publishable: a title, a legend inside the figure that hides no drawn
point, one legend entry per curve, and distinct styles for curves that coincide.

The checks measure the rendered figure (Agg) in display coordinates, independently of the
placement code in ``ldp.plotting``."""

import itertools

import numpy as np
import pytest

import ldp

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ldp.plotting import (  # noqa: E402
    ContractionDisplay,
    PrivacyProfileDisplay,
    PrivacyUtilityDisplay,
    RiskDisplay,
    TradeOffDisplay,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _displays():
    yield (
        "profile",
        lambda: PrivacyProfileDisplay.from_channels(
            {"4-RR": ldp.k_rr(4, 1.0), "erasure": ldp.binary_erasure(1.0, 0.01, 0.3)}
        ),
    )
    yield "utility", lambda: PrivacyUtilityDisplay.from_design(6, [0.5, 1.1, 2.0], utility="mi")
    yield (
        "trade-off",
        lambda: TradeOffDisplay.from_channel(
            {"4-RR": ldp.k_rr(4, 1.0), "RR": ldp.randomized_response(1.0)}
        ),
    )
    yield "contraction", lambda: ContractionDisplay.from_family("k-rr", [0.5, 1.0, 2.0, 3.0], k=4)
    yield (
        "risk",
        lambda: RiskDisplay.from_preset("distribution", [100, 1000, 10_000], epsilon=1.0, k=8),
    )
    yield (
        "risk, no estimator",
        lambda: RiskDisplay.from_preset("beta-bernoulli", [10, 20, 50], epsilon=1.0, delta=1e-4),
    )


DISPLAYS = dict(_displays())


def _curves(display) -> list:
    """The lines with a legend entry (matplotlib hides labels starting with '_')."""
    return [
        line
        for line in display.ax_.get_lines()
        if line.get_visible() and not line.get_label().startswith("_")
    ]


def _covered(box, line) -> int:
    xy = np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float)
    xy = line.get_transform().transform(xy[np.all(np.isfinite(xy), axis=1)])
    return int(
        np.sum(
            (xy[:, 0] >= box.x0)
            & (xy[:, 0] <= box.x1)
            & (xy[:, 1] >= box.y0)
            & (xy[:, 1] <= box.y1)
        )
    )


@pytest.mark.parametrize("name", sorted(DISPLAYS))
def test_display_is_publishable(name):
    display = DISPLAYS[name]()
    figure, ax = display.figure_, display.ax_
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    assert ax.get_title().strip()
    legend = ax.get_legend()
    assert legend is display.legend_ and legend.get_visible()
    box = legend.get_window_extent(renderer)
    whole = figure.bbox
    assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0 and box.y1 <= whole.y1
    curves = _curves(display)
    assert curves == display.lines_  # every drawn curve is in lines_ and has an entry
    assert [t.get_text() for t in legend.get_texts()] == [c.get_label() for c in curves]
    assert all(len(c.get_label()) <= 80 for c in curves), [c.get_label() for c in curves]
    assert sum(_covered(box, line) for line in curves) == 0
    for first, second in itertools.combinations(curves, 2):
        y1, y2 = np.asarray(first.get_ydata()), np.asarray(second.get_ydata())
        if y1.shape == y2.shape and np.allclose(y1, y2, rtol=1e-9, atol=1e-12):
            assert (first.get_linestyle(), first.get_marker()) != (
                second.get_linestyle(),
                second.get_marker(),
            ), (first.get_label(), second.get_label())


def test_the_optimum_and_subset_selection_coincide_and_stay_distinct():
    display = DISPLAYS["utility"]()
    lines = {line.get_label(): line for line in display.lines_}
    optimum, subsets = lines["optimum"], lines["subset selection"]
    assert np.allclose(optimum.get_ydata(), subsets.get_ydata(), atol=1e-8)
    assert optimum.get_linestyle() != subsets.get_linestyle()
    assert optimum.get_marker() != subsets.get_marker()
    assert optimum.get_markersize() != subsets.get_markersize()  # nested, both visible


def test_a_crowded_axes_puts_the_legend_beside_it_inside_the_figure():
    levels = np.linspace(0.0, 3.0, 61)
    # curves through every corner and the middle: no place inside the axes is free
    deltas = {f"curve {i}": np.full(levels.size, v) for i, v in enumerate(np.linspace(0, 1, 12))}
    deltas["rising"] = levels / 3.0
    deltas["falling"] = 1.0 - levels / 3.0
    display = PrivacyProfileDisplay(levels, deltas).plot(title="crowded")
    figure, ax = display.figure_, display.ax_
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    box = display.legend_.get_window_extent(renderer)
    assert sum(_covered(box, line) for line in display.lines_) == 0
    assert box.x0 >= ax.get_window_extent(renderer).x1  # beside the axes
    whole = figure.bbox
    assert box.x1 <= whole.x1 and box.y0 >= whole.y0 and box.y1 <= whole.y1
    assert ax.get_title() == "crowded"


def test_risk_legend_is_short_and_keeps_the_citation():
    display = DISPLAYS["risk, no estimator"]()
    label = display.lines_[0].get_label()
    assert label == "E_gamma-information bound, Asoodeh-Aliakbarpour-Calmon (2021), Theorem 2"
    assert "Beta-Bernoulli" in display.lower_label  # the full description is kept
    # a bound proved in the documentation (no paper to cite) keeps its head only
    derived = DISPLAYS["risk"]()
    assert derived.lines_[0].get_label() == "lower bound: van Trees"
    assert "Lower bounds" in derived.lower_label
