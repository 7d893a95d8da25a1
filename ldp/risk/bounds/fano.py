r"""Private Fano bound (Asoodeh-Aliakbarpour-Calmon (2021), Lemma 4 and eq. (9)).

For a family :math:`\{P_v\}_{v\in\mathcal V}` with :math:`\ell(\theta_v,\theta_{v'}) \ge`
``separation`` for all :math:`v \ne v'`, and :math:`V` uniform,

.. math:: \mathcal R_n \ge \tau\Bigl[1 - \frac{I(Z^n;V) + \log 2}{\log|\mathcal V|}\Bigr]_+ ,

with :math:`\tau` = ``separation / 2`` for a metric loss and ``separation / 4`` for a squared
metric (for squared loss the reduction to testing needs :math:`\|\theta_v-\theta_{v'}\| \ge 2s`
and then :math:`\tau = s^2`; this is how the corrected proof of the paper's Corollary 2 uses
it, see :func:`~ldp.risk.ball_mean`).

The information :math:`I(Z^n;V)` is bounded, per ``contraction``, by

* ``"lemma4"``: :math:`\varphi_n\,I(X^n;V) \le \varphi_n\,n\,I(X;V)` (Lemma 4 as printed,
  except that the proof's middle step
  :math:`I(X^n;V) = (n/|\mathcal V|)\sum_v \mathrm{KL}(P_v\|\bar P)` is an inequality,
  "<=", by the capacity-radius bound; the bound itself stands);
* ``"per-sample"``: :math:`n\,\varphi\,I(X;V)`: the ``Z_i`` are independent given ``V``, so
  :math:`I(Z^n;V) \le \sum_i I(Z_i;V)`, and Lemma 1 contracts each term by :math:`\varphi \le
  \varphi_n` (non-interactive mechanisms; there Lemma 4's :math:`\varphi_n` is valid but
  loose);
* ``"djw"``: for pure :math:`\varepsilon`-LDP, convexity and Theorem 1 of
  Duchi-Jordan-Wainwright (2018) give :math:`I(Z^n;V) \le
  |\mathcal V|^{-2}\sum_{v,v'}\mathrm{KL}(M_v^n\|M_{v'}^n) \le
  2(e^\varepsilon-1)^2\,n\,|\mathcal V|^{-2}\sum_{v,v'}\mathrm{TV}^2(P_v,P_{v'})` (each
  unordered pair contributes both directions, hence the constant 2 where a count over
  unordered pairs would give 4);
* ``"best"``: the smallest that applies.

``information="exact"`` uses :math:`I(X;V) = |\mathcal V|^{-1}\sum_v \mathrm{KL}(P_v\|\bar P)`;
``information="kl-pairs"`` the convexity bound :math:`|\mathcal V|^{-2}\sum_{v,v'}
\mathrm{KL}(P_v\|P_{v'})` of Lemma 4.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_scalar
from ldp.channel import Channel
from ldp.divergences import kl, tv
from ldp.references import cite
from ldp.risk._common import (
    MINIMAX,
    Bound,
    as_family,
    check_n,
    check_nonnegative,
    check_positive,
    push,
    resolve_privacy,
    scaled,
)

__all__ = ["family_information", "fano"]

_CONTRACTIONS = ("best", "per-sample", "lemma4", "djw")
_INFORMATION = ("exact", "kl-pairs")


def loss_tau(separation: float, loss: str) -> float:
    if loss == "metric":
        return separation / 2.0
    if loss == "squared":
        return separation / 4.0
    raise ValueError(f"loss must be 'metric' or 'squared', got {loss!r}")


def family_information(family: ArrayLike, *, information: str = "exact") -> float:
    r"""Per-sample :math:`I(X;V)` (nats) for ``V`` uniform over the rows of ``family``.

    Parameters
    ----------
    family : array_like, shape (n_hypotheses, m)
        One pmf per hypothesis.
    information : {"exact", "kl-pairs"}
        The exact value :math:`|\mathcal V|^{-1}\sum_v \mathrm{KL}(P_v\|\bar P)` or the upper bound
        :math:`|\mathcal V|^{-2}\sum_{v,v'}\mathrm{KL}(P_v\|P_{v'})` (``inf`` if some pair is
        singular).

    Returns
    -------
    float
        The information in nats (``inf`` possible for ``"kl-pairs"``).

    Examples
    --------
    >>> import math
    >>> from ldp.risk import family_information
    >>> math.isclose(family_information([[1, 0], [0, 1]]), math.log(2))
    True
    >>> family_information([[1, 0], [0, 1]], information="kl-pairs")
    inf
    """
    fam = as_family(family)
    if information == "exact":
        mix = fam.mean(axis=0)
        return float(max(0.0, np.mean(kl(fam, np.broadcast_to(mix, fam.shape)))))
    if information == "kl-pairs":
        pairs = kl(fam[:, None, :], fam[None, :, :])
        return float(np.mean(pairs))
    raise ValueError(f"information must be one of {_INFORMATION}, got {information!r}")


def fano(
    family: ArrayLike | None = None,
    *,
    separation: float,
    n: int,
    epsilon: float | None = None,
    delta: float = 0.0,
    channel: Channel | None = None,
    loss: str = "metric",
    information: str = "exact",
    contraction: str = "best",
    mutual_information: float | None = None,
    n_hypotheses: float | None = None,
) -> Bound:
    r"""Private Fano lower bound on the minimax risk (Asoodeh-Aliakbarpour-Calmon (2021),
    Lemma 4 with eq. (9)).

    Parameters
    ----------
    family : array_like, shape (n_hypotheses, m), optional
        The hypotheses ``P_v`` as pmfs, ``|V| >= 2``.
    separation : float
        A lower bound on :math:`\ell(\theta_v, \theta_{v'})` over ``v != v'`` (``> 0``).
    n : int
        Number of users.
    epsilon, delta : float
        Worst case over ``(epsilon, delta)``-LDP channels (``epsilon=inf``: non-private).
    channel : Channel, optional
        A concrete channel used by every user: the exact per-sample :math:`I(Z;V)` is used.
    loss : {"metric", "squared"}
        Whether :math:`\ell` is a metric or a squared metric (sets :math:`\tau`).
    information : {"exact", "kl-pairs"}
        How the per-sample information of the family is computed (module docstring).
    contraction : {"best", "per-sample", "lemma4", "djw"}
        How privacy contracts the information (module docstring).
    mutual_information : float, optional
        Instead of ``family``: an upper bound on the per-sample :math:`I(X;V)` (nats).
    n_hypotheses : float, optional
        With ``mutual_information``: ``|V|`` or a lower bound on it (``>= 2``; a packing
        bound such as ``e^{k/16}`` need not be an integer).

    Returns
    -------
    Bound
        ``params`` with ``tau``, ``information`` (the bound on :math:`I(Z^n;V)`),
        ``n_hypotheses``, ``factor`` and ``route``.

    Examples
    --------
    Four well-separated hypotheses, with and without privacy:

    >>> import numpy as np
    >>> from ldp.risk import fano
    >>> fam = 0.7 * np.eye(4) + 0.075
    >>> private = fano(fam, separation=1.0, n=1, epsilon=0.5)
    >>> public = fano(fam, separation=1.0, n=1, epsilon=float("inf"))
    >>> 0 < public.value < private.value < 0.5
    True
    """
    n = check_n(n)
    sep = check_positive(separation, "separation")
    tau = loss_tau(sep, loss)
    if contraction not in _CONTRACTIONS:
        raise ValueError(f"contraction must be one of {_CONTRACTIONS}, got {contraction!r}")
    if information not in _INFORMATION:
        raise ValueError(f"information must be one of {_INFORMATION}, got {information!r}")
    priv = resolve_privacy(epsilon, delta, channel)

    if mutual_information is not None:
        if family is not None:
            raise ValueError("pass either family or mutual_information, not both")
        if priv.channel is not None:
            raise ValueError("a concrete channel needs the family of distributions")
        if n_hypotheses is None:
            raise TypeError("mutual_information needs n_hypotheses (|V| or a lower bound)")
        per_sample = check_nonnegative(mutual_information, "mutual_information")
        size = check_scalar(n_hypotheses, "n_hypotheses", low=2.0)
        tvs = None
    else:
        if family is None:
            raise TypeError("pass the family of hypotheses, or mutual_information")
        if n_hypotheses is not None:
            raise ValueError("n_hypotheses is the number of rows of family; do not pass both")
        fam = as_family(family)
        size = float(fam.shape[0])
        if priv.channel is not None:
            privatized = push(priv.channel, fam, "family")
            per_sample = family_information(privatized, information=information)
            info = n * per_sample
            how = "exact I(Z;V)" if information == "exact" else "KL pairs of the privatized family"
            return _fano_result(
                tau,
                info,
                size,
                f"private Fano with a concrete channel ({how})",
                {"route": "channel"},
            )
        per_sample = family_information(fam, information=information)
        tvs = tv(fam[:, None, :], fam[None, :, :])

    routes = {
        "lemma4": scaled(priv.factor(n) * n, per_sample),
        "per-sample": scaled(priv.factor() * n, per_sample),
    }
    if tvs is not None and priv.djw:
        routes["djw"] = 2.0 * priv.djw_factor * n * float(np.mean(np.square(tvs)))
    if contraction == "best":
        route = min(routes, key=routes.__getitem__)
    elif contraction not in routes:
        raise ValueError(
            "contraction='djw' needs pure LDP (finite epsilon, delta = 0) and the family"
        )
    else:
        route = contraction
    names = {
        "lemma4": f"private Fano ({cite('asoodeh2021', 'Lemma 4')} + eq. (9))",
        "per-sample": f"private Fano ({cite('asoodeh2021', 'Lemma 1')} per sample + eq. (9))",
        "djw": f"private Fano via strong DPI ({cite('duchi2018', 'Theorem 1')})",
    }
    name = names[route] if priv.private else f"non-private Fano ({cite('asoodeh2021', 'eq. (9)')})"
    return _fano_result(tau, routes[route], size, name, {"factor": priv.factor(), "route": route})


def _fano_result(tau: float, info: float, size: float, name: str, extra: dict) -> Bound:
    log_v = math.log(size)
    bracket = 0.0 if math.isinf(info) else max(0.0, 1.0 - (info + math.log(2.0)) / log_v)
    return Bound(
        tau * bracket,
        name,
        MINIMAX,
        {"tau": tau, "information": info, "n_hypotheses": size, "bracket": bracket, **extra},
    )
