"""Design a client-side privatizer for a survey question with a known prior.

Question: "How many days a week do you exercise?" with answers 0, 1-2, 3-4, 5-7 and a prior
from last year's (non-private) survey. We look for the eps = 1 channel that keeps the most
information about the answer (mutual information), certify it, compare it with randomized
response, and print its contraction coefficients.

Run: ``python examples/design_survey_privatizer.py``.
"""

import numpy as np

import ldp
from ldp.design import compare, optimal_channel

ANSWERS = ["0 days", "1-2 days", "3-4 days", "5-7 days"]
PRIOR = np.array([0.30, 0.35, 0.25, 0.10])
EPSILON = 1.0


def main() -> None:
    result = optimal_channel(len(ANSWERS), EPSILON, utility="mi", prior=PRIOR)
    channel = result.channel
    print(f"Optimal eps = {EPSILON} privatizer ({result.method}, solver {result.solver})")
    with np.printoptions(precision=4, suppress=True):
        print(channel.matrix)
    print(
        f"certified: epsilon = {channel.epsilon:.6f}, delta({EPSILON}) = "
        f"{channel.delta(EPSILON):.3g}, eta-TV = {channel.tv:.4f}"
    )
    print(
        f"mutual information kept: {result.value:.4f} nats "
        f"(the answer carries {-(PRIOR * np.log(PRIOR)).sum():.4f})"
    )
    print()
    print("Against the standard mechanisms, on the same utility:")
    print(compare(len(ANSWERS), EPSILON, utility="mi", prior=PRIOR).to_string(index=False))
    print()
    print("Contraction coefficients of the designed channel and of 4-RR:")
    krr = ldp.k_rr(4, EPSILON)
    for kind in ("tv", "chi2", "kl"):
        print(
            f"  {kind:<5} designed {float(channel.contraction(kind)):.4f}   "
            f"4-RR {float(krr.contraction(kind)):.4f}"
        )


if __name__ == "__main__":
    main()
