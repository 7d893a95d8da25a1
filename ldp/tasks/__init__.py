"""What is built from the randomizers of :mod:`ldp.mechanisms`: decoding reports into
frequencies (``decoding``), making estimates consistent (``consistency``), checking that
reports fit a mechanism (``plausibility``), choosing an oracle (``selection``), simulating
counts (``simulate``), range queries over hierarchical histograms (``tree``,
``range_queries``) and heavy hitters over huge domains (``prefix_search``, with
``strings`` and ``hitters``).
"""

from ldp.tasks.consistency import ibu, norm_mul, norm_sub, project_simplex
from ldp.tasks.decoding import ChannelOracle, check_decodable, frequency_decoder
from ldp.tasks.hitters import HeavyHitterLevel, HeavyHitters
from ldp.tasks.plausibility import DEFAULT_ALPHA, ReportFit, check_reports, report_fit
from ldp.tasks.prefix_search import PEM, TreeHist, heavy_hitters
from ldp.tasks.range_queries import (
    BranchingChoice,
    HierarchicalCounts,
    HierarchicalHistogram,
    HierarchicalReports,
    RangeEstimate,
    recommend_branching,
)
from ldp.tasks.selection import (
    FREQUENCY_ORACLES,
    Recommendation,
    recommend,
)
from ldp.tasks.simulate import simulate_counts
from ldp.tasks.strings import MAX_BITS, decode_strings, encode_strings
from ldp.tasks.tree import (
    b_adic_nodes,
    tree_consistency,
)

__all__ = [
    "DEFAULT_ALPHA",
    "FREQUENCY_ORACLES",
    "MAX_BITS",
    "PEM",
    "BranchingChoice",
    "ChannelOracle",
    "HeavyHitterLevel",
    "HeavyHitters",
    "HierarchicalCounts",
    "HierarchicalHistogram",
    "HierarchicalReports",
    "RangeEstimate",
    "Recommendation",
    "ReportFit",
    "TreeHist",
    "b_adic_nodes",
    "check_decodable",
    "check_reports",
    "decode_strings",
    "encode_strings",
    "frequency_decoder",
    "heavy_hitters",
    "ibu",
    "norm_mul",
    "norm_sub",
    "project_simplex",
    "recommend",
    "recommend_branching",
    "report_fit",
    "simulate_counts",
    "tree_consistency",
]
