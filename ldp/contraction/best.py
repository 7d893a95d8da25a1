r"""The best theorem bound on a channel's contraction coefficient (see :mod:`ldp.contraction`)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._formulas import eta_max
from ldp.channel import Channel
from ldp.contraction._checks import as_channel, check_gamma, check_kind
from ldp.contraction.bounds import phi, worst_case_hockey_stick
from ldp.contraction.results import BoundCandidate, ContractionBound

__all__ = ["best_bound"]

#: The names of the theorems :func:`best_bound` tries (``BoundCandidate.theorem``).
DOBRUSHIN = "Dobrushin (eta_f <= eta_TV)"
GI_THEOREM_5 = "Ghazi-Issa (2023), Theorem 5"
GI_EQ_34 = "Ghazi-Issa (2023), eq. (34)"
AAC_THEOREM_1 = "Asoodeh-Aliakbarpour-Calmon (2021), Theorem 1"
TIGHT_SUP = "tight sup over Q_{eps,delta}"
GI_THEOREM_5_EXTENSION = "Ghazi-Issa (2023), Theorem 5, (eps, delta) extension (derived)"
AAC_LEMMA_1 = "Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1"

#: Most likelihood-ratio levels :func:`best_bound` evaluates the profile at.
_MAX_RATIO_LEVELS = 48


def _levels(K: Channel) -> np.ndarray:
    """Privacy levels at which the channel's profile ``(eps, delta(eps))`` is used.

    A grid, plus the channel's own log-likelihood ratios: the delta profile is piecewise
    linear in ``e^eps`` with breakpoints there, which is where the bounds built from it
    tend to be smallest.
    """
    matrix = K.matrix
    k, m = matrix.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(matrix)
        if k * k * m <= 1 << 16:
            ratios = (logs[:, None, :] - logs[None, :, :]).ravel()
        else:  # column extremes only: the largest ratio each output can show
            ratios = logs.max(axis=0) - logs.min(axis=0)
    ratios = np.unique(ratios[np.isfinite(ratios) & (ratios > 0)])
    if ratios.size > _MAX_RATIO_LEVELS:
        ratios = np.quantile(ratios, np.linspace(0.0, 1.0, _MAX_RATIO_LEVELS))
    eps = K.epsilon
    if math.isfinite(eps):
        grid = eps * np.linspace(0.0, 1.0, 17)
    else:
        grid = np.concatenate(([0.0], np.geomspace(0.02, 30.0, 24), [math.inf]))
    return np.unique(np.concatenate((grid, ratios)))


def best_bound(
    channel: Channel | ArrayLike, kind: str, *, gamma: float | None = None
) -> ContractionBound:
    r"""The best theorem bound on :math:`\eta_{\text{kind}}(K)` from the channel's privacy.

    Every bound uses only the channel's exact ``tv`` and its privacy profile: the channel is
    :math:`(\varepsilon, \delta(\varepsilon))`-LDP at every level, so a theorem stated for
    :math:`\mathcal Q_{\varepsilon,\delta}` may be applied at any level. Candidates, in the
    order they are listed (on a tie, to rounding, the first one is named):

    * ``"Dobrushin (eta_f <= eta_TV)"``: ``tv`` (Asoodeh-Aliakbarpour-Calmon (2021), eq. (30);
      for ``kind="tv"`` it is the coefficient itself);
    * KL, chi2, Hellinger only (equal at channel level), for a pure-LDP channel (finite
      ``epsilon``): ``"Ghazi-Issa (2023), Theorem 5"``, :math:`\mathrm{tv}\tanh(\varepsilon/2)`,
      and
      ``"Ghazi-Issa (2023), eq. (34)"``, :math:`\tanh^2(\varepsilon/2)`;
    * E_gamma only: ``"Asoodeh-Aliakbarpour-Calmon (2021), Theorem 1"``,
      :math:`\eta_{e^\varepsilon} = \delta(\varepsilon)` at
      :math:`\varepsilon = \log\max(\gamma, 1/\gamma)` (exact);
    * ``"tight sup over Q_{eps,delta}"``: :func:`worst_case_tv`, or
      :func:`worst_case_hockey_stick` for E_gamma;
    * KL, chi2, Hellinger only:
      ``"Ghazi-Issa (2023), Theorem 5, (eps, delta) extension (derived)"``,
      :func:`max_kl_contraction` with ``delta``;
    * ``"Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1"``: :func:`phi`.

    Level used: the TV-type bounds (Lemma 1 and the tight TV sup) are never below ``tv`` and
    reduce to it at ``eps = 0``, so they are shown as the paper reads them, at the pure
    ``epsilon`` with ``delta = 0`` when it is finite, else minimised over the levels
    ``eps > 0`` below. The E_gamma sup and the (eps, delta) extension are minimised over
    all levels: 17 up to the pure ``epsilon`` (or 26 in ``[0, inf]`` when it is infinite)
    and the channel's own log-likelihood ratios, where the profile has its breakpoints.
    Each candidate records the ``(epsilon, delta)`` it used.

    Parameters
    ----------
    channel : Channel or array_like
    kind : {"tv", "hockey_stick", "chi2", "kl", "hellinger", "f"}
    gamma : float, optional
        Required for ``kind="hockey_stick"``.

    Returns
    -------
    ContractionBound
        ``value``, ``theorem`` and every ``candidates`` entry.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.contraction import best_bound
    >>> b = best_bound(k_rr(3, 1.0), "kl")
    >>> round(b.value, 6), b.theorem   # tv * tanh(1/2) = 0.364175 * 0.462117
    (0.168292, 'Ghazi-Issa (2023), Theorem 5')
    >>> [(c.theorem, round(c.value, 4)) for c in b.candidates][-1]
    ('Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1', 0.6321)
    """
    K = as_channel(channel)
    name = check_kind(kind)
    if name == "hockey_stick":
        g = check_gamma(gamma)
        g = max(g, 1.0 / g)
    elif gamma is not None:
        raise ValueError(f"gamma is only used with kind='hockey_stick', got kind={kind!r}")
    tv_level = K.tv
    pure = K.epsilon
    levels = _levels(K)
    deltas = np.atleast_1d(np.asarray(K.delta(levels), dtype=np.float64))
    deltas = np.minimum(deltas, tv_level)  # E_gamma <= TV; removes rounding excess
    if math.isfinite(pure):
        tv_type = np.array([pure]), np.array([0.0])
    else:
        inner = (levels > 0) & np.isfinite(levels)
        tv_type = levels[inner], deltas[inner]
    candidates: list[BoundCandidate] = [
        BoundCandidate(tv_level, DOBRUSHIN, 0.0, tv_level, tv_level)
    ]

    def best_over(theorem: str, formula, at_levels=(levels, deltas)) -> None:
        grid, profile = at_levels
        values = [formula(float(e), float(d)) for e, d in zip(grid, profile)]
        at = int(np.argmin(values))
        candidates.append(
            BoundCandidate(float(values[at]), theorem, float(grid[at]), float(profile[at]))
        )

    kl_like = name in ("kl", "chi2", "hellinger")
    if kl_like and math.isfinite(pure):
        level = min(tv_level, eta_max(pure))
        candidates.append(BoundCandidate(level * eta_max(pure), GI_THEOREM_5, pure, 0.0, level))
        candidates.append(BoundCandidate(eta_max(pure) ** 2, GI_EQ_34, pure, 0.0))
    if name == "hockey_stick":
        eps_g = math.log(g)
        theorem_one = min(float(K.delta(eps_g)), tv_level)
        candidates.append(BoundCandidate(theorem_one, AAC_THEOREM_1, eps_g, theorem_one))
        best_over(TIGHT_SUP, lambda e, d: worst_case_hockey_stick(e, d, g))
    elif tv_type[0].size:
        best_over(TIGHT_SUP, eta_max, tv_type)
    if kl_like:
        best_over(
            GI_THEOREM_5_EXTENSION,
            lambda e, d: min(1.0, d + max(tv_level - d, 0.0) * eta_max(e)),
        )
    if tv_type[0].size:
        best_over(AAC_LEMMA_1, phi, tv_type)
    smallest = min(c.value for c in candidates)
    winner = next(c for c in candidates if c.value <= smallest * (1 + 1e-12) + 1e-15)
    return ContractionBound(
        value=float(winner.value),
        theorem=winner.theorem,
        kind=name,
        candidates=tuple(candidates),
        gamma=g if name == "hockey_stick" else None,
    )
