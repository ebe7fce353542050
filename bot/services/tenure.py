"""Who plays a claim, and which claims there are, over a long campaign: the hand-over
(``maester claims transfer``), new claims mid-campaign (``claims add``) and retired ones
(``claims retire``).

Each function changes the world inside the caller's transaction, keeping first the snapshot
``maester undo`` goes back to, logs one event with the moderator's name, and
raises LookupError (a sentence for the moderator; nothing changed) for what cannot be done.

**Private goes to the players of the moment.** Every private note, digest, detection and
dice key is addressed when it is queued, to the players the claim has then
(:func:`bot.services.journal.players_of`); after a hand-over the removed player gets nothing
new, and the new one everything from then on. An order from a removed player is refused
whenever it is read (they play no claim any more), even one sent before the hand-over but
read after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Army, Claim, Player, RelationStatus
from bot.services import journal, snapshots, webhooks, weblinks
from bot.services.moderation import remove_army_kept
from bot.services.order_world import load_order_world, write_back
from bot.services.setup import RosterRows
from bot.services.world import CampaignContext, claim_by_name, set_relation
from bot.text import escape_md
from rules.campaign.absence import Hold
from rules.campaign.decide import Part
from rules.campaign.holdfasts import release_holdfasts
from rules.campaign.inputs import check_reddit_name
from rules.campaign.world import ArmyState
from rules.errors import InvalidInput


def transfer(session: Session, ctx: CampaignContext, claim: Claim, to: str, *, add: bool,
             actor: str, now: datetime) -> str:
    """Give ``claim`` to u/``to`` (``add``: as one more player; else in place of its players):
    notes to the old and new players, a public post when ``[claims] transfer_post``. The claim
    counts as active from now (a hold for inactivity and a leave end). Raises LookupError for a
    name that is no Reddit user name, a retired claim, someone who already plays it, or someone
    who plays another claim unless ``[claims] players_may_play_several``."""
    try:
        name = check_reddit_name(to, "--to")
    except InvalidInput as exc:
        raise LookupError(str(exc)) from None
    if claim.retired_at is not None:
        raise LookupError(f"{claim.name} is retired; add a claim for u/{name} with "
                          "`maester claims add` instead")
    playing = session.exec(select(Player).where(Player.campaign_id == ctx.campaign_id,
                                                Player.reddit_name == name)).all()
    if any(p.claim_id == claim.id for p in playing):
        raise LookupError(f"u/{name} already plays this claim ({claim.name})")
    if playing and not ctx.settings.claims.players_may_play_several:
        other = session.get(Claim, playing[0].claim_id)
        where = other.name if other is not None else "another claim"
        raise LookupError(f"u/{name} already plays {where} (a player plays one claim unless "
                          "`[claims] players_may_play_several = true`; transfer that claim or "
                          "retire it first)")
    snapshots.take(session, ctx, kind="command", label=f"claims transfer {claim.name}",
                   now=now, actor=actor)
    old = journal.players_of(session, claim.id or 0)
    removed = [] if add else old
    if removed:
        for row in session.exec(select(Player).where(Player.claim_id == claim.id)).all():
            session.delete(row)
        session.flush()
    session.add(Player(campaign_id=ctx.campaign_id, claim_id=claim.id or 0, reddit_name=name))
    claim.active_at = now
    if claim.hold in (Hold.INACTIVE, Hold.LIFTED):
        claim.hold = None
    claim.away_until, claim.away_reason = None, None
    session.add(claim)
    session.flush()
    journal.players_changed(session)
    tick = ctx.tick_of(now)
    summary = (f"{claim.name}: u/{name} " + ("joins " + ", ".join(f"u/{p}" for p in old)
                                             if add else "takes over")
               + (f" from {', '.join(f'u/{p}' for p in removed)}" if removed else ""))
    journal.log_event(session, ctx.campaign_id, tick, "claim_transfer", summary, at=now,
                      claim_id=claim.id, actor=actor,
                      data={"to": name, "add": add, "removed": removed, "before": old})
    key = f"transfer:{claim.id}:{name}:{now.isoformat()}"[:100]
    shown = escape_md(claim.name)
    for player in removed:
        journal.queue(session, ctx.campaign_id, f"{key}:{player}"[:120], "message",
                      target=player, at=now, tick=tick, claim_id=None,
                      title=f"You no longer play {claim.name}",
                      body=f"The moderators have given {shown} to another player. Thank you "
                           "for playing; your orders for it are no longer taken. Write to the "
                           "moderators if this is a mistake.")
    journal.notify_claim(session, ctx.campaign_id, claim.id or 0, key,
                         subject=f"You now play {claim.name}",
                         body=f"The moderators have given {shown} to u/{escape_md(name)}"
                              + (" as one more player" if add else "")
                              + ". Send `status` for its holdfast, treasury, armies and secret "
                              "numbers, and `help` for the orders.",
                         at=now, tick=tick)
    if removed:  # their copy of the war-room link must open nothing any more
        weblinks.replace_for_new_players(session, ctx, claim.id or 0, claim.name, now=now,
                                         tick=tick)
        # nor may their webhook receive the new player's news (notes already queued for it
        # are dropped: a webhook entry looks its address up when it is sent)
        webhooks.forget(session, ctx, claim, actor=actor, now=now,
                        why="removed: the claim has a new player")
    if ctx.settings.claims.transfer_post:
        journal.queue(session, ctx.campaign_id, f"{key}:post"[:120], "post", public=True,
                      target=ctx.settings.campaign.subreddit, at=now, tick=tick,
                      title=f"[Claims] u/{name} now plays {claim.name}"[:300],
                      body=f"u/{escape_md(name)} " + ("joins the players of" if add else
                                                     "takes up") + f" {shown}.")
    return summary


def add_claims(session: Session, ctx: CampaignContext, entries: Sequence[Mapping[str, Any]],
               wars: Sequence[tuple[str, str]], *, actor: str, now: datetime) -> list[str]:
    """Add the claims of roster ``entries`` mid-campaign (checked as ``init``'s roster, and
    against the claims already there), at war with the claims ``wars`` names. Each new claim's
    players are welcomed privately. Raises LookupError naming the entry (nothing changed: the
    caller rolls back)."""
    snapshots.take(session, ctx, kind="command", now=now, actor=actor,
                   label="claims add " + ", ".join(str(e.get("name", "?")) for e in entries))
    rows = RosterRows(session, ctx.campaign_id, ctx.world, now=now,
                      several=ctx.settings.claims.players_may_play_several)
    added: list[Claim] = []
    for i, entry in enumerate(entries):
        try:
            added.append(rows.add(entry, f"claims[{i}]"))
        except ValueError as exc:
            raise LookupError(str(exc)) from None
    journal.players_changed(session)
    tick = ctx.tick_of(now)
    for a, b in wars:
        first, second = claim_by_name(session, ctx, a), claim_by_name(session, ctx, b)
        if first is None or second is None:
            raise LookupError(f"wars: {a if first is None else b!r} is no claim")
        set_relation(session, ctx, first.id or 0, second.id or 0, RelationStatus.WAR)
    summaries = []
    for claim in added:
        summary = (f"claim {claim.name} added at {ctx.world.tile(claim.holdfast).label}: gold "
                   f"{claim.gold}, {claim.infantry} infantry, {claim.cavalry} cavalry, "
                   f"{claim.ships} ships")
        journal.log_event(session, ctx.campaign_id, tick, "claim_added", summary, at=now,
                          claim_id=claim.id, actor=actor,
                          data={"name": claim.name, "holdfast": claim.holdfast,
                                "players": journal.players_of(session, claim.id or 0)})
        journal.notify_claim(session, ctx.campaign_id, claim.id or 0,
                             f"added:{claim.id}", subject=f"Welcome: you play {claim.name}",
                             body=f"{escape_md(claim.name)} joins the campaign. Send `status` "
                                  "for its holdfast, treasury and secret numbers, and `help` "
                                  "for the orders.", at=now, tick=tick)
        summaries.append(summary)
    return summaries


def retire(session: Session, ctx: CampaignContext, claim: Claim, *, disband: bool,
           actor: str, now: datetime) -> str:
    """End ``claim``: its players are told and leave it, its raised armies are removed
    (``disband``) or stay where they are as held forces (battles still come to them), and it
    takes no more orders. Raises LookupError when it is already retired."""
    if claim.retired_at is not None:
        raise LookupError(f"{claim.name} is already retired")
    snapshots.take(session, ctx, kind="command", label=f"claims retire {claim.name}", now=now,
                   actor=actor)
    tick = ctx.tick_of(now)
    armies = session.exec(select(Army.id).where(Army.claim_id == claim.id,
                                                col(Army.state) != ArmyState.GONE)).all()
    if disband:
        for army_id in armies:
            remove_army_kept(session, ctx, army_id or 0, reason=f"{claim.name} retired",
                             actor=actor, now=now)
    players = journal.players_of(session, claim.id or 0)
    journal.notify_claim(session, ctx.campaign_id, claim.id or 0, f"retired:{claim.id}",
                         subject=f"{claim.name} is retired",
                         body=f"The moderators have retired {escape_md(claim.name)}. Thank "
                              "you for playing; your orders for it are no longer taken.",
                         at=now, tick=tick, players=players)
    for row in session.exec(select(Player).where(Player.claim_id == claim.id)).all():
        session.delete(row)
    claim.retired_at, claim.hold = now, None
    claim.away_until, claim.away_reason = None, None
    session.add(claim)
    session.flush()
    journal.players_changed(session)
    world, rows = load_order_world(session, ctx, (Part.HOLDERS,))
    after, released = release_holdfasts(world, claim.id or 0,
                                        (tile.id for tile in ctx.world.holdfasts()))
    write_back(session, ctx, rows, world, after)
    kept = "" if disband or not armies else f", {len(armies)} army(ies) stay as held forces"
    summary = (f"{claim.name} retired" + (f", {len(armies)} army(ies) disbanded"
                                          if disband and armies else kept))
    if released:
        summary += "; nobody holds " + ", ".join(ctx.world.tile(t).label for t in released) + \
            " now"
    journal.log_event(session, ctx.campaign_id, tick, "claim_retired", summary, at=now,
                      claim_id=claim.id, actor=actor,
                      data={"players": players, "disband": disband, "armies": list(armies),
                            "released": list(released)})
    return summary
