r"""Contraction coefficients of finite channels and the contraction bounds of the source papers.

For a channel ``K`` (a row-stochastic matrix ``K[x, z]``) and an f-divergence ``D_f``, the
contraction coefficient is

.. math:: \eta_f(K) = \sup_{P, Q:\ 0 < D_f(P\|Q) < \infty}
          \frac{D_f(PK \| QK)}{D_f(P \| Q)} \in [0, 1]

(Asoodeh-Aliakbarpour-Calmon (2021), eq. (3); Ghazi-Issa (2023), eq. (23)). This package
computes it exactly where a theorem reduces the supremum to a finite computation, and gives
the closed forms and bounds of the source papers as functions of ``(epsilon, delta, eta, n)``.

Where things live: the result objects in ``ldp.contraction.results``, the exact
coefficients in ``ldp.contraction.exact``, the closed forms and theorem bounds in
``ldp.contraction.bounds`` and :func:`best_bound` in ``ldp.contraction.best``; every
public name is importable from ``ldp.contraction`` itself.

Exact coefficients (:func:`coefficient`)
----------------------------------------
* ``"tv"``: Dobrushin (1956), Asoodeh-Aliakbarpour-Calmon (2021), eq. (26): the largest TV
  distance between two rows.
* ``"hockey_stick"``, ``gamma >= 1``: Asoodeh-Aliakbarpour-Calmon (2021), Theorem 3: the largest
  :math:`E_\gamma` between two ordered rows. ``0 < gamma < 1`` (derived here):
  :math:`\eta_\gamma = \eta_{1/\gamma} = \gamma^{-1}\max E_\gamma(K_x\|K_{x'})`, because
  :math:`E_\gamma(P\|Q) = \gamma E_{1/\gamma}(Q\|P)` (both forms are checked against each
  other and against a brute-force ratio search in the tests). ``gamma = 0`` raises:
  :math:`E_0 \equiv 0`, so the ratio is undefined.
* ``"chi2"``: :math:`\sup_P \sigma_2^2(\mathrm{diag}(\sqrt p) K \mathrm{diag}(pK)^{-1/2})`
  (squared maximal correlation). By Ordentlich & Polyanskiy, "Strong data processing
  constant is achieved by binary inputs" (IEEE T-IT 68(3), 2022, Thm 1; cited by Ghazi-Issa (2023))
  the supremum is attained by a binary-input sub-channel ``(K_x, K_x')``, for which it is the
  Le Cam sup (Ghazi-Issa (2023), eqs. (37)-(38))

  .. math:: \eta(K_x, K_{x'}) = \sup_{\beta\in(0,1)} \beta(1-\beta)
            \sum_z \frac{(K_x(z) - K_{x'}(z))^2}{\beta K_x(z) + (1-\beta) K_{x'}(z)} .

  The function of beta is concave (its second derivative is
  :math:`-2\sum_z d_z^2 K_x(z) K_{x'}(z) / D_z^3 \le 0`), so each 1-D problem is solved by a
  safeguarded Newton iteration, vectorised over pairs, with pairs discarded as soon as a
  tangent-line upper bound shows they cannot beat the best value found. The tests check the
  pairwise reduction against a multi-start search of :math:`\sigma_2^2` over the whole input
  simplex on random channels with up to six inputs: they agree to rounding (about 1e-14).
* ``"kl"`` and ``"hellinger"``: equal to ``"chi2"`` at channel level. For KL this is
  Ahlswede & Gács (1976) / Polyanskiy & Wu (2017); more generally
  :math:`\eta_f(K) = \eta_{\chi^2}(K)` for every operator-convex ``f`` with ``f''(1) > 0``
  (Choi, Ruskai & Seneta 1994; Makur & Zheng 2020), which covers
  :math:`t\log t` and :math:`(\sqrt t - 1)^2 = t + 1 - 2\sqrt t`. Both are checked in the tests
  by brute-force ratio searches over input pairs.
* ``"f"`` with a custom generator ``f=``: the binary-input reduction still holds (Ordentlich &
  Polyanskiy, Thm 1 covers every f), but the per-pair supremum has no closed form, so a grid
  and local search over Bernoulli input pairs gives a **lower estimate** (``method`` says
  so), unless ``operator_convex=True`` asserts the Choi-Ruskai-Seneta condition.

Closed forms and bounds
-----------------------
* :func:`phi` -- Asoodeh-Aliakbarpour-Calmon (2021), Lemmas 1-2,
  :math:`\varphi_n = 1 - e^{-n\varepsilon}(1-\delta)^n`.
* :func:`worst_case_tv`, :func:`worst_case_hockey_stick` -- the exact suprema of
  :math:`\eta_{TV}` and :math:`\eta_\gamma` over all :math:`(\varepsilon,\delta)`-LDP channels
  (derived here from the Theorem 1 profile; attained by randomized response with
  delta-disclosure).
* :func:`rr_coefficient`, :func:`k_rr_coefficient` -- RR and k-RR. Correction followed:
  Asoodeh-Aliakbarpour-Calmon (2021) print
  :math:`\eta_{KL}(\mathrm{BSC}(\omega)) = 1 - 2\omega^2`; the correct value is
  :math:`(1 - 2\omega)^2 = ((e^\varepsilon-1)/(e^\varepsilon+1))^2` (checked numerically in
  the tests: at ``eps = 1`` the printed form gives 0.8553, the channel gives 0.2136).
* :func:`max_output_tv` (Ghazi-Issa (2023), Proposition 2), :func:`max_f_divergence` (Theorem 4),
  :func:`max_kl_contraction` (Theorem 5; with ``delta > 0`` a derived extension, see its
  docstring), :func:`chi2_output_bound` (Theorem 6), :func:`erase` (Theorem 7). Correction
  followed: the paper's eq. (26) and Theorem 6 print the TV range as
  :math:`(e^\varepsilon+1)/(e^\varepsilon-1) > 1`; the correct level is
  :math:`\tanh(\varepsilon/2) = (e^\varepsilon-1)/(e^\varepsilon+1)` (an
  :math:`\varepsilon`-LDP channel never exceeds it; tested).
* :func:`best_bound` -- the smallest of these bounds that applies to a given channel, from
  its own ``epsilon``, ``delta(eps)`` profile and ``tv``.

Points settled numerically (each has a test)
--------------------------------------------
* Pairwise reduction = full-simplex supremum for chi2 / KL (Ordentlich-Polyanskiy): the
  multi-start simplex search never exceeds the pairwise value and reaches it.
* KL and chi2 coefficients do **not** tensorise at channel level. One might expect
  (by analogy with maximal correlation) :math:`\eta_{KL}(K^{\otimes n}) = \eta_{KL}(K)`; that holds
  for product input distributions only (maximal correlation tensorises, Witsenhausen 1975).
  The channel-level supremum may use correlated inputs: for randomized response at
  ``eps = 1`` the repetition input on :math:`K\otimes K` gives 0.3519 > 0.2136, and the
  erasure channel has :math:`\eta_{KL}(\mathrm{BEC}_e^{\otimes n}) = 1 - e^n =
  \varphi_n(0, 1-e)`. So the :math:`\varphi_n` of Asoodeh-Aliakbarpour-Calmon (2021),
  Lemma 2 (not :math:`\varphi`) is the right bound for ``n`` uses, as the paper has it.
* For custom ``f`` the search excludes Bernoulli pairs closer than ``1e-4`` (cancellation)
  and keeps a relative margin of ``1e-9``, so that the estimate never exceeds the true
  coefficient.

Examples
--------
>>> import math
>>> from ldp import randomized_response
>>> from ldp.contraction import coefficient, phi, rr_coefficient
>>> rr = randomized_response(1.0).matrix
>>> math.isclose(coefficient(rr, "tv").value, math.tanh(0.5))  # Dobrushin: tanh(eps/2)
True
>>> math.isclose(coefficient(rr, "kl").value, rr_coefficient("kl", 1.0))
True
>>> coefficient(rr, "kl").value <= coefficient(rr, "tv").value <= phi(1.0)
True
"""

from __future__ import annotations

from ldp.contraction._checks import KINDS
from ldp.contraction.best import best_bound
from ldp.contraction.bounds import (
    chi2_output_bound,
    erase,
    erasure_kl_ratio_lower_bound,
    k_rr_coefficient,
    max_f_divergence,
    max_kl_contraction,
    max_output_tv,
    phi,
    rr_coefficient,
    utility_proxy,
    worst_case_hockey_stick,
    worst_case_tv,
)
from ldp.contraction.exact import coefficient
from ldp.contraction.results import BoundCandidate, ContractionBound, ContractionCoefficient

__all__ = [
    "KINDS",
    "BoundCandidate",
    "ContractionBound",
    "ContractionCoefficient",
    "best_bound",
    "chi2_output_bound",
    "coefficient",
    "erase",
    "erasure_kl_ratio_lower_bound",
    "k_rr_coefficient",
    "max_f_divergence",
    "max_kl_contraction",
    "max_output_tv",
    "phi",
    "rr_coefficient",
    "utility_proxy",
    "worst_case_hockey_stick",
    "worst_case_tv",
]
