"""docs/architecture.md draws the house from the code: its picture of the layers is the one the
real imports make (:mod:`tests.test_layers` reads them), and every file it names exists.

When the layers change, print the new picture with ``python -m tests.test_architecture`` and
paste it between the page's ``house`` markers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tests.test_layers import GROUPS, ROOT, group_of, import_graph

PAGE = ROOT / "docs" / "architecture.md"
_BEGIN, _END = "<!-- house:begin -->", "<!-- house:end -->"

_LABELS: Mapping[str, str] = {
    "cli": "cli: the maester command",
    "demo": "demo: the demo campaign",
    "reddit": "reddit, runner: intake, delivery, the scheduler",
    "web": "web: the pages, read only",
    "sandbox": "sandbox: a local stand-in for Reddit",
    "messages": "messages: one incoming message",
    "commands": "commands: the !commands",
    "jsonapi": "jsonapi: the JSON engines",
    "services": "services: load, let the rules decide, store, journal",
    "storage": "storage: the tick's row readers and writers",
    "base": "base: db, config, render, errors, text, clock, maps",
    "rules.decide": "rules.decide: what an order decides; rulings",
    "rules": "rules: the rule areas, the world, the tick",
    "rules.language": "rules.language: the order language",
    "rules.shared": "rules.shared: errors, text, dice",
}


def group_arrows() -> set[tuple[str, str]]:
    """``(a, b)`` when a module of group ``a`` imports one of group ``b`` (``a`` != ``b``),
    without the arrows a longer way already implies (the transitive reduction)."""
    arrows: set[tuple[str, str]] = set()
    for module, targets in import_graph().items():
        own = group_of(module)
        for target in targets:
            theirs = group_of(target)
            if own is not None and theirs is not None and own != theirs:
                arrows.add((own, theirs))

    def reaches(start: str, goal: str, skip: tuple[str, str]) -> bool:
        seen, todo = {start}, [start]
        while todo:
            node = todo.pop()
            for a, b in arrows:
                if a == node and (a, b) != skip and b not in seen:
                    if b == goal:
                        return True
                    seen.add(b)
                    todo.append(b)
        return False

    return {arrow for arrow in arrows if not reaches(*arrow, skip=arrow)}


def _node(group: str) -> str:
    return group.replace(".", "_")


def house_picture() -> str:
    """The page's picture: a mermaid flowchart of the layers, an arrow for "imports"."""
    lines = ["```mermaid", "flowchart TD"]
    lines += [f'  {_node(g)}["{_LABELS[g]}"]' for g in GROUPS]
    lines += [f"  {_node(a)} --> {_node(b)}" for a, b in sorted(group_arrows())]
    lines.append("```")
    return "\n".join(lines)


def _drawn() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split(_BEGIN, 1)[1].split(_END, 1)[0].strip()


def test_the_picture_of_the_house_is_the_one_the_imports_draw() -> None:
    assert set(_LABELS) == set(GROUPS), "label every group of tests/test_layers.py"
    assert _drawn() == house_picture(), (
        "docs/architecture.md's picture is out of date; paste the output of "
        "`python -m tests.test_architecture` between its house markers")


def test_every_file_the_page_names_exists() -> None:
    named = re.findall(r"`((?:rules|bot|tests|docs|scripts|benchmarks)/[\w/.]+)`",
                       PAGE.read_text(encoding="utf-8"))
    assert named, "the page names the files where things live"
    assert [path for path in named if not (ROOT / path).exists()] == []


def test_the_reduction_keeps_only_arrows_no_longer_way_implies() -> None:
    arrows = group_arrows()
    assert ("rules.decide", "rules") in arrows
    assert ("rules.decide", "rules.shared") not in arrows  # through rules, then shared


if __name__ == "__main__":
    print(house_picture())
