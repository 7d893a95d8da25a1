"""Local randomizers: constructors of finite channels, and mechanisms too large to hold as a
matrix (frequency oracles, mean mechanisms) behind one protocol (:mod:`ldp.mechanisms.base`)."""

from ldp.mechanisms.base import FrequencyOracle, MeanMechanism, MeanSums, SupportCounts
from ldp.mechanisms.channels import (
    binary_erasure,
    binary_mechanism_with_erasure,
    eta_max,
    k_rr,
    randomized_response,
)
from ldp.mechanisms.consistency import ibu, norm_mul, norm_sub, project_simplex
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
from ldp.mechanisms.numeric import (
    Duchi,
    DuchiL2,
    Hybrid,
    Laplace,
    Piecewise,
    SquareWave,
    hybrid_threshold,
)
from ldp.mechanisms.selection import FREQUENCY_ORACLES, Recommendation, recommend
from ldp.mechanisms.simulate import simulate_counts

__all__ = [
    "BLH",
    "FREQUENCY_ORACLES",
    "GRR",
    "OLH",
    "OUE",
    "SUE",
    "Duchi",
    "DuchiL2",
    "FrequencyOracle",
    "HadamardResponse",
    "Hybrid",
    "Laplace",
    "LocalHashing",
    "MeanMechanism",
    "MeanSums",
    "Piecewise",
    "Recommendation",
    "SquareWave",
    "SubsetSelection",
    "SupportCounts",
    "UnaryEncoding",
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "eta_max",
    "hybrid_threshold",
    "ibu",
    "k_rr",
    "norm_mul",
    "norm_sub",
    "project_simplex",
    "randomized_response",
    "recommend",
    "simulate_counts",
]
