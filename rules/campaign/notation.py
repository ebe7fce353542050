"""The campaign's text notation for ``!odds``: two forces described, attacker first::

    300 infantry 50 cavalry vs 200 infantry on a hill

Each side is a list of counts of ``infantry`` (``inf``, ``foot``), ``cavalry`` (``cav``,
``horse``) and ``ships``; ``vs`` (``versus``, ``against``) separates them. A side of several
armies lists them separated by ``+`` (or ``;``), each with its own counts and terrain::

    300 infantry + 100 cavalry vs 200 infantry on a hill + 150 infantry

(their strengths summed, as in a battle between sides: :func:`rules.campaign.battle.
side_strength`). ``on TERRAIN`` (or
``in``) puts a side on that terrain as a stationary army; only the defender can have the
terrain's bonus (:func:`rules.campaign.world.battle_side`), so the attacker's is read, then
set aside and named (:attr:`OddsQuestion.ignored_terrain`). A holdfast (``at Winterfell``,
``assault``, ``garrison``) is refused: its defense bonus is secret.

:func:`parse_odds` reads the text into an :class:`OddsQuestion`; :func:`odds_answer` decides
the odds (:func:`rules.campaign.odds.battle_odds`). The bot command only renders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.campaign.battle import Side, Sides, Winner, armies_of
from rules.campaign.config import DEFAULT_RULES, LAND_TERRAINS, RulesConfig, Terrain
from rules.campaign.odds import Odds, battle_odds
from rules.campaign.world import as_role
from rules.errors import NotationError

ODDS_SYNTAX = "ATTACKER vs DEFENDER"
ODDS_EXAMPLE = "300 infantry 50 cavalry vs 200 infantry on a hill"
MAX_TROOPS = 10_000_000
"""The most of one kind a described side may have."""

_SIDE_WORDS = re.compile(
    r"(?P<n>\d[\d,]*)\s*(?P<kind>inf(?:antry)?|foot|cav(?:alry)?|horse|ships?)\b", re.I)
_TERRAIN_NAMES = "|".join(sorted(LAND_TERRAINS))
"""The terrains an army can stand on, as a side names them (``hill``, ``hills``)."""
_TERRAIN = re.compile(rf"\b(?:on|in)\s+(?:a\s+|the\s+)?(?P<t>{_TERRAIN_NAMES})s?\b", re.I)
_TERRAIN_WORD = re.compile(rf"(?P<t>{_TERRAIN_NAMES})s?", re.I)
_WORD = re.compile(r"\d[\d,]*\s*[^\W\d_]+|[^\W_]+")
"""A word, with the number before it (`20 footmen`)."""
_FILLER = frozenset({"and", "with", "a", "an", "the", "stationary"})
"""Words a side may hold besides its troops and terrain (`50 foot and 30 horse`;
`stationary on a hill`, which the terrain implies)."""
_ARMIES = re.compile(r"\s*[+;]\s*")
"""Separates the armies of one side."""
_VERSUS = re.compile(r"\s+(?:vs\.?|versus|against)\s+", re.I)
_HOLDFAST_CLAUSE = re.compile(r"\bat\s+\S.*|\b(?:holdfasts?|castles?|assault\w*|sieges?|"
                              r"besieg\w*|garrison\w*|defen[cs]e\s+bonus)\b.*", re.I)
"""A holdfast asked about: its defense bonus is secret, so the odds cannot count it."""


@dataclass(frozen=True, slots=True)
class OddsQuestion:
    """Two forces as described: ``attacker`` and ``defender`` (each as written, a side "on"
    a terrain being stationary there; a side of one army is a :class:`Side`, of several a
    tuple of them)."""

    attacker: Sides
    defender: Sides

    @property
    def ignored_terrain(self) -> Terrain | None:
        """The terrain an attacking army was said to be on: it never counts for an
        attacker."""
        return next((a.terrain for a in armies_of(self.attacker) if a.stationary), None)

    def sides(self) -> tuple[Sides, Sides]:
        """Both sides as the battle counts them (:func:`rules.campaign.world.as_role`)."""
        return _as_role(self.attacker, Winner.ATTACKER), _as_role(self.defender, Winner.DEFENDER)


def _as_role(side: Sides, role: Winner) -> Sides:
    if isinstance(side, Side):
        return as_role(side, role)
    return tuple(as_role(a, role) for a in side)


@dataclass(frozen=True, slots=True)
class OddsAnswer:
    """The sides as fought and the exact odds of their battle."""

    attacker: Sides
    defender: Sides
    odds: Odds
    ignored_terrain: Terrain | None


def _refuse_unread_words(text: str, which: str) -> None:
    """Refuse a side holding a word the odds would not count: ignored, it would answer other
    odds than the player meant (`200 infantry hill` is not on a hill; `300 footmen` is
    nothing) and the reply would not say so."""
    rest = _TERRAIN.sub(" ", _SIDE_WORDS.sub(" ", text))
    for word in _WORD.findall(rest):
        if word.lower() in _FILLER:
            continue
        terrain = _TERRAIN_WORD.fullmatch(word)
        hint = (f"; a terrain is written after `on`, as `on a {terrain.group('t').lower()}`"
                if terrain else "")
        raise NotationError(
            f"I did not understand `{word[:30]}` in the {which}{hint}",
            syntax="numbers of infantry, cavalry or ships on each side of `vs` (`300 "
            "infantry 50 cavalry`), and the defender's terrain as `on a hill`",
            example=ODDS_EXAMPLE)


def _side(text: str, which: str) -> Side:
    counts = {"infantry": 0, "cavalry": 0, "ships": 0}
    for m in _SIDE_WORDS.finditer(text):
        kind = m.group("kind").lower()
        key = "infantry" if kind.startswith(("inf", "foot")) else \
            "cavalry" if kind.startswith(("cav", "horse")) else "ships"
        counts[key] += int(m.group("n").replace(",", ""))
    if not any(counts.values()):
        raise NotationError(f"the {which} has no troops", syntax="numbers of infantry, "
                            "cavalry or ships on each side of `vs`", example=ODDS_EXAMPLE)
    if any(v > MAX_TROOPS for v in counts.values()):
        raise NotationError(f"the {which} is too large",
                            syntax=f"at most {MAX_TROOPS:,} of a kind", example=ODDS_EXAMPLE)
    _refuse_unread_words(text, which)
    terrain = _TERRAIN.search(text)
    return Side(infantry=counts["infantry"], cavalry=counts["cavalry"], ships=counts["ships"],
                terrain=Terrain(terrain.group("t").lower()) if terrain else Terrain.FIELD,
                stationary=terrain is not None)


def parse_odds(text: str) -> OddsQuestion:
    """Read ``ATTACKER vs DEFENDER``; raises :class:`NotationError` saying what is wrong."""
    holdfast = _HOLDFAST_CLAUSE.search(text)
    if holdfast is not None:
        # Read as a field battle, the reply would look like the odds of an assault; counted
        # with the holdfast's real bonus, it would give the secret away.
        raise NotationError(
            f"`!odds` cannot count a holdfast (`{holdfast.group().strip()[:40]}`): a "
            "holdfast's defense bonus is secret, so the odds of an assault are not known to "
            "anyone but its claimant; describe the two forces alone, optionally with the "
            "defender's terrain", syntax=ODDS_SYNTAX, example=ODDS_EXAMPLE)
    parts = _VERSUS.split(text.strip(), maxsplit=1)
    if len(parts) != 2:
        raise NotationError("I need two sides separated by `vs`", syntax=ODDS_SYNTAX,
                            example=ODDS_EXAMPLE)
    return OddsQuestion(_armies(parts[0], "attacking"), _armies(parts[1], "defending"))


def _armies(text: str, which: str) -> Sides:
    """One side: one army (a :class:`Side`) or several separated by ``+`` (a tuple)."""
    pieces = _ARMIES.split(text.strip())
    if len(pieces) == 1:
        return _side(pieces[0], f"{which} side")
    return tuple(_side(piece, f"{which} side's army {i}")
                 for i, piece in enumerate(pieces, 1))


def odds_answer(question: OddsQuestion, rules: RulesConfig = DEFAULT_RULES) -> OddsAnswer:
    """The exact odds of the battle described, under the campaign's ``rules``."""
    attacker, defender = question.sides()
    return OddsAnswer(attacker, defender, battle_odds(attacker, defender, rules),
                      question.ignored_terrain)
