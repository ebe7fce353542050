"""The sidebar widget (``[posts] sidebar_widget``): the in-game date and the next tick, kept by
the outbox through real PRAW against the sandbox's widget endpoints."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import Outbox
from bot.reddit.deliver import BACKOFF_BASE
from bot.sandbox import BOT_USERNAME, MODERATOR, SUBREDDIT, Fault
from bot.services import journal, pause
from bot.services.tick import catch_up
from rules.campaign import calendar
from tests.bot.reddit.conftest import Harness
from tests.fixtures.reddit import RedditFactory


def widget_on(bot: Harness, **posts: object) -> None:
    """Switch the widget on in the harness's settings."""
    bot.ctx = bot.ctx.configured(posts={"sidebar_widget": True, **posts})


def next_tick(bot: Harness) -> None:
    """Move the clock onto the next tick and apply it."""
    bot.clock.set(bot.ctx.tick_at(bot.ctx.tick_of(bot.clock.now()) + 1))
    catch_up(bot.engine, bot.ctx, bot.clock.now())


def expected_text(bot: Harness) -> tuple[str, str]:
    """The in-game date and the next tick's time the widget should show now."""
    now = bot.clock.now()
    date = calendar.format_game_date(calendar.game_date(now, bot.ctx.rules))
    following: datetime = bot.ctx.tick_at(bot.ctx.tick_of(now) + 1)
    return date, f"{following:%Y-%m-%d %H:%M} UTC"


def clock_widgets(bot: Harness) -> list[dict[str, object]]:
    return [w for w in bot.sandbox.sidebar_widgets(SUBREDDIT)
            if w["shortName"] == "Campaign clock"]


def widget_rows(bot: Harness) -> list[Outbox]:
    with transaction(bot.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == "widget")
                                 .order_by(col(Outbox.id))).all())


def test_each_tick_updates_one_widget(bot: Harness) -> None:
    """The first tick adds the widget with the in-game date and the next tick (UTC); every
    later tick overwrites the same widget: one widget, one update per tick."""
    widget_on(bot)
    next_tick(bot)
    assert [k for k in bot.publish().delivered_keys if k.startswith("widget:")] == [
        f"widget:{bot.ctx.tick_of(bot.clock.now())}"]
    [widget] = clock_widgets(bot)
    date, following = expected_text(bot)
    assert widget["text"] == f"**In-game date:** {date}\n\n**Next tick:** {following}"
    next_tick(bot)
    bot.publish()
    [again] = clock_widgets(bot)
    assert again["id"] == widget["id"]
    assert again["text"] == "**In-game date:** {}\n\n**Next tick:** {}".format(
        *expected_text(bot))
    assert bot.sandbox.request_count(route="widget.create") == 1
    assert bot.sandbox.request_count(route="widget.modify") == 1
    assert [r.status for r in widget_rows(bot)] == ["delivered", "delivered"]
    assert all("maester:" not in str(r.body) for r in widget_rows(bot))  # no marker shown


def test_off_by_default(bot: Harness) -> None:
    """Without the switch no tick queues a widget and the bot never asks for widgets."""
    next_tick(bot)
    bot.publish()
    assert widget_rows(bot) == []
    assert bot.sandbox.request_count(route="widgets") == 0


def test_an_existing_widget_of_that_name_is_taken_over(bot: Harness,
                                                      reddit_for: RedditFactory) -> None:
    """A widget the moderators made with the configured name is updated, not doubled;
    other widgets are left alone."""
    other = reddit_for(MODERATOR)
    widgets = other.subreddit(SUBREDDIT).widgets.mod
    widgets.add_text_area(short_name="Rules", text="Be kind", styles={})
    made = widgets.add_text_area(short_name="Clock", text="old", styles={})
    widget_on(bot, sidebar_widget_name="Clock")
    next_tick(bot)
    bot.publish()
    texts = {w["shortName"]: w for w in bot.sandbox.sidebar_widgets(SUBREDDIT)}
    assert sorted(texts) == ["Clock", "Rules"]
    assert texts["Clock"]["id"] == made.id and "In-game date" in str(texts["Clock"]["text"])
    assert texts["Rules"]["text"] == "Be kind"


