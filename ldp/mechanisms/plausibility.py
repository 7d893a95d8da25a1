"""Deprecated: ``ldp.mechanisms.plausibility`` moved to ``ldp.tasks.plausibility``
(the tasks layer).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "DEFAULT_ALPHA": "ldp.tasks.plausibility",
        "ReportFit": "ldp.tasks.plausibility",
        "check_reports": "ldp.tasks.plausibility",
        "report_fit": "ldp.tasks.plausibility",
    },
)
