"""Calibrated samplers: every mechanism states the epsilon it was asked for, exactly.

The sampler constants are doubles moved (a few units in the last place at most) towards more
privacy until the law they realise has its largest likelihood ratio at most ``e^eps``
*exactly*; each mechanism's ``epsilon`` is then the requested level itself. Checked here for
every calibrated mechanism at fixed and seeded random levels, three ways that do not use
``ldp._exact``:

* the largest likelihood ratio, derived in this file from the :meth:`sampler` constants
  alone (exact rationals, by enumerating the outputs or the density levels), is at most
  ``e^eps`` by ``mpmath`` at 400 bits, and equal to it up to a few units of ``2^-53``;
* the dependency-free device client, which computes the privacy from the same constants by
  its own formulas, finds a level at most the stated one and equal to it up to rounding;
* every constant is within ``1e-14`` (relative) of its real-valued formula, evaluated in
  ``mpmath``: the calibration changes nothing visibly.

The quantities derived from the constants (``p``, ``q``, bounds, decoders, variances) are
checked against the exact law of the constants, and the decoders of the continuous
mechanisms against the exact first two moments of the densities sampled.
"""

import json
import math
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from ldp.mechanisms import (
    BLH,
    CMS,
    GRR,
    HCMS,
    LGRR,
    LOSUE,
    LOUE,
    OLH,
    OUE,
    RAPPOR,
    SUE,
    Duchi,
    DuchiL2,
    Gaussian,
    HadamardResponse,
    Hybrid,
    Laplace,
    LocalHashing,
    Piecewise,
    SquareWave,
    Staircase,
    SubsetSelection,
    UnaryEncoding,
)
from ldp.protocol import Protocol

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))
import ldp_client  # noqa: E402

BITS = 400
ULP = 2.0**-52
FIXED = [1e-6, 1e-3, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 50.0, 700.0]
_RNG = random.Random(20261128)
RANDOM = [math.exp(_RNG.uniform(math.log(1e-6), math.log(700.0))) for _ in range(100)]
BUDGETS = FIXED + RANDOM


# ----------------------------------------------------------------------------- exact laws
def _law(weights) -> list[Fraction]:
    """The probabilities ``w_j / sum(w)`` of double weights, exactly."""
    exact = [Fraction(w) for w in weights]
    return [w / sum(exact) for w in exact]


def _worst(first, second) -> Fraction | None:
    """The largest ratio between two rows of probabilities (or densities) over the outputs,
    in both directions; ``None`` when an output is possible under one row only."""
    worst = Fraction(1)
    for a, b in zip(first, second, strict=True):
        if (a == 0) != (b == 0):
            return None
        if a:
            worst = max(worst, a / b, b / a)
    return worst


def _mp(value) -> mpmath.mpf:
    value = Fraction(value)
    return mpmath.mpf(value.numerator) / value.denominator


def _log(ratio: Fraction) -> mpmath.mpf:
    with mpmath.workprec(BITS):
        return mpmath.log(_mp(ratio))


def _within(ratio: Fraction | None, budget: float) -> bool:
    """``ratio <= e^budget`` at 400 bits."""
    if ratio is None:
        return False
    with mpmath.workprec(BITS):
        return _mp(ratio) <= mpmath.exp(_mp(budget))


def _bits(own, other) -> tuple[list[Fraction], list[Fraction]]:
    """Two inputs of a unary encoding: the laws of the bits of ``x`` and ``x'`` (outputs
    11, 10, 01, 00), each bit 1 with ``own`` (the input's own bit) or ``other``."""
    outputs = [(1, 1), (1, 0), (0, 1), (0, 0)]

    def bit(p: Fraction, z: int) -> Fraction:
        return p if z else 1 - p

    first = [bit(own, a) * bit(other, b) for a, b in outputs]
    second = [bit(other, a) * bit(own, b) for a, b in outputs]
    return first, second


def _k_rr_rows(keep: Fraction, k: int, others: int = 2) -> tuple[list, list]:
    """Inputs ``x, x'`` of k-RR keeping with ``keep``: outputs ``x``, ``x'`` and up to
    ``others`` of the other values (each ``(1 - keep) / (k - 1)``)."""
    q = (1 - keep) / (k - 1)
    rest = [q] * min(others, k - 2)
    return [keep, q, *rest], [q, keep, *rest]


