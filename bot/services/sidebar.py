"""The sidebar widget: the in-game date and the next tick where players look.

With ``[posts] sidebar_widget`` each tick queues one ``widget`` outbox entry (keyed by the
tick, so it is queued once) whose text is the in-game date at that tick and the real time of
the next tick. The deliverer finds the widget by its name (``[posts] sidebar_widget_name``)
and overwrites its text, or adds it when there is none, so a retry or a crash between the
update and its record never makes a second widget. An older entry that was never tried is
dropped when a newer one is queued: after downtime only the newest date goes out.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col

from bot.db.models import Outbox
from bot.render.posts import clock_widget
from bot.services import journal
from bot.services.outbox import withdraw_pending
from bot.services.world import CampaignContext
from rules.campaign import calendar

KIND = "widget"


def widget_text(ctx: CampaignContext, tick: int, *, paused: bool = False, note: str = "") -> str:
    """What the widget shows after tick ``tick``: its in-game date and the next tick's time
    (none while paused)."""
    date = calendar.format_game_date(calendar.game_date(ctx.tick_at(tick), ctx.rules))
    following = ctx.tick_at(tick + 1)
    return clock_widget(date=date, next_tick=None if paused else
                        f"{following:%Y-%m-%d %H:%M} UTC", note=note)


def queue_clock(session: Session, ctx: CampaignContext, *, tick: int, at: datetime,
                key: str | None = None, paused: bool = False, note: str = "") -> None:
    """Queue the widget's text as of tick ``tick`` (if ``[posts] sidebar_widget`` is on),
    under ``key`` (default: the tick's), dropping older entries nobody tried yet."""
    posts = ctx.settings.posts
    if not posts.sidebar_widget:
        return
    sink = journal.sink_of(session)
    if sink is not None and not sink.writes:  # a preview: its own older entries go
        sink.drop({r["key"] for r in sink.outbox if r["kind"] == KIND})
    else:
        withdraw_pending(session, ctx.campaign_id, col(Outbox.kind) == KIND)
    journal.queue(session, ctx.campaign_id, key or f"widget:{tick}", KIND,
                  body=widget_text(ctx, tick, paused=paused, note=note), at=at, tick=tick,
                  target=posts.sidebar_widget_name, title=posts.sidebar_widget_name,
                  public=True)
