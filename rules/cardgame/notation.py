"""The card game's command notation: ``!challenge`` text read into a request (syntax only),
and the two-player game and declaration it describes.

``format_challenge(parse_challenge(text))`` gives back the canonical spelling and
``parse_challenge(format_challenge(request)) == request``. Text that cannot be read raises
:class:`rules.errors.NotationError` with the syntax and an example; the player's own words in
the message are kept apart (``quoted``) so whoever shows it can make them inert.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.cardgame.model import (
    ChallengeDeclaration,
    ChallengeType,
    Character,
    GameState,
    Player,
    StealthTarget,
)
from rules.errors import NotationError

ATTACKER = "Attacker"
DEFENDER = "Defender"
EXAMPLE = "!challenge military attackers Jaime 4 mil, Bronn 2 mil vs defenders Ned 3 mil claim 1"
SYNTAX = (
    "`!challenge TYPE attackers NAME STR [icons] [stealth [on TARGET]] [renown], ... "
    "vs defenders NAME STR ... [claim N] [hand N] [power N] [kill NAME, ...] [rivals]`"
)

_TYPES: dict[str, ChallengeType] = {
    "military": ChallengeType.MILITARY, "mil": ChallengeType.MILITARY,
    "m": ChallengeType.MILITARY,
    "intrigue": ChallengeType.INTRIGUE, "int": ChallengeType.INTRIGUE,
    "i": ChallengeType.INTRIGUE,
    "power": ChallengeType.POWER, "pow": ChallengeType.POWER, "p": ChallengeType.POWER,
}
_ICON_WORDS = _TYPES
_SHORT = {ChallengeType.MILITARY: "mil", ChallengeType.INTRIGUE: "int",
          ChallengeType.POWER: "pow"}

_VS = re.compile(r"(?i)\s+(?:vs\.?|versus|against)(?:\s+|$)")
_CLAUSE = re.compile(r"(?i)(?:^|(?<=[\s,]))(claim|hand|kills?|rivals?|power(?=\s+\d))\b")
_SPLIT = re.compile(r"(?i)\s*(?:,|;|&|\band\b)\s*")
_ATTACK_LEAD = re.compile(r"(?i)^(?:attackers?|attacking|atk|with)\b[:\s]*")
_DEFEND_LEAD = re.compile(r"(?i)^(?:defenders?|defending|def)\b[:\s]*")
_NOBODY = re.compile(r"(?i)^(?:no\s+defenders?|nobody|no\s*one|none|nothing|-|unopposed)$")
_NUMBER = re.compile(r"(?i)^(?:str)?(\d{1,3})(?:str)?$")
_TARGET_LEAD = frozenset({"on", "past", "->", ">", "targeting"})


@dataclass(frozen=True, slots=True)
class CharacterSpec:
    """A character as typed: ``icons`` is ``None`` when none were written (assume the type's)."""

    name: str
    strength: int
    icons: frozenset[ChallengeType] | None = None
    stealth: bool = False
    renown: bool = False
    stealth_target: str | None = None


@dataclass(frozen=True, slots=True)
class ChallengeRequest:
    """One ``!challenge`` command, parsed but not yet checked against the rules.

    ``hand`` (cards in the defender's hand) and ``power`` (power on the defender's faction
    card) are ``None`` when not given; ``kills`` is ``None`` when the defender has not chosen.
    ``rivals`` makes it a melee in which each player's title is a Rival on the other's.
    """

    challenge_type: ChallengeType
    attackers: tuple[CharacterSpec, ...]
    defenders: tuple[CharacterSpec, ...] = ()
    claim: int = 1
    hand: int | None = None
    power: int | None = None
    kills: tuple[str, ...] | None = None
    rivals: bool = False


def _error(template: str, *quoted: str, expected: str = SYNTAX) -> NotationError:
    return NotationError(template, *quoted, syntax=expected, example=EXAMPLE)


def _parse_count(word: str, raw: str) -> int:
    text = raw.strip()
    if not re.fullmatch(r"\d{1,3}", text):
        raise _error(f"`{word}` needs a whole number, not “{{}}”", text,
                     expected=f"`{word} N`, e.g. `{word} 2`")
    return int(text)


def _parse_character(text: str, side: str) -> CharacterSpec:
    words = text.split()
    index = next((i for i, w in enumerate(words) if _NUMBER.match(w)), None)
    if index is None:
        raise _error(f"{side} “{{}}” has no STR", text,
                     expected="each character as NAME STR, e.g. `Jaime 4 mil`")
    name_words = words[:index]
    if name_words and name_words[-1].lower() == "str":
        name_words = name_words[:-1]
    if not name_words:
        raise _error(f"a {side} with STR {{}} has no name", words[index],
                     expected="each character as NAME STR, e.g. `Jaime 4 mil`")
    match = _NUMBER.match(words[index])
    assert match is not None
    strength = int(match.group(1))
    icons: set[ChallengeType] = set()
    stealth = renown = False
    target: str | None = None
    rest = words[index + 1:]
    position = 0
    while position < len(rest):
        word = rest[position].lower().strip("()")
        if word in _ICON_WORDS:
            icons.add(_ICON_WORDS[word])
        elif word == "renown":
            renown = True
        elif word == "stealth":
            stealth = True
            if position + 1 < len(rest) and rest[position + 1].lower() in _TARGET_LEAD:
                target = " ".join(rest[position + 2:])
                if not target:
                    raise _error("{}'s stealth names no target", " ".join(name_words),
                                 expected="`stealth on NAME`, e.g. `Arya 2 int stealth on "
                                 "Syrio`")
                break
        else:
            raise _error(
                "“{}” after {}'s STR is not an icon or keyword", rest[position],
                " ".join(name_words),
                expected="icons `mil`, `int`, `pow`; keywords `stealth`, `stealth on NAME`, "
                "`renown`; put `claim`, `hand`, `power`, `kill` at the end",
            )
        position += 1
    return CharacterSpec(" ".join(name_words), strength, frozenset(icons) or None, stealth,
                         renown, target)


def _parse_side(text: str, side: str) -> tuple[CharacterSpec, ...]:
    parts = [p for p in _SPLIT.split(text.strip()) if p.strip()]
    return tuple(_parse_character(p, side) for p in parts)


def parse_challenge(text: str) -> ChallengeRequest:
    """Parse the text after ``!challenge`` (syntax only). Raises :class:`NotationError`."""
    body = " ".join(text.split())
    if not body:
        raise _error("say which challenge: military, intrigue or power, and who attacks")
    first, _, body = body.partition(" ")
    kind = _TYPES.get(first.lower())
    if kind is None:
        raise _error("“{}” is not a challenge type", first,
                     expected="military, intrigue or power (or mil, int, pow) first")
    vs = _VS.search(" " + body)
    if vs is None:
        attack_text, tail = "", body
    else:
        attack_text = (" " + body)[: vs.start()].strip()
        tail = (" " + body)[vs.end():].strip()
    clauses = list(_CLAUSE.finditer(tail))
    head = tail[: clauses[0].start()].strip() if clauses else tail
    if vs is None:
        attack_text, defend_text = head, ""
    else:
        defend_text = head
    attack_text = _ATTACK_LEAD.sub("", attack_text.strip())
    defend_text = _DEFEND_LEAD.sub("", defend_text.strip())
    attackers = _parse_side(attack_text, "attacker")
    if not attackers:
        raise _error("no attackers: at least one character must attack")
    defenders = () if _NOBODY.match(defend_text) or not defend_text else _parse_side(
        defend_text, "defender")

    claim, hand, power, kills, rivals = 1, None, None, None, False
    for number, clause in enumerate(clauses):
        end = clauses[number + 1].start() if number + 1 < len(clauses) else len(tail)
        word = clause.group(1).lower()
        value = tail[clause.end():end].strip().strip(",").strip()
        if word == "claim":
            claim = _parse_count("claim", value)
        elif word == "hand":
            hand = _parse_count("hand", value)
        elif word == "power":
            power = _parse_count("power", value)
        elif word.startswith("kill"):
            names = tuple(n.strip() for n in _SPLIT.split(value) if n.strip())
            if not names:
                raise _error("`kill` names nobody", expected="`kill NAME, NAME`, e.g. `kill Ned`")
            kills = names
        else:
            if value:
                raise _error("`rivals` takes nothing after it, not “{}”", value,
                             expected="`rivals` on its own")
            rivals = True
    return ChallengeRequest(kind, attackers, defenders, claim, hand, power, kills, rivals)


def _format_character(spec: CharacterSpec) -> str:
    words = [spec.name, str(spec.strength)]
    if spec.icons:
        words.extend(_SHORT[t] for t in ChallengeType if t in spec.icons)
    if spec.renown:
        words.append("renown")
    if spec.stealth:
        words.append("stealth")
        if spec.stealth_target is not None:
            words.extend(["on", spec.stealth_target])
    return " ".join(words)


def format_challenge(request: ChallengeRequest) -> str:
    """The canonical command text for ``request`` (what :func:`parse_challenge` reads back)."""
    parts = [request.challenge_type.value, "attackers",
             ", ".join(_format_character(s) for s in request.attackers), "vs"]
    if request.defenders:
        parts.extend(["defenders", ", ".join(_format_character(s) for s in request.defenders)])
    else:
        parts.append("no defenders")
    parts.append(f"claim {request.claim}")
    if request.hand is not None:
        parts.append(f"hand {request.hand}")
    if request.power is not None:
        parts.append(f"power {request.power}")
    if request.kills is not None:
        parts.append("kill " + ", ".join(request.kills))
    if request.rivals:
        parts.append("rivals")
    return " ".join(parts)


def _character(spec: CharacterSpec, kind: ChallengeType) -> Character:
    icons = spec.icons if spec.icons is not None else frozenset({kind})
    return Character(spec.name, spec.strength, icons, stealth=spec.stealth, renown=spec.renown)


def _unique(characters: list[Character]) -> tuple[Character, ...]:
    # A name typed twice is one character declared twice: the engine reports that rule.
    seen: dict[str, Character] = {}
    for character in characters:
        seen.setdefault(character.name, character)
    return tuple(seen.values())


def _canonical(name: str, known: dict[str, str]) -> str:
    return known.get(name.lower(), name)


def build_game(request: ChallengeRequest) -> tuple[GameState, ChallengeDeclaration]:
    """A two-player game holding the request's characters, and the matching declaration.

    Characters named only as stealth targets or as claim victims join the defender's play
    area (standing, STR 0, no icons): they matter for who may defend and who may be killed,
    not for STR. Names are matched to declared defenders case-insensitively.
    """
    kind = request.challenge_type
    defenders = [_character(s, kind) for s in request.defenders]
    known = {c.name.lower(): c.name for c in defenders}
    extras: list[str] = []
    mentioned = [s.stealth_target for s in request.attackers if s.stealth_target is not None]
    mentioned.extend(request.kills or ())
    for name in mentioned:
        if name.lower() not in known:
            known[name.lower()] = name
            extras.append(name)
    defenders.extend(Character(name, 0) for name in extras)
    title_a, title_d = f"{ATTACKER}'s title", f"{DEFENDER}'s title"
    attacker = Player(
        ATTACKER,
        characters=_unique([_character(s, kind) for s in request.attackers]),
        title=title_a if request.rivals else None,
        rivals=frozenset({title_d}) if request.rivals else frozenset(),
    )
    defender = Player(
        DEFENDER,
        power=request.power or 0,
        hand=tuple(f"card {n}" for n in range(1, (request.hand or 0) + 1)),
        characters=_unique(defenders),
        title=title_d if request.rivals else None,
        rivals=frozenset({title_a}) if request.rivals else frozenset(),
    )
    declaration = ChallengeDeclaration(
        kind,
        attackers=tuple(s.name for s in request.attackers),
        defenders=tuple(s.name for s in request.defenders),
        stealth_targets=tuple(
            StealthTarget(s.name, _canonical(s.stealth_target, known))
            for s in request.attackers if s.stealth_target is not None
        ),
        claim=request.claim,
        kills=(tuple(_canonical(n, known) for n in request.kills)
               if request.kills is not None else None),
    )
    return GameState((attacker, defender), ATTACKER, melee=request.rivals), declaration
