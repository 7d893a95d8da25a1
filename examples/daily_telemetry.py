"""A daily telemetry question, a year of reports.

Every day each of a million devices answers "which of 16 features did you use most today?"
with 16-ary randomized response (k-RR), for a year. The privacy policy asks that the whole
year of one device's reports be (1, 1e-6)-differentially private. The script answers the
three questions such a deployment asks:

1. without a shuffler, which per-report epsilon meets the policy after 365 reports (exact
   composition), and how noisy is one day's frequency estimate then?
2. with a shuffler mixing the day's million reports, what central guarantee does the
   per-report epsilon of 4 that deployments use give, for one day and for the year
   (the clone bound of Feldman-McMillan-Talwar (2021), with the k-RR clone probability of
   Feldman-McMillan-Talwar (2023), composed over 365 rounds)?
3. with the shuffler, which per-report epsilon meets the policy, and how noisy is a day's
   estimate at that level?

Every privacy number is an upper bound that holds (re-accounted below). Usage::

    python examples/daily_telemetry.py [figure.png]

With matplotlib installed it also draws the central epsilon of one shuffled day against the
number of devices for several local epsilons (to ``figure.png`` if given).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import ldp
from ldp.accounting import calibrate, compose, shuffle_amplification
from ldp.mechanisms import GRR

K = 16
DEVICES = 1_000_000
DAYS = 365
TARGET = (1.0, 1e-6)
DEPLOYED = 4.0


def daily_sd(epsilon0: float) -> float:
    """Standard deviation of one day's estimate of a rare feature's frequency (f = 0)."""
    return float(GRR(K, epsilon0).variance(DEVICES)) ** 0.5


def year_without_shuffler() -> dict:
    eps0 = calibrate(*TARGET, mechanism="k-rr", k=K, folds=DAYS)
    achieved = compose(ldp.k_rr(K, eps0), DAYS).epsilon_for_delta(TARGET[1])
    deployed = compose(ldp.k_rr(K, DEPLOYED), DAYS).epsilon_for_delta(TARGET[1])
    return {
        "epsilon0": eps0,
        "year_epsilon": float(achieved),
        "deployed_year_epsilon": float(deployed),
        "sd": daily_sd(eps0),
    }


def year_with_shuffler() -> dict:
    mech = ldp.k_rr(K, DEPLOYED)
    day = shuffle_amplification(DEPLOYED, DEVICES, TARGET[1], mechanism=mech)
    year = shuffle_amplification(DEPLOYED, DEVICES, TARGET[1], mechanism=mech, rounds=DAYS)
    eps0 = calibrate(*TARGET, mechanism="k-rr", k=K, folds=DAYS, n_shuffled=DEVICES, rtol=1e-2)
    check = shuffle_amplification(
        eps0, DEVICES, TARGET[1], mechanism=ldp.k_rr(K, eps0), rounds=DAYS
    )
    return {
        "day_epsilon": day.epsilon,
        "year_epsilon": year.epsilon,
        "citation": year.citation,
        "epsilon0": eps0,
        "calibrated_year_epsilon": check.epsilon,
        "sd_deployed": daily_sd(DEPLOYED),
        "sd": daily_sd(eps0),
    }


def main(argv: list[str]) -> None:
    eps, delta = TARGET
    print(f"{DEVICES:,} devices, one {K}-RR report a day for {DAYS} days")
    print(f"policy: the year of one device's reports is ({eps:g}, {delta:g})-DP\n")

    plain = year_without_shuffler()
    print("1. no shuffler (exact composition of 365 reports)")
    print(f"   per-report epsilon meeting the policy     {plain['epsilon0']:.4f}")
    print(f"   the year at that epsilon                  {plain['year_epsilon']:.4f}")
    deployed = plain["deployed_year_epsilon"]
    print(f"   the year at a per-report epsilon of {DEPLOYED:g}     {deployed:.1f}")
    print(f"   sd of a day's frequency estimate          {plain['sd']:.4f}\n")

    shuffled = year_with_shuffler()
    print(f"2. shuffler, per-report epsilon {DEPLOYED:g} ({shuffled['citation']})")
    print(f"   one shuffled day                          {shuffled['day_epsilon']:.4f}")
    print(f"   the year (365 shuffled rounds)            {shuffled['year_epsilon']:.4f}")
    print(f"   sd of a day's frequency estimate          {shuffled['sd_deployed']:.6f}\n")

    print("3. shuffler, calibrated to the policy")
    print(f"   per-report epsilon meeting the policy     {shuffled['epsilon0']:.4f}")
    print(f"   the year at that epsilon                  {shuffled['calibrated_year_epsilon']:.4f}")
    print(f"   sd of a day's frequency estimate          {shuffled['sd']:.6f}")
    print(f"   noise reduction against no shuffler       {plain['sd'] / shuffled['sd']:.0f}x")

    try:
        import matplotlib
    except ImportError:
        print("\nmatplotlib is not installed: skipping the figure")
        return
    matplotlib.use("Agg")
    from ldp.plotting import ShuffleDisplay

    display = ShuffleDisplay.from_epsilons(
        [2.0, 4.0, 8.0], [1_000, 10_000, 100_000, 1_000_000], delta=delta, k=K
    )
    path = Path(argv[0]) if argv else Path(tempfile.mkdtemp()) / "daily_telemetry.png"
    display.figure_.savefig(path)
    print(f"\nfigure: {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
