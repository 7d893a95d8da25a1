"""The core abstraction of the library: :class:`~ldp.core.Mechanism` (a local
randomizer), the domains it privatizes, the codec of its reports, and the
:class:`~ldp.core.Decoder` protocol the server decodes them with (an
:class:`~ldp.core.Estimate` with its interval), and the :class:`~ldp.core.PrivacyProfile`
protocol of whatever states its own ``(epsilon, delta)`` privacy.

Everything else (channels, mechanisms, tasks, protocol files, estimators) builds on these;
the core imports nothing of :mod:`ldp` but the leaf helpers ``ldp._*``.
"""

from ldp.core.canonical import canonical_json
from ldp.core.codec import Field, ReportCodec, float_codec, index_codec
from ldp.core.decoder import Decoder, Estimate, check_confidence, normal_z
from ldp.core.domains import Ball, Categories, Domain, Interval, Items, check_unit_values
from ldp.core.mechanism import Mechanism
from ldp.core.privacy_profile import PrivacyProfile, check_privacy_profile

__all__ = [
    "Ball",
    "Categories",
    "Decoder",
    "Domain",
    "Estimate",
    "Field",
    "Interval",
    "Items",
    "Mechanism",
    "PrivacyProfile",
    "ReportCodec",
    "canonical_json",
    "check_confidence",
    "check_privacy_profile",
    "check_unit_values",
    "float_codec",
    "index_codec",
    "normal_z",
]
