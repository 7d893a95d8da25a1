"""Longitudinal randomizers: mechanisms a user runs again and again on a value that may
change, with memoization (LGRR, LOSUE, LOUE, RAPPOR and its Bloom-filter form, dBitFlipPM,
the memo of permanent answers).
"""

from ldp._deprecation import forward
from ldp.mechanisms.longitudinal.dbitflip import DBitFlipPM
from ldp.mechanisms.longitudinal.lgrr import (
    LGRR,
    MAX_CHANNEL_ENTRIES,
    MAX_COUNT_VECTORS,
    MemoizedMechanism,
    lambda_ratio_gap,
    law_pair,
    log_mix_ratio,
    log_odds_upper,
    log_ratio_of_products,
    round_up_margin,
)
from ldp.mechanisms.longitudinal.memo import MEMO_FORMAT, Memo
from ldp.mechanisms.longitudinal.rappor_bloom import BloomRAPPOR, bloom_positions
from ldp.mechanisms.longitudinal.unary import LOSUE, LOUE, RAPPOR
from ldp.mechanisms.worst_pair import pair_channel

__all__ = [
    "LGRR",
    "LOSUE",
    "LOUE",
    "MAX_CHANNEL_ENTRIES",
    "MAX_COUNT_VECTORS",
    "MEMO_FORMAT",
    "RAPPOR",
    "BloomRAPPOR",
    "DBitFlipPM",
    "Memo",
    "MemoizedMechanism",
    "bloom_positions",
    "lambda_ratio_gap",
    "law_pair",
    "log_mix_ratio",
    "log_odds_upper",
    "log_ratio_of_products",
    "pair_channel",
    "round_up_margin",
]

#: Other names of the old module ``ldp.mechanisms.longitudinal``, now in ``lgrr``.
__getattr__ = forward(
    __name__,
    {
        "MAX_PARTITION_WORK": "ldp.mechanisms.longitudinal.lgrr",
    },
)
