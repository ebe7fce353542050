"""The house reads top-down, with no circles.

Every ``import`` in rules/ and bot/ is read from the source with :mod:`ast`: at module level,
inside functions and under ``TYPE_CHECKING`` alike (a deferred import is still an arrow). An
import names the module it loads: ``from bot.services import journal`` is an arrow to
``bot.services.journal``, ``from bot.cli import main`` one to the package ``bot.cli`` itself.
A string that is exactly a module's name (``"bot.cli.campaign"`` in the command table, loaded
with importlib when the command runs) is an arrow too.

Two things are checked:

- **No circle.** The arrows between modules form no cycle (a failure prints each cycle).
- **The layers.** Each module belongs to a group (the longest prefix in :data:`GROUPS` that
  names it), and imports only from the groups :data:`ALLOWED` lists for its own. The picture:
  rules <- storage <- services <- commands / messages <- reddit, CLI::

      cli, __main__                      everything below
        demo                             sandbox, reddit, messages, commands, jsonapi, ...
          reddit, runner                 web, messages, services, storage, base, rules
          web                        services, storage, base, rules (the pages only read)
          sandbox                        nothing of the bot (a stand-in for Reddit)
            messages                     commands, services, storage, base, rules
              commands                   services, storage, base, rules
              jsonapi                    base, rules (the JSON engines run the rules only)
                services                 storage, base, rules
                  storage                base, rules (the tick's row readers and writers)
                    base                 rules (and each other)
                      rules.decide       the rules below (the order decisions, the rulings)
                        rules            language, shared (rule areas, world, tick)
                          rules.language shared (the order language)
                            rules.shared nothing (errors, text, dice)

  base: bot.errors, bot.text, bot.clock, bot.config, bot.db, bot.maps, bot.mapimage,
  bot.render (the texts, from the rules' values), bot.data and the package ``bot`` itself (its
  ``__version__``). So rules/ imports nothing of bot/; storage imports no services; the
  services import no commands, messages, CLI, Reddit, sandbox, JSON interface, demo or runner;
  the commands no messages, CLI or Reddit.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GROUPS: dict[str, tuple[str, ...]] = {
    # rules/, bottom up: what every rule shares (errors, text, dice); the order language; the
    # rule areas, the world and the tick; the order decisions (and the moderators' rulings).
    "rules.shared": ("rules.errors", "rules.text", "rules.dice"),
    "rules.language": ("rules.campaign.language",),
    "rules": ("rules",),
    "rules.decide": ("rules.campaign.decide", "rules.campaign.rulings"),
    # The package ``bot`` itself (its __version__) is base too; see group_of.
    "base": ("bot.errors", "bot.text", "bot.clock", "bot.config", "bot.maps", "bot.db",
             "bot.data", "bot.mapimage", "bot.render"),
    "services": ("bot.services",),
    "storage": ("bot.storage",),
    "commands": ("bot.commands",),
    "jsonapi": ("bot.jsonapi",),
    "messages": ("bot.messages",),
    "reddit": ("bot.reddit", "bot.runner"),
    "sandbox": ("bot.sandbox",),
    "web": ("bot.web",),
    "demo": ("bot.demo",),
    "cli": ("bot.cli", "bot.__main__"),
}
_RULES = {"rules.shared", "rules.language", "rules", "rules.decide"}
_BELOW_REDDIT = {*_RULES, "base", "storage", "services", "messages", "reddit"}
ALLOWED: dict[str, set[str]] = {
    "rules.shared": {"rules.shared"},
    "rules.language": {"rules.shared", "rules.language"},
    "rules": {"rules.shared", "rules.language", "rules"},
    "rules.decide": _RULES,
    "base": {*_RULES, "base"},
    "storage": {*_RULES, "base", "storage"},
    "services": {*_RULES, "base", "storage", "services"},
    "commands": {*_RULES, "base", "storage", "services", "commands"},
    "jsonapi": {*_RULES, "base", "jsonapi"},
    "messages": {*_RULES, "base", "storage", "services", "commands", "messages"},
    "web": {*_RULES, "base", "storage", "services", "web"},
    "reddit": _BELOW_REDDIT | {"web"},
    "sandbox": {"sandbox"},
    "demo": {*_BELOW_REDDIT, "commands", "jsonapi", "sandbox", "web", "demo"},
    "cli": set(GROUPS),
}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root: Path = ROOT) -> dict[str, Path]:
    return {_module_name(p, root): p for top in ("rules", "bot") if (root / top).is_dir()
            for p in (root / top).rglob("*.py")}


def group_of(module: str) -> str | None:
    """The group of the longest prefix naming ``module``; None for a module no group names (a
    new package of bot/ must be placed in :data:`GROUPS`)."""
    if module == "bot":
        return "base"
    best: tuple[str, int] | None = None
    for group, prefixes in GROUPS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[1]):
                best = (group, len(prefix))
    return None if best is None else best[0]


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The module ``name`` refers to (the longest prefix of it that is a module)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The project modules ``module`` imports, anywhere in its source (relative imports
    resolved; ``from package import name`` is an arrow to the submodule ``package.name`` when
    there is one, else to the package; a string naming a module is an arrow to it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(k for alias in node.names if (k := _known(alias.name, modules)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and "." in node.value and node.value in modules:
            found.add(node.value)  # a registry's module loaded by name (importlib)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in modules else (_known(base, modules) or ""))
    return {name for name in found if name and name != module}


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = _modules(root)
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One cycle (first module repeated at the end) through each strongly connected set of
    modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_a_cycle(graph, component) for component in components]


def _a_cycle(graph: Mapping[str, set[str]], component: set[str]) -> list[str]:
    """The shortest way from the component's first module back to itself."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & component):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # a component always has one


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    found = []
    for module in sorted(graph):
        own = group_of(module)
        for target in sorted(graph[module]):
            theirs = group_of(target)
            if own is not None and theirs is not None and theirs not in ALLOWED[own]:
                found.append(f"{module} ({own}) imports {target} ({theirs})")
    return found


