"""Could honest devices have sent these reports? A goodness-of-fit test against the image.

Whatever the answers of the people, honest reports of a frequency mechanism with channel
``K`` have the law ``pi K`` for some distribution ``pi`` of the answers: their statistic
lies, up to sampling noise, in the image of the simplex. Reports made otherwise (a protocol
file edited on the way to the devices, clients that skip the noise or use other constants,
reports of another protocol) may land far outside it, and their unbiased estimates then
fall outside the simplex by many standard errors. :func:`report_fit` measures that distance
and gives a p-value; :func:`check_reports` warns
(:class:`~ldp.ImplausibleReportsWarning`) or refuses (``strict``) below a level.

**The statistic.** The decoder's statistic ``S`` (support counts, or the output histogram
of a :class:`~ldp.tasks.ChannelOracle`) is a sum of ``n`` independent reports, with
mean ``n (a + B pi)`` for the true ``pi`` (``a + B pi`` is ``q + (p - q) pi`` for a pure
frequency oracle, ``pi K`` for a channel). The test computes

``T = n min over pi in the simplex of sum_j (S_j / n - (a + B pi)_j)^2 / w_j``,

a Wald-type distance from the observed statistic to the image, in a diagonal metric whose
entries ``w_j`` *dominate* the exact covariance of one report: ``diag(w) - Sigma(pi)`` is
positive semi-definite (the derivations are below, and the tests check them against the
covariance of the enumerated channel). Under the null hypothesis (honest reports of some
``pi_0`` in the simplex), ``T`` is at most its value at ``pi_0``, which is at most the
exact Mahalanobis form ``n (S/n - mu_0)^T Sigma^+ (S/n - mu_0)``, asymptotically
chi-square with ``r = rank(Sigma)`` degrees of freedom. So ``P(chi2_r > T)`` is a valid
(conservative) p-value wherever ``pi_0`` lies, on the boundary of the simplex (categories
that nobody holds) included: the exact null law of a distance to a polytope is a mixture
of chi-squares of at most ``r`` degrees of freedom (a chi-bar-square: Kudo (1963);
Silvapulle-Sen (2005)), which the chi-square of the full dimension dominates. The weights
are evaluated at a consistent estimate of ``pi_0`` (the projection of the unbiased estimate
onto the simplex), so the domination holds in the limit. Users with fixed answers
(rather than a sample) only make the covariance smaller, and the test more conservative.

**The metric of each mechanism** (one report ``s`` in ``{0, 1}^k``, ``mu = q + (p - q) pi``;
for ``u != v`` and an input ``x``, ``r1 = P(s_x = s_u = 1 | x)`` and
``r2 = P(s_u = s_v = 1 | x)`` with ``x`` outside ``{u, v}``). Then
``Sigma = Delta + alpha 1 1^T + beta (1 pi^T + pi 1^T) - gamma pi pi^T`` exactly, with
``alpha = r2 - q^2``, ``beta = r1 - r2 - q (p - q)``, ``gamma = (p - q)^2`` and ``Delta``
diagonal; the rank-two part is negative semi-definite for every oracle here (when the
``2 x 2`` matrix ``[[alpha, beta], [beta, -gamma]]`` is not, its positive eigenvalue times
``k + 1`` is added), so ``w = diag(Delta)``:

* GRR and L-GRR (one-hot reports): ``r1 = r2 = 0``, and ``w = mu`` (Pearson's weights);
* unary encodings, L-OSUE, L-OUE and RAPPOR (independent bits): ``r1 = p q``, ``r2 = q^2``;
* subset selection (``d`` of ``k``): ``r1 = p (d - 1)/(k - 1)``,
  ``r2 = (d - 1)(d - 2p)/((k - 1)(k - 2))``;
* local hashing: the hash families are exactly three-wise independent on distinct values,
  except on the lines of ``GF(p)^L`` for an odd prime ``p``, so ``r1 = p/g``,
  ``r2 = 1/g^2``; on a line the pair term is ``p/g`` instead, a non-negative matrix whose
  rows sum to at most ``(prime - 2)(1 - pi_u)``, added to the diagonal (Gershgorin);
* Hadamard response: ``r1 = p/2``, ``r2 = 1/4``, plus ``(p - q)/2 pi_w`` for the one input
  ``w`` whose row is the XOR of the rows of ``u`` and ``v``; the rows of that non-negative
  matrix are summed exactly by one Walsh-Hadamard transform;
* dBitFlipPM (bucket estimates): the contributions of two buckets have zero cross moment,
  so ``Sigma = diag(m) - pi pi^T`` with ``m`` the second moments of its variance formula;
* a channel: the output histogram is multinomial, ``Sigma = diag(mu) - mu mu^T``, and ``w``
  is ``mu = pi K`` (at least the observed share and ``1/n``); an output that no input can
  produce is proof by itself (``p = 0``). The minimum over the simplex is a non-negative
  least-squares problem with the sum held by a penalty (a lower bound of the constrained
  minimum, so still valid).

The degrees of freedom are ``k - 1`` when every report supports the same number of values
(GRR, L-GRR, subset selection: the estimates sum to one exactly), ``k`` otherwise, and one
less than the number of possible outputs for a channel.

**Mean mechanisms** can be tested only against their domain: the decoded mean must lie in
``[low, high]`` (each coordinate; the cube around the ball for vector mechanisms on a
ball). Each coordinate is checked by two one-sided z-tests with the mechanism's worst-case
variance, and the p-value is Bonferroni's over the ``2 d`` tests. A mean mechanism whose
noise was switched off (Laplace with a tiny scale) still decodes means inside the bounds:
its reports are implausible only in their spread, which the statistic (a sum) does not keep.
Sketches (CMS, HCMS) decode an open domain of items and are not tested.

The cost is ``O(k log k)`` after decoding (``O(K log K)`` for Hadamard response, a
non-negative least-squares fit in the channel's ``k`` inputs for a channel), independent of
the number of reports.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls
from scipy.stats import chi2, norm

from ldp._validation import check_scalar
from ldp._warnings import ImplausibleReportsWarning
from ldp.core import Ball
from ldp.mechanisms.base import (
    FrequencyMechanism,
    FrequencyOracle,
    MeanMechanism,
    MeanSums,
    SupportCounts,
)
from ldp.tasks.consistency import project_simplex
from ldp.tasks.decoding import ChannelOracle

__all__ = ["DEFAULT_ALPHA", "ReportFit", "check_reports", "report_fit"]

#: The level below which :func:`check_reports` warns (or refuses): honest reports are
#: flagged at most this often; the reports of the edited protocols the tests build score
#: p-values far smaller at a few thousand reports.
DEFAULT_ALPHA = 1e-4

#: Weight of the penalty that holds ``sum(pi) = 1`` in the channel fit, relative to the
#: largest column of the weighted channel.
_PENALTY = 1e3

_SIMPLEX_TEST = "goodness-of-fit test against the mechanism's image (Wald chi-square)"
_BOUNDS_TEST = "bounds test of the decoded mean (one-sided z, Bonferroni)"


@dataclass(frozen=True)
class ReportFit:
    """The result of :func:`report_fit`.

    Parameters
    ----------
    test : str
        The test: the goodness-of-fit test against the mechanism's image (frequency
        mechanisms), or the bounds test of the decoded mean (mean mechanisms).
    statistic : float
        The Wald distance ``T`` (chi-square scale), or the largest one-sided z score.
    df : int
        Degrees of freedom of the chi-square reference, or the number of one-sided tests.
    p_value : float
        A valid (conservative) p-value of "the reports are honest reports of this
        mechanism"; small values mean implausible reports.
    n : int
        Number of reports tested.
    mechanism : str
        The mechanism's key.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> from ldp.tasks import report_fit
    >>> grr = GRR(3, 1.0)
    >>> fit = report_fit(grr, grr.aggregate(np.repeat([0, 1, 2], [600, 2100, 300])))
    >>> fit.df, fit.p_value < 1e-9   # the answers themselves, sent as reports
    (2, True)
    """

    test: str
    statistic: float
    df: int
    p_value: float
    n: int
    mechanism: str

    def describe(self) -> str:
        """One line: the test, its statistic and its p-value."""
        p = f"p = {self.p_value:.3g}" if self.p_value > 0 else "p < 1e-300"
        what = "df" if self.test == _SIMPLEX_TEST else "tests"
        return (
            f"{self.test}, statistic {self.statistic:.4g} ({self.df} {what}) on "
            f"{self.n} reports: {p}"
        )


def report_fit(mechanism: object, statistic: object) -> ReportFit | None:
    """Test whether a statistic of reports is one honest devices could have produced.

    See the module notes for the statistic and why its p-value is valid for every
    population, on the boundary of the simplex included.

    Parameters
    ----------
    mechanism : FrequencyMechanism or MeanMechanism
        The decoder (``Protocol.decoder``: a :class:`~ldp.tasks.ChannelOracle` for a
        channel).
    statistic : SupportCounts or MeanSums
        Its statistic of the reports (``mechanism.aggregate(reports)``).

    Returns
    -------
    ReportFit or None
        ``None`` when there is nothing to test: no report, or a mechanism without a test
        (sketches, and frequency mechanisms of other kinds).

    Raises
    ------
    ValueError
        If the statistic belongs to another mechanism.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import OUE
    >>> from ldp.tasks import report_fit
    >>> oue = OUE(8, 1.0)
    >>> honest = oue.aggregate(oue.privatize(np.arange(8).repeat(500), rng=0))
    >>> bool(report_fit(oue, honest).p_value > 1e-4)
    True
    >>> one_hot = np.packbits(np.eye(8, dtype=bool)[np.arange(8).repeat(500)], axis=1)
    >>> report_fit(oue, oue.aggregate(one_hot)).p_value   # the bits were never flipped
    0.0
    """
    if isinstance(mechanism, FrequencyMechanism):
        if not isinstance(statistic, SupportCounts):
            raise TypeError(
                f"statistic must be the SupportCounts of {mechanism!r}, got "
                f"{type(statistic).__name__}"
            )
        counts = mechanism.counts_of(statistic)
        if counts.n == 0:
            return None
        if isinstance(mechanism, ChannelOracle):
            return _channel_fit(mechanism, counts)
        return _frequency_fit(mechanism, counts)
    if isinstance(mechanism, MeanMechanism):
        if not isinstance(statistic, MeanSums):
            raise TypeError(
                f"statistic must be the MeanSums of {mechanism!r}, got {type(statistic).__name__}"
            )
        if statistic.mechanism != mechanism.key:
            raise ValueError(f"sums come from {statistic.mechanism}, not from {mechanism.key}")
        if statistic.n == 0:
            return None
        return _bounds_fit(mechanism, statistic)
    return None


def check_reports(
    mechanism: object,
    statistic: object,
    *,
    alpha: float = DEFAULT_ALPHA,
    strict: bool = False,
    what: str = "the reports",
) -> ReportFit | None:
    """Warn, or refuse under ``strict``, when :func:`report_fit` rejects at level ``alpha``.

    Parameters
    ----------
    mechanism, statistic
        As for :func:`report_fit`.
    alpha : float
        The level, in ``(0, 1)``: honest reports are flagged with probability at most
        ``alpha``.
    strict : bool
        Raise ``ValueError`` instead of warning.
    what : str
        How the message names the reports (for instance a file or a column).

    Returns
    -------
    ReportFit or None
        The test's result (``None`` when there was nothing to test).

    Raises
    ------
    ValueError
        Under ``strict``, when the p-value is below ``alpha``: one line naming the test and
        its p-value.

    Warns
    -----
    ImplausibleReportsWarning
        When the p-value is below ``alpha`` (and ``strict`` is false).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import GRR
    >>> from ldp.tasks import check_reports
    >>> grr = GRR(3, 1.0)
    >>> truthful = grr.aggregate(np.repeat([0, 1, 2], [600, 2100, 300]))
    >>> check_reports(grr, truthful, strict=True)
    Traceback (most recent call last):
    ...
    ValueError: the reports are implausible for GRR(k=3, epsilon=1.0): no honest device ...
    """
    level = check_scalar(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False, got {type(strict).__name__}")
    fit = report_fit(mechanism, statistic)
    if fit is None or fit.p_value >= level:
        return fit
    message = (
        f"{what} are implausible for {fit.mechanism}: no honest device running this "
        f"protocol sends reports like these ({fit.describe()} < alpha = {level:g}); was the "
        "protocol file edited, or are the clients broken or hostile?"
    )
    if strict:
        raise ValueError(message)
    warnings.warn(message, ImplausibleReportsWarning, stacklevel=2)
    return fit


# ----------------------------------------------------------------------------- frequencies
def _frequency_fit(mechanism: FrequencyMechanism, counts: SupportCounts) -> ReportFit | None:
    """The Wald distance of the unbiased estimate to the simplex, in a dominating metric."""
    estimate = np.asarray(mechanism.estimate(counts), dtype=np.float64)
    plug = project_simplex(estimate)
    bound = _variance_bound(mechanism, plug, counts.n)
    if bound is None:
        return None
    variance, df = bound
    variance = np.maximum(variance, np.finfo(np.float64).tiny)  # eps near 700: q ~ e^-700
    nearest = project_simplex(estimate, weights=1.0 / variance)
    statistic = float(np.sum((estimate - nearest) ** 2 / variance))
    return ReportFit(
        _SIMPLEX_TEST, statistic, df, float(chi2.sf(statistic, df)), counts.n, mechanism.key
    )


def _variance_bound(
    mechanism: FrequencyMechanism, f: np.ndarray, n: int
) -> tuple[np.ndarray, int] | None:
    """Per value, a variance of the estimate whose diagonal matrix dominates the exact
    covariance at the input distribution ``f``; and the rank of that covariance."""
    moments = mechanism.diagonal_moments(f)
    if moments is not None:  # zero cross moments: the second moments (module notes)
        second, rank = moments
        return second / n, rank
    if not isinstance(mechanism, FrequencyOracle):
        return None
    r1, r2, extra, fixed = mechanism.pair_moments(f)
    p, q, k = mechanism.p, mechanism.q, mechanism.k
    alpha, beta, gamma = r2 - q * q, r1 - r2 - q * (p - q), (p - q) ** 2
    # the rank-two part [[alpha, beta], [beta, -gamma]] in the basis (1, f): its largest
    # eigenvalue is <= 0 for every oracle here; a positive one is added (k + 1) times
    top = (alpha - gamma) / 2 + math.hypot((alpha + gamma) / 2, beta)
    mu = q + (p - q) * f
    diagonal = mu * (1 - mu) - alpha - 2 * beta * f + gamma * f**2 + extra
    diagonal = diagonal + (k + 1) * max(top, 0.0)
    return diagonal / (n * gamma), k - 1 if fixed else k


def _channel_fit(oracle: ChannelOracle, counts: SupportCounts) -> ReportFit:
    """Pearson-weighted least squares of the output shares on the image ``{pi K}``."""
    matrix = oracle.channel.matrix
    n = counts.n
    share = counts.counts / n
    possible = matrix.max(axis=0) > 0
    if np.any(counts.counts[~possible] > 0):  # an output no input produces: proof
        return ReportFit(_SIMPLEX_TEST, math.inf, int(possible.sum()) - 1, 0.0, n, oracle.key)
    matrix, share = matrix[:, possible], share[possible]
    plug = project_simplex(oracle.estimate(counts))
    weight = np.maximum(np.maximum(plug @ matrix, share), 1.0 / n)
    scale = 1.0 / np.sqrt(weight)
    design = (matrix * scale).T  # (outputs, inputs)
    penalty = _PENALTY * float(np.sqrt((design**2).sum(axis=0)).max())
    system = np.vstack([design, np.full((1, matrix.shape[0]), penalty)])
    target = np.append(share * scale, penalty)
    _, residual = nnls(system, target, maxiter=50 * matrix.shape[0])
    statistic = float(n * residual**2)
    df = max(int(possible.sum()) - 1, 1)
    return ReportFit(_SIMPLEX_TEST, statistic, df, float(chi2.sf(statistic, df)), n, oracle.key)


# ----------------------------------------------------------------------------- means
def _bounds_fit(mechanism: MeanMechanism, sums: MeanSums) -> ReportFit:
    """Two one-sided z-tests per coordinate of ``low <= mean <= high``, Bonferroni."""
    domain = mechanism.domain
    if isinstance(domain, Ball):  # the ball lies in the cube [-radius, radius]^d
        low, high = -domain.radius, domain.radius
    else:
        low, high = domain.low, domain.high
    mean = np.atleast_1d(np.asarray(sums.total, dtype=np.float64)) / sums.n
    sd = math.sqrt(mechanism.worst_case_variance() / sums.n)
    z = float(np.max(np.maximum(mean - high, low - mean))) / sd
    tests = 2 * mean.size
    p_value = min(1.0, tests * float(norm.sf(z)))
    return ReportFit(_BOUNDS_TEST, z, tests, p_value, sums.n, mechanism.key)
