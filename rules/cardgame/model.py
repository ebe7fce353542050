"""The card game's table as frozen values: characters, players, the game, a challenge declaration.

Only what a challenge reads or changes is modelled. Every transition returns new values; nothing
here is mutated. Names identify characters within one player's play area and players within a
game, so both must be unique there (checked on construction, :class:`InvalidInput` otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum

from rules.errors import InvalidInput


class ChallengeType(StrEnum):
    """The three kinds of challenge; a character takes part only with the matching icon."""

    MILITARY = "military"
    INTRIGUE = "intrigue"
    POWER = "power"


def _check_count(path: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(path, f"must be a whole number of 0 or more, not {value!r}")


def _check_name(path: str, value: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(path, "must be a non-empty name", "e.g. 'Jaime Lannister'")


def _check_unique(path: str, names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InvalidInput(path, f"{name!r} appears twice", "each name once")
        seen.add(name)


@dataclass(frozen=True, slots=True)
class Character:
    """A character in play.

    ``strength`` is the printed STR with any character-level modifiers already applied (never
    below 0). ``power`` counts the power tokens sitting on the card (gained through renown);
    they belong to the controller's total but cannot be taken by a power claim, which only
    draws on the faction card.
    """

    name: str
    strength: int
    icons: frozenset[ChallengeType] = frozenset()
    kneeling: bool = False
    stealth: bool = False
    renown: bool = False
    power: int = 0

    def __post_init__(self) -> None:
        _check_name("character.name", self.name)
        _check_count(f"{self.name}.strength", self.strength)
        _check_count(f"{self.name}.power", self.power)
        bad = [icon for icon in self.icons if not isinstance(icon, ChallengeType)]
        if bad:
            raise InvalidInput(f"{self.name}.icons", f"unknown icon {bad[0]!r}",
                               "military, intrigue or power")

    @property
    def is_standing(self) -> bool:
        """Whether the character is upright (not knelt)."""
        return not self.kneeling

    def has_icon(self, challenge_type: ChallengeType) -> bool:
        """Whether the character shows the icon of ``challenge_type``."""
        return challenge_type in self.icons


@dataclass(frozen=True, slots=True)
class Player:
    """One player's side of the table as far as challenges are concerned.

    ``power`` is the power on the faction card (the only power a power claim or a challenge
    bonus moves). ``hand``, ``deck``, ``discard_pile`` and ``dead_pile`` are card names in order.
    ``challenges_initiated`` are the challenge types this player already initiated in the current
    challenges phase. In a melee, ``title`` is the title card the player holds, ``rivals`` the
    titles marked as Rival on it, and ``rivals_claimed`` the rival titles this player already
    took a rivals bonus for this round.
    """

    name: str
    power: int = 0
    hand: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    characters: tuple[Character, ...] = ()
    discard_pile: tuple[str, ...] = ()
    dead_pile: tuple[str, ...] = ()
    challenges_initiated: frozenset[ChallengeType] = frozenset()
    title: str | None = None
    rivals: frozenset[str] = frozenset()
    rivals_claimed: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        _check_name("player.name", self.name)
        _check_count(f"{self.name}.power", self.power)
        _check_unique(f"{self.name}.characters", (c.name for c in self.characters))

    @property
    def hand_size(self) -> int:
        """How many cards the player holds."""
        return len(self.hand)

    @property
    def total_power(self) -> int:
        """Power on the faction card plus power on the player's characters."""
        return self.power + sum(c.power for c in self.characters)

    def character(self, name: str) -> Character | None:
        """The character called ``name`` in this player's play area, if any."""
        for candidate in self.characters:
            if candidate.name == name:
                return candidate
        return None

    def has_rival(self, other: Player) -> bool:
        """Whether ``other`` holds a title marked as a Rival on this player's title."""
        return other.title is not None and self.title is not None and other.title in self.rivals

    def with_characters(self, characters: Iterable[Character]) -> Player:
        """This player with the play area replaced."""
        return replace(self, characters=tuple(characters))


@dataclass(frozen=True, slots=True)
class GameState:
    """The players at the table, whose turn it is, and whether this is a melee game.

    A game of more than two players is a melee; two players may also play melee rules (titles
    and rivals), so the flag is explicit but cannot be off with three or more players.
    """

    players: tuple[Player, ...]
    active: str
    melee: bool = False

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise InvalidInput("players", f"needs at least 2 players, not {len(self.players)}")
        _check_unique("players", (p.name for p in self.players))
        if self.player(self.active) is None:
            raise InvalidInput("active", f"{self.active!r} is not a player",
                               "the name of one of the players")
        if len(self.players) > 2 and not self.melee:
            raise InvalidInput("melee", "a game of three or more players is a melee", "true")

    def player(self, name: str) -> Player | None:
        """The player called ``name``, if any."""
        for candidate in self.players:
            if candidate.name == name:
                return candidate
        return None

    @property
    def active_player(self) -> Player:
        """The player whose challenges phase it is."""
        found = self.player(self.active)
        assert found is not None  # checked in __post_init__
        return found

    def opponents(self) -> tuple[Player, ...]:
        """Every player other than the active one, in seating order."""
        return tuple(p for p in self.players if p.name != self.active)

    def with_player(self, updated: Player) -> GameState:
        """This game with the player of the same name replaced by ``updated``."""
        return replace(
            self,
            players=tuple(updated if p.name == updated.name else p for p in self.players),
        )


@dataclass(frozen=True, slots=True)
class StealthTarget:
    """A stealth attacker and the defending player's character it slips past."""

    attacker: str
    target: str


@dataclass(frozen=True, slots=True)
class ChallengeDeclaration:
    """Everything announced for one challenge, from initiation through to claim.

    ``opponent`` may be left out when there is only one opponent. ``claim`` is the claim value
    of the attacker's revealed plot with its modifiers already applied. ``attacker_modifier`` and
    ``defender_modifier`` are the active STR modifiers on each side's total. ``removed`` lists
    participants that left the challenge before STR was compared (they stay knelt but no longer
    count). ``kills`` is the defending player's choice for a military claim, in order of
    preference; ``None`` means the choice has not been made yet and the kills stay owed.
    """

    challenge_type: ChallengeType
    attackers: tuple[str, ...]
    defenders: tuple[str, ...] = ()
    opponent: str | None = None
    stealth_targets: tuple[StealthTarget, ...] = ()
    claim: int = 1
    attacker_modifier: int = 0
    defender_modifier: int = 0
    removed: tuple[str, ...] = ()
    kills: tuple[str, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        if not isinstance(self.challenge_type, ChallengeType):
            raise InvalidInput("challenge", f"unknown challenge type {self.challenge_type!r}",
                               "military, intrigue or power")
        _check_count("claim", self.claim)
        for path, value in (("attacker_modifier", self.attacker_modifier),
                            ("defender_modifier", self.defender_modifier)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidInput(path, f"must be a whole number, not {value!r}")
