"""A daily telemetry question, a year of reports: what memoization buys, and what it costs.

Every day each client reports which of 8 browser home pages it uses. Fresh noise every day
would average out: after a year the server would know the answer. Memoized mechanisms
(RAPPOR-style: a permanent randomized response per value, kept on the device, and fresh
instantaneous noise each day) bound the loss of an unchanged answer by the permanent level,
however many days pass.

1. The loss of ``t`` daily reports of an unchanged answer, exactly (``epsilon_repeated``),
   beside fresh noise every day (``t * eps_1``) and the shortcut ``min(eps_inf, t * eps_1)``,
   which is not an upper bound.
2. The loss over a year for clients whose answer changes ``c`` times (``epsilon_rounds``).
3. A week of simulated rounds: each client keeps its memo; the server's daily estimates.

Run: ``python examples/longitudinal_daily_question.py``.
"""

import numpy as np

from ldp.mechanisms import LGRR, LOSUE, DBitFlipPM

K = 8
EPS_PERMANENT, EPS_ONE = 2.0, 0.5
CLIENTS = 20_000


def main() -> None:
    mechanisms = [
        LOSUE(K, EPS_ONE, EPS_PERMANENT),
        LGRR(K, EPS_ONE, EPS_PERMANENT),
        DBitFlipPM(K, EPS_ONE, b=K, d=2),
    ]
    print(f"1. an unchanged answer, reported daily (eps_inf = {EPS_PERMANENT}, eps_1 = {EPS_ONE})")
    print(f"{'days':>6} {'fresh noise':>12} {'min(inf,t e1)':>14}", end="")
    print("".join(f"{m.name:>14}" for m in mechanisms))
    for days in (1, 2, 7, 30, 365):
        fresh = days * EPS_ONE
        shortcut = min(EPS_PERMANENT, days * EPS_ONE)
        row = "".join(f"{m.epsilon_repeated(days):>14.4f}" for m in mechanisms)
        print(f"{days:>6} {fresh:>12.4f} {shortcut:>14.4f}{row}")
    big = LGRR(1024, 0.2, 4.0)
    print(
        f"   L-GRR k=1024, eps_inf=4, eps_1=0.2: 5 reports leak {big.epsilon_repeated(5):.4f}, "
        "not min(4, 5 x 0.2) = 1.0"
    )

    print("\n2. a year of daily reports, the answer changing c times")
    print(f"{'c':>6}" + "".join(f"{m.name:>14}" for m in mechanisms))
    for changes in (0, 1, 3, 10):
        print(
            f"{changes:>6}"
            + "".join(f"{m.epsilon_rounds(365, changes):>14.4f}" for m in mechanisms)
        )
    print("   (bounds between histories that change at the same days; any two histories:")
    print(
        "    " + ", ".join(f"{m.name} {m.epsilon_any_history(365):.4g}" for m in mechanisms) + ")"
    )

    print(f"\n3. a week of rounds, {CLIENTS} clients keeping their memos (L-OSUE)")
    mech = mechanisms[0]
    rng = np.random.default_rng(7)
    values = rng.choice(K, size=CLIENTS, p=np.arange(1, K + 1) / (K * (K + 1) / 2))
    memos = None
    for day in range(1, 8):
        movers = rng.random(CLIENTS) < 0.05  # a few clients change their answer each day
        values = np.where(movers, rng.integers(0, K, CLIENTS), values)
        reports, memos = mech.privatize_round(values, memos, rng=rng)
        truth = np.bincount(values, minlength=K) / CLIENTS
        error = np.abs(mech.estimate(reports) - truth).max()
        sd = np.sqrt(mech.variance(CLIENTS, truth).max())
        print(f"   day {day}: largest error {error:.4f} (standard deviation {sd:.4f})")
    print(f"   a memo stays on the device, e.g. {memos[0]!r}")


if __name__ == "__main__":
    main()
