"""Verifiable dice in the campaign: which period and branch an event rolls from, the
``[Dice]`` posts that commit to each period's secrets before it and reveal them after it, the
private reveals to each claim, and checking a printed dice line (docs/dice.md).

The derivation itself is pure and lives in :mod:`rules.fairdice`; this module only decides
where the campaign's events draw from and writes the posts and notes through the journal, in
the caller's transaction (so a rolled-back tick leaves no post behind and a replay hits the
same outbox keys).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Event
from bot.render.notes import dice_key_note
from bot.render.posts import Commitment, dice_post
from bot.services import journal
from bot.services.world import CampaignContext
from rules import fairdice
from rules.campaign import calendar
from rules.campaign.world import ORDER_KEY
from rules.fairdice import (
    PUBLIC,
    Branch,
    DiceLine,
    EventKey,
    FairDice,
    Reveal,
    branch_secret,
    commitment,
    dice_period,
    format_entropy,
    lines_by_branch,
    matches_commitment,
    period_turn,
)

DICE_KEY = "dice"  # where an event's printed dice line is kept in its data


def marked(meta: Mapping[str, Any], ref: str) -> dict[str, Any]:
    """An army's meta naming ``ref`` as the order that set it going: its id is the entropy of
    the dice that follow (:attr:`rules.campaign.world.Army.order_ref` reads it back)."""
    return {**meta, ORDER_KEY: ref}


def period_of(ctx: CampaignContext, tick: int) -> int:
    """The dice period a tick belongs to: in-game month number // ``[dice] period_months``."""
    month = calendar.month_number(ctx.tick_at(tick), ctx.rules)
    return dice_period(month, ctx.settings.dice.period_months)


def first_tick_of(ctx: CampaignContext, period: int) -> int:
    """The first tick at or after the start of ``period``."""
    return ctx.tick_of(calendar.period_first_tick(period, ctx.settings.dice.period_months,
                                                  ctx.rules))


def event_key(ctx: CampaignContext, tick: int, key: str, *, branch: str = PUBLIC,
              orders: Iterable[str] = ()) -> EventKey:
    """Where one event's dice come from."""
    return EventKey(period_of(ctx, tick), branch, key, format_entropy(orders))


def dice_for(ctx: CampaignContext, event: EventKey) -> FairDice:
    """The event's dice, drawn from the campaign secret's branch for the event's period."""
    return event.dice(ctx.secret)


def branches(ctx: CampaignContext, period: int, claim_ids: Iterable[int]) -> list[Branch]:
    """The public branch and every claim's branch of ``period``, with their commitments
    (:func:`rules.fairdice.branches`)."""
    return list(fairdice.branches(ctx.secret, period, claim_ids))


def _commitments(commit: Iterable[Branch], names: dict[int, str]) -> list[Commitment]:
    """The rows of one period's commitments (``commit``) in a [Dice] post."""
    rows: list[Commitment] = []
    for branch in commit:
        claim = None
        if branch.name != PUBLIC:
            claim = names.get(int(branch.name.split(":", 1)[1]), "a claim")
        rows.append((branch.name, claim, branch.commitment))
    return rows


def _events_of(session: Session, ctx: CampaignContext, period: int) -> list[Event]:
    first, after = first_tick_of(ctx, period), first_tick_of(ctx, period + 1)
    rows = [*session.exec(select(Event).where(
        Event.campaign_id == ctx.campaign_id, col(Event.tick) >= first,
        col(Event.tick) < after).order_by(col(Event.id))).all(),
        # a preview's earlier ticks (collected, never written) come after the stored ones
        *(e for e in journal.pending_events(session, range(first, after))
          if e.campaign_id == ctx.campaign_id)]
    return [e for e in rows if isinstance(e.data_json, dict) and DICE_KEY in e.data_json]


def _rolls_by_branch(events: Sequence[Event], *, public_only: bool = False
                     ) -> dict[str, list[str]]:
    """The printed dice lines of ``events``, grouped by the branch they rolled on."""
    return lines_by_branch(str(e.data_json[DICE_KEY]) for e in events
                           if e.public or not public_only)


def _dice_post(*, commit: Sequence[tuple[int, Sequence[Branch]]], reveal: int | None,
               public: Reveal | None, revealed: Sequence[Event], names: dict[int, str]
               ) -> str:
    """The [Dice] post: the ``commit`` periods' commitments, and the reveal of period
    ``reveal`` (its ``public`` secret) with the public rolls among ``revealed`` (that
    period's events)."""
    commitments = [(period, _commitments(committed, names))
                   for period, committed in commit]
    if reveal is None or public is None:
        return dice_post(commitments=commitments)
    return dice_post(commitments=commitments, reveal=reveal, public_key=public.secret.hex(),
                     public_rolls=_rolls_by_branch(revealed, public_only=True).get(PUBLIC, []))


