"""The CLI package sits on top (issue 17: a CLI package without cycles).

The import graph is read from the source with ``ast`` (imports inside functions
included): no library module imports the CLI, the command modules import only
the CLI's public helpers in ``cli.common`` (never each other, never a private
name), and the command table names exactly the commands the modules define.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import wuhan_mahjong
from wuhan_mahjong.cli import COMMANDS

PACKAGE = Path(wuhan_mahjong.__file__).parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for every import statement in ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            out.append((target, [a.name for a in node.names]))
    return out


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def test_no_library_module_imports_the_cli() -> None:
    offenders = []
    for name, path in modules().items():
        if name.startswith("wuhan_mahjong.cli") or name.endswith(".__main__"):
            continue  # the CLI itself; entry points (python -m) sit above every layer
        for target, _ in imports(path):
            if target == "wuhan_mahjong.cli" or target.startswith("wuhan_mahjong.cli."):
                offenders.append(f"{name} imports {target}")
    assert offenders == []


def test_command_modules_use_only_the_public_helpers() -> None:
    cli = {n: p for n, p in modules().items() if n.startswith("wuhan_mahjong.cli.")}
    assert {"wuhan_mahjong.cli.common", "wuhan_mahjong.cli.core", "wuhan_mahjong.cli.engine",
            "wuhan_mahjong.cli.bots", "wuhan_mahjong.cli.serve"} <= set(cli)
    offenders = []
    for name, path in cli.items():
        for target, names in imports(path):
            if not target.startswith("wuhan_mahjong"):
                continue
            if target.startswith("wuhan_mahjong.cli") and (
                    name == "wuhan_mahjong.cli.common" or target != "wuhan_mahjong.cli.common"):
                offenders.append(f"{name} imports {target}")  # a cycle, or a sibling command module
            private = [n for n in names if n.startswith("_")]
            if private:
                offenders.append(f"{name} takes private {private} from {target}")
    assert offenders == []


def test_the_command_table_matches_the_command_modules() -> None:
    defined: dict[str, str] = {}
    for module in {c.module for c in COMMANDS}:
        configure = importlib.import_module(f"wuhan_mahjong.cli.{module}").CONFIGURE
        defined.update(dict.fromkeys(configure, module))
    assert defined == {c.name: c.module for c in COMMANDS}
