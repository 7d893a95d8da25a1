"""Mechanisms small enough to hold as a matrix: randomized response, k-RR and the dominating
binary mechanisms with erasure of Ghazi-Issa (2023), "Total Variation Meets Differential
Privacy".

Every constructor returns a :class:`~ldp.Channel`; its privacy is then recomputed from the
matrix, so the parameters here are a recipe, not a claim.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from ldp import _formulas
from ldp._exact import nearest_within, within_exp
from ldp._formulas import erasure_weight, k_rr_probabilities
from ldp._validation import (
    check_epsilon,
    check_eta_range,
    check_integer,
    check_pmf,
    check_probability,
    compact,
)
from ldp.channel import Channel

__all__ = [
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "eta_max",
    "k_rr",
    "randomized_response",
]

#: Largest ``k`` of :func:`k_rr` (a ``k x k`` float64 matrix of 128 MiB).
MAX_K = 1 << 12


def k_rr(k: int, epsilon: float) -> Channel:
    r"""k-ary randomized response: keep ``x`` with probability ``e^eps / (e^eps + k - 1)``.

    .. math:: K(z|x) = \frac{e^\varepsilon \mathbb 1[z = x] + \mathbb 1[z \ne x]}
                            {e^\varepsilon + k - 1}

    Entries are computed as ``1 / (1 + (k - 1) e^{-eps})`` so that large ``epsilon`` does
    not overflow; ``epsilon = inf`` gives the identity and ``epsilon = 0`` uniform rows.
    ``k = 2`` is :func:`randomized_response`.

    Parameters
    ----------
    k : int
        Alphabet size, ``k >= 2``.
    epsilon : float
        Privacy level in ``[0, inf]``.

    Returns
    -------
    Channel
        The ``k x k`` row-stochastic channel. Its keep probability is moved down to the
        first double whose ratio to the others is within ``e^epsilon`` exactly, so that its
        :attr:`~ldp.Channel.epsilon` (the exact level of the matrix) is at most ``epsilon``
        and within a few units in the last place of it.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp import k_rr
    >>> krr = k_rr(4, np.log(3.0))
    >>> krr.matrix[0]
    array([0.5       , 0.16666667, 0.16666667, 0.16666667])
    >>> round(krr.epsilon, 12), round(krr.tv, 12)   # tv = (e^eps - 1) / (e^eps + k - 1)
    (1.098612288668, 0.333333333333)
    """
    k = check_integer(k, "k", low=2)
    if k > MAX_K:
        raise ValueError(
            f"k must be <= {MAX_K} for a k x k channel matrix, got {compact(k)} "
            "(use ldp.mechanisms.GRR)"
        )
    eps = check_epsilon(epsilon)
    keep, other, _ = k_rr_probabilities(k, eps)
    if 0.0 < eps < math.inf and other > 0.0:
        # every row is a permutation of one row, which Channel divides by its correctly
        # rounded sum: the largest ratio is the ratio of the two divided doubles, exactly.
        # Move keep down to the first double that puts it within e^eps (more privacy).
        def holds(w: float) -> bool:
            total = math.fsum([w, *([other] * (k - 1))])
            return within_exp(Fraction(w / total) / Fraction(other / total), eps)

        keep = nearest_within(holds, keep, 0.0)
    matrix = np.full((k, k), other)
    np.fill_diagonal(matrix, keep)
    return Channel(matrix)


def randomized_response(epsilon: float) -> Channel:
    """Binary randomized response, the binary symmetric channel with crossover
    ``1 / (1 + e^eps)`` (Asoodeh-Aliakbarpour-Calmon (2021), Example 1).

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[0, inf]``.

    Returns
    -------
    Channel
        The ``2 x 2`` channel that keeps the bit with probability ``e^eps / (1 + e^eps)``.

    Examples
    --------
    >>> from ldp import randomized_response
    >>> rr = randomized_response(0.0)
    >>> rr.matrix
    array([[0.5, 0.5],
           [0.5, 0.5]])
    >>> import math
    >>> rr1 = randomized_response(1.0)
    >>> math.isclose(rr1.matrix[0, 0], math.e / (1 + math.e), rel_tol=1e-14)
    True
    >>> round(rr1.epsilon, 12), math.isclose(rr1.tv, math.tanh(0.5), rel_tol=1e-14)
    (1.0, True)

    """
    return k_rr(2, epsilon)


def eta_max(epsilon: float, delta: float = 0.0) -> float:
    """The largest useful eta-TV level of an ``(epsilon, delta)`` mechanism.

    ``eta_max = delta + (1 - delta) tanh(epsilon / 2) = (e^eps - 1 + 2 delta) / (e^eps + 1)``
    (Ghazi-Issa (2023), Corollary 1 and Remark 1): every ``(eps, delta)``-LDP channel already
    has ``tv <= eta_max``, and randomized response with delta-disclosure attains it.

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed).
    delta : float, default 0.0
        In ``[0, 1]``.

    Returns
    -------
    float
        ``eta_max`` in ``[delta, 1]``; ``tanh(epsilon / 2)`` when ``delta = 0``.

    Examples
    --------
    >>> from ldp.mechanisms import eta_max
    >>> round(eta_max(1.0, 0.05), 10)
    0.4890112994
    >>> import math
    >>> eta_max(2.0) == math.tanh(1.0), eta_max(0.0, 0.3), eta_max(math.inf, 0.3)
    (True, 0.3, 1.0)

    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    return _formulas.eta_max(eps, d)


