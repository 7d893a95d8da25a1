"""The mean of users' text embeddings under local DP: PrivUnit against Duchi et al.'s l2 mechanism.

1. The server publishes a protocol for unit vectors in ``R^64`` at epsilon = 4: PrivUnit, with
   the cap threshold that minimises the error and the whole budget spent (the Theorem 1 split
   of the reference implementations would spend 3.6 of the 4 and be noisier).
2. Each device normalises its embedding and privatizes it with the dependency-free client
   (``clients/python/ldp_client.py``, operating-system entropy), sending one report of 64
   numbers.
3. The server checks the fingerprints, decodes and averages: ``VectorMeanEstimator``, with
   the exact variance and a distribution-free error radius beside the estimate.

Run: ``python examples/embedding_mean.py [figure.png]``.
"""

import sys
from pathlib import Path

import numpy as np

from estimators import VectorMeanEstimator
from ldp.mechanisms import DuchiL2, PrivUnit, PrivUnitG, privunit_design
from ldp.protocol import Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clients" / "python"))
import ldp_client  # the device's one-file client

D = 64
EPSILON = 4.0
USERS = 2_000


def embeddings(n: int, d: int, seed: int) -> np.ndarray:
    """Synthetic unit embeddings: three topics, each a direction plus noise."""
    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(3, d))
    x = topics[rng.integers(0, 3, n)] + rng.normal(scale=1.5, size=(n, d))
    return x / np.linalg.norm(x, axis=1)[:, None]


def main(figure: str | None = None) -> None:
    x = embeddings(USERS, D, seed=7)
    truth = x.mean(axis=0)

    # --- server: publish the protocol
    mech = PrivUnit(EPSILON, D)
    protocol = Protocol.from_mechanism(mech)
    print(f"protocol {protocol.fingerprint}: {mech.key}")
    print(f"  exactly {mech.epsilon:.6g}-LDP; cap threshold {mech.gamma:.4f}, p = {mech.p:.4f}")

    # --- devices: one report each, from the stdlib client. A device cannot bound PrivUnit's
    # privacy exactly from the file's constants, so it runs PrivUnit only when the app pins
    # the exact file it was built with (the app's own policy, shipped with it)
    document = protocol.to_dict()
    policy = {"pinned_fingerprints": [protocol.pin]}
    records = [ldp_client.privatize(document, row.tolist(), policy=policy) for row in x]

    # --- server: decode and average
    est = VectorMeanEstimator(protocol=protocol).fit_reports(records)
    error = float(np.sum((est.mean_ - truth) ** 2))
    print(f"{est.n_reports_} reports; squared error of the mean {error:.4f}")
    print(f"  exact worst-case variance {est.variance():.4f}")
    print(
        f"  95% error radius (Chebyshev) {est.error_radius(0.05):.3f}; "
        f"observed distance {np.sqrt(error):.3f}"
    )

    print(f"\nper-user error E||Z - u||^2 in d = {D}:")
    print(f"{'epsilon':>8} {'PrivUnit':>10} {'Theorem 1':>10} {'PrivUnitG':>10} {'DuchiL2':>10}")
    epsilons = [0.5, 1.0, 2.0, 4.0, 8.0]
    table = []
    for eps in epsilons:
        row = [
            privunit_design(eps, D).error,
            privunit_design(eps, D, split="theorem1").error,
            PrivUnitG(eps, D).worst_case_variance() - 1,
            DuchiL2(eps, D).worst_case_variance() - 1,
        ]
        table.append(row)
        print(f"{eps:8g} " + " ".join(f"{v:10.2f}" for v in row))

    if figure:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib not installed: skipping the figure")
            return
        fig, ax = plt.subplots(figsize=(5, 3.5))
        values = np.array(table)
        for j, label in enumerate(["PrivUnit", "Theorem 1 split", "PrivUnitG", "DuchiL2"]):
            ax.plot(epsilons, values[:, j], "o-", label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("epsilon per user")
        ax.set_ylabel(f"E||Z - u||^2 (d = {D})")
        ax.legend()
        fig.tight_layout()
        fig.savefig(figure)
        print(f"figure written to {figure}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
