"""``rng`` is keyword-only on every ``privatize`` of the mechanisms and the tasks built on
them: ``privatize(values, 0)`` from old code raises the usual ``TypeError`` instead of being
read as something else."""

from __future__ import annotations

import inspect

import pytest

import ldp.mechanisms
import ldp.tasks
from ldp.channel import Channel
from ldp.mechanisms.registry import REGISTRY, example

CLASSES = sorted(
    {
        obj
        for module in (ldp.mechanisms, ldp.tasks)
        for obj in (getattr(module, name) for name in module.__all__)
        if inspect.isclass(obj) and hasattr(obj, "privatize")
    }
    | {Channel},
    key=lambda cls: cls.__qualname__,
)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__qualname__)
def test_rng_is_keyword_only(cls):
    parameter = inspect.signature(cls.privatize).parameters["rng"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
    assert parameter.default is None


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_positional_rng_is_a_type_error(name):
    mechanism = example(name)
    with pytest.raises(TypeError, match="positional argument"):
        mechanism.privatize([0], 0)
