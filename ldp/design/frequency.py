"""Frequency estimation: the exact l2 risk of a channel and the best channel of a family."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ldp._formulas import subset_selection_matrix
from ldp._validation import as_real_array, check_epsilon, check_integer, compact
from ldp.channel import Channel
from ldp.design.certify import MAX_EPSILON
from ldp.design.staircase import MAX_ENTRIES
from ldp.design.utility import check_prior
from ldp.tasks.consistency import project_simplex
from ldp.tasks.decoding import frequency_decoder

__all__ = ["FrequencyDesign", "frequency_decoder", "frequency_risk", "optimal_frequency_channel"]


def frequency_risk(
    channel: Channel,
    n: int,
    p: ArrayLike | None = None,
    *,
    decoder: np.ndarray | None = None,
) -> float:
    """Exact i.i.d. l2^2 risk ``E ||p_hat - p||^2`` of a channel with an unbiased decoder.

    With ``pi = p K``: ``risk(p) = (sum_z pi_z ||D[z]||^2 - ||p||^2) / n``, a concave
    quadratic in ``p``. Without ``p`` the worst case over the simplex is returned, in closed
    form: ``max_p a.p - ||p||^2 = ||a||^2 / 4 - dist(a / 2, simplex)^2`` with
    ``a = K (||D[z]||^2)_z``.

    Parameters
    ----------
    channel : Channel
    n : int
        Number of reports.
    p : array_like, optional
        The input distribution; default: the worst case.
    decoder : ndarray, optional
        Default :func:`frequency_decoder` (uniform weights).

    Returns
    -------
    float
        The risk ``E ||p_hat - p||^2`` (at ``p``, or the worst case over the simplex).

    Examples
    --------
    >>> import math
    >>> import ldp
    >>> from ldp.design import frequency_risk
    >>> e = math.exp(1.0)   # RR: two coordinates of variance (e + 1)^2 / (4 n (e - 1)^2)
    >>> round(frequency_risk(ldp.k_rr(2, 1.0), 100) * 2 * 100 * (e - 1) ** 2 / (e + 1) ** 2, 9)
    1.0
    """
    count = check_integer(n, "n", low=1)
    d = frequency_decoder(channel) if decoder is None else as_real_array(decoder, "decoder")
    k, m = channel.shape
    if d.shape != (m, k) or not np.allclose(channel.matrix @ d, np.eye(k), atol=1e-9):
        raise ValueError("decoder must be an (n_outputs, n_inputs) matrix with K @ D = I")
    a = channel.matrix @ (d**2).sum(axis=1)
    if p is not None:
        prior = check_prior(p, k, "p")
        return max(float(prior @ a - prior @ prior), 0.0) / count
    centre = project_simplex(a / 2.0)
    worst = float(a @ a / 4.0 - np.sum((centre - a / 2.0) ** 2))
    return max(worst, 0.0) / count


@dataclass(frozen=True)
class FrequencyDesign:
    """The best channel of a family for frequency estimation, with its decoder.

    Parameters
    ----------
    channel, decoder, risk, name, table
        As the attributes below. Designs are made by :func:`optimal_frequency_channel`.

    Attributes
    ----------
    channel : Channel
    decoder : ndarray of shape (n_outputs, k)
        Unbiased: ``channel.matrix @ decoder = I``.
    risk : float
        Its i.i.d. l2^2 risk (worst case, or at ``p``).
    name : str
    table : pandas.DataFrame
        Every candidate's risk, best first.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.design import frequency_risk, optimal_frequency_channel
    >>> best = optimal_frequency_channel(6, 1.0, n=100)
    >>> bool(np.allclose(best.channel.matrix @ best.decoder, np.eye(6)))  # unbiased
    True
    >>> bool(np.isclose(best.risk, frequency_risk(best.channel, 100, decoder=best.decoder)))
    True
    >>> bool(best.risk == best.table["risk"].min())
    True
    """

    channel: Channel
    decoder: np.ndarray
    risk: float
    name: str
    table: object = field(compare=False)

    def __post_init__(self) -> None:
        decoder = np.array(self.decoder, dtype=np.float64)
        decoder.setflags(write=False)
        object.__setattr__(self, "decoder", decoder)


def optimal_frequency_channel(
    k: int,
    epsilon: float,
    n: int = 1,
    *,
    p: ArrayLike | None = None,
    candidates: dict[str, Channel] | None = None,
) -> FrequencyDesign:
    """The channel of a family with the smallest l2^2 frequency-estimation risk.

    Each candidate is decoded by :func:`frequency_decoder` (weighted by its output law under
    ``p``, or under the uniform input for the worst case) and scored by
    :func:`frequency_risk`. The default family is subset selection with every subset size
    ``d = 1 .. k - 1`` (``d = 1`` is k-RR), which contains the asymptotically optimal scheme
    (Ye & Barg); it is built as matrices, so ``k`` is limited to families of at most
    ``MAX_ENTRIES`` entries. For large alphabets use :func:`ldp.tasks.recommend`.

    Parameters
    ----------
    k : int
    epsilon : float
    n : int, default 1
        Number of reports (the risk scales as ``1 / n``).
    p : array_like, optional
        Score at this input distribution (prior-averaged risk); default the worst case.
    candidates : dict of name -> Channel, optional
        A stated family (each ``eps``-LDP channel on ``k`` inputs).

    Returns
    -------
    FrequencyDesign
        The best candidate, its decoder, its risk and the table of every candidate.

    Examples
    --------
    >>> from ldp.design import optimal_frequency_channel
    >>> best = optimal_frequency_channel(8, 1.0, n=1000)
    >>> best.name, best.channel.shape
    ('subset selection d=2', (8, 28))
    """
    k = check_integer(k, "k", low=2)
    if k * k > MAX_ENTRIES:  # every design holds at least a k x k matrix
        raise ValueError(f"k must be <= {math.isqrt(MAX_ENTRIES)}, got {compact(k)}")
    eps = check_epsilon(epsilon, high=MAX_EPSILON, allow_inf=False)
    count = check_integer(n, "n", low=1)
    prior = None if p is None else check_prior(p, k, "p")
    if candidates is None:
        candidates = {}
        for d in range(1, k):
            size = math.comb(k, d)
            if size * k > MAX_ENTRIES:
                continue
            candidates["k-RR" if d == 1 else f"subset selection d={d}"] = Channel(
                subset_selection_matrix(k, d, eps)
            )
        if not candidates:
            raise ValueError(f"k={k} is too large for matrix families; use ldp.tasks.recommend")
    import pandas as pd

    rows = []
    for name, channel in candidates.items():
        if not isinstance(channel, Channel) or channel.n_inputs != k:
            raise ValueError(f"candidate {name!r} must be a Channel on {k} inputs")
        if not channel.is_ldp(eps):
            raise ValueError(f"candidate {name!r} is not {eps}-LDP (epsilon {channel.epsilon})")
        weights = None if prior is None else prior @ channel.matrix
        decoder = frequency_decoder(channel, weights)
        rows.append((frequency_risk(channel, count, prior, decoder=decoder), name, decoder))
    rows.sort(key=lambda r: r[0])
    risk, name, decoder = rows[0]
    table = pd.DataFrame(
        {
            "channel": [r[1] for r in rows],
            "risk": [r[0] for r in rows],
            "n_outputs": [candidates[r[1]].n_outputs for r in rows],
        }
    )
    return FrequencyDesign(candidates[name], decoder, risk, name, table)
