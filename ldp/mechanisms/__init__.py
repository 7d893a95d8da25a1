"""Local randomizers: constructors of finite channels, and (later) mechanisms too large to
hold as a matrix behind the same protocol."""

from ldp.mechanisms.channels import (
    binary_erasure,
    binary_mechanism_with_erasure,
    eta_max,
    k_rr,
    randomized_response,
)

__all__ = [
    "binary_erasure",
    "binary_mechanism_with_erasure",
    "eta_max",
    "k_rr",
    "randomized_response",
]
