"""Verifiable dice in the campaign: which period and branch an event rolls from, the
``[Dice]`` posts that commit to each period's secrets before it and reveal them after it, the
private reveals to each claim, and checking a printed dice line (docs/dice.md).

The derivation itself is pure and lives in :mod:`rules.fairdice`; this module only decides
where the campaign's events draw from and writes the posts and notes through the journal, in
the caller's transaction (so a rolled-back tick leaves no post behind and a replay hits the
same outbox keys).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Event
from bot.render.notes import dice_key_note
from bot.render.posts import Commitment, dice_post
from bot.services import beacon, journal
from bot.services.beacon import TickBeacon
from bot.services.world import CampaignContext
from rules import fairdice
from rules.beacon import BeaconLine
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
_PLAIN_URL = re.compile(r"https?://[A-Za-z0-9.\-:/_~%?=&#]+")


def verify_link(ctx: CampaignContext) -> str:
    """Where players check the dice: the web pages' dice panel when ``[web] public_url`` is
    set, else ``[dice] verify_url`` (where the campaign publishes docs/dice.md's steps), else
    "" (the mark then names the steps in words)."""
    if ctx.settings.web.public_url:
        link = f"{ctx.settings.web.public_url.rstrip('/')}/#dice"
    else:
        link = ctx.settings.dice.verify_url
    return link if _PLAIN_URL.fullmatch(link) else ""


def dice_footer(ctx: CampaignContext) -> str:
    """The "verifiable" mark every post with dice ends with, with its link."""
    link = verify_link(ctx)
    where = (f"at {link}" if link else
             "with the steps of *Dice you can check* (docs/dice.md, in the players' guide)")
    return f"\n\n✔ **Verifiable dice**: anyone can check them {where}\n"


def beacon_text(tick_beacon: TickBeacon) -> str:
    """What a post with dice says of the tick's beacon round ("" without a beacon)."""
    line, pending = tick_beacon.line, tick_beacon.pending
    if pending is not None:
        return (f"`beacon: pending round={pending}`: a preview; the round is not drawn yet, "
                "so these dice will change when it is.")
    if line is None:
        return ""
    due = due_words(tick_beacon.due)
    if line.bound:
        return f"`{line}`{due}"
    return (f"`{line}`{due}: the beacon round could not be had in time, so these dice come "
            "from the commit-reveal dice alone.")


def due_words(due: str) -> str:
    """`` (drand's first round at or after 2026-11-23 18:00:10 UTC)`` after a beacon line:
    the moment its round is bound to (:func:`bot.services.beacon.due_text`), which
    docs/verify_dice.py reads back on the same line ("" for no moment)."""
    return f" (drand's first round at or after {due})" if due else ""


def with_beacon(body: str, tick_beacon: TickBeacon) -> str:
    """A body with dice, with its tick's beacon line at the end."""
    text = beacon_text(tick_beacon)
    return f"{body.rstrip()}\n\n{text}\n" if text else body


def beacon_lines_for(session: Session, ctx: CampaignContext, lines: Iterable[str]) -> list[str]:
    """The beacon lines of the rounds the printed dice ``lines`` are bound to (for a post that
    lists dice of several ticks), in round order, each with the moment its tick binds it to
    (so a reveal post checks each round's timing as the tick's own post does)."""
    rounds = {r for r in (_round_of(x) for x in lines) if r is not None}
    found = beacon.rows_by_round(session, ctx, rounds)
    return [f"`{beacon.line_of(found[r])}`{due_words(beacon.due_text(ctx, found[r].tick))}"
            for r in sorted(found)]


def _round_of(text: str) -> int | None:
    try:
        return DiceLine.parse(text).beacon_round
    except ValueError:
        return None


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


def shown_to_claim(event: Event) -> bool:
    """Whether the claim a private event belongs to may be shown its dice line (in its key
    note, on its war room's dice panel): every one but a detection that saw nothing. That
    line would tell the watcher that some army passed near it, and its orders would link the
    unseen army to the battles it fights later; it stays with the moderators (the journal)."""
    data = event.data_json if isinstance(event.data_json, dict) else {}
    return event.kind != "detection" or bool(data.get("detected"))


def _rolls_by_branch(events: Sequence[Event], *, public_only: bool = False
                     ) -> dict[str, list[str]]:
    """The printed dice lines of ``events``, grouped by the branch they rolled on (those a
    claim may be shown: :func:`shown_to_claim`)."""
    return lines_by_branch(str(e.data_json[DICE_KEY]) for e in events
                           if (e.public or not public_only) and shown_to_claim(e))


def _dice_post(*, commit: Sequence[tuple[int, Sequence[Branch]]], reveal: int | None,
               public: Reveal | None, revealed: Sequence[Event], names: dict[int, str],
               beacons: Sequence[str] = ()) -> str:
    """The [Dice] post: the ``commit`` periods' commitments, and the reveal of period
    ``reveal`` (its ``public`` secret) with the public rolls among ``revealed`` (that
    period's events)."""
    commitments = [(period, _commitments(committed, names))
                   for period, committed in commit]
    if reveal is None or public is None:
        return dice_post(commitments=commitments)
    rolls = _rolls_by_branch(revealed, public_only=True).get(PUBLIC, [])
    return dice_post(commitments=commitments, reveal=reveal, public_key=public.secret.hex(),
                     public_rolls=rolls, beacons=beacons)


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
    public_rolls = _rolls_by_branch(events, public_only=True).get(PUBLIC, [])
    body = _dice_post(commit=[(turn.period + 1, turn.commit)], reveal=turn.ended,
                      public=turn.public, revealed=events, names=claims,
                      beacons=beacon_lines_for(session, ctx, public_rolls))
    journal.queue(session, ctx.campaign_id, f"dice:period:{turn.period}", "post",
                  title=ctx.settings.dice.title.format(period=turn.period), body=body,
                  flair=ctx.settings.dice.flair, public=True, at=at, tick=tick,
                  target=ctx.settings.campaign.subreddit,
                  footer=dice_footer(ctx) if public_rolls else "")
    if turn.ended is None:
        return
    by_branch = _rolls_by_branch(events)
    for reveal in turn.claims:
        claim_id, ended = reveal.claim_id or 0, turn.ended
        own = by_branch.get(reveal.branch, [])
        subject, body = dice_key_note(period=ended, branch=reveal.branch,
                                      key=reveal.secret.hex(), commitment=reveal.commitment,
                                      rolls=own, beacons=beacon_lines_for(session, ctx, own))
        journal.notify_claim(session, ctx.campaign_id, claim_id, f"dice:reveal:{ended}:{claim_id}",
                             subject=subject, body=body + (dice_footer(ctx) if own else ""),
                             at=at, tick=tick)


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
                *, recorded: DiceLine | None = None,
                beacons: Mapping[int, BeaconLine] | None = None,
                signatures: dict[int, list[str]] | None = None) -> Verdict:
    """Check a printed dice line with a revealed secret, or the campaign's own (moderators).

    With ``recorded`` (the campaign's own line of the same event, :func:`recorded_line`), a
    printed line whose rolls differ from it fails too: replaying the printed rolls alone
    cannot tell that rolls were left out at the end. A line bound to a beacon round takes the
    round from ``beacons`` (a post's beacon lines, or the campaign's stored rounds) and checks
    its signature under the pinned chain's public key too (``signatures``: the problems of
    each round's signature found so far, kept by a caller checking many lines of few rounds:
    one pairing a round, not one a line)."""
    expected = branch_secret(ctx.secret, line.event.period, line.event.branch)
    secret = bytes.fromhex(secret_hex) if secret_hex else expected
    problems: list[str] = []
    if line.beacon_round is not None:
        round_line = (beacons or {}).get(line.beacon_round)
        if round_line is None or round_line.value is None:
            problems.append(f"no beacon line gives round {line.beacon_round} (its randomness "
                            "and signature)")
        else:
            if round_line.chain != ctx.settings.dice.beacon_chain:
                problems.append(f"beacon round {line.beacon_round} is of chain "
                                f"{round_line.chain[:12]}..., not the campaign's")
            signed = signatures.get(line.beacon_round) if signatures is not None else None
            if signed is None:
                signed = round_line.check(ctx.settings.dice.beacon_public_key)
                if signatures is not None:
                    signatures[line.beacon_round] = signed
            problems += signed
            line = line.with_beacon(round_line.value)
    problems += line.mismatches(secret) if not problems else []
    if recorded is not None and recorded.rolls != line.rolls:
        problems.append(f"the campaign's record of this event has {len(recorded.rolls)} "
                        f"roll(s) and this line prints {len(line.rolls)}: rolls are left out "
                        f"or changed (recorded: {recorded})")
    return Verdict(line, tuple(problems), matches_commitment(secret, commitment(expected)))


