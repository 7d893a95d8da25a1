"""Sketch randomizers over open item domains: the count-mean sketch (CMS) and its Hadamard
form (HCMS).
"""

from ldp.mechanisms.sketches.sketch import CMS, HCMS, CountMeanSketch, Sketch, SketchCounts

__all__ = [
    "CMS",
    "HCMS",
    "CountMeanSketch",
    "Sketch",
    "SketchCounts",
]
