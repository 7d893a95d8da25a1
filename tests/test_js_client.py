"""The JavaScript client: its Node tests, and the law of its reports under crypto randomness.

``node --test clients/js/`` reproduces every vector of ``clients/test_vectors.json`` and
checks the client's errors. Here, in addition, the client privatizes ``DRAWS`` answers with
its default source (``crypto.getRandomValues``), and the counts of its reports pass a
chi-square test against the mechanism's exact channel row (each fails by chance with
probability below ``P_FLOOR``).
"""

import json
import shutil
import subprocess
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ldp.mechanisms import GRR, SubsetSelection
from ldp.protocol import Protocol

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "js" / "ldp_client.mjs"
NODE = shutil.which("node")
P_FLOOR = 1e-4
DRAWS = 100_000

pytestmark = pytest.mark.skipif(NODE is None, reason="node (Node.js >= 18) is not on PATH")

#: Reads {"protocol": ..., "value": ..., "draws": n} on stdin and prints the count of each
#: distinct report (as its JSON text), drawn with the client's default randomness.
SAMPLER = f"""
import {{ loadProtocol, privatize }} from {json.dumps(CLIENT.as_uri())};
let text = "";
for await (const chunk of process.stdin) text += chunk;
const job = JSON.parse(text);
const protocol = loadProtocol(job.protocol);
const counts = {{}};
for (let i = 0; i < job.draws; i++) {{
  const key = JSON.stringify(privatize(protocol, job.value).report);
  counts[key] = (counts[key] || 0) + 1;
}}
console.log(JSON.stringify(counts));
"""


def test_node_tests_pass():
    result = subprocess.run(
        [NODE, "--test", "clients/js/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
    assert "# pass " in result.stdout and "# pass 0\n" not in result.stdout


def _js_counts(protocol: Protocol, value, draws: int) -> dict[str, int]:
    job = json.dumps({"protocol": protocol.to_dict(), "value": value, "draws": draws})
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", SAMPLER],
        input=job,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def _subset_index(k: int, d: int):
    order = {subset: i for i, subset in enumerate(combinations(range(k), d))}

    def index(report: list[int]) -> int:
        bits = np.unpackbits(np.array(report, dtype=np.uint8))[:k]
        return order[tuple(np.flatnonzero(bits).tolist())]

    return index


def _chi_square(counts: np.ndarray, law: np.ndarray) -> float:
    """Chi-square p-value, pooling outputs of small expected count into one cell."""
    expected = law * counts.sum()
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    keep = expected > 0
    assert counts[~keep].sum() == 0  # an impossible output never appears
    return stats.chisquare(counts[keep], expected[keep]).pvalue


@pytest.mark.parametrize(
    ("mechanism", "value"),
    [(GRR(5, 1.0), 3), (SubsetSelection(6, 1.0), 5)],
    ids=["GRR k=5", "SS k=6"],
)
def test_js_reports_follow_the_exact_law(mechanism, value):
    protocol = Protocol.from_mechanism(mechanism)
    row = mechanism.to_channel().matrix[value]
    if mechanism.name == "GRR":
        index = lambda report: report[0]  # noqa: E731
    else:
        index = _subset_index(mechanism.k, mechanism.d)
    counts = np.zeros(row.size)
    for key, count in _js_counts(protocol, value, DRAWS).items():
        counts[index(json.loads(key))] += count
    assert counts.sum() == DRAWS
    assert _chi_square(counts, row) > P_FLOOR
