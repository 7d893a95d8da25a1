"""The shuffle display carries the bounds it plots and renders."""

import numpy as np
import pytest

import ldp
from ldp.accounting import shuffle_amplification

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ldp.plotting import ShuffleDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_shuffle_display(tmp_path):
    ns = [100, 1000, 10_000]
    display = ShuffleDisplay.from_epsilons([1.0, 2.0], ns, delta=1e-6, k=8)
    for eps0, line in zip([1.0, 2.0], display.lines_):
        expected = [
            shuffle_amplification(eps0, n, 1e-6, mechanism=ldp.k_rr(8, eps0)).epsilon for n in ns
        ]
        assert np.array_equal(line.get_xdata(), ns)
        assert np.allclose(line.get_ydata(), expected, rtol=0, atol=0)
        assert np.all(np.diff(line.get_ydata()) < 0)  # more users, less loss
        assert np.all(line.get_ydata() < eps0)
    assert display.label == "8-RR"
    display.figure_.savefig(tmp_path / "shuffle.png")
    assert (tmp_path / "shuffle.png").stat().st_size > 1000


def test_shuffle_display_bad_input():
    with pytest.raises(ValueError, match="ns"):
        ShuffleDisplay.from_epsilons([1.0], [0, 10])
    with pytest.raises(ValueError, match="epsilon0s"):
        ShuffleDisplay.from_epsilons([], [10, 100])
    with pytest.raises(ValueError, match="delta"):
        ShuffleDisplay.from_epsilons([1.0], [10, 100], delta=0.0)
