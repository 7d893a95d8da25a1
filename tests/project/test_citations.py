"""The product cites papers by author and year, never by the project's working names.

The papers the library is built from were handled under working names (file numbers, the
names of the digests written about them, erratum and reference-value ids). Those names mean
nothing to a reader, so none may appear in the package, the README, the documentation or the
examples, nor in what the command line prints. Citations look like
``Dong-Roth-Su (2022), Theorem 2.10``, and every work cited has an entry in
:mod:`ldp.references`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ldp import references
from ldp.cli import main

ROOT = Path(__file__).resolve().parents[2]

#: Working names that must not reach a reader.
KEYS = {
    "source-file number": re.compile(r"\bseeds?[ _-]?00\d\b|\bseed\d{3}", re.I),
    "digest": re.compile(r"(?<![.\w])digests?\b(?!\s*[(\[=])", re.I),
    "erratum id": re.compile(r"\bE\d{1,2}\b"),
    "reference-value id": re.compile(
        r"\b[Oo]racles?\W{0,3}[A-Z]\d+\b|#\s*[A-G]\d{1,2}\s*$|\bspec(?:'s)?\s+(?:oracles?|[A-H]\d)",
        re.M,
    ),
    "spec file": re.compile(
        r"ldp_sota|large_domains_bounds|shuffle_longitudinal|REFERENCES\.md|\bspec\W+§|\bspec/"
        r"|§\s*[\d.]+\s+of the (?:spec|digest)",
        re.I,
    ),
}


SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".html", ".mjs", ".json", ".cfg"}
SKIP_DIRS = {"_build", "generated", "gallery", "__pycache__", "node_modules"}


#: This file spells the working names out to test the patterns, so it is the one file not
#: scanned; everything else in the tests is.
SELF = Path(__file__).resolve()


def product_files() -> list[Path]:
    """The package, the README and changelog, the docs sources, examples, clients,
    benchmarks and the tests (which readers open to see how a formula was checked)."""
    roots = ["ldp", "estimators", "docs", "examples", "clients", "benchmarks", "tests"]
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "pyproject.toml"]
    for root in roots:
        for path in sorted((ROOT / root).rglob("*")):
            if (
                path.suffix in SUFFIXES
                and path.resolve() != SELF
                and not SKIP_DIRS & set(path.relative_to(ROOT).parts)
            ):
                files.append(path)
    return files


def working_names(text: str) -> list[str]:
    """Every working name in ``text``, with the kind of name."""
    return [f"{kind}: {m.group(0)!r}" for kind, rx in KEYS.items() for m in rx.finditer(text)]


FILES = {str(p.relative_to(ROOT)): p for p in product_files()}


def test_the_scan_covers_the_product():
    assert {"README.md", "ldp/risk/lecam.py", "estimators/frequency.py"} <= set(FILES)
    assert any(name.startswith("docs/") for name in FILES)
    assert any(name.startswith("examples/") for name in FILES)
    assert {"tests/contraction/test_contraction.py", "tests/project/test_public_api.py"} <= set(
        FILES
    )
    assert "tests/project/test_citations.py" not in FILES


def test_the_patterns_catch_working_names_and_spare_ordinary_text():
    caught = [
        "seed 001 Thm 5",
        "Seed 003's Lemma 3",
        "seed003.md §5.1",
        "the digest's constant",
        "erratum E9",
        "(E12)",
        "spec oracle B7",
        "ldp_sota.md §4",
        "written up in spec/notes.md",
        "§3.3 of the spec",
        "x = f(1)  # A7\n",
        "(spec A5)",
        "spec oracles (B1-B7)",
    ]
    spared = [
        "Dong-Roth-Su (2022), §3.2",
        "hashlib.sha256(data).digest()",
        "digest = hashlib.sha256(body)",
        "rng = np.random.default_rng(seed=123)",
        "E_gamma and E_1",
        "1E10 reports",
        "frequency oracles GRR and OUE",
        "the protocol spec in docs/protocol.md",
        "H0 # H1 is the alternative",
    ]
    assert all(working_names(text) for text in caught), [t for t in caught if not working_names(t)]
    assert not any(working_names(text) for text in spared), [
        (t, working_names(t)) for t in spared if working_names(t)
    ]


@pytest.mark.parametrize("name", sorted(FILES))
def test_no_working_names(name):
    found = working_names(FILES[name].read_text(encoding="utf-8"))
    assert not found, f"{name}: {found}"


# --------------------------------------------------------------------- author-year citations
CITATION = re.compile(
    r"((?:[A-ZÀ-Ý][\w'À-ÿ]*)(?:-[A-ZÀ-Ý][\w'À-ÿ]*)*)(?: et al\.)? \(((?:19|20)\d\d)\)"
)


def _surnames(reference: references.Reference) -> set[str]:
    return {author.split()[-1] for author in reference.authors}


def cited_works(text: str) -> list[tuple[list[str], int]]:
    """``(surnames, year)`` of every ``Name-Name (YYYY)`` citation in ``text``."""
    return [(m.group(1).split("-"), int(m.group(2))) for m in CITATION.finditer(text)]


def _in_bibliography(surnames: list[str], year: int) -> bool:
    # hyphenated surnames ("Al-Rubaie", "Lopuhaä-Zwakenberg") are split too: compare parts
    for reference in references.REFERENCES.values():
        parts = {part for name in _surnames(reference) for part in name.split("-")}
        if reference.year == year and set(surnames) <= parts:
            return True
    return False


def test_every_cited_work_is_in_the_bibliography():
    missing = {
        f"{'-'.join(surnames)} ({year})": name
        for name, path in FILES.items()
        for surnames, year in cited_works(path.read_text(encoding="utf-8"))
        if not _in_bibliography(surnames, year)
    }
    assert not missing, f"cited but not in ldp.references: {missing}"


def test_bibliography_entries_are_distinct_and_complete():
    citations = [ref.citation for ref in references.REFERENCES.values()]
    assert len(set(citations)) == len(citations)
    for key, ref in references.REFERENCES.items():
        assert key == ref.key and ref.authors and ref.title and ref.venue
        assert 1900 < ref.year < 2100
        assert ref.arxiv is None or re.fullmatch(r"\d{4}\.\d{4,5}", ref.arxiv)
        assert not working_names(ref.format())
    # the five source papers, as the library cites them
    for key, short in {
        "dong2022": "Dong-Roth-Su (2022)",
        "ghazi2023": "Ghazi-Issa (2023)",
        "zheng2020": "Zheng-Dong-Long-Su (2020)",
        "asoodeh2021": "Asoodeh-Aliakbarpour-Calmon (2021)",
        "tran2025": "Tran-Koskela-Räisä-Honkela (2025)",
    }.items():
        assert references.cite(key) == short


def test_cite_and_get():
    assert references.cite("dong2022", "Theorem 2.10") == "Dong-Roth-Su (2022), Theorem 2.10"
    assert references.cite("dong2022", theorem="2.10") == "Dong-Roth-Su (2022), Theorem 2.10"
    assert (
        references.cite("asoodeh2021", "eq. (7)") == "Asoodeh-Aliakbarpour-Calmon (2021), eq. (7)"
    )
    with pytest.raises(KeyError, match="known keys"):
        references.get("seed001")
    with pytest.raises(ValueError, match="theorem"):
        references.cite("dong2022", "  ")
    rows = references.table()
    assert len(rows) == len(references.REFERENCES)
    assert [r["citation"].lower() for r in rows] == sorted(r["citation"].lower() for r in rows)


# ------------------------------------------------------------------ what the command prints
def _strings(data: object) -> list[str]:
    if isinstance(data, dict):
        return [s for key, value in data.items() for s in (str(key), *_strings(value))]
    if isinstance(data, list):
        return [s for value in data for s in _strings(value)]
    return [data] if isinstance(data, str) else []


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "k-rr", "--k", "4", "--epsilon", "1", "--json"],
        ["bound", "lecam", "bernoulli-mean", "--n", "100", "--epsilon", "1", "--json"],
    ],
    ids=["report", "bound"],
)
def test_command_line_output_cites_by_author_and_year(argv, capsys):
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    offending = [s for s in _strings(data) if working_names(s)]
    assert not offending, offending
    if argv[0] == "bound":
        theorem = data["bound"]["theorem"]
        assert re.search(r"[A-Z]\w+(-[A-Z]\w+)* \(\d{4}\), (Theorem|Lemma|Corollary)", theorem)
        assert all(_in_bibliography(s, y) for s, y in cited_works(theorem))
    else:
        assert {"kl", "chi2", "tv"} <= set(data["contraction"])
        assert all("theorem" in entry for entry in data["contraction"].values())
