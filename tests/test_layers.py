"""Layers you can see (issue 17): the import graph of ``src/wuhan_mahjong``, read from the
source with ``ast`` (imports inside functions included; those under ``if
TYPE_CHECKING:`` never run and are left out), has no cycle, and no module imports
from a layer above its own.

The layers, bottom to top (README, "Layers"):

====  =========================================================================
0     the pure core: tiles, rules, meld, shape, analysis, scoring, win_record, jsontext, problems,
      handinfo, calculator (and the package's own ``__init__``)
1     engine/
2     bots/
3     rl/
4     store/
5     server/
6     cli/
7     entry points (``__main__`` modules: ``python -m``)
====  =========================================================================

A module may import from its own layer and the ones below.  ``from package import
name`` counts as an import of the submodule when ``name`` is one, else of the
package; the implicit import of a package's ``__init__`` by its submodules is not an
edge (that is how packages work, not a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import wuhan_mahjong

PACKAGE = Path(wuhan_mahjong.__file__).parent
CORE = {"tiles", "rules", "meld", "shape", "analysis", "scoring", "win_record", "handinfo", "calculator",
        "jsontext", "problems"}
LAYERS = {"engine": 1, "bots": 2, "rl": 3, "store": 4, "server": 5, "cli": 6}

#: Known upward imports, to shrink to nothing (each with its reason); empty now.
ALLOWED_UPWARD: set[tuple[str, str]] = set()

#: Known imports that close a cycle, to shrink to nothing (each with its reason); empty now.
ALLOWED_CYCLE_EDGES: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def layer(module: str) -> int:
    parts = module.split(".")
    if parts[-1] == "__main__":
        return 7
    if len(parts) == 1 or parts[1] in CORE:
        return 0
    return LAYERS[parts[1]]


def _is_type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:``: imports for the type checker only, never run."""
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def edges(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for block in ast.walk(tree) if _is_type_checking(block)
                   for stmt in block.body for n in ast.walk(stmt)}  # type: ignore[attr-defined]
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target not in known:
                continue
            subs = {f"{target}.{a.name}" for a in node.names} & known
            # names that are not submodules come from the package (module) itself
            if subs:
                out.update(subs)
            if len(subs) < len(node.names):
                out.add(target)
    out.discard(name)
    return out


def graph() -> dict[str, set[str]]:
    mods = all_modules()
    known = set(mods)
    return {name: edges(name, path, known) for name, path in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_the_graph_is_read_from_every_module() -> None:
    g = graph()
    assert "wuhan_mahjong.engine.state" in g["wuhan_mahjong.engine.legality"] or \
        "wuhan_mahjong.engine.legality" in g["wuhan_mahjong.engine.state"]
    assert "wuhan_mahjong.tiles" in g["wuhan_mahjong.rules"]
    # a function-level import is an edge too (the bot registry imports its bots lazily)
    assert "wuhan_mahjong.bots.greedy" in g["wuhan_mahjong.bots"]


def test_no_import_cycle() -> None:
    g = graph()
    for m, t in ALLOWED_CYCLE_EDGES:
        # an allowance that is no longer needed must go (it may only shrink)
        assert m not in g or t not in g or t in g[m], f"{m} -> {t} is gone: drop it from the list"
        g.get(m, set()).discard(t)
    assert cycles(g) == []


def test_the_cycle_finder_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_from_a_layer_above() -> None:
    upward = sorted((m, t) for m, targets in graph().items() for t in targets
                    if layer(t) > layer(m) and (m, t) not in ALLOWED_UPWARD)
    assert upward == []


def test_every_module_has_a_layer() -> None:
    for name in all_modules():
        layer(name)  # a new top-level package must be placed in LAYERS
