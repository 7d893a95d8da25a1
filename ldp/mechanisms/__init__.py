"""Local randomizers, by family: ``categorical`` (frequency oracles and the constructors of
finite channels), ``numeric`` (mean mechanisms on an interval), ``vector`` (the unit ball),
``longitudinal`` (repeated reports with memoization) and ``sketches`` (open item domains),
behind one protocol (``ldp.mechanisms.base``, on :class:`ldp.core.Mechanism`) and one
registry (``ldp.mechanisms.registry``).

What is built from the randomizers (decoding, consistency, heavy hitters, range queries,
selection, simulation, report plausibility) lives one layer up, in :mod:`ldp.tasks`; its
names stay readable from here for one release, with a :class:`DeprecationWarning` naming
the new home.
"""

from ldp._deprecation import forward
from ldp._plain import PlainPrivacy
from ldp.core import Ball, Categories, Field, Interval, Items, Mechanism, ReportCodec
from ldp.mechanisms.base import (
    FrequencyMechanism,
    FrequencyOracle,
    MeanMechanism,
    MeanSums,
    SupportCounts,
)
from ldp.mechanisms.categorical import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    UnaryEncoding,
    binary_erasure,
    binary_mechanism_with_erasure,
    eta_max,
    k_rr,
    randomized_response,
)
from ldp.mechanisms.longitudinal.dbitflip import DBitFlipPM
from ldp.mechanisms.longitudinal.lgrr import LGRR, MemoizedMechanism
from ldp.mechanisms.longitudinal.memo import Memo
from ldp.mechanisms.longitudinal.rappor_bloom import BloomRAPPOR, bloom_positions
from ldp.mechanisms.longitudinal.unary import LOSUE, LOUE, RAPPOR
from ldp.mechanisms.numeric.distribution import NumericDistribution
from ldp.mechanisms.numeric.duchi import Duchi, DuchiL2
from ldp.mechanisms.numeric.gaussian import Gaussian
from ldp.mechanisms.numeric.laplace import Laplace
from ldp.mechanisms.numeric.piecewise import Hybrid, Piecewise, hybrid_threshold
from ldp.mechanisms.numeric.square_wave import SquareWave
from ldp.mechanisms.numeric.staircase import Staircase, staircase_tv
from ldp.mechanisms.registry import REGISTRY, mechanism_from_spec
from ldp.mechanisms.sketches import CMS, HCMS, CountMeanSketch, Sketch, SketchCounts
from ldp.mechanisms.vector import PrivUnit, PrivUnitDesign, PrivUnitG, privunit_design

__all__ = [
    "BLH",
    "CMS",
    "GRR",
    "HCMS",
    "LGRR",
    "LOSUE",
    "LOUE",
    "OLH",
    "OUE",
    "RAPPOR",
    "REGISTRY",
    "SUE",
    "Ball",
    "BloomRAPPOR",
    "Categories",
    "CountMeanSketch",
    "DBitFlipPM",
    "Duchi",
    "DuchiL2",
    "Field",
    "FrequencyMechanism",
    "FrequencyOracle",
    "Gaussian",
    "HadamardResponse",
    "Hybrid",
    "Interval",
    "Items",
    "Laplace",
    "LocalHashing",
    "MeanMechanism",
    "MeanSums",
    "Mechanism",
    "Memo",
    "MemoizedMechanism",
    "NumericDistribution",
    "Piecewise",
    "PlainPrivacy",
    "PrivUnit",
    "PrivUnitDesign",
    "PrivUnitG",
    "ReportCodec",
    "Sketch",
    "SketchCounts",
    "SquareWave",
    "Staircase",
    "SubsetSelection",
    "SupportCounts",
    "UnaryEncoding",
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "bloom_positions",
    "eta_max",
    "hybrid_threshold",
    "k_rr",
    "mechanism_from_spec",
    "privunit_design",
    "randomized_response",
    "staircase_tv",
]

#: Names that moved to :mod:`ldp.tasks` (a layer above): read lazily, with a warning.
__getattr__ = forward(
    __name__,
    {
        "BranchingChoice": "ldp.tasks.range_queries",
        "ChannelOracle": "ldp.tasks.decoding",
        "DEFAULT_ALPHA": "ldp.tasks.plausibility",
        "FREQUENCY_ORACLES": "ldp.tasks.selection",
        "HeavyHitterLevel": "ldp.tasks.hitters",
        "HeavyHitters": "ldp.tasks.hitters",
        "HierarchicalCounts": "ldp.tasks.range_queries",
        "HierarchicalHistogram": "ldp.tasks.range_queries",
        "HierarchicalReports": "ldp.tasks.range_queries",
        "MAX_BITS": "ldp.tasks.strings",
        "PEM": "ldp.tasks.prefix_search",
        "RangeEstimate": "ldp.tasks.range_queries",
        "Recommendation": "ldp.tasks.selection",
        "ReportFit": "ldp.tasks.plausibility",
        "TreeHist": "ldp.tasks.prefix_search",
        "b_adic_nodes": "ldp.tasks.tree",
        "check_decodable": "ldp.tasks.decoding",
        "check_reports": "ldp.tasks.plausibility",
        "decode_strings": "ldp.tasks.strings",
        "encode_strings": "ldp.tasks.strings",
        "frequency_decoder": "ldp.tasks.decoding",
        "heavy_hitters": "ldp.tasks.prefix_search",
        "ibu": "ldp.tasks.consistency",
        "norm_mul": "ldp.tasks.consistency",
        "norm_sub": "ldp.tasks.consistency",
        "project_simplex": "ldp.tasks.consistency",
        "recommend": "ldp.tasks.selection",
        "recommend_branching": "ldp.tasks.range_queries",
        "report_fit": "ldp.tasks.plausibility",
        "simulate_counts": "ldp.tasks.simulate",
        "tree_consistency": "ldp.tasks.tree",
    },
)
