"""The bibliography: every work the library cites, and how to cite it.

ldpkit names its sources by author and year with the theorem number as printed in the
paper, e.g. ``"Dong-Roth-Su (2022), Theorem 2.10"``: in docstrings, in the ``method`` and
``theorem`` strings of its results, in the command line's output and in plot legends. This
module holds the full entries behind those short forms, so that each one can be looked up.

Identifiers (arXiv, DOI) are printed only where they were checked against the paper's text,
the reference list of another paper, or the arXiv record; otherwise an entry has authors,
title, venue and year only.

Examples
--------
>>> from ldp import references
>>> references.cite("dong2022", "Theorem 2.10")
'Dong-Roth-Su (2022), Theorem 2.10'
>>> references.cite("asoodeh2021", "Lemma 3")
'Asoodeh-Aliakbarpour-Calmon (2021), Lemma 3'
>>> print(references.get("zheng2020").format())
Q. Zheng, J. Dong, Q. Long, W. J. Su. Sharp Composition Bounds for Gaussian Differential
Privacy via Edgeworth Expansion. International Conference on Machine Learning (ICML), 2020.
arXiv:2003.04493.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ldp._bibliography import ENTRIES

__all__ = ["REFERENCES", "Reference", "cite", "get", "table"]


@dataclass(frozen=True)
class Reference:
    """One bibliography entry.

    Parameters
    ----------
    key : str
        The identifier used in the code, e.g. ``"dong2022"``.
    authors : tuple of str
        The authors as printed in the paper ("J. Dong", ...), in order.
    year : int
        Year of the cited version.
    title : str
        Title of the work.
    venue : str
        Journal, proceedings or "preprint", with volume and pages where known.
    short : str
        The author part of the short citation, e.g. ``"Dong-Roth-Su"`` or
        ``"Wang et al."``.
    arxiv : str or None
        The arXiv identifier, only where verified.
    doi : str or None
        The DOI, only where verified.

    Examples
    --------
    >>> from ldp.references import get
    >>> ref = get("ghazi2023")
    >>> ref.citation
    'Ghazi-Issa (2023)'
    >>> ref.authors
    ('E. Ghazi', 'I. Issa')
    """

    key: str
    authors: tuple[str, ...]
    year: int
    title: str
    venue: str
    short: str
    arxiv: str | None = None
    doi: str | None = None

    @property
    def citation(self) -> str:
        """The short form ``"Authors (year)"`` used throughout the library."""
        return f"{self.short} ({self.year})"

    def cite(self, theorem: str | None = None) -> str:
        """The short citation, optionally with a theorem, lemma, equation or section.

        Parameters
        ----------
        theorem : str or None
            What is cited inside the work, as printed there: ``"Lemma 3"``,
            ``"eq. (38)-(39)"``, ``"Section 5.2"``. A bare number (``"2.10"``) is read as a
            theorem number.

        Returns
        -------
        str
            ``"Authors (year)"`` or ``"Authors (year), <theorem>"``.

        Examples
        --------
        >>> from ldp.references import get
        >>> get("ghazi2023").cite("5")
        'Ghazi-Issa (2023), Theorem 5'
        """
        if theorem is None:
            return self.citation
        if not isinstance(theorem, str) or not theorem.strip():
            raise ValueError(f"theorem must be a non-empty string, got {theorem!r}")
        theorem = theorem.strip()
        if re.fullmatch(r"\d+(\.\d+)*", theorem):
            theorem = f"Theorem {theorem}"
        return f"{self.citation}, {theorem}"

    def format(self) -> str:
        """The full entry as one line of plain text.

        Returns
        -------
        str
            ``"Authors. Title. Venue, year. arXiv:..."``.

        Examples
        --------
        >>> from ldp.references import get
        >>> print(get("erlingsson2014").format())
        Ú. Erlingsson, V. Pihur, A. Korolova. RAPPOR: Randomized Aggregatable
        Privacy-Preserving Ordinal Response. ACM Conference on Computer and Communications
        Security (CCS), pp. 1054-1067, 2014. arXiv:1407.6981.
        """
        parts = [", ".join(self.authors), self.title, f"{self.venue}, {self.year}"]
        if self.arxiv:
            parts.append(f"arXiv:{self.arxiv}")
        if self.doi:
            parts.append(f"doi:{self.doi}")
        return ". ".join(parts) + "."


def _ref(
    key: str,
    authors: str,
    year: int,
    title: str,
    venue: str,
    *,
    short: str | None = None,
    arxiv: str | None = None,
    doi: str | None = None,
) -> Reference:
    names = tuple(a.strip() for a in authors.split(";"))
    if short is None:
        surnames = [name.split()[-1] for name in names]
        short = "-".join(surnames) if len(surnames) <= 4 else f"{surnames[0]} et al."
    return Reference(key, names, year, title, venue, short, arxiv, doi)


_ENTRIES = tuple(_ref(**fields) for fields in ENTRIES)

#: Every entry by key (read-only).
REFERENCES: Mapping[str, Reference] = MappingProxyType({ref.key: ref for ref in _ENTRIES})


def get(key: str) -> Reference:
    """The bibliography entry ``key``.

    Parameters
    ----------
    key : str
        One of ``REFERENCES``, e.g. ``"dong2022"``.

    Returns
    -------
    Reference
        The entry.

    Raises
    ------
    KeyError
        If ``key`` is not in the bibliography (the message lists the keys).

    Examples
    --------
    >>> from ldp.references import get
    >>> get("kairouz2016").title
    'Extremal Mechanisms for Local Differential Privacy'
    """
    try:
        return REFERENCES[key]
    except (KeyError, TypeError):
        raise KeyError(
            f"no reference {key!r}; known keys: {', '.join(sorted(REFERENCES))}"
        ) from None


def cite(key: str, theorem: str | None = None) -> str:
    """The short citation of ``key``: authors and year, optionally with a theorem.

    Parameters
    ----------
    key : str
        A key of ``REFERENCES``.
    theorem : str or None
        What is cited inside the work, as numbered in the paper (``"Lemma 3"``,
        ``"Corollary 4.3"``, ``"eq. (9)"``); a bare number is a theorem number.

    Returns
    -------
    str
        E.g. ``"Dong-Roth-Su (2022), Theorem 2.10"``.

    Examples
    --------
    >>> from ldp.references import cite
    >>> cite("dong2022", theorem="2.10")
    'Dong-Roth-Su (2022), Theorem 2.10'
    >>> cite("wang2019")
    'Wang et al. (2019)'
    """
    return get(key).cite(theorem)


def table(keys: Iterable[str] | None = None) -> list[dict[str, str]]:
    """The bibliography as rows, sorted by citation, for documentation and reports.

    Parameters
    ----------
    keys : iterable of str or None
        The entries to include (all by default).

    Returns
    -------
    list of dict
        One row per entry with the fields ``key``, ``citation`` and ``entry`` (the full
        entry, :meth:`Reference.format`).

    Examples
    --------
    >>> from ldp.references import table
    >>> rows = table(["ghazi2023", "dong2022"])
    >>> [row["citation"] for row in rows]
    ['Dong-Roth-Su (2022)', 'Ghazi-Issa (2023)']
    """
    refs = [get(k) for k in keys] if keys is not None else list(REFERENCES.values())
    refs.sort(key=lambda r: (r.short.lower(), r.year))
    return [{"key": r.key, "citation": r.citation, "entry": r.format()} for r in refs]
