"""A small campaign on a real SQLite file for the catalogue tests (modifiers, fleets, fates).

Orders go through :func:`bot.messages.handle_message` and time through
:func:`bot.services.tick.catch_up`, as in production. :meth:`World.place` moves a standing army
straight to a tile (a moderator's adjustment) so a test need not march it across the map.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from bot.config import parse_settings
from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Army, ArmyState, Character, Claim, Event, Outbox, Siege
from bot.maps import demo_map_text
from bot.messages import handle_message
from bot.services.catalogue import demo_catalogue_text, grant_skill
from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign
from bot.services.tick import catch_up
from bot.services.world import CampaignContext

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)
"""Sunday 07:30 UTC; in-game months begin at 00:00 each real day."""


def demo_catalogue_data(**extra: Mapping[str, Any]) -> dict[str, Any]:
    """The demo catalogue as decoded TOML, with ``extra`` entries added per section."""
    data = tomllib.loads(demo_catalogue_text())
    for section, entries in extra.items():
        data.setdefault(section, {}).update(entries)
    return data


def roster(*names: str, **changes: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The demo roster entries of the named claims, with per-claim changes by short name."""
    out = []
    for entry in DEMO_ROSTER:
        short = str(entry["name"]).removeprefix("House ").lower()
        if short in names:
            out.append({**entry, **changes.get(short, {})})
    return out


class World:
    """One campaign in ``tmp_path``."""

    def __init__(self, tmp_path: Path, *, claims: Sequence[Mapping[str, Any]] | None = None,
                 wars: Sequence[tuple[str, str]] | None = None,
                 catalogue: Mapping[str, Any] | None = None,
                 characters: Mapping[str, Any] | None = None,
                 rules: Mapping[str, Any] | None = None, seed: str = "issue-6",
                 map_text: str | None = None, dice: Mapping[str, Any] | None = None,
                 url: str | None = None) -> None:
        url = url or f"sqlite:///{tmp_path / 'campaign.db'}"
        self.settings = parse_settings({
            "dice": dict(dice or {}),
            "campaign": {"database_url": url, "moderators": ["mod_jane"]},
            "catalogue": dict(catalogue) if catalogue is not None else {"file": "demo"},
            "characters": dict(characters or {}),
            "rules": dict(rules or {}),
        })
        self.engine = make_engine(url)
        create_all(self.engine)
        claims = DEMO_ROSTER if claims is None else claims
        names = {c["name"] for c in claims}
        if wars is None:
            wars = [w for w in DEMO_WARS if w[0] in names and w[1] in names]
        with transaction(self.engine) as session:
            self.ctx: CampaignContext = create_campaign(
                session, self.settings, map_text=map_text or demo_map_text(), roster=claims,
                now=START, seed=seed, wars=wars)
        self.now = START
        self._refs = 0

    @contextmanager
    def session(self) -> Iterator[Session]:
        with transaction(self.engine) as session:
            yield session

    def say(self, who: str, text: str, *, at: datetime | None = None) -> str:
        """Send one message as u/``who``; returns the reply."""
        self._refs += 1
        with self.session() as session:
            return handle_message(session, self.ctx, author=who, text=text,
                                  now=at or self.now, ref=f"m{self._refs}")

    def run(self, until: datetime) -> list[str]:
        """Apply every tick up to ``until``; returns the events they reported."""
        events: list[str] = []
        for report in catch_up(self.engine, self.ctx, until):
            events.extend(report.events)
        self.now = until
        return events

    def later(self, **delta: float) -> datetime:
        return self.now + timedelta(**delta)

    def grant(self, character: str, skill: str) -> None:
        with self.session() as session:
            grant_skill(session, self.ctx, character, skill, by="mod_jane", now=self.now)

    def place(self, army_id: int, tile: str) -> None:
        """Put a raised army, standing, on ``tile`` (as if it had arrived long ago)."""
        with self.session() as session:
            army = session.get(Army, army_id)
            assert army is not None and army.state != ArmyState.MUSTERING, army
            army.tile = self.ctx.world.tile(tile).id
            army.state = ArmyState.STANDING
            army.stationary_since = 0
            army.path_json, army.costs_json = [], []
            session.add(army)

    def army(self, army_id: int) -> Army:
        with self.session() as session:
            found = session.get(Army, army_id)
            assert found is not None
            return found

    def claim(self, name: str) -> Claim:
        with self.session() as session:
            return session.exec(select(Claim).where(Claim.name == name)).one()

    def character(self, name: str) -> Character:
        with self.session() as session:
            return session.exec(select(Character).where(Character.name == name)).one()

    def siege(self) -> Siege:
        with self.session() as session:
            return session.exec(select(Siege).order_by(col(Siege.id).desc())).first() \
                or Siege(campaign_id=0, army_id=0, besieger_claim=0, defender_claim=0,
                         holdfast="", started_tick=0)

    def outbox(self, *, public: bool | None = None, target: str | None = None
               ) -> list[Outbox]:
        with self.session() as session:
            query = select(Outbox).order_by(col(Outbox.id))
            if public is not None:
                query = query.where(Outbox.public == public)
            if target is not None:
                query = query.where(Outbox.target == target)
            return list(session.exec(query).all())

    def posts(self) -> list[Outbox]:
        return self.outbox(public=True)

    def events(self, kind: str) -> list[Event]:
        with self.session() as session:
            return list(session.exec(select(Event).where(Event.kind == kind)
                                     .order_by(col(Event.id))).all())
