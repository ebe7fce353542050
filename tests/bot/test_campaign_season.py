"""The campaign's season is stored like every lifecycle column: it reads back as a
:class:`~rules.campaign.config.Season` member (never a raw string), with no migration (the
column is the same text), and a value that is not a season is refused when written."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import StatementError
from sqlmodel import select

from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Campaign
from rules.campaign.config import Season


def test_the_season_reads_back_as_a_member_and_a_typo_is_refused(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'season.db'}")
    try:
        create_all(engine)
        with transaction(engine) as session:
            session.add(Campaign(name="A", secret="s"))
            session.add(Campaign(name="B", secret="s", season=Season.WINTER))
        with transaction(engine) as session:
            seasons = [c.season for c in session.exec(select(Campaign).order_by(Campaign.name))]
            assert seasons == [Season.SUMMER, Season.WINTER]
            assert all(type(s) is Season for s in seasons)
            stored = session.execute(text("SELECT season FROM campaign ORDER BY name")).all()
            assert [row[0] for row in stored] == ["summer", "winter"]
        with pytest.raises(StatementError), transaction(engine) as session:
            session.add(Campaign(name="C", secret="s", season="sumer"))
    finally:
        engine.dispose()
