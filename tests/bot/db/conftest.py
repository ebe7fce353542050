"""Fixtures for the storage tests.

``shared_engine`` is one migrated database per test module and backend: migrating a fresh
PostgreSQL schema costs a few tenths of a second, so the tests of column types and keys share
one and stay apart by each adding its own campaign (every key is per campaign). Tests of the
migrations themselves, and of anything global, use the per-test ``engine``/``db_url``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.db.models import Campaign
from tests.fixtures.db import BACKENDS, fresh_schema, require_postgres, sqlite_url


def add_campaign(engine: Engine, name: str = "Westeros") -> int:
    """Insert a campaign and return its id (every other table refers to one)."""
    with transaction(engine) as session:
        campaign = Campaign(name=name, secret="not-a-real-secret")
        session.add(campaign)
        session.flush()
        assert campaign.id is not None
        return campaign.id


@pytest.fixture(scope="module", params=BACKENDS)
def shared_engine(request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A migrated database shared by the tests of one module (see the module docstring)."""
    if request.param == "sqlite":
        url = sqlite_url(tmp_path_factory.mktemp("shared") / "maester.db")
        engine = make_engine(url)
        upgrade(engine)
        yield engine
        engine.dispose()
        return
    with fresh_schema(require_postgres()) as url:
        engine = make_engine(url)
        upgrade(engine)
        yield engine
        engine.dispose()


@pytest.fixture
def campaign_id(shared_engine: Engine, request: pytest.FixtureRequest) -> int:
    """A campaign of this test's own in the shared database."""
    return add_campaign(shared_engine, request.node.name[:120])


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    return tmp_path / "maester.db"


@pytest.fixture
def sqlite_engine(sqlite_file: Path) -> Iterator[Engine]:
    """A migrated engine on a SQLite file (for tests of SQLite's own settings)."""
    engine = make_engine(sqlite_url(sqlite_file))
    upgrade(engine)
    yield engine
    engine.dispose()
