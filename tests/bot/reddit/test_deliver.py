"""Output: effectively once. Posts, replies and private news through real PRAW."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Outbox
from bot.reddit import deliver
from bot.reddit.deliver import (
    BACKOFF_BASE,
    claim_next,
    compose_body,
    marker,
    publish_once,
    release_claims,
)
from bot.reddit.gateway import praw_gateway
from bot.reddit.ratelimit import RequestBudget
from bot.sandbox import BOT_USERNAME, SUBREDDIT, Fault
from bot.services import journal
from rules.campaign import calendar
from tests.bot.reddit.conftest import SLOW, TIMEOUT, Harness, make_harness
from tests.bot.reddit.test_ratelimit import FakeTime
from tests.fixtures.db import sqlite_url


def queue(bot: Harness, key: str, kind: str = "post", *, body: str = "The host arrives.",
          title: str = "[Arrival] House Stark arrives at Moat Cailin", target: str = "",
          tick: int | None = None) -> None:
    now = bot.clock.now()
    with transaction(bot.engine) as session:
        journal.queue(session, bot.ctx.campaign_id, key, kind, body=body, at=now,
                      tick=bot.ctx.tick_of(now) if tick is None else tick,
                      target=target or (SUBREDDIT if kind == "post" else ""), title=title,
                      public=kind == "post")


def entry(bot: Harness, key: str) -> Outbox:
    with transaction(bot.engine) as session:
        return session.exec(select(Outbox).where(Outbox.key == key)).one()


def posts_with(bot: Harness, key: str) -> list[str]:
    return [p.id for p in bot.sandbox.posts(author=BOT_USERNAME) if marker(key) in p.body]


def test_a_post_carries_its_hidden_marker(bot: Harness) -> None:
    """The marker is an empty markdown link at the end: invisible, unique per key."""
    queue(bot, "arrival:1:5")
    report = bot.publish()
    assert report.delivered == 1
    (post,) = bot.sandbox.posts(author=BOT_USERNAME)
    assert post.title == "[Arrival] House Stark arrives at Moat Cailin"
    assert post.body == ("The host arrives.\n\n"
                         f"{deliver.reference_line(bot.ctx, 'arrival:1:5')}\n\n"
                         "[](#maester:arrival:1:5)")
    assert entry(bot, "arrival:1:5").reddit_id == f"t3_{post.id}"
    assert bot.sandbox.request_count(route="submit") == 1


@pytest.mark.parametrize("fault", [
    Fault.stored_then_slow(SLOW),
    Fault.stored_then_error(504),
    Fault.server_error(503),
    Fault.lost(SLOW),
], ids=["stored-then-slow", "stored-then-504", "503", "lost"])
def test_a_post_appears_once_whatever_the_failure(bot: Harness, fault: Fault) -> None:
    """A post whose answer is lost, slow or a 5xx (stored or not) is retried later; the
    marker check finds a stored copy, so exactly one post exists in the end. prawcore is
    not allowed to repeat the POST by itself."""
    queue(bot, "battle:7")
    bot.sandbox.add_fault(fault, method="POST", path="/api/submit")
    first = bot.publish()
    assert (first.delivered, first.retry_later) == (0, 1)
    assert bot.sandbox.request_count(route="submit") == 1
    row = entry(bot, "battle:7")
    assert row.attempts == 1 and row.not_before == bot.clock.now() + BACKOFF_BASE
    assert bot.publish().delivered == 0  # not before the back-off is over: no spinning
    bot.clock.advance(BACKOFF_BASE)
    second = bot.publish()
    assert second.delivered == 1
    stored = fault.kind.value in ("stored_then_slow", "stored_then_error")
    assert second.found_existing == int(stored)
    assert len(posts_with(bot, "battle:7")) == 1
    assert entry(bot, "battle:7").status == "delivered"


def test_a_429_postpones_everything_without_spinning(bot: Harness) -> None:
    """A 429 ends the round after one request, postpones every pending entry by Reddit's
    reset time, and does not count as an attempt."""
    for i in range(3):
        queue(bot, f"arrival:{i}:1")
    bot.sandbox.add_fault(Fault.too_many_requests(reset_seconds=1), method="POST",
                          path="/api/submit")
    report = bot.publish()
    assert report.delivered == 0 and report.rate_limited_until is not None
    assert bot.sandbox.request_count(route="submit") == 1
    assert all(e.attempts == 0 and e.not_before == report.rate_limited_until
               for e in bot.outbox())
    bot.clock.advance(timedelta(seconds=1))
    assert bot.publish().delivered == 3
    assert all(len(posts_with(bot, f"arrival:{i}:1")) == 1 for i in range(3))


def test_ratelimit_waits_as_long_as_reddit_says(bot: Harness) -> None:
    """"you are doing that too much. try again in 9 minutes": nothing is tried for nine
    minutes, then the post goes out once."""
    queue(bot, "siege:1:month:300:2")
    bot.sandbox.add_fault(Fault.ratelimit(9, "minutes"), method="POST", path="/api/submit")
    report = bot.publish()
    assert report.rate_limited_until == bot.clock.now() + timedelta(minutes=9)
    bot.sandbox.reset_requests()
    bot.clock.advance(timedelta(minutes=8))
    assert bot.publish().delivered == 0
    assert bot.sandbox.request_count() == 0
    bot.clock.advance(timedelta(minutes=1))
    assert bot.publish().delivered == 1
    assert len(posts_with(bot, "siege:1:month:300:2")) == 1


def test_a_dead_entry_is_reported_to_the_moderators(bot: Harness) -> None:
    """A refusal of the entry itself (a post Reddit rejects) marks it dead at once and
    queues an internal modmail telling the moderators what failed; the rest goes on."""
    queue(bot, "battle:9")
    queue(bot, "battle:10")
    bot.sandbox.add_fault(Fault.api_error("TOO_LONG", "this is too long", "title"),
                          method="POST", path="/api/submit")
    report = bot.publish()
    assert report.dead == 1 and report.delivered == 2  # the report went out in the round
    assert entry(bot, "battle:9").status == "dead"
    assert entry(bot, "battle:10").status == "delivered"
    report_entry = entry(bot, "dead:battle:9")
    assert report_entry.kind == "mod" and report_entry.status == "delivered"
    internal = [c for c in bot.sandbox.conversations() if c.is_internal]
    assert len(internal) == 1 and "could not deliver" in internal[0].subject
    body = bot.sandbox.conversation_messages(internal[0].id)[0].body
    assert "battle:9" in body and "maester outbox retry" in body
    assert len(bot.events("delivery_dead")) == 1
    assert deliver.retry(bot.engine, bot.ctx, bot.clock.now(), entry_id=entry(
        bot, "battle:9").id) == 1
    assert bot.publish().delivered == 1
    assert len(posts_with(bot, "battle:9")) == 1


@pytest.mark.parametrize("fault", [
    Fault.forbidden(),
    Fault.api_error("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr"),
], ids=["403", "subreddit-gone"])
def test_a_refusal_of_everything_halts_posting_and_kills_nothing(bot: Harness,
                                                                 fault: Fault) -> None:
    """A wrong subreddit or a missing permission: the first refusal stops posting, every
    entry stays pending, the moderators are told once (modmail still works), one entry is
    tried again after the probe interval, and `maester outbox retry` resumes at once."""
    for n in range(5):
        queue(bot, f"battle:{n}")
    bot.sandbox.add_fault(fault, method="POST", path="/api/submit", times=None)
    report = bot.publish()
    assert report.dead == 0 and report.halted
    assert bot.sandbox.request_count(route="submit") == 1
    assert {entry(bot, f"battle:{n}").status for n in range(5)} == {"pending"}
    assert entry(bot, "battle:0").attempts == 0
    internal = [c for c in bot.sandbox.conversations() if c.is_internal]
    assert len(internal) == 1 and "stopped posting" in internal[0].subject
    assert "maester outbox retry" in bot.sandbox.conversation_messages(internal[0].id)[0].body
    for _ in range(3):  # later rounds send nothing and say nothing more
        bot.clock.advance(timedelta(minutes=1))
        assert bot.publish().halted
    assert bot.sandbox.request_count(route="submit") == 1
    assert len([c for c in bot.sandbox.conversations() if c.is_internal]) == 1
    assert len(bot.events("delivery_halted")) == 1
    bot.clock.advance(deliver.state.HALT_PROBE)
    bot.publish()  # the probe: refused again, still no second note
    assert bot.sandbox.request_count(route="submit") == 2
    assert len([c for c in bot.sandbox.conversations() if c.is_internal]) == 1
    bot.sandbox.clear_faults()
    deliver.retry(bot.engine, bot.ctx, bot.clock.now())
    report = bot.publish()
    assert report.delivered == 5 and not report.halted
    assert all(len(posts_with(bot, f"battle:{n}")) == 1 for n in range(5))


def test_too_many_failures_make_an_entry_dead(sandbox: Any, tmp_path: Any,
                                             tmp_path_factory: Any) -> None:
    """After ``max_attempts`` transient failures the entry is given up and reported."""
    bot = make_harness(sandbox, sqlite_url(tmp_path / "b.db"), tmp_path_factory, max_attempts=3)
    queue(bot, "arrival:3:3")
    bot.sandbox.add_fault(Fault.server_error(502), method="POST", path="/api/submit",
                          times=None)
    for _ in range(3):
        bot.publish()
        bot.clock.advance(timedelta(hours=1))
    assert entry(bot, "arrival:3:3").status == "dead"
    assert entry(bot, "arrival:3:3").attempts == 3
    assert "after 3 attempts" in entry(bot, "arrival:3:3").last_error
    assert entry(bot, "dead:arrival:3:3").status == "delivered"
    bot.engine.dispose()


def test_a_failed_report_is_not_reported_again(bot: Harness) -> None:
    """If the moderators' report itself is refused, no report loop: a refused report dies
    quietly, and a refusal of all modmail (403) halts it with one note, kept pending."""
    queue(bot, "dead:x", "mod", title="report", body="x")
    bot.sandbox.add_fault(Fault.api_error("TOO_LONG", "too long", "body"), method="POST",
                          path="/api/mod/conversations")
    assert bot.publish().dead == 1
    assert [e.key for e in bot.outbox()] == ["dead:x"]
    queue(bot, "dead:y", "mod", title="report", body="y")
    bot.sandbox.add_fault(Fault.forbidden(), method="POST", path="/api/mod/conversations",
                          times=None)
    assert bot.publish().dead == 0
    bot.clock.advance(timedelta(hours=1))
    assert bot.publish().dead == 0
    keys = [(e.key.split(":")[0], e.status) for e in bot.outbox()]
    assert keys == [("dead", "dead"), ("dead", "pending"), ("halt", "pending")]


def test_a_late_post_says_so_and_names_its_time(bot: Harness) -> None:
    """An entry more than one tick old starts with a line saying it is late and naming
    the in-game time it belongs to; a fresh one does not."""
    now_tick = bot.ctx.tick_of(bot.clock.now())
    queue(bot, "arrival:5:old", tick=now_tick - 3)
    queue(bot, "arrival:5:new", tick=now_tick - 1)
    bot.publish()
    old = bot.sandbox.post(posts_with(bot, "arrival:5:old")[0]).body
    new = bot.sandbox.post(posts_with(bot, "arrival:5:new")[0]).body
    belongs = bot.ctx.when(bot.ctx.tick_at(now_tick - 3))
    assert old.startswith(f"*Late: this belongs to {belongs};")
    assert not new.startswith("*Late")


def test_a_crash_between_posting_and_recording_makes_no_double(
        bot: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process dies after Reddit took the post but before the database knew: the next
    holder of the lease forgets the claim, finds the marker and only records it."""
    queue(bot, "battle:11")

    def die(*args: Any, **kwargs: Any) -> None:
        raise SystemExit("kill -9")

    monkeypatch.setattr(deliver, "_mark_delivered", die)
    with pytest.raises(SystemExit):
        bot.publish()
    monkeypatch.undo()
    assert bot.publish().delivered == 0  # still claimed by the dead worker
    assert release_claims(bot.engine, bot.ctx) == 1
    report = bot.publish()
    assert (report.delivered, report.found_existing) == (1, 1)
    assert len(posts_with(bot, "battle:11")) == 1


