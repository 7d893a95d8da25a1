"""The import graph of ``ldp`` and ``estimators`` flows one way, and private names stay home.

Every module of both packages is parsed with :mod:`ast` (nothing is imported), so the test
sees lazy imports inside functions as well as module-level ones; imports under
``if TYPE_CHECKING:`` are for type checkers only and are skipped.

Layers, lowest first (a module may import its own component and lower layers only)::

    ldp/_*.py (leaves) <- core <- divergences <- channel
      <- {mechanisms, contraction, blackwell} <- tasks
      <- {risk, design, accounting, audit, protocol, datasets, distributed}
      <- ldp (the package itself) <- {plotting, collector} <- cli <- __main__ <- estimators

``ldp.core`` holds the abstraction every layer above builds on (:class:`ldp.core.Mechanism`,
the domains, the report codec); ``ldp.mechanisms`` holds the randomizers only, by family;
``ldp.tasks`` what is built from them (decoding, consistency, heavy hitters, range queries,
selection, simulation, report plausibility).

The one exception is :meth:`ldp.Channel.contraction` / ``contraction_bound``: a documented
lazy delegation from ``channel`` up to ``contraction``, which owns the math.

Inside the lowest layer the leaves ``ldp/_*.py`` are ordered too (``LEAF_RANKS``: a leaf
imports only leaves of a lower rank). The compatibility shims of moved modules (``SHIMS``)
forward old names by string, on first use, and nothing in the two packages imports them.

No module-level alias gives a private name a public one (``name = _name`` or
``name = module._name``): a helper that another module needs is public where it lives.

No ``_``-prefixed *name* is imported from another module (a public name from a private
module such as ``ldp._validation`` is fine), from ``ldp``, ``estimators`` or scikit-learn.

Inside ``ldp.accounting`` every module sits in a subpackage by job, ranked
(``ACCOUNTING_RANKS``): ``curves`` <- {``comparisons``, ``amplification``, ``filters``} <-
``composition`` <- ``central``; a module imports its own subpackage and lower ranks only. The
central-DP machinery (``ldp.accounting.central``: the subsampled Gaussian, noisy SGD, its
filters) sits above the LDP core: only the package ``__init__`` and ``central`` itself import
it. Inside ``ldp.risk`` the subpackages import one way (``RISK_RANKS``): the lower
bounds (``bounds``) and the achieved risks (``achieved``) stand side by side on the shared
helpers and know nothing of each other, and ``planning`` (which sets one against the other)
sits on both. No module has more than
``MAX_MODULE_LINES`` lines (one job per module).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ldp", "estimators")

#: Layer of each component (the first two dotted parts of a module, or the package).
LAYERS = {
    "ldp._": 0,  # every leaf helper module ldp/_*.py (ordered among themselves: LEAF_RANKS)
    "ldp.references": 1,  # the bibliography: imports only its entries (ldp._bibliography)
    "ldp.core": 1,  # Mechanism, the domains, the report codec
    "ldp.divergences": 2,
    "ldp.channel": 3,
    "ldp.mechanisms": 4,  # the randomizers, by family
    "ldp.contraction": 4,
    "ldp.blackwell": 4,  # deprecated: forwards to ldp.accounting.comparisons.blackwell at run time
    "ldp.tasks": 5,  # what is built from randomizers: decoding, heavy hitters, ranges, ...
    "ldp.risk": 6,
    "ldp.design": 6,
    "ldp.accounting": 6,
    "ldp.audit": 6,
    "ldp.protocol": 6,
    "ldp.inference": 6,  # tests on the estimators' views (CellEstimate, MeanSample)
    "ldp.datasets": 6,
    "ldp.distributed": 6,
    "ldp": 7,  # the package __init__: re-exports the layers below
    "ldp.plotting": 8,
    "ldp.collector": 8,  # the ingest service behind `ldp serve`: store, HTTP app
    "ldp.cli": 9,
    "ldp.__main__": 10,
    "estimators": 11,
}

#: Order of the leaf helpers ``ldp/_*.py`` among themselves: a leaf imports only leaves of a
#: lower rank (rank 0 imports no other leaf).
LEAF_RANKS = {
    "ldp._bibliography": 0,  # the bibliography's entries, as data
    "ldp._deprecation": 0,
    "ldp._device": 0,
    "ldp._frozen": 0,
    "ldp._items": 0,
    "ldp._numerics": 0,
    "ldp._pairwise": 0,
    "ldp._plain": 0,
    "ldp._progress": 0,
    "ldp._quiet": 0,
    "ldp._random": 0,
    "ldp._rounding": 0,
    "ldp._sampling": 0,
    "ldp._warnings": 0,
    "ldp._words": 0,
    "ldp._coin_bytes": 1,  # byte patterns of coins by table (_words: words)
    "ldp._formulas": 1,  # closed forms (_numerics: log_binomial)
    "ldp._exact": 1,  # exact arithmetic, on the device clients' constants (_device)
    "ldp._validation": 1,  # argument checks, on the random sources (_random)
    "ldp._staircase_lp": 1,  # the LP of staircase designs (_quiet)
    "ldp._mechanism": 1,  # shim (_deprecation)
    "ldp._gdp": 2,  # Gaussian DP conversions (_numerics, _validation)
}

#: Compatibility shims of moved modules (one release): a module ``__getattr__`` from
#: ``ldp._deprecation`` (``forward``, ``moved_names``) that warns and forwards; nothing
#: imports them.
SHIMS = frozenset(
    {
        "ldp._mechanism",
        "ldp.blackwell",
        "ldp.risk.attained",
    }
    | {
        f"ldp.risk.{name}"
        for name in (
            "achievable",
            "assouad",
            "bayes",
            "fano",
            "information",
            "lecam",
            "minimax",
            "planner",
            "presets",
            "projection",
            "testing",
        )
    }
    | {
        "ldp.accounting.adaptive_clt",
        "ldp.accounting.divergences",
        "ldp.accounting.sgd",
        "ldp.accounting.subsampled_gaussian",
    }
    | {
        f"ldp.accounting.{name}"
        for name in (
            "approximations",
            "attacks",
            "blackwell",
            "blanket",
            "calibration",
            "comparison",
            "curve_divergences",
            "curve_plds",
            "gdp",
            "group",
            "intersection",
            "pld",
            "rdp",
            "shuffle",
            "subsampling",
            "summary",
            "tradeoff",
            "tradeoff_base",
            "tradeoff_conversions",
            "tradeoff_families",
        )
    }
    | {
        f"ldp.mechanisms.{name}"
        for name in (
            "channels",
            "consistency",
            "dbitflip",
            "decoding",
            "frequency",
            "longitudinal_unary",
            "memo",
            "numeric_distribution",
            "plausibility",
            "prefix_search",
            "privunit",
            "range_queries",
            "rappor_bloom",
            "selection",
            "simulate",
            "sketch",
            "tree",
        )
    }
)

#: (importer, imported) pairs allowed against the layers: lazy, inside a function, and said
#: in the importer's docstring.
ALLOWED_UPWARD = {("ldp.channel", "ldp.contraction")}

#: The central-DP part of accounting: above the LDP core of ``ldp.accounting``.
CENTRAL = "ldp.accounting.central"

#: Rank of each subpackage of ``ldp.accounting`` (the LDP core by job, then central DP): a
#: module of one imports only its own subpackage and subpackages of a lower rank. Every module
#: of ``ldp.accounting`` but the package ``__init__`` and the shims sits in one of them.
ACCOUNTING_RANKS = {
    "ldp.accounting.curves": 0,  # trade-off functions, privacy-loss distributions, conversions
    "ldp.accounting.comparisons": 1,  # the Blackwell order, Delta-divergence, approximate GDP
    "ldp.accounting.amplification": 1,  # shuffling (and the blanket), subsampling
    "ldp.accounting.filters": 1,  # the GDP filter, Renyi DP and its filter
    "ldp.accounting.composition": 2,  # exact and approximate composition, calibration
    CENTRAL: 3,  # central DP: the subsampled Gaussian, noisy SGD, its filters
}

#: Order of the parts of ``ldp.risk``: a part imports only its own modules and parts of a
#: lower rank (peers of one rank not each other); the package ``__init__`` re-exports all.
RISK_RANKS = {
    "ldp.risk._common": 0,  # Bound and the argument checks
    "ldp.risk.bounds": 1,  # lower bounds on the minimax risk
    "ldp.risk.achieved": 1,  # the risk achieved by given mechanisms and estimators
    "ldp.risk.planning": 2,  # sample sizes and gaps: bounds against achieved risks
    "ldp.risk": 3,
}

#: Most lines a module of the two packages may have.
MAX_MODULE_LINES = 800

#: Third-party packages whose private names must not be imported either.
WATCHED = ("ldp", "estimators", "sklearn")


@dataclass(frozen=True)
class Edge:
    source: str  # importing module
    target: str  # imported module
    names: tuple[str, ...]  # names taken with ``from target import ...``
    lazy: bool  # inside a function or class body
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.Module):
    """Import statements with whether they sit inside a function or class (lazy)."""

    def walk(node: ast.AST, lazy: bool):
        for child in ast.iter_child_nodes(node):
            if _type_checking_block(child):
                yield from (x for n in child.orelse for x in walk_one(n, lazy))
                continue
            yield from walk_one(child, lazy)

    def walk_one(node: ast.AST, lazy: bool):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, lazy
        inner = lazy or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        yield from walk(node, inner)

    yield from walk(tree, False)


def parse_edges(path: Path, source: str | None = None) -> list[Edge]:
    """The import edges of one module file (``source`` overrides the file's text)."""
    name = module_name(path)
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    package = name if is_package(path) else name.rpartition(".")[0]
    edges = []
    for node, lazy in _imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                edges.append(Edge(name, alias.name, (), lazy, node.lineno))
            continue
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        modules = module_names()
        names = []
        for alias in node.names:
            if f"{target}.{alias.name}" in modules:  # from package import submodule
                edges.append(Edge(name, f"{target}.{alias.name}", (), lazy, node.lineno))
            else:
                names.append(alias.name)
        if names:
            edges.append(Edge(name, target, tuple(names), lazy, node.lineno))
    return edges


def module_files() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


@functools.cache
def module_names() -> frozenset[str]:
    return frozenset(module_name(p) for p in module_files())


@functools.cache
def _all_edges() -> tuple[Edge, ...]:
    return tuple(edge for path in module_files() for edge in parse_edges(path))


def all_edges() -> list[Edge]:
    return list(_all_edges())


def component(module: str) -> str | None:
    """The layered component a module belongs to (``None`` outside the two packages)."""
    parts = module.split(".")
    if parts[0] == "estimators":
        return "estimators"
    if parts[0] != "ldp":
        return None
    if len(parts) == 1:
        return "ldp"
    if parts[1].startswith("_") and parts[1] != "__main__":
        return "ldp._"
    return f"ldp.{parts[1]}"


def layer_violations(edges: list[Edge]) -> list[str]:
    problems = []
    for edge in edges:
        source, target = component(edge.source), component(edge.target)
        if source is None or target is None or source == target:
            continue
        if (source, target) in ALLOWED_UPWARD and edge.lazy:
            continue
        if source not in LAYERS or target not in LAYERS:
            problems.append(f"{edge.source}:{edge.line}: {target} has no layer in LAYERS")
        elif LAYERS[target] >= LAYERS[source]:
            problems.append(
                f"{edge.source}:{edge.line} imports {edge.target} (layer {LAYERS[target]} is "
                f"not below {source}'s layer {LAYERS[source]})"
            )
    return problems


def leaf_order_violations(edges: list[Edge]) -> list[str]:
    """Imports between the leaves ``ldp/_*.py`` that do not go down ``LEAF_RANKS``."""
    problems = []
    for edge in edges:
        if component(edge.source) != "ldp._" or component(edge.target) != "ldp._":
            continue
        if edge.source == edge.target:
            continue
        source, target = LEAF_RANKS.get(edge.source), LEAF_RANKS.get(edge.target)
        if source is None or target is None:
            missing = edge.source if source is None else edge.target
            problems.append(f"{edge.source}:{edge.line}: {missing} has no rank in LEAF_RANKS")
        elif target >= source:
            problems.append(
                f"{edge.source}:{edge.line} imports {edge.target} (leaf rank {target} is not "
                f"below {edge.source}'s rank {source})"
            )
    return problems


def shim_imports(edges: list[Edge]) -> list[str]:
    """Imports of a compatibility shim, and imports by a shim of anything but the forwarder."""
    problems = []
    for edge in edges:
        targets = {edge.target} | {f"{edge.target}.{n}" for n in edge.names}
        if targets & SHIMS:
            problems.append(f"{edge.source}:{edge.line} imports the shim {edge.target}")
        if edge.source in SHIMS and edge.target not in ("ldp._deprecation", "__future__"):
            problems.append(f"{edge.source}:{edge.line}: a shim imports {edge.target}")
    return problems


def private_aliases(path: Path, source: str | None = None) -> list[str]:
    """Module-level ``name = _name`` or ``name = module._name``: a public alias of a private
    name (make the helper public where it lives instead)."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)

    def private(node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        else:
            return None
        return name if name.startswith("_") and not name.startswith("__") else None

    problems = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        hidden = private(value)
        if hidden is None:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and not target.id.startswith("_"):
                problems.append(
                    f"{module_name(path)}:{node.lineno} aliases the private {hidden} as {target.id}"
                )
    return problems


def central_imports(edges: list[Edge]) -> list[str]:
    """Imports of ``ldp.accounting.central`` by a module of ``ldp.accounting`` outside it
    (the package ``__init__``, which re-exports both, excepted), lazy ones included."""

    def in_central(module: str) -> bool:
        return module == CENTRAL or module.startswith(CENTRAL + ".")

    problems = []
    for edge in edges:
        if not edge.source.startswith("ldp.accounting.") or in_central(edge.source):
            continue
        targets = {edge.target} | {f"{edge.target}.{n}" for n in edge.names}
        if any(in_central(target) for target in targets):
            problems.append(f"{edge.source}:{edge.line} imports {edge.target} (central DP)")
    return problems


def accounting_subpackage(module: str) -> str | None:
    """The subpackage of ``ldp.accounting`` a module sits in (``None`` outside it, for the
    package ``__init__`` and for a module directly under ``ldp/accounting/``)."""
    parts = module.split(".")
    if parts[:2] != ["ldp", "accounting"] or len(parts) < 3:
        return None
    subpackage = ".".join(parts[:3])
    return subpackage if subpackage in ACCOUNTING_RANKS or len(parts) > 3 else None


def accounting_order_violations(edges: list[Edge]) -> list[str]:
    """Imports between the subpackages of ``ldp.accounting`` that do not go down
    ``ACCOUNTING_RANKS`` (lazy ones included; a subpackage missing from it is one too)."""
    problems = []
    for edge in edges:
        source = accounting_subpackage(edge.source)
        targets = {edge.target} | {f"{edge.target}.{n}" for n in edge.names}
        target = next((t for t in map(accounting_subpackage, sorted(targets)) if t), None)
        if source is None or target is None or source == target:
            continue
        if source not in ACCOUNTING_RANKS or target not in ACCOUNTING_RANKS:
            missing = source if source not in ACCOUNTING_RANKS else target
            problems.append(f"{edge.source}:{edge.line}: {missing} has no rank in ACCOUNTING_RANKS")
        elif ACCOUNTING_RANKS[target] >= ACCOUNTING_RANKS[source]:
            problems.append(
                f"{edge.source}:{edge.line} imports {edge.target} (rank "
                f"{ACCOUNTING_RANKS[target]} is not below {source}'s rank "
                f"{ACCOUNTING_RANKS[source]})"
            )
    return problems


def loose_accounting_modules(modules: frozenset[str]) -> list[str]:
    """Modules of ``ldp.accounting`` outside its ranked subpackages: only the package
    ``__init__`` and the shims may sit there."""
    return sorted(
        m
        for m in modules
        if m.startswith("ldp.accounting.")
        and m not in SHIMS
        and accounting_subpackage(m) not in ACCOUNTING_RANKS
    )


def risk_part(module: str) -> str | None:
    """The part of ``ldp.risk`` a module belongs to (``None``: outside it, or a shim)."""
    if module in SHIMS or not (module == "ldp.risk" or module.startswith("ldp.risk.")):
        return None
    parts = module.split(".")
    return "ldp.risk" if len(parts) == 2 else ".".join(parts[:3])


def risk_violations(edges: list[Edge]) -> list[str]:
    """Imports between the parts of ``ldp.risk`` that do not go down ``RISK_RANKS`` (lazy
    ones included)."""
    problems = []
    for edge in edges:
        source = risk_part(edge.source)
        if source is None:
            continue
        for target in sorted({edge.target} | {f"{edge.target}.{n}" for n in edge.names}):
            part = risk_part(target)
            if part is None or part == source or target not in module_names():
                continue
            if source not in RISK_RANKS or part not in RISK_RANKS:
                missing = source if source not in RISK_RANKS else part
                problems.append(f"{edge.source}:{edge.line}: {missing} has no rank in RISK_RANKS")
            elif RISK_RANKS[part] >= RISK_RANKS[source]:
                problems.append(
                    f"{edge.source}:{edge.line} imports {target} (rank {RISK_RANKS[part]} is "
                    f"not below {source}'s rank {RISK_RANKS[source]})"
                )
    return problems


def oversized(path: Path, source: str | None = None) -> str | None:
    """``"module: N lines"`` when a module has more than ``MAX_MODULE_LINES`` lines."""
    text = path.read_text(encoding="utf-8") if source is None else source
    lines = len(text.splitlines())
    return f"{module_name(path)}: {lines} lines" if lines > MAX_MODULE_LINES else None


def find_cycle(edges: list[Edge]) -> list[str] | None:
    """A cycle of the module graph (lazy imports included), or ``None``.

    An import ``from a.b import c`` counts as an edge to ``a.b`` (and to ``a.b.c`` when that
    is a module); the allowed upward delegation is left out.
    """
    modules = module_names()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for edge in edges:
        if (component(edge.source), component(edge.target)) in ALLOWED_UPWARD and edge.lazy:
            continue
        targets = {edge.target} | {f"{edge.target}.{n}" for n in edge.names}
        for target in targets & modules:
            if target != edge.source:
                graph[edge.source].add(target)
    colour = dict.fromkeys(graph, 0)  # 0 new, 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if colour[nxt] == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if colour[nxt] == 0:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return None

    for start in sorted(graph):
        if colour[start] == 0:
            found = visit(start)
            if found:
                return found
    return None


def private_imports(edges: list[Edge]) -> list[str]:
    problems = []
    for edge in edges:
        if not edge.target.startswith(WATCHED):
            continue
        if edge.target == edge.source:
            continue
        for name in edge.names:
            if name.startswith("_") and not name.startswith("__"):
                problems.append(f"{edge.source}:{edge.line} imports {name} from {edge.target}")
    return problems


def private_attribute_reads(path: Path, source: str | None = None) -> list[str]:
    """Reads of ``x._name`` where no code in the module defines ``_name``: a private member
    of another module's object. Members of ``self``/``cls`` (inherited, protected) and of
    an instance the module builds with ``cls.__new__`` are the class's own business."""
    tree = ast.parse(path.read_text() if source is None else source)
    defined: set[str] = set()
    own = {"self", "cls"}
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            defined.add(node.value)  # setattr(obj, "_name", ...), __slots__
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "__new__"
        ):
            own.update(t.id for t in node.targets if isinstance(t, ast.Name))
    problems = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name in defined:
            continue
        if isinstance(node.value, ast.Name) and (node.value.id in own | modules):
            continue
        problems.append(f"{module_name(path)}:{node.lineno} reads .{name} of another module")
    return problems


