"""Write ``mechanisms_0_1_0.pkl`` and ``mechanisms_0_1_0.json``: every mechanism the 0.1.0
release registered, pickled by that release, with the numbers it gave.

Run once with the 0.1.0 code on the path (a checkout of the commit that added 0.1.0 to the
changelog)::

    git worktree add /tmp/v010 fb56a9e
    PYTHONPATH=/tmp/v010 python tests/data/make_mechanism_pickles.py tests/data

The pickles are never rewritten: ``tests/mechanisms/test_mechanism_pickles.py`` loads them
with today's code.
"""

import json
import pickle
import sys
from pathlib import Path

import numpy as np

from ldp.mechanisms.registry import REGISTRY, example

N = 400


def values(mechanism, rng):
    """N answers from the mechanism's domain."""
    domain = mechanism.domain
    if hasattr(domain, "k"):
        return rng.integers(0, domain.k, size=N)
    d = getattr(domain, "dimension", getattr(domain, "d", 1))
    if not hasattr(domain, "low"):  # a ball: points well inside it
        return rng.uniform(-0.5, 0.5, size=(N, d)) / np.sqrt(d)
    shape = (N,) if d == 1 else (N, d)
    return rng.uniform(domain.low, domain.high, size=shape)


def main(out: str) -> None:
    folder = Path(out)
    blobs, numbers = {}, {}
    for name in sorted(REGISTRY):
        mechanism = example(name)
        rng = np.random.default_rng(2024)
        reports = mechanism.privatize(values(mechanism, rng), rng)
        decode = getattr(mechanism, "estimate", None)  # a Channel has no decoder of its own
        estimate = None if decode is None else np.asarray(decode(reports), dtype=np.float64)
        blobs[name] = pickle.dumps(mechanism, protocol=4)
        numbers[name] = {
            "params": json.loads(json.dumps(dict(mechanism.params), default=str)),
            "reports": np.asarray(reports).tolist(),
            "estimate": None if estimate is None else estimate.tolist(),
        }
    (folder / "mechanisms_0_1_0.pkl").write_bytes(pickle.dumps(blobs, protocol=4))
    (folder / "mechanisms_0_1_0.json").write_text(json.dumps(numbers, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