def test_an_expired_claim_is_taken_over(bot: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a restart, another worker takes an entry over once its claim has expired."""
    queue(bot, "battle:12")
    now = bot.clock.now()
    claimed = claim_next(bot.engine, bot.ctx, worker_id="gone", now=now)
    assert claimed is not None and claimed.attempts == 1
    assert claim_next(bot.engine, bot.ctx, worker_id="other", now=now) is None
    bot.clock.advance(deliver.claim_seconds(bot.ctx))
    assert bot.publish(worker="other").delivered == 1
    assert entry(bot, "battle:12").attempts == 2


@pytest.mark.parametrize(("kind", "path"), [
    ("reply", "/api/mod/conversations/*"),
    ("message", "/api/mod/conversations"),
    ("comment", "/api/comment"),
])
def test_replies_messages_and_comments_appear_once_after_a_slow_answer(
        bot: Harness, kind: str, path: str) -> None:
    """Every kind of output survives "stored, then too slow": the marker is found in the
    conversation, among the subreddit's conversations, or among the bot's comments."""
    target = ""
    if kind == "reply":
        target, _ = bot.send("ned_stark", "hello")
    elif kind == "message":
        target = "ned_stark"
    else:
        target = "t1_" + bot.sandbox.seed_mention("ned_stark", BOT_USERNAME, subreddit=SUBREDDIT)
    queue(bot, f"{kind}:k1", kind, body="Army 1 is ready.", title="Army 1 is ready",
          target=target)
    bot.sandbox.add_fault(Fault.stored_then_slow(SLOW), method="POST", path=path)
    assert bot.publish().retry_later == 1
    bot.clock.advance(BACKOFF_BASE)
    report = bot.publish()
    assert (report.delivered, report.found_existing) == (1, 1)
    tag = marker(f"{kind}:k1")
    copies = [c.body for c in bot.sandbox.comments(author=BOT_USERNAME) if tag in c.body]
    for conversation in bot.sandbox.conversations():
        copies += [m.body for m in bot.sandbox.conversation_messages(conversation.id)
                   if tag in m.body]
    assert len(copies) == 1


def test_private_news_goes_to_the_claims_player(bot: Harness) -> None:
    """A ``message`` entry starts a modmail conversation with that player (private)."""
    now = bot.clock.now()
    with transaction(bot.engine) as session:
        journal.notify_claim(session, bot.ctx.campaign_id, 1, "ready:1", subject="Army 1 "
                             "is ready", body="Army 1 has mustered.", at=now,
                             tick=bot.ctx.tick_of(now))
    bot.publish()
    (conversation,) = bot.sandbox.conversations()
    assert conversation.participant == "ned_stark" and not conversation.is_internal
    assert conversation.subject.startswith("Dispatches for House Stark: ")
    assert any("Army 1 has mustered." in m.body and "Army 1 is ready" in m.body
               for m in bot.sandbox.private_messages("ned_stark"))


def _notify(bot: Harness, key: str, subject: str, claim_id: int = 1,
            tick: int | None = None) -> None:
    now = bot.clock.now()
    with transaction(bot.engine) as session:
        journal.notify_claim(session, bot.ctx.campaign_id, claim_id, key, subject=subject,
                             body=f"{subject}: details.", at=now,
                             tick=bot.ctx.tick_of(now) if tick is None else tick)


def _to_a_tick_before_month_end(bot: Harness) -> None:
    """Move the clock on until the next tick falls in the same in-game month as this one.

    The tests below gather notes of one tick and of the next into one dispatch; at a month's
    last tick (18:00 UTC with the default calendar) the next tick opens a new month, and so a
    new dispatch conversation, which is not what they check."""
    def month(tick: int) -> int:
        return calendar.month_number(bot.ctx.tick_at(tick), bot.ctx.rules)

    while month(bot.ctx.tick_of(bot.clock.now())) != month(bot.ctx.tick_of(bot.clock.now()) + 1):
        bot.clock.advance(timedelta(hours=bot.ctx.rules.tick_hours))


def test_a_claims_news_goes_into_one_dispatch_conversation(bot: Harness) -> None:
    """One tick's notes for a claim arrive as ONE message; the next tick's notes are a
    reply in the same conversation, and so are a new in-game month's (#30: with the default
    calendar a month is a real day); after ``[bot] dispatch_days`` of real time (a week)
    the next note starts a new one."""
    _to_a_tick_before_month_end(bot)
    for n in range(4):
        _notify(bot, f"upkeep:1:{n}", f"Note {n}")
    _notify(bot, "ready:2:1", "Lannister news", claim_id=2)
    report = bot.publish()
    assert report.delivered == 5 and report.sends == 2
    stark = [c for c in bot.sandbox.conversations() if c.participant == "ned_stark"]
    assert len(stark) == 1 and stark[0].num_messages == 1
    (body,) = [m.body for m in bot.sandbox.conversation_messages(stark[0].id)]
    keys = [f"upkeep:1:{n}:ned_stark" for n in range(4)]
    assert all(f"**Note {n}**" in body and marker(keys[n]) in body for n in range(4))
    assert len({entry(bot, key).reddit_id for key in keys}) == 1
    tick = bot.ctx.tick_of(bot.clock.now())
    _notify(bot, "upkeep:1:next", "Next tick", tick=tick + 1)
    bot.publish()
    stark = [c for c in bot.sandbox.conversations() if c.participant == "ned_stark"]
    assert len(stark) == 1 and stark[0].num_messages == 2
    month_ticks = bot.ctx.rules.month_length // timedelta(hours=bot.ctx.rules.tick_hours)
    bot.clock.advance(bot.ctx.rules.month_length)
    _notify(bot, "upkeep:1:month", "Next month", tick=tick + month_ticks)
    bot.publish()
    stark = [c for c in bot.sandbox.conversations() if c.participant == "ned_stark"]
    assert len(stark) == 1 and stark[0].num_messages == 3
    bot.clock.advance(timedelta(days=bot.settings.bot.dispatch_days))
    _notify(bot, "upkeep:1:week", "A week later")
    bot.publish()
    stark = [c for c in bot.sandbox.conversations() if c.participant == "ned_stark"]
    assert len(stark) == 2 and stark[0].subject != stark[1].subject


def test_a_dispatch_that_reached_reddit_is_not_sent_twice(bot: Harness) -> None:
    """A reply into the dispatch conversation stored but answered too late: the retry finds
    its markers and records every note of the group, sending nothing again."""
    _to_a_tick_before_month_end(bot)
    _notify(bot, "a:1", "First")
    bot.publish()
    _notify(bot, "b:1", "Second", tick=bot.ctx.tick_of(bot.clock.now()) + 1)
    _notify(bot, "b:2", "Third", tick=bot.ctx.tick_of(bot.clock.now()) + 1)
    bot.sandbox.add_fault(Fault.stored_then_error(504), method="POST",
                          path="/api/mod/conversations/*")
    assert bot.publish().retry_later == 2
    bot.clock.advance(timedelta(hours=1))
    report = bot.publish()
    assert report.delivered == 2 and report.found_existing == 2
    (conversation,) = bot.sandbox.conversations()
    assert conversation.num_messages == 2


def test_a_dispatch_retry_walks_the_modmail_folders_once(bot: Harness) -> None:
    """A dispatch whose "create" failed (nothing stored) is retried with no conversation
    known: one walk of the folders looks for the earlier attempt's copy and for a live
    dispatch conversation together (it walked them twice), then the note goes out once."""
    _to_a_tick_before_month_end(bot)
    bot.sandbox.add_fault(Fault.server_error(500), method="POST",
                          path="/api/mod/conversations")
    _notify(bot, "a:1", "First")
    assert bot.publish().retry_later == 1
    bot.clock.advance(timedelta(hours=1))
    bot.sandbox.reset_requests()
    assert bot.publish().delivered == 1
    assert bot.sandbox.request_count(route="modmail.list") == len(deliver._DISPATCH_FOLDERS)
    (conversation,) = bot.sandbox.conversations()
    assert conversation.num_messages == 1


def test_a_body_too_long_for_reddit_is_cut_and_keeps_its_marker(bot: Harness) -> None:
    """Modmail takes 10,000 characters: a longer reply is cut with a note, marker kept."""
    queue(bot, "reply:long", "reply", body="x" * 12_000, title="", target="0")
    claimed = claim_next(bot.engine, bot.ctx, worker_id="w", now=bot.clock.now())
    assert claimed is not None
    text = compose_body(bot.ctx, claimed, bot.clock.now())
    assert len(text) <= deliver.MAX_MESSAGE_BODY
    assert text.endswith(marker("reply:long")) and "cut short" in text


def test_two_deliverers_never_post_the_same_entry(bot_any: Harness) -> None:
    """Two workers with their own Reddit clients drain one outbox concurrently: every entry
    is claimed by one of them and posted exactly once (SKIP LOCKED / conditional UPDATE)."""
    bot = bot_any
    for i in range(24):
        queue(bot, f"arrival:{i}:race")
    other = praw_gateway(bot.settings, budget=RequestBudget(100_000), timeout=TIMEOUT)
    reports: list[Any] = []

    def work(name: str, gateway: Any) -> None:
        reports.append(publish_once(bot.engine, bot.ctx, gateway, bot.clock, worker_id=name,
                                    limit=100))

    threads = [threading.Thread(target=work, args=("a", bot.gateway)),
               threading.Thread(target=work, args=("b", other))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sum(r.delivered for r in reports) == 24
    markers = Counter(p.body.rsplit("#maester:", 1)[1] for p in
                      bot.sandbox.posts(author=BOT_USERNAME))
    assert len(markers) == 24 and set(markers.values()) == {1}
    assert all(e.attempts == 1 and e.status == "delivered" for e in bot.outbox())


def test_posts_and_messages_are_spaced_out(bot: Harness) -> None:
    """Posts ``post_spacing`` apart, messages ``message_spacing`` apart (two lanes), so a
    tick's output never goes out as one burst."""
    fake = FakeTime()
    pacer = deliver.Pacer(5.0, 1.0, 100, monotonic=fake.monotonic, sleep=fake.sleep)
    for n in range(3):
        queue(bot, f"arrival:{n}")
    for n in range(2):
        _notify(bot, f"ready:{n}", f"Army {n} is ready", claim_id=n + 1)
    report = publish_once(bot.engine, bot.ctx, bot.gateway, bot.clock, worker_id="w",
                          pacer=pacer)
    assert report.delivered == 5 and report.sends == 5
    assert fake.slept == [5.0, 5.0, 1.0]  # posts 2 and 3, then the second message
    assert report.paced_seconds == 11.0


