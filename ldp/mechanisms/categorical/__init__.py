"""Categorical randomizers: the frequency oracles GRR, unary encoding (SUE, OUE), local
hashing (OLH, BLH), Hadamard response and subset selection (one module each), and the
constructors of finite channels (``channels``: k-ary and binary randomized response,
erasure).

All of them are pure protocols (see ``ldp.mechanisms.base``); the support probabilities
``p`` and ``q`` of each are in the table of Wang, Blocki, Li and Jha (2017). Every coin is
drawn exactly from the weights in :meth:`sampler` (``ldp._sampling``). The weights are
*calibrated*: the nominal ``e^eps`` is the largest double at most ``e^eps``
(:func:`ldp._exact.exp_down`), and any other weight moves, one double at a time towards more
privacy, until the largest likelihood ratio of the law it samples is at most ``e^eps``
exactly. So ``epsilon`` is the level the oracle was asked for (checked exactly,
:func:`ldp._exact.certified_epsilon`); ``p``, ``q``, the variance and ``to_channel()`` (the
exact channel input -> report, when it is small enough to enumerate) are those of the
calibrated weights.
"""

from ldp.mechanisms.categorical.channels import (
    binary_erasure,
    binary_mechanism_with_erasure,
    eta_max,
    k_rr,
    randomized_response,
)
from ldp.mechanisms.categorical.grr import GRR
from ldp.mechanisms.categorical.hadamard import HadamardResponse
from ldp.mechanisms.categorical.local_hashing import BLH, OLH, LocalHashing
from ldp.mechanisms.categorical.subset import SubsetSelection
from ldp.mechanisms.categorical.unary import OUE, SUE, UnaryEncoding

__all__ = [
    "BLH",
    "GRR",
    "OLH",
    "OUE",
    "SUE",
    "HadamardResponse",
    "LocalHashing",
    "SubsetSelection",
    "UnaryEncoding",
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "eta_max",
    "k_rr",
    "randomized_response",
]
