"""What each viewer of the campaign map may know: the map's situation, filtered.

A :class:`Situation` lists everything the map could show besides the terrain: who holds each
holdfast, every army and fleet (with its troops, remaining march and who has sighted it),
sieges, blockades and this month's battles. :func:`visible_to` cuts it down to what one
:class:`Viewer` may know:

- the moderators see everything;
- the subreddit (the public view) sees holdfasts and their holders, sieges, blockades, this
  month's battles, and armies whose position was announced in a public post (an arrival that
  was posted, a siege), without their numbers, ids or plans;
- a claim sees the public view plus its own armies in full and the armies it sighted, where it
  sighted them, with the troops its watchers counted.

The function is pure and is the only place that decides visibility: the renderer draws what
it is given, so hidden information cannot reach a public or claim picture by accident.
A holdfast's secret defense bonus is never part of a situation at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from rules.errors import InvalidInput


class ViewKind(StrEnum):
    PUBLIC = "public"
    MODERATOR = "moderator"
    CLAIM = "claim"


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who looks at the map: the subreddit, the moderators, or one claim (by name)."""

    kind: ViewKind
    claim: str = ""

    @classmethod
    def parse(cls, text: str) -> Viewer:
        """``public``, ``moderator`` or ``claim:NAME``. Raises InvalidInput otherwise."""
        word, _, name = text.strip().partition(":")
        word = word.strip().casefold()
        if word in ("public", "moderator") and not name:
            return cls(ViewKind(word))
        if word == "claim" and name.strip():
            return cls(ViewKind.CLAIM, name.strip())
        raise InvalidInput("view", f"{text!r} is not a view",
                           "public, moderator or claim:NAME (e.g. claim:House Stark)")

    def __str__(self) -> str:
        return f"claim:{self.claim}" if self.kind is ViewKind.CLAIM else self.kind.value


PUBLIC = Viewer(ViewKind.PUBLIC)
MODERATOR = Viewer(ViewKind.MODERATOR)


@dataclass(frozen=True, slots=True)
class ArmyMark:
    """One army or fleet as the map may show it.

    ``announced`` says its current position was made public (a posted arrival, a siege);
    ``seen`` pairs a claim name with the tile where that claim's watchers sighted it during
    its current march, and ``seen_at`` the tick of that claim's latest sighting;
    ``last_seen`` is that tick in a claim's view of a sighted army. ``path`` is the march
    still ahead (tile ids, in order). An ``id`` of 0 means "not known to the viewer".
    """

    id: int
    claim: str
    tile: str
    fleet: bool = False
    infantry: int = 0
    cavalry: int = 0
    ships: int = 0
    path: tuple[str, ...] = ()
    announced: bool = False
    seen: tuple[tuple[str, str], ...] = ()
    own: bool = False
    seen_at: tuple[tuple[str, int], ...] = ()
    last_seen: int | None = None

    @property
    def size(self) -> int:
        return self.infantry + self.cavalry + self.ships

    def seen_by(self, claim: str) -> str | None:
        """The tile where ``claim`` sighted this army, or None."""
        for who, tile in self.seen:
            if who == claim:
                return tile
        return None


@dataclass(frozen=True, slots=True)
class SiegeMark:
    holdfast: str
    besieger: str


@dataclass(frozen=True, slots=True)
class BlockadeMark:
    """A besieger's fleet standing on ``water`` next to the besieged port ``port``."""

    water: str
    port: str
    claim: str


@dataclass(frozen=True, slots=True)
class BattleMark:
    tile: str
    attacker: str
    defender: str


@dataclass(frozen=True, slots=True)
class Situation:
    """Everything on the map besides terrain. ``claims`` lists every claim name (public: the
    order fixes each claim's colour); ``holders`` maps holdfast tile ids to claim names;
    ``tick`` is the tick the situation is of (None: not known), public."""

    claims: tuple[str, ...] = ()
    holders: tuple[tuple[str, str], ...] = ()
    armies: tuple[ArmyMark, ...] = ()
    sieges: tuple[SiegeMark, ...] = ()
    blockades: tuple[BlockadeMark, ...] = ()
    battles: tuple[BattleMark, ...] = ()
    tick: int | None = None


