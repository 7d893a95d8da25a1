r"""Private Assouad bound for hypercube families (Duchi-Jordan-Wainwright (2018)).

Asoodeh-Aliakbarpour-Calmon (2021) treat Le Cam's and Fano's methods but not Assouad's; this
module follows Duchi-Jordan-Wainwright (2018). Index the family by :math:`v \in \{-1,+1\}^d` and let
:math:`M^n_{\pm j}` be the law of the privatized sample when ``V`` is uniform on
:math:`\{v : v_j = \pm 1\}`. If the loss has the Hamming separation

.. math:: \ell(\theta, \theta(P_v)) \ge \mathrm{separation}\cdot
          \sum_{j=1}^d \mathbb 1[\hat v_j(\theta) \ne v_j]

for some map :math:`\hat v`, Assouad's lemma gives

.. math:: \mathcal R_n \ge \frac{\mathrm{separation}}{2}
          \sum_{j=1}^d \bigl[1 - \mathrm{TV}(M^n_{+j}, M^n_{-j})\bigr]_+ .

(``separation`` is DJW's :math:`2\delta`.) The sum of total variations is bounded by

* ``"djw"`` (pure :math:`\varepsilon`-LDP, sequential interaction allowed): DJW's private
  Assouad inequality :math:`\sum_j [\mathrm{KL}(M^n_{+j}\|M^n_{-j}) +
  \mathrm{KL}(M^n_{-j}\|M^n_{+j})] \le 2n(e^\varepsilon-1)^2 S`, with
  :math:`S = \sup_{\|g\|_\infty \le 1} \sum_j (\int g\, d(P_{+j} - P_{-j}))^2`, then Pinsker
  in both directions and Cauchy-Schwarz: :math:`\sum_j \mathrm{TV}_j \le
  \sqrt{d\,n(e^\varepsilon-1)^2 S/2}`. :math:`S` is computed exactly over the vertices of the
  box for alphabets of at most 16 letters and bounded by :math:`\sum_j\|P_{+j}-P_{-j}\|_1^2`
  (and :math:`m\,\lambda_{\max}`) otherwise. The constant 2 is taken from
  Duchi-Jordan-Wainwright (2018), not re-derived here; the tests check the inequality
  numerically on random LDP channels.
* ``"phi"``: pair each ``v`` with its neighbour :math:`v^{(j)}` (coordinate ``j`` flipped);
  joint convexity of KL, the chain rule and Lemma 1 of Asoodeh-Aliakbarpour-Calmon (2021) give
  :math:`\mathrm{KL}(M^n_{+j}\|M^n_{-j}) \le n\varphi\,\overline{\mathrm{KL}}_j` with
  :math:`\overline{\mathrm{KL}}_j` the average of :math:`\mathrm{KL}(P_v\|P_{v^{(j)}})` over
  :math:`v_j = +1` (either direction; the smaller is used).
* a concrete channel: the same pairing with the exact privatized KL.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import ArrayLike

from ldp.channel import Channel
from ldp.divergences import kl
from ldp.references import cite
from ldp.risk._common import (
    MINIMAX,
    Bound,
    as_family,
    check_n,
    check_positive,
    push,
    resolve_privacy,
    scaled,
)

__all__ = ["assouad", "hypercube_index"]

_CONTRACTIONS = ("best", "phi", "djw", "tanh")

#: The ``method`` of the bound each route gives (shared with the presets).
ROUTE_NAMES = {
    "phi": f"private Assouad ({cite('asoodeh2021', 'Lemma 1')} + KL convexity)",
    "djw": f"private Assouad ({cite('duchi2018')})",
    "tanh": (
        "private Assouad "
        f"(eta_KL <= tanh^2(eps/2), {cite('ghazi2023', 'Theorem 5')}, + KL convexity)"
    ),
    "channel": "Assouad with a concrete channel (exact privatized KL)",
}
_MAX_VERTEX_ALPHABET = 16


def hypercube_index(d: int) -> np.ndarray:
    """The sign vectors ``v`` of the rows of an Assouad family, shape ``(2**d, d)``.

    Row ``r`` has ``v_j = +1`` exactly when bit ``j`` of ``r`` is set (``j = 0`` is the least
    significant bit).

    Parameters
    ----------
    d : int
        Dimension of the hypercube.

    Returns
    -------
    ndarray of int, shape (2**d, d)
        Entries ``-1`` and ``+1``.

    Examples
    --------
    >>> from ldp.risk import hypercube_index
    >>> hypercube_index(2)
    array([[-1, -1],
           [ 1, -1],
           [-1,  1],
           [ 1,  1]])
    """
    rows = np.arange(2**d)[:, None]
    bits = (rows >> np.arange(d)[None, :]) & 1
    return 2 * bits - 1


def _sup_box_quadratic(deltas: np.ndarray) -> float:
    """``sup_{g in [-1,1]^m} sum_j (g . delta_j)^2`` (a convex function: max at a vertex)."""
    l1 = float(np.sum(np.abs(deltas).sum(axis=1) ** 2))
    m = deltas.shape[1]
    if m <= _MAX_VERTEX_ALPHABET:
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=m - 1)))
        signs = np.concatenate([signs, np.ones((signs.shape[0], 1))], axis=1)  # g ~ -g
        return min(l1, float(np.max(np.sum((signs @ deltas.T) ** 2, axis=1))))
    gram = deltas.T @ deltas
    return min(l1, m * float(np.linalg.eigvalsh(gram)[-1]))


def assouad(
    family: ArrayLike,
    *,
    separation: float,
    n: int,
    epsilon: float | None = None,
    delta: float = 0.0,
    channel: Channel | None = None,
    contraction: str = "best",
) -> Bound:
    r"""Private Assouad lower bound on the minimax risk over a hypercube family.

    Parameters
    ----------
    family : array_like, shape (2**d, m)
        ``P_v`` for every ``v`` in :math:`\{-1,+1\}^d`, in the row order of
        :func:`hypercube_index`.
    separation : float
        The Hamming-separation constant (DJW's :math:`2\delta`, module docstring), ``> 0``.
    n : int
        Number of users.
    epsilon, delta : float
        Worst case over ``(epsilon, delta)``-LDP channels (``epsilon=inf``: non-private).
    channel : Channel, optional
        A concrete channel used by every user.
    contraction : {"best", "phi", "djw", "tanh"}
        How the total variations are bounded (module docstring).

    Returns
    -------
    Bound
        ``params`` with ``d``, ``tv_sum`` (the bound on :math:`\sum_j \mathrm{TV}_j`),
        ``route`` and, for ``"djw"``, ``S``.

    Examples
    --------
    The Paninski family on 4 letters (``d = 2``) for distribution estimation under
    squared loss (Hamming separation ``2 gamma^2 / k^2``):

    >>> from ldp.risk import assouad, paninski_family
    >>> fam = paninski_family(4, 0.1)
    >>> b = assouad(fam, separation=2 * 0.1**2 / 4**2, n=10, epsilon=1.0)
    >>> b.value > 0, b.d
    (True, 2)
    """
    n = check_n(n)
    sep = check_positive(separation, "separation")
    if contraction not in _CONTRACTIONS:
        raise ValueError(f"contraction must be one of {_CONTRACTIONS}, got {contraction!r}")
    priv = resolve_privacy(epsilon, delta, channel)
    fam = as_family(family)
    rows = fam.shape[0]
    d = rows.bit_length() - 1
    if 2**d != rows:
        raise ValueError(f"family must have 2**d rows (one per vertex of the cube), got {rows}")

    index = np.arange(rows)
    work = push(priv.channel, fam, "family") if priv.channel is not None else fam
    factor = 1.0 if priv.channel is not None else priv.factor()
    tanh = priv.tanh_factor if priv.djw else None
    tv_phi = tv_tanh = 0.0
    deltas = np.empty((d, fam.shape[1]))
    for j in range(d):
        plus = index[(index >> j) & 1 == 1]
        minus = plus ^ (1 << j)
        forward = float(np.mean(kl(work[plus], work[minus])))
        backward = float(np.mean(kl(work[minus], work[plus])))
        kl_j = min(forward, backward)
        tv_phi += min(1.0, math.sqrt(min(scaled(n * factor, kl_j), 4.0) / 2.0))
        if tanh is not None:
            tv_tanh += min(1.0, math.sqrt(min(scaled(n * tanh, kl_j), 4.0) / 2.0))
        deltas[j] = fam[plus].mean(axis=0) - fam[minus].mean(axis=0)

    routes = {"phi": tv_phi}
    extra: dict[str, object] = {}
    if priv.djw:
        s_sup = _sup_box_quadratic(deltas)
        routes["djw"] = min(float(d), math.sqrt(d * n * priv.djw_factor * s_sup / 2.0))
        routes["tanh"] = tv_tanh
        extra["S"] = s_sup
    if priv.channel is not None:
        route = "channel"
        routes = {"channel": tv_phi}
    elif contraction == "best":
        route = min(routes, key=routes.__getitem__)
    elif contraction not in routes:
        raise ValueError(
            f"contraction={contraction!r} needs pure LDP: a finite epsilon and delta = 0"
        )
    else:
        route = contraction
    name = ROUTE_NAMES[route] if priv.private else "non-private Assouad"
    tv_sum = routes[route]
    return Bound(
        sep / 2.0 * max(0.0, d - tv_sum),
        name,
        MINIMAX,
        {
            "d": d,
            "tv_sum": tv_sum,
            "factor": tanh if route == "tanh" else factor,
            "route": route,
            **extra,
        },
    )