# ----------------------------------------------------------------------------- ratios
def ratio_grr(m) -> Fraction | None:
    return _worst(*_k_rr_rows(_law(m.sampler()["keep"])[0], m.k))


def ratio_unary(m) -> Fraction | None:
    s = m.sampler()
    return _worst(*_bits(_law(s["own"])[0], _law(s["other"])[0]))


def ratio_local_hashing(m) -> Fraction | None:
    # given a hash that separates x and x' (else both laws are alike): k-RR on the g buckets
    return _worst(*_k_rr_rows(_law(m.sampler()["keep"])[0], m.g))


def ratio_coin(m) -> Fraction | None:
    # Hadamard response (inside C_x or not), the Hadamard sketch's sign, Duchi's half-spaces
    keep = _law(m.sampler()["keep"])[0]
    return _worst([keep, 1 - keep], [1 - keep, keep])


def ratio_subsets(m) -> Fraction | None:
    # one subset of each class (x and x' in S, x only, x' only, neither): a subset holding
    # the input has probability P(in) / C(k-1, d-1), any other P(out) / C(k-1, d)
    k, d = m.k, m.d
    inside, outside = _law(m.sampler()["include"])
    held, free = inside / math.comb(k - 1, d - 1), outside / math.comb(k - 1, d)
    classes = [(1, 1), (1, 0), (0, 1)] + ([(0, 0)] if d < k - 1 else [])
    first = [held if a else free for a, _ in classes]
    second = [held if b else free for _, b in classes]
    return _worst(first, second)


def _piecewise_rows(s) -> tuple[list, list]:
    """Densities of the inputs -1 and 1 on [-C, -1], (-1, 1) and [1, C]: the window (length
    ``width``) carries ``keep``, the tails (length ``C + 1``, exact or as the sampler
    scales it in doubles, whichever is larger) the rest."""
    window, tails = _law(s["keep"])
    c = Fraction(s["C"])
    length = max(c + 1, Fraction(s["C"] + 1.0))
    near, far = window / Fraction(s["width"]), tails / length
    return [near, far, far], [far, far, near]


def ratio_piecewise(m) -> Fraction | None:
    s = m.sampler()
    assert s["width"] == s["C"] - 1.0 and s["C"] > 1.0  # the window stays inside [-C, C]
    return _worst(*_piecewise_rows(s))


def ratio_hybrid(m) -> Fraction | None:
    s = m.sampler()
    keep = _law(s["duchi"]["keep"])[0]
    atoms = _worst([keep, 1 - keep], [1 - keep, keep])  # the Duchi atoms +-B
    if s["mix"] is None:
        return atoms
    return max(atoms, _worst(*_piecewise_rows(s["piecewise"])))  # type: ignore[type-var]


def ratio_square_wave(m) -> Fraction | None:
    s = m.sampler()
    b = Fraction(s["b"])
    assert b < Fraction(1, 2)  # the windows of 0 and 1 are disjoint
    near, far = _law(s["keep"])
    # densities on [-b, b], (b, 1 - b), [1 - b, 1 + b] for the inputs 0 and 1
    return _worst([near / (2 * b), far, far], [far, far, near / (2 * b)])


def ratio_staircase(m) -> Fraction | None:
    """Enumerate the density levels along ``|noise|`` over three periods and every pair of
    steps that two noises one sensitivity ``D`` apart can reach (half-open steps ``[a, b)``:
    steps ``[a1, b1)`` and ``[a2, b2)`` with ``a2 >= b1`` are within reach iff
    ``a2 - b1 < D``)."""
    s = m.sampler()
    b, p0, g, d = (Fraction(s[key]) for key in ("b", "p0", "gamma", "sensitivity"))
    steps = []  # (start, end, density) of each step
    for period in range(3):
        scale, start = b**period, period * d
        if g > 0:
            steps.append((start, start + g * d, scale * p0 / (g * d)))
        if g < 1:
            steps.append((start + g * d, start + d, scale * (1 - p0) / ((1 - g) * d)))
    worst = Fraction(1)
    for a1, b1, f1 in steps:
        for a2, b2, f2 in steps:
            reach = a2 < b1 + d if a2 >= b1 else a1 < b2 + d
            if reach:
                if (f1 == 0) != (f2 == 0):
                    return None
                if f1:
                    worst = max(worst, f1 / f2)
    return worst