# ----------------------------------------------------------------------------- the checks
def test_every_module_has_a_layer():
    unknown = {component(module_name(p)) for p in module_files()} - set(LAYERS)
    assert not unknown, f"components without a layer in LAYERS: {sorted(unknown)}"


def test_imports_flow_one_way():
    problems = layer_violations(all_edges())
    assert not problems, "\n".join(problems)


def test_import_graph_has_no_cycle():
    cycle = find_cycle(all_edges())
    assert cycle is None, " -> ".join(cycle)


def test_no_private_name_crosses_a_module():
    problems = private_imports(all_edges())
    assert not problems, "\n".join(problems)


def test_no_private_attribute_is_read_across_modules():
    problems = [p for path in module_files() for p in private_attribute_reads(path)]
    assert not problems, "\n".join(problems)


def test_a_private_attribute_read_is_caught():
    source = "def total(pld):\n    return pld._delta(0.0)\n"
    assert private_attribute_reads(ROOT / "ldp" / "demo.py", source) == [
        "ldp.demo:2 reads ._delta of another module"
    ]
    own = (
        "class A:\n    def _delta(self):\n        return 0\n\n\ndef f(a):\n    return a._delta()\n"
    )
    assert private_attribute_reads(ROOT / "ldp" / "demo.py", own) == []


