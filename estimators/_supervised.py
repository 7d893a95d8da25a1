"""Label handling shared by the classifiers (checks of ``y`` and of the class set)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _assert_all_finite, check_consistent_length, column_or_1d


def check_target(estimator, X, y) -> np.ndarray:
    """``y`` as a 1-D array of class labels matching ``X`` (values never echoed)."""
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None."
        )
    y = column_or_1d(y, warn=True)
    if y.dtype.kind in "fc":
        _assert_all_finite(y, input_name="y", estimator_name=type(estimator).__name__)
    check_consistent_length(X, y)
    check_classification_targets(y)
    return y


def resolve_classes(declared: object, y: np.ndarray, name: str) -> np.ndarray:
    """The class set: declared (public), else the labels present in ``y`` (read from data)."""
    if declared is None:
        classes = np.unique(y)
    else:
        if isinstance(declared, (str, bytes)) or np.ndim(declared) != 1:
            raise TypeError(f"{name} must be a 1-D list of class labels")
        index = pd.Index(list(declared))
        if not index.is_unique:
            raise ValueError(f"{name} contains duplicate labels")
        classes = np.asarray(declared)
    if classes.size < 2:
        raise ValueError(
            f"a classifier needs at least 2 classes; got {classes.size} class (y has one label)"
        )
    return classes


def encode_labels(classes: np.ndarray, y: np.ndarray) -> np.ndarray:
    codes = pd.Index(classes).get_indexer(y)
    if np.any(codes < 0):
        raise ValueError(
            f"y has labels outside the {classes.size} classes fixed at the first fit; declare "
            "every class in `classes`"
        )
    return codes.astype(np.int64)
