"""JSON engines for campaign battles: ``battle``, ``odds`` and ``retreat``.

A SIDE is one army, ``{"infantry", "cavalry", "ships" (0), "terrain" ("field"), "stationary"
(false), "commander_bonus" (1), "retreat_penalty" (false), "modifiers" ([]), "characters"
([])}``, or a list of them: every army that fights on that side (docs/rules.md "Battles
between sides": the strengths are summed, each army takes the side's casualty %); a
modifier is ``{"name", "amount", "kind" ("strength"), "role" ("both"), "hidden" (false),
"label" (""), "source" ("other")}``. Numbers come out as JSON numbers (floats rendered from the
exact values); ``odds`` also gives the exact fractions as strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from bot.jsonapi import Payload
from bot.jsonapi.fields import get_bool, get_decimal, get_int, get_list, get_obj, get_str
from rules.campaign.battle import (
    BattleResult,
    Side,
    SideResult,
    Strength,
    Troops,
    Winner,
    resolve_battle,
)
from rules.campaign.config import Terrain
from rules.campaign.modifiers import (
    MULTIPLIER_KINDS,
    Effect,
    EffectKind,
    Modifier,
    Role,
    Source,
)
from rules.campaign.odds import ExpectedLosses, battle_odds
from rules.campaign.retreat import roll_retreat
from rules.campaign.world import as_role
from rules.dice import Dice
from rules.errors import InvalidInput

_TERRAINS = tuple(t.value for t in Terrain)
_KINDS = tuple(k.value for k in EffectKind)
_ROLES = tuple(r.value for r in Role)
_SOURCES = tuple(s.value for s in Source)


def number(value: Decimal | Fraction | int) -> int | float:
    """A JSON number for an exact value: an int when whole, else the nearest float."""
    if isinstance(value, int):
        return value
    if value == int(value):
        return int(value)
    return float(value)


def _modifier(item: Any, prefix: str) -> Modifier:
    if not isinstance(item, Mapping):
        raise InvalidInput(prefix, f"must be an object, not {type(item).__name__}",
                           '{"name": "...", "amount": 1.2}')
    name = get_str(item, "name", prefix).strip()
    if not name:
        raise InvalidInput(f"{prefix}.name", "must not be empty", "e.g. Ser Brynden's skill")
    kind = EffectKind(get_str(item, "kind", prefix, default="strength", choices=_KINDS))
    amount = get_decimal(item, "amount", prefix)
    if kind in MULTIPLIER_KINDS and amount <= 0:
        raise InvalidInput(f"{prefix}.amount", f"a multiplier must be above 0, not {amount}",
                           "e.g. 1.2")
    role = Role(get_str(item, "role", prefix, default="both", choices=_ROLES))
    source = Source(get_str(item, "source", prefix, default="other", choices=_SOURCES))
    return Modifier(name, source, (Effect(kind, amount, role),),
                    label=get_str(item, "label", prefix, default=""),
                    hidden=get_bool(item, "hidden", prefix, default=False))


def _read_army(data: Mapping[str, Any], key: str) -> Side:
    """One army of a SIDE (``key`` names it in errors: ``attacker`` or ``attacker[1]``)."""
    modifiers = tuple(_modifier(item, f"{key}.modifiers[{i}]")
                      for i, item in enumerate(get_list(data, "modifiers", key, default=())))
    characters: list[str] = []
    for i, name in enumerate(get_list(data, "characters", key, default=())):
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput(f"{key}.characters[{i}]", f"must be a name, not {name!r}",
                               "a non-empty string")
        characters.append(name.strip())
    bonus = get_decimal(data, "commander_bonus", key, default=1)
    if bonus <= 0:
        raise InvalidInput(f"{key}.commander_bonus", f"must be above 0, not {bonus}", "e.g. 1.2")
    return Side(
        infantry=get_int(data, "infantry", key, default=0),
        cavalry=get_int(data, "cavalry", key, default=0),
        ships=get_int(data, "ships", key, default=0),
        terrain=Terrain(get_str(data, "terrain", key, default="field", choices=_TERRAINS)),
        stationary=get_bool(data, "stationary", key, default=False),
        commander_bonus=bonus,
        retreat_penalty=get_bool(data, "retreat_penalty", key, default=False),
        modifiers=modifiers,
        characters=tuple(characters),
    )


def read_side(payload: Payload, key: str) -> tuple[Side, ...]:
    """The SIDE at ``payload[key]``: one army (an object) or several (a list of them). Raises
    InvalidInput naming e.g. ``attacker.infantry`` or ``attacker[1].infantry``."""
    if isinstance(payload.get(key), list):
        items = get_list(payload, key)
        if not items:
            raise InvalidInput(key, "must list at least one army", '[{"infantry": 100}]')
        return tuple(_read_army(get_obj({f"{key}[{i}]": item}, f"{key}[{i}]"), f"{key}[{i}]")
                     for i, item in enumerate(items))
    return (_read_army(get_obj(payload, key), key),)


def read_sides(payload: Payload) -> tuple[tuple[Side, ...], tuple[Side, ...]]:
    """The attacking and the defending armies as the battle counts them
    (:func:`rules.campaign.world.as_role`). Raises InvalidInput naming the field; a stationary
    attacker is refused: the attacker never has the defender's terrain bonus."""
    attacker = read_side(payload, "attacker")
    for i, army in enumerate(attacker):
        if army.stationary:
            where = "attacker" if len(attacker) == 1 else f"attacker[{i}]"
            raise InvalidInput(f"{where}.stationary", "the attacker never has the defender's "
                               "terrain bonus (it marched in or left its position to attack)",
                               "false, or leave it out (give the defender \"stationary\": "
                               "true)")
    defender = read_side(payload, "defender")
    return (tuple(as_role(a, Winner.ATTACKER) for a in attacker),
            tuple(as_role(d, Winner.DEFENDER) for d in defender))