def test_every_leaf_has_a_rank():
    leaves = {module_name(p) for p in module_files() if component(module_name(p)) == "ldp._"}
    assert leaves == set(LEAF_RANKS)


def test_leaves_import_lower_leaves_only():
    problems = leaf_order_violations(all_edges())
    assert not problems, "\n".join(problems)


def test_nothing_imports_a_shim():
    assert module_names() >= SHIMS
    problems = shim_imports(all_edges())
    assert not problems, "\n".join(problems)


def test_no_private_name_gets_a_public_alias():
    problems = [p for path in module_files() for p in private_aliases(path)]
    assert not problems, "\n".join(problems)


def test_ldp_never_imports_estimators():
    edges = [e for e in all_edges() if component(e.source) != "estimators"]
    assert not [e for e in edges if component(e.target) == "estimators"]


def test_the_one_upward_delegation_is_lazy():
    """Channel.contraction and contraction_bound import ldp.contraction inside the method."""
    edges = parse_edges(ROOT / "ldp" / "channel.py")
    upward = [e for e in edges if component(e.target) == "ldp.contraction"]
    assert upward and all(e.lazy for e in upward)


def test_the_ldp_core_of_accounting_does_not_import_central_dp():
    problems = central_imports(all_edges())
    assert not problems, "\n".join(problems)


