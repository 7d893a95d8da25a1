"""Exact contraction coefficients of common LDP mechanisms beside every theorem bound.

For randomized response, k-RR (k = 4, 16) and the dominating binary mechanism with erasure
of Ghazi-Issa (2023) (here with delta = 0.01 and half of the largest useful TV level), at
eps in {0.5, 1, 2, 4}, the script prints the exact KL, chi^2, TV and E_gamma
(gamma = e^{eps/2}) coefficients and, beside each, every bound of Ghazi-Issa (2023) and
Asoodeh-Aliakbarpour-Calmon (2021) that applies, computed from the mechanism's own epsilon,
delta profile and TV. The best bound is marked with ``*``.

With matplotlib installed it also plots exact KL against the best bound and the Lemma 1 factor
of Asoodeh-Aliakbarpour-Calmon (2021). Usage::

    python examples/contraction_table.py [output.png]

The figure goes to ``output.png`` if given, else to a temporary directory.
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

from ldp import binary_erasure, eta_max, k_rr, randomized_response
from ldp.contraction import best_bound, coefficient

EPSILONS = (0.5, 1.0, 2.0, 4.0)
LEMMA_1 = "Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1"
COLUMNS = {
    "Dobrushin (eta_f <= eta_TV)": "Dobrushin",
    "Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1": "Lemma1",
    "tight sup over Q_{eps,delta}": "tight",
    "Asoodeh-Aliakbarpour-Calmon (2021), Theorem 1": "Thm1",
    "Ghazi-Issa (2023), Theorem 5": "Thm5",
    "Ghazi-Issa (2023), eq. (34)": "eq34",
    "Ghazi-Issa (2023), Theorem 5, (eps, delta) extension (derived)": "Thm5(d)",
}


def mechanisms(eps: float) -> dict:
    delta = 0.01
    return {
        "RR": randomized_response(eps),
        "4-RR": k_rr(4, eps),
        "16-RR": k_rr(16, eps),
        "erasure": binary_erasure(eps, delta, 0.5 * (delta + eta_max(eps, delta))),
    }


def rows():
    """One record per (mechanism, eps, kind): exact value and every bound."""
    for eps in EPSILONS:
        for name, channel in mechanisms(eps).items():
            gamma = math.exp(eps / 2.0)
            for kind, kw in (
                ("kl", {}),
                ("chi2", {}),
                ("tv", {}),
                ("hockey_stick", {"gamma": gamma}),
            ):
                exact = coefficient(channel, kind, **kw)
                bound = best_bound(channel, kind, **kw)
                label = "E_g" if kind == "hockey_stick" else kind
                yield name, eps, label, exact.value, bound


def print_table(records) -> None:
    header = f"{'mechanism':<9} {'eps':>4} {'kind':<5} {'exact':>9} " + " ".join(
        f"{short:>10}" for short in COLUMNS.values()
    )
    print(header)
    print("-" * len(header))
    for name, eps, label, exact, bound in records:
        cells = []
        for theorem in COLUMNS:
            found = [c for c in bound.candidates if c.theorem == theorem]
            if not found:
                cells.append(f"{'-':>10}")
                continue
            mark = "*" if theorem == bound.theorem else " "
            cells.append(f"{found[0].value:>9.6f}{mark}")
        print(f"{name:<9} {eps:>4g} {label:<5} {exact:>9.6f} " + " ".join(cells))
        # every bound is a valid upper bound on the exact coefficient
        assert all(exact <= c.value + 1e-12 for c in bound.candidates)


def plot(records, path: Path) -> Path | None:
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed; skipping the figure")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(14, 3.2), sharey=True)
    names = ("RR", "4-RR", "16-RR", "erasure")
    for ax, name in zip(axes, names):
        kl = [r for r in records if r[0] == name and r[2] == "kl"]
        eps = [r[1] for r in kl]
        ax.plot(eps, [r[3] for r in kl], "o-", label="exact eta_KL")
        ax.plot(eps, [r[4].value for r in kl], "s--", label="best bound")
        lemma = [next(c.value for c in r[4].candidates if c.theorem == LEMMA_1) for r in kl]
        ax.plot(eps, lemma, "^:", label=LEMMA_1)
        ax.set_title(name)
        ax.set_xlabel("epsilon")
    axes[0].set_ylabel("KL contraction")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"figure written to {path}")
    return path


def main(argv: list[str]) -> None:
    records = list(rows())
    print_table(records)
    if len(argv) > 1:
        path = Path(argv[1])
    else:
        path = Path(tempfile.mkdtemp(prefix="ldp-contraction-")) / "contraction_table.png"
    plot(records, path)


if __name__ == "__main__":
    main(sys.argv)
