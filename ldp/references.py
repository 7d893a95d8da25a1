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


# Where an identifier is printed, the comment says where it was checked. "Reference list"
# means the entry as printed in the bibliography of one of the five source papers. Volume
# and page numbers are given only where such a reference list or record gives them.
_ENTRIES = (
    # ------------------------------------------------------------ the five source papers
    # arXiv id: reference lists of Ghazi-Issa (2023), Zheng-Dong-Long-Su (2020) and
    # Asoodeh-Aliakbarpour-Calmon (2021); journal, volume and pages: reference list of
    # Tran-Koskela-Räisä-Honkela (2025).
    _ref(
        "dong2022",
        "J. Dong; A. Roth; W. J. Su",
        2022,
        "Gaussian Differential Privacy",
        "Journal of the Royal Statistical Society Series B 84(1):3-37 (with discussion)",
        arxiv="1905.02383",
    ),
    # The paper's text gives no identifier; it says it was presented in part at ISIT 2023.
    # arXiv id: the arXiv record (title, authors and the ISIT note match the paper's text);
    # journal: the IEEE Information Theory Society's page of the article.
    _ref(
        "ghazi2023",
        "E. Ghazi; I. Issa",
        2023,
        "Total Variation Meets Differential Privacy",
        "preprint; journal version in the IEEE Journal on Selected Areas in Information "
        "Theory, 2024; presented in part at the IEEE International Symposium on Information "
        "Theory (ISIT), 2023",
        arxiv="2311.01553",
    ),
    # arXiv id and venue: the arXiv record and the ICML 2020 programme.
    _ref(
        "zheng2020",
        "Q. Zheng; J. Dong; Q. Long; W. J. Su",
        2020,
        "Sharp Composition Bounds for Gaussian Differential Privacy via Edgeworth Expansion",
        "International Conference on Machine Learning (ICML)",
        arxiv="2003.04493",
    ),
    # arXiv id: the arXiv record (title and authors match the paper's text).
    _ref(
        "asoodeh2021",
        "S. Asoodeh; M. Aliakbarpour; F. P. Calmon",
        2021,
        "Local Differential Privacy Is Equivalent to Contraction of E_gamma-Divergence",
        "IEEE International Symposium on Information Theory (ISIT)",
        arxiv="2102.01258",
    ),
    # The paper's text gives neither venue nor identifier, so none is printed.
    _ref(
        "tran2025",
        "L. Tran; A. Koskela; O. Räisä; A. Honkela",
        2025,
        "f-Differential Privacy Filters: Validity and Approximate Solutions",
        "preprint",
    ),
    # ------------------------------------------------------------ local privacy, minimax
    # Journal, volume and pages: the JMLR record; arXiv id: the arXiv record.
    _ref(
        "kairouz2016",
        "P. Kairouz; S. Oh; P. Viswanath",
        2016,
        "Extremal Mechanisms for Local Differential Privacy",
        "Journal of Machine Learning Research 17(17):1-51",
        arxiv="1407.1338",
    ),
    # arXiv id: the arXiv record (a conference version appeared at ICML 2015).
    _ref(
        "kairouz2017",
        "P. Kairouz; S. Oh; P. Viswanath",
        2017,
        "The Composition Theorem for Differential Privacy",
        "IEEE Transactions on Information Theory 63(6):4037-4049",
        arxiv="1311.0776",
    ),
    # arXiv id: reference list of Asoodeh-Aliakbarpour-Calmon (2021).
    _ref(
        "duchi2013",
        "J. C. Duchi; M. I. Jordan; M. J. Wainwright",
        2013,
        "Local Privacy, Data Processing Inequalities, and Statistical Minimax Rates",
        "IEEE Symposium on Foundations of Computer Science (FOCS), pp. 429-438",
        arxiv="1302.3203",
    ),
    # arXiv id: the arXiv record.
    _ref(
        "duchi2018",
        "J. C. Duchi; M. I. Jordan; M. J. Wainwright",
        2018,
        "Minimax Optimal Procedures for Locally Private Estimation",
        "Journal of the American Statistical Association 113(521):182-201",
        arxiv="1604.02390",
    ),
    # arXiv id: reference lists of Dong-Roth-Su (2022) and Asoodeh-Aliakbarpour-Calmon.
    _ref(
        "duchiruan2018",
        "J. C. Duchi; F. Ruan",
        2018,
        "The Right Complexity Measure in Locally Private Estimation: "
        "It is not the Fisher Information",
        "preprint",
        arxiv="1806.05756",
    ),
    # arXiv id (of the extended version, same title and authors): the arXiv record.
    _ref(
        "xu2015",
        "A. Xu; M. Raginsky",
        2015,
        "Converses for Distributed Estimation via Strong Data Processing Inequalities",
        "IEEE International Symposium on Information Theory (ISIT), pp. 2376-2380",
        arxiv="1504.06028",
    ),
    # arXiv id: the arXiv record.
    _ref(
        "acharya2020",
        "J. Acharya; C. L. Canonne; H. Tyagi",
        2020,
        "Inference Under Information Constraints I: Lower Bounds From Chi-Square Contraction",
        "IEEE Transactions on Information Theory 66(12):7835-7855",
        arxiv="1812.11476",
    ),
    # arXiv id: the arXiv record.
    _ref(
        "ye2018",
        "M. Ye; A. Barg",
        2018,
        "Optimal Schemes for Discrete Distribution Estimation Under Locally Differential Privacy",
        "IEEE Transactions on Information Theory 64(8):5662-5676",
        arxiv="1702.00610",
    ),
    _ref(
        "paninski2008",
        "L. Paninski",
        2008,
        "A Coincidence-Based Test for Uniformity Given Very Sparsely Sampled Discrete Data",
        "IEEE Transactions on Information Theory",
    ),
    # ------------------------------------------------------------ contraction coefficients
    _ref(
        "dobrushin1956",
        "R. L. Dobrushin",
        1956,
        "Central Limit Theorem for Nonstationary Markov Chains. I, II",
        "Theory of Probability and Its Applications",
    ),
    _ref(
        "ahlswede1976",
        "R. Ahlswede; P. Gács",
        1976,
        "Spreading of Sets in Product Spaces and Hypercontraction of the Markov Operator",
        "The Annals of Probability",
    ),
    _ref(
        "witsenhausen1975",
        "H. S. Witsenhausen",
        1975,
        "On Sequences of Pairs of Dependent Random Variables",
        "SIAM Journal on Applied Mathematics",
    ),
    _ref(
        "choi1994",
        "M.-D. Choi; M. B. Ruskai; E. Seneta",
        1994,
        "Equivalence of Certain Entropy Contraction Coefficients",
        "Linear Algebra and its Applications",
    ),
    # arXiv id: the arXiv record; the book is volume 161 of the IMA Volumes in Mathematics
    # and its Applications (the MIT repository's record).
    _ref(
        "polyanskiy2017",
        "Y. Polyanskiy; Y. Wu",
        2017,
        "Strong Data-Processing Inequalities for Channels and Bayesian Networks",
        "Convexity and Concentration (E. Carlen, M. Madiman, E. M. Werner, eds.), "
        "Springer, pp. 211-249",
        arxiv="1508.06025",
    ),
    _ref(
        "makur2020",
        "A. Makur; L. Zheng",
        2020,
        "Comparison of Contraction Coefficients for f-Divergences",
        "Problems of Information Transmission 56:103-156",
    ),
    # arXiv id: the arXiv record.
    _ref(
        "ordentlich2022",
        "O. Ordentlich; Y. Polyanskiy",
        2022,
        "Strong Data Processing Constant Is Achieved by Binary Inputs",
        "IEEE Transactions on Information Theory 68(3):1480-1481",
        arxiv="2010.01987",
    ),
    # ------------------------------------------------------------ frequency oracles
    # Venue and pages: the USENIX Security 2017 programme.
    _ref(
        "wang2017",
        "T. Wang; J. Blocki; N. Li; S. Jha",
        2017,
        "Locally Differentially Private Protocols for Frequency Estimation",
        "USENIX Security Symposium, pp. 729-745",
    ),
    _ref(
        "erlingsson2014",
        "Ú. Erlingsson; V. Pihur; A. Korolova",
        2014,
        "RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal Response",
        "ACM Conference on Computer and Communications Security (CCS), pp. 1054-1067",
        arxiv="1407.6981",
    ),
    # DOI: the paper's first page.
    _ref(
        "arcolezi2022",
        "H. H. Arcolezi; J.-F. Couchot; B. Al Bouna; X. Xiao",
        2022,
        "Improving the Utility of Locally Differentially Private Protocols for Longitudinal "
        "and Multidimensional Frequency Estimates",
        "Digital Communications and Networks",
        short="Arcolezi et al.",
        doi="10.1016/j.dcan.2022.07.003",
    ),
    # Venue and pages: the NeurIPS 2017 proceedings record.
    _ref(
        "ding2017",
        "B. Ding; J. Kulkarni; S. Yekhanin",
        2017,
        "Collecting Telemetry Data Privately",
        "Advances in Neural Information Processing Systems (NeurIPS), pp. 3571-3580",
    ),
    _ref(
        "bassily2015",
        "R. Bassily; A. Smith",
        2015,
        "Local, Private, Efficient Protocols for Succinct Histograms",
        "ACM Symposium on Theory of Computing (STOC)",
        arxiv="1504.04686",
    ),
    _ref(
        "wang2019hh",
        "T. Wang; N. Li; S. Jha",
        2019,
        "Locally Differentially Private Heavy Hitter Identification",
        "IEEE Transactions on Dependable and Secure Computing",
    ),
    _ref(
        "bassily2017",
        "R. Bassily; K. Nissim; U. Stemmer; A. Thakurta",
        2017,
        "Practical Locally Private Heavy Hitters",
        "Advances in Neural Information Processing Systems (NeurIPS)",
    ),
    # arXiv id: the arXiv record.
    _ref(
        "acharya2019",
        "J. Acharya; Z. Sun; H. Zhang",
        2019,
        "Hadamard Response: Estimating Distributions Privately, Efficiently, and with "
        "Little Communication",
        "International Conference on Artificial Intelligence and Statistics (AISTATS)",
        arxiv="1802.04705",
    ),
    # authors and arXiv id: the arXiv record.
    _ref(
        "wang2016",
        "S. Wang; L. Huang; P. Wang; Y. Nie; H. Xu; W. Yang; X.-Y. Li; C. Qiao",
        2016,
        "Mutual Information Optimally Local Private Discrete Distribution Estimation",
        "preprint",
        arxiv="1607.08025",
    ),
    # authors and arXiv id: the arXiv record and the NDSS programme.
    _ref(
        "wang2020",
        "T. Wang; M. Lopuhaä-Zwakenberg; Z. Li; B. Škorić; N. Li",
        2020,
        "Locally Differentially Private Frequency Estimation with Consistency",
        "Network and Distributed System Security Symposium (NDSS)",
        arxiv="1905.08320",
    ),
    _ref(
        "agrawal2001",
        "D. Agrawal; C. C. Aggarwal",
        2001,
        "On the Design and Quantification of Privacy Preserving Data Mining Algorithms",
        "ACM Symposium on Principles of Database Systems (PODS)",
    ),
    # ------------------------------------------------------------ numeric mechanisms
    # arXiv id: the arXiv record.
    _ref(
        "wang2019",
        "N. Wang; X. Xiao; Y. Yang; J. Zhao; S. C. Hui; H. Shin; J. Shin; G. Yu",
        2019,
        "Collecting and Analyzing Multidimensional Data with Local Differential Privacy",
        "IEEE International Conference on Data Engineering (ICDE)",
        arxiv="1907.00782",
    ),
    # arXiv id: the arXiv record.
    _ref(
        "li2020",
        "Z. Li; T. Wang; M. Lopuhaä-Zwakenberg; N. Li; B. Škorić",
        2020,
        "Estimating Numerical Distributions under Local Differential Privacy",
        "ACM SIGMOD International Conference on Management of Data",
        arxiv="1912.01051",
    ),
    _ref(
        "mironov2012",
        "I. Mironov",
        2012,
        "On Significance of the Least Significant Bits for Differential Privacy",
        "ACM Conference on Computer and Communications Security (CCS)",
    ),
    _ref(
        "hay2010",
        "M. Hay; V. Rastogi; G. Miklau; D. Suciu",
        2010,
        "Boosting the Accuracy of Differentially Private Histograms Through Consistency",
        "Proceedings of the VLDB Endowment (PVLDB)",
        short="Hay et al.",
    ),
    _ref(
        "cormode2019",
        "G. Cormode; T. Kulkarni; D. Srivastava",
        2019,
        "Answering Range Queries Under Local Differential Privacy",
        "Proceedings of the VLDB Endowment (PVLDB)",
    ),
    # ------------------------------------------------------------ learning
    # arXiv id: the arXiv record.
    _ref(
        "yilmaz2019",
        "E. Yilmaz; M. Al-Rubaie; J. M. Chang",
        2019,
        "Locally Differentially Private Naive Bayes Classification",
        "preprint",
        short="Yilmaz et al.",
        arxiv="1905.01039",
    ),
    _ref(
        "zheng2017",
        "K. Zheng; W. Mou; L. Wang",
        2017,
        "Collect at Once, Use Effectively: Making Non-interactive Locally Private Learning "
        "Possible",
        "International Conference on Machine Learning (ICML)",
    ),
    # ------------------------------------------------------------ accounting
    # arXiv id: reference list of Dong-Roth-Su (2022); venue: that of Ghazi-Issa (2023).
    _ref(
        "balle2018",
        "B. Balle; Y.-X. Wang",
        2018,
        "Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration "
        "and Optimal Denoising",
        "International Conference on Machine Learning (ICML), pp. 394-403",
        arxiv="1805.06530",
    ),
    # arXiv id: reference list of Zheng-Dong-Long-Su (2020).
    _ref(
        "bu2019",
        "Z. Bu; J. Dong; Q. Long; W. J. Su",
        2019,
        "Deep Learning with Gaussian Differential Privacy",
        "preprint",
        short="Bu et al.",
        arxiv="1911.11607",
    ),
    # Venues: reference list of Tran-Koskela-Räisä-Honkela (2025) for the first three (the
    # NeurIPS 2021 and ICML 2024 programmes list the second and third). arXiv ids: the arXiv
    # records (titles and authors match).
    _ref(
        "mironov2017",
        "I. Mironov",
        2017,
        "Rényi Differential Privacy",
        "IEEE Computer Security Foundations Symposium (CSF), pp. 263-275",
        arxiv="1702.07476",
    ),
    _ref(
        "feldman2021filter",
        "V. Feldman; T. Zrnic",
        2021,
        "Individual Privacy Accounting via a Rényi Filter",
        "Advances in Neural Information Processing Systems (NeurIPS) 34, pp. 28080-28091",
        arxiv="2008.11193",
    ),
    _ref(
        "kaissis2024",
        "G. Kaissis; S. Kolek; B. Balle; J. Hayes; D. Rueckert",
        2024,
        "Beyond the Calibration Point: Mechanism Comparison in Differential Privacy",
        "International Conference on Machine Learning (ICML)",
        short="Kaissis et al.",
        arxiv="2406.08918",
    ),
    # arXiv id: the arXiv record (the paper has no other venue there).
    _ref(
        "mironov2019",
        "I. Mironov; K. Talwar; L. Zhang",
        2019,
        "Rényi Differential Privacy of the Sampled Gaussian Mechanism",
        "preprint",
        arxiv="1908.10530",
    ),
    # arXiv id: the arXiv record and the reference list of Zheng-Dong-Long-Su (2020), which
    # cites the 2019 preprint; the AISTATS venue was not confirmed from a record.
    _ref(
        "balle2020",
        "B. Balle; G. Barthe; M. Gaboardi; J. Hsu; T. Sato",
        2020,
        "Hypothesis Testing Interpretations and Rényi Differential Privacy",
        "International Conference on Artificial Intelligence and Statistics (AISTATS)",
        short="Balle et al.",
        arxiv="1905.09982",
    ),
    # Venue: the NeurIPS 2020 proceedings record; arXiv id: the arXiv record, which the
    # paper's footnote names.
    _ref(
        "canonne2020",
        "C. L. Canonne; G. Kamath; T. Steinke",
        2020,
        "The Discrete Gaussian for Differential Privacy",
        "Advances in Neural Information Processing Systems (NeurIPS) 33",
        arxiv="2004.00010",
    ),
    # Venue: the paper's first page ("Published as a conference paper at ICLR 2023");
    # arXiv id: the arXiv record.
    _ref(
        "koskela2023",
        "A. Koskela; M. Tobaben; A. Honkela",
        2023,
        "Individual Privacy Accounting with Gaussian Differential Privacy",
        "International Conference on Learning Representations (ICLR)",
        arxiv="2209.15596",
    ),
    # arXiv id and venue: the arXiv record and the authors' publication page.
    _ref(
        "doroshenko2022",
        "V. Doroshenko; B. Ghazi; P. Kamath; R. Kumar; P. Manurangsi",
        2022,
        "Connect the Dots: Tighter Discrete Approximations of Privacy Loss Distributions",
        "Proceedings on Privacy Enhancing Technologies (PETS)",
        arxiv="2207.04380",
    ),
    # ------------------------------------------------------------ audits
    _ref(
        "clopper1934",
        "C. J. Clopper; E. S. Pearson",
        1934,
        "The Use of Confidence or Fiducial Limits Illustrated in the Case of the Binomial",
        "Biometrika",
    ),
    # ------------------------------------------------------------ shuffle model
    # arXiv ids: the arXiv records (title and authors) and the authors' code README.
    _ref(
        "feldman2021clones",
        "V. Feldman; A. McMillan; K. Talwar",
        2021,
        "Hiding Among the Clones: A Simple and Nearly Optimal Analysis of Privacy "
        "Amplification by Shuffling",
        "IEEE Symposium on Foundations of Computer Science (FOCS)",
        arxiv="2012.12803",
    ),
    # The arXiv record carries an erratum: the general bounds hold only for a restricted
    # class of randomizers (k-RR among them); the library uses the reduction only where the
    # condition is checked on the mechanism's matrix.
    _ref(
        "feldman2023stronger",
        "V. Feldman; A. McMillan; K. Talwar",
        2023,
        "Stronger Privacy Amplification by Shuffling for Renyi and Approximate "
        "Differential Privacy",
        "ACM-SIAM Symposium on Discrete Algorithms (SODA)",
        arxiv="2208.04591",
    ),
    # ------------------------------------------------------------ sketches of large domains
    _ref(
        "apple2017",
        "Apple Differential Privacy Team",
        2017,
        "Learning with Privacy at Scale",
        "Apple Machine Learning Journal, vol. 1, issue 8",
        short="Apple Differential Privacy Team",
    ),
    # arXiv id: the authors' reference implementation; pages: a reference list citing it.
    _ref(
        "balle2019blanket",
        "B. Balle; J. Bell; A. Gascón; K. Nissim",
        2019,
        "The Privacy Blanket of the Shuffle Model",
        "Advances in Cryptology (CRYPTO), pp. 638-667",
        arxiv="1903.02837",
    ),
    # PrivUnit and PrivUnitG (ldp.mechanisms.vector.privunit); arXiv identifiers from the records'
    # abstracts. The two samplers' papers are cited for their algorithms only.
    _ref(
        "bhowmick2018",
        "A. Bhowmick; J. Duchi; J. Freudiger; G. Kapoor; R. Rogers",
        2018,
        "Protection Against Reconstruction and Its Applications in Private Federated Learning",
        "preprint",
        arxiv="1812.00984",
    ),
    _ref(
        "asi2022",
        "H. Asi; V. Feldman; K. Talwar",
        2022,
        "Optimal Algorithms for Mean Estimation under Local Differential Privacy",
        "International Conference on Machine Learning (ICML)",
        arxiv="2205.02466",
    ),
    _ref(
        "marsaglia2000",
        "G. Marsaglia; W. W. Tsang",
        2000,
        "A Simple Method for Generating Gamma Variables",
        "ACM Transactions on Mathematical Software",
    ),
    _ref(
        "robert1995",
        "C. P. Robert",
        1995,
        "Simulation of Truncated Normal Variables",
        "Statistics and Computing",
    ),
    # ------------------------------------------------------------ tests under inequalities
    # journal, volume and pages: the reference lists of R packages on inequality-constrained
    # tests (ic.infer).
    _ref(
        "kudo1963",
        "A. Kudo",
        1963,
        "A Multivariate Analogue of the One-Sided Test",
        "Biometrika 50:403-418",
    ),
    # venue and pages: the PMLR 80 proceedings record; arXiv id: the arXiv record.
    _ref(
        "gaboardi2018",
        "M. Gaboardi; R. Rogers",
        2018,
        "Local Private Hypothesis Testing: Chi-Square Tests",
        "International Conference on Machine Learning (ICML), PMLR 80:1626-1635",
        arxiv="1709.07155",
    ),
    # publisher: the documentation of the R package hmmm, which cites the book.
    _ref(
        "silvapulle2005",
        "M. J. Silvapulle; P. K. Sen",
        2005,
        "Constrained Statistical Inference: Inequality, Order, and Shape Restrictions",
        "Wiley",
    ),
)

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
