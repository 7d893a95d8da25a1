"""The utilities a design maximises: sublinear ones (mutual information, f-divergences,
Fisher information) and linear gain matrices, scored on a channel by :func:`utility_value`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import xlogy

from ldp._staircase_lp import divergence_column_values
from ldp._validation import as_real_array, check_pmf
from ldp.channel import Channel

__all__ = ["SUBLINEAR", "Sublinear", "check_prior", "sublinear", "utility_value"]

SUBLINEAR = ("mi", "tv", "kl", "chi2", "hellinger", "fisher")


@dataclass(frozen=True)
class Sublinear:
    """A sublinear utility ``U(K) = sum_z mu(K[:, z])`` (Kairouz-Oh-Viswanath 2016, §2)."""

    name: str
    column_values: Callable[[np.ndarray], np.ndarray]  # (k, J) columns -> (J,) values
    symmetric: bool = False
    hypotheses: tuple[np.ndarray, np.ndarray] | None = None

    def of_channel(self, matrix: np.ndarray, kept: np.ndarray | None = None) -> float:
        return max(float(np.sum(self.column_values(matrix))), 0.0)


def sublinear(name: str, k: int, prior, hypotheses) -> Sublinear:
    """The named sublinear utility on ``k`` inputs (checks ``prior`` / ``hypotheses``)."""
    if name == "mi":
        if hypotheses is not None:
            raise ValueError("utility='mi' uses prior=, not hypotheses=")
        p = np.full(k, 1.0 / k) if prior is None else check_prior(prior, k)

        def mi(columns: np.ndarray) -> np.ndarray:
            out = p @ columns
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = xlogy(columns, columns) - columns * np.log(np.where(out > 0, out, 1.0))
            return (p[:, None] * terms).sum(axis=0)  # per column; may be negative

        return Sublinear("mi", mi, symmetric=bool(np.all(p == p[0])))
    if hypotheses is None:
        raise ValueError(f"utility={name!r} needs hypotheses=(p0, p1)")
    try:
        first, second = hypotheses
    except (TypeError, ValueError):
        raise ValueError(f"hypotheses must be a pair (p0, p1), got {hypotheses!r}") from None
    if name == "fisher":
        p = check_prior(first, k, "hypotheses[0]")
        score = as_real_array(second, "hypotheses[1]")
        if score.shape != (k,) or abs(score.sum()) > 1e-9:
            raise ValueError(
                "for utility='fisher', hypotheses=(p_theta, dp_theta/dtheta) with dp summing "
                f"to 0 and length {k}"
            )

        def fisher(columns: np.ndarray) -> np.ndarray:
            mass = p @ columns
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(mass > 0, (score @ columns) ** 2 / mass, 0.0)

        return Sublinear("fisher", fisher, hypotheses=(p, score))
    p0 = check_prior(first, k, "hypotheses[0]")
    p1 = check_prior(second, k, "hypotheses[1]")
    divergence = divergence_column_values(name, p0, p1)
    return Sublinear(name, divergence, hypotheses=(p0, p1))


def check_prior(prior: ArrayLike, k: int, name: str = "prior") -> np.ndarray:
    """A probability vector with ``k`` entries."""
    p = check_pmf(prior, name, ndim=1)
    if p.size != k:
        raise ValueError(f"{name} must have k = {k} entries, got {p.size}")
    return p


def utility_value(
    channel: Channel, utility: str | ArrayLike, *, prior=None, hypotheses=None
) -> float:
    """The utility of a channel, as :func:`optimal_channel` scores it.

    Parameters
    ----------
    channel : Channel
    utility : {"mi", "tv", "kl", "chi2", "hellinger", "fisher"} or array_like
        A named sublinear utility, or a gain matrix ``U[x, z]`` (expected gain under
        ``prior``, uniform by default).
    prior, hypotheses
        As in :func:`optimal_channel`.

    Returns
    -------
    float
        The utility of ``channel``.

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.design import utility_value
    >>> round(utility_value(randomized_response(1.0), "mi"), 6)  # log 2 - h(1 / (1 + e))
    0.110944
    """
    if not isinstance(channel, Channel):
        raise TypeError(f"channel must be a Channel, got {type(channel).__name__}")
    k = channel.n_inputs
    if isinstance(utility, str):
        if utility not in SUBLINEAR:
            raise ValueError(
                f"utility must be one of {SUBLINEAR} or a gain matrix, got {utility!r}"
            )
        return sublinear(utility, k, prior, hypotheses).of_channel(channel.matrix)
    gains = as_real_array(utility, "utility")
    if gains.shape != channel.shape:
        raise ValueError(f"utility matrix must have shape {channel.shape}, got {gains.shape}")
    p = np.full(k, 1.0 / k) if prior is None else check_prior(prior, k)
    return float(np.sum(p[:, None] * channel.matrix * gains))
