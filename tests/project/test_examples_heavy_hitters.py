"""examples/heavy_hitters.py: its truth recomputed independently, its recall checked."""

from __future__ import annotations

import hashlib
import runpy
from collections import Counter
from pathlib import Path

import pytest

from tests.project.example_outputs import (
    DOCS_CHECK,
    check_heavy_hitters,
    run_example,
    skip_when_the_docs_build_checks,
)

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "heavy_hitters.py"


def test_the_true_top_is_the_most_frequent_strings_hashed():
    module = runpy.run_path(str(SCRIPT))
    strings = module["population"](20_000, seed=3)
    codes = module["encode_strings"](strings, bits=32)
    items, freqs = module["true_top"](codes, 5)
    counted = Counter(strings).most_common(5)
    expected = [
        int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "big") >> 32
        for s, _ in counted
    ]
    assert [int(v) for v in items] == expected  # no collisions among these, no ties
    assert [round(f * 20_000) for f in freqs] == [c for _, c in counted]


@pytest.mark.slow  # a fresh interpreter and 10^6 users (~10-30 s)
def test_heavy_hitters_example_runs_and_finds_the_top_20(tmp_path, request):
    skip_when_the_docs_build_checks(request, DOCS_CHECK)
    check_heavy_hitters(*run_example("heavy_hitters.py", tmp_path))
