"""The [Dice] posts: commitments before a period, public reveal after it, private reveals."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import select

from bot.db.engine import create_all, make_engine, transaction
from bot.db.models import Claim, Outbox
from bot.maps import demo_map_text
from bot.services import fairplay, journal
from bot.services.setup import DEMO_ROSTER, create_campaign
from rules.fairdice import PUBLIC, DiceLine, branch_secret, claim_branch, commitment
from tests.bot.services.scenario import settings_for

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)


def _campaign(url: str):  # type: ignore[no-untyped-def]
    engine = make_engine(url)
    create_all(engine)
    with transaction(engine) as session:
        ctx = create_campaign(session, settings_for(url), map_text=demo_map_text(),
                              roster=DEMO_ROSTER, now=START, seed="fair")
        claims = {c.id or 0: c.name for c in session.exec(select(Claim)).all()}
    return engine, ctx, claims


def test_start_commits_to_the_current_and_next_period(db_url: str) -> None:
    """`maester init` posts the commitments of the current and next period, once."""
    engine, ctx, claims = _campaign(db_url)
    tick = ctx.tick_of(START)
    with transaction(engine) as session:
        fairplay.start_campaign(session, ctx, tick=tick, at=START, claims=claims)
        fairplay.start_campaign(session, ctx, tick=tick, at=START, claims=claims)  # replay
        posts = session.exec(select(Outbox).where(Outbox.public == True)).all()  # noqa: E712
    assert len(posts) == 1
    period = fairplay.period_of(ctx, tick)
    for p in (period, period + 1):
        for branch in [PUBLIC, *(claim_branch(c) for c in claims)]:
            assert commitment(branch_secret("fair", p, branch)) in posts[0].body
    assert "Reveal" not in posts[0].body


def test_a_new_period_reveals_the_last_one_publicly_and_each_branch_privately(
        db_url: str) -> None:
    """The public secret and the period's public dice lines go in the post; each claim gets
    its own branch secret and its own private lines; no claim secret is ever public."""
    engine, ctx, claims = _campaign(db_url)
    tick = ctx.tick_of(START)
    period = fairplay.period_of(ctx, tick)
    stark = min(claims)
    public_event = fairplay.event_key(ctx, tick, "battle:1", orders=["m2", "m1"])
    private_event = fairplay.event_key(ctx, tick, "detect:1:2:0304", branch=claim_branch(stark))
    with transaction(engine) as session:
        for event, public in ((public_event, True), (private_event, False)):
            dice = fairplay.dice_for(ctx, event)
            dice.roll(20)
            line = DiceLine(event, tuple((r.sides, r.value) for r in dice.rolls))
            journal.log_event(session, ctx.campaign_id, tick, "battle", "x", at=START,
                              public=public, claim_id=stark,
                              data={fairplay.DICE_KEY: str(line)})
        next_month = (period + 1) * ctx.settings.dice.period_months
        next_tick = fairplay.first_tick_of(ctx, period + 1)
        fairplay.month_begins(session, ctx, month=next_month, tick=next_tick, at=START,
                              claims=claims)
        rows = session.exec(select(Outbox)).all()
    post = next(r for r in rows if r.public and r.key.startswith("dice:period:"))
    public_secret = branch_secret("fair", period, PUBLIC)
    assert public_secret.hex() in post.body
    assert "key=battle:1 orders=m1,m2" in post.body
    assert "detect:" not in post.body
    assert all(branch_secret("fair", period, claim_branch(c)).hex() not in post.body
               for c in claims)
    assert commitment(branch_secret("fair", period + 2, PUBLIC)) in post.body
    notes = [r for r in rows if not r.public and r.claim_id == stark]
    assert notes and branch_secret("fair", period, claim_branch(stark)).hex() in notes[0].body
    assert "key=detect:1:2:0304" in notes[0].body
    others = [r for r in rows if not r.public and r.claim_id != stark]
    assert others and all("detect:" not in r.body for r in others)
    lines = fairplay.lines_in(post.body)
    assert [fairplay.verify_line(ctx, ln, public_secret.hex()).fair for ln in lines] == [True]
