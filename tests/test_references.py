"""Every document the code, the tests and the docs name is in the repository: a ``.md`` file
named anywhere (``docs/rules.md``, ``engines/boardgame.md``) exists under that name, and nothing
points outside the checkout (``../shared/...``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("bot", "rules", "tests", "docs", "scripts", "benchmarks")
MARKDOWN = re.compile(r"[A-Za-z0-9_./-]+\.md\b")
OUTSIDE = re.compile(r"\.\./shared|\bshared/rules\b")


def _texts() -> dict[str, str]:
    files = [ROOT / "README.md", *(p for top in SOURCES for p in (ROOT / top).rglob("*")
                                   if p.is_file() and p.suffix in (".py", ".md", ".toml", ""))]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8", errors="replace")
            for p in files if "__pycache__" not in p.parts and p != Path(__file__).resolve()}


def dangling(texts: dict[str, str], present: set[str]) -> list[str]:
    found = []
    for name, text in sorted(texts.items()):
        for ref in sorted({r.lstrip("./") for r in MARKDOWN.findall(text)}):
            if not any(p == ref or p.endswith("/" + ref) for p in present):
                found.append(f"{name}: {ref}")
        if OUTSIDE.search(text):
            found.append(f"{name}: points outside the repository")
    return found


def test_every_named_document_is_in_the_repository() -> None:
    present = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.md")
               if ".venv" not in p.parts and "node_modules" not in p.parts}
    found = dangling(_texts(), present)
    assert found == [], "\n".join(found)


def test_the_check_sees_a_missing_document() -> None:
    texts = {"a.py": '"""See DECISIONS.md and docs/rules.md; ../shared/REDDIT.md."""'}
    assert dangling(texts, {"docs/rules.md"}) == [
        "a.py: DECISIONS.md", "a.py: shared/REDDIT.md", "a.py: points outside the repository"]
    assert dangling({"b.md": "see [the rules](rules.md)"}, {"docs/rules.md"}) == []
