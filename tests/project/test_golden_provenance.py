"""Every pinned golden number in the tests says where it comes from.

An expected value copied from the code's own output tests nothing, so a test that pins a
number must say how the number was obtained independently: a paper's theorem, table or
example (cited by author and year), a closed form evaluated with another tool (mpmath,
scipy), another library, or a brute-force enumeration.

The rule, kept simple so that it is easy to follow:

* A *pinned number* is a float literal with 6 or more significant digits (``0.183715``,
  ``6.829595e-3``; ``0.5`` or ``1e-6`` are not) that sits in an assertion: inside an
  ``assert`` statement, in the arguments of ``approx`` / ``isclose`` / ``allclose`` /
  ``assert_allclose`` / ``assert_almost_equal``, or in a ``pytest.mark.parametrize`` table.
* It has a *provenance comment* when a comment saying where it comes from is on the literal's
  line, or anywhere from the comment block directly above the statement holding it down to
  that line. A comment counts when it names a source: an author-year citation ``(2022)``,
  a theorem, table, example, lemma, proposition, corollary, equation, section or figure, or
  one of the words closed form, brute force, enumeration, quadrature, mpmath, scipy, sympy,
  exact, computed, derived, recomputed, library.
* A module whose docstring or comments hold a ``Reference values`` note (for a table of
  numbers) counts as annotated throughout.

Every test file under ``tests/`` is scanned; a pinned number without provenance fails the
test with its file, line and value. The rule is itself tested on small sources below.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Significant digits from which a float literal counts as a pinned number.
MIN_DIGITS = 6

#: Calls whose arguments are expected values.
CHECK_CALLS = {
    "approx",
    "isclose",
    "allclose",
    "assert_allclose",
    "assert_almost_equal",
    "assert_array_almost_equal",
    "assert_approx_equal",
    "parametrize",
}

#: What a comment must name to count as provenance.
PROVENANCE = re.compile(
    r"\(\d{4}\)|\b(?:theorem|thm|table|example|lemma|proposition|prop|corollary|eq|equation"
    r"|section|figure|fig|appendix|algorithm|closed[ -]form|brute[ -]force|enumerat\w*|mpmath"
    r"|scipy|sympy|exact\w*|computed|derived|recomputed|library|dp_accounting|autodp|opacus"
    r"|quadrature|by hand)\b",
    re.I,
)
MODULE_NOTE = re.compile(r"reference values", re.I)


def significant_digits(literal: str) -> int:
    """Significant digits of a Python float literal (0 for ints and complex numbers)."""
    text = literal.lower().replace("_", "")
    if text.endswith("j") or text.startswith(("0x", "0o", "0b")) or not re.search(r"[.e]", text):
        return 0
    mantissa = text.split("e")[0].replace(".", "").lstrip("0").rstrip("0")
    return len(mantissa)


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _checked_spans(tree: ast.AST) -> list[tuple[int, int, int]]:
    """(statement start, span start, span end) lines of the expressions that hold expected
    values: assert statements and the arguments of the checking calls."""
    spans = []
    parents: dict[ast.AST, ast.AST] = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent

    def statement_start(node: ast.AST) -> int:
        start = node.lineno  # type: ignore[attr-defined]
        while node in parents and not isinstance(node, ast.stmt):
            node = parents[node]
            start = min(start, node.lineno) if hasattr(node, "lineno") else start
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return start  # a decorator: its own first line
        return getattr(node, "lineno", start)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            spans.append((node.lineno, node.lineno, node.end_lineno or node.lineno))
        elif isinstance(node, ast.Call) and _call_name(node) in CHECK_CALLS:
            spans.append((statement_start(node), node.lineno, node.end_lineno or node.lineno))
    return spans


def unexplained(source: str) -> list[tuple[int, str]]:
    """The pinned numbers of a test source without a provenance comment, as (line, literal)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    comments = {t.start[0]: t.string for t in tokens if t.type == tokenize.COMMENT}
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree) or ""
    if MODULE_NOTE.search(docstring) or any(MODULE_NOTE.search(c) for c in comments.values()):
        return []
    lines = source.splitlines()
    spans = _checked_spans(tree)
    found = []
    for token in tokens:
        if token.type != tokenize.NUMBER or significant_digits(token.string) < MIN_DIGITS:
            continue
        line = token.start[0]
        holders = [s for s in spans if s[1] <= line <= s[2]]
        if not holders:
            continue
        first = min(s[0] for s in holders)
        while first > 1 and lines[first - 2].strip().startswith("#"):
            first -= 1  # the comment block directly above the statement
        if not any(PROVENANCE.search(comments.get(n, "")) for n in range(first, line + 1)):
            found.append((line, token.string))
    return found


def test_digits_are_counted_as_written():
    assert significant_digits("0.183715") == 6
    assert significant_digits("6.829595e-3") == 7
    assert significant_digits("1.50000") == 2
    assert significant_digits("1e-6") == 1
    assert significant_digits("123456") == 0  # an int is a count, not a computed value
    assert significant_digits("1_000.125") == 7


def test_rule_flags_a_bare_pinned_number():
    source = "def test_x():\n    assert f(1.0) == pytest.approx(0.3260424900, rel=1e-9)\n"
    assert unexplained(source) == [(2, "0.3260424900")]


def test_rule_flags_arrays_and_parametrize_tables():
    source = (
        "import pytest\n"
        "@pytest.mark.parametrize(('a', 'b'), [(0.5, 0.197413)])\n"
        "def test_x(a, b):\n"
        "    np.testing.assert_allclose(g(a), [0.1114215, 0.5])\n"
    )
    assert unexplained(source) == [(2, "0.197413"), (4, "0.1114215")]


def test_rule_accepts_a_comment_beside_or_above():
    beside = "def test_x():\n    assert f() == approx(0.183715)  # closed form, mpmath\n"
    above = (
        "def test_x():\n"
        "    # Dong-Roth-Su (2022), Theorem 2.10\n"
        "    assert f() == approx(\n"
        "        0.183715,\n"
        "    )\n"
    )
    assert unexplained(beside) == [] and unexplained(above) == []


def test_rule_wants_a_source_not_any_comment():
    source = "def test_x():\n    # the value\n    assert f() == approx(0.183715)\n"
    assert unexplained(source) == [(3, "0.183715")]


def test_rule_accepts_a_module_note_and_ignores_other_literals():
    noted = '"""Reference values: Table 2."""\ndef test_x():\n    assert f() == 0.183715\n'
    outside = "X = g(0.183715)\ndef test_x():\n    assert f() == approx(0.5, abs=1e-6)\n"
    assert unexplained(noted) == [] and unexplained(outside) == []


def _test_files() -> list[Path]:
    return sorted(p for p in (ROOT / "tests").rglob("test_*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", _test_files(), ids=lambda p: str(p.relative_to(ROOT / "tests")))
def test_pinned_numbers_say_where_they_come_from(path):
    missing = unexplained(path.read_text(encoding="utf-8"))
    listing = "\n".join(f"  {path.name}:{line}: {value}" for line, value in missing)
    assert not missing, (
        "pinned numbers without a provenance comment (say where each comes from: paper and "
        "theorem, closed form and the tool used, another library, or brute force):\n" + listing
    )