def test_the_subpackages_of_accounting_import_one_way():
    problems = accounting_order_violations(all_edges())
    assert not problems, "\n".join(problems)


def test_every_accounting_module_sits_in_a_ranked_subpackage():
    assert loose_accounting_modules(module_names()) == []
    assert {accounting_subpackage(m) for m in module_names()} >= set(ACCOUNTING_RANKS)


def test_the_central_dp_package_is_imported_by_the_accounting_package():
    """The rule above has something to guard: the package re-exports central's filters."""
    edges = parse_edges(ROOT / "ldp" / "accounting" / "__init__.py")
    assert any(e.target.startswith(CENTRAL) for e in edges)


def test_the_parts_of_risk_import_one_way():
    problems = risk_violations(all_edges())
    assert not problems, "\n".join(problems)
    parts = {risk_part(module_name(p)) for p in module_files()} - {None}
    assert parts == set(RISK_RANKS), f"parts of ldp.risk without a rank: {parts}"
    # the rule guards real edges: planning reads both sides
    seen = {(risk_part(e.source), risk_part(e.target)) for e in all_edges()}
    assert {
        ("ldp.risk.planning", "ldp.risk.bounds"),
        ("ldp.risk.planning", "ldp.risk.achieved"),
    } <= seen


def test_no_module_is_too_long():
    problems = [p for p in map(oversized, module_files()) if p is not None]
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------- the checks catch violations
def _edges_with(path: Path, extra: str) -> list[Edge]:
    text = path.read_text(encoding="utf-8")
    others = [e for e in all_edges() if e.source != module_name(path)]
    return others + parse_edges(path, text + "\n" + extra + "\n")


