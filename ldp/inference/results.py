"""The result of a test of :mod:`ldp.inference`, shaped like ``scipy.stats`` results."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TestResult"]


@dataclass(frozen=True)
class TestResult:
    """A test's statistic and p-value (the fields of a ``scipy.stats`` result), with the
    degrees of freedom, the number of reports and the method.

    Parameters
    ----------
    statistic : float
        The Wald chi-square statistic (frequencies) or the z statistic (means).
    pvalue : float
        Its p-value under the null hypothesis (asymptotic: chi-square or normal).
    df : int or None
        Degrees of freedom of the chi-square reference (``None`` for a z test).
    n : int or tuple of int
        Reports used (one per sample).
    method : str
        What was computed.

    Examples
    --------
    >>> from ldp.inference import TestResult
    >>> r = TestResult(3.2, 0.36, 3, 1000, "Wald chi-square")
    >>> statistic, pvalue = r
    >>> pvalue
    0.36
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    df: int | None
    n: int | tuple[int, ...]
    method: str

    def __iter__(self):
        """Unpacks as ``statistic, pvalue`` (as scipy.stats results do)."""
        return iter((self.statistic, self.pvalue))
