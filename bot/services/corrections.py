"""Corrections in public: a moderator's ``undo`` or ``rollback`` with its reason, the public
``[Correction]`` post and the private note to each claim whose world it changed.

:func:`take_back` is the one way the CLI, the Mod Discussions commands and an approved
proposal take the world back: it reads every claim's own state (:func:`claim_views`), restores
the snapshot (:func:`bot.services.snapshots.restore`, which logs the ``undo`` event with the
reason), reads the claims again and queues, through the outbox, the public post
(:func:`bot.render.corrections.correction_post`: no hidden facts, only counts, the moment, the
reason and the names) and one note per claim whose own state differs (its players only).
Their outbox keys start with :data:`CORRECTION_KEY`: a later ``undo`` leaves them be (they
stay true: that correction did happen) rather than withdrawing them or refusing over them.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from bot.db.models import Army, Character, Claim, Relation, ResourceHolder, Siege
from bot.render.corrections import correction_note, correction_post
from bot.services import journal, snapshots
from bot.services.world import CampaignContext, current
from rules.campaign.paths import ArmyKind
from rules.campaign.timing import world_time
from rules.campaign.world import ACTIVE_STATES, SiegeStatus

CORRECTION_KEY = snapshots.CORRECTION_KEY

Views = dict[int, dict[str, str]]
"""Each claim's own state, by claim id: what (``gold``, ``army 3``...) -> how it stands."""


def _place(ctx: CampaignContext, tile: str) -> str:
    try:
        return ctx.world.tile(tile).label
    except (KeyError, LookupError):
        return tile


def claim_views(session: Session, ctx: CampaignContext) -> Views:
    """What each claim knows of its own situation: its gold and troops at home, its seat and
    holdings, each of its armies and characters, its relations and its sieges. Two readings
    differ for a claim exactly when a correction changed something that claim can see."""
    cid = ctx.campaign_id
    views: Views = {}
    names: dict[int, str] = {}
    for claim in session.exec(select(Claim).where(Claim.campaign_id == cid)).all():
        names[claim.id or 0] = claim.name
        views[claim.id or 0] = {
            "gold": f"{claim.gold}",
            "troops at home": f"{claim.infantry} infantry, {claim.cavalry} cavalry, "
                              f"{claim.ships} ships",
            "seat": _place(ctx, claim.holdfast) if claim.holdfast else "none"}
    for army in session.exec(select(Army).where(Army.campaign_id == cid)).all():
        if army.state not in ACTIVE_STATES:
            continue
        what = "fleet" if army.kind == ArmyKind.FLEET else "army"
        size = (f"{army.ships} ships" if army.kind == ArmyKind.FLEET
                else f"{army.infantry} infantry, {army.cavalry} cavalry")
        where = f"{army.state.value} at {_place(ctx, army.tile)}"
        if army.path_json:
            where += f", bound for {_place(ctx, str(army.path_json[-1]))}"
        views.setdefault(army.claim_id, {})[f"{what} {army.id}"] = f"{size}, {where}"
    for ch in session.exec(select(Character).where(Character.campaign_id == cid)).all():
        views.setdefault(ch.claim_id, {})[ch.name] = ch.status.value + (
            f", with army {ch.army_id}" if ch.army_id else "")
    held: dict[int, list[str]] = {}
    for holder in session.exec(select(ResourceHolder).where(
            ResourceHolder.campaign_id == cid)).all():
        if holder.claim_id is not None:
            held.setdefault(holder.claim_id, []).append(_place(ctx, holder.tile))
    for claim_id, tiles in held.items():
        views.setdefault(claim_id, {})["holdings"] = ", ".join(sorted(tiles))
    for rel in session.exec(select(Relation).where(Relation.campaign_id == cid)).all():
        for one, other in ((rel.claim_a, rel.claim_b), (rel.claim_b, rel.claim_a)):
            views.setdefault(one, {})[f"relation with {names.get(other, other)}"] = \
                rel.status.value
    for siege in session.exec(select(Siege).where(Siege.campaign_id == cid)).all():
        if siege.status != SiegeStatus.ACTIVE:
            continue
        where = _place(ctx, siege.holdfast)
        views.setdefault(siege.besieger_claim, {})[f"siege of {where}"] = (
            f"laid by army {siege.army_id}, {siege.months_elapsed} of "
            f"{siege.months_required} months")
        views.setdefault(siege.defender_claim, {})[f"siege of {where}"] = (
            f"besieged by {names.get(siege.besieger_claim, '?')}")
    return views


