"""Local randomizers: constructors of finite channels, and mechanisms too large to hold as a
matrix (frequency oracles, mean mechanisms) behind one protocol (``ldp.mechanisms.base``)."""

from ldp._plain import PlainPrivacy
from ldp.core import Ball, Categories, Field, Interval, Items, Mechanism, ReportCodec
from ldp.mechanisms.base import (
    FrequencyMechanism,
    FrequencyOracle,
    MeanMechanism,
    MeanSums,
    SupportCounts,
)
from ldp.mechanisms.channels import (
    binary_erasure,
    binary_mechanism_with_erasure,
    eta_max,
    k_rr,
    randomized_response,
)
from ldp.mechanisms.consistency import ibu, norm_mul, norm_sub, project_simplex
from ldp.mechanisms.dbitflip import DBitFlipPM
from ldp.mechanisms.decoding import ChannelOracle, check_decodable, frequency_decoder
from ldp.mechanisms.frequency import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    UnaryEncoding,
)
from ldp.mechanisms.longitudinal import LGRR, MemoizedMechanism
from ldp.mechanisms.longitudinal_unary import LOSUE, LOUE, RAPPOR
from ldp.mechanisms.memo import Memo
from ldp.mechanisms.numeric import (
    Duchi,
    DuchiL2,
    Gaussian,
    Hybrid,
    Laplace,
    Piecewise,
    SquareWave,
    Staircase,
    hybrid_threshold,
    staircase_tv,
)
from ldp.mechanisms.numeric_distribution import NumericDistribution
from ldp.mechanisms.plausibility import DEFAULT_ALPHA, ReportFit, check_reports, report_fit
from ldp.mechanisms.prefix_search import (
    MAX_BITS,
    PEM,
    HeavyHitterLevel,
    HeavyHitters,
    TreeHist,
    decode_strings,
    encode_strings,
    heavy_hitters,
)
from ldp.mechanisms.privunit import PrivUnit, PrivUnitDesign, PrivUnitG, privunit_design
from ldp.mechanisms.range_queries import (
    BranchingChoice,
    HierarchicalCounts,
    HierarchicalHistogram,
    HierarchicalReports,
    RangeEstimate,
    recommend_branching,
)
from ldp.mechanisms.rappor_bloom import BloomRAPPOR, bloom_positions
from ldp.mechanisms.registry import REGISTRY, mechanism_from_spec
from ldp.mechanisms.selection import FREQUENCY_ORACLES, Recommendation, recommend
from ldp.mechanisms.simulate import simulate_counts
from ldp.mechanisms.sketch import CMS, HCMS, CountMeanSketch, Sketch, SketchCounts
from ldp.mechanisms.tree import b_adic_nodes, tree_consistency

__all__ = [
    "BLH",
    "CMS",
    "DEFAULT_ALPHA",
    "FREQUENCY_ORACLES",
    "GRR",
    "HCMS",
    "LGRR",
    "LOSUE",
    "LOUE",
    "MAX_BITS",
    "OLH",
    "OUE",
    "PEM",
    "RAPPOR",
    "REGISTRY",
    "SUE",
    "Ball",
    "BloomRAPPOR",
    "BranchingChoice",
    "Categories",
    "ChannelOracle",
    "CountMeanSketch",
    "DBitFlipPM",
    "Duchi",
    "DuchiL2",
    "Field",
    "FrequencyMechanism",
    "FrequencyOracle",
    "Gaussian",
    "HadamardResponse",
    "HeavyHitterLevel",
    "HeavyHitters",
    "HierarchicalCounts",
    "HierarchicalHistogram",
    "HierarchicalReports",
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
    "RangeEstimate",
    "Recommendation",
    "ReportCodec",
    "ReportFit",
    "Sketch",
    "SketchCounts",
    "SquareWave",
    "Staircase",
    "SubsetSelection",
    "SupportCounts",
    "TreeHist",
    "UnaryEncoding",
    "b_adic_nodes",
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "bloom_positions",
    "check_decodable",
    "check_reports",
    "decode_strings",
    "encode_strings",
    "eta_max",
    "frequency_decoder",
    "heavy_hitters",
    "hybrid_threshold",
    "ibu",
    "k_rr",
    "mechanism_from_spec",
    "norm_mul",
    "norm_sub",
    "privunit_design",
    "project_simplex",
    "randomized_response",
    "recommend",
    "recommend_branching",
    "report_fit",
    "simulate_counts",
    "staircase_tv",
    "tree_consistency",
]
