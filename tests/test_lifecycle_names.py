"""No raw lifecycle strings in bot/: an army's state, a siege's, battle's, character's or
relation's status, a reaction and an outbox entry's status are compared with their enum
members (rules.campaign.world, bot.db.models.OutboxStatus), never with a string literal such as
``"active"``, through ``.value`` of the field, or (for the rules' enums, whose columns read
back as members) with ``ArmyState.STANDING.value``; the outbox's status reads back as an
:class:`~bot.db.models.OutboxStatus` member the same way."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.db.models import OutboxStatus
from rules.campaign.world import (
    ArmyState,
    BattleStatus,
    CharacterStatus,
    Reaction,
    RelationStatus,
    SiegeStatus,
)

ROOT = Path(__file__).resolve().parents[1]
LIFECYCLES = (ArmyState, BattleStatus, CharacterStatus, Reaction, RelationStatus, SiegeStatus,
              OutboxStatus)
VALUES = frozenset(member.value for enum in LIFECYCLES for member in enum)
FIELDS = frozenset({"state", "status", "reaction", "outcome", "kind"})
STORED_AS_ENUMS = frozenset({"ArmyState", "ArmyKind", "BattleStatus", "BattleKind",
                             "CharacterStatus", "Reaction", "RelationStatus", "SiegeStatus",
                             "OutboxStatus"})
"""The rules' enums whose columns read back as members: compared as members, not ``.value``."""


def _field(node: ast.expr) -> str | None:
    """``x.status`` (or ``Model.status``) -> "status"; ``x.status.value`` too."""
    if isinstance(node, ast.Attribute) and node.attr == "value":
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr in FIELDS:
        return node.attr
    return None


def raw_comparisons(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        fields = [_field(o) for o in operands]
        if not any(fields):
            continue
        dotted_value = any(isinstance(o, ast.Attribute) and o.attr == "value"
                           and _field(o) for o in operands)
        literals = [o.value for o in operands
                    if isinstance(o, ast.Constant) and isinstance(o.value, str)]
        literals += [e.value for o in operands if isinstance(o, ast.Tuple | ast.List | ast.Set)
                     for e in o.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        member_value = any(
            isinstance(o, ast.Attribute) and o.attr == "value"
            and isinstance(o.value, ast.Attribute) and isinstance(o.value.value, ast.Name)
            and o.value.value.id in STORED_AS_ENUMS for o in operands)
        if dotted_value or member_value or any(v in VALUES for v in literals):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_bot_compares_lifecycles_with_their_enums() -> None:
    found = {str(path.relative_to(ROOT)): hits for path in sorted((ROOT / "bot").rglob("*.py"))
             if "migrations" not in path.parts and "sandbox" not in path.parts
             and (hits := raw_comparisons(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_check_sees_a_raw_status_and_a_dotted_value() -> None:
    source = ("a = siege.status == 'active'\nb = row.state in ('marching', 'gone')\n"
              "c = result.outcome.value == 'destroyed'\nd = siege.status is SiegeStatus.ACTIVE\n"
              "e = entry.kind == 'post'\nf = a.state == ArmyState.STANDING.value\n"
              "g = o.status == OutboxStatus.PENDING.value\n")
    assert [hit.split(":")[0] for hit in raw_comparisons(source)] == [
        "line 1", "line 2", "line 3", "line 6", "line 7"]
