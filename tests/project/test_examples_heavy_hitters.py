"""examples/heavy_hitters.py: its truth recomputed independently, its recall checked."""

from __future__ import annotations

import hashlib
import os
import re
import runpy
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

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
def test_heavy_hitters_example_runs_and_finds_the_top_20():
    result = subprocess.run(
        [sys.executable, str(SCRIPT)],
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    recalls = [float(v) for v in re.findall(r"recall of the true top 20\s+([\d.]+)", result.stdout)]
    assert len(recalls) == 2
    assert recalls[0] >= 0.85 and recalls[1] >= 0.7  # PEM, TreeHist at eps = 4, n = 1e6
    eps = [float(v) for v in re.findall(r"protocol epsilon\s+([\d.]+)", result.stdout)]
    assert all(4.0 <= e <= 4.0 + 1e-9 for e in eps)
    assert "page-1 " in result.stdout  # the most frequent string, named from the dictionary