def ratio_l_grr(m) -> Fraction | None:
    """The two rounds as matrices: one report is the product of the two k-RR channels."""
    s, k = m.sampler(), m.k
    p1, p2 = _law(s["permanent"])[0], _law(s["instant"])[0]

    def k_rr(keep: Fraction) -> list[list[Fraction]]:
        other = (1 - keep) / (k - 1)
        return [[keep if i == j else other for j in range(k)] for i in range(k)]

    first, second = k_rr(p1), k_rr(p2)
    rows = [[sum(first[i][j] * second[j][z] for j in range(k)) for z in range(k)] for i in (0, 1)]
    return _worst(rows[0], rows[1])


def ratio_l_grr_permanent(m) -> Fraction | None:
    return _worst(*_k_rr_rows(_law(m.sampler()["permanent"])[0], m.k))


def _reported(s) -> tuple[Fraction, Fraction]:
    own, other = _law(s["own"])[0], _law(s["other"])[0]
    one, zero = _law(s["one"])[0], _law(s["zero"])[0]
    return own * one + (1 - own) * zero, other * one + (1 - other) * zero


def ratio_memo_unary(m) -> Fraction | None:
    return _worst(*_bits(*_reported(m.sampler())))


def ratio_memo_unary_permanent(m) -> Fraction | None:
    s = m.sampler()
    return _worst(*_bits(_law(s["own"])[0], _law(s["other"])[0]))


# ----------------------------------------------------------------------------- nominal
def _exp(t) -> mpmath.mpf:
    return mpmath.exp(_mp(t))


def _relative(value: float, nominal: mpmath.mpf) -> float:
    with mpmath.workprec(BITS):
        return float(abs(_mp(value) / nominal - 1))


def nominal_grr(m, eps):
    return [(m.sampler()["keep"][0], _exp(eps)), (m.sampler()["keep"][1], m.k - 1)]


def nominal_sue(m, eps):
    s = m.sampler()
    return [(s["own"][0], _exp(eps / 2)), (s["other"][1], _exp(eps / 2))]


def nominal_oue(m, eps):
    return [(m.sampler()["other"][1], _exp(eps))]


def nominal_coin(m, eps):
    return [(m.sampler()["keep"][0], _exp(eps))]


def nominal_subsets(m, eps):
    s, k, d = m.sampler(), m.k, m.d
    if eps > 600:
        return [(s["include"][1], (k - d) * _exp(-eps)), (s["include"][0], d)]
    return [(s["include"][0], d * _exp(eps)), (s["include"][1], k - d)]


def nominal_scale(m, eps):
    return [(m.scale, 2 / _mp(eps))]


def nominal_piecewise(m, eps):
    s = m.sampler()
    z = _exp(eps / 2)
    out = [(s["C"], max((z + 1) / (z - 1), _mp(1 + ULP)))]
    # the window's odds are z while C - 1 holds its digits (eps below ~8); beyond, they
    # absorb the rounding of C - 1 (the test of the ratio keeps them tight)
    if eps <= 8:
        out.append((s["keep"][0], z))
    return out


def nominal_hybrid(m, eps):
    s = m.sampler()
    out = [(s["duchi"]["keep"][0], _exp(eps))]
    if s["mix"] is not None:
        out += nominal_piecewise(m._pm, eps)
    return out


def nominal_square_wave(m, eps):
    s = m.sampler()
    e = _exp(eps)
    b = (_mp(eps) * e - e + 1) / (2 * e * (e - 1 - _mp(eps)))
    return [(s["b"], b), (s["keep"][0], 2 * _mp(s["b"]) * e)]


