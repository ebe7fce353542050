"""rules/ stays pure: no I/O, no clock, no global randomness, no outside-world libraries."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "rules"

FORBIDDEN_MODULES = {
    "os", "io", "sys", "time", "socket", "subprocess", "pathlib", "shutil", "tempfile",
    "threading", "asyncio", "sqlite3", "urllib", "http", "requests", "logging", "secrets",
    "praw", "prawcore", "sqlalchemy", "sqlmodel", "apscheduler", "alembic", "psycopg",
    "typer", "rich", "bot", "glob", "pickle", "shelve",
}
# random's module-level functions share one hidden global generator.
FORBIDDEN_RANDOM = {
    "random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform",
    "seed", "getrandbits", "gauss", "triangular", "betavariate",
}
FORBIDDEN_CALLS = {"open", "input", "print", "exec", "eval", "__import__", "breakpoint"}
FORBIDDEN_ATTRS = {("datetime", "now"), ("datetime", "utcnow"), ("datetime", "today"),
                   ("date", "today")}


def _modules() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FORBIDDEN_MODULES:
                    found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            root = (node.module or "").split(".")[0]
            if root in FORBIDDEN_MODULES:
                found.append(f"line {node.lineno}: from {node.module} import ...")
            if root == "random":
                bad = [a.name for a in node.names if a.name in FORBIDDEN_RANDOM]
                if bad:
                    found.append(f"line {node.lineno}: from random import {', '.join(bad)}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                found.append(f"line {node.lineno}: call to {func.id}()")
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                pair = (func.value.id, func.attr)
                if pair in FORBIDDEN_ATTRS:
                    found.append(f"line {node.lineno}: {pair[0]}.{pair[1]}()")
                if func.value.id == "random" and func.attr in FORBIDDEN_RANDOM:
                    found.append(f"line {node.lineno}: random.{func.attr}() (global generator)")
    return found


def test_rules_package_has_modules() -> None:
    """The purity check is only meaningful if it finds the rules modules."""
    assert len(_modules()) >= 5


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(RULES)))
def test_rules_module_is_pure(path: Path) -> None:
    """No module of rules/ may touch I/O, the clock, global randomness, Reddit, SQL or the
    scheduler: rules take dice and time as arguments."""
    assert _violations(path) == []


def test_the_checker_catches_forbidden_code(tmp_path: Path) -> None:
    """The checker itself flags each kind of forbidden code (so a silent pass means purity)."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os\nimport random\nfrom datetime import datetime\nimport sqlmodel\n"
        "x = random.randint(1, 6)\ny = datetime.now()\nopen('f')\n"
        "from random import choice\n"
    )
    found = _violations(bad)
    assert len(found) == 6
