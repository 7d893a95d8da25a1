"""The one home of the Wald chi-square statistic on the tangent space of the simplex."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg

from ldp.inference.views import CellEstimate, MeanSample

__all__: list[str] = []


def tangent_basis(k: int) -> np.ndarray:
    """An orthonormal basis ``(k, k - 1)`` of the vectors summing to zero (Helmert)."""
    basis = np.zeros((k, k - 1))
    for j in range(1, k):
        basis[:j, j - 1] = 1.0
        basis[j, j - 1] = -float(j)
        basis[:, j - 1] /= np.sqrt(j * (j + 1.0))
    return basis


def wald(contrast: np.ndarray, covariance: np.ndarray) -> float:
    """``z' S^{-1} z`` with ``S`` positive definite (``ValueError`` when it is singular)."""
    try:
        factor = linalg.cholesky(covariance, lower=True)
    except linalg.LinAlgError:
        raise ValueError(
            "the null covariance of the contrasts is singular: the reports cannot test this "
            "hypothesis (a mechanism that does not tell the cells apart?)"
        ) from None
    whitened = linalg.solve_triangular(factor, contrast, lower=True)
    return float(whitened @ whitened)


def normalised(f: np.ndarray, name: str) -> np.ndarray:
    """``f`` clipped at 0 and renormalised: the null point a plug-in covariance is taken at."""
    clipped = np.clip(f, 0.0, None)
    total = float(clipped.sum())
    if total <= 0.0:
        raise ValueError(f"{name} has no positive cell: no null distribution to test against")
    return clipped / total


def cells_of(estimator: Any, where: object, name: str = "estimator") -> CellEstimate:
    """``estimator.cell_estimate(where)``, checked: a CellEstimate with a report per cell."""
    method = getattr(estimator, "cell_estimate", None)
    if not callable(method):
        raise TypeError(
            f"{name} must be a fitted frequency estimator (with cell_estimate), got "
            f"{type(estimator).__name__}"
        )
    view = method() if where is None else method(where)
    if not isinstance(view, CellEstimate):
        raise TypeError(f"{name}.cell_estimate returned {type(view).__name__}, not CellEstimate")
    if view.n < view.size:
        raise ValueError(
            f"{name} has {view.n} reports for {view.size} cells: a test needs at least as many "
            "reports as cells"
        )
    return view


def sample_of(estimator: Any, where: object, name: str = "estimator") -> MeanSample:
    """``estimator.mean_sample(where)``, checked."""
    view = estimator.mean_sample() if where is None else estimator.mean_sample(where)
    if not isinstance(view, MeanSample):
        raise TypeError(f"{name}.mean_sample returned {type(view).__name__}, not MeanSample")
    if view.n < 2:
        raise ValueError(f"{name} has {view.n} reports: a test on means needs at least 2")
    return view
