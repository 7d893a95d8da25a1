"""The protocol every local randomizer answers to: domain, reports, privacy, identity.

:class:`Mechanism` is what the rest of the library (protocol files, clients, audits,
estimators, accounting) relies on, so that a new mechanism is one class and one registry
line. A mechanism has

* a **domain** (:class:`~ldp.core.Categories`, :class:`~ldp.core.Interval`,
  :class:`~ldp.core.Ball` or :class:`~ldp.core.Items`):
  the values it privatizes;
* ``privatize(values, *, rng=None)``: one report per user, vectorised (``rng`` by keyword);
* a **report codec** (:class:`~ldp.core.ReportCodec`): the report's fields (integers or floats, with
  their ranges), and the conversion between the compact numpy reports and rows of fields
  (the wire format of report files), refusing what the mechanism cannot output;
* ``epsilon``: an upper bound on its pure-LDP level *as the sampler draws it* (computed from
  the exact probabilities of ``ldp._sampling`` and rounded up);
* ``sampler()``: the constants a device needs to run it without computing a transcendental
  function (the exact weights of every coin), written into protocol files;
* ``name`` and ``params``: its identity (``REGISTRY[name](**params)`` rebuilds it), used for
  equality, fingerprints and refusing foreign reports.

The domains live in :mod:`ldp.core.domains`, the codec in :mod:`ldp.core.codec`. The core
imports nothing from the rest of :mod:`ldp` but the leaf helpers, so that
:class:`~ldp.Channel` and the mechanisms can both build on it.
"""

from __future__ import annotations

import abc
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ldp._plain import PlainPrivacy, plain_privacy
from ldp.core.codec import ReportCodec
from ldp.core.domains import Domain

__all__ = ["Mechanism", "finite_or_none"]


