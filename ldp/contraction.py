"""Contraction coefficients of channels and the contraction bounds of the seed papers."""

from __future__ import annotations

import math

import numpy as np

from ldp._validation import check_epsilon, check_integer, check_probability

__all__ = ["phi"]


def phi(epsilon: float, delta: float = 0.0, n: int = 1) -> float:
    r"""Seed 003's universal contraction factor of ``n`` uses of an ``(eps, delta)``-LDP channel.

    .. math:: \varphi_n(\varepsilon, \delta) = 1 - e^{-n\varepsilon}(1 - \delta)^n,

    Lemma 1 (``n = 1``): every f-divergence contracts by at most :math:`\varphi` under any
    :math:`(\varepsilon,\delta)`-LDP channel; Lemma 2: by at most :math:`\varphi_n` under the
    n-fold product. Computed as ``-expm1(n (log1p(-delta) - eps))`` for accuracy when the
    value is tiny.

    Examples
    --------
    >>> from ldp.contraction import phi
    >>> round(phi(1.0, 0.05), 10)
    0.6505145309
    >>> phi(0.0, 0.1, n=2)
    0.19...
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    count = check_integer(n, "n", low=1)
    if d == 1.0 or math.isinf(eps):
        return 1.0
    return float(-np.expm1(count * (np.log1p(-d) - eps)))
