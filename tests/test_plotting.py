"""Displays render to PNG with the Agg backend and carry the data they were built from."""

import numpy as np
import pytest

import ldp

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ldp.plotting import PrivacyProfileDisplay, PrivacyUtilityDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_privacy_profile_display(tmp_path):
    channel = ldp.binary_erasure(1.0, 0.02, 0.3)
    levels = np.linspace(0, 3, 31)
    display = PrivacyProfileDisplay.from_channels({"M": channel}, levels)
    line = display.lines_[0]
    assert np.array_equal(line.get_xdata(), levels)
    assert np.allclose(line.get_ydata(), [channel.delta(e) for e in levels])
    display.figure_.savefig(tmp_path / "profile.png")
    assert (tmp_path / "profile.png").stat().st_size > 1000
    _, ax = plt.subplots()
    again = PrivacyProfileDisplay.from_channels(channel, levels, ax=ax)
    assert again.ax_ is ax


def test_privacy_utility_display(tmp_path):
    display = PrivacyUtilityDisplay.from_design(6, [0.5, 1.1], utility="mi")
    optimum = dict(zip([line.get_label() for line in display.lines_], display.lines_, strict=True))
    assert optimum["optimum"].get_ydata()[1] == pytest.approx(0.1487078233, abs=1e-8)
    display.figure_.savefig(tmp_path / "utility.png")


def test_bad_levels():
    with pytest.raises(ValueError, match="epsilons"):
        PrivacyProfileDisplay.from_channels(ldp.k_rr(3, 1.0), [1.0])
    with pytest.raises(TypeError, match="Channel"):
        PrivacyProfileDisplay.from_channels({"x": np.eye(2)})
