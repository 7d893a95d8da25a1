"""Sketch randomizers over open item domains: the count-mean sketch (CMS) and its Hadamard
form (HCMS).
"""

from ldp.mechanisms.sketches.sketch import CMS, HCMS, CountMeanSketch
from ldp.mechanisms.sketches.statistic import Sketch, SketchCounts

__all__ = [
    "CMS",
    "HCMS",
    "CountMeanSketch",
    "Sketch",
    "SketchCounts",
]
