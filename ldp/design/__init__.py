"""Utility-maximising local randomizers: the channel optimizer.

Given a privacy budget and a utility, return the best :class:`~ldp.Channel` together with a
certificate: the privacy of the returned matrix is recomputed exactly, never read off the
solver.

Two families of programs are solved with cvxpy:

* **Linear utilities** (Bayes decision problems): maximise ``sum_x prior_x sum_z K[x, z]
  U[x, z]`` over channels with a given output alphabet, subject to pure eps-LDP in the compact
  *row-min* form (one auxiliary ``lo_z`` per output with ``lo_z <= K[x, z] <= e^eps lo_z``),
  to (eps, delta)-LDP through the hockey-stick constraint with auxiliary positive parts, and
  optionally to eta-TV through the pairwise TV constraint. ``e^eps`` is a cvxpy
  ``Parameter``, so :class:`LinearDesign` compiles once and re-solves along a sweep.
* **Sublinear utilities** (Kairouz, Oh & Viswanath, "Extremal mechanisms for local
  differential privacy", JMLR 2016): mutual information under a prior, any f-divergence
  between two hypotheses (KL, TV, chi^2, squared Hellinger) and Fisher information. Some
  optimal eps-LDP channel is a *staircase* channel whose columns are ``theta_j S_j`` with
  ``S_j in {1, e^eps}^k``; the optimum is the LP ``max mu^T theta`` s.t. ``S theta = 1``,
  ``theta >= 0`` over the ``2^k - 1`` patterns (exact; practical to ``k`` about 16). Two
  reductions reach larger ``k``: for permutation-invariant utilities (mutual information under
  the uniform prior) the LP collapses onto one weight class, i.e. subset selection; for
  binary hypothesis testing only the ``O(k^2)`` patterns that are intervals of the
  likelihood-ratio order are needed (checked against the full LP in the tests). For mutual
  information under any prior, ``k <= 64``, the LP is solved by *column generation*
  (``ldp.design.colgen``): a few patterns at a time, new ones priced by local search and,
  to stop, by an exact mixed-integer pricing step whose bound certifies the optimality gap
  (``DesignResult.gap``).

Certification
-------------
Solver output is never returned raw: ``ldp.design.certify`` cleans it into a valid
channel, recomputes its privacy from the matrix and raises :class:`DesignError` when it does
not meet the budget (see that module for the repair rules).

Where things live
-----------------
``ldp.design.certify`` (certification, :class:`DesignError`, :class:`DesignResult`),
``ldp.design.utility`` (the utilities and :func:`utility_value`),
``ldp.design.linear`` (:class:`LinearDesign`), ``ldp.design.staircase`` (the
staircase LP and its reductions), ``ldp.design.colgen`` (column generation),
``ldp.design.optimal`` (:func:`optimal_channel`),
:mod:`~ldp.design.compare` (:func:`compare`) and ``ldp.design.frequency``
(:func:`frequency_risk`, :func:`optimal_frequency_channel`; :func:`frequency_decoder` lives
in ``ldp.tasks.decoding``). Every public name is importable from ``ldp.design``.
"""

from ldp.design.certify import (
    EMPTY_OUTPUT,
    MAX_EPSILON,
    REPAIR_TOLERANCE,
    DesignError,
    DesignResult,
)
from ldp.design.colgen import MAX_COLUMN_GENERATION_K
from ldp.design.compare import compare
from ldp.design.frequency import (
    FrequencyDesign,
    frequency_decoder,
    frequency_risk,
    optimal_frequency_channel,
)
from ldp.design.linear import LinearDesign
from ldp.design.optimal import optimal_channel
from ldp.design.staircase import MAX_ENTRIES, MAX_STAIRCASE_K
from ldp.design.utility import SUBLINEAR, utility_value

__all__ = [
    "EMPTY_OUTPUT",
    "MAX_COLUMN_GENERATION_K",
    "MAX_ENTRIES",
    "MAX_EPSILON",
    "MAX_STAIRCASE_K",
    "REPAIR_TOLERANCE",
    "SUBLINEAR",
    "DesignError",
    "DesignResult",
    "FrequencyDesign",
    "LinearDesign",
    "compare",
    "frequency_decoder",
    "frequency_risk",
    "optimal_channel",
    "optimal_frequency_channel",
    "utility_value",
]
