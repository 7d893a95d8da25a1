"""Estimates on the scale of a protocol's answers: the one home of the map back from the
mechanism's domain.

A protocol for numbers in ``[low, high]`` runs a mean mechanism on its own domain
(``[-1, 1]`` for most): :meth:`Protocol.encode` maps an answer ``x`` affinely onto it, so the
decoder's mean (and its standard error) come back through the inverse map,
``low + (value - domain.low) * slope`` with ``slope = (high - low) / (domain.high -
domain.low)``, the standard error times ``slope``. A categorical protocol's estimate is named
by its labels (or the indices ``0 .. k - 1``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ldp.core import Estimate, Interval

if TYPE_CHECKING:  # pragma: no cover
    from ldp.protocol.document import Protocol

__all__ = ["answer_estimate"]


def answer_estimate(protocol: Protocol, estimate: Estimate) -> Estimate:
    """``estimate`` (from ``protocol.decoder.interval``) on the scale of the answers.

    Parameters
    ----------
    protocol : Protocol
        The protocol whose reports were decoded.
    estimate : Estimate
        The decoder's estimate.

    Returns
    -------
    Estimate
        Categorical protocols: named by the labels (or indices). Interval protocols of one
        number: the mean and its standard error mapped back onto ``[low, high]``. Others:
        ``estimate`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import Laplace
    >>> from ldp.protocol import Protocol
    >>> from ldp.protocol.answers import answer_estimate
    >>> protocol = Protocol.from_mechanism(Laplace(1.0), bounds=(0.0, 100.0))
    >>> decoder = protocol.decoder
    >>> raw = decoder.interval(decoder.aggregate(np.array([0.5, 0.5])))  # 0.5 on [-1, 1]
    >>> mean = answer_estimate(protocol, raw)
    >>> float(mean.value), bool(np.isclose(mean.standard_error, 50 * raw.standard_error))
    (75.0, True)
    """
    if protocol.kind == "categorical":
        labels = protocol.labels
        return estimate.named(range(np.size(estimate.value)) if labels is None else labels)
    target = protocol.mechanism.domain
    bounds = protocol.bounds
    if (
        protocol.kind != "interval"
        or bounds is None
        or not isinstance(target, Interval)
        or np.ndim(estimate.value) != 0
    ):
        return estimate
    low, high = bounds
    slope = (high - low) / (target.high - target.low)
    return Estimate(
        low + (float(estimate.value) - target.low) * slope,
        slope * float(estimate.standard_error),
        estimate.confidence,
        estimate.n,
        estimate.method,
    )
