"""What the estimate endpoint answers: the running estimate, held back below a minimum.

An estimate is released only when the reports it decodes number at least the operator's
``min_reports`` (the idea of the minimum batch size of the IETF's Distributed Aggregation
Protocol): below it, ``estimates`` is ``null``. Above it, one entry per category (labelled
as the protocol labels them), per queried item of a sketch, or one for the mean of a numeric
protocol, each with its two-sided normal interval from the decoder
(:meth:`~ldp.core.Decoder.interval`), on the scale of the answers
(:func:`ldp.protocol.answers.answer_estimate`). The privacy statement is the one a device
computes from the protocol's constants (:meth:`~ldp.protocol.Protocol.device_privacy`).
A marginals protocol's estimate is its requested marginals instead
(:func:`ldp.collector.marginals.marginal_estimates`), under ``marginals``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ldp.collector.marginals import GroupCounts, marginal_estimates
from ldp.core import check_confidence
from ldp.protocol import MarginalProtocol, Protocol
from ldp.protocol.answers import answer_estimate

__all__ = ["ESTIMABLE", "estimate_document", "privacy_document"]

#: The protocol kinds the estimate endpoint decodes (vector protocols are decoded with the
#: library, from an export).
ESTIMABLE = ("categorical", "interval", "items")


def privacy_document(protocol: Protocol | MarginalProtocol) -> dict[str, Any]:
    """The privacy of one report, as a device computes it from the protocol's constants.

    Examples
    --------
    >>> from ldp.mechanisms import GRR
    >>> from ldp.protocol import Protocol
    >>> from ldp.collector.estimates import privacy_document
    >>> privacy_document(Protocol.from_mechanism(GRR(3, 1.0)))["epsilon"]
    1.0

    A marginals protocol's also says how many groups a device draws from:

    >>> from ldp.protocol import MarginalProtocol
    >>> from ldp.tasks.marginals import build_design
    >>> table = MarginalProtocol.from_design(
    ...     build_design("joint", (2, 2), [(0, 1)], 1.0), [("a", [0, 1]), ("b", [0, 1])])
    >>> privacy = privacy_document(table)
    >>> privacy["mechanism"], privacy["groups"], privacy["epsilon"]
    ('marginals', 1, 1.0)
    """
    device = protocol.device_privacy()
    document = {
        "epsilon": float(device["epsilon"]),
        "delta": float(device["delta"]),
        "mechanism": device["mechanism"],
        "certified": bool(device["certified"]),
    }
    if isinstance(protocol, MarginalProtocol):
        document["groups"] = int(device["groups"])
    document["per"] = "report"
    return document


def _label(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def estimate_document(
    protocol: Protocol | MarginalProtocol,
    statistic: Any,
    *,
    min_reports: int,
    confidence: float = 0.95,
    items: Sequence[str] | None = None,
    privacy: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON document of the estimate from ``statistic`` (held back below ``min_reports``).

    Parameters
    ----------
    protocol : Protocol or MarginalProtocol
    statistic : statistic of ``protocol.decoder`` (``GroupCounts`` of a marginals protocol)
        The running statistic of the reports to decode.
    min_reports : int
        The fewest reports an estimate is released from (at least 1).
    confidence : float, default 0.95
        The level of the intervals.
    items : sequence of str, optional
        The items to estimate (sketch protocols, where they are required).
    privacy : dict, optional
        ``privacy_document(protocol)``, when the caller keeps it (it is computed otherwise).

    Returns
    -------
    dict
        ``fingerprint``, ``n``, ``min_reports``, ``confidence``, ``method``, ``estimates``
        (``None`` below the minimum) and ``privacy``. A marginals protocol's has
        ``marginals`` instead of ``estimates`` (``None`` below the minimum or while a group
        has fewer reports than cells, ``held_back`` then says why), ``method`` its design,
        and ``group_reports``, the reports of each group.

    Raises
    ------
    ValueError
        For a protocol kind the endpoint does not decode, missing or needless ``items``, and
        a ``confidence`` outside ``(0, 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> from ldp.protocol import Protocol
    >>> from ldp.collector.estimates import estimate_document
    >>> protocol = Protocol.from_mechanism(GRR(2, 1.0), labels=["no", "yes"])
    >>> statistic = protocol.decoder.aggregate(np.array([0, 1, 1, 1]))
    >>> estimate_document(protocol, statistic, min_reports=10)["estimates"] is None
    True
    >>> document = estimate_document(protocol, statistic, min_reports=4)
    >>> [entry["label"] for entry in document["estimates"]], document["n"]
    (['no', 'yes'], 4)
    """
    confidence = check_confidence(confidence)
    if isinstance(min_reports, bool) or not isinstance(min_reports, int) or min_reports < 1:
        raise ValueError(f"min_reports must be a whole number >= 1, got {min_reports!r}")
    if isinstance(protocol, MarginalProtocol):
        return _marginal_document(protocol, statistic, min_reports, confidence, items, privacy)
    if protocol.kind not in ESTIMABLE or (
        protocol.kind == "interval" and getattr(protocol.mechanism.domain, "d", 1) != 1
    ):
        raise ValueError(
            f"the estimate endpoint decodes categorical, numeric (one number) and sketch "
            f"protocols; this one is on {protocol.describe_domain()}: export its reports and "
            "decode them with the library"
        )
    options: dict[str, Any] = {}
    if protocol.kind == "items":
        if not items:
            raise ValueError("a sketch protocol's estimate needs items (?items=a,b,c)")
        options["items"] = list(items)
    elif items:
        raise ValueError(
            f"items are queried in sketch protocols only, got items={list(items)!r} for a "
            f"{protocol.kind} protocol"
        )
    n = int(statistic.n)
    document: dict[str, Any] = {
        "fingerprint": protocol.fingerprint,
        "n": n,
        "min_reports": min_reports,
        "confidence": confidence,
        "method": None,
        "estimates": None,
        "privacy": privacy_document(protocol) if privacy is None else privacy,
    }
    if n < min_reports:
        return document
    estimate = answer_estimate(
        protocol, protocol.decoder.interval(statistic, confidence, **options)
    )
    names = estimate.names if estimate.names is not None else ("mean",)
    values, lows, highs = (
        np.atleast_1d(v) for v in (estimate.value, estimate.lower, estimate.upper)
    )
    errors = np.broadcast_to(estimate.standard_error, values.shape)
    document["method"] = estimate.method
    document["estimates"] = [
        {
            "label": _label(name),
            "estimate": float(values[i]),
            "std": float(errors[i]),
            "ci_low": float(lows[i]),
            "ci_high": float(highs[i]),
        }
        for i, name in enumerate(names)
    ]
    return document


def _marginal_document(
    protocol: MarginalProtocol,
    statistic: GroupCounts,
    min_reports: int,
    confidence: float,
    items: Sequence[str] | None,
    privacy: dict[str, Any] | None,
) -> dict[str, Any]:
    if items:
        raise ValueError(
            f"items are queried in sketch protocols only, got items={list(items)!r} for a "
            "marginals protocol"
        )
    n = int(statistic.n)
    document: dict[str, Any] = {
        "fingerprint": protocol.fingerprint,
        "kind": "marginals",
        "n": n,
        "group_reports": [int(s.n) for s in statistic.groups],
        "min_reports": min_reports,
        "confidence": confidence,
        "method": protocol.design.method,
        "marginals": None,
        "held_back": None,
        "privacy": privacy_document(protocol) if privacy is None else privacy,
    }
    if n < min_reports:
        document["held_back"] = f"{n} reports, fewer than the minimum of {min_reports}"
        return document
    document["marginals"], document["held_back"] = marginal_estimates(
        protocol, statistic, confidence
    )
    return document