def start_campaign(session: Session, ctx: CampaignContext, *, tick: int, at: datetime,
                   claims: dict[int, str]) -> None:
    """Publish the commitments of the current and the next period (at ``maester init``)."""
    if not ctx.settings.dice.publish:
        return
    period = period_of(ctx, tick)
    body = _dice_post(commit=[(p, branches(ctx, p, claims)) for p in (period, period + 1)],
                      reveal=None, public=None, revealed=(), names=claims)
    journal.queue(session, ctx.campaign_id, f"dice:start:{period}", "post",
                  title=ctx.settings.dice.title.format(period=period), body=body,
                  flair=ctx.settings.dice.flair, public=True, at=at, tick=tick,
                  target=ctx.settings.campaign.subreddit)


def month_begins(session: Session, ctx: CampaignContext, *, month: int, tick: int,
                 at: datetime, claims: dict[int, str]) -> None:
    """At each in-game month boundary: when a period starts, commit to the one after it,
    reveal the one that ended (publicly for the public branch, privately for each claim).
    What is committed and revealed is :func:`rules.fairdice.period_turn`'s."""
    if not ctx.settings.dice.publish:
        return
    turn = period_turn(ctx.secret, month, ctx.settings.dice.period_months, claims)
    if turn is None:
        return
    events = _events_of(session, ctx, turn.ended) if turn.ended is not None else []
    body = _dice_post(commit=[(turn.period + 1, turn.commit)], reveal=turn.ended,
                      public=turn.public, revealed=events, names=claims)
    journal.queue(session, ctx.campaign_id, f"dice:period:{turn.period}", "post",
                  title=ctx.settings.dice.title.format(period=turn.period), body=body,
                  flair=ctx.settings.dice.flair, public=True, at=at, tick=tick,
                  target=ctx.settings.campaign.subreddit)
    if turn.ended is None:
        return
    by_branch = _rolls_by_branch(events)
    for reveal in turn.claims:
        claim_id, ended = reveal.claim_id or 0, turn.ended
        subject, body = dice_key_note(period=ended, branch=reveal.branch,
                                      key=reveal.secret.hex(), commitment=reveal.commitment,
                                      rolls=by_branch.get(reveal.branch, []))
        journal.notify_claim(session, ctx.campaign_id, claim_id, f"dice:reveal:{ended}:{claim_id}",
                             subject=subject, body=body, at=at, tick=tick)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The result of checking one dice line."""

    line: DiceLine
    problems: tuple[str, ...]
    commitment_ok: bool

    @property
    def fair(self) -> bool:
        return self.commitment_ok and not self.problems


def verify_line(ctx: CampaignContext, line: DiceLine, secret_hex: str | None = None,
                *, recorded: DiceLine | None = None) -> Verdict:
    """Check a printed dice line with a revealed secret, or the campaign's own (moderators).

    With ``recorded`` (the campaign's own line of the same event, :func:`recorded_line`), a
    printed line whose rolls differ from it fails too: replaying the printed rolls alone
    cannot tell that rolls were left out at the end."""
    expected = branch_secret(ctx.secret, line.event.period, line.event.branch)
    secret = bytes.fromhex(secret_hex) if secret_hex else expected
    problems = line.mismatches(secret)
    if recorded is not None and recorded.rolls != line.rolls:
        problems.append(f"the campaign's record of this event has {len(recorded.rolls)} "
                        f"roll(s) and this line prints {len(line.rolls)}: rolls are left out "
                        f"or changed (recorded: {recorded})")
    return Verdict(line, tuple(problems), matches_commitment(secret, commitment(expected)))


def recorded_line(session: Session, ctx: CampaignContext, line: DiceLine) -> DiceLine | None:
    """The campaign's own dice line of the event ``line`` names (same period, branch, key and
    orders), or None when it recorded no such event."""
    for event in _events_of(session, ctx, line.event.period):
        try:
            stored = DiceLine.parse(str(event.data_json[DICE_KEY]))
        except ValueError:
            continue
        if stored.event == line.event:
            return stored
    return None


def lines_in(text: str) -> list[DiceLine]:
    """Every dice line in a post's text, in order."""
    found = []
    for raw in text.splitlines():
        if "dice: v1" in raw:
            found.append(DiceLine.parse(raw[raw.index("dice: v1"):].split("`")[0]))
    return found