@pytest.mark.parametrize(
    ("module", "statement"),
    [
        ("ldp/channel.py", "from ldp.mechanisms import k_rr"),  # channel below mechanisms
        ("ldp/_validation.py", "from ldp.divergences import tv"),  # a leaf imports upward
        ("ldp/contraction/bounds.py", "from ldp.mechanisms import eta_max"),  # peers
        ("ldp/risk/lecam.py", "from estimators import FrequencyEstimator"),
    ],
)
def test_an_upward_import_is_caught(module, statement):
    assert layer_violations(_edges_with(ROOT / module, statement))


@pytest.mark.parametrize(
    "statement",
    [
        "from ldp.accounting.central import PoissonSubsampledGaussian",
        "from ldp.accounting import central",
        "import ldp.accounting.central.sgd",
        "def f():\n    from ldp.accounting.central.filters import ApproxGDPFilter\n",
    ],
)
def test_an_import_of_central_dp_by_the_core_is_caught(statement):
    path = ROOT / "ldp/accounting/filters/gdp_filter.py"
    problems = central_imports(_edges_with(path, statement))
    assert problems and all(p.startswith("ldp.accounting.filters.gdp_filter:") for p in problems)


@pytest.mark.parametrize(
    ("module", "statement"),
    [
        ("ldp/accounting/curves/pld.py", "from ldp.accounting.composition import compose"),
        ("ldp/accounting/curves/gdp.py", "import ldp.accounting.filters.rdp"),
        ("ldp/accounting/amplification/shuffle.py", "from ldp.accounting.filters import RDPFilter"),
        (
            "ldp/accounting/comparisons/blackwell.py",
            "def f():\n    from ldp.accounting import amplification\n",
        ),
        ("ldp/accounting/composition/exact.py", "from ldp.accounting.central import noisy_sgd"),
        ("ldp/accounting/curves/group.py", "from ldp.accounting.tables import X"),
    ],
)
def test_an_accounting_import_against_the_ranks_is_caught(module, statement):
    problems = accounting_order_violations(_edges_with(ROOT / module, statement))
    assert len(problems) == 1, problems


