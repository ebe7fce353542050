"""Creating a campaign refuses a roster with a bad value and writes nothing (real SQLite)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlmodel import select

from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Campaign
from bot.maps import demo_map_text
from bot.services.setup import create_campaign
from tests.bot.services.scenario import settings_for

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)
STARK = {"name": "House Stark", "holdfast": "Winterfell", "players": ["ned_stark"],
         "gold": "900", "infantry": 3000}
BOLTON = {"name": "House Bolton", "holdfast": "The Dreadfort", "players": ["roose_bolton"]}


@pytest.mark.parametrize(("roster", "words"), [
    ([{**STARK, "gold": "NaN"}], "roster[0].gold"),
    ([{**STARK, "gold": "1e999999"}], "roster[0].gold"),
    ([{**STARK, "gold": "Infinity"}], "roster[0].gold"),
    ([{**STARK, "players": "ned_stark"}], "roster[0].players"),
    ([STARK, {**BOLTON, "players": ["Ned_Stark"]}], "already plays"),
    ([STARK, {**BOLTON, "name": "house stark"}], "without case"),
    ([{**STARK, "characters": ["Robb"]}, {**BOLTON, "characters": ["ROBB"]}], "without case"),
    ([{**STARK, "name": "House [Stark](https://evil.example) u/ned_stark"}], "roster[0].name"),
])
def test_a_bad_roster_is_refused_naming_the_key(tmp_path: Any, roster: list[dict[str, Any]],
                                                words: str) -> None:
    """Every number is finite and sane, players is a list, names are unique ignoring case."""
    url = f"sqlite:///{tmp_path / 'c.db'}"
    engine = make_engine(url)
    create_all(engine)
    pattern = re.escape(words)
    with pytest.raises(ValueError, match=pattern), transaction(engine) as session:
        create_campaign(session, settings_for(url), map_text=demo_map_text(),
                        roster=roster, now=START, seed="s")
    with transaction(engine) as session:
        assert session.exec(select(Campaign)).first() is None
