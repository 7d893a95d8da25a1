"""RAPPOR with Bloom filters: the hash against hashlib, the levels against the formulas and the
enumerated law of repeated reports, the sampler against its law, the memo across rounds, and
the decoder's unbiasedness by simulation."""

import hashlib
import itertools
import math

import numpy as np
import pytest

from ldp.mechanisms import BloomRAPPOR, Memo, bloom_positions


def test_hash_is_sha256_of_cohort_and_utf8_value():
    for value, cohort, m, h in [("abc", 0, 128, 2), ("été.fr", 7, 16, 8), ("", 65535, 3, 1)]:
        hashed = hashlib.sha256(cohort.to_bytes(4, "big") + value.encode("utf-8")).digest()
        words = [int.from_bytes(hashed[4 * i : 4 * i + 4], "big") for i in range(h)]
        assert bloom_positions(value, cohort, m, h) == tuple(w % m for w in words)
    # a large filter
    hashed = hashlib.sha256(b"\x00\x00\x00\x00abc").digest()
    assert bloom_positions("abc", 0, 2**16, 2) == (
        int.from_bytes(hashed[:4], "big") % 2**16,
        int.from_bytes(hashed[4:8], "big") % 2**16,
    )
    assert bloom_positions("abc", 0, 64, 2) != bloom_positions("abc", 1, 64, 2)  # cohorts differ


def _levels(h, f, p, q, t):
    """The formulas of the privacy levels, written out (no library code)."""
    half = f / 2
    q_star, p_star = half * (p + q) + (1 - f) * q, half * (p + q) + (1 - f) * p
    perm = 2 * h * math.log((1 - half) / half)
    one = h * math.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))
    rep = h * (
        math.log(((1 - half) * q**t + half * p**t) / (half * q**t + (1 - half) * p**t))
        + math.log(
            ((1 - half) * (1 - p) ** t + half * (1 - q) ** t)
            / (half * (1 - p) ** t + (1 - half) * (1 - q) ** t)
        )
    )
    return perm, one, rep


@pytest.mark.parametrize(
    "h,f,p,q", [(2, 0.5, 0.5, 0.75), (1, 0.25, 0.25, 0.75), (4, 0.1, 0.3, 0.6)]
)
def test_levels_match_the_formulas(h, f, p, q):
    r = BloomRAPPOR(num_bits=64, num_hashes=h, num_cohorts=4, f=f, p=p, q=q)
    for t in (1, 2, 3, 10, 50):
        perm, one, rep = _levels(h, f, p, q, t)
        assert perm <= r.epsilon_permanent <= perm * (1 + 1e-12)
        assert one <= r.epsilon <= one * (1 + 1e-12)
        assert min(rep, perm) <= r.epsilon_repeated(t) <= min(rep, perm) * (1 + 1e-12) + 1e-15
    # the values of the worked example (h = 2, f = 0.5, p = 0.5, q = 0.75), recomputed from the
    # closed form of eps_t and q* = f(p+q)/2 + (1-f)q, p* = f(p+q)/2 + (1-f)p (exact)
    if (h, f, p, q) == (2, 0.5, 0.5, 0.75):
        assert r.epsilon_permanent == pytest.approx(math.log(81), rel=1e-12)
        assert [round(r.epsilon_repeated(t), 4) for t in (1, 2, 5, 10, 100)] == [
            1.0743,
            2.0170,
            3.6560,
            4.2993,
            4.3944,
        ]
        assert r.report_probabilities == pytest.approx((0.6875, 0.5625))


def _disjoint_strings(m, h, cohort=0):
    """Two strings whose h positions in the cohort are distinct and disjoint."""
    found = []
    for i in itertools.count():
        s = f"s{i}"
        pos = set(bloom_positions(s, cohort, m, h))
        if len(pos) == h and all(not (pos & other) for _, other in found):
            found.append((s, pos))
        if len(found) == 2:
            return found


@pytest.mark.parametrize("t", [1, 2, 3])
def test_repeated_reports_against_the_enumerated_law(t):
    """The exact law of t reports on the 2h bits where two strings differ, enumerated over
    every output: its largest log-ratio is epsilon_repeated(t)."""
    h, m, f, p, q = 2, 16, 0.5, 0.25, 0.75
    r = BloomRAPPOR(num_bits=m, num_hashes=h, num_cohorts=1, f=f, p=p, q=q)
    (_, pos_a), (_, pos_b) = _disjoint_strings(m, h)
    bits = sorted(pos_a | pos_b)
    half = f / 2

    def law(pos):
        out = {}
        for outcome in itertools.product((0, 1), repeat=len(bits) * t):
            prob = 1.0
            for j, bit in enumerate(bits):
                reports = outcome[j * t : (j + 1) * t]
                signal = 1 if bit in pos else 0
                total = 0.0
                for memo in (0, 1):
                    pm = (1 - half) if memo == signal else half
                    rate = q if memo else p
                    total += pm * np.prod([rate if s else 1 - rate for s in reports])
                prob *= total
            out[outcome] = prob
        return out

    first, second = law(pos_a), law(pos_b)
    worst = max(max(math.log(first[o] / second[o]), math.log(second[o] / first[o])) for o in first)
    assert worst <= r.epsilon_repeated(t) <= worst * (1 + 1e-9)
    assert r.epsilon_repeated(t) <= r.epsilon_permanent
    assert r.epsilon_rounds(t, changes=1) >= r.epsilon_repeated(t)
    assert r.epsilon_any_history(t) >= r.epsilon_repeated(t)