def _announced(army: ArmyMark) -> ArmyMark:
    """An announced army as anyone may know it: who and where, nothing more."""
    return ArmyMark(id=0, claim=army.claim, tile=army.tile, fleet=army.fleet, announced=True)


def visible_to(situation: Situation, viewer: Viewer) -> Situation:
    """The part of ``situation`` that ``viewer`` may know (see the module docstring).

    Raises InvalidInput when a claim viewer names no claim of the situation.
    """
    if viewer.kind is ViewKind.MODERATOR:
        return situation
    if viewer.kind is ViewKind.CLAIM and viewer.claim not in situation.claims:
        raise InvalidInput("view", f"no claim is called {viewer.claim!r}",
                           "one of " + ", ".join(situation.claims) if situation.claims
                           else "a claim of the campaign")
    shown: list[ArmyMark] = []
    for army in situation.armies:
        if viewer.kind is ViewKind.CLAIM and army.claim == viewer.claim:
            shown.append(replace(army, seen=(), seen_at=(), own=True))
            continue
        sighted = army.seen_by(viewer.claim) if viewer.kind is ViewKind.CLAIM else None
        if sighted is not None:
            shown.append(ArmyMark(id=0, claim=army.claim, tile=sighted, fleet=army.fleet,
                                  infantry=army.infantry, cavalry=army.cavalry,
                                  ships=army.ships,
                                  last_seen=dict(army.seen_at).get(viewer.claim)))
        elif army.announced:
            shown.append(_announced(army))
    shown.sort(key=lambda a: (a.tile, a.claim, not a.own, a.id, a.size))
    return replace(situation, armies=tuple(shown))


def situation_to_data(situation: Situation) -> dict[str, Any]:
    """A JSON-ready form of ``situation``; :func:`situation_from_data` reads it back."""
    return {
        "claims": list(situation.claims),
        "holders": [list(p) for p in situation.holders],
        "armies": [{"id": a.id, "claim": a.claim, "tile": a.tile, "fleet": a.fleet,
                    "infantry": a.infantry, "cavalry": a.cavalry, "ships": a.ships,
                    "path": list(a.path), "announced": a.announced,
                    "seen": [list(s) for s in a.seen], "own": a.own,
                    "seen_at": [list(s) for s in a.seen_at], "last_seen": a.last_seen}
                   for a in situation.armies],
        "sieges": [[s.holdfast, s.besieger] for s in situation.sieges],
        "blockades": [[b.water, b.port, b.claim] for b in situation.blockades],
        "battles": [[b.tile, b.attacker, b.defender] for b in situation.battles],
        "tick": situation.tick,
    }


def situation_from_data(data: Mapping[str, Any]) -> Situation:
    """The situation :func:`situation_to_data` wrote. Raises InvalidInput for other data."""
    try:
        return Situation(
            claims=tuple(str(c) for c in data.get("claims", ())),
            holders=tuple((str(t), str(c)) for t, c in data.get("holders", ())),
            armies=tuple(ArmyMark(
                id=int(a["id"]), claim=str(a["claim"]), tile=str(a["tile"]),
                fleet=bool(a.get("fleet")), infantry=int(a.get("infantry", 0)),
                cavalry=int(a.get("cavalry", 0)), ships=int(a.get("ships", 0)),
                path=tuple(str(p) for p in a.get("path", ())),
                announced=bool(a.get("announced")),
                seen=tuple((str(c), str(t)) for c, t in a.get("seen", ())),
                own=bool(a.get("own")),
                seen_at=tuple((str(c), int(t)) for c, t in a.get("seen_at", ())),
                last_seen=None if a.get("last_seen") is None else int(a["last_seen"]))
                for a in data.get("armies", ())),
            sieges=tuple(SiegeMark(str(h), str(c)) for h, c in data.get("sieges", ())),
            blockades=tuple(BlockadeMark(str(w), str(p), str(c))
                            for w, p, c in data.get("blockades", ())),
            battles=tuple(BattleMark(str(t), str(a), str(d))
                          for t, a, d in data.get("battles", ())),
            tick=None if data.get("tick") is None else int(data["tick"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInput("situation", f"stored map data is unreadable ({exc})",
                           "data written by situation_to_data") from None
