"""The bot on Reddit, against the sandbox through real PRAW: requests and latency.

Figures printed:

* Reddit requests per processed order: all-in for a batch of orders read in one round, and
  beyond idle polling for orders arriving one by one (new conversations, and replies in
  conversations the bot answered before). Target: at most 4 (the quiet idle round lists
  nothing, so a lone order pays for the listing of its folder, marking it read and asking
  the unread counts again; the idle round itself went from 6 requests to 2).
* Reddit requests per idle poll (the unread counts, and the mentions) and per idle minute at
  the default ``poll_seconds``, counting a round that lists every folder every
  ``full_poll_minutes`` (delivery rounds with an empty outbox send nothing).
* Time from a modmail's arrival in the sandbox to the bot's reply being posted: the work
  itself (a poll and a delivery round right after arrival), and with ``maester run``'s
  scheduler polling every 5 s (the arrival waits for the next poll).
* A whole campaign (the demo's, with battles, over several in-game months): Reddit requests
  per order answered, modmail conversations the bot opened per claim per in-game month
  (goal: at most 1 + 1 per battle) and messages the bot sent per claim per tick (goal: at
  most 1).

Usage: ``python -m benchmarks reddit`` or ``python -m benchmarks.bench_reddit``.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

BATCH = 50
SINGLE = 20
SCHEDULED = 3


def run() -> list[tuple[str, int, float]]:
    """Measure; returns (operation, count, total seconds) rows and prints the figures."""
    os.environ.setdefault("HOME", tempfile.mkdtemp(prefix="maester-bench-home-"))
    from bot.clock import ManualClock, SystemClock
    from bot.config import BotSettings, parse_settings
    from bot.db.engine import make_engine, transaction
    from bot.db.migrate import upgrade
    from bot.maps import demo_map_text
    from bot.reddit.deliver import publish_once
    from bot.reddit.gateway import praw_gateway
    from bot.reddit.intake import poll_once
    from bot.reddit.ratelimit import RequestBudget
    from bot.runner import BotRunner
    from bot.sandbox import (
        BOT_PASSWORD,
        BOT_USERNAME,
        DEFAULT_CLIENT_ID,
        DEFAULT_CLIENT_SECRET,
        MODERATOR,
        SUBREDDIT,
        RedditSandbox,
        password_for,
        populate_default_world,
    )
    from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign
    from bot.services.tick import advancer

    rows: list[tuple[str, int, float]] = []
    folder = Path(tempfile.mkdtemp(prefix="maester-bench-"))
    with RedditSandbox() as sandbox:
        populate_default_world(sandbox)
        players = [p for e in DEMO_ROSTER for p in e["players"]]
        for name in players:
            if name != "ned_stark":
                sandbox.add_user(name, password_for(name))
        url = f"sqlite:///{folder / 'bench.db'}"
        settings = parse_settings({
            "campaign": {"database_url": url, "subreddit": SUBREDDIT,
                         "moderators": [MODERATOR]},
            "reddit": {"client_id": DEFAULT_CLIENT_ID, "client_secret": DEFAULT_CLIENT_SECRET,
                       "username": BOT_USERNAME, "password": BOT_PASSWORD,
                       "oauth_url": sandbox.url, "reddit_url": sandbox.url},
            # No pacing: these figures are the bot's own latency and request counts.
            "bot": {"poll_seconds": 5, "publish_seconds": 1, "post_spacing_seconds": 0,
                    "message_spacing_seconds": 0, "sends_per_minute": 0}})
        engine = make_engine(url)
        upgrade(engine)
        clock = ManualClock(datetime.now(UTC))
        with transaction(engine) as session:
            ctx = create_campaign(session, settings, map_text=demo_map_text(),
                                  roster=DEMO_ROSTER, now=clock.now(), seed="bench",
                                  wars=DEMO_WARS)
        gateway = praw_gateway(settings, budget=RequestBudget(100_000))
        keeper = engine.connect()  # keeps SQLite's WAL between transactions

        def cycle() -> None:
            poll_once(engine, ctx, gateway, clock, advance_to=advancer(engine, ctx))
            publish_once(engine, ctx, gateway, clock, worker_id="bench", limit=500)

        def count() -> int:
            return sandbox.request_count()

        # Warm up (token, imports) and measure one idle poll.
        cycle()
        sandbox.reset_requests()
        started = time.perf_counter()
        cycle()
        idle_seconds = time.perf_counter() - started
        idle = count()
        idle_modmail = sum(n for route, n in sandbox.request_counts().items()
                           if route.startswith("modmail."))
        rows.append(("idle poll and delivery round", 1, idle_seconds))
        # A round that lists every folder (every full_poll_minutes, and when a tick is due).
        clock.advance(timedelta(minutes=BotSettings().full_poll_minutes))
        sandbox.reset_requests()
        cycle()
        full = count()

        # A batch of orders read in one round.
        for i in range(BATCH):
            sandbox.send_modmail(players[i % len(players)], f"batch {i}", "status",
                                 subreddit=SUBREDDIT)
        sandbox.reset_requests()
        started = time.perf_counter()
        cycle()
        rows.append(("order in a batch (read, handled, answered)", BATCH,
                     time.perf_counter() - started))
        batch_requests = count()

        # Orders one by one: each in a new conversation, then a reply in it.
        conversations = []
        sandbox.reset_requests()
        latency = 0.0
        for i in range(SINGLE):
            conversation, _ = sandbox.send_modmail(players[i % len(players)], f"single {i}",
                                                   "status", subreddit=SUBREDDIT)
            conversations.append(conversation)
            started = time.perf_counter()
            cycle()
            latency += time.perf_counter() - started
        single_requests = count()
        rows.append(("modmail to reply, polled at once", SINGLE, latency))
        sandbox.reset_requests()
        for i, conversation in enumerate(conversations):
            sandbox.reply_modmail(conversation, players[i % len(players)], "status")
            cycle()
        reply_requests = count()

        # The scheduler: arrival waits for the next poll.
        runner_settings = settings.model_copy(
            update={"bot": BotSettings(poll_seconds=5, publish_seconds=1,
                                       post_spacing_seconds=0, message_spacing_seconds=0,
                                       sends_per_minute=0)})
        runner = BotRunner(runner_settings, engine, ctx, gateway, clock=SystemClock())
        runner.start()
        waits = 0.0
        try:
            for i in range(SCHEDULED):
                time.sleep(0.7 * (i + 1))
                conversation, _ = sandbox.send_modmail(players[0], f"timed {i}", "status",
                                                       subreddit=SUBREDDIT)
                sent_at = time.perf_counter()
                done = threading.Event()
                while not done.is_set():
                    if any(m.author == BOT_USERNAME
                           for m in sandbox.conversation_messages(conversation)):
                        done.set()
                    else:
                        time.sleep(0.02)
                waits += time.perf_counter() - sent_at
        finally:
            runner.stop()
        rows.append(("modmail to reply under `maester run` (poll every 5 s)", SCHEDULED,
                     waits))
        keeper.close()
        engine.dispose()

    per_poll = idle
    default_polls_per_minute = 60 / BotSettings().poll_seconds
    print(f"Reddit requests per processed order, batch of {BATCH} read in one round "
          f"(all-in): {batch_requests / BATCH:.2f}")
    print(f"Reddit requests per order one by one, new conversation, beyond the idle poll: "
          f"{(single_requests - per_poll * SINGLE) / SINGLE:.2f} "
          f"(all-in {single_requests / SINGLE:.2f})")
    print(f"Reddit requests per order one by one, reply in an answered conversation, beyond "
          f"the idle poll: {(reply_requests - per_poll * SINGLE) / SINGLE:.2f} "
          f"(all-in {reply_requests / SINGLE:.2f})")
    polls_between_full = BotSettings().full_poll_minutes * default_polls_per_minute
    per_minute = (per_poll * (polls_between_full - 1) + full) / BotSettings().full_poll_minutes
    print(f"Reddit requests per idle poll: {per_poll} ({idle_modmail} for modmail, the rest "
          f"for mentions); a round listing every folder: {full}; per idle minute at "
          f"poll_seconds = {BotSettings().poll_seconds}, full_poll_minutes = "
          f"{BotSettings().full_poll_minutes}: {per_minute:.1f}")
    print(f"modmail to reply, polled at once: {latency / SINGLE * 1000:.0f} ms on average; "
          f"under the scheduler: {waits / SCHEDULED:.2f} s on average")
    rows.append(campaign_figures())
    return rows


def campaign_figures() -> tuple[str, int, float]:
    """Play the demo campaign and count what its players received (see the module
    docstring). Uses only what every version of the bot has, so the same function measures
    before and after a change."""
    import collections
    import tempfile as _tempfile

    from sqlmodel import select

    from bot.db.engine import transaction
    from bot.db.models import Army, Outbox, PendingBattle, Player
    from bot.demo import Demo, play
    from bot.sandbox.defaults import BOT_USERNAME
    from rules.campaign import calendar

    started = time.perf_counter()
    with _tempfile.TemporaryDirectory(prefix="maester-bench-campaign-") as tmp:
        demo = Demo(Path(tmp), lambda _line: None)
        demo.start()
        try:
            first = demo.clock.now()
            play(demo)
            last = demo.clock.now()
            rules = demo.ctx.rules
            months = calendar.month_number(last, rules) - calendar.month_number(first, rules) + 1
            with transaction(demo.engine) as session:
                claim_of = {p.reddit_name.lower(): p.claim_id
                            for p in session.exec(select(Player)).all()}
                army_claim = {a.id: a.claim_id for a in session.exec(select(Army)).all()}
                battles: collections.Counter[int] = collections.Counter()
                for b in session.exec(select(PendingBattle)).all():
                    for army in {b.attacker_army, b.defender_army}:
                        if army_claim.get(army) is not None:
                            battles[army_claim[army]] += 1
                sent = session.exec(select(Outbox).where(
                    Outbox.status == "delivered", Outbox.kind == "message")).all()
                # The ticks' notes (answers to orders are not news), per player of a claim
                # (a claim with two players sends each of them the claim's news).
                per_tick: collections.Counter[tuple[str, int]] = collections.Counter()
                seen: set[tuple[str, int, str]] = set()
                for o in sent:
                    if o.claim_id is None or o.reddit_id is None or o.key.startswith("reply:"):
                        continue
                    if (o.target, o.tick, o.reddit_id) not in seen:
                        seen.add((o.target, o.tick, o.reddit_id))
                        per_tick[(o.target, o.tick)] += 1
                answered = len(session.exec(select(Outbox.id).where(
                    Outbox.status == "delivered", Outbox.kind.in_(  # type: ignore[attr-defined]
                        ("reply", "message")), Outbox.key.startswith(  # type: ignore[attr-defined]
                        "reply:"))).all())
            opened: collections.Counter[int] = collections.Counter()
            for c in demo.sandbox.conversations():
                messages = demo.sandbox.conversation_messages(c.id)
                if c.participant and messages and messages[0].author == BOT_USERNAME:
                    claim = claim_of.get(c.participant.lower())
                    if claim is not None:
                        opened[claim] += 1
            requests = demo.sandbox.request_count()
        finally:
            demo.stop()
    seconds = time.perf_counter() - started
    claims = sorted(set(claim_of.values()))
    over = [c for c in claims if opened[c] > months * 1 + battles[c]]
    print(f"campaign: {months} in-game months, {len(claims)} claims, {answered} orders "
          f"answered, {sum(battles.values()) // 2} battles")
    print(f"campaign: Reddit requests per order answered (all-in, ticks' news and posts "
          f"included): {requests / max(1, answered):.2f}")
    print("campaign: modmail conversations opened by the bot per claim per in-game month: "
          f"mean {sum(opened.values()) / len(claims) / months:.2f}, max "
          f"{max(opened[c] for c in claims) / months:.2f}; claims above 1 + 1 per battle: "
          f"{len(over)}")
    print("campaign: news messages the bot sent per claim (to each of its players) per tick "
          "(ticks with news): mean "
          f"{sum(per_tick.values()) / max(1, len(per_tick)):.2f}, max "
          f"{max(per_tick.values(), default=0)}")
    return ("demo campaign played and measured", 1, seconds)


if __name__ == "__main__":
    for op, count, seconds in run():
        print(f"{op}: {count} ops in {seconds:.3f} s")