def test_the_cap_per_minute_ends_the_round_and_the_next_goes_on(bot: Harness) -> None:
    """Beyond ``sends_per_minute`` the round ends (no long sleep holding the bot); the
    next round, a minute on, sends the rest. Nothing is lost or counted as an attempt."""
    fake = FakeTime()
    pacer = deliver.Pacer(0.0, 0.0, 3, monotonic=fake.monotonic, sleep=fake.sleep)
    for n in range(5):
        queue(bot, f"arrival:{n}")
    first = publish_once(bot.engine, bot.ctx, bot.gateway, bot.clock, worker_id="w",
                         pacer=pacer)
    assert first.delivered == 3 and fake.slept == []
    assert entry(bot, "arrival:3").attempts == 0 and entry(bot, "arrival:3").status == "pending"
    fake.now += 60
    second = publish_once(bot.engine, bot.ctx, bot.gateway, bot.clock, worker_id="w",
                          pacer=pacer)
    assert second.delivered == 2
    assert len(bot.sandbox.posts(author=BOT_USERNAME)) == 5


def test_pacing_defaults_keep_a_tick_within_minutes() -> None:
    """With the defaults a large tick (40 posts, 60 notes) goes out in minutes, far inside
    the six hours before the next tick."""
    fake = FakeTime()
    defaults = deliver.Pacer(5.0, 1.0, 20, monotonic=fake.monotonic, sleep=fake.sleep)
    for kind in ["post"] * 40 + ["message"] * 60:
        while defaults.pace(kind) is None:
            fake.now += 1.0  # the next round
        defaults.sent(kind)
    assert 5 * 60 <= fake.now - 1000.0 < 10 * 60  # 100 sends at 20 a minute