def nominal_staircase(m, eps):
    s = m.sampler()
    g, b = _mp(s["gamma"]), _exp(-eps)
    out = [(s["b"], b)]
    if 0 < s["gamma"] < 1:
        out.append((s["p0"], g / (g + b * (1 - g))))
    return out


def _lambda(k, eps):
    e = _exp(eps)
    return (e - 1) / (e + k - 1)


def nominal_l_grr(m, eps, eps_inf):
    s, k = m.sampler(), m.k
    lam = _lambda(k, eps) / _lambda(k, eps_inf)
    return [
        (s["permanent"][0], _exp(eps_inf)),
        (s["instant"][0], 1 + (k - 1) * lam),
        (s["instant"][1], (k - 1) * (1 - lam)),
    ]


def nominal_losue(m, eps, eps_inf):
    s = m.sampler()
    tau = _lambda(2, eps) / _lambda(2, eps_inf)  # tanh(eps/2) / tanh(eps_inf/2)
    return [(s["other"][1], _exp(eps_inf)), (s["one"][0], 1 + tau), (s["one"][1], 1 - tau)]


def nominal_loue(m, eps, eps_inf):
    """q2 is the root of ``one report = eps``, found here by mpmath's bisection on the
    real-valued law with the permanent round sampled (p1 = p2 = 1/2, q1 = 1 / (w + 1) with
    ``w`` the calibrated ``e^eps_inf``: at small levels the one-report level is about
    ``1/eps`` times more sensitive to ``q1`` than ``q1`` itself)."""
    s = m.sampler()
    q1 = _mp(_law(s["other"])[0])
    target = _exp(eps)

    def excess(q2):
        own, other = (1 + 2 * q2) / 4, q1 / 2 + (1 - q1) * q2
        return own * (1 - other) / ((1 - own) * other) - target

    low, high = mpmath.mpf(0), mpmath.mpf(1) / 2
    for _ in range(BITS):
        middle = (low + high) / 2
        low, high = (middle, high) if excess(middle) > 0 else (low, middle)
    return [(s["other"][1], _exp(eps_inf)), (s["zero"][0], high)]


# ----------------------------------------------------------------------------- the cases
def _memo_levels(budget: float) -> tuple[float, float]:
    """A one-report level and a permanent level for ``budget``, both in [1e-6, 700]."""
    return (budget, 4 * budget) if budget <= 175 else (budget / 4, budget)


#: name -> (factory of the budget, ratio from the constants, nominal constants)
SINGLE = {
    "GRR k=4": (lambda e: GRR(4, e), ratio_grr, nominal_grr),
    "GRR k=2^40": (lambda e: GRR(2**40, e), ratio_grr, nominal_grr),
    "SUE": (lambda e: SUE(8, e), ratio_unary, nominal_sue),
    "OUE": (lambda e: OUE(8, e), ratio_unary, nominal_oue),
    "CMS": (lambda e: CMS(e, width=16, depth=4), ratio_unary, nominal_sue),
    "LH g=5": (lambda e: LocalHashing(100, e, g=5), ratio_local_hashing, nominal_coin),
    "OLH": (lambda e: OLH(100, e, g=None if e < 20 else 2**31), ratio_local_hashing, nominal_coin),
    "BLH": (lambda e: BLH(100, e), ratio_local_hashing, nominal_coin),
    "HR": (lambda e: HadamardResponse(9, e), ratio_coin, nominal_coin),
    "HCMS": (lambda e: HCMS(e, width=16, depth=4), ratio_coin, nominal_coin),
    "SS d=3": (lambda e: SubsetSelection(10, e, d=3), ratio_subsets, nominal_subsets),
    "SS default d": (lambda e: SubsetSelection(30, e), ratio_subsets, nominal_subsets),
    "SS indices": (
        lambda e: SubsetSelection(1000, e, d=2, encoding="indices"),
        ratio_subsets,
        nominal_subsets,
    ),
    "Duchi": (lambda e: Duchi(e), ratio_coin, nominal_coin),
    "Duchi d=4": (lambda e: Duchi(e, d=4), ratio_coin, nominal_coin),
    "DuchiL2": (lambda e: DuchiL2(e, d=3), ratio_coin, nominal_coin),
    "Piecewise": (lambda e: Piecewise(e), ratio_piecewise, nominal_piecewise),
    "Hybrid": (lambda e: Hybrid(e), ratio_hybrid, nominal_hybrid),
    "SquareWave": (lambda e: SquareWave(e), ratio_square_wave, nominal_square_wave),
    "Staircase": (lambda e: Staircase(e), ratio_staircase, nominal_staircase),
    "Staircase gamma=0.3": (lambda e: Staircase(e, 0.3), ratio_staircase, nominal_staircase),
    "Staircase gamma=0": (lambda e: Staircase(e, 0.0), ratio_staircase, nominal_staircase),
    "Staircase gamma=1": (lambda e: Staircase(e, 1.0), ratio_staircase, nominal_staircase),
}

