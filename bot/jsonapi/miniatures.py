"""The ASOIAF Tabletop Miniatures engines: ``miniatures-attack``, ``-charge``, ``-panic``,
``-morale`` and ``-victory``.

With ``"dice"`` an attack is resolved with those dice, in this order: the attack dice, the
active player's attack re-rolls, the other player's, one defense die per hit, the active
player's defense re-rolls, the other player's, then the panic test's two d6 and its d3, rolled
together as the rulebook does (a passed test still rolls its d3). With ``"distribution": true``
and no ``"dice"`` the reply is the exact distribution of total wounds instead (probabilities as
exact fractions, decimal strings and floats). With both, the reply has both. With neither,
the attack is resolved with seeded or fresh dice. The charge, panic and morale engines follow
the same rule.
The format is documented, with worked examples, in ``docs/engines/miniatures.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from bot.jsonapi import Payload
from bot.jsonapi.fields import get_bool, get_decimal, get_int, get_list, get_obj, get_str
from rules.dice import Dice
from rules.errors import BadDie, InvalidInput
from rules.miniatures.attack import AttackProfile, AttackResult, AttackSpec, resolve_attack
from rules.miniatures.charge import (
    MAX_SPEED,
    ChargeReroll,
    ChargeResult,
    ChargeSetup,
    charge_odds,
    resolve_charge,
)
from rules.miniatures.distribution import WoundDistribution, wound_distribution
from rules.miniatures.morale import (
    MAX_MORALE,
    MIN_MORALE,
    PanicOdds,
    PanicResult,
    PanicWounds,
    morale_pass_chance,
    morale_test,
    panic_odds,
    panic_test,
)
from rules.miniatures.rolls import (
    MAX_MODIFIER,
    MAX_POOL,
    NO_REROLL,
    PoolRerolls,
    PoolResult,
    Reroll,
    RerollFaces,
    Side,
    check_whole,
)
from rules.miniatures.terrain import Terrain, parse_terrain
from rules.miniatures.units import UnitKind, UnitState, WoundReport
from rules.miniatures.victory import LAST_ROUND, check_victory, victory_points_to_win

ENGINE = "miniatures-attack"
DECIMAL_PLACES = 15
_FACES = tuple(f.value for f in RerollFaces)
_SIDES = tuple(s.value for s in Side)
_KINDS = tuple(k.value for k in UnitKind)
_RULES = tuple(r.value for r in PanicWounds)


def _reroll(data: Mapping[str, Any], side: Side, prefix: str) -> Reroll:
    faces = RerollFaces(get_str(data, side.value, prefix, default="none", choices=_FACES))
    limit_key = f"{side.value}_limit"
    limit = None
    if data.get(limit_key) is not None:
        limit = get_int(data, limit_key, prefix, minimum=1, maximum=MAX_POOL)
    if faces is RerollFaces.NONE:
        return NO_REROLL
    return Reroll(faces, limit)


def _pool_rerolls(payload: Payload, key: str) -> PoolRerolls:
    data = get_obj(payload, key, default={})
    return PoolRerolls(_reroll(data, Side.ATTACKER, key), _reroll(data, Side.DEFENDER, key))


def _attack_dice(payload: Payload, to_hit: int) -> int:
    if "profile" in payload:
        if "attack_dice" in payload:
            raise InvalidInput("profile", "give either attack_dice or profile, not both")
        prof = get_obj(payload, "profile")
        raw = get_list(prof, "dice", "profile")
        dice = tuple(
            check_whole(f"profile.dice[{i}]", n, 0, MAX_POOL, f"0 to {MAX_POOL} dice")
            for i, n in enumerate(raw)
        )
        profile = AttackProfile(get_str(prof, "name", "profile", default="attack"), to_hit, dice)
        ranks = get_int(prof, "ranks", "profile", default=len(dice), minimum=1,
                        maximum=max(len(dice), 1))
        return profile.dice_for(ranks, highest=get_bool(prof, "highest", "profile", default=False),
                                lowest=get_bool(prof, "lowest", "profile", default=False))
    return get_int(payload, "attack_dice", maximum=MAX_POOL)


def _target(payload: Payload) -> UnitState | None:
    if payload.get("target") is None:
        return None
    data = get_obj(payload, "target")
    kind = UnitKind(get_str(data, "kind", "target", default="infantry", choices=_KINDS))
    models = get_int(data, "models", "target", default=kind.full_models, minimum=1,
                     maximum=kind.full_models)
    try:
        return UnitState(
            kind,
            models,
            get_int(data, "wounds_per_model", "target", default=1, minimum=1),
            get_int(data, "damage", "target", default=0),
        )
    except InvalidInput as exc:
        # The unit checks its own fields as ``unit.*``; the payload calls the unit ``target``.
        field = exc.field.replace("unit.", "target.", 1)
        raise InvalidInput(field, exc.message, exc.expected) from None


def read_attack(payload: Payload) -> tuple[AttackSpec, UnitState | None]:
    """The attack a payload describes, and the defending unit if one is given. Raises
    InvalidInput naming the field."""
    to_hit = get_int(payload, "to_hit", minimum=2, maximum=6)
    dice = _attack_dice(payload, to_hit)
    morale: int | None = None
    if payload.get("morale") is not None and get_bool(payload, "panic", default=True):
        morale = get_int(payload, "morale", minimum=2, maximum=12)
    target = _target(payload)
    target_wounds = None
    if payload.get("target_wounds") is not None:
        if target is not None:
            raise InvalidInput("target_wounds", "give either target or target_wounds, not both")
        target_wounds = get_int(payload, "target_wounds", minimum=1)

    def modifier(key: str, bound: int = MAX_MODIFIER) -> int:
        return get_int(payload, key, default=0, minimum=-bound, maximum=bound)

    spec = AttackSpec(
        dice=dice,
        to_hit=to_hit,
        defense=get_int(payload, "defense", minimum=2, maximum=6),
        morale=morale,
        hit_modifier=modifier("hit_modifier"),
        defense_modifier=modifier("defense_modifier"),
        morale_modifier=modifier("morale_modifier", 12),
        attack_rerolls=_pool_rerolls(payload, "attack_rerolls"),
        defense_rerolls=_pool_rerolls(payload, "defense_rerolls"),
        active=Side(get_str(payload, "active", default="attacker", choices=_SIDES)),
        panic_wounds=PanicWounds(get_str(payload, "panic_wounds", default="d3", choices=_RULES)),
        target_wounds=target_wounds,
    )
    if get_bool(payload, "charge", default=False):
        spec = spec.with_charge_bonus()
    return spec, target


def probability(p: Fraction) -> dict[str, Any]:
    """A probability as an exact fraction, a decimal string and a float."""
    value = (Decimal(p.numerator) / Decimal(p.denominator)).quantize(
        Decimal(1).scaleb(-DECIMAL_PLACES), rounding=ROUND_HALF_EVEN
    )
    return {"fraction": f"{p.numerator}/{p.denominator}", "decimal": f"{value:f}",
            "float": float(p)}


def distribution_json(dist: WoundDistribution) -> dict[str, Any]:
    """The JSON form of an exact wound distribution."""
    rows = []
    for wounds, p in enumerate(dist.wounds):
        at_least = dist.at_least(wounds)
        rows.append({
            "wounds": wounds,
            "probability": probability(p)["decimal"],
            "probability_float": float(p),
            "fraction": f"{p.numerator}/{p.denominator}",
            "at_least": probability(at_least)["decimal"],
            "at_least_float": float(at_least),
        })
    return {
        "wounds": rows,
        "expected_wounds": probability(dist.expected),
        "expected_hits": probability(dist.expected_hits),
        "panic_failure_chance": probability(dist.panic_chance),
        "total_probability": f"{sum(dist.wounds, Fraction(0))}",
    }


def _pool_json(pool: PoolResult, success: str) -> list[dict[str, Any]]:
    return [
        {"faces": list(d.faces), "rerolled_by": [s.value for s in d.rerolled_by],
         "modified": d.modified, success: d.success}
        for d in pool.dice
    ]


def _panic_json(panic: PanicResult | None) -> dict[str, Any] | None:
    if panic is None:
        return None
    test = panic.test
    return {
        "outcome": panic.outcome.value,
        "taken": panic.taken,
        "morale": panic.morale,
        "rolls": list(test.rolls) if test else [],
        "modifier": test.modifier if test else 0,
        "total": test.total if test else None,
        "d3": panic.d3,
        "wounds": panic.wounds,
        "rule": panic.rule.value,
    }


def _unit_json(unit: UnitState) -> dict[str, Any]:
    return {"kind": unit.kind.value, "models": unit.models,
            "wounds_per_model": unit.wounds_per_model, "damage": unit.damage,
            "ranks": unit.ranks, "remaining_wounds": unit.remaining_wounds}


def _damage_json(report: WoundReport) -> dict[str, Any]:
    return {"before": _unit_json(report.before), "after": _unit_json(report.after),
            "models_removed": report.models_removed, "ranks_lost": report.ranks_lost,
            "destroyed": report.destroyed}


def result_json(result: AttackResult) -> dict[str, Any]:
    """The JSON form of a resolved attack, every die included."""
    spec = result.spec
    out: dict[str, Any] = {
        "outcome": result.outcome.value,
        "attack": {"to_hit": spec.to_hit, "modifier": spec.hit_modifier,
                   "dice": _pool_json(result.attack, "hit"), "hits": result.hits},
        "defense": {"defense": spec.defense, "modifier": spec.defense_modifier,
                    "dice": _pool_json(result.defense, "save"), "saves": result.blocked},
        "attack_wounds": result.attack_wounds,
        "panic": _panic_json(result.panic),
        "wounds": result.wounds,
    }
    if result.damage is not None:
        out["target"] = _damage_json(result.damage)
    return out


def spec_json(spec: AttackSpec) -> dict[str, Any]:
    """How the engine read the attack (after charge bonus and defaults)."""

    def rerolls(pr: PoolRerolls) -> dict[str, Any]:
        return {"attacker": pr.attacker.faces.value, "attacker_limit": pr.attacker.limit,
                "defender": pr.defender.faces.value, "defender_limit": pr.defender.limit}

    return {
        "attack_dice": spec.dice, "to_hit": spec.to_hit, "defense": spec.defense,
        "morale": spec.morale, "hit_modifier": spec.hit_modifier,
        "defense_modifier": spec.defense_modifier, "morale_modifier": spec.morale_modifier,
        "attack_rerolls": rerolls(spec.attack_rerolls),
        "defense_rerolls": rerolls(spec.defense_rerolls), "active": spec.active.value,
        "panic_wounds": spec.panic_wounds.value, "target_wounds": spec.target_wounds,
    }


def miniatures_attack(payload: Payload, dice: Dice) -> dict[str, Any]:
    """Resolve an attack, or give its exact wound distribution (see the module docstring)."""
    try:
        return _attack(payload, dice)
    except BadDie as exc:
        raise InvalidInput(f"dice[{exc.index}]", f"{exc.value} is not a possible "
                           f"d{exc.sides} result for {exc.purpose}", f"1-{exc.sides}") from None


def _attack(payload: Payload, dice: Dice) -> dict[str, Any]:
    spec, target = read_attack(payload)
    scripted = payload.get("dice") is not None
    want_distribution = get_bool(payload, "distribution", default=False)
    out: dict[str, Any] = {"engine": ENGINE, "spec": spec_json(spec)}
    if want_distribution:
        dist_spec = spec
        if target is not None:
            dist_spec = replace(spec, target_wounds=target.remaining_wounds)
        out["distribution"] = distribution_json(wound_distribution(dist_spec))
    if scripted or not want_distribution:
        out["result"] = result_json(resolve_attack(spec, dice=dice, target=target))
    out["mode"] = "resolve" if "result" in out else "distribution"
    return out



# --------------------------------------------------------------------------- panic and morale

def _morale_fields(payload: Payload) -> tuple[int, int]:
    return (get_int(payload, "morale", minimum=MIN_MORALE, maximum=MAX_MORALE),
            get_int(payload, "morale_modifier", default=0, minimum=-12, maximum=12))


def _panic_rule(payload: Payload) -> PanicWounds:
    return PanicWounds(get_str(payload, "panic_wounds", default="d3", choices=_RULES))


def _wanted(payload: Payload) -> tuple[bool, bool]:
    """(roll it, give the odds): odds with ``distribution``; rolled with dice or without odds."""
    odds = get_bool(payload, "distribution", default=False)
    return payload.get("dice") is not None or not odds, odds


def panic_odds_json(odds: PanicOdds) -> dict[str, Any]:
    """The exact chances of a panic test."""
    return {"automatic": odds.automatic, "pass": probability(odds.passed),
            "fail": probability(odds.failed),
            "wounds": [{"wounds": w, "chance": probability(p)} for w, p in odds.wounds],
            "expected_wounds": probability(odds.expected_wounds)}


def miniatures_panic(payload: Payload, dice: Dice) -> dict[str, Any]:
    """A stand-alone panic test: rolled (2d6 and the d3 together), or its exact chances."""
    morale, modifier = _morale_fields(payload)
    rule = _panic_rule(payload)
    suffered = (get_int(payload, "wounds_suffered") if payload.get("wounds_suffered") is not None
                else None)
    roll, odds = _wanted(payload)
    out: dict[str, Any] = {"engine": "miniatures-panic", "morale": morale,
                           "morale_modifier": modifier, "panic_wounds": rule.value,
                           "wounds_suffered": suffered}
    if odds:
        out["odds"] = panic_odds_json(panic_odds(morale, modifier=modifier, rule=rule,
                                                 wounds_suffered=suffered))
    if roll:
        out["result"] = _panic_json(panic_test(morale, dice=dice, modifier=modifier, rule=rule,
                                               wounds_suffered=suffered))
    out["mode"] = "resolve" if roll else "distribution"
    return out


def miniatures_morale(payload: Payload, dice: Dice) -> dict[str, Any]:
    """A morale test (2d6 against the morale value): rolled, or its exact chance."""
    morale, modifier = _morale_fields(payload)
    roll, odds = _wanted(payload)
    out: dict[str, Any] = {"engine": "miniatures-morale", "morale": morale,
                           "morale_modifier": modifier}
    if odds:
        chance = morale_pass_chance(morale, modifier)
        out["odds"] = {"pass": probability(chance), "fail": probability(1 - chance)}
    if roll:
        test = morale_test(morale, dice=dice, modifier=modifier)
        out["result"] = {"rolls": list(test.rolls), "modifier": test.modifier,
                         "total": test.total, "passed": test.passed}
    out["mode"] = "resolve" if roll else "distribution"
    return out


# --------------------------------------------------------------------------- charge

def read_charge(payload: Payload) -> ChargeSetup:
    """The charge a payload describes. Raises InvalidInput naming the field, IllegalAction for
    a charge that cannot be declared."""
    terrain = []
    for index, item in enumerate(get_list(payload, "terrain", default=[])):
        if not isinstance(item, str):
            raise InvalidInput(f"terrain[{index}]", f"must be a terrain piece's name, not "
                               f"{item!r}", "one of " + ", ".join(t.value for t in Terrain))
        try:
            terrain.append(parse_terrain(item))
        except InvalidInput as exc:
            raise InvalidInput(f"terrain[{index}]", exc.message, exc.expected) from None
    morale = (get_int(payload, "morale", minimum=MIN_MORALE, maximum=MAX_MORALE)
              if payload.get("morale") is not None else None)
    return ChargeSetup(
        distance=get_decimal(payload, "distance"),
        speed=get_int(payload, "speed", minimum=1, maximum=MAX_SPEED),
        terrain=tuple(terrain),
        morale=morale,
        morale_modifier=get_int(payload, "morale_modifier", default=0, minimum=-12, maximum=12),
        reroll=ChargeReroll(get_str(payload, "reroll", default="none",
                                    choices=[r.value for r in ChargeReroll])),
        panic_wounds=_panic_rule(payload),
    )


def _inches(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def charge_json(result: ChargeResult) -> dict[str, Any]:
    """A rolled charge: reached, disorderly, the failed charge's panic test and its wounds."""
    panic = result.panic
    return {
        "outcome": result.outcome.value,
        "rolls": list(result.rolls),
        "roll": result.roll,
        "total_distance": result.total_distance,
        "reached": result.reached,
        "disorderly": result.disorderly,
        "charge_bonus": result.charge_bonus,
        "defense_bonus": result.defense_bonus,
        "may_play_tactics_cards": result.may_play_tactics_cards,
        "activation_ends": result.activation_ends,
        "panic_due": result.panic_due,
        "dangerous_wounds": result.dangerous_wounds,
        "panic": _panic_json(panic),
        "wounds": result.dangerous_wounds + (panic.wounds if panic else 0),
    }


