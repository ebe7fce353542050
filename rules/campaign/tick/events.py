"""The tick's input and its events: :class:`Tick` (the tick being applied: its index, the map,
the rules numbers, the catalogue the modifiers in force come from, the fate settings) and one
frozen value per thing a tick reports (:data:`TickEvent`). They are plain values: the services
journal them and render posts and messages from them; nothing here is markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.campaign import calendar
from rules.campaign.absence import Stopped
from rules.campaign.battle import BattleResult, Winner
from rules.campaign.catalogue import Catalogue, Entry
from rules.campaign.characters import (
    NO_FATE_ROLLS,
    FateSettings,
    TableRoll,
)
from rules.campaign.config import RulesConfig
from rules.campaign.detection import (
    DetectionResult,
)
from rules.campaign.modifiers import (
    Applied,
    Modifier,
)
from rules.campaign.publication import PublicAssault
from rules.campaign.retreat import RetreatResult
from rules.campaign.upkeep import (
    UpkeepResult,
)
from rules.campaign.world import (
    NO_MODIFIERS,
    Army,
    BattleState,
    ClaimState,
    Modifiers,
    SiegeState,
)
from rules.campaign.worldmap import WorldMap
from rules.dice import Roll


@dataclass(frozen=True, slots=True)
class Tick:
    """The tick being applied: its index, the map and the rules numbers, and the modifiers in
    force (:data:`~rules.campaign.world.NO_MODIFIERS` without a catalogue)."""

    index: int
    map: WorldMap
    rules: RulesConfig
    modifiers: Modifiers = NO_MODIFIERS
    """The modifiers in force when there is no :attr:`catalogue` (a rules test's own)."""
    fates: FateSettings = NO_FATE_ROLLS
    """Whether the bot rolls the characters' fate tables after a battle, and the tables."""
    catalogue: Catalogue | None = None
    """The campaign's catalogue: the modifiers in force are worked out from it and the world
    as each phase begins (:func:`rules.campaign.inforce.in_force_for`); None: :attr:`modifiers`."""
    held: frozenset[int] = frozenset()
    """The claims held (:mod:`rules.campaign.absence`): their marches end before the musters."""


# --- events ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class MusterDone:
    """A mustering army is ready (``army`` as it is now: standing, marching or in garrison)."""

    army: Army


@dataclass(frozen=True, slots=True)
class Detection:
    """Claim ``watcher`` rolled, from ``observer`` (a tile), to detect ``army`` (as it stood
    then, on the tile it had just entered). ``watching``: the watcher's own modifiers (to name
    its secret ones to it alone); ``guard``: a standing army of the watcher on the observer
    tile that may intercept the passing force (None: none may); ``dice_line``: the printed
    dice; ``rolls``: the dice rolled."""

    army: Army
    watcher: int
    observer: str
    result: DetectionResult
    watching: tuple[Modifier, ...]
    guard: int | None
    dice_line: str
    rolls: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Encounter:
    """``attacker`` met the enemy ``defender`` on its tile: ``battle`` is fought after the
    reaction window; ``battle.reactor_claim`` has the first reaction."""

    attacker: Army
    defender: Army
    battle: BattleState
    allies: tuple[tuple[Army, ...], tuple[Army, ...]] = ((), ())
    """The armies of other claims on the tile that would fight on the attacker's side and on
    the defender's (:func:`rules.campaign.sides.allies_drawn_in`): their claims are told the
    battle looms too."""


@dataclass(frozen=True, slots=True)
class Arrival:
    """An army reached the end of its march (``returned``: the end of a retreat)."""

    army: Army
    returned: bool


@dataclass(frozen=True, slots=True)
class SiegeEnded:
    """``siege`` ended (its status says how: lifted, or broken by a sally) because its
    besiegers ``fate`` (completes "The besiegers of CLAIM ...")."""

    siege: SiegeState
    fate: str


@dataclass(frozen=True, slots=True)
class SiegeMonth:
    """Siege month ``month`` (1-based from the start) of ``siege`` completed; the siege as it
    is now (``paused``: the month did not count, the blockade is broken)."""

    siege: SiegeState
    month: int
    months_left: int


@dataclass(frozen=True, slots=True)
class HoldfastFalls:
    """The holdfast of ``siege`` fell: ``how`` (``taken by assault``, ``starved out after N
    months of siege``); the garrison captured (``infantry``, ``cavalry``); it is now the
    besieger's claim's. ``seat_lost``: it was the defender's seat (that claim has no seat until
    the moderators give one)."""

    siege: SiegeState
    how: str
    infantry: int
    cavalry: int
    seat_lost: bool = False


@dataclass(frozen=True, slots=True)
class HolderChanged:
    """The benefit of resource tile ``tile`` passed from claim ``before`` to ``holder`` (None:
    nobody)."""

    tile: str
    holder: int | None
    before: int | None


@dataclass(frozen=True, slots=True)
class UpkeepPaid:
    """``claim`` (as it is now) paid the upkeep of in-game month ``date`` for its raised
    ``infantry``, ``cavalry`` and ``ships`` (``result``: cost, income, gold left)."""

    claim: ClaimState
    date: calendar.GameDate
    result: UpkeepResult
    infantry: int
    cavalry: int
    ships: int
    income: tuple[Modifier, ...] = ()
    """The claim's gold income modifiers that counted (its sources are named in its note)."""


@dataclass(frozen=True, slots=True)
class Scattered:
    """``claim`` could not pay the upkeep of in-game month ``date``: its armies scattered,
    ``result.survivors`` went home (locked until ``claim.scattered_until``)."""

    claim: ClaimState
    date: calendar.GameDate
    result: UpkeepResult


@dataclass(frozen=True, slots=True)
class Regenerated:
    """``infantry`` and ``cavalry`` slain in earlier months came back to ``claim``."""

    claim: ClaimState
    infantry: int
    cavalry: int


@dataclass(frozen=True, slots=True)
class ImprovementDone:
    """``claim``'s improvement ``name`` at ``holdfast`` is finished at the start of in-game
    month ``month``; ``entry``: its catalogue entry (None: the catalogue no longer has it)."""

    claim: ClaimState
    name: str
    holdfast: str
    month: int
    entry: Entry | None


@dataclass(frozen=True, slots=True)
class CapacityChanged:
    """``claim``'s troops at home changed by ``infantry`` and ``cavalry`` at the start of
    in-game month ``month``, its capacity effects now granting ``capacity`` (infantry,
    cavalry). ``applied``: the capacity effects that count; ``modifiers``: all the claim's own
    modifiers (its secret ones it may read)."""

    claim: ClaimState
    month: int
    infantry: int
    cavalry: int
    capacity: tuple[int, int]
    applied: tuple[Applied, ...]
    modifiers: tuple[Modifier, ...]


@dataclass(frozen=True, slots=True)
class BattleVoid:
    """Field battle ``battle`` does not happen: the armies parted, or one is gone."""

    battle: BattleState


@dataclass(frozen=True, slots=True)
class RetreatReferred:
    """``runner`` chose to retreat from ``battle`` but has no way back: nothing is rolled, the
    moderators are told (the battle goes on as if it had not tried)."""

    battle: BattleState
    runner: Army


@dataclass(frozen=True, slots=True)
class RetreatFailed:
    """``runner`` rolled to retreat from ``battle`` and failed (it now carries the penalty)."""

    battle: BattleState
    runner: Army
    result: RetreatResult
    dice_line: str
    rolls: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Retreated:
    """``runner`` (as it is now: on its way back) escaped ``battle``; ``result`` says how
    many it lost."""

    battle: BattleState
    runner: Army
    result: RetreatResult
    dice_line: str
    rolls: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class OpponentDecides:
    """After ``runner``'s failed retreat, ``opponent``'s claim chooses before
    ``battle.resolve_tick`` to fight or to spare it."""

    battle: BattleState
    runner: Army
    opponent: Army


@dataclass(frozen=True, slots=True)
class FateRolled:
    """After a battle the bot rolled ``character``'s fate table (``roll``) for the side
    ``side`` of claim ``claim_id``; ``dies``: the roll killed the character."""

    side: Winner
    claim_id: int
    character: str
    roll: TableRoll
    dies: bool
    dice_line: str
    rolls: tuple[Roll, ...]


@dataclass(frozen=True, slots=True)
class BattleFought:
    """``battle`` was fought: ``result``. ``attacker`` and ``defender``: the armies after their
    losses (None: the holdfast's garrison of claim ``garrison_claim`` fought on that side).
    ``hidden_defender``: an assault, whose defender strength (the secret defense bonus) is the
    claimant's alone; its ``dice_line`` then comes from the claimant's private branch, and
    ``public`` is what may be published of it. ``fates``: the fate-table rolls the bot made,
    attacker's side first (None: the campaign does not have the bot roll them; the post says
    who must roll)."""

    battle: BattleState
    result: BattleResult
    attacker: Army | None
    defender: Army | None
    hidden_defender: bool
    garrison_claim: int | None
    dice_line: str
    public: PublicAssault | None = None
    fates: tuple[FateRolled, ...] | None = None
    joined: tuple[Army, ...] = ()
    """The other armies that fought on either side (after their losses): the attacker's side's
    first, then the defender's."""
    joined_attackers: int = 0
    """How many of ``joined`` fought on the attacker's side (the posts name every claim of a
    side)."""

    def side_claims(self, which: Winner) -> tuple[int, ...]:
        """The claims of side ``which``: the battle's own claim first, then each other claim
        whose army joined that side, once each, in the side's order."""
        first = self.battle.attacker_claim if which is Winner.ATTACKER \
            else self.battle.defender_claim
        return tuple(dict.fromkeys((first, *(a.claim_id for a in self.joined_on(which)))))

    def joined_on(self, which: Winner) -> tuple[Army, ...]:
        """The armies of :attr:`joined` that fought on side ``which``."""
        n = self.joined_attackers
        return self.joined[:n] if which is Winner.ATTACKER else self.joined[n:]

    def secret_strengths(self) -> tuple[tuple[Winner, Army], ...]:
        """The armies whose strength counted a hidden modifier: each is told privately its
        strength in full (the public post leaves the secret modifiers out)."""
        return tuple((which, a) for which, a in ((Winner.ATTACKER, self.attacker),
                                                 (Winner.DEFENDER, self.defender))
                     if a is not None and self.result.side(which).strength.has_hidden)


@dataclass(frozen=True, slots=True)
class MonthBegins:
    """The jobs of in-game month ``month`` (dated ``date``) begin: the events of its claims
    follow, then :class:`MonthEnds`."""

    month: int
    date: calendar.GameDate


@dataclass(frozen=True, slots=True)
class MonthEnds:
    """The jobs of in-game month ``month`` are done for every claim."""

    month: int


TickEvent = (MonthBegins | MonthEnds | MusterDone | Detection | Encounter | Arrival | SiegeEnded
             | SiegeMonth | HoldfastFalls | HolderChanged | ImprovementDone | CapacityChanged
             | UpkeepPaid | Scattered | Regenerated | BattleVoid | RetreatReferred | RetreatFailed
             | Retreated | OpponentDecides | BattleFought | Stopped)
"""Everything a tick reports."""