MEMOIZED = {
    "L-GRR": (lambda e, p: LGRR(5, e, p), ratio_l_grr, ratio_l_grr_permanent, nominal_l_grr),
    "L-OSUE": (
        lambda e, p: LOSUE(8, e, p),
        ratio_memo_unary,
        ratio_memo_unary_permanent,
        nominal_losue,
    ),
    "L-OUE": (
        lambda e, p: LOUE(8, e, p),
        ratio_memo_unary,
        ratio_memo_unary_permanent,
        nominal_loue,
    ),
}


def _client(mechanism, delta: float = 0.0) -> dict:
    protocol = Protocol.from_mechanism(mechanism, delta=delta)
    policy = {"pinned_fingerprints": [protocol.fingerprint], "max_delta": delta}
    return ldp_client.verify(protocol.to_dict(), policy)


def _close_below(computed: float, budget: float) -> bool:
    """``computed <= budget``, and equal to it up to a few units of ``2^-52`` (a double
    ratio next to ``e^eps`` has a log within about ``2^-52`` of ``eps``: relative ``1e-10``
    at ``eps = 1e-6``) or ``1e-12`` relative."""
    return computed <= budget and budget - computed <= 1e-12 * budget + 4 * ULP


def _check_ratio(name: str, ratio: Fraction | None, budget: float) -> None:
    assert _within(ratio, budget), f"{name}: the constants realise more than e^{budget!r}"
    assert ratio is not None and _log(ratio) >= _mp(budget) - 1e-12 * budget - 4 * ULP, (
        f"{name}: the constants realise {float(_log(ratio))!r}, far below {budget!r}"
    )


@pytest.mark.parametrize("name", list(SINGLE))
def test_the_stated_epsilon_is_the_budget_and_the_constants_realise_it(name):
    factory, ratio_of, nominal_of = SINGLE[name]
    for budget in BUDGETS:
        mechanism = factory(budget)
        assert mechanism.epsilon == budget, (name, budget, mechanism.epsilon)
        _check_ratio(f"{name} at {budget!r}", ratio_of(mechanism), budget)
        computed = _client(mechanism)["epsilon"]
        assert _close_below(computed, budget), (name, budget, computed)
        with mpmath.workprec(BITS):
            for value, nominal in nominal_of(mechanism, budget):
                assert _relative(value, nominal) < 1e-14, (name, budget, value, nominal)


@pytest.mark.parametrize("name", list(MEMOIZED))
def test_the_memoized_levels_are_the_budgets_and_the_constants_realise_them(name):
    factory, ratio_of, permanent_of, nominal_of = MEMOIZED[name]
    for budget in BUDGETS:
        eps, eps_inf = _memo_levels(budget)
        mechanism = factory(eps, eps_inf)
        assert mechanism.epsilon == eps and mechanism.epsilon_permanent == eps_inf, (
            name,
            eps,
            eps_inf,
        )
        _check_ratio(f"{name} at {eps!r}", ratio_of(mechanism), eps)
        _check_ratio(f"{name} at {eps_inf!r} (permanent)", permanent_of(mechanism), eps_inf)
        client = _client(mechanism)
        assert _close_below(client["epsilon"], eps), (name, eps, client)
        assert _close_below(client["epsilon_permanent"], eps_inf), (name, eps_inf, client)
        with mpmath.workprec(BITS):
            for value, nominal in nominal_of(mechanism, eps, eps_inf):
                assert _relative(value, nominal) < 1e-14, (name, eps, eps_inf, value, nominal)


