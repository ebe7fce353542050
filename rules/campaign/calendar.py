"""The campaign clock: ticks, the in-game calendar and the monthly boundaries.

Every instant here is a real (wall-clock) UTC instant; every tick index is a tick of the
world's clock. They differ by the holidays: ``rules.tick_offset`` ticks the world's clock stands
behind the wall clock (0 until a pause is resumed without catching up). :func:`tick_index` and
:func:`tick_time` are the one conversion between the two, for the rules and the services alike.

Ticks
    The world moves on ticks, every ``rules.tick_hours`` hours (default 6: 00:00, 06:00, 12:00
    and 18:00 UTC). Tick indexes count from the Unix epoch (1970-01-01T00:00Z), not from the
    campaign's epoch, so tick instants never depend on when a campaign began and, before any
    holiday, a tick index is the same in every campaign with the same ``tick_hours``. Tick
    ``n`` falls ``(n + rules.tick_offset) * tick_hours`` hours after the Unix epoch (negative
    indexes are before 1970).

In-game calendar
    In-game month 1 of year ``rules.epoch_year`` begins at ``rules.epoch``, moved on by the
    holidays (``rules.tick_offset`` ticks); every in-game month lasts ``rules.month_length`` of
    real time and a year has ``rules.months_per_year`` months (default: one month per real day
    from 00:00 UTC, twelve a year). Instants before the epoch fall in earlier years, counted
    the same way. Seasons are not derived from the calendar; moderators set them.

All datetimes must be timezone-aware; a naive datetime raises :class:`NaiveDatetime`. Results
are in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from rules.campaign.config import RulesConfig
from rules.errors import InvalidInput

UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""Instant of tick index 0 before any holiday."""

ERA = "AC"
"""Era written after the year in game dates ("Month 3, 300 AC")."""


class NaiveDatetime(InvalidInput):
    """A datetime without a time zone reached the rules; the campaign clock is UTC only."""

    def __init__(self, field: str) -> None:
        super().__init__(field, "has no time zone", "a timezone-aware UTC datetime")


def require_aware(moment: datetime, field: str = "time") -> datetime:
    """``moment`` converted to UTC; raises :class:`NaiveDatetime` when it has no time zone."""
    if moment.tzinfo is None or moment.tzinfo.utcoffset(moment) is None:
        raise NaiveDatetime(field)
    return moment.astimezone(UTC)


def tick_length(rules: RulesConfig) -> timedelta:
    """Real time between two ticks; raises InvalidInput when ``tick_hours`` is not positive."""
    if rules.tick_hours < 1:
        raise InvalidInput("tick_hours", f"must be at least 1, not {rules.tick_hours}")
    return timedelta(hours=rules.tick_hours)


def _holidays(rules: RulesConfig) -> timedelta:
    """How far the world's clock stands behind the wall clock."""
    return rules.tick_offset * tick_length(rules)


def tick_index(moment: datetime, rules: RulesConfig) -> int:
    """The world's tick at the real instant ``moment``: the index of the latest tick at or
    before it (ticks counted from the Unix epoch, less the holidays).

    ``tick_time(tick_index(m)) <= m < tick_time(tick_index(m) + 1)`` for every instant ``m``.
    """
    # The holidays are whole ticks: taking them off the wall clock's index is exact.
    return (require_aware(moment, "moment") - UNIX_EPOCH) // tick_length(rules) \
        - rules.tick_offset


def tick_time(index: int, rules: RulesConfig) -> datetime:
    """The real instant of the world's tick ``index``; the inverse of :func:`tick_index` on
    tick instants."""
    return UNIX_EPOCH + (index + rules.tick_offset) * tick_length(rules)


def rules_then(at: datetime, tick: int, rules: RulesConfig) -> RulesConfig:
    """``rules`` with the holidays in force when the world's tick ``tick`` ran at the real
    instant ``at`` (something logged then, as the tick's instant or an order's time): its
    in-game date and times read as they did then, whatever holidays came since.

    The holidays then are how far ``at``'s tick on the wall clock stood ahead of ``tick``,
    bounded by the holidays so far (something logged before a tick fell due, as a pause, does
    not count the ticks it waited as holidays)."""
    wall = (require_aware(at, "at") - UNIX_EPOCH) // tick_length(rules)
    held = min(max(wall - tick, 0), rules.tick_offset)
    return rules if held == rules.tick_offset else replace(rules, tick_offset=held)


def is_tick(moment: datetime, rules: RulesConfig) -> bool:
    """Whether ``moment`` is exactly a tick instant."""
    return tick_time(tick_index(moment, rules), rules) == require_aware(moment, "moment")


def next_tick_at_or_after(moment: datetime, rules: RulesConfig) -> datetime:
    """The first tick at or after ``moment``: the campaign's "nearest 6 hour interval".

    An order accepted exactly on a tick starts on that tick; one accepted a microsecond later
    waits for the following tick.
    """
    moment = require_aware(moment, "moment")
    index = tick_index(moment, rules)
    start = tick_time(index, rules)
    return start if start == moment else tick_time(index + 1, rules)