def test_every_module_has_a_group() -> None:
    assert [m for m in _modules() if group_of(m) is None] == []
    assert set(ALLOWED) == set(GROUPS)
    assert group_of("bot.somewhere_new") is None and group_of("bot") == "base"


def test_the_imports_form_no_circle() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_every_import_goes_to_an_allowed_layer() -> None:
    assert upward_imports(import_graph()) == []


def test_rules_import_nothing_of_bot() -> None:
    graph = import_graph()
    assert [(m, sorted(t)) for m, t in graph.items()
            if m.startswith("rules") and any(n.startswith("bot") for n in t)] == []


def test_the_checker_sees_a_circle_and_an_upward_import(tmp_path: Path) -> None:
    """The checker itself, on a small made-up tree: a deferred import that closes a circle,
    and a service importing the command layer, are both caught."""
    services = tmp_path / "bot" / "services"
    services.mkdir(parents=True)
    (tmp_path / "bot" / "__init__.py").write_text("")
    (services / "__init__.py").write_text("")
    (services / "a.py").write_text("from bot.services import b\n")
    (services / "b.py").write_text("def f():\n    from bot.services.c import g\n")
    (services / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n"
        "def g():\n    from bot.commands.dispatch import run_command\n")
    (services / "d.py").write_text('TABLE = ("bot.services.e",)\n')
    (services / "e.py").write_text("from bot.services.d import TABLE\n")
    commands = tmp_path / "bot" / "commands"
    commands.mkdir()
    (commands / "__init__.py").write_text("")
    (commands / "dispatch.py").write_text("")
    graph = import_graph(tmp_path)
    assert cycles(graph) == [["bot.services.a", "bot.services.b", "bot.services.c",
                              "bot.services.a"],
                             ["bot.services.d", "bot.services.e", "bot.services.d"]]
    assert upward_imports(graph) == [
        "bot.services.c (services) imports bot.commands.dispatch (commands)"]