def test_a_widget_stored_before_a_5xx_is_not_added_twice(bot: Harness) -> None:
    """Reddit adds the widget but answers 504: the retry finds it by name and one widget
    exists in the end (prawcore does not repeat the POST by itself)."""
    widget_on(bot)
    next_tick(bot)
    bot.sandbox.add_fault(Fault.stored_then_error(504), method="POST",
                          path=f"/r/{SUBREDDIT}/api/widget")
    first = bot.publish()
    assert first.retry_later == 1 and not any(k.startswith("widget:")
                                              for k in first.delivered_keys)
    assert len(clock_widgets(bot)) == 1
    bot.clock.advance(BACKOFF_BASE)
    assert any(k.startswith("widget:") for k in bot.publish().delivered_keys)
    assert len(clock_widgets(bot)) == 1
    assert bot.sandbox.request_count(route="widget.create") == 1


def test_catching_up_sends_only_the_newest_date(bot: Harness) -> None:
    """After downtime, the ticks caught up at once leave one widget update (the newest):
    older entries nobody tried are dropped."""
    widget_on(bot)
    start = bot.ctx.tick_of(bot.clock.now())
    bot.clock.set(bot.ctx.tick_at(start + 5))
    assert len(catch_up(bot.engine, bot.ctx, bot.clock.now())) == 5
    rows = widget_rows(bot)
    assert [r.key for r in rows] == [f"widget:{start + 5}"]
    bot.publish()
    [widget] = clock_widgets(bot)
    assert f"{expected_text(bot)[0]}" in str(widget["text"])


def test_a_missing_permission_halts_only_the_widget(bot: Harness) -> None:
    """Without "Manage Settings" the widget is refused (403): the widget waits and the
    moderators are told, while posts and modmail still go out."""
    bot.sandbox.add_moderator(SUBREDDIT, BOT_USERNAME, permissions=("mail", "posts", "flair"))
    widget_on(bot)
    next_tick(bot)
    with transaction(bot.engine) as session:
        journal.queue(session, bot.ctx.campaign_id, "post:after", "post", body="news",
                      title="[News]", public=True, at=bot.clock.now(), tick=1,
                      target=SUBREDDIT)
    report = bot.publish()
    assert "Forbidden" in report.halted
    statuses = {r.key: r.status for r in bot.outbox()}
    assert statuses["post:after"] == "delivered"
    assert [r.status for r in widget_rows(bot)] == ["pending"]
    halts = [r for r in bot.outbox() if r.key.startswith("halt:")]
    assert halts and "sidebar widget" in halts[0].title
    assert clock_widgets(bot) == []


def test_pause_and_resume_show_on_the_widget(bot: Harness) -> None:
    """A pause says there is no next tick; resuming shows the next one again."""
    widget_on(bot)
    with transaction(bot.engine) as session:
        pause.pause(session, bot.ctx, note="", until=None, actor=MODERATOR,
                    now=bot.clock.now())
    bot.publish()
    [widget] = clock_widgets(bot)
    assert "none while the campaign is paused" in str(widget["text"])
    with transaction(bot.engine) as session:
        pause.resume(session, bot.ctx, catch_up=False, actor=MODERATOR, now=bot.clock.now())
    bot.publish()
    [widget] = clock_widgets(bot)
    assert f"**Next tick:** {expected_text(bot)[1]}" in str(widget["text"])


def test_check_names_the_missing_permission_and_scope(bot: Harness) -> None:
    """`maester check` with the widget on: a bot without "Manage Settings" is told so (not
    fatal: only the widget waits), and a refresh token without ``structuredstyles`` fails
    that scope's check."""
    from bot.reddit.gateway import SCOPES, praw_gateway
    from bot.reddit.preflight import needed_scopes, run_checks
    from bot.sandbox import DEFAULT_CLIENT_ID
    from tests.bot.reddit.conftest import TIMEOUT

    widget_on(bot)
    settings = bot.ctx.settings
    assert "structuredstyles" in needed_scopes(settings)
    assert "structuredstyles" not in needed_scopes(bot.settings)  # off: not asked for
    bot.sandbox.add_moderator(SUBREDDIT, BOT_USERNAME, permissions=("mail", "posts"))
    checks = {c.name: c for c in run_checks(settings, bot.gateway)}
    assert not checks["sidebar widget"].ok and not checks["sidebar widget"].fatal
    assert "Manage Settings" in checks["sidebar widget"].detail
    token = bot.sandbox.issue_refresh_token(
        BOT_USERNAME, DEFAULT_CLIENT_ID, scopes=[s for s in SCOPES if s != "structuredstyles"])
    reddit = settings.reddit.model_copy(update={"password": "", "username": "",
                                                "refresh_token": token})
    narrow = settings.model_copy(update={"reddit": reddit})
    checks = {c.name: c for c in run_checks(narrow, praw_gateway(narrow, timeout=TIMEOUT))}
    assert not checks["scope structuredstyles"].ok
    assert "lacks" in checks["scope structuredstyles"].detail