def _troops(troops: Troops) -> dict[str, int]:
    return {"infantry": troops.infantry, "cavalry": troops.cavalry, "ships": troops.ships}


def _strength(power: Strength) -> dict[str, Any]:
    # The JSON interface is a moderators' tool: secret multipliers are listed, marked as such.
    return {"strength": number(power.value), "base_strength": power.base,
            "applied": list(power.all_labels())}


def _side_result(res: SideResult) -> dict[str, Any]:
    return {
        **_strength(res.strength),
        "roll": res.roll,
        "casualty_pct": number(res.casualty_pct),
        "losses": _troops(res.losses),
        "survivors": _troops(res.survivors),
        "captured": res.captured,
        "characters": [{"name": f.name, "fate": f.fate.value, "roll": f.roll}
                       for f in res.fates],
        **({"armies": [_side_result(part) for part in res.parts]} if res.parts else {}),
    }


def battle_json(result: BattleResult) -> dict[str, Any]:
    """A battle result in the JSON interface's shape."""
    return {
        "winner": result.winner.value,
        "band": result.band,
        "ratio": None if result.ratio is None else number(result.ratio),
        "margin": result.margin,
        "attacker": _side_result(result.attacker),
        "defender": _side_result(result.defender),
    }


def battle_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    attacker, defender = read_sides(payload)
    return battle_json(resolve_battle(attacker, defender, dice=dice))


def _expected(losses: ExpectedLosses, exact: bool) -> dict[str, Any]:
    values = {"infantry": losses.infantry, "cavalry": losses.cavalry, "ships": losses.ships}
    if exact:
        return {k: str(v) for k, v in values.items()}
    return {k: float(v) for k, v in values.items()}


def odds_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    odds = battle_odds(*read_sides(payload))
    sides = {"attacker": (odds.attacker_strength, odds.attacker_losses, odds.attacker_captured),
             "defender": (odds.defender_strength, odds.defender_losses, odds.defender_captured)}
    return {
        "attacker_win": float(odds.attacker_win),
        "defender_win": float(odds.defender_win),
        "attacker_win_exact": str(odds.attacker_win),
        "defender_win_exact": str(odds.defender_win),
        "band": odds.band,
        "ratio": None if odds.ratio is None else number(odds.ratio),
        "expected_losses": {k: _expected(v[1], False) for k, v in sides.items()},
        "expected_losses_exact": {k: _expected(v[1], True) for k, v in sides.items()},
        "captured_chance": {k: float(v[2]) for k, v in sides.items()},
        "attacker": _strength(odds.attacker_strength),
        "defender": _strength(odds.defender_strength),
    }


def retreat_engine(payload: Payload, dice: Dice) -> dict[str, Any]:
    result = roll_retreat(get_int(payload, "infantry", default=0),
                          get_int(payload, "cavalry", default=0),
                          get_int(payload, "ships", default=0), dice=dice)
    return {
        "roll": result.roll,
        "success": result.success,
        "fraction": number(result.fraction),
        "escaped": _troops(result.escaped),
        "lost": _troops(result.lost),
        "penalty": result.penalty,
    }