def test_the_gaussian_sigma_realises_at_most_mu():
    for mu in [*BUDGETS, 1e6]:
        g = Gaussian(mu)
        assert Fraction(2) / Fraction(g.sigma) <= Fraction(mu) and g.mu == mu
        with mpmath.workprec(BITS):
            assert _relative(g.sigma, 2 / _mp(mu)) < 1e-15
        if mu <= 40 and mu in FIXED:  # (epsilon, 1e-6) stays finite; the protocol's search
            client = _client(g, delta=1e-6)  # for its epsilon costs ~0.1 s: fixed levels only
            assert client["mu"] <= mu and mu - client["mu"] <= 1e-15 * mu, (mu, client)
        assert g.epsilon == math.inf


def test_laplace_realises_at_most_its_level():
    for budget in BUDGETS:
        lap = Laplace(budget)
        assert lap.epsilon == budget and Fraction(2) / Fraction(lap.scale) <= Fraction(budget)
        # the smallest such double: one below it would realise more
        assert Fraction(2) / Fraction(math.nextafter(lap.scale, 0.0)) > Fraction(budget)
        with mpmath.workprec(BITS):
            assert _relative(lap.scale, 2 / _mp(budget)) < 1e-14
        assert _close_below(_client(lap)["epsilon"], budget)


# ----------------------------------------------------------------------------- no budget
def _log_up_holds(level: float, ratio: Fraction) -> bool:
    """``level`` is the smallest double whose exponential is at least ``ratio``."""
    with mpmath.workprec(BITS):
        r = _mp(ratio)
        return mpmath.exp(_mp(level)) >= r > mpmath.exp(_mp(math.nextafter(level, 0.0)))


def test_given_probabilities_state_the_level_they_realise():
    """``UnaryEncoding(p, q)`` and ``RAPPOR(f, p, q)`` are given no level: each level is the
    smallest double whose exponential bounds the ratio of the constants."""
    rng = random.Random(7)
    for _ in range(40):
        q = rng.uniform(0.01, 0.5)
        p = rng.uniform(q + 0.01, 0.99)
        ue = UnaryEncoding(8, 1.0, p=p, q=q)
        assert _log_up_holds(ue.epsilon, ratio_unary(ue))
        f, irr_p = rng.uniform(0.05, 0.95), rng.uniform(0.0, 0.5)
        rappor = RAPPOR(8, f=f, p=irr_p, q=rng.uniform(irr_p + 0.01, 1.0))
        assert _log_up_holds(rappor.epsilon, ratio_memo_unary(rappor))
        assert _log_up_holds(rappor.epsilon_permanent, ratio_memo_unary_permanent(rappor))
        client = _client(rappor)
        assert client["epsilon"] == rappor.epsilon
        assert client["epsilon_permanent"] == rappor.epsilon_permanent


def test_the_instantaneous_levels_are_exact():
    """``epsilon_instant``: L-GRR's one k-RR round, the unary ones ``k`` bits at most."""
    for eps, eps_inf in [(0.5, 2.0), (1.0, 4.0), (1e-6, 4e-6), (50.0, 700.0)]:
        lgrr = LGRR(5, eps, eps_inf)
        keep = _law(lgrr.sampler()["instant"])[0]
        assert _log_up_holds(lgrr.epsilon_instant, _worst(*_k_rr_rows(keep, 5)))
        for mechanism in (LOSUE(8, eps, eps_inf), LOUE(8, eps, eps_inf)):
            s = mechanism.sampler()
            one, zero = _law(s["one"])[0], _law(s["zero"])[0]
            bit = _worst([one, 1 - one], [zero, 1 - zero])
            with mpmath.workprec(BITS):
                assert _mp(mechanism.epsilon_instant) >= 8 * _log(bit)
                assert _mp(mechanism.epsilon_instant) <= 8 * _log(bit) * (1 + 1e-15)


# ----------------------------------------------------------------------------- derived
LEVELS = [1e-6, 0.1, 1.0, 3.7, 50.0, 700.0]