# ----------------------------------------------------------------------------- protocol
class Mechanism(abc.ABC):
    """A local randomizer: the protocol shared by :class:`~ldp.Channel`, every frequency
    oracle and every mean mechanism (see the module notes).

    Subclasses set ``name`` and implement ``params``, ``domain``, ``epsilon``,
    ``privatize``, ``codec`` and ``sampler``; the privacy profile (``delta``,
    ``epsilon_for_delta``, ``tv``) defaults to the exact finite channel of
    :meth:`to_channel` where the mechanism has one.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.mechanisms import GRR, Laplace, Mechanism
    >>> all(isinstance(m, Mechanism) for m in (GRR(4, 1.0), Laplace(1.0), k_rr(4, 1.0)))
    True
    >>> grr = GRR(4, 1.0)
    >>> type(grr).from_params(grr.params) == grr
    True
    """

    __slots__ = ()

    #: The registry name (``ldp.mechanisms.REGISTRY[name]`` is the class).
    name: ClassVar[str] = ""

    #: Attributes added since an earlier release, with the value that release behaved as: a
    #: pickle written by it lacks them, and :meth:`__setstate__` fills them in.
    _RESTORED_DEFAULTS: ClassVar[Mapping[str, object]] = {}

    def __setstate__(self, state: Any) -> None:
        """Restore a pickled mechanism, also one pickled by an earlier release (whose
        attributes added since are filled in by :meth:`_restore`)."""
        # pickle's default state: the instance dict, or (dict, slot values) with slots
        attributes, slots = state if isinstance(state, tuple) else (state, None)
        # attribute names interned, as pickle's own restore does
        self.__dict__.update({sys.intern(key): value for key, value in (attributes or {}).items()})
        for key, value in (slots or {}).items():
            object.__setattr__(self, key, value)
        self._restore()

    def _restore(self) -> None:
        """Fill in what a pickle of an earlier release lacks: ``_RESTORED_DEFAULTS``, then
        every other attribute of the mechanism its parameters build today (the attributes
        the pickle has are kept)."""
        for key, value in self._RESTORED_DEFAULTS.items():
            self.__dict__.setdefault(key, value)
        fresh = type(self).from_params(self.params)
        for key, value in vars(fresh).items():
            self.__dict__.setdefault(key, value)

    # ----------------------------------------------------------------- identity
    @property
    @abc.abstractmethod
    def params(self) -> dict[str, Any]:
        """The defining parameters: ``type(self).from_params(params) == self``."""

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Mechanism:
        """Rebuild the mechanism from :attr:`params`."""
        if not isinstance(params, Mapping):
            raise TypeError(f"params must be a mapping, got {type(params).__name__}")
        return cls(**dict(params))

    @property
    def key(self) -> str:
        """A string that identifies the mechanism and its parameters."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({args})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mechanism):
            return NotImplemented
        return type(self) is type(other) and self.key == other.key

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.key))

    # ----------------------------------------------------------------- what it does
    @property
    @abc.abstractmethod
    def domain(self) -> Domain:
        """The values the mechanism privatizes."""

    @abc.abstractmethod
    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """One report per user (vectorised); ``rng="os"`` on devices."""

    @property
    @abc.abstractmethod
    def codec(self) -> ReportCodec:
        """The report fields and their conversion from and to rows."""

    @abc.abstractmethod
    def sampler(self) -> dict[str, Any]:
        """The constants a device needs to run :meth:`privatize` (JSON-able)."""

    # ----------------------------------------------------------------- privacy
    @property
    @abc.abstractmethod
    def epsilon(self) -> float:
        """An upper bound on the pure-LDP level of the mechanism as sampled (rounded up)."""

    def gdp_mu(self) -> float | None:
        """The ``mu`` when the mechanism is exactly ``mu``-GDP (its trade-off curve is
        ``G_mu``, Dong-Roth-Su (2022)), or ``None`` (the default: no closed form; its privacy
        is read from :meth:`privacy_channel`). :func:`~ldp.accounting.compose` composes
        such mechanisms in closed form."""
        return None

    def to_channel(self):
        """The exact finite channel (input -> report), where the mechanism has one."""
        raise NotImplementedError(f"{type(self).__name__} has no finite channel")

    #: Whether a report is itself one of the answers, the true one with probability ``p``
    #: (k-ary randomized response sends a category): a plain summary then says the true
    #: answer is *sent* with probability ``p``, where a support-set oracle's report *points
    #: to* the true answer with probability ``p`` and to any other with probability ``q``.
    report_is_answer: ClassVar[bool] = False

    #: Whether :meth:`privacy_channel` has exactly the mechanism's privacy profile (``True``)
    #: or only dominates it (its profile is a certified upper bound).
    privacy_exact: ClassVar[bool] = True

    def privacy_channel(self):
        """A small :class:`~ldp.Channel` with the mechanism's privacy profile.

        Its delta profile ``max_{x != x'} E_{e^eps}(K_x || K_x')``, eta-TV, trade-off curve
        and n-fold same-input composition are the mechanism's (where
        :attr:`privacy_exact`), or upper bounds of them. Mechanisms reduce their worst pair of
        inputs to the few likelihood-ratio classes of its outputs (a 2-row channel: every
        other pair is a garbling of it); the default is :meth:`to_channel`.
        """
        return self.to_channel()

    @property
    def tv(self) -> float:
        """The eta-TV level ``max_{x, x'} TV(K_x, K_x')`` (from :meth:`privacy_channel`)."""
        return self.privacy_channel().tv

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """The tight delta at level ``epsilon`` (from :meth:`privacy_channel`)."""
        return self.privacy_channel().delta(epsilon)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """The smallest epsilon at which the delta profile is ``<= delta``."""
        return self.privacy_channel().epsilon_for_delta(delta)

    def summary(self, delta: float = 0.0) -> PlainPrivacy:
        """The privacy of one report in plain terms (:class:`~ldp.mechanisms.PlainPrivacy`):
        how often the true answer is sent, how far one report can move the odds, and how
        well an observer can guess the answer.

        Examples
        --------
        >>> import ldp
        >>> plain = ldp.k_rr(3, 1.0).summary()
        >>> round(plain.p_true_report, 3), round(plain.odds_factor, 3)
        (0.576, 2.718)
        >>> plain.lines()[0]
        'The true answer is sent with probability at least 0.576.'
        """
        return plain_privacy(self, delta)

    def krr_parameters(self) -> tuple[int, float] | None:
        """``(k, epsilon)`` when the mechanism is k-ary randomized response, else ``None``.

        Accounting answers k-RR with closed forms (the clone probability and the privacy
        blanket of :func:`ldp.accounting.shuffle_amplification`); the mechanism says whether
        they apply (:class:`~ldp.mechanisms.GRR`, and a :class:`~ldp.Channel` whose matrix is
        k-RR), so that no caller compares types or names.

        Examples
        --------
        >>> import ldp
        >>> from ldp.mechanisms import GRR, OUE
        >>> GRR(5, 1.0).krr_parameters(), OUE(5, 1.0).krr_parameters()
        ((5, 1.0), None)
        >>> ldp.k_rr(3, 2.0).krr_parameters()[0]
        3
        """
        return None

    def audit_statistic(self, x0: Any, x1: Any) -> Callable[[np.ndarray], np.ndarray] | None:
        """Reports -> one integer per report keeping the likelihood ratio of ``x0`` and ``x1``.

        Empirical audits (:func:`ldp.audit.epsilon_lower_bound`) compare the two output laws
        through this statistic; a sufficient statistic of the pair makes the audit tight.
        ``None`` means the reports are already small integers (an output index).
        """
        return None


def finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
