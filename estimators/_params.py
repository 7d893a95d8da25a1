"""Constructor parameters validated from one declaration per class.

Every estimator declares, in the class attribute ``_parameter_checks``, a check for each
constructor parameter it validates: ``{name: check}``, where ``check(value, name)`` returns
the value (normalised: ``epsilon`` as a float) or raises ``ValueError`` (a value out of range)
or ``TypeError`` (a value of the wrong type) with a message naming the parameter and the
value. A subclass extends its parent's declaration (``{**Parent._parameter_checks, ...}``).
``_validate_params`` runs the whole declaration; the estimators call it in ``fit`` (and the
other methods that start a fit), never in ``__init__``, which only stores the parameters (the
scikit-learn convention; ``set_params`` and ``clone`` validate nothing either).

This is the shape of scikit-learn's ``_parameter_constraints`` with the checks of
:mod:`ldp._validation` (the one validator of privacy levels) instead of scikit-learn's
constraint objects, so that every estimator keeps the messages of the rest of the package.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, ClassVar

import numpy as np

from estimators._protocol import check_budget
from ldp._validation import check_epsilon, check_scalar, describe

#: ``check(value, name) -> value``: raises ``ValueError`` / ``TypeError`` naming both.
Check = Callable[[Any, str], Any]


def epsilon(value: object, name: str) -> float:
    """A per-user budget: finite and ``> 0``."""
    return check_epsilon(value, name, positive=True, allow_inf=False)


def budget(value: object, name: str) -> str:
    """``"split"`` or ``"sample"`` (the message names ``budget``, the only such parameter)."""
    return check_budget(value)


def boolean(value: object, name: str) -> bool:
    """``True`` or ``False`` (a NumPy bool too); not 0 or 1."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{name} must be True or False, got {describe(value)} ({type(value).__name__})"
        )
    return bool(value)


def non_negative(value: object, name: str) -> float:
    """A finite real number ``>= 0``."""
    return check_scalar(value, name, low=0.0)


def positive(value: object, name: str) -> float:
    """A real number ``> 0``."""
    return check_scalar(value, name, low=0.0, low_open=True)


def optional(check: Check) -> Check:
    """``None``, or a value passing ``check``."""

    def check_optional(value: object, name: str) -> Any:
        return None if value is None else check(value, name)

    return check_optional


def one_of(options: Collection[str], *, message: str | None = None) -> Check:
    """One of the strings ``options`` (``message`` describes them, else they are listed)."""

    def check_option(value: object, name: str) -> str:
        if not isinstance(value, str) or value not in options:
            allowed = message or f"one of {tuple(options)}"
            raise ValueError(f"{name} must be {allowed}, got {describe(value)}")
        return value

    return check_option


class ValidatedParams:
    """Validate the constructor parameters from the class's ``_parameter_checks``."""

    _parameter_checks: ClassVar[Mapping[str, Check]] = {}

    def _validate_params(self) -> dict[str, Any]:
        """Every declared parameter, checked (in declaration order) and normalised."""
        return {
            name: check(getattr(self, name), name) for name, check in self._parameter_checks.items()
        }
