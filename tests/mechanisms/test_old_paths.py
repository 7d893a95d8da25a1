"""The import paths of the last release still load, for one release, with a warning.

Pickles name classes by module path (``ldp.mechanisms.frequency.GRR``, ``ldp._mechanism.
Categories``), so the pickles of the last release are written here by hand: a protocol-2
pickle of today's object with its module path replaced by the old one (the ``GLOBAL``
opcode holds ``module\\nname\\n``). Protocol files of the last release load as before
(``tests/data/protocol_v1.json``, see ``test_protocol_versions.py``).
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

from ldp.core import Categories, Interval
from ldp.mechanisms import CMS, GRR, OUE, SUE, Duchi, Laplace, PrivUnit
from ldp.tasks import HierarchicalHistogram


def _old_pickle(obj: object, old_module: str) -> bytes:
    """``pickle.dumps(obj)`` as the last release wrote it: the class under ``old_module``."""
    data = pickle.dumps(obj, protocol=2)
    cls = type(obj)
    new = f"c{cls.__module__}\n{cls.__qualname__}\n".encode()
    assert data.count(new) == 1
    return data.replace(new, f"c{old_module}\n{cls.__qualname__}\n".encode())


@pytest.mark.parametrize(
    ("obj", "old_module", "home"),
    [
        (GRR(4, 1.0), "ldp.mechanisms.frequency", "ldp.mechanisms.categorical.grr"),
        (OUE(5, 2.0), "ldp.mechanisms.frequency", "ldp.mechanisms.categorical.unary"),
        (Laplace(1.0), "ldp.mechanisms.numeric", None),  # a family package took the path
        (Duchi(1.0), "ldp.mechanisms.numeric", None),
        (PrivUnit(1.0, 3), "ldp.mechanisms.privunit", "ldp.mechanisms.vector.privunit"),
        (CMS(1.0, 16, 4), "ldp.mechanisms.sketch", "ldp.mechanisms.sketches.sketch"),
        (HierarchicalHistogram(16, 1.0), "ldp.mechanisms.range_queries", "ldp.tasks.range_queries"),
        (Categories(3), "ldp._mechanism", "ldp.core.domains"),
        (Interval(0.0, 1.0), "ldp._mechanism", "ldp.core.domains"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_a_pickle_of_the_last_release_loads(obj, old_module, home):
    data = _old_pickle(obj, old_module)
    if home is None:
        loaded = pickle.loads(data)  # the path is current: no warning
    else:
        with pytest.warns(DeprecationWarning, match=f"moved to {home}"):
            loaded = pickle.loads(data)
    assert type(loaded) is type(obj)
    assert pickle.dumps(loaded, protocol=2) == pickle.dumps(obj, protocol=2)


def test_an_unpickled_mechanism_still_works():
    with pytest.warns(DeprecationWarning):
        grr = pickle.loads(_old_pickle(GRR(4, 1.0), "ldp.mechanisms.frequency"))
    reports = grr.privatize(np.zeros(1000, dtype=int), rng=0)
    np.testing.assert_array_equal(reports, GRR(4, 1.0).privatize(np.zeros(1000, dtype=int), rng=0))


@pytest.mark.parametrize(
    ("old", "name", "home"),
    [
        ("ldp.mechanisms.frequency", "SUE", "ldp.mechanisms.categorical.unary"),
        ("ldp.mechanisms.channels", "k_rr", "ldp.mechanisms.categorical.channels"),
        ("ldp.mechanisms.numeric_distribution", "em_histogram", "ldp.mechanisms.numeric"),
        ("ldp.mechanisms.numeric", "GRID_BITS", "ldp.mechanisms.draws"),
        ("ldp.mechanisms.longitudinal", "MAX_PARTITION_WORK", "ldp.mechanisms.longitudinal.lgrr"),
        ("ldp.mechanisms.longitudinal_unary", "RAPPOR", "ldp.mechanisms.longitudinal.unary"),
        ("ldp.mechanisms.memo", "Memo", "ldp.mechanisms.longitudinal.memo"),
        ("ldp.mechanisms.decoding", "ChannelOracle", "ldp.tasks.decoding"),
        ("ldp.mechanisms.consistency", "norm_sub", "ldp.tasks.consistency"),
        ("ldp.mechanisms.prefix_search", "encode_strings", "ldp.tasks.strings"),
        ("ldp.mechanisms.prefix_search", "PEM", "ldp.tasks.prefix_search"),
        ("ldp.mechanisms.tree", "b_adic_nodes", "ldp.tasks.tree"),
        ("ldp.mechanisms", "heavy_hitters", "ldp.tasks.prefix_search"),
        ("ldp.mechanisms", "report_fit", "ldp.tasks.plausibility"),
        ("ldp._mechanism", "Mechanism", "ldp.core.mechanism"),
    ],
)
def test_an_old_name_warns_and_forwards_to_its_new_home(old, name, home):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old}.{name} moved to {home}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), name)


def test_a_family_package_answers_without_a_warning():
    from ldp.mechanisms.longitudinal import LGRR  # noqa: F401
    from ldp.mechanisms.numeric import Duchi as D

    assert D is Duchi and SUE.__module__ == "ldp.mechanisms.categorical.unary"


def test_an_unknown_old_name_is_an_attribute_error():
    module = importlib.import_module("ldp.mechanisms.frequency")
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        module.nothing


def test_importing_the_mechanisms_does_not_import_the_tasks():
    """The deprecated names of ldp.mechanisms are lazy: the layer below stays below."""
    code = "import sys, ldp.mechanisms; print('ldp.tasks' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
