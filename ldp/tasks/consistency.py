"""Consistency post-processing of estimated frequency vectors.

Unbiased frequency-oracle estimates can be negative and need not sum to one. Turning them
into a distribution is post-processing (no privacy cost) but trades bias for variance:

* :func:`project_simplex` (Euclidean projection onto the simplex, ``max(f - tau, 0)``): the
  closest distribution in l2, so its l2 error never exceeds that of the raw estimate when the
  truth is a distribution; it shrinks small values to exactly zero (biased down for rare
  values, up for frequent ones). ``O(k log k)``.
* :func:`norm_sub` (Wang et al. (2020)): clip negatives to zero and shift the positive
  entries by a common ``delta`` until they are non-negative and sum to one. When the clipped
  estimates sum to at least one (the usual case: clipping raises the sum) this is exactly the
  simplex projection; otherwise it raises only the positive entries and keeps the clipped
  ones at zero, where the projection would raise them all (a test checks both cases).
* :func:`norm_mul`: clip negatives and rescale. Cheap, keeps ratios between the positive
  estimates, but inflates every value when many negatives are clipped (the post-processing
  multi-freq-ldpy applies by default).
* :func:`ibu` (iterative Bayesian update, Agrawal-Aggarwal (2001); EM): a maximum-likelihood
  style estimate that is always a distribution. Exact EM for a :class:`~ldp.Channel` and
  the output histogram; for a pure frequency oracle it runs EM on the pseudo-channel
  ``A[x, v] = P(v in support | x)`` (``p`` on the diagonal, ``q`` elsewhere) normalised by
  its row sum ``p + (k-1)q``, in ``O(k)`` per iteration. Slower (many iterations) and
  biased, but often the lowest error for sparse or peaked distributions.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import as_real_array, check_integer, check_pmf, check_scalar
from ldp.channel import Channel
from ldp.mechanisms.base import FrequencyMechanism, FrequencyOracle, SupportCounts

__all__ = ["ibu", "norm_mul", "norm_sub", "project_simplex"]


def _estimates(f: ArrayLike) -> np.ndarray:
    arr = as_real_array(f, "f")
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"f must have at least one entry along its last axis, got {arr.shape}")
    return arr


def project_simplex(f: ArrayLike, weights: ArrayLike | None = None) -> np.ndarray:
    """Euclidean projection of ``f`` (last axis) onto the probability simplex.

    With ``weights``, the projection in the weighted metric: the distribution ``pi``
    minimising ``sum_v w_v (f_v - pi_v)^2``, which is ``pi_v = max(f_v - lam / w_v, 0)`` with
    ``lam`` fixed by ``sum(pi) = 1`` (found exactly among the ``k`` breakpoints
    ``lam = w_v f_v``, ``O(k log k)``).

    Parameters
    ----------
    f : array_like
        Frequency estimates along the last axis (leading axes are independent vectors).
    weights : array_like, optional
        Positive finite weights, one per entry of the last axis (broadcast over the leading
        axes); default all ones.

    Returns
    -------
    ndarray
        Same shape as ``f``; every vector along the last axis is a distribution.

    Examples
    --------
    >>> from ldp.tasks import project_simplex
    >>> project_simplex([0.6, 0.5, -0.1])
    array([0.55, 0.45, 0.  ])
    >>> project_simplex([0.6, 0.5, -0.1], weights=[1.0, 1.0, 1.0])
    array([0.55, 0.45, 0.  ])
    >>> project_simplex([0.6, 0.6], weights=[3.0, 1.0])   # the heavier entry moves less
    array([0.55, 0.45])
    """
    arr = _estimates(f)
    k = arr.shape[-1]
    if weights is not None:
        return _project_weighted(arr, _simplex_weights(weights, k))
    ordered = -np.sort(-arr, axis=-1)
    cumulative = np.cumsum(ordered, axis=-1) - 1.0
    ranks = np.arange(1, k + 1)
    valid = ordered - cumulative / ranks > 0
    rho = k - 1 - np.argmax(valid[..., ::-1], axis=-1)  # last index where valid
    tau = np.take_along_axis(cumulative, rho[..., None], axis=-1) / (rho[..., None] + 1)
    return np.maximum(arr - tau, 0.0)


def _simplex_weights(weights: ArrayLike, k: int) -> np.ndarray:
    w = as_real_array(weights, "weights")
    if w.shape != (k,):
        raise ValueError(f"weights must have shape ({k},), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be positive and finite")
    return w


def _project_weighted(arr: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``max(f - lam / w, 0)`` with ``lam`` the root of ``sum = 1``: with the entries in
    decreasing order of their breakpoints ``w f``, the first ``j`` are positive exactly when
    the ``lam`` they give, ``(sum f - 1) / sum(1 / w)``, lies below the ``j``-th breakpoint;
    the last such ``j`` is the solution (the sum decreases in ``lam``)."""
    breaks = arr * w
    order = np.argsort(-breaks, axis=-1)
    ordered = np.take_along_axis(breaks, order, axis=-1)
    inverse = np.broadcast_to(1.0 / w, arr.shape)
    sums = np.cumsum(np.take_along_axis(arr, order, axis=-1), axis=-1) - 1.0
    scales = np.cumsum(np.take_along_axis(inverse, order, axis=-1), axis=-1)
    lam = sums / scales
    valid = ordered > lam
    k = arr.shape[-1]
    rho = k - 1 - np.argmax(valid[..., ::-1], axis=-1)
    chosen = np.take_along_axis(lam, rho[..., None], axis=-1)
    return np.maximum(arr - chosen / w, 0.0)


