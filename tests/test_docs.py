"""docs/rules.md must say what the code does.

Every ``RulesConfig`` field is named in the page, and every table marked
``<!-- check: NAME key=value ... -->`` is recomputed here with the real rules functions: the
charts against the default config, the worked examples against the engines.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from rules.campaign import calendar
from rules.campaign.battle import Side, resolve_battle, strength
from rules.campaign.characters import Fate, fate_for
from rules.campaign.config import DEFAULT_RULES, RulesConfig, Season, Terrain
from rules.campaign.detection import ObserverKind, detection_target
from rules.campaign.modifiers import Effect, EffectKind, Modifier, Role, Source
from rules.campaign.movement import (
    budget_per_tick,
    departure_tick,
    schedule_march,
    speed_multiplier,
    tile_costs,
)
from rules.campaign.muster import muster_ready_at
from rules.campaign.odds import battle_odds
from rules.campaign.retreat import roll_retreat
from rules.campaign.siege import siege_months
from rules.campaign.upkeep import (
    SlainLedger,
    accrue_month,
    apply_upkeep,
    monthly_upkeep,
    record_loss,
)
from rules.dice import ScriptedDice

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
R = DEFAULT_RULES

_MARKER = re.compile(r"<!--\s*check:\s*([\w-]+)([^>]*?)-->")


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def _blocks() -> dict[str, tuple[dict[str, str], list[list[str]]]]:
    """Each marked block: its marker arguments and the rows of the table right after it."""
    text = _text()
    found: dict[str, tuple[dict[str, str], list[list[str]]]] = {}
    for match in _MARKER.finditer(text):
        name = match.group(1)
        args = dict(part.split("=", 1) for part in match.group(2).split())
        lines = text[match.end():].lstrip("\n").splitlines()
        table = []
        for line in lines:
            if not line.startswith("|"):
                break
            table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        assert len(table) > 2, f"check {name}: no table after the marker"
        assert name not in found, f"check {name} appears twice"
        found[name] = (args, table[2:])  # drop the header and the |---| line
    return found


def _block(name: str) -> tuple[dict[str, str], list[list[str]]]:
    blocks = _blocks()
    assert name in blocks, f"docs/rules.md lost its '{name}' table"
    return blocks[name]


def _when(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def _show(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def _pct(text: str) -> Decimal:
    return Decimal(text.split("%")[0])


def _range(text: str) -> tuple[int, int | None]:
    """``"21-200"`` -> (21, 200); ``"1001+"`` -> (1001, None); ``"5"`` -> (5, 5)."""
    if text.endswith("+"):
        return int(text[:-1]), None
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def _troops(text: str) -> tuple[int, int]:
    """``"5 infantry, 2 cavalry"`` -> (5, 2); units not named are 0."""
    inf = re.search(r"(\d+) infantry", text)
    cav = re.search(r"(\d+) cavalry", text)
    return int(inf.group(1)) if inf else 0, int(cav.group(1)) if cav else 0


# --- the page covers the config -----------------------------------------------------------

@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(RulesConfig)])
def test_every_rules_setting_is_documented(name: str) -> None:
    """Each RulesConfig field (the [rules] key) is named in docs/rules.md in backquotes."""
    assert f"`{name}`" in _text()


def _default_text(value: object) -> str | None:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, timedelta):
        return str(int(value.total_seconds() // 3600))
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return None  # charts: documented in their own tables


def test_reference_table_lists_every_setting_with_its_default() -> None:
    """The closing reference table has one row per setting, with the default the code uses."""
    _, rows = _block("reference")
    listed = {row[0].strip("`"): row for row in rows}
    fields = [f.name for f in dataclasses.fields(RulesConfig)]
    assert sorted(listed) == sorted(fields)
    for name in fields:
        expected = _default_text(getattr(R, name))
        if expected is not None:
            assert listed[name][2] == expected, name


# --- clock, calendar, muster ---------------------------------------------------------------

def test_calendar_examples() -> None:
    """Tick numbers and in-game dates of the calendar table come from the calendar module."""
    _, rows = _block("calendar")
    for moment, tick, date in rows:
        when = _when(moment)
        assert calendar.tick_index(when, R) == int(tick)
        assert calendar.format_game_date(calendar.game_date(when, R)) == date


def test_muster_examples() -> None:
    """Muster start (next tick at or after acceptance) and readiness match the muster rule."""
    _, rows = _block("muster")
    for accepted, starts, ready in rows:
        when = _when(accepted)
        assert _show(calendar.next_tick_at_or_after(when, R)) == starts
        assert _show(muster_ready_at(when, R)) == ready


# --- movement -----------------------------------------------------------------------------

def test_terrain_table() -> None:
    """Travel costs and stationary defender bonuses per terrain are the config's."""
    _, rows = _block("terrain")
    assert {Terrain(row[0]) for row in rows} == {t for t, _ in R.terrain_cost}
    for name, cost, bonus in rows:
        terrain = Terrain(name)
        assert R.cost_of(terrain) == int(cost)
        assert R.defender_bonus_of(terrain) == Decimal(bonus.removeprefix("x"))