def recorded_line(session: Session, ctx: CampaignContext, line: DiceLine) -> DiceLine | None:
    """The campaign's own dice line of the event ``line`` names (same period, branch, key and
    orders), or None when it recorded no such event."""
    found = recorded_event(session, ctx, line)
    return found[1] if found is not None else None


def recorded_event(session: Session, ctx: CampaignContext, line: DiceLine
                   ) -> tuple[Event, DiceLine] | None:
    """The campaign's own event ``line`` names and its recorded dice line."""
    return _recorded_of(_recorded_lines(session, ctx, line.event.period), line)


def _recorded_lines(session: Session, ctx: CampaignContext, period: int
                    ) -> list[tuple[Event, DiceLine]]:
    """The period's events that recorded a dice line, with the line (one that does not
    read as a dice line is left out)."""
    found = []
    for event in _events_of(session, ctx, period):
        try:
            found.append((event, DiceLine.parse(str(event.data_json[DICE_KEY]))))
        except ValueError:
            continue
    return found


def _recorded_of(recorded: Sequence[tuple[Event, DiceLine]], line: DiceLine
                 ) -> tuple[Event, DiceLine] | None:
    return next(((event, stored) for event, stored in recorded if stored.event == line.event),
                None)


def round_problems(ctx: CampaignContext, line: DiceLine, recorded: DiceLine | None,
                   tick: int | None) -> list[str]:
    """What is wrong with the beacon round a printed line names, against the campaign's record
    of its event (recorded at ``tick``): another round than the record's, or not the first
    round at or after the tick's moment plus the margin (empty: none)."""
    problems = []
    if recorded is not None and recorded.beacon_round != line.beacon_round:
        problems.append(f"the campaign's record binds this event to beacon round "
                        f"{recorded.beacon_round or 'none'}, this line to "
                        f"{line.beacon_round or 'none'}")
    if tick is not None and line.beacon_round is not None:
        expected = beacon.round_for(ctx, tick)
        if line.beacon_round != expected:
            problems.append(f"beacon round {line.beacon_round} is not its tick's: a tick is "
                            f"bound to the first round at or after "
                            f"{beacon.due_text(ctx, tick)}, round {expected}")
    return problems