def binary_erasure(epsilon: float, delta: float = 0.0, eta: float | None = None) -> Channel:
    r"""The dominating binary mechanism :math:`M_{\varepsilon,\delta,\eta}` of Ghazi-Issa (2023).

    Every binary-input ``(eps, delta)``-LDP, eta-TV pair of output laws is a post-processing
    of this one (Ghazi-Issa (2023), eqs. (7) and (43)-(44), Theorem 2). With erasure weight
    :math:`\alpha = 1 - (\eta - \delta) / ((1 - \delta)\tanh(\varepsilon/2))`:

    * ``delta = 0``: three outputs ``(plus, erased, minus)``,
      ``K(.|0) = ((1 - a) s, a, (1 - a)(1 - s))`` with ``s = e^eps / (1 + e^eps)`` and
      ``K(.|1)`` its reverse;
    * ``delta > 0``: five outputs ``(reveal 0, plus, erased, minus, reveal 1)``,
      ``K(.|0) = (delta, (1 - delta) * (three-output row), 0)`` and ``K(.|1)`` its reverse.

    Its ``delta(epsilon)`` is ``delta`` and its ``tv`` is ``eta``. ``eta=None`` takes the
    largest useful value :func:`eta_max`, i.e. ``alpha = 0``: randomized response with
    delta-disclosure (the erasure output then has probability 0).

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed).
    delta : float, default 0.0
        In ``[0, 1]``.
    eta : float, optional
        In ``[delta, eta_max(epsilon, delta)]``; out-of-range values raise (nothing is
        clamped beyond a relative rounding slack of 1e-12).

    Returns
    -------
    Channel
        A ``2 x 3`` channel when ``delta = 0``, a ``2 x 5`` channel otherwise.

    Examples
    --------
    >>> from ldp import binary_erasure
    >>> be = binary_erasure(1.0, eta=0.2)
    >>> be.shape, round(be.tv, 12), round(be.epsilon, 12)
    ((2, 3), 0.2, 1.0)
    >>> be5 = binary_erasure(1.0, delta=0.01, eta=0.2)
    >>> be5.shape, round(be5.delta(1.0), 12), be5.epsilon
    ((2, 5), 0.01, inf)
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    top = _formulas.eta_max(eps, d)
    level = (
        top
        if eta is None
        else check_eta_range(
            eta, d, top, f"epsilon={eps!r}, delta={d!r} (eta_max = delta + (1 - delta) tanh(eps/2))"
        )
    )
    alpha = erasure_weight(eps, d, level)
    stay, flip, _ = k_rr_probabilities(2, eps)
    core = np.array([(1.0 - alpha) * stay, alpha, (1.0 - alpha) * flip])
    if d == 0.0:
        matrix = np.vstack([core, core[::-1]])
    else:
        row = np.concatenate(([d], (1.0 - d) * core, [0.0]))
        matrix = np.vstack([row, row[::-1]])
    return Channel(matrix)


def binary_mechanism_with_erasure(
    p0: ArrayLike, p1: ArrayLike, epsilon: float, eta: float
) -> Channel:
    r"""The binary mechanism with erasure :math:`Q^{(be)}` for a pair of input laws.

    Ghazi-Issa (2023), eq. (31): input ``x`` is sent through the dominating channel
    :math:`Q^*_{\varepsilon,\eta}` (eq. 28) on the bit ``1[p1(x) > p0(x)]``:

    .. math:: Q^*(\cdot|0) = \Big(\tfrac{\eta e^\varepsilon}{e^\varepsilon - 1},
              \tfrac{\eta}{e^\varepsilon - 1},
              1 - \eta\tfrac{e^\varepsilon + 1}{e^\varepsilon - 1}\Big),\quad
              Q^*(\cdot|1) = \text{first two entries swapped}.

    It is eps-LDP and eta-TV, and it maximises the output TV between ``p0 K`` and ``p1 K``
    over all such channels (value ``eta * TV(p0, p1)``, Ghazi-Issa (2023), Proposition 2).

    Parameters
    ----------
    p0, p1 : array_like
        Input distributions on the same ``k`` symbols.
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed).
    eta : float
        In ``[0, tanh(epsilon / 2)]``.

    Returns
    -------
    Channel
        A ``k x 3`` channel with outputs ``(plus, minus, erased)``.

    Examples
    --------
    >>> from ldp import binary_mechanism_with_erasure
    >>> q = binary_mechanism_with_erasure([0.5, 0.3, 0.2], [0.1, 0.3, 0.6], 1.0, 0.3)
    >>> q.shape, round(q.tv, 12)
    ((3, 3), 0.3)
    """
    first = check_pmf(p0, "p0", ndim=1)
    second = check_pmf(p1, "p1", ndim=1)
    if first.shape != second.shape:
        raise ValueError(f"p0 and p1 must have the same length, got {first.size} and {second.size}")
    eps = check_epsilon(epsilon)
    level = check_eta_range(
        eta, 0.0, _formulas.eta_max(eps), f"epsilon={eps!r} (eta <= tanh(epsilon/2))"
    )
    if level == 0.0:
        up = down = 0.0
    else:
        up = level / -math.expm1(-eps)  # eta e^eps / (e^eps - 1)
        down = level * math.exp(-eps) / -math.expm1(-eps)  # eta / (e^eps - 1), no overflow
    erased = max(0.0, 1.0 - up - down)
    row0 = np.array([up, down, erased])
    rows = np.where((second > first)[:, None], row0[[1, 0, 2]], row0)
    return Channel(rows)