def test_speed_table() -> None:
    """Each army's multiplier and per-tick travel cost are what the movement engine gives."""
    _, rows = _block("speed")
    for _name, inf, cav, mult, per_tick in rows:
        multiplier, _reasons = speed_multiplier(int(inf), int(cav), R)
        assert multiplier == Decimal(mult.removeprefix("x"))
        assert budget_per_tick(int(inf), int(cav), R) == Fraction(Decimal(per_tick))


def test_march_timetable() -> None:
    """The worked march: costs, running totals and the tick each tile is entered."""
    args, rows = _block("march")
    terrains = [Terrain(row[1]) for row in rows]
    costs = tile_costs(terrains, R)
    accepted = datetime.fromisoformat(args["accepted"]).replace(tzinfo=UTC)
    budget = budget_per_tick(int(args["infantry"]), int(args["cavalry"]), R)
    schedule = schedule_march(costs, budget, departure_tick(accepted, None, R), R)
    running = 0
    for row, cost, entered in zip(rows, costs, schedule.entries, strict=True):
        running += cost
        assert int(row[2]) == cost
        assert int(row[3]) == running
        assert row[4] == _show(entered)


# --- battle -------------------------------------------------------------------------------

def _odds_at(ratio: Decimal) -> Fraction:
    return battle_odds(Side(infantry=int(ratio * 100)), Side(infantry=100), R).attacker_win


def test_band_chart() -> None:
    """Every band row: the chart's dice and the stronger side's exact chance at its top ratio."""
    _, rows = _block("bands")
    assert [row[1] for row in rows] == [band.name for band in R.bands]
    for (_ratio, name, dice, flat, chance), band in zip(rows, R.bands, strict=True):
        assert name == band.name
        if band.auto:
            top = Decimal("4.01")
        else:
            assert band.max_ratio is not None
            top = band.max_ratio
        if band.equal:
            assert dice == flat == "1d10"
        elif not band.auto:
            assert dice == f"1d20+{'1d2+' if band.d2 else ''}{band.bonus}"
            assert flat == str(R.flat_roll)
        assert _odds_at(top) == Fraction(_pct(chance)) / 100


def test_casualty_chart() -> None:
    """Every margin row gives the winner's and loser's casualty % of the config, 22+ captures."""
    from rules.campaign.battle import casualty_row

    _, rows = _block("casualties")
    assert len(rows) == len(R.casualties)
    for margin, winner, loser in rows:
        low, high = _range(margin)
        for m in {low, high if high is not None else low + 5}:
            row = casualty_row(m, R)
            assert row.winner_pct == _pct(winner)
            assert row.loser_pct == _pct(loser)
            assert row.captured == ("captured" in loser)


