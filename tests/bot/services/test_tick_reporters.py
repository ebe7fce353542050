"""The tick service's one table of reporters (issue #25): every kind of event the rules'
tick reports has exactly one reporter, and the table names nothing else."""

from __future__ import annotations

from typing import get_args

from bot.services.tick import REPORTERS
from rules.campaign.tick import TickEvent


def test_every_tick_event_has_its_reporter() -> None:
    kinds = set(get_args(TickEvent))
    assert len(kinds) >= 21  # the union is read, not an empty stand-in
    assert set(REPORTERS) == kinds
    assert all(callable(report) for report in REPORTERS.values())
