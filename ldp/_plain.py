"""The privacy of a mechanism in plain terms, for the people who answer and who decide.

What a product owner asks of a privatizer, computed from the mechanism (never from an
argument):

* **how often the true answer is sent**: ``P(report = x | x)`` for a square channel, the
  probability that the report supports the true value for a frequency oracle;
* **how far one report can move a belief**: the largest factor ``e^eps`` by which seeing a
  report multiplies the odds of one answer against another (Bayes' rule: posterior odds =
  prior odds x likelihood ratio, and every likelihood ratio is at most ``e^eps``);
* what ``delta`` means, when it is not 0;
* **the best guess an observer can make** from one report when every answer is equally
  likely a priori: the accuracy of the maximum-a-posteriori guess,
  ``(1/k) sum_z max_x K[x, z]``, against ``1/k`` without the report. When the mechanism is
  too large to enumerate, the bound ``e^eps / (e^eps + k - 1)`` (attained by k-ary randomized
  response, the most revealing epsilon-LDP mechanism for this question) is given instead.

This module is a leaf: it reads the mechanism through its public methods only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PlainPrivacy", "plain_privacy"]

#: Largest channel (entries) whose observer accuracy is computed exactly.
_EXACT_ENTRIES = 1 << 24


@dataclass(frozen=True)
class PlainPrivacy:
    """The privacy of one report in plain terms (see the module notes); built by
    :meth:`ldp.core.Mechanism.summary`.

    Parameters
    ----------
    epsilon, delta : float
        The guarantee.
    odds_factor : float
        ``e^epsilon``: the most one report can multiply the odds of any answer against any
        other.
    p_true_report : float or None
        The smallest probability, over the answers, that the report is (or, for a
        frequency oracle, points to: supports) the true answer; ``None`` where reports are
        not answers (numbers, designed outputs).
    p_other_report : float or None
        For a frequency oracle: the probability that a report points to a given other
        answer (``q``).
    observer_accuracy : float or None
        The accuracy of the best guess of the answer from one report, under a uniform prior
        over the ``k`` answers (``None`` for numeric answers).
    observer_accuracy_exact : bool
        Whether ``observer_accuracy`` is exact (else the randomized-response upper bound).
    prior_accuracy : float or None
        ``1 / k``: the accuracy of a guess without the report.

    Examples
    --------
    >>> from ldp import k_rr
    >>> plain = k_rr(4, 1.0).summary()
    >>> round(plain.p_true_report, 4), round(plain.odds_factor, 4)  # e / (e + 3), e
    (0.4754, 2.7183)
    >>> round(plain.observer_accuracy, 4), plain.prior_accuracy
    (0.4754, 0.25)
    """

    epsilon: float
    delta: float
    odds_factor: float
    p_true_report: float | None
    p_other_report: float | None
    observer_accuracy: float | None
    observer_accuracy_exact: bool
    prior_accuracy: float | None

    def to_dict(self) -> dict[str, object]:
        """The fields (JSON-able)."""
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "odds_factor": self.odds_factor,
            "p_true_report": self.p_true_report,
            "p_other_report": self.p_other_report,
            "observer_accuracy": self.observer_accuracy,
            "observer_accuracy_exact": self.observer_accuracy_exact,
            "prior_accuracy": self.prior_accuracy,
        }

    def lines(self) -> list[str]:
        """Sentences a non-specialist can read."""
        out = []
        if self.p_true_report is not None and self.p_other_report is None:
            out.append(
                f"The true answer is sent with probability at least {self.p_true_report:.3g}."
            )
        elif self.p_true_report is not None:
            out.append(
                f"A report points to the true answer with probability {self.p_true_report:.3g} "
                f"and to any other given answer with probability {self.p_other_report:.3g}."
            )
        out.append(
            f"One report multiplies the odds of any answer against any other by at most "
            f"{_factor(self.odds_factor)} (e^epsilon, epsilon = {self.epsilon:.4g})."
        )
        if self.delta > 0:
            out.append(
                f"With probability at most delta = {self.delta:.3g} a report may say more than "
                "that (in the worst case, reveal the answer)."
            )
        if self.observer_accuracy is not None and self.prior_accuracy is not None:
            how = "" if self.observer_accuracy_exact else "at most "
            out.append(
                f"An observer guessing the answer from one report is right {how}"
                f"{self.observer_accuracy:.1%} of the time when all answers are equally "
                f"likely, against {self.prior_accuracy:.1%} without it."
            )
        return out


def _factor(value: float) -> str:
    if math.isinf(value):
        return "an unbounded factor"
    return f"{value:.4g}"


def plain_privacy(mechanism: Any, delta: float = 0.0) -> PlainPrivacy:
    """The plain-terms privacy of a mechanism (a ``Channel``, oracle or mean mechanism).

    Parameters
    ----------
    mechanism : Mechanism
        Anything of :mod:`ldp.mechanisms` (or a :class:`~ldp.Channel`).
    delta : float, default 0.0
        State the guarantee at this delta (channels): the epsilon is then the smallest with
        ``delta(epsilon) <= delta``.

    Returns
    -------
    PlainPrivacy

    Examples
    --------
    >>> import ldp
    >>> from ldp._plain import plain_privacy
    >>> plain = plain_privacy(ldp.k_rr(4, 1.0))
    >>> round(plain.p_true_report, 4), round(plain.odds_factor, 4)  # e / (e + 3), e
    (0.4754, 2.7183)
    >>> round(plain.observer_accuracy, 4), plain.prior_accuracy
    (0.4754, 0.25)
    """
    epsilon = float(mechanism.epsilon if delta == 0 else mechanism.epsilon_for_delta(delta))
    odds = math.inf if epsilon > 709.0 else math.exp(epsilon) * (1 + 4 * 2.0**-53)
    domain = mechanism.domain
    k = getattr(domain, "k", None)
    matrix = _small_matrix(mechanism)
    p_true = p_other = None
    accuracy = None
    exact = False
    if k is not None:
        support = getattr(mechanism, "p", None)
        if isinstance(support, float) and not getattr(mechanism, "report_is_answer", False):
            p_true, p_other = support, float(mechanism.q)  # a report supports p and q
        elif isinstance(support, float):  # the report is the answer itself (k-RR)
            p_true = support
        elif matrix is not None and matrix.shape[0] == matrix.shape[1]:
            p_true = float(np.min(np.diag(matrix)))
        if matrix is not None:
            accuracy = float(matrix.max(axis=0).sum() / matrix.shape[0])
            exact = True
        else:
            accuracy = 1.0 if math.isinf(odds) else odds / (odds + k - 1)
    return PlainPrivacy(
        epsilon=epsilon,
        delta=float(delta),
        odds_factor=odds,
        p_true_report=p_true,
        p_other_report=p_other,
        observer_accuracy=accuracy,
        observer_accuracy_exact=exact,
        prior_accuracy=None if k is None else 1.0 / k,
    )


def _small_matrix(mechanism: object) -> np.ndarray | None:
    matrix = getattr(mechanism, "matrix", None)
    if isinstance(matrix, np.ndarray):
        return matrix
    if getattr(mechanism.domain, "k", 0) > 256:  # type: ignore[attr-defined]
        return None  # do not enumerate a large mechanism for a summary
    try:
        channel = mechanism.to_channel()  # type: ignore[attr-defined]
    except (NotImplementedError, ValueError, MemoryError):
        return None
    return channel.matrix if channel.matrix.size <= _EXACT_ENTRIES else None
