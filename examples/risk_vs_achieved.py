"""How well can anyone estimate a k-ary distribution from locally private reports?

For k = 10 letters, n users and eps-LDP, the script prints the minimax lower bound of
``ldp.risk.distribution_estimation`` (the van Trees or the block-Fano bound of
``ldp.risk.bounds.minimax``, whichever is larger; proofs in docs/lower_bounds.md) beside the
exact risk that k-RR with the unbiased frequency estimator achieves at the uniform
distribution (its worst case under squared l2 loss), and the ratio between the two. The
same for l1 loss.

With matplotlib installed it also plots both against n for each eps. Usage::

    python examples/risk_vs_achieved.py [output.png]

The figure goes to ``output.png`` if given, else to a temporary directory.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ldp.risk import distribution_estimation, krr_distribution_risk

K = 10
NS = (100, 1_000, 10_000, 100_000)
EPSILONS = (0.5, 1.0, 2.0, 4.0)
LOSSES = {"l2sq": "squared l2", "l1": "l1"}


def rows(loss: str):
    """One record per (eps, n): lower bound, achieved risk and the bound's route."""
    for eps in EPSILONS:
        for n in NS:
            lower = distribution_estimation(K, n, eps, loss=loss)
            achieved = krr_distribution_risk(K, n, eps, loss=loss)
            yield eps, n, lower, achieved


def print_table(loss: str, records) -> None:
    print(f"\nk = {K}, loss = {LOSSES[loss]}: minimax lower bound vs k-RR (uniform p)")
    header = f"{'eps':>5} {'n':>8} {'lower bound':>12} {'k-RR risk':>12} {'ratio':>8}  route"
    print(header)
    print("-" * len(header))
    for eps, n, lower, achieved in records:
        ratio = achieved.value / lower.value
        print(
            f"{eps:>5.2g} {n:>8d} {lower.value:>12.4e} {achieved.value:>12.4e} "
            f"{ratio:>8.1f}  {lower.route}"
        )


def plot(tables: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(tables), figsize=(11, 4.2))
    for ax, (loss, records) in zip(axes, tables.items(), strict=True):
        for i, eps in enumerate(EPSILONS):
            mine = [r for r in records if r[0] == eps]
            ns = [r[1] for r in mine]
            color = f"C{i}"
            ax.loglog(ns, [r[3].value for r in mine], "-o", color=color, label=f"k-RR, eps={eps}")
            ax.loglog(
                ns, [r[2].value for r in mine], "--", color=color, label=f"lower bound, eps={eps}"
            )
        ax.set_xlabel("n (users)")
        ax.set_ylabel(f"risk ({LOSSES[loss]})")
        ax.set_title(f"k = {K}: lower bound vs achieved")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str]) -> None:
    tables = {loss: list(rows(loss)) for loss in LOSSES}
    for loss, records in tables.items():
        print_table(loss, records)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("\nmatplotlib is not installed: no figure")
        return
    path = Path(argv[0]) if argv else Path(tempfile.mkdtemp()) / "risk_vs_achieved.png"
    plot(tables, path)
    print(f"\nfigure saved to {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