def test_imports_down_the_accounting_ranks_pass():
    statement = "from ldp.accounting.curves import GaussianTradeOff"
    path = ROOT / "ldp/accounting/composition/exact.py"
    assert accounting_order_violations(parse_edges(path, statement)) == []


def test_a_loose_accounting_module_is_caught():
    modules = module_names() | {"ldp.accounting.tables", "ldp.accounting.extra.tables"}
    assert loose_accounting_modules(modules) == [
        "ldp.accounting.extra.tables",
        "ldp.accounting.tables",
    ]


@pytest.mark.parametrize(
    ("module", "statement"),
    [
        ("ldp/risk/bounds/lecam.py", "from ldp.risk.planning import plan"),  # upward
        ("ldp/risk/achieved/achievable.py", "from ldp.risk.planning.planner import gap"),
        ("ldp/risk/bounds/fano.py", "from ldp.risk.achieved import rr_mean_risk"),  # peers
        ("ldp/risk/achieved/projection.py", "def f():\n    import ldp.risk.bounds.lecam\n"),
        ("ldp/risk/_common.py", "from ldp.risk.bounds.lecam import le_cam"),
    ],
)
def test_a_risk_import_against_the_order_is_caught(module, statement):
    problems = risk_violations(_edges_with(ROOT / module, statement))
    source = module.removesuffix(".py").replace("/", ".")
    assert problems and all(p.startswith(f"{source}:") for p in problems), problems


