"""``tick --preview`` is "advance and render, write nothing" (issue 25): over several ticks, a
month boundary and a battle on the scripted scenario (SQLite and PostgreSQL), the preview
leaves every row of the database as it was, and what it shows (posts, private notes, notes to
the moderators, journal lines, pictures asked for) is, byte for byte, what the real ticks
then write."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, func, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from bot.config import parse_settings
from bot.db.engine import make_engine, reader_for, transaction
from bot.db.models import Event, MonthlyRun, Outbox, PendingBattle, PostImage
from bot.services import fairplay
from bot.services.preview import preview
from bot.services.tick import catch_up
from bot.services.world import CampaignContext, load_context
from tests.bot.services import scenario
from tests.bot.services.test_snapshots import every_row

DAY = timedelta(days=1)


def _plain(value: Any) -> Any:
    """A value as its JSON column reads it back (tuples as lists, keys as text)."""
    return json.loads(json.dumps(value, default=str))


PICTURES = {"insets": {"inset_maps": True}, "film": {"realm_film": True},
            "widget": {"sidebar_widget": True}}
"""The scenario's [posts] settings: inset maps (the tick asks for pictures of its battle and
arrival posts too), the month's film (each tick keeps a frame, the [Realm] post carries the
month's frames), or the sidebar widget's clock (each tick's update replaces the last one not
sent yet)."""


def _context(url: str, posts: dict[str, Any] | None = None) -> tuple[Engine, CampaignContext]:
    settings = parse_settings({"campaign": {"database_url": url, "name": "Scenario",
                                            "moderators": ["mod_jane"]},
                               "posts": posts or {}})
    engine = make_engine(url)
    with transaction(engine) as session:
        return engine, load_context(session, settings)


@pytest.mark.parametrize("pictures", sorted(PICTURES))
def test_a_preview_writes_nothing_and_shows_byte_for_byte_what_the_ticks_then_write(
        db_url: str, pictures: str) -> None:
    scenario.build(db_url)
    engine, ctx = _context(db_url, PICTURES[pictures])
    catch_up(engine, ctx, scenario.START + DAY)
    until = scenario.START + 6 * DAY
    before = every_row(engine)

    shown = preview(engine, ctx, until)

    assert every_row(engine) == before  # not a row written, not a sequence moved
    with transaction(engine) as session:
        events_mark = session.exec(select(func.max(Event.id))).one() or 0
        queued_before = set(session.exec(select(Outbox.key)).all())
        pictures_before = set(session.exec(select(PostImage.key)).all())
        months_before = len(session.exec(select(MonthlyRun)).all())
    applied = catch_up(engine, ctx, until)
    assert [(t.tick, t.at, t.months, t.events) for t in shown] == \
        [(r.tick, r.at, r.months, r.events) for r in applied]
    with transaction(engine) as session:
        # (new entries by key: a superseded [Realm] post's id may be taken again)
        queued = [(o.tick, o.key, o.kind, o.target, o.title, o.body, o.public, o.claim_id)
                  for o in session.exec(select(Outbox).order_by(col(Outbox.id)))
                  if o.key not in queued_before]
        logged = [(e.tick, e.kind, e.claim_id, e.public, e.actor, e.summary, e.data_json,
                   e.dice_json, e.at) for e in session.exec(
                       select(Event).where(col(Event.id) > events_mark).order_by(col(Event.id)))]
        # new pictures by key (SQLite may reuse the id of a month's film row just dropped);
        # the films' frames are bookkeeping, not pictures
        drawn = [(p.key, p.name, p.caption, p.scene_json) for p in session.exec(
            select(PostImage).order_by(col(PostImage.id)))
            if p.key not in pictures_before and not p.key.startswith("film:")]
        battles = session.exec(select(PendingBattle)).all()
        months = len(session.exec(select(MonthlyRun)).all()) - months_before
    assert queued == [(t.tick, q.key, q.kind, q.target, q.title, q.body, q.public, q.claim_id)
                      for t in shown for q in t.queued]
    assert logged == [(e["tick"], e["kind"], e["claim_id"], e["public"], e["actor"],
                       e["summary"], _plain(e["data_json"]), _plain(e["dice_json"]), e["at"])
                      for t in shown for e in t.journal]
    assert drawn == [(p["key"], p["name"], p["caption"], _plain(p["scene_json"]))
                     for t in shown for p in t.images]
    # what the window holds: a battle fought (its post and its dice), a month begun (its
    # [Realm] post and its picture), private notes, and pictures of the battle
    assert battles and any(kind == "post" and title.startswith("[Battle]")
                           for _, _, kind, _, title, *_ in queued)
    assert months >= 1 and any(key.startswith("realm:") for _, key, *_ in queued)
    assert any(kind == "message" and not public for _, _, kind, _, _, _, public, _ in queued)
    if pictures == "insets":
        assert any(key.startswith("battle:") for key, *_ in drawn)
    elif pictures == "widget":  # the last tick's clock only
        assert [key for _, key, *_ in queued if key.startswith("widget:")] == \
            [f"widget:{applied[-1].tick}"]
    else:  # the [Realm] post's film holds frames the preview kept itself
        realm = next(scene for key, _, _, scene in drawn if key.startswith("realm:"))
        assert any(f["tick"] > applied[0].tick for f in realm["frames"])
    assert any(e[1] == "battle" and fairplay.DICE_KEY in e[6] for e in logged)  # its dice
    # a dice period ended within the window: its reveal lists a private roll the preview
    # made itself in an earlier tick (read back from what it collected, not from the rows)
    assert any(key.startswith("dice:reveal:") and "key=detect:" in body
               for _, key, _, _, _, body, *_ in queued)


def test_a_preview_of_no_due_tick_is_empty_and_writes_nothing(db_url: str) -> None:
    scenario.build(db_url)
    engine, ctx = _context(db_url)
    catch_up(engine, ctx, scenario.START + DAY)
    before = every_row(engine)
    assert preview(engine, ctx, scenario.START + DAY) == []
    assert every_row(engine) == before
    engine.dispose()


def test_the_preview_reads_on_a_connection_that_cannot_write(db_url: str) -> None:
    """The preview's connection refuses a write (SQLite: the file opened read-only;
    PostgreSQL: a READ ONLY transaction): a slip in a reporter could not change the
    campaign."""
    scenario.build(db_url)
    engine = make_engine(db_url)
    reader = reader_for(engine)
    try:
        with Session(reader) as session, session.begin(), \
                pytest.raises(DBAPIError, match=r"(?i)read.?only"):
            session.connection().execute(text("DELETE FROM outbox"))
    finally:
        if reader is not engine:
            reader.dispose()
        engine.dispose()