# --- the in-game calendar ----------------------------------------------------------------

@dataclass(frozen=True, slots=True, order=True)
class GameDate:
    """An in-game month: ``year`` and ``month`` (1 .. ``rules.months_per_year``).

    Dates order chronologically. ``str()`` gives the text form of :func:`format_game_date`.
    """

    year: int
    month: int

    def __post_init__(self) -> None:
        if self.month < 1:
            raise InvalidInput("month", f"must be at least 1, not {self.month}")

    def __str__(self) -> str:
        return format_game_date(self)


@dataclass(frozen=True, slots=True, order=True)
class MonthStart:
    """An in-game month boundary: the month that begins and the real instant it begins."""

    starts_at: datetime
    date: GameDate


def _month_length(rules: RulesConfig) -> timedelta:
    if rules.month_length <= timedelta(0):
        raise InvalidInput("month_length", f"must be positive, not {rules.month_length}")
    if rules.months_per_year < 1:
        raise InvalidInput(
            "months_per_year", f"must be at least 1, not {rules.months_per_year}"
        )
    return rules.month_length


def _epoch(rules: RulesConfig) -> datetime:
    """The real instant in-game month 1 of ``rules.epoch_year`` began, after the holidays."""
    return require_aware(rules.epoch, "epoch") + _holidays(rules)


def month_number(moment: datetime, rules: RulesConfig) -> int:
    """In-game months elapsed from the campaign epoch to ``moment`` (0 in the first month)."""
    return (require_aware(moment, "moment") - _epoch(rules)) // _month_length(rules)


def date_of_month_number(number: int, rules: RulesConfig) -> GameDate:
    """The game date ``number`` months after month 1 of ``rules.epoch_year``."""
    years, month0 = divmod(number, _checked_months_per_year(rules))
    return GameDate(rules.epoch_year + years, month0 + 1)


def month_number_of(date: GameDate, rules: RulesConfig) -> int:
    """Inverse of :func:`date_of_month_number`; raises InvalidInput for a month past the year."""
    per_year = _checked_months_per_year(rules)
    if date.month > per_year:
        raise InvalidInput("month", f"must be at most {per_year}, not {date.month}")
    return (date.year - rules.epoch_year) * per_year + date.month - 1


def _checked_months_per_year(rules: RulesConfig) -> int:
    _month_length(rules)
    return rules.months_per_year


def game_date(moment: datetime, rules: RulesConfig) -> GameDate:
    """The in-game month running at the real instant ``moment``."""
    return date_of_month_number(month_number(moment, rules), rules)


def month_start(date: GameDate, rules: RulesConfig) -> datetime:
    """The real instant in-game month ``date`` begins."""
    return _epoch(rules) + month_number_of(date, rules) * _month_length(rules)


def period_first_tick(period: int, period_months: int, rules: RulesConfig) -> datetime:
    """The first tick at or after the start of period ``period`` of ``period_months`` in-game
    months each (the dice periods, :func:`rules.fairdice.dice_period`)."""
    start = _epoch(rules) + period * period_months * _month_length(rules)
    return next_tick_at_or_after(start, rules)


def next_month(date: GameDate, rules: RulesConfig) -> GameDate:
    """The in-game month after ``date`` (month 1 of the next year after the last month)."""
    return date_of_month_number(month_number_of(date, rules) + 1, rules)


def month_boundaries(after_exclusive: datetime, until_inclusive: datetime, rules: RulesConfig
                     ) -> tuple[MonthStart, ...]:
    """Every in-game month that began in ``(after_exclusive, until_inclusive]``, in order.

    Monthly jobs (upkeep, siege progress, regeneration) run once per item; after downtime every
    missed boundary is returned, so none is skipped and none runs twice when the caller stores
    ``until_inclusive`` as the next call's ``after_exclusive``.
    """
    first = month_number(after_exclusive, rules) + 1
    last = month_number(until_inclusive, rules)
    length = _month_length(rules)
    epoch = _epoch(rules)
    return tuple(
        MonthStart(epoch + n * length, date_of_month_number(n, rules))
        for n in range(first, last + 1)
    )


def year_end(moment: datetime, rules: RulesConfig) -> datetime:
    """The real instant the in-game year running at ``moment`` ends (next year's month 1).

    Troops that scatter at ``moment`` can be raised again from this instant on.
    """
    date = game_date(moment, rules)
    return month_start(GameDate(date.year + 1, 1), rules)


def scattered_until(moment: datetime, rules: RulesConfig) -> datetime:
    """Until when troops that scattered at ``moment`` cannot be raised: the end of that year."""
    return year_end(moment, rules)


def format_game_date(date: GameDate) -> str:
    """``GameDate(300, 3)`` as ``"Month 3, 300 AC"``."""
    return f"Month {date.month}, {date.year} {ERA}"


def moment_text(moment: datetime, rules: RulesConfig) -> str:
    """``2026-11-23 12:00 UTC (Month 5, 300 AC)``: an instant as receipts and posts name it."""
    return f"{moment:%Y-%m-%d %H:%M} UTC ({format_game_date(game_date(moment, rules))})"