def test_a_long_module_is_caught():
    path = ROOT / "ldp" / "demo.py"
    assert oversized(path, "x = 1\n" * MAX_MODULE_LINES) is None
    assert oversized(path, "x = 1\n" * (MAX_MODULE_LINES + 1)) == "ldp.demo: 801 lines"


def test_a_cycle_is_caught():
    # curves.gdp sits below curves.tradeoff_families (which imports gdp)
    statement = "from ldp.accounting.curves.tradeoff_families import X"
    edges = _edges_with(ROOT / "ldp/accounting/curves/gdp.py", statement)
    cycle = find_cycle(edges)
    assert cycle is not None and "ldp.accounting.curves.gdp" in cycle


def test_a_lazy_cycle_is_caught():
    statement = "def f():\n    from ldp.accounting.curves.tradeoff_families import X\n"
    edges = _edges_with(ROOT / "ldp/accounting/curves/gdp.py", statement)
    assert find_cycle(edges) is not None


@pytest.mark.parametrize(
    "statement",
    [
        "from ldp.plotting import _helper",
        "from ldp.accounting.curves.pld import _something",
        "from sklearn.utils.validation import _check_feature_names_in",
    ],
)
def test_a_private_import_is_caught(statement):
    assert private_imports(_edges_with(ROOT / "ldp/cli/bound.py", statement))


def test_public_names_of_private_modules_are_allowed():
    edges = parse_edges(ROOT / "ldp/channel.py", "from ldp._validation import check_epsilon")
    assert not private_imports(edges)


@pytest.mark.parametrize(
    ("module", "statement"),
    [
        ("ldp/_device.py", "from ldp._exact import exp_down"),  # rank 0 imports rank 1
        ("ldp/_validation.py", "from ldp._exact import exp_down"),  # peers of rank 1
        ("ldp/_exact.py", "from ldp._gdp import get_tv_from_gdp"),  # lazy or not: upward
    ],
)
def test_a_leaf_importing_upward_is_caught(module, statement):
    assert leaf_order_violations(_edges_with(ROOT / module, statement))


