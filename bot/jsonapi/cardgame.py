"""``maester rules card-challenge``: one challenge of A Game of Thrones: The Card Game as JSON.

The payload describes the table (players with their characters, power, hand, titles) and the
declaration (type, attackers, defenders, stealth targets, claim...); the reply gives the
outcome and the table afterwards. ``"dice"`` scripts the random discards of an intrigue claim:
each value picks a card by its position among the cards still in hand (a d<hand size>). The
format is documented, with a worked example, in ``docs/engines/cardgame.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.jsonapi import Payload
from bot.jsonapi.fields import get_bool, get_int, get_list, get_obj, get_str
from rules.cardgame import (
    ChallengeDeclaration,
    ChallengeResult,
    ChallengeType,
    Character,
    GameState,
    IllegalChallenge,
    IllegalReason,
    KillChoiceNeeded,
    Player,
    StealthTarget,
    resolve_challenge,
)
from rules.dice import Dice
from rules.errors import BadDie, InvalidInput

_TYPES = tuple(t.value for t in ChallengeType)

# Which payload field an illegal declaration points at, so the error names where to look.
_FIELD: dict[IllegalReason, str] = {
    IllegalReason.ALREADY_INITIATED: "challenge",
    IllegalReason.UNKNOWN_OPPONENT: "opponent",
    IllegalReason.OPPONENT_REQUIRED: "opponent",
    IllegalReason.NO_ATTACKERS: "attackers",
    IllegalReason.UNKNOWN_ATTACKER: "attackers",
    IllegalReason.DUPLICATE_ATTACKER: "attackers",
    IllegalReason.ATTACKER_KNEELING: "attackers",
    IllegalReason.ATTACKER_LACKS_ICON: "attackers",
    IllegalReason.STEALTH_NOT_ATTACKING: "stealth",
    IllegalReason.NO_STEALTH_KEYWORD: "stealth",
    IllegalReason.STEALTH_TARGET_TWICE: "stealth",
    IllegalReason.UNKNOWN_STEALTH_TARGET: "stealth",
    IllegalReason.STEALTH_TARGET_HAS_STEALTH: "stealth",
    IllegalReason.UNKNOWN_DEFENDER: "defenders",
    IllegalReason.DUPLICATE_DEFENDER: "defenders",
    IllegalReason.DEFENDER_KNEELING: "defenders",
    IllegalReason.DEFENDER_LACKS_ICON: "defenders",
    IllegalReason.DEFENDER_IS_STEALTH_TARGET: "defenders",
    IllegalReason.REMOVED_NOT_PARTICIPATING: "removed",
    IllegalReason.UNKNOWN_KILL: "kills",
    IllegalReason.DUPLICATE_KILL: "kills",
}


def _names(data: Mapping[str, Any], key: str, prefix: str = "") -> tuple[str, ...]:
    path = f"{prefix}.{key}" if prefix else key
    out = []
    for index, item in enumerate(get_list(data, key, prefix, default=[])):
        if not isinstance(item, str) or not item.strip():
            raise InvalidInput(f"{path}[{index}]", f"must be a name, not {item!r}", "a string")
        out.append(item)
    return tuple(out)


def _cards(data: Mapping[str, Any], key: str, prefix: str, label: str) -> tuple[str, ...]:
    """A pile given as a list of card names or as a count (cards then named by position)."""
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        count = get_int(data, key, prefix, maximum=500)
        return tuple(f"{label} {n}" for n in range(1, count + 1))
    return _names(data, key, prefix)


def _icons(data: Mapping[str, Any], prefix: str) -> frozenset[ChallengeType]:
    icons = set()
    for index, item in enumerate(get_list(data, "icons", prefix, default=[])):
        if not isinstance(item, str) or item.strip().lower() not in _TYPES:
            raise InvalidInput(f"{prefix}.icons[{index}]", f"{item!r} is not an icon",
                               "military, intrigue or power")
        icons.add(ChallengeType(item.strip().lower()))
    return frozenset(icons)


def _character(data: Any, prefix: str) -> Character:
    if not isinstance(data, Mapping):
        raise InvalidInput(prefix, "must be an object", '{"name": ..., "str": ...}')
    return Character(
        name=get_str(data, "name", prefix),
        strength=get_int(data, "str", prefix),
        icons=_icons(data, prefix),
        kneeling=get_bool(data, "kneeling", prefix, default=False),
        stealth=get_bool(data, "stealth", prefix, default=False),
        renown=get_bool(data, "renown", prefix, default=False),
        power=get_int(data, "power", prefix, default=0),
    )


def _player(data: Any, prefix: str) -> Player:
    if not isinstance(data, Mapping):
        raise InvalidInput(prefix, "must be an object", '{"name": ..., "characters": [...]}')
    initiated = set()
    for index, item in enumerate(get_list(data, "challenges_initiated", prefix, default=[])):
        if not isinstance(item, str) or item.strip().lower() not in _TYPES:
            raise InvalidInput(f"{prefix}.challenges_initiated[{index}]",
                               f"{item!r} is not a challenge type", "military, intrigue or power")
        initiated.add(ChallengeType(item.strip().lower()))
    characters = tuple(
        _character(c, f"{prefix}.characters[{i}]")
        for i, c in enumerate(get_list(data, "characters", prefix, default=[]))
    )
    names = [c.name for c in characters]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise InvalidInput(f"{prefix}.characters[{index}].name", f"{name!r} appears twice",
                               "each character once per player")
    title = data.get("title")
    if title is not None and (not isinstance(title, str) or not title.strip()):
        raise InvalidInput(f"{prefix}.title", f"must be a title's name, not {title!r}")
    return Player(
        name=get_str(data, "name", prefix),
        power=get_int(data, "power", prefix, default=0),
        hand=_cards(data, "hand", prefix, "card"),
        deck=_cards(data, "deck", prefix, "deck card"),
        characters=characters,
        discard_pile=_names(data, "discard_pile", prefix),
        dead_pile=_names(data, "dead_pile", prefix),
        challenges_initiated=frozenset(initiated),
        title=title,
        rivals=frozenset(_names(data, "rivals", prefix)),
        rivals_claimed=frozenset(_names(data, "rivals_claimed", prefix)),
    )


def read_game(payload: Payload) -> GameState:
    """The table described by ``payload`` (players, active player, melee)."""
    raw = get_list(payload, "players")
    players = tuple(_player(p, f"players[{i}]") for i, p in enumerate(raw))
    if not players:
        raise InvalidInput("players", "is empty", "at least two players")
    active = get_str(payload, "active", default=players[0].name)
    melee = get_bool(payload, "melee", default=len(players) > 2)
    return GameState(players, active, melee)


def read_declaration(payload: Payload) -> ChallengeDeclaration:
    """The challenge declared in ``payload``."""
    stealth = []
    for index, item in enumerate(get_list(payload, "stealth", default=[])):
        prefix = f"stealth[{index}]"
        if not isinstance(item, Mapping):
            raise InvalidInput(prefix, "must be an object", '{"attacker": ..., "target": ...}')
        stealth.append(StealthTarget(get_str(item, "attacker", prefix),
                                     get_str(item, "target", prefix)))
    modifiers = get_obj(payload, "modifiers", default={})
    opponent = payload.get("opponent")
    if opponent is not None and not isinstance(opponent, str):
        raise InvalidInput("opponent", f"must be a player's name, not {opponent!r}")
    return ChallengeDeclaration(
        challenge_type=ChallengeType(get_str(payload, "challenge", choices=_TYPES)),
        attackers=_names(payload, "attackers"),
        defenders=_names(payload, "defenders"),
        opponent=opponent,
        stealth_targets=tuple(stealth),
        claim=get_int(payload, "claim", default=1),
        attacker_modifier=get_int(modifiers, "attacker", "modifiers", default=0, minimum=None),
        defender_modifier=get_int(modifiers, "defender", "modifiers", default=0, minimum=None),
        removed=_names(payload, "removed"),
        kills=_names(payload, "kills") if payload.get("kills") is not None else None,
    )


def _character_json(character: Character) -> dict[str, Any]:
    return {
        "name": character.name,
        "str": character.strength,
        "icons": [t.value for t in ChallengeType if t in character.icons],
        "kneeling": character.kneeling,
        "stealth": character.stealth,
        "renown": character.renown,
        "power": character.power,
    }


def _player_json(player: Player) -> dict[str, Any]:
    return {
        "name": player.name,
        "power": player.power,
        "total_power": player.total_power,
        "hand": list(player.hand),
        "deck": list(player.deck),
        "characters": [_character_json(c) for c in player.characters],
        "discard_pile": list(player.discard_pile),
        "dead_pile": list(player.dead_pile),
        "challenges_initiated": [t.value for t in ChallengeType
                                 if t in player.challenges_initiated],
        "title": player.title,
        "rivals": sorted(player.rivals),
        "rivals_claimed": sorted(player.rivals_claimed),
    }


def result_json(result: ChallengeResult) -> dict[str, Any]:
    """``result`` as a JSON-ready dict (the discard dice come as the runner's ``rolls``)."""
    claim: dict[str, Any] | None = None
    if result.claim is not None:
        c = result.claim
        claim = {
            "type": c.challenge_type.value,
            "value": c.value,
            "applied": c.applied,
            "killed": list(c.killed),
            "kills_owed": c.kills_owed,
            "discarded": list(c.discarded),
            "power_moved": c.power_moved,
        }
    return {
        "outcome": result.outcome.value,
        "winner": result.winner,
        "loser": result.loser,
        "challenge": result.challenge_type.value,
        "attacking_player": result.attacking_player,
        "defending_player": result.defending_player,
        "attackers": list(result.attackers),
        "defenders": list(result.defenders),
        "knelt": list(result.knelt),
        "stealth": [{"attacker": s.attacker, "target": s.target}
                    for s in result.stealth_targets],
        "strength": {"attacker": result.attacking_strength,
                     "defender": result.defending_strength},
        "unopposed": result.unopposed,
        "bonuses": {"unopposed": result.unopposed_bonus, "rivals": result.rivals_bonus,
                    "rival_defeated": result.rival_defeated},
        "renown": list(result.renown),
        "claim": claim,
        "players": [_player_json(p) for p in result.state.players],
    }


def card_challenge(payload: Payload, dice: Dice) -> dict[str, Any]:
    """Resolve the challenge described by ``payload``; raise :class:`InvalidInput` if illegal."""
    state = read_game(payload)
    declaration = read_declaration(payload)
    try:
        result = resolve_challenge(state, declaration, dice=dice)
    except IllegalChallenge as err:
        raise InvalidInput(_FIELD[err.reason], f"illegal challenge ({err.reason.value}): {err}",
                           "a declaration the rules allow") from err
    except KillChoiceNeeded as err:
        raise InvalidInput("kills", str(err), f"at least {err.owed} names") from err
    except BadDie as err:
        raise InvalidInput(f"dice[{err.index}]", f"{err.value} is not a possible d{err.sides} "
                           f"result for {err.purpose}", f"1-{err.sides}") from err
    return result_json(result)
