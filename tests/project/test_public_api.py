"""Every public function and class is documented the numpydoc way: a docstring with an
Examples section (run by the doctests), a Parameters section when it takes parameters, and
a Returns (or Yields) section when a function returns something.

The public API is the ``__all__`` of the packages below. ``PENDING`` lists the public names
whose docstrings still lack a section, with what they lack; the list only shrinks: an entry
that no longer has the gap (or no longer exists) fails ``test_pending_list_is_current`` until
it is removed.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import types

import pytest

PACKAGES = (
    "ldp",
    "ldp.mechanisms",
    "ldp.protocol",
    "ldp.accounting",
    "ldp.accounting.central",
    "ldp.risk",
    "ldp.contraction",
    "ldp.design",
    "ldp.plotting",
    "ldp.audit",
    "ldp.datasets",
    "ldp.references",
    "ldp.collector",
    "ldp.collector.app",
    "estimators",
)
#: Packages that need an optional extra: the module that must be importable for each.
NEEDS = {"ldp.collector.app": "starlette"}

#: Documentation gaps still open: public name -> missing sections.
PENDING: dict[str, set[str]] = {}


def _sections(doc: str) -> set[str]:
    return set(re.findall(r"^\s*([A-Z][a-z]+(?: [A-Z][a-z]+)?)\n\s*-{3,}\s*$", doc, re.M))


def _takes_parameters(obj: object) -> bool:
    if inspect.isclass(obj) and obj.__init__ is object.__init__:
        return False  # an abstract base without a constructor of its own
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    return any(p.name not in ("self", "cls") for p in signature.parameters.values())


def _returns_something(obj: object) -> bool:
    if not inspect.isfunction(obj):
        return False
    annotation = inspect.signature(obj).return_annotation
    return annotation not in (None, "None")


def public_api() -> dict[str, object]:
    """Public name (first package that exports it) -> object, functions, classes and the
    exported modules; constants are left out."""
    found: dict[str, object] = {}
    seen: set[int] = set()
    for package in PACKAGES:
        if package in NEEDS and importlib.util.find_spec(NEEDS[package]) is None:
            continue  # its extra is not installed (tests/collector says so when it skips)
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (isinstance(obj, types.ModuleType) or inspect.isclass(obj) or callable(obj)):
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            found[obj.__name__ if isinstance(obj, types.ModuleType) else f"{package}.{name}"] = obj
    return found


def missing_sections(obj: object) -> set[str]:
    """The numpydoc sections ``obj``'s docstring should have and does not."""
    doc = obj.__doc__ if isinstance(obj, types.ModuleType) else inspect.getdoc(obj)
    if not doc:
        return {"docstring"}
    sections = _sections(doc)
    missing = {"Examples"} - sections
    if isinstance(obj, types.ModuleType):
        return missing
    exception = inspect.isclass(obj) and issubclass(obj, BaseException)
    if _takes_parameters(obj) and not exception and "Parameters" not in sections:
        missing.add("Parameters")
    if _returns_something(obj) and not {"Returns", "Yields"} & sections:
        missing.add("Returns")
    return missing


API = public_api()


def test_the_public_api_is_large_enough_to_mean_something():
    assert len(API) > 150
    assert {"ldp.Channel", "ldp.risk.le_cam", "estimators.FrequencyEstimator"} <= set(API)


@pytest.mark.parametrize("name", sorted(set(API) - set(PENDING)))
def test_numpydoc_sections(name):
    missing = missing_sections(API[name])
    assert not missing, f"{name} lacks {sorted(missing)}"


def test_pending_list_is_current():
    stale = {
        name: (sorted(gaps), sorted(missing_sections(API[name])) if name in API else "gone")
        for name, gaps in PENDING.items()
        if name not in API or missing_sections(API[name]) != gaps
    }
    assert not stale, f"update PENDING (listed gaps, actual gaps): {stale}"