@pytest.mark.parametrize("moderates", [False, True], ids=["player", "player-moderator"])
def test_a_lost_create_answer_never_makes_a_second_dispatch_conversation(
        bot: Harness, moderates: bool) -> None:
    """#30: Reddit stores the new dispatch conversation but the answer is lost. A later note
    for the claim, sent while the first one waits out its back-off, finds that conversation
    and replies into it; the first note's retry finds its copy there. One conversation (a
    Mod Discussion when the player moderates the subreddit)."""
    if moderates:
        bot.sandbox.add_moderator(SUBREDDIT, "ned_stark")
    _to_a_tick_before_month_end(bot)
    bot.sandbox.add_fault(Fault.stored_then_error(504), method="POST",
                          path="/api/mod/conversations")
    _notify(bot, "a:1", "First")
    assert bot.publish().retry_later == 1
    _notify(bot, "b:1", "Second", tick=bot.ctx.tick_of(bot.clock.now()) + 1)
    assert bot.publish().delivered == 1  # "a:1" is still backing off
    bot.clock.advance(timedelta(hours=1))
    report = bot.publish()
    assert report.delivered == 1 and report.found_existing == 1
    (conversation,) = [c for c in bot.sandbox.conversations()
                       if c.subject.startswith("Dispatches for House Stark")]
    assert conversation.num_messages == 2 and conversation.is_internal is moderates
    assert entry(bot, "a:1:ned_stark").reddit_id != entry(bot, "b:1:ned_stark").reddit_id
    _notify(bot, "c:1", "Third", tick=bot.ctx.tick_of(bot.clock.now()) + 1)
    bot.publish()
    assert [c.num_messages for c in bot.sandbox.conversations()
            if c.subject.startswith("Dispatches for House Stark")] == [3]


