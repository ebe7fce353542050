"""The web tests' campaign: the services' scenario (tests/bot/services/scenario.py) played on
to just before House Tully's watchers sight the Lannister host (:data:`BEFORE`), and on to
after the battle at Riverrun (:data:`AFTER`): a sighting, an army that moved on from where it
was seen, a public battle, dice, private news.

Built once per test process into a template file and copied for each test (a SQLite file is
copied; the copy is a real database the web server opens read-only).
"""

from __future__ import annotations

import functools
import shutil
import sqlite3
import tempfile
from datetime import timedelta
from pathlib import Path

from sqlalchemy import update
from sqlmodel import select

from bot.db.engine import make_engine, transaction
from bot.db.models import Outbox, OutboxStatus
from bot.services.tick import catch_up
from bot.services.world import CampaignContext
from tests.bot.services import scenario

BEFORE = scenario.START + timedelta(days=5)
AFTER = scenario.START + timedelta(days=7)
TULLY, LANNISTER, STARK = "House Tully", "House Lannister", "House Stark"


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"


def deliver_posts(url: str) -> None:
    """Mark the public posts delivered, as the deliverer would (with Reddit ids)."""
    engine = make_engine(url)
    with transaction(engine) as session:
        session.execute(update(Outbox).where(Outbox.public, Outbox.kind == "post")  # type: ignore[arg-type]
                        .values(status=OutboxStatus.DELIVERED, reddit_id="t3_abc12"))
    engine.dispose()


def advance(url: str, until: object = AFTER) -> None:
    """Apply the ticks due until ``until`` (default: past the battle)."""
    engine, ctx = scenario.context(url)
    catch_up(engine, ctx, until)  # type: ignore[arg-type]
    engine.dispose()
    deliver_posts(url)


def add_rolled_event(url: str) -> str:
    """A public event of the last period that ended, with dice drawn as the tick draws them
    (:mod:`rules.fairdice`: a d20, a d10 and a d100 from the period's public secret): the
    battles of this campaign happened to need no dice. Returns its printed dice line."""
    from bot.db.models import BeaconRound, Event
    from bot.sandbox.beacon import TEST_KEY, sign_round
    from bot.services.fairplay import DICE_KEY, event_key, first_tick_of, period_of
    from bot.services.journal import log_event
    from bot.services.world import get_campaign
    from rules.beacon import BeaconLine
    from rules.fairdice import EventKey, dice_line

    engine, ctx = scenario.context(url)
    with transaction(engine) as session:
        last = get_campaign(session, ctx).last_tick
        tick = first_tick_of(ctx, period_of(ctx, last) - 1)
        key = event_key(ctx, tick, "battle:900", orders=["o7", "o9"])
        dice = key.dice(ctx.secret)
        for sides in (20, 10, 100):
            dice.roll(sides)
        line = str(dice_line(key, dice))
        log_event(session, ctx.campaign_id, tick, "battle",
                  "House Bolton vs House Frey at the Twins: House Bolton wins",
                  at=ctx.tick_at(tick), public=True, data={DICE_KEY: line})
        assert session.exec(select(Event).where(Event.kind == "battle")).first()
        # and one bound to a beacon round, signed by the local beacon's test key
        signature = sign_round(TEST_KEY, BEACON_ROUND)
        session.add(BeaconRound(campaign_id=ctx.campaign_id, tick=tick, chain="0" * 64,
                                round=BEACON_ROUND, signature=signature.hex(),
                                fetched_at=ctx.tick_at(tick)))
        bound = EventKey(key.period, key.branch, "battle:901", "o8",
                         BeaconLine("0" * 64, BEACON_ROUND, signature).value)
        dice = bound.dice(ctx.secret)
        for sides in (20, 10):
            dice.roll(sides)
        log_event(session, ctx.campaign_id, tick, "battle",
                  "House Bolton vs House Ryswell at the Dreadfort: House Bolton wins",
                  at=ctx.tick_at(tick), public=True, data={DICE_KEY: str(dice_line(bound, dice))})
    engine.dispose()
    return line


BEACON_ROUND = 4242
"""The beacon round the second rolled event of :func:`add_rolled_event` is bound to."""


@functools.cache
def _template(stage: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="maester-web-"))
    path = folder / "template.db"
    scenario.build(url_of(path))
    advance(url_of(path), BEFORE if stage == "before" else AFTER)
    if stage == "after":
        add_rolled_event(url_of(path))
    with sqlite3.connect(path) as db:  # everything in the main file, so a copy is whole
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def campaign(tmp_path: Path, stage: str = "after") -> tuple[str, CampaignContext]:
    """A copy of the campaign at ``stage`` ("before" or "after" the battle): its URL and
    context."""
    path = tmp_path / "campaign.db"
    shutil.copyfile(_template(stage), path)
    url = url_of(path)
    engine, ctx = scenario.context(url)
    engine.dispose()
    return url, ctx


def to_eve_of_battle(url: str) -> int:
    """Apply the ticks up to the one before the battle at Riverrun; returns the battle's tick
    (found with the preview, so the test does not hard-code it)."""
    from bot.services.preview import preview

    engine, ctx = scenario.context(url)
    shown = preview(engine, ctx, AFTER)
    battle = next(t.tick for t in shown
                  if any(q.title.startswith("[Battle]") for q in t.queued))
    catch_up(engine, ctx, ctx.tick_at(battle - 1))
    engine.dispose()
    return battle