def _close(value: float, exact: Fraction, rel: float = 4e-16) -> bool:
    return abs(Fraction(value) - exact) <= rel * abs(exact)


@pytest.mark.parametrize("eps", LEVELS)
def test_support_probabilities_are_those_of_the_weights(eps):
    """``p`` and ``q`` of the pure oracles, from the exact law of their weights (``q`` of
    subset selection by its classes: ``x`` in the subset, then ``v`` among ``d - 1`` of
    ``k - 1``, or not, then ``v`` among ``d``)."""
    grr = GRR(6, eps)
    keep = _law(grr.sampler()["keep"])[0]
    assert _close(grr.p, keep) and _close(grr.q, (1 - keep) / 5)
    for ue in (SUE(8, eps), OUE(8, eps)):
        s = ue.sampler()
        assert _close(ue.p, _law(s["own"])[0]) and _close(ue.q, _law(s["other"])[0])
    lh = LocalHashing(50, eps, g=7)
    assert _close(lh.p, _law(lh.sampler()["keep"])[0]) and lh.q == 1 / 7
    hr = HadamardResponse(9, eps)
    assert _close(hr.p, _law(hr.sampler()["keep"])[0]) and hr.q == 0.5
    ss = SubsetSelection(12, eps, d=4)
    inside, outside = _law(ss.sampler()["include"])
    assert _close(ss.p, inside)
    assert _close(ss.q, inside * Fraction(3, 11) + outside * Fraction(4, 11), 1e-15)


@pytest.mark.parametrize("eps", [1e-3, 1.0, 3.7, 50.0])
def test_channels_are_those_of_the_weights(eps):
    grr = GRR(5, eps)
    keep = _law(grr.sampler()["keep"])[0]
    matrix = grr.to_channel().matrix
    assert all(_close(v, keep) for v in np.diag(matrix))
    assert all(_close(v, (1 - keep) / 4) for v in matrix[~np.eye(5, dtype=bool)])
    ss = SubsetSelection(7, eps, d=3)
    inside, outside = _law(ss.sampler()["include"])
    entries = ss.to_channel().matrix[0]  # subsets in lexicographic order: the first hold 0
    assert _close(entries[0], inside / math.comb(6, 2))
    assert _close(entries[-1], outside / math.comb(6, 3))