def test_a_rehearsal_ahead_of_the_wall_clock_starts_a_new_dispatch_as_the_world_moves_on(
        bot: Harness) -> None:
    """Found rehearsing by hand (ticks applied ahead of the wall clock): a claim's dispatch
    conversation kept its first subject while months of later news went into it, its life
    counted on the wall clock only. It lives ``[bot] dispatch_days`` of the world's time as
    well, so the world's month names the next one, as in a live campaign."""
    _to_a_tick_before_month_end(bot)
    tick = bot.ctx.tick_of(bot.clock.now())
    _notify(bot, "upkeep:1:first", "First")
    bot.publish()
    per_day = timedelta(days=1) // timedelta(hours=bot.ctx.rules.tick_hours)
    ahead = tick + int(bot.settings.bot.dispatch_days * per_day) - 1
    _notify(bot, "upkeep:1:ahead", "Still within the week", tick=ahead)
    bot.publish()
    stark = [c for c in bot.sandbox.conversations() if c.participant == "ned_stark"]
    assert len(stark) == 1 and stark[0].num_messages == 2
    later = tick + int(bot.settings.bot.dispatch_days * per_day) + 1
    _notify(bot, "upkeep:1:later", "A week of the world later", tick=later)
    bot.publish()  # the wall clock has not moved
    stark = [c for c in bot.sandbox.conversations() if c.participant == "ned_stark"]
    assert len(stark) == 2

    def month(at: int) -> str:
        return calendar.format_game_date(calendar.game_date(bot.ctx.tick_at(at),
                                                            bot.ctx.rules))

    assert {c.subject for c in stark} == {f"Dispatches for House Stark: {month(tick)}",
                                          f"Dispatches for House Stark: {month(later)}"}
