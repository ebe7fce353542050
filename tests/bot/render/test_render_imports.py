"""The render layer words the rules' values and imports no database, session or ORM model.

Every ``import`` in bot/render/ (at module level, inside functions and under TYPE_CHECKING
alike) is read from the source with :mod:`ast`: only the standard library, the rules, the
player-text helpers (:mod:`bot.text`), the player-facing errors (:mod:`bot.errors`: the one
apology) and the render package itself are allowed. A fresh
process importing the whole package then must not have loaded a storage or Reddit stack.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "bot" / "render"
ALLOWED = ("rules", "bot.text", "bot.errors", "bot.render")
STACKS = ("sqlalchemy", "sqlmodel", "alembic", "psycopg", "praw", "prawcore", "apscheduler")


def imported_names(source: str, package: str) -> set[str]:
    """Every module name ``source`` imports (relative imports resolved against ``package``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
    return found


def allowed(name: str) -> bool:
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__":
        return True
    return any(name == a or name.startswith(a + ".") for a in ALLOWED)


def forbidden_imports() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        names = imported_names(path.read_text(encoding="utf-8"), "bot.render")
        bad = sorted(n for n in names if not allowed(n))
        if bad:
            out[str(path.relative_to(ROOT))] = bad
    return out


def test_the_render_modules_import_only_rules_text_and_the_standard_library() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert {"common", "help", "notes", "odds", "posts", "receipts"} <= modules
    assert forbidden_imports() == {}


def test_the_check_sees_a_database_import() -> None:
    """The checker itself: an import of a model, a session or a service is caught, wherever
    it stands."""
    source = ("from typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from sqlmodel import Session\n"
              "def f():\n    from bot.db.models import Army\n    import bot.services.journal\n"
              "from .common import money\n")
    names = imported_names(source, "bot.render")
    assert sorted(n for n in names if not allowed(n)) == [
        "bot.db.models", "bot.services.journal", "sqlmodel"]
    assert "bot.render.common" in names and allowed("bot.render.common")


def test_importing_the_render_package_loads_no_storage_or_services() -> None:
    probe = ("import json, sys\n"
             "import bot.render.common, bot.render.help, bot.render.notes, bot.render.odds, "
             "bot.render.posts, bot.render.receipts\n"
             "print(json.dumps(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    loaded = json.loads(out.stdout)
    assert [m for m in loaded if m.split(".")[0] in STACKS
            or m.startswith(("bot.db", "bot.services", "bot.reddit"))] == []
