r"""Mutual information under LDP: Corollary 5 of Asoodeh-Aliakbarpour-Calmon (2021) and the
exact value for a channel.

Corollary 5: every :math:`(\varepsilon,\delta)`-LDP channel has
:math:`I(X;Z) \le \varphi(\varepsilon,\delta)\,H(X)`, from the strong data-processing
inequality along ``X - X - Z`` and Lemma 1. Information is in nats.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_scalar
from ldp.channel import Channel
from ldp.contraction import phi
from ldp.divergences import kl
from ldp.references import cite
from ldp.risk._common import Bound, as_pmf, scaled

__all__ = ["entropy", "mutual_information", "mutual_information_bound"]


def entropy(prior: ArrayLike) -> float:
    """Shannon entropy ``-sum p log p`` of a pmf, in nats.

    Parameters
    ----------
    prior : array_like
        A pmf.

    Returns
    -------
    float
        The entropy, ``>= 0``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import entropy
    >>> math.isclose(entropy([0.5, 0.5]), math.log(2))
    True
    """
    p = as_pmf(prior, "prior")
    nz = p[p > 0]
    return float(max(0.0, -(nz * np.log(nz)).sum()))


def mutual_information(channel: Channel | ArrayLike, prior: ArrayLike) -> Bound:
    r"""Exact :math:`I(X;Z)` (nats) of a channel under an input law.

    :math:`I(X;Z) = \sum_x p(x)\,\mathrm{KL}(K_x \,\|\, pK)`.

    Parameters
    ----------
    channel : Channel or array_like
        Row-stochastic matrix ``K[x, z]``.
    prior : array_like
        The law of ``X``.

    Returns
    -------
    Bound
        ``quantity="mutual information"``; ``params`` holds the input ``entropy`` ``H(X)``.

    Examples
    --------
    Uniform bit through randomized response at ``eps = 1``:

    >>> import ldp
    >>> from ldp.risk import mutual_information
    >>> round(mutual_information(ldp.randomized_response(1.0), [0.5, 0.5]).value, 6)
    0.110944
    """
    chan = channel if isinstance(channel, Channel) else Channel(channel)
    p = as_pmf(prior, "prior")
    if p.size != chan.n_inputs:
        raise ValueError(f"prior has {p.size} entries but the channel has {chan.n_inputs} inputs")
    out = p @ chan.matrix
    used = p > 0
    rows = chan.matrix[used]
    info = float(np.dot(p[used], np.atleast_1d(kl(rows, np.broadcast_to(out, rows.shape)))))
    return Bound(
        max(0.0, info),
        "exact I(X;Z) = sum_x p(x) KL(K_x || pK)",
        "mutual information",
        {"entropy": entropy(p)},
    )


def mutual_information_bound(
    epsilon: float,
    delta: float = 0.0,
    entropy: float | None = None,
    *,
    prior: ArrayLike | None = None,
) -> Bound:
    r"""Corollary 5 of Asoodeh-Aliakbarpour-Calmon (2021):
    :math:`\sup_{K} I(X;Z) \le \varphi(\varepsilon,\delta)\,H(X)`.

    Parameters
    ----------
    epsilon, delta : float
        The LDP budget (``epsilon`` in ``[0, inf]``, ``delta`` in ``[0, 1]``).
    entropy : float, optional
        ``H(X)`` in nats (``>= 0``; ``inf`` allowed for a vacuous bound).
    prior : array_like, optional
        The law of ``X``, instead of ``entropy``.

    Returns
    -------
    Bound
        ``quantity="mutual information upper bound"``, ``params`` with ``factor`` and
        ``entropy``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import mutual_information_bound
    >>> round(mutual_information_bound(1.0, 0.0, math.log(2)).value, 6)   # phi * ln 2
    0.438153
    """
    if (entropy is None) == (prior is None):
        raise TypeError("pass exactly one of entropy and prior")
    if prior is not None:
        h = globals()["entropy"](prior)
    else:
        h = check_scalar(entropy, "entropy", low=0.0, allow_inf=True)
    factor = phi(epsilon, delta)
    return Bound(
        scaled(factor, h),
        f"private mutual information bound ({cite('asoodeh2021', 'Corollary 5')})",
        "mutual information upper bound",
        {"factor": factor, "entropy": h},
    )
