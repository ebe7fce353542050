"""``maester rules boardgame-combat``: one combat of A Game of Thrones: The Board Game as JSON.

The payload is either ``{"text": "<the !combat syntax>"}`` or the structured form (two sides,
the area, supports, tracks, retreat areas); the reply gives every strength source, the victor,
casualties, the retreat, clean-up and both hands. Combat needs no dice: ``"dice"``/``"seed"``
are accepted (the standard shape) and ignored. Documented with a worked example in
``docs/engines/boardgame.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.jsonapi import Payload
from bot.jsonapi.fields import get_bool, get_int, get_list, get_obj, get_str
from rules.boardgame.cards import find_card
from rules.boardgame.combat import CombatResult, SideResult, Strength, resolve_combat
from rules.boardgame.model import (
    NO_UNITS,
    AreaKind,
    Combatant,
    CombatSetup,
    House,
    HouseCard,
    Order,
    OrderKind,
    RetreatArea,
    Structure,
    Support,
    SupportTo,
    Track,
    Units,
    Upgrade,
    custom_card,
    parse_house,
)
from rules.boardgame.notation import format_setup, parse_setup
from rules.dice import Dice
from rules.errors import InvalidInput

_UNIT_KINDS = ("footmen", "knights", "ships", "siege_engines")


def _path(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def read_units(data: Mapping[str, Any], key: str, prefix: str = "") -> Units:
    """``{"footmen": 2, "knights": 1}``; missing kinds are 0, unknown kinds are refused."""
    obj = get_obj(data, key, prefix, default={})
    path = _path(prefix, key)
    unknown = sorted(str(k) for k in set(obj) - set(_UNIT_KINDS))
    if unknown:  # the runner refuses them first; the bot's own callers rely on this check
        raise InvalidInput(f"{path}.{unknown[0]}", "is not a kind of unit",
                           "footmen, knights, ships, siege_engines")
    return Units(**{k: get_int(obj, k, path, default=0, maximum=99) for k in _UNIT_KINDS})


def _house(data: Mapping[str, Any], key: str, prefix: str) -> House:
    return parse_house(get_str(data, key, prefix), _path(prefix, key))


def _card(data: Mapping[str, Any], key: str, prefix: str, house: House | None
          ) -> HouseCard | None:
    path = _path(prefix, key)
    if key not in data or data[key] is None:
        return None
    value = data[key]
    if isinstance(value, str):
        return find_card(value, house, path)
    if isinstance(value, Mapping):
        return custom_card(
            get_int(value, "strength", path, maximum=20),
            get_int(value, "swords", path, default=0, maximum=20),
            get_int(value, "fortifications", path, default=0, maximum=20),
        )
    raise InvalidInput(path, f"must be a card name or numbers, not {value!r}",
                       '"Tywin Lannister" or {"strength": 3, "swords": 1, "fortifications": 0}')


def _order(data: Mapping[str, Any], prefix: str) -> Order | None:
    if data.get("order") is None:
        return None
    obj = get_obj(data, "order", prefix)
    path = _path(prefix, "order")
    kind = OrderKind(get_str(obj, "kind", path, choices=[k.value for k in OrderKind]))
    bonus = get_int(obj, "bonus", path, default=1 if kind is OrderKind.DEFENSE else 0,
                    minimum=-1, maximum=2)
    try:
        return Order(kind, bonus)
    except InvalidInput as exc:
        raise InvalidInput(f"{path}.bonus", exc.message, exc.expected) from None


def _side(payload: Payload, key: str, opponent_key: str) -> Combatant:
    data = get_obj(payload, key)
    house = _house(data, "house", key)
    opponent = get_obj(payload, opponent_key)
    opponent_house = _house(opponent, "house", opponent_key)
    discard = tuple(
        find_card(_text(name, f"{key}.discard[{i}]"), house, f"{key}.discard[{i}]")
        for i, name in enumerate(get_list(data, "discard", key, default=[]))
    )
    track = (get_str(data, "doran_track", key, choices=[t.value for t in Track])
             if data.get("doran_track") is not None else None)
    card = _card(data, "card", key, house)
    if card is None:
        raise InvalidInput(f"{key}.card", "is required: playing a House card is mandatory",
                           '"Tywin Lannister" or {"strength": 3, "swords": 1, '
                           '"fortifications": 0}')
    power = data.get("power_tokens")
    return Combatant(
        house=house,
        units=read_units(data, "units", key),
        card=card,
        routed=read_units(data, "routed", key) if "routed" in data else NO_UNITS,
        order=_order(data, key),
        replacement=_card(data, "replacement", key, house),
        discard=discard,
        cancel_opponent_card=get_bool(data, "cancel_opponent_card", key, default=False),
        queen_removes=(get_str(data, "queen_removes", key) if data.get("queen_removes")
                       else None),
        doran_track=Track(track) if track else None,
        upgrade=Upgrade(get_str(data, "upgrade", key, default="auto",
                                choices=[u.value for u in Upgrade])),
        patchface_discard=_card(data, "patchface_discard", key, opponent_house),
        power_tokens=None if power is None else get_int(data, "power_tokens", key),
        use_blade=get_bool(data, "use_blade", key, default=True),
    )


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(path, f"must be a string, not {value!r}", "a card name")
    return value


def _houses(payload: Payload, key: str) -> tuple[House, ...]:
    return tuple(
        parse_house(_text(v, f"{key}[{i}]"), f"{key}[{i}]")
        for i, v in enumerate(get_list(payload, key, default=[]))
    )


def read_setup(payload: Payload) -> CombatSetup:
    """The :class:`CombatSetup` a payload describes (``text`` or the structured fields).

    Raises :class:`InvalidInput` naming the dotted field that is missing or malformed.
    """
    if payload.get("text") is not None:
        return parse_setup(get_str(payload, "text"))
    supports = []
    for i, raw in enumerate(get_list(payload, "supports", default=[])):
        path = f"supports[{i}]"
        if not isinstance(raw, Mapping):
            raise InvalidInput(path, "must be an object", '{"house": "Baratheon", ...}')
        try:
            supports.append(Support(
                house=_house(raw, "house", path),
                units=read_units(raw, "units", path),
                to=SupportTo(get_str(raw, "to", path, choices=[t.value for t in SupportTo])),
                bonus=get_int(raw, "bonus", path, default=0, maximum=1),
                label=get_str(raw, "label", path, default=""),
            ))
        except InvalidInput as exc:
            if exc.field.startswith("support."):
                raise InvalidInput(f"{path}.{exc.field.split('.', 1)[1]}", exc.message,
                                   exc.expected) from None
            raise
    areas: tuple[RetreatArea, ...] | None = None
    if payload.get("retreat_areas") is not None:
        found = []
        for i, raw in enumerate(get_list(payload, "retreat_areas")):
            path = f"retreat_areas[{i}]"
            if not isinstance(raw, Mapping):
                raise InvalidInput(path, "must be an object", '{"name": "Riverrun", ...}')
            max_army = raw.get("max_army")
            found.append(RetreatArea(
                name=get_str(raw, "name", path),
                kind=AreaKind(get_str(raw, "kind", path, default="land",
                                      choices=[k.value for k in AreaKind])),
                enemy=get_bool(raw, "enemy", path, default=False),
                friendly_units=get_int(raw, "friendly_units", path, default=0, maximum=99),
                max_army=None if max_army is None else get_int(raw, "max_army", path,
                                                               maximum=99),
                origin=get_bool(raw, "origin", path, default=False),
                by_transport=get_bool(raw, "by_transport", path, default=False),
            ))
        areas = tuple(found)
    holder = payload.get("blade_holder")
    return CombatSetup(
        attacker=_side(payload, "attacker", "defender"),
        defender=_side(payload, "defender", "attacker"),
        area=AreaKind(get_str(payload, "area", default="land",
                              choices=[k.value for k in AreaKind])),
        structure=Structure(get_str(payload, "structure", default="none",
                                    choices=[s.value for s in Structure])),
        garrison=get_int(payload, "garrison", default=0, maximum=10),
        supports=tuple(supports),
        blade_holder=None if holder is None else _house(payload, "blade_holder", ""),
        blade_available=get_bool(payload, "blade_available", default=True),
        fiefdoms=_houses(payload, "fiefdoms"),
        iron_throne=_houses(payload, "iron_throne"),
        defender_power_token=get_bool(payload, "defender_power_token", default=False),
        retreat_areas=areas,
        retreat_to=get_str(payload, "retreat_to") if payload.get("retreat_to") else None,
        casualties=read_units(payload, "casualties") if payload.get("casualties") is not None
        else None,
    )


def units_json(units: Units) -> dict[str, int]:
    """Units as ``{"footmen": 1, "knights": 0, "ships": 0, "siege_engines": 0}``."""
    return {k: getattr(units, k) for k in _UNIT_KINDS}


def _card_json(card: HouseCard | None) -> dict[str, Any] | None:
    if card is None:
        return None
    return {"name": card.name, "house": card.house.value if card.house else None,
            "strength": card.strength, "swords": card.swords,
            "fortifications": card.fortifications,
            "ability": card.ability.value if card.ability else None}


def _strength_json(s: Strength) -> dict[str, int]:
    return {"units": s.units, "support": s.support, "order": s.order, "garrison": s.garrison,
            "announced": s.announced, "initial": s.initial, "card": s.card,
            "card_bonus": s.card_bonus, "blade": s.blade, "total": s.total, "final": s.final}


def _side_json(side: SideResult) -> dict[str, Any]:
    piles = side.piles
    return {
        "house": side.house.value,
        "card": _card_json(side.card),
        "cards_revealed": [c.name for c in side.cards_revealed],
        "strength": _strength_json(side.strength),
        "swords": side.swords,
        "fortifications": side.fortifications,
        "units": units_json(side.units),
        "destroyed_by_card": units_json(side.destroyed_by_card),
        "casualties": units_json(side.casualties),
        "destroyed_retreating": units_json(side.destroyed_retreating),
        "routed_destroyed": units_json(side.routed_destroyed),
        "survivors": units_json(side.survivors),
        "survivors_routed": side.survivors_routed,
        "upgrade": side.upgrade.value,
        "power_gained": side.power_gained,
        "power_spent": side.power_spent,
        "hand": list(piles.hand) if piles else None,
        "discard": list(piles.discard) if piles else None,
        "hand_refreshed": piles.refreshed if piles else None,
    }


def result_json(result: CombatResult, setup: CombatSetup) -> dict[str, Any]:
    """The JSON answer for ``result`` (see docs/engines/boardgame.md)."""
    retreat = result.retreat
    cleanup = result.cleanup
    return {
        "outcome": result.outcome.value,
        "decided_by": result.decided_by.value,
        "winner": result.winner.house.value,
        "loser": result.loser.house.value,
        "attacker": _side_json(result.attacker),
        "defender": _side_json(result.defender),
        "supports": [
            {"label": s.label, "house": s.support.house.value, "units": units_json(s.support.units),
             "bonus": s.support.bonus, "to": s.support.to.value,
             "counted_for": s.counted_for.value, "strength": s.strength, "note": s.note}
            for s in result.supports
        ],
        "casualties": {"required": result.casualties, "taken": result.casualties_taken},
        "retreat": {
            "role": retreat.role.value,
            "status": retreat.status.value,
            "units": units_json(retreat.units),
            "area": retreat.area,
            "options": [{"name": o.name, "losses": o.losses} for o in retreat.options],
            "chosen_by": retreat.chosen_by.value if retreat.chosen_by else None,
            "supply_losses": units_json(retreat.supply_losses),
        },
        "cleanup": {
            "march_order": cleanup.march_order.value,
            "defender_order_removed": cleanup.defender_order_removed,
            "defender_power_token_removed": cleanup.defender_power_token_removed,
            "support_orders_kept": list(cleanup.support_orders_kept),
            "attacker_moves_in": cleanup.attacker_moves_in,
            "garrison_after": cleanup.garrison_after,
            "garrison_removed": cleanup.garrison_removed,
        },
        "blade_used": result.blade_used,
        "effects": list(result.effects),
        "setup": format_setup(setup),
    }


def boardgame_combat(payload: Payload, dice: Dice) -> dict[str, Any]:
    """Resolve the combat ``payload`` describes; raise :class:`InvalidInput` when it cannot."""
    del dice  # board game combat is decided without dice
    setup = read_setup(payload)
    return result_json(resolve_combat(setup), setup)