def changes(before: Views, after: Views) -> dict[int, list[tuple[str, str, str]]]:
    """Per claim, (what, before, after) of each part of its own state that differs."""
    out: dict[int, list[tuple[str, str, str]]] = {}
    for claim_id in sorted(set(before) | set(after)):
        old, new = before.get(claim_id, {}), after.get(claim_id, {})
        diff = [(what, old.get(what, "none"), new.get(what, "none"))
                for what in sorted(set(old) | set(new)) if old.get(what) != new.get(what)]
        if diff:
            out[claim_id] = diff
    return out


def take_back(session: Session, ctx: CampaignContext, chosen: snapshots.Plan, *,
              reason: str, actor: str, now: datetime, approved_by: str = "",
              force: bool = False, delete_posts: bool = False,
              replay_revealed: bool = False) -> list[str]:
    """Restore ``chosen`` (:func:`bot.services.snapshots.restore`, refusals included) and
    queue the public correction and the claims' notes; returns the plan's lines and one line
    saying what was queued. ``reason`` must not be empty (ValueError, nothing changed).

    ``now`` is the wall clock (the plan's delivery leases are on it); the log lines, the post
    and the notes carry the world's time (:func:`rules.campaign.timing.world_time`), as every
    other moderator's change does: after ticks applied ahead of the wall clock (a rehearsal),
    the moment just after the last of them, not a moment before the ticks it takes back."""
    reason = " ".join(reason.split())[:300]
    if not reason:
        raise ValueError("a correction needs a reason")
    snapshot = chosen.snapshot
    cid = ctx.campaign_id
    ctx, campaign = current(session, ctx, lock=True)  # the clock as stored
    last = campaign.last_tick
    at = world_time(now, ctx.tick_at(last))
    ticks = max(0, last - snapshot.tick)
    commands = sum(1 for s in chosen.undone if s.kind == "command")
    void = [e.title for e in chosen.sent if e.kind == "post" and e.title]
    before = claim_views(session, ctx)
    lines = snapshots.restore(session, ctx, chosen, actor=actor, now=at, force=force,
                              delete_posts=delete_posts, replay_revealed=replay_revealed,
                              reason=reason, approved_by=approved_by)
    after = claim_views(session, ctx)
    when = ctx.when(ctx.tick_at(snapshot.tick))
    stamp = f"{snapshot.id}:{snapshot.tick}:{now:%Y%m%dT%H%M%S%f}"
    title = ctx.settings.posts.correction_title.format(date=when)
    journal.queue(session, cid, f"{CORRECTION_KEY}{stamp}", "post", public=True,
                  target=ctx.settings.campaign.subreddit, title=title,
                  flair=ctx.settings.posts.correction_flair, at=at, tick=snapshot.tick,
                  body=correction_post(when=when, ticks=ticks, commands=commands,
                                       reason=reason, by=actor, approved_by=approved_by,
                                       void_posts=void, deleted=delete_posts,
                                       orders=bool(chosen.players & set(chosen.orders))))
    names = {c.id: c.name for c in session.exec(select(Claim).where(
        Claim.campaign_id == cid)).all()}
    told = changes(before, after)
    for claim_id, diff in told.items():
        if claim_id not in names:
            continue
        subject, body = correction_note(claim=names[claim_id], when=when, reason=reason,
                                        changes=diff)
        journal.notify_claim(session, cid, claim_id, f"{CORRECTION_KEY}{stamp}:{claim_id}",
                             subject=subject, body=body, at=at, tick=snapshot.tick)
    told_names = sorted(names[c] for c in told if c in names)
    journal.log_event(session, cid, snapshot.tick, "correction",
                      f"public correction queued ({reason})"
                      + (f"; private notes to {', '.join(told_names)}" if told_names else ""),
                      at=at, actor=actor,
                      data={"post": f"{CORRECTION_KEY}{stamp}", "reason": reason,
                            "approved_by": approved_by, "ticks": ticks, "commands": commands,
                            "claims": sorted(c for c in told if c in names)})
    return [*lines, "Correction queued: a public [Correction] post"
            + (f" and a private note to {', '.join(told_names)}" if told_names
               else " (no claim's own situation changed)") + "."]