def test_worked_battle() -> None:
    """The worked battle, recomputed: strengths, ratio, band, rolls, margin, losses, fates."""
    args, rows = _block("battle")
    a_inf, a_cav = (int(n) for n in args["attacker"].split("/"))
    d_inf, d_cav = (int(n) for n in args["defender"].split("/"))
    attacker = Side(infantry=a_inf, cavalry=a_cav, characters=("Ser Jorah",))
    defender = Side(infantry=d_inf, cavalry=d_cav, terrain=Terrain(args["defender_terrain"]),
                    stationary=True, characters=("Lord Tarly",))
    dice = [int(n) for n in args["dice"].split(",")]
    result = resolve_battle(attacker, defender, dice=ScriptedDice(dice), rules=R)
    shown = {row[0]: row[1] for row in rows}
    assert Decimal(shown["Attacker strength"]) == result.attacker.strength.value
    assert Decimal(shown["Defender strength"]) == result.defender.strength.value
    assert shown["Ratio"] == str(result.ratio)
    assert shown["Band"] == result.band
    assert shown["Attacker roll"] == str(result.attacker.roll)
    assert shown["Defender roll"] == str(result.defender.roll)
    assert shown["Winner"] == result.winner.value
    assert shown["Margin"] == str(result.margin)
    for label, side in (("Attacker losses", result.attacker), ("Defender losses", result.defender)):
        assert _pct(shown[label]) == side.casualty_pct
        assert _troops(shown[label]) == (side.losses.infantry, side.losses.cavalry)
    fates = {f.name: f.fate for f in (*result.attacker.fates, *result.defender.fates)}
    for name, fate in fates.items():
        assert shown[name] == fate.value.replace("_", " ")
    odds = battle_odds(attacker, defender, R)
    assert Fraction(shown["Attacker's chance to win"]) == odds.attacker_win


def _rng(text: str) -> set[int]:
    if text == "never":
        return set()
    low, high = _range(text)
    assert high is not None
    return set(range(low, high + 1))


def test_character_thresholds() -> None:
    """Death, injury and safe d100 ranges per casualty % follow fate_for."""
    _, rows = _block("characters")
    for pct, death, injury, safe in rows:
        p = _pct(pct)
        calls = {fate: {r for r in range(1, 101) if fate_for(r, p, R) is fate} for fate in Fate}
        assert calls[Fate.DEATH_ROLL] == _rng(death)
        assert calls[Fate.INJURY_ROLL] == _rng(injury)
        assert calls[Fate.SAFE] == _rng(safe)


# --- retreat, detection -------------------------------------------------------------------

def test_retreat_chart() -> None:
    """Every d20 of each retreat row gives the row's success, share and escapers."""
    args, rows = _block("retreat")
    inf, cav = int(args["infantry"]), int(args["cavalry"])
    covered: set[int] = set()
    for rolls, outcome, share, escaped in rows:
        span = _rng(rolls)
        covered |= span
        for roll in span:
            result = roll_retreat(inf, cav, dice=ScriptedDice([roll]), rules=R)
            assert result.success == (outcome == "success")
            assert result.fraction * 100 == _pct(share)
            assert (result.escaped.infantry, result.escaped.cavalry) == _troops(escaped)
    assert covered == set(range(1, 21))


def test_detection_chart() -> None:
    """Targets by force size, for a plain observer and for a holdfast (+5, automatic 501+)."""
    _, rows = _block("detection")
    for size, plain, holdfast in rows:
        low, high = _range(size)
        for n in {low, high if high is not None else low + 1000}:
            t = detection_target(n, ObserverKind.NONE, R)
            assert (plain == "automatic") == t.automatic
            if not t.automatic:
                assert t.target == int(plain)
            h = detection_target(n, ObserverKind.HOLDFAST, R)
            assert (holdfast == "automatic") == h.automatic
            if not h.automatic:
                assert holdfast == f"{h.target}, with +{h.bonus} on the roll"


# --- upkeep, regeneration, sieges, modifiers ------------------------------------------------

def test_worked_upkeep() -> None:
    """7 infantry and 3 cavalry cost exactly 1.9 gold a month, 3.8 in winter, and scatter."""
    args, rows = _block("upkeep")
    inf, cav = int(args["infantry"]), int(args["cavalry"])
    shown = {row[0]: row[1] for row in rows}
    assert Decimal(shown[f"{inf} infantry × 0.1"]) == inf * R.infantry_upkeep
    assert Decimal(shown[f"{cav} cavalry × 0.4"]) == cav * R.cavalry_upkeep
    assert shown["Upkeep per month"] == str(monthly_upkeep(inf, cav, Season.SUMMER, R))
    assert shown["Upkeep per month in winter"] == str(monthly_upkeep(inf, cav, Season.WINTER, R))
    summer = apply_upkeep(Decimal(3), inf, cav, Season.SUMMER, R)
    winter = apply_upkeep(Decimal(3), inf, cav, Season.WINTER, R)
    assert Decimal(shown["Gold left from 3 gold, summer"]) == summer.gold_after
    assert not summer.scatter
    assert Decimal(shown["Gold left from 3 gold, winter"]) == winter.gold_after
    assert winter.scatter == (shown["Scatter from 3 gold, winter"] == "yes")
    home = (winter.survivors.infantry, winter.survivors.cavalry)
    assert _troops(shown["Go home after the scatter"]) == home
    assert _troops(shown["Lost in the scatter"]) == (winter.lost.infantry, winter.lost.cavalry)


