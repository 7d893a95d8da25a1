"""Frequency estimation from any finite channel: the unbiased minimum-norm decoder.

A designed privatizer (a :class:`~ldp.Channel` from :func:`ldp.design.optimal_channel`, or any
other matrix) is not a pure frequency oracle, but its reports still estimate the input
distribution without bias whenever the channel's rows are linearly independent: with the
empirical output distribution ``pi_hat`` of ``n`` reports, ``pi_hat @ D`` is unbiased for
every ``D`` with ``K @ D = I``. :func:`frequency_decoder` picks the ``D`` of smallest
weighted norm, and :class:`ChannelOracle` puts a channel and its decoder behind the
frequency-oracle interface the estimators use.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import as_real_array
from ldp.channel import Channel
from ldp.core import ReportCodec
from ldp.mechanisms.base import FrequencyMechanism, SupportCounts
from ldp.mechanisms.limits import check_convention, check_n

__all__ = ["ChannelOracle", "check_decodable", "frequency_decoder"]


def check_decodable(channel: Channel, weights: np.ndarray | None = None) -> None:
    """Raise ``ValueError`` unless the channel's input distributions are identifiable.

    Frequencies can be decoded without bias exactly when the rows of the channel, restricted
    to the outputs in use, are linearly independent (rank ``k``).

    Parameters
    ----------
    channel : Channel
        The mechanism, ``k`` inputs by ``m`` outputs.
    weights : ndarray of shape (m,), optional
        Output weights; outputs of weight zero are not used.

    Raises
    ------
    ValueError
        If the rank is below the number of inputs, naming the design for estimation
        (:func:`ldp.design.optimal_frequency_channel`).

    Examples
    --------
    >>> import ldp
    >>> from ldp.tasks import check_decodable
    >>> check_decodable(ldp.k_rr(3, 1.0))  # identifiable: returns quietly
    >>> merged = ldp.Channel([[0.7, 0.3], [0.3, 0.7], [0.3, 0.7]])
    >>> check_decodable(merged)
    Traceback (most recent call last):
    ...
    ValueError: the channel's 3 input distributions are not identifiable from its outputs ...
    """
    matrix = channel.matrix
    used = np.ones(channel.n_outputs, dtype=bool) if weights is None else weights > 0
    rank = int(np.linalg.matrix_rank(matrix[:, used]))
    if rank < channel.n_inputs:
        k = channel.n_inputs
        raise ValueError(
            f"the channel's {k} input distributions are not identifiable from its outputs "
            f"(rank {rank} < {k}): no unbiased frequency decoder exists. To estimate "
            "frequencies, design for estimation: "
            f"ldp.design.optimal_frequency_channel({k}, epsilon, p=prior)"
        )


def frequency_decoder(channel: Channel, weights: ArrayLike | None = None) -> np.ndarray:
    """The unbiased linear decoder of frequencies with the smallest weighted norm.

    From the empirical output distribution ``pi_hat`` of ``n`` reports, ``pi_hat @ D`` is an
    unbiased estimate of the input distribution whenever ``K @ D = I``. Among those ``D``,
    this returns the one minimising ``sum_z w_z ||D[z]||^2``, which is the i.i.d. l2^2 risk
    (up to a term free of ``D``) when ``w`` is the output law:
    ``D = W^-1 K^T (K W^-1 K^T)^-1`` with ``W = diag(w)``.

    Parameters
    ----------
    channel : Channel
        ``k x m`` with rank ``k`` (otherwise frequencies are not identifiable).
    weights : array_like of shape (m,), optional
        Output weights; default the output law under the uniform input.

    Returns
    -------
    ndarray of shape (m, k)

    Examples
    --------
    >>> import numpy as np
    >>> import ldp
    >>> from ldp.tasks import frequency_decoder
    >>> krr = ldp.k_rr(3, 1.0)
    >>> bool(np.allclose(krr.matrix @ frequency_decoder(krr), np.eye(3)))
    True
    """
    if not isinstance(channel, Channel):
        raise TypeError(f"channel must be a Channel, got {type(channel).__name__}")
    k, m = channel.shape
    matrix = channel.matrix
    if weights is None:
        w = matrix.mean(axis=0)
    else:
        w = as_real_array(weights, "weights")
        if w.shape != (m,) or np.any(w < 0):
            raise ValueError(f"weights must be {m} non-negative numbers, got shape {w.shape}")
    used = w > 0
    check_decodable(channel, w)
    scaled = matrix[:, used] / w[used]  # K W^-1
    gram = scaled @ matrix[:, used].T  # K W^-1 K^T
    decoder = np.zeros((m, k))
    decoder[used] = np.linalg.solve(gram, scaled).T
    return decoder


class ChannelOracle(FrequencyMechanism):
    """A finite channel used as a frequency oracle, decoded by :func:`frequency_decoder`.

    It privatizes exactly as the channel does (same reports, same protocol files: its
    ``name``, ``params`` and ``key`` are the channel's); its statistic is the histogram of
    the output indices and its estimate ``(histogram / n) @ D``.

    Parameters
    ----------
    channel : Channel
        ``k x m`` with rank ``k``; a channel whose inputs cannot be told apart raises
        ``ValueError`` (design it for estimation).
    decoder : ndarray of shape (m, k), optional
        An unbiased decoder (``K @ D = I``); default :func:`frequency_decoder`.

    Examples
    --------
    >>> import numpy as np
    >>> import ldp
    >>> from ldp.tasks import ChannelOracle
    >>> oracle = ChannelOracle(ldp.k_rr(3, 2.0))
    >>> reports = oracle.privatize(np.repeat([0, 1, 2], [5000, 3000, 2000]), rng=0)
    >>> np.round(oracle.estimate(reports), 1)
    array([0.5, 0.3, 0.2])
    >>> float(oracle.variance(1000, [0.5, 0.3, 0.2])[0]) > 0
    True
    """

    name = "Channel"

    def __init__(self, channel: Channel, decoder: ArrayLike | None = None) -> None:
        if not isinstance(channel, Channel):
            raise TypeError(f"channel must be a Channel, got {type(channel).__name__}")
        self._channel = channel
        if decoder is None:
            matrix = frequency_decoder(channel)
        else:
            matrix = as_real_array(decoder, "decoder")
            k, m = channel.shape
            if matrix.shape != (m, k) or not np.allclose(
                channel.matrix @ matrix, np.eye(k), atol=1e-9
            ):
                raise ValueError("decoder must be an (n_outputs, n_inputs) matrix with K @ D = I")
        matrix = np.array(matrix, copy=True)
        matrix.setflags(write=False)
        self._decoder = matrix
        # E[D[Z, v]^2 | x]: the second moments every variance is made of
        self._second = channel.matrix @ matrix**2

    @property
    def channel(self) -> Channel:
        """The channel."""
        return self._channel

    @property
    def decoder(self) -> np.ndarray:
        """The ``(n_outputs, k)`` unbiased decoder."""
        return self._decoder

    @property
    def k(self) -> int:
        return self._channel.n_inputs

    @property
    def statistic_size(self) -> int:
        """One count per output of the channel."""
        return self._channel.n_outputs

    @property
    def params(self) -> dict[str, Any]:
        return self._channel.params

    @property
    def key(self) -> str:
        return self._channel.key

    def __repr__(self) -> str:
        return f"ChannelOracle({self._channel.key})"

    @property
    def epsilon(self) -> float:
        return self._channel.epsilon

    @property
    def codec(self) -> ReportCodec:
        return self._channel.codec

    def sampler(self) -> dict[str, Any]:
        return self._channel.sampler()

    def to_channel(self) -> Channel:
        return self._channel

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """The channel's reports (:meth:`ldp.Channel.privatize`)."""
        return self._channel.privatize(values, rng=rng)

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        counts = np.bincount(reports, minlength=self._channel.n_outputs).astype(np.int64)
        return counts, int(reports.size)

    def estimate(self, reports_or_counts: ArrayLike | SupportCounts) -> np.ndarray:
        """``(histogram / n) @ D``: unbiased for the input distribution."""
        counts = self.counts_of(reports_or_counts)
        if counts.n == 0:
            raise ValueError("cannot estimate frequencies from zero reports")
        return (counts.counts / counts.n) @ self._decoder

    def _moment_matrix(self, f: np.ndarray) -> np.ndarray:
        """``psi(z) = D[z]``: ``W = D^T diag(f K) D``."""
        return self._decoder.T @ ((f @ self._channel.matrix)[:, None] * self._decoder)

    def variance(self, n: int, f: ArrayLike | None = None, convention: str = "fixed") -> np.ndarray:
        """Exact variance of each coordinate of :meth:`estimate` at input distribution ``f``.

        With ``a[x, v] = E[D[Z, v]^2 | x]``: ``fixed`` (the estimand is the users' empirical
        distribution ``f``) gives ``(f @ a - f) / n``; ``iid`` (users drawn from ``f``)
        gives ``(f @ a - f^2) / n``. ``f=None`` is the uniform distribution.

        Parameters
        ----------
        n : int
            Number of users.
        f : array_like of shape (k,), optional
            The input distribution (non-negative; it is not renormalised).
        convention : {"fixed", "iid"}
        """
        users = check_n(n)
        conv = check_convention(convention)
        if f is None:
            freq = np.full(self.k, 1.0 / self.k)
        else:
            freq = as_real_array(f, "f")
            if freq.shape != (self.k,) or np.any(freq < 0) or np.any(freq > 1):
                raise ValueError(
                    f"f must be {self.k} frequencies in [0, 1], got shape {freq.shape}"
                )
        moment = freq @ self._second
        out = moment - (freq if conv == "fixed" else freq**2)
        return np.maximum(out, 0.0) / users
