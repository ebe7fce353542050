"""Every number of the campaign rules, with the defaults settled in docs/rules.md.

A campaign's config file may change any of them; :class:`RulesConfig` is the one value the
engines read them from. Charts are tuples of rows so they stay immutable and hashable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from enum import StrEnum


class Terrain(StrEnum):
    """Terrain of a map tile. Water and impassable tiles cannot be entered by land armies."""

    FIELD = "field"
    FOREST = "forest"
    HILL = "hill"
    MOUNTAIN = "mountain"
    SAND = "sand"
    SWAMP = "swamp"
    WATER = "water"
    IMPASSABLE = "impassable"


LAND_TERRAINS: frozenset[Terrain] = frozenset(
    {Terrain.FIELD, Terrain.FOREST, Terrain.HILL, Terrain.MOUNTAIN, Terrain.SAND, Terrain.SWAMP}
)


class Season(StrEnum):
    SPRING = "spring"
    SUMMER = "summer"
    AUTUMN = "autumn"
    WINTER = "winter"


@dataclass(frozen=True, slots=True)
class BattleBand:
    """A row of the battle chart: ratios up to ``max_ratio`` (inclusive) roll like this.

    ``bonus`` is added to the stronger side's d20; ``d2`` adds a d2 too. The last band has
    ``max_ratio`` None and means an automatic win. ``name`` is what results show.
    """

    name: str
    max_ratio: Decimal | None
    bonus: int = 0
    d2: bool = False
    equal: bool = False
    auto: bool = False


@dataclass(frozen=True, slots=True)
class CasualtyRow:
    """Margins from ``min_margin`` up (until the next row): winner and loser casualty %."""

    min_margin: int
    winner_pct: Decimal
    loser_pct: Decimal
    captured: bool = False


@dataclass(frozen=True, slots=True)
class RetreatRow:
    """Retreat rolls of ``min_roll`` or more keep ``fraction`` of the troops (0: failure)."""

    min_roll: int
    fraction: Decimal


@dataclass(frozen=True, slots=True)
class SizeRow:
    """Forces of at most ``max_size`` units (None: any larger) use ``value``."""

    max_size: int | None
    value: int


D = Decimal

DEFAULT_TERRAIN_COST: tuple[tuple[Terrain, int], ...] = (
    (Terrain.FIELD, 1),
    (Terrain.FOREST, 2),
    (Terrain.HILL, 2),
    (Terrain.MOUNTAIN, 3),
    (Terrain.SAND, 3),
    (Terrain.SWAMP, 3),
)
DEFAULT_DEFENDER_BONUS: tuple[tuple[Terrain, Decimal], ...] = (
    (Terrain.FIELD, D("1.0")),
    (Terrain.FOREST, D("1.4")),
    (Terrain.HILL, D("1.4")),
    (Terrain.SWAMP, D("1.8")),
    (Terrain.SAND, D("1.8")),
    (Terrain.MOUNTAIN, D("2.2")),
)
DEFAULT_BANDS: tuple[BattleBand, ...] = (
    BattleBand("equal", D("1.25"), equal=True),
    BattleBand("1.26-1.50", D("1.50"), bonus=1),
    BattleBand("1.51-1.75", D("1.75"), bonus=2),
    BattleBand("1.76-2.00", D("2.00"), bonus=3),
    BattleBand("2.01-2.50", D("2.50"), bonus=5),
    BattleBand("2.51-3.00", D("3.00"), bonus=7),
    BattleBand("3.01-3.50", D("3.50"), bonus=8),
    BattleBand("3.51-4.00", D("4.00"), bonus=7, d2=True),
    BattleBand("auto", None, auto=True),
)
DEFAULT_CASUALTIES: tuple[CasualtyRow, ...] = (
    CasualtyRow(0, D("40"), D("50")),
    CasualtyRow(2, D("37.5"), D("52.5")),
    CasualtyRow(3, D("35"), D("55")),
    CasualtyRow(4, D("32.5"), D("57.5")),
    CasualtyRow(5, D("30"), D("60")),
    CasualtyRow(6, D("25"), D("62.5")),
    CasualtyRow(8, D("20"), D("65")),
    CasualtyRow(10, D("15"), D("67.5")),
    CasualtyRow(12, D("10"), D("70")),
    CasualtyRow(14, D("5"), D("72.5")),
    CasualtyRow(16, D("4"), D("75")),
    CasualtyRow(18, D("3"), D("77.5")),
    CasualtyRow(20, D("2"), D("80")),
    CasualtyRow(22, D("0"), D("100"), captured=True),
)
DEFAULT_RETREAT: tuple[RetreatRow, ...] = (
    RetreatRow(18, D("1")),
    RetreatRow(15, D("0.75")),
    RetreatRow(13, D("0.5")),
    RetreatRow(1, D("0")),
)
DEFAULT_DETECTION: tuple[SizeRow, ...] = (
    SizeRow(20, 15),
    SizeRow(200, 12),
    SizeRow(500, 10),
    SizeRow(1000, 6),
    SizeRow(None, 0),  # 0 means automatic
)
DEFAULT_SIEGE_MONTHS: tuple[SizeRow, ...] = (
    SizeRow(100, 12),
    SizeRow(300, 11),
    SizeRow(500, 10),
    SizeRow(1000, 8),
    SizeRow(None, 6),
)


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """All tunable numbers of the campaign rules. Defaults are those of docs/rules.md."""

    # clock and calendar
    tick_hours: int = 6
    month_length: timedelta = timedelta(days=1)
    months_per_year: int = 12
    epoch: datetime = datetime(2026, 1, 1, tzinfo=UTC)
    epoch_year: int = 300  # in-game year of month 1 at the epoch
    # Ticks the world's clock stands behind the wall clock after holidays (a pause resumed
    # without catching up): campaign state, set on resume, not a setting of the config file.
    # The calendar's ticks and in-game months all follow it (rules.campaign.calendar).
    tick_offset: int = 0
    # muster
    muster_hours: int = 24
    # movement
    base_speed_per_day: Decimal = D(6)
    small_army_max: int = 20
    small_army_multiplier: Decimal = D(2)
    all_cavalry_multiplier: Decimal = D(2)
    large_army_min: int = 1001
    large_army_multiplier: Decimal = D("0.5")
    huge_army_min: int = 5001
    huge_army_multiplier: Decimal = D("0.25")
    terrain_cost: tuple[tuple[Terrain, int], ...] = DEFAULT_TERRAIN_COST
    # battle
    infantry_strength: int = 1
    cavalry_strength: int = 2
    defender_bonus: tuple[tuple[Terrain, Decimal], ...] = DEFAULT_DEFENDER_BONUS
    bands: tuple[BattleBand, ...] = DEFAULT_BANDS
    flat_roll: int = 10
    retreat_penalty: int = 1
    casualties: tuple[CasualtyRow, ...] = DEFAULT_CASUALTIES
    injury_factor: Decimal = D("1.5")
    # retreat and reactions
    retreat: tuple[RetreatRow, ...] = DEFAULT_RETREAT
    reaction_ticks: int = 1
    # detection
    detection: tuple[SizeRow, ...] = DEFAULT_DETECTION
    holdfast_detection_bonus: int = 5
    holdfast_auto_detect_min: int = 501
    detection_radius: int = 1
    # upkeep and regeneration
    infantry_upkeep: Decimal = D("0.1")
    cavalry_upkeep: Decimal = D("0.4")
    winter_upkeep_multiplier: Decimal = D(2)
    scatter_survival: Decimal = D("0.5")
    regeneration_per_year: Decimal = D("0.15")
    # sieges
    siege_months: tuple[SizeRow, ...] = DEFAULT_SIEGE_MONTHS
    # the public range of every holdfast's secret defense bonus (assault posts never narrow it)
    defense_bonus_min: Decimal = D(1)
    defense_bonus_max: Decimal = D(3)
    # fleets: ships move on water only
    ship_speed_per_day: Decimal = D(12)
    ship_upkeep: Decimal = D("1")
    ship_strength: int = 10

    def cost_of(self, terrain: Terrain) -> int | None:
        """Travel cost of entering ``terrain``; None when a land army cannot enter it."""
        for t, cost in self.terrain_cost:
            if t is terrain:
                return cost
        return None

    def defender_bonus_of(self, terrain: Terrain) -> Decimal:
        """Strength multiplier for a stationary army on ``terrain`` (1 when none)."""
        for t, bonus in self.defender_bonus:
            if t is terrain:
                return bonus if bonus > 0 else D(1)
        return D(1)


DEFAULT_RULES = RulesConfig()