def miniatures_charge(payload: Payload, dice: Dice) -> dict[str, Any]:
    """A charge: rolled (the charge die, its re-roll, dangerous terrain's d3, the failed
    charge's panic test), or its exact chances with ``distribution``."""
    setup = read_charge(payload)
    roll, want_odds = _wanted(payload)
    out: dict[str, Any] = {
        "engine": "miniatures-charge",
        "spec": {"distance": _inches(setup.distance), "speed": setup.speed,
                 "terrain": [t.value for t in setup.terrain], "rough": setup.rough,
                 "needed": setup.needed, "reach": setup.reach, "morale": setup.morale,
                 "morale_modifier": setup.morale_modifier, "reroll": setup.reroll.value,
                 "panic_wounds": setup.panic_wounds.value},
    }
    if want_odds:
        odds = charge_odds(setup)
        out["odds"] = {"charged": probability(odds.charged),
                       "disorderly": probability(odds.disorderly),
                       "reached": probability(odds.reached),
                       "failed": probability(odds.failed),
                       "failed_panic": probability(odds.panic_failure)}
    if roll:
        out["result"] = charge_json(resolve_charge(setup, dice=dice))
    out["mode"] = "resolve" if roll else "distribution"
    return out


# --------------------------------------------------------------------------- victory

def _points_by_player(payload: Payload, key: str) -> dict[str, int] | None:
    if payload.get(key) is None:
        return None
    data = get_obj(payload, key)
    return {str(name): get_int(data, str(name), key) for name in data}


def miniatures_victory(payload: Payload, dice: Dice) -> dict[str, Any]:
    """Victory points needed for a game size; with ``scores``, the end-of-round check."""
    size = get_int(payload, "game_size", minimum=1, maximum=1000)
    out: dict[str, Any] = {"engine": "miniatures-victory", "game_size": size,
                           "victory_points_needed": victory_points_to_win(size)}
    scores = _points_by_player(payload, "scores")
    if scores is not None:
        check = check_victory(
            scores, army_points=size,
            round_number=get_int(payload, "round", minimum=1, maximum=LAST_ROUND),
            units_left=_points_by_player(payload, "units_left"),
            battlefield_points=_points_by_player(payload, "battlefield_points"))
        out["check"] = {"outcome": check.outcome.value, "reason": check.reason.value,
                        "winner": check.winner, "eliminated": list(check.eliminated)}
    return out
