"""The house reads top-down: rules <- base <- services <- commands <- messages <- reddit <- CLI.

Every ``import`` in rules/ and bot/ (at module level, inside functions, and under
TYPE_CHECKING alike) is read from the source with :mod:`ast`; a module may import only from its
own layer or the layers below. So there is no arrow from the services to the commands, none
from the rules to the bot, and no circle between layers. Within a layer, the modules' top-level
imports form no circle either.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Lowest first. A module belongs to the longest prefix that names it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("rules",),
    ("bot.errors", "bot.text", "bot.clock", "bot.config", "bot.maps", "bot.db", "bot.data",
     "bot.mapimage", "bot.render"),
    ("bot.services",),
    ("bot.commands", "bot.jsonapi"),
    ("bot.messages",),
    ("bot.reddit", "bot.runner", "bot.sandbox", "bot.demo"),
    ("bot.cli", "bot.__main__"),
)
# The order handlers register across two modules (orders.py imports orders_catalogue at its
# end); the order-handler registry lists them in one place and ends this circle.
KNOWN_CIRCLES: set[tuple[str, ...]] = set()
NAMES = ("pure rules", "base", "services", "commands", "messages", "reddit and the bot",
         "command line")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for top in ("rules", "bot") for p in (ROOT / top).rglob("*.py")}


def layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def _imports(module: str, path: Path, *, top_level_only: bool = False) -> set[str]:
    """The project modules ``module`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("rules", "bot")}


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` refers to (``from bot import cli`` names the module bot.cli)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def test_every_module_has_a_layer() -> None:
    assert [m for m in _modules() if layer_of(m) is None and m != "bot"] == []


def test_no_module_imports_from_a_higher_layer() -> None:
    modules = _modules()
    upward = []
    for module, path in sorted(modules.items()):
        own = layer_of(module)
        if own is None:
            continue
        for name in sorted(_imports(module, path)):
            target = _known(name, modules)
            theirs = layer_of(target) if target else None
            if theirs is not None and theirs > own:
                upward.append(f"{module} ({NAMES[own]}) imports {target} ({NAMES[theirs]})")
    assert upward == []


def test_the_top_level_imports_form_no_circle() -> None:
    modules = _modules()
    graph = {m: {t for n in _imports(m, p, top_level_only=True)
                 if (t := _known(n, modules)) and t != m and not m.startswith(t + ".")
                 and t != "bot"}
             for m, p in modules.items()}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circles.append([*trail[trail.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert [c for c in circles if tuple(sorted(set(c))) not in KNOWN_CIRCLES] == []


def test_the_layer_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The checker itself: a services module importing the command layer is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from bot.commands.dispatch import run_command\n")
    names = _imports("bot.services.bad", bad)
    assert "bot.commands.dispatch" in names
    assert layer_of("bot.services.bad") == 2 and layer_of("bot.commands.dispatch") == 3