def norm_sub(f: ArrayLike, max_iter: int = 10_000) -> np.ndarray:
    """Norm-Sub (Wang et al. (2020)): clip negatives, spread the excess evenly, repeat.

    Each round sets ``f <- f - delta`` on the currently positive entries, with ``delta``
    chosen so that they sum to one, and drops the entries that become negative; it stops
    when none does (at most ``k`` rounds). Equal to :func:`project_simplex` whenever
    ``sum(max(f, 0)) >= 1``.

    Parameters
    ----------
    f : array_like
        Frequency estimates along the last axis (leading axes are independent vectors).
    max_iter : int, default 10000
        Largest number of rounds (``k`` always suffice).

    Returns
    -------
    ndarray
        Same shape as ``f``; every vector along the last axis is a distribution.

    Examples
    --------
    >>> from ldp.tasks import norm_sub
    >>> norm_sub([0.6, 0.5, -0.1])
    array([0.55, 0.45, 0.  ])
    """
    arr = _estimates(f)
    check_integer(max_iter, "max_iter", low=1)
    flat = arr.reshape(-1, arr.shape[-1])
    out = np.empty_like(flat)
    for row, values in enumerate(flat):  # one loop per vector, not per user
        active = values > 0 if np.any(values > 0) else np.ones(values.shape, dtype=bool)
        result = values
        for _ in range(max_iter):
            delta = (values[active].sum() - 1.0) / active.sum()
            result = np.where(active, values - delta, 0.0)
            negative = result < 0
            if not np.any(negative):
                break
            active &= ~negative
        out[row] = np.maximum(result, 0.0)
    return out.reshape(arr.shape)


def norm_mul(f: ArrayLike) -> np.ndarray:
    """Clip negatives to zero and rescale to sum one (uniform if nothing is positive).

    Parameters
    ----------
    f : array_like
        Frequency estimates along the last axis (leading axes are independent vectors).

    Returns
    -------
    ndarray
        Same shape as ``f``; every vector along the last axis is a distribution.

    Examples
    --------
    >>> from ldp.tasks import norm_mul
    >>> norm_mul([0.6, 0.5, -0.1])
    array([0.54545455, 0.45454545, 0.        ])
    """
    arr = np.maximum(_estimates(f), 0.0)
    total = arr.sum(axis=-1, keepdims=True)
    k = arr.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, arr / np.where(total > 0, total, 1.0), 1.0 / k)


def ibu(
    model: Channel | FrequencyOracle,
    observed: ArrayLike | SupportCounts,
    *,
    max_iter: int = 10_000,
    tol: float = 1e-12,
    init: ArrayLike | None = None,
) -> np.ndarray:
    """Iterative Bayesian update (EM) estimate of the input distribution.

    Parameters
    ----------
    model : Channel, FrequencyOracle or ChannelOracle
        A channel ``K`` (then ``observed`` is the histogram of its outputs), a frequency
        oracle or a :class:`~ldp.tasks.ChannelOracle` (then ``observed`` are its reports
        or :class:`~ldp.mechanisms.SupportCounts`).
    observed : array_like or SupportCounts
    max_iter : int
        Iteration cap.
    tol : float
        Stop when the largest change of an entry is below ``tol``.
    init : array_like, optional
        Starting distribution (uniform by default).

    Returns
    -------
    ndarray
        A probability vector of length ``k``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp import k_rr
    >>> from ldp.tasks import ibu
    >>> channel = k_rr(3, 1.0)
    >>> observed = np.array([0.6, 0.25, 0.15]) @ channel.matrix * 10_000
    >>> ibu(channel, observed).round(4)
    array([0.6 , 0.25, 0.15])
    """
    iterations = check_integer(max_iter, "max_iter", low=1)
    tolerance = check_scalar(tol, "tol", low=0.0)
    if isinstance(model, FrequencyMechanism) and not isinstance(model, FrequencyOracle):
        # a decoded channel: EM on its own output histogram
        model, observed = model.to_channel(), model.counts_of(observed).counts
    if isinstance(model, Channel):
        matrix = model.matrix
        counts = as_real_array(observed, "observed")
        if counts.shape != (model.n_outputs,) or np.any(counts < 0) or counts.sum() <= 0:
            raise ValueError(
                f"observed must be a non-negative histogram of {model.n_outputs} outputs with a "
                f"positive total, got shape {counts.shape}"
            )
        obs = counts / counts.sum()
        k = model.n_inputs

        def step(f: np.ndarray) -> np.ndarray:
            out = f @ matrix
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(out > 0, obs / np.where(out > 0, out, 1.0), 0.0)
            return f * (matrix @ ratio)

    elif isinstance(model, FrequencyOracle):
        support = model.counts_of(observed)
        if support.n == 0 or support.counts.sum() == 0:
            raise ValueError("ibu needs at least one report with a non-empty support")
        obs = support.counts / support.counts.sum()
        k = model.k
        p, q = model.p, model.q
        scale = p + (k - 1) * q

        def step(f: np.ndarray) -> np.ndarray:
            out = (q * f.sum() + (p - q) * f) / scale
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(out > 0, obs / np.where(out > 0, out, 1.0), 0.0)
            return f * (q * ratio.sum() + (p - q) * ratio) / scale

    else:
        raise TypeError(f"model must be a Channel or a FrequencyOracle, got {type(model).__name__}")
    f = np.full(k, 1.0 / k) if init is None else check_pmf(init, "init", ndim=1)
    if f.shape != (k,):
        raise ValueError(f"init must have {k} entries, got {f.shape}")
    for _ in range(iterations):
        new = step(f)
        new /= new.sum()
        if np.max(np.abs(new - f)) < tolerance:
            return new
        f = new
    return f
