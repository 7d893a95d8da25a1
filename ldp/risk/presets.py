"""Deprecated home: the closed-form presets moved to :mod:`ldp.risk.bounds.presets`,
:func:`preset` and ``PRESETS`` to :mod:`ldp.risk.planning.problems`.

The names of this module still import from here for one release, with a
``DeprecationWarning`` naming the new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        (
            "ball_mean",
            "bernoulli_mean",
            "distribution_estimation",
            "moment_mean",
            "moment_mean_paper_rate",
            "paninski_family",
        ),
        "ldp.risk.bounds.presets",
    )
    | dict.fromkeys(("PRESETS", "preset"), "ldp.risk.planning.problems"),
)