def lines_in(text: str) -> list[DiceLine]:
    """Every dice line in a post's text, in order."""
    found = []
    for raw in text.splitlines():
        if "dice: v1" in raw:
            found.append(DiceLine.parse(raw[raw.index("dice: v1"):].split("`")[0]))
    return found


def check_lines(session: Session, ctx: CampaignContext, lines: Sequence[DiceLine], *,
                secret_hex: str | None = None,
                printed: Mapping[int, BeaconLine] | None = None) -> tuple[list[str], bool]:
    """``maester verify``'s report on printed dice lines: one ``OK``/``FAIL`` line per dice
    line (with what is wrong under it), each compared with the campaign's record of its event
    and its beacon round's signature checked (``printed``: the beacon lines the post prints,
    else the campaign's stored rounds). Returns (report lines, whether all are fair)."""
    rounds = {line.beacon_round for line in lines if line.beacon_round is not None}
    beacons = {**beacon.by_round(session, ctx, rounds), **(printed or {})}
    signatures: dict[int, list[str]] = {}  # each round's signature checked once
    out: list[str] = []
    fair = True
    periods: dict[int, list[tuple[Event, DiceLine]]] = {}  # each period's record read once
    for line in lines:
        period = line.event.period
        if period not in periods:
            periods[period] = _recorded_lines(session, ctx, period)
        found = _recorded_of(periods[period], line)
        recorded = found[1] if found is not None else None
        verdict = verify_line(ctx, line, secret_hex, recorded=recorded, beacons=beacons,
                              signatures=signatures)
        wrong_round = round_problems(ctx, line, recorded,
                                     found[0].tick if found is not None else None)
        if wrong_round:
            verdict = Verdict(line, (*verdict.problems, *wrong_round), verdict.commitment_ok)
        bound = (f" | beacon round {line.beacon_round} (signature checked)"
                 if line.beacon_round is not None and verdict.fair else "")
        out.append(f"{'OK  ' if verdict.fair else 'FAIL'} {line.event}{bound}")
        if not verdict.commitment_ok:
            out.append("     that key is not the one committed to for this period and branch")
        if recorded is None:
            out.append("     (the campaign has no record of this event to compare it with)")
        out += [f"     {problem}" for problem in verdict.problems]
        fair = fair and verdict.fair
    return out, fair
