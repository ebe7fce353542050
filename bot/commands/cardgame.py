"""``!challenge``: resolve one challenge of A Game of Thrones: The Card Game (2nd edition).

The command text is parsed into a :class:`ChallengeRequest` (syntax only), turned into a two
player game and a declaration, and handed to :func:`rules.cardgame.resolve_challenge`, which
checks legality. ``format_challenge(parse_challenge(text))`` gives back the canonical spelling
and ``parse_challenge(format_challenge(request)) == request``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.commands.registry import CommandContext, CommandError, command
from bot.text import escape_md
from rules.cardgame import (
    ChallengeDeclaration,
    ChallengeOutcome,
    ChallengeResult,
    ChallengeType,
    Character,
    GameState,
    IllegalChallenge,
    KillChoiceNeeded,
    Player,
    StealthTarget,
    resolve_challenge,
)
from rules.errors import RulesError

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


def _error(problem: str, expected: str = SYNTAX) -> CommandError:
    return CommandError(problem, expected, EXAMPLE)


def _parse_count(word: str, raw: str) -> int:
    text = raw.strip()
    if not re.fullmatch(r"\d{1,3}", text):
        raise _error(f"`{word}` needs a whole number, not “{escape_md(text, 40)}”",
                     f"`{word} N`, e.g. `{word} 2`")
    return int(text)


def _parse_character(text: str, side: str) -> CharacterSpec:
    words = text.split()
    index = next((i for i, w in enumerate(words) if _NUMBER.match(w)), None)
    if index is None:
        raise _error(f"{side} “{escape_md(text, 60)}” has no STR",
                     "each character as NAME STR, e.g. `Jaime 4 mil`")
    name_words = words[:index]
    if name_words and name_words[-1].lower() == "str":
        name_words = name_words[:-1]
    if not name_words:
        raise _error(f"a {side} with STR {words[index]} has no name",
                     "each character as NAME STR, e.g. `Jaime 4 mil`")
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
                    raise _error(f"{escape_md(' '.join(name_words))}'s stealth names no target",
                                 "`stealth on NAME`, e.g. `Arya 2 int stealth on Syrio`")
                break
        else:
            raise _error(
                f"“{escape_md(rest[position], 40)}” after {escape_md(' '.join(name_words))}'s "
                "STR is not an icon or keyword",
                "icons `mil`, `int`, `pow`; keywords `stealth`, `stealth on NAME`, `renown`; "
                "put `claim`, `hand`, `power`, `kill` at the end",
            )
        position += 1
    return CharacterSpec(" ".join(name_words), strength, frozenset(icons) or None, stealth,
                         renown, target)


def _parse_side(text: str, side: str) -> tuple[CharacterSpec, ...]:
    parts = [p for p in _SPLIT.split(text.strip()) if p.strip()]
    return tuple(_parse_character(p, side) for p in parts)


def parse_challenge(text: str) -> ChallengeRequest:
    """Parse the text after ``!challenge`` (syntax only). Raises :class:`CommandError`."""
    body = " ".join(text.split())
    if not body:
        raise _error("say which challenge: military, intrigue or power, and who attacks")
    first, _, body = body.partition(" ")
    kind = _TYPES.get(first.lower())
    if kind is None:
        raise _error(f"“{escape_md(first, 40)}” is not a challenge type",
                     "military, intrigue or power (or mil, int, pow) first")
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
                raise _error("`kill` names nobody", "`kill NAME, NAME`, e.g. `kill Ned`")
            kills = names
        else:
            if value:
                raise _error(f"`rivals` takes nothing after it, not “{escape_md(value, 40)}”",
                             "`rivals` on its own")
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


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(escape_md(n) for n in names) if names else "nobody"


def _roster(result: ChallengeResult, request: ChallengeRequest, attacking: bool) -> str:
    specs = request.attackers if attacking else request.defenders
    present = set(result.attackers if attacking else result.defenders)
    shown = [f"{escape_md(s.name)} {s.strength}" for s in specs if s.name in present]
    return ", ".join(shown) if shown else "nobody"


def _why_nobody(result: ChallengeResult) -> str:
    attacker_ahead = result.attacking_strength >= result.defending_strength
    side = "attacker" if attacker_ahead else "defender"
    total = result.attacking_strength if attacker_ahead else result.defending_strength
    participants = result.attackers if attacker_ahead else result.defenders
    if total < 1:
        return f"the {side}'s side would win but has a total STR of {total}, and needs 1 or more"
    assert not participants
    return f"the {side}'s side would win but has no participating characters"


def _claim_lines(result: ChallengeResult, request: ChallengeRequest) -> list[str]:
    claim = result.claim
    if claim is None:
        return []
    head = f"Claim ({claim.challenge_type.value} {claim.value}): "
    if claim.value == 0:
        return [head + "a claim of 0 does nothing."]
    kind = claim.challenge_type
    if kind is ChallengeType.MILITARY:
        if claim.kills_owed or request.kills is None:
            return [head + f"the defender must choose {claim.value} character(s), all different, "
                    "and kill them (all they have, if fewer). Add `kill NAME` to apply it."]
        return [head + f"the defender kills {_names(claim.killed)}."]
    if kind is ChallengeType.INTRIGUE:
        if request.hand is None:
            return [head + f"the defender discards {claim.value} card(s) from hand at random "
                    "(all of them, if fewer). Add `hand N` to roll for them."]
        if not claim.discarded:
            return [head + "the defender has no cards in hand to discard."]
        lines = [head + f"the defender discards {claim.applied} of {request.hand} card(s) "
                 "at random:"]
        size = request.hand
        for number, roll in enumerate(claim.discard_rolls, start=1):
            lines.append(f"  * discard {number}: d{size} → **{roll}**: card number {roll} of the "
                         f"{size} still in hand")
            size -= 1
        lines.append(f"  * discarded: {', '.join(claim.discarded)} (numbering the hand as it "
                     "was before the claim)")
        return lines
    if request.power is None:
        return [head + f"{claim.value} power moves from the defender's faction card to the "
                "attacker's (all they have, if less). Add `power N` to apply it."]
    return [head + f"{claim.power_moved} power moves from the defender's faction card to the "
            f"attacker's (the defender had {request.power})."]


def render_result(result: ChallengeResult, request: ChallengeRequest) -> str:
    """The markdown reply for a resolved challenge."""
    kind = result.challenge_type.value.capitalize()
    headline = {
        ChallengeOutcome.ATTACKER_WINS: "the attacker wins",
        ChallengeOutcome.DEFENDER_WINS: "the defender wins",
        ChallengeOutcome.NO_WINNER: "nobody wins",
    }[result.outcome]
    if result.unopposed:
        headline += " (unopposed)"
    lines = [
        f"**{kind} challenge: {headline}**",
        "",
        "| Side | Characters (STR) | Total STR |",
        "|:--|:--|--:|",
        f"| Attacker | {_roster(result, request, True)} | **{result.attacking_strength}** |",
        f"| Defender | {_roster(result, request, False)} | **{result.defending_strength}** |",
        "",
    ]
    attacking = result.knelt[: len(request.attackers)]
    defending = result.knelt[len(request.attackers):]
    lines.append(f"* Knelt: {_names(attacking)} (attacking); {_names(defending)} (defending).")
    for pick in result.stealth_targets:
        lines.append(f"* Stealth: {escape_md(pick.attacker)} slips past "
                     f"{escape_md(pick.target)}, who cannot defend.")
    if result.outcome is ChallengeOutcome.NO_WINNER:
        lines.append(f"* Nobody wins or loses: {_why_nobody(result)}.")
    elif result.attacking_strength == result.defending_strength:
        lines.append("* The totals are tied, and a tie goes to the attacker.")
    if result.unopposed_bonus:
        lines.append("* Unopposed bonus: +1 power to the attacker's faction card.")
    if result.rivals_bonus:
        winner = "attacker" if result.outcome is ChallengeOutcome.ATTACKER_WINS else "defender"
        lines.append(f"* Rivals bonus: +1 power to the {winner}'s faction card.")
    for name in result.renown:
        lines.append(f"* Renown: {escape_md(name)} gains 1 power.")
    lines.extend(f"* {line}" if not line.startswith("  ") else line
                 for line in _claim_lines(result, request))
    if result.outcome is ChallengeOutcome.DEFENDER_WINS:
        lines.append("* The defender won, so there is no claim.")
    return "\n".join(lines)


@command("challenge", aliases=("chal", "chall", "cardchallenge"), example=EXAMPLE)
def challenge_command(ctx: CommandContext, args: str) -> str:
    """Resolve a challenge of A Game of Thrones: The Card Game (2nd edition).

    Give the type (military, intrigue, power), the attackers as NAME STR with optional icons
    (`mil`, `int`, `pow`; none means the challenge's own) and keywords (`stealth`,
    `stealth on NAME`, `renown`), then `vs` and the defenders (or `vs no defenders`). Optional
    at the end: `claim N` (default 1), `hand N` (cards in the defender's hand, for intrigue),
    `power N` (power on the defender's faction card, for power), `kill NAME, ...` (the
    defender's choice for a military claim) and `rivals` (a melee where the two titles are
    each other's Rival). Ties go to the attacker; random discards are rolled and shown.
    """
    request = parse_challenge(args)
    try:
        state, declaration = build_game(request)
        result = resolve_challenge(state, declaration, dice=ctx.dice)
    except IllegalChallenge as err:
        raise CommandError(f"illegal challenge: {escape_md(str(err), 300)}", SYNTAX,
                           EXAMPLE) from err
    except KillChoiceNeeded as err:
        raise CommandError(
            f"the military claim needs {err.owed} character(s) to kill, "
            f"but `kill` names {err.chosen}",
            f"`kill` followed by {err.owed} different names", EXAMPLE,
        ) from err
    except RulesError as err:
        raise CommandError(escape_md(str(err), 300), SYNTAX, EXAMPLE) from err
    return render_result(result, request)