def test_an_unranked_leaf_is_caught():
    edges = parse_edges(ROOT / "ldp/_new.py", "from ldp._exact import exp_down")
    assert leaf_order_violations(edges) == ["ldp._new:1: ldp._new has no rank in LEAF_RANKS"]


@pytest.mark.parametrize(
    ("module", "statement"),
    [
        ("ldp/protocol/document.py", "from ldp.mechanisms.frequency import GRR"),
        ("ldp/cli/estimate.py", "def f():\n    from ldp.mechanisms import decoding\n"),
        ("ldp/mechanisms/frequency.py", "from ldp.mechanisms.categorical import GRR"),
    ],
)
def test_an_import_of_or_by_a_shim_is_caught(module, statement):
    assert shim_imports(_edges_with(ROOT / module, statement))


@pytest.mark.parametrize(
    "statement",
    [
        "grid_step = _grid_step",
        "snap: object = _snap",
        "draws = numeric._exponential",
    ],
)
def test_a_private_alias_is_caught(statement):
    source = f"def _grid_step():\n    pass\n\n\n{statement}\n"
    assert private_aliases(ROOT / "ldp" / "demo.py", source)


def test_private_to_private_and_computed_values_are_not_aliases():
    source = "_WEIGHTS = (1, 2)\n_WEIGHTS = _WEIGHTS\nTOTAL = sum(_WEIGHTS)\n__all__ = []\n"
    assert private_aliases(ROOT / "ldp" / "demo.py", source) == []


# ----------------------------------------------------------------------------- the docs page
ARCHITECTURE_PAGE = ROOT / "docs" / "architecture.md"


def test_the_architecture_page_states_the_layers_of_this_test():
    """The layer table of docs/architecture.md is ``LAYERS``, row by row."""
    stated: dict[str, int] = {}
    for line in ARCHITECTURE_PAGE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].isdigit():
            continue
        for name in re.findall(r"`([\w.*]+)`", cells[1]):
            stated["ldp._" if name == "ldp._*" else name] = int(cells[0])
    assert stated == LAYERS


def _stated_accounting_ranks(text: str) -> dict[str, int]:
    """The ranks of the ``- rank N: `ldp.accounting.x`, ...: what it holds`` list."""
    stated: dict[str, int] = {}
    for rank, names in re.findall(r"^- rank (\d+): ((?:`[\w.]+`,?\s*)+):", text, flags=re.M):
        for name in re.findall(r"`([\w.]+)`", names):
            stated[name] = int(rank)
    return stated


def test_the_architecture_page_states_the_accounting_ranks_of_this_test():
    text = ARCHITECTURE_PAGE.read_text(encoding="utf-8")
    assert _stated_accounting_ranks(text) == ACCOUNTING_RANKS


def test_a_wrong_accounting_rank_on_the_page_is_caught():
    text = ARCHITECTURE_PAGE.read_text(encoding="utf-8")
    wrong = text.replace(
        "- rank 2: `ldp.accounting.composition`", "- rank 1: `ldp.accounting.composition`"
    )
    assert wrong != text
    stated = _stated_accounting_ranks(wrong)
    assert stated["ldp.accounting.composition"] == 1 and stated != ACCOUNTING_RANKS
    listed = "- rank 1: `ldp.accounting.filters`,\n  `ldp.accounting.composition`: filters\n"
    assert _stated_accounting_ranks(listed) == dict.fromkeys(
        ("ldp.accounting.filters", "ldp.accounting.composition"), 1
    )


def test_the_add_a_mechanism_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", ARCHITECTURE_PAGE.read_text(), flags=re.S)
    assert len(blocks) == 1
    namespace: dict = {"__name__": "architecture_md"}
    exec(compile(blocks[0], "docs/architecture.md", "exec"), namespace)
    krr = namespace["krr"]
    from ldp.core import Mechanism
    from ldp.mechanisms import GRR

    assert isinstance(krr, Mechanism)
    # the example's matrix is k-RR's: its exact level is the library's GRR's, to rounding
    assert abs(krr.epsilon - GRR(4, 1.0).to_channel().epsilon) < 1e-12
    assert abs(krr.tv - GRR(4, 1.0).tv) < 1e-12
    estimate = krr.estimate(namespace["reports"])
    assert max(abs(a - b) for a, b in zip(estimate, [0.25, 0.5, 0.0, 0.25])) < 0.03
    assert "epsilon from the matrix: 1.0 " in capsys.readouterr().out
