"""Named problems: a preset's minimax lower bound beside the risk its standard estimator achieves.

:func:`preset` is the one entry point of the ``ldp bound`` command and of
:class:`ldp.plotting.RiskDisplay`: it evaluates a problem of ``PRESETS`` by name, taking the
lower bound from :mod:`ldp.risk.bounds` and the achieved risk from :mod:`ldp.risk.achieved`.
"""

from __future__ import annotations

from typing import Any

from ldp.risk._common import Bound
from ldp.risk.achieved.achievable import krr_distribution_risk, rr_mean_risk
from ldp.risk.bounds.bayes import beta_bernoulli_bayes
from ldp.risk.bounds.presets import (
    ball_mean,
    bernoulli_mean,
    distribution_estimation,
    moment_mean,
)

__all__ = ["PRESETS", "preset"]

#: The problems :func:`preset` knows, by name.
PRESETS = ("bernoulli-mean", "moment-mean", "ball-mean", "distribution", "beta-bernoulli")


def preset(
    name: str,
    n: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    route: str | None = None,
    **options: object,
) -> tuple[Bound, Bound | None]:
    """A named problem's minimax lower bound, and the exact risk of its standard estimator.

    The one entry point the ``ldp bound`` command and :class:`ldp.plotting.RiskDisplay` use.

    Parameters
    ----------
    name : {"bernoulli-mean", "moment-mean", "ball-mean", "distribution", "beta-bernoulli"}
        The problem (see ``PRESETS``): :func:`~ldp.risk.bernoulli_mean`,
        :func:`~ldp.risk.moment_mean`, :func:`~ldp.risk.ball_mean`,
        :func:`~ldp.risk.distribution_estimation` or :func:`~ldp.risk.beta_bernoulli_bayes`.
    n : int
        Number of users.
    epsilon, delta : float
        The privacy level.
    route : str, optional
        The bound's method: ``best|kl|hellinger|djw`` (bernoulli-mean), ``best|lecam|fano``
        (ball-mean), ``best|djw|phi`` (distribution), ``theorem2|corollary3``
        (beta-bernoulli); moment-mean has none.
    **options
        ``support`` for bernoulli-mean; ``moment`` (required) for moment-mean; ``d``
        (required) and ``r`` for ball-mean; ``k`` (required) and ``loss`` for distribution;
        ``envelope`` for beta-bernoulli. Anything else raises ``TypeError``.

    Returns
    -------
    (Bound, Bound or None)
        The lower bound, and the risk achieved by randomized response (bernoulli-mean) or
        k-RR (distribution), ``None`` for the other problems.

    Examples
    --------
    >>> from ldp.risk import preset
    >>> lower, achieved = preset("distribution", 1000, 1.0, k=10)
    >>> lower.value <= achieved.value
    True
    >>> preset("moment-mean", 100, 1.0)
    Traceback (most recent call last):
    ...
    TypeError: the 'moment-mean' preset needs moment
    """

    def take(key: str, default: Any = None, required: bool = False) -> Any:
        if required and options.get(key) is None:
            raise TypeError(f"the {name!r} preset needs {key}")
        value = options.pop(key, None)
        return default if value is None else value

    achieved = None
    if name == "bernoulli-mean":
        support = take("support", (0.0, 1.0))
        lower = bernoulli_mean(n, epsilon, delta, support=support, method=route or "best")
        achieved = rr_mean_risk(n, epsilon, support=support)
    elif name == "moment-mean":
        if route is not None:
            raise ValueError("the 'moment-mean' preset has no route")
        lower = moment_mean(n, epsilon, delta, k=take("moment", required=True))
    elif name == "ball-mean":
        d = take("d", required=True)
        if route == "fano" and isinstance(d, int) and d < 16:
            raise ValueError(f"the Fano bound for ball-mean needs d >= 16, got d = {d}")
        lower = ball_mean(n, epsilon, delta, d=d, r=take("r", 1.0), method=route or "best")
    elif name == "distribution":
        k, loss = take("k", required=True), take("loss", "l2sq")
        lower = distribution_estimation(k, n, epsilon, delta, loss=loss, method=route or "best")
        achieved = krr_distribution_risk(k, n, epsilon, loss=loss)
    elif name == "beta-bernoulli":
        lower = beta_bernoulli_bayes(
            n, epsilon, delta, method=route or "theorem2", envelope=bool(take("envelope", False))
        )
    else:
        raise ValueError(f"preset must be one of {PRESETS}, got {name!r}")
    if options:
        raise TypeError(f"the {name!r} preset does not take {', '.join(sorted(options))}")
    return lower, achieved