_GAME_DATE = re.compile(r"Month (\d+), (-?\d+) " + calendar.ERA)


def _game_date(text: str) -> calendar.GameDate:
    """The in-game month a row of the docs names, written as the posts write it
    (:func:`rules.campaign.calendar.format_game_date`)."""
    match = _GAME_DATE.fullmatch(text)
    assert match is not None, f"{text!r} is not a game date"
    date = calendar.GameDate(int(match.group(2)), int(match.group(1)))
    assert calendar.format_game_date(date) == text
    return date


def test_worked_regeneration() -> None:
    """Month by month, the troops back after a loss follow accrue_month."""
    args, rows = _block("regeneration")
    year, month = (int(n) for n in args["lost"].split("/"))
    ledger = record_loss(SlainLedger(), calendar.GameDate(year, month),
                         int(args["infantry"]), int(args["cavalry"]))
    for when, inf, cav in rows:
        date = _game_date(when)
        ledger, back_inf, back_cav = accrue_month(ledger, date, R)
        assert (back_inf, back_cav) == (int(inf), int(cav)), when


def test_siege_chart() -> None:
    """Siege months by garrison size, at both ends of every row."""
    _, rows = _block("siege")
    for garrison, months in rows:
        low, high = _range(garrison)
        for n in {low, high if high is not None else low + 5000}:
            assert siege_months(n, R).months == int(months)


def test_worked_modifiers() -> None:
    """The modifier example: same-named skills do not stack, defense-only and secret effects."""
    _, rows = _block("modifiers")
    shown = {row[0]: row[1] for row in rows}

    def mod(name: str, source: Source, amount: str, role: Role = Role.BOTH,
            hidden: bool = False) -> Modifier:
        return Modifier(name, source, (Effect(EffectKind.STRENGTH, Decimal(amount), role),),
                        hidden=hidden)

    mods = (
        mod("Blackfish", Source.SKILL, "1.2"),
        mod("blackfish", Source.SKILL, "1.3"),
        mod("Curtain wall", Source.IMPROVEMENT, "1.5", Role.DEFENSE),
        mod("War banners", Source.EQUIPMENT, "1.1"),
        mod("holdfast defenses", Source.HOLDFAST, "2", Role.DEFENSE, hidden=True),
    )
    side = Side(infantry=100, cavalry=50, terrain=Terrain.HILL, stationary=True,
                commander_bonus=Decimal("1.1"), modifiers=mods)
    defending = strength(side, Role.DEFENSE, R)
    attacking = strength(side, Role.ATTACK, R)
    assert shown["Base strength"] == str(defending.base)
    factors = [Decimal(part.split()[0].removeprefix("x"))
               for part in shown["Multipliers when defending"].split(",")]
    assert factors == [a.effect.amount for a in defending.applied]
    assert Decimal(shown["Strength when defending"]) == defending.value
    assert Decimal(shown["Strength when attacking"]) == attacking.value
    assert len(defending.public_labels()) == len(defending.applied) - 1


CHECKS: dict[str, Callable[[], None]] = {
    "calendar": test_calendar_examples,
    "muster": test_muster_examples,
    "terrain": test_terrain_table,
    "speed": test_speed_table,
    "march": test_march_timetable,
    "bands": test_band_chart,
    "casualties": test_casualty_chart,
    "battle": test_worked_battle,
    "characters": test_character_thresholds,
    "retreat": test_retreat_chart,
    "detection": test_detection_chart,
    "upkeep": test_worked_upkeep,
    "regeneration": test_worked_regeneration,
    "siege": test_siege_chart,
    "modifiers": test_worked_modifiers,
    "reference": test_reference_table_lists_every_setting_with_its_default,
}


def test_every_marked_table_is_checked() -> None:
    """No marked table goes unchecked, and none of the checked ones has been removed."""
    assert set(_blocks()) == set(CHECKS)