@pytest.mark.parametrize("eps", LEVELS)
def test_duchi_bounds_make_the_coin_unbiased(eps):
    """``E[B sign] = B (P(truthful) - P(lying)) x``: the bound is ``1 / (2 pi - 1)`` of the
    coin sampled (times the dimension's constant)."""
    for duchi in (Duchi(eps), Duchi(eps, d=3)):
        truthful, lying = _law(duchi.sampler()["keep"])
        constant = Fraction(2 ** (duchi._odd - 1), math.comb(duchi._odd - 1, duchi._odd // 2))
        assert _close(duchi.bound, constant / (truthful - lying), 1e-15)
    l2 = DuchiL2(eps, d=1)  # d = 1: the sphere is {-B, B}, the mechanism is Duchi's
    truthful, lying = _law(l2.sampler()["keep"])
    assert _close(l2.bound, 1 / (truthful - lying), 1e-14)


def _moments(segments) -> tuple[Fraction, Fraction]:
    """``E[Y]`` and ``E[Y^2]`` of a law made of uniform segments ``(mass, start, end)``."""
    first = sum(mass * (a + b) / 2 for mass, a, b in segments)
    second = sum(mass * (a * a + a * b + b * b) / 3 for mass, a, b in segments)
    return first, second


def _piecewise_segments(s, x: Fraction, scale: Fraction = Fraction(1)) -> list:
    window, tails = _law(s["keep"])
    c, width = Fraction(s["C"]), Fraction(s["width"])
    left = (c + 1) * x / 2 - width / 2
    per_length = tails / (c + 1)
    return [
        (scale * per_length * (left + c), -c, left),
        (scale * window, left, left + width),
        (scale * per_length * (c - left - width), left + width, c),
    ]


@pytest.mark.parametrize("eps", LEVELS)
def test_piecewise_decoder_and_variance_follow_the_law_sampled(eps):
    """The exact moments of the densities sampled: the decoder is unbiased and the variance
    is the decoded value's (independently of the closed form in the class)."""
    pm = Piecewise(eps)
    s = pm.sampler()
    for x in (Fraction(-1), Fraction(-3, 10), Fraction(0), Fraction(7, 10), Fraction(1)):
        mean, second = _moments(_piecewise_segments(s, x))
        decoded = Fraction(float(pm.decode(np.array([1.0]))[0]))  # 1 / kappa
        assert abs(mean * decoded - x) <= 1e-15 * max(abs(x), 1)
        variance = decoded**2 * (second - mean * mean)
        assert _close(float(pm.variance(1, float(x))), variance, 1e-12)
    if eps <= 1.0:  # and the closed form of Wang et al. for the real constants
        z = math.exp(eps / 2)
        assert pm.variance(1, 0.5) == pytest.approx(
            0.25 / (z - 1) + (z + 3) / (3 * (z - 1) ** 2), rel=1e-9
        )


@pytest.mark.parametrize("eps", [0.7, 1.0, 3.7, 50.0, 700.0])
def test_hybrid_decoder_and_variance_follow_the_law_sampled(eps):
    hybrid = Hybrid(eps)
    s = hybrid.sampler()
    alpha = _law(s["mix"])[0]
    truthful, lying = _law(s["duchi"]["keep"])
    bound = Fraction(s["bound"])
    scale = Fraction(float(hybrid.decode(np.array([0.0, s["bound"]]))[1])) / bound  # 1/lambda
    for x in (Fraction(-1), Fraction(1, 3), Fraction(1)):
        up = ((1 + x) / 2) * truthful + ((1 - x) / 2) * lying  # P(+B) of the Duchi branch
        atoms = [((1 - alpha) * up, bound, bound), ((1 - alpha) * (1 - up), -bound, -bound)]
        mean, second = _moments(_piecewise_segments(s["piecewise"], x, alpha) + atoms)
        assert abs(mean * scale - x) <= 1e-15 * max(abs(x), 1)
        variance = scale**2 * (second - mean * mean)
        assert _close(float(hybrid.variance(1, float(x))), variance, 1e-12)


@pytest.mark.parametrize("eps", LEVELS)
def test_square_wave_decoder_and_variance_follow_the_law_sampled(eps):
    sw = SquareWave(eps)
    s = sw.sampler()
    near, far = _law(s["keep"])
    b = Fraction(s["b"])
    for v in (Fraction(0), Fraction(1, 4), Fraction(1)):
        segments = [(near, v - b, v + b), (far * v, -b, v - b), (far * (1 - v), v + b, 1 + b)]
        mean, second = _moments([seg for seg in segments if seg[0]])
        # decode is affine, d(y) = (y - c) / g: read c and g from two points
        zero, one = (Fraction(float(y)) for y in sw.decode(np.array([0.0, s["step"] * 2**24])))
        slope = (one - zero) / (Fraction(s["step"]) * 2**24)
        assert abs(zero + slope * mean - v) <= 1e-9 * max(1, abs(zero))
        variance = slope**2 * (second - mean**2)
        assert _close(float(sw.variance(1, float(v))), variance, 1e-9)


def test_a_grr_protocol_states_epsilon_one(tmp_path):
    """A GRR question at eps = 1 states 1.0, and ``ldp report`` of its file prints it as the
    stated level and in plain terms (the numbers a respondent is shown)."""
    protocol = Protocol.from_mechanism(GRR(4, 1.0), labels=["a", "b", "c", "d"])
    assert protocol.epsilon == 1.0 and protocol.to_dict()["privacy"]["epsilon"] == 1.0
    path = tmp_path / "grr.json"
    path.write_text(protocol.to_json())
    command = [sys.executable, "-m", "ldp", "report", str(path)]
    data = json.loads(subprocess.run([*command, "--json"], capture_output=True, check=True).stdout)
    assert data["stated"]["epsilon"] == 1.0 and data["plain"]["epsilon"] == 1.0
    text = subprocess.run(command, capture_output=True, check=True, text=True).stdout
    assert "epsilon = 1)" in text
