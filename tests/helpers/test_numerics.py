"""The shared numerical searches of ``ldp._numerics`` (and the float-exact ones of
``ldp._exact``): the side each returns, against brute force, and their argument checks."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import comb

from ldp._exact import nearest_within, smallest_double
from ldp._numerics import bisect_monotone, first_integer, log_binomial

GRID = np.linspace(0.0, 1.0, 1025)  # dyadic points: bisection of [0, 1] lands on them


@settings(max_examples=200, deadline=None)
@given(
    step=st.integers(1, 1024),
    rising=st.booleans(),
    side=st.sampled_from(["low", "high"]),
)
def test_bisect_monotone_side_against_a_scan(step, rising, side):
    """A monotone step function on [0, 1]: the returned end is on the stated side of the
    step, as found by scanning a grid, and within the tolerance of it."""
    cut = GRID[step]

    def pred(x: float) -> bool:
        return (x >= cut) if rising else (x < cut)

    got = bisect_monotone(pred, 0.0, 1.0, side=side, rtol=2.0**-10, scale=1.0)
    scan = [x for x in GRID if pred(x) == pred(1.0)]
    boundary_high = min(scan) if rising else min(x for x in GRID if not pred(x))
    if side == "high":
        assert pred(got) == pred(1.0)
        assert got == boundary_high
    else:
        assert pred(got) == pred(0.0)
        assert got == GRID[step - 1]


@settings(max_examples=100, deadline=None)
@given(cut=st.floats(1e-6, 1e6), side=st.sampled_from(["low", "high"]))
def test_bisect_monotone_tolerance_and_side(cut, side):
    got = bisect_monotone(lambda x: x >= cut, 0.0, 2e6, side=side, rtol=1e-9)
    if side == "high":
        assert got >= cut and got - cut <= 1e-9 * got
    else:
        assert got < cut and cut - got <= 1e-9 * cut


def test_bisect_monotone_exhausts_the_doubles():
    cut = math.pi
    low = bisect_monotone(lambda x: x >= cut, 0.0, 4.0, side="low")
    high = bisect_monotone(lambda x: x >= cut, 0.0, 4.0, side="high")
    assert high == cut and low == math.nextafter(cut, -math.inf)


def test_bisect_monotone_max_steps_and_ends():
    calls = []

    def pred(x: float) -> bool:
        calls.append(x)
        return x >= 0.3

    got = bisect_monotone(pred, 0.0, 1.0, side="high", ends=(False, True), max_steps=3)
    assert got == 0.375  # 0.5 true, 0.25 false, 0.375 true: the bracket [0.25, 0.375]
    assert calls == [0.5, 0.25, 0.375]
    assert bisect_monotone(pred, 0.0, 1.0, side="low", max_steps=0) == 0.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"lo": 1.0, "hi": 0.0}, "lo must be <= hi, got lo=1.0 > hi=0.0"),
        ({"lo": math.nan}, "lo must be a finite float, got nan"),
        ({"hi": math.inf}, "hi must be a finite float, got inf"),
        ({"side": "up"}, "side must be 'low' or 'high', got 'up'"),
        ({"rtol": math.nan}, "rtol must be >= 0, got nan"),
        ({"scale": -1.0}, "scale must be >= 0, got -1.0"),
        ({"max_steps": -1}, "max_steps must be >= 0, got -1"),
        ({"lo": 0.6}, r"pred must change value on \[lo, hi\]: pred\(0.6\) = pred\(1.0\) = True"),
    ],
)
def test_bisect_monotone_bad_input(kwargs, match):
    args = {"lo": 0.0, "hi": 1.0, "side": "high", **kwargs}
    with pytest.raises(ValueError, match=match):
        bisect_monotone(lambda x: x >= 0.5, **args)


@settings(max_examples=200, deadline=None)
@given(lo=st.integers(-50, 50), width=st.integers(0, 300), cut=st.integers(-60, 400))
def test_first_integer_against_a_scan(lo, width, cut):
    hi = lo + width
    calls = []

    def pred(n: int) -> bool:
        calls.append(n)
        return n >= cut

    expected = next((n for n in range(lo, hi + 1) if pred(n)), None)
    calls.clear()
    assert first_integer(pred, lo, hi) == expected
    assert all(lo <= n <= hi for n in calls)
    assert len(calls) <= 2 * (width + 1).bit_length() + 2


def test_first_integer_gallops_from_lo():
    calls = []
    assert first_integer(lambda n: calls.append(n) or n >= 5, 1, 1 << 50) == 5
    assert calls[:4] == [1, 2, 4, 8]
    assert first_integer(lambda n: False, 1, 1 << 50) is None
    with pytest.raises(ValueError, match="lo must be <= hi, got lo=3 > hi=2"):
        first_integer(lambda n: True, 3, 2)


def test_log_binomial():
    n = np.arange(0, 60)
    for k in (0, 1, 7, 30):
        mask = n >= k
        got = log_binomial(n[mask], k)
        np.testing.assert_allclose(
            got, np.log(comb(n[mask], k, exact=False)), rtol=1e-13, atol=1e-13
        )
    assert float(log_binomial(2.5, 1.0)) == pytest.approx(math.log(2.5))


@settings(max_examples=100, deadline=None)
@given(cut=st.floats(1e-300, 2000.0), guess=st.floats(0.0, 1e10))
def test_smallest_double_is_exact(cut, guess):
    """The float-exact search (up to 2000): ``pred(r)`` and not ``pred(nextafter(r, -inf))``."""
    r = smallest_double(lambda t: t >= cut, guess)
    assert r >= cut and not math.nextafter(r, -math.inf) >= cut


@settings(max_examples=100, deadline=None)
@given(cut=st.floats(1e-300, 1e300), start=st.floats(1e-300, 1e300))
def test_nearest_within_is_exact(cut, start):
    down = nearest_within(lambda t: t <= cut, start, 0.0)
    assert down <= cut and (down == start or math.nextafter(down, math.inf) > cut)
    up = nearest_within(lambda t: t >= cut, start, math.inf)
    assert up >= cut and (up == start or math.nextafter(up, 0.0) < cut)