def test_sampler_matches_its_law():
    r = BloomRAPPOR(num_bits=32, num_hashes=2, num_cohorts=1, f=0.5, p=0.25, q=0.75)
    n = 40_000
    reports, cohorts, _ = r.privatize_round(["x.org"] * n, rng=12345)
    assert (cohorts == 0).all()
    signal = np.zeros(32, dtype=bool)
    signal[list(bloom_positions("x.org", 0, 32, 2))] = True
    q_star, p_star = r.report_probabilities
    rates = reports.mean(axis=0)
    expected = np.where(signal, q_star, p_star)
    z = (rates - expected) / np.sqrt(expected * (1 - expected) / n)
    assert np.all(np.abs(z) < 4.5), z
    # q* and p* from the two rounds: f/2 (p + q) + (1 - f) q and f/2 (p + q) + (1 - f) p
    assert q_star == pytest.approx(0.25 * 1.0 + 0.5 * 0.75)
    assert p_star == pytest.approx(0.25 * 1.0 + 0.5 * 0.25)


def test_memo_keeps_the_cohort_and_the_permanent_response():
    r = BloomRAPPOR(num_bits=64, num_hashes=2, num_cohorts=8, f=0.5, p=0.5, q=0.75)
    _, cohorts, memos = r.privatize_round(["a", "b", "c"], rng=1)
    for day in range(5):
        _, again, new = r.privatize_round(["a", "b", "c"], memos, rng=100 + day)
        assert (again == cohorts).all()
        assert new == memos  # nothing new memoized for the same strings
    _, _, changed = r.privatize_round(["a", "z", "c"], memos, rng=7)
    assert len(changed[1].entries) == 2 and changed[0] == memos[0]
    # memos survive JSON (stored on the device)
    assert Memo.from_json(changed[1].to_json()) == changed[1]
    # a memoized PRR that is all ones at p = 0, q = 1 reports exactly the memo
    exact = BloomRAPPOR(num_bits=16, num_hashes=2, num_cohorts=1, f=0.5, p=0.0, q=1.0)
    first, _, memo = exact.privatize_round(["v"], rng=3)
    for seed in range(5):
        again, _, _ = exact.privatize_round(["v"], memo, rng=seed)
        assert (again == first).all()
    other = BloomRAPPOR(num_bits=16, num_hashes=2, num_cohorts=2, f=0.5, p=0.0, q=1.0)
    with pytest.raises(ValueError, match="written by"):
        other.privatize_round(["v"], memo)


def test_bit_estimates_are_unbiased_and_decoding_recovers_the_fractions():
    r = BloomRAPPOR(num_bits=64, num_hashes=2, num_cohorts=8, f=0.25, p=0.25, q=0.75)
    candidates = [f"site{i}.example" for i in range(10)]
    truth = np.array([0.3, 0.2, 0.15, 0.1, 0.1, 0.05, 0.05, 0.05, 0.0, 0.0])
    n = 4000
    counts = np.round(truth * n).astype(int)
    values = [c for c, k in zip(candidates, counts, strict=True) for _ in range(k)]
    estimates, errors = [], []
    for seed in range(24):
        reports, cohorts, _ = r.privatize_round(values, rng=seed)
        t, var = r.estimate_bits(reports, cohorts)
        true_ones = np.zeros((8, 64))
        np.add.at(true_ones, cohorts, r.bloom_filter(values, cohorts))
        errors.append(((t - true_ones) / np.sqrt(var + 1e-12)).ravel())
        estimates.append(r.estimate(reports, cohorts, candidates, method="lstsq"))
    # the bit counts: standardized errors centred at 0 with unit spread
    e = np.concatenate(errors)
    assert abs(e.mean()) < 4.5 / math.sqrt(e.size) * 1.2 and 0.8 < e.std() < 1.2
    # least squares: the mean over runs is within 4.5 standard errors of the true fractions
    est = np.array(estimates)
    se = est.std(axis=0, ddof=1) / math.sqrt(est.shape[0])
    assert np.all(np.abs(est.mean(axis=0) - counts / n) < 4.5 * se + 1e-9)
    # non-negative least squares: >= 0, and the largest candidate found
    reports, cohorts, _ = r.privatize_round(values * 5, rng=99)
    fit = r.estimate(reports, cohorts, candidates)
    assert np.all(fit >= 0) and int(np.argmax(fit)) == 0
    assert np.abs(fit - truth).max() < 0.05


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_hashes": 9}, "num_hashes"),
        ({"num_bits": 0}, "num_bits"),
        ({"num_cohorts": 0}, "num_cohorts"),
        ({"f": 1.0}, "f must"),
        ({"p": 0.8}, "p < q"),
    ],
)
def test_bad_parameters(kwargs, match):
    base = {"num_bits": 16, "num_hashes": 2, "num_cohorts": 2, "f": 0.5, "p": 0.5, "q": 0.75}
    with pytest.raises(ValueError, match=match):
        BloomRAPPOR(**{**base, **kwargs})


def test_bad_inputs():
    r = BloomRAPPOR(num_bits=16, num_hashes=2, num_cohorts=2, f=0.5, p=0.5, q=0.75)
    with pytest.raises(TypeError, match="values"):
        r.privatize_round("abc")
    with pytest.raises(TypeError, match=r"values\[1\]"):
        r.privatize_round(["a", 3])
    reports, cohorts, _ = r.privatize_round(["a", "b"], rng=0)
    with pytest.raises(ValueError, match="cohorts"):
        r.estimate(reports, cohorts + 5, ["a"])
    with pytest.raises(ValueError, match="reports"):
        r.estimate(reports[:, :8], cohorts, ["a"])
    with pytest.raises(ValueError, match="distinct"):
        r.estimate(reports, cohorts, ["a", "a"])
    with pytest.raises(ValueError, match="method"):
        r.estimate(reports, cohorts, ["a"], method="lasso")
