"""Names that explain themselves, each defined once (issue 17): no two modules of
``src/wuhan_mahjong`` define a public class or type alias of the same name.

Two ``Table`` classes (a running match, a bot's reading of its seat view) or two
``Settlement`` classes (a won hand's points, a ledger's silver) make a reader ask
which one a signature means; one name per thing answers that.  The names are read
from the source with ``ast``: top-level ``class`` statements and top-level
CamelCase assignments (type aliases such as ``InboxEvent = tuple[...]``).  Private
names (a leading ``_``) are module-local and left out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import wuhan_mahjong

PACKAGE = Path(wuhan_mahjong.__file__).parent

#: Names allowed in more than one module, each with its reason; keep it tiny.
ALLOWED: dict[str, str] = {
    "BigId": "an Alembic migration is a frozen copy of the schema at its revision and must not "
    "import the live models (store/models.py), so it keeps its own column type",
}


def _is_type_name(name: str) -> bool:
    """CamelCase: a class or type alias, not a CONSTANT or a function."""
    return name[:1].isupper() and not name.isupper() and not name.startswith("_")


def defined_names(source: str) -> set[str]:
    """The public classes and type aliases a module defines at its top level."""
    out: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return {n for n in out if _is_type_name(n)}


def definitions() -> dict[str, list[str]]:
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in defined_names(path.read_text(encoding="utf-8")):
            where[name].append(str(path.relative_to(PACKAGE)))
    return where


def test_each_public_class_name_is_defined_once() -> None:
    twice = {name: paths for name, paths in definitions().items() if len(paths) > 1 and name not in ALLOWED}
    assert not twice, f"defined in more than one module: {twice}"


def test_the_allow_list_names_only_real_duplicates() -> None:
    where = definitions()
    stale = [name for name in ALLOWED if len(where.get(name, [])) < 2]
    assert not stale, f"no longer defined twice, drop from ALLOWED: {stale}"


def test_the_reader_finds_classes_and_aliases() -> None:
    """The check itself can fail: a class and an alias are both seen, private and
    constant names are not."""
    source = "class Table: ...\nInboxEvent = tuple[int, ...]\nLIMIT = 3\nclass _Out: ...\nx: int = 1\n"
    assert defined_names(source) == {"Table", "InboxEvent"}
