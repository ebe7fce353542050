"""A second moderator: actions that wait for approval, and involved moderators.

``[moderators] approval`` names the actions (:data:`bot.config.APPROVABLE`) that no single
moderator may take alone; ``[moderators] plays`` (and the claims' player lists) ties
moderators to the claims they play. An action of a moderator on a claim they play, or on a
claim at war with one, waits for another moderator whatever ``approval`` says
(:func:`waits`).

An action is an :class:`Action`: its kind, the plain values it needs (JSON), the claims it
acts on. :func:`gate` is asked before any such action runs: when it must wait it is stored as
a :class:`~bot.db.models.Proposal` (nothing else of the world changes; the moderators get a
note) and the caller stops there. :func:`approve` runs it for a second moderator: never for
the proposer, nor for a moderator involved in it themselves; when the world moved on since
the proposal (a tick was applied, or its targets changed: :func:`fingerprint`), the action is
checked again (:func:`check`) and refused with the reason when it no longer applies. Both
names are in the journal: the action's own event carries the proposer, an ``approval`` event
names both (and the involvement, when there was one). :func:`refuse` closes a proposal with a
reason. The proposals are not part of the world: taking the world back leaves them be.

Every action kind has one row in :data:`KINDS`: what it reads to check itself, how it runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from bot.config import reddit_name
from bot.db.models import (
    Army,
    Character,
    Claim,
    Event,
    Outbox,
    Player,
    Proposal,
    ProposalStatus,
    Relation,
)
from bot.services import journal, snapshots
from bot.services.outbox import withdraw_pending
from bot.services.world import CampaignContext, claim_by_name, current, get_campaign, relation
from rules.campaign.timing import world_time
from rules.campaign.world import ACTIVE_STATES, RelationStatus
from rules.errors import InvalidInput


class Refused(Exception):
    """What a moderator asked cannot be done: a sentence saying why and what would do."""


@dataclass(frozen=True, slots=True)
class Action:
    """One moderator's action, as plain values: ``kind`` (of :data:`bot.config.APPROVABLE`),
    ``args`` (JSON values its :data:`KINDS` row reads), ``summary`` (in words, for the
    moderators only) and ``claims`` (the ids of the claims it acts on)."""

    kind: str
    args: dict[str, Any]
    summary: str
    claims: tuple[int, ...] = ()


# --- who is involved --------------------------------------------------------------------

def claims_played(session: Session, ctx: CampaignContext, moderator: str) -> dict[int, str]:
    """The claims ``moderator`` plays, id -> name: ``[moderators] plays`` and the claims'
    player lists."""
    name = reddit_name(moderator)
    wanted = ctx.settings.moderators.plays.get(name, [])
    out: dict[int, str] = {}
    for claim_name in wanted:
        found = claim_by_name(session, ctx, claim_name)
        if found is not None and found.id is not None:
            out[found.id] = found.name
    for claim in session.exec(select(Claim).join(Player, col(Player.claim_id) == Claim.id)
                              .where(Player.campaign_id == ctx.campaign_id,
                                     Player.reddit_name == name)).all():
        out[claim.id or 0] = claim.name
    return out


def involvement(session: Session, ctx: CampaignContext, moderator: str,
                claims: Sequence[int]) -> str:
    """Why ``moderator`` is involved in an action on ``claims`` ("" when not): they play one
    of them, or one of them is at war with a claim they play."""
    played = claims_played(session, ctx, moderator)
    if not played or not claims:
        return ""
    who = f"u/{reddit_name(moderator)}"
    names = {c.id: c.name for c in session.exec(select(Claim).where(
        Claim.campaign_id == ctx.campaign_id)).all()}
    for claim_id in claims:
        if claim_id in played:
            return f"{who} plays {names.get(claim_id, claim_id)}"
    wars = session.exec(select(Relation).where(Relation.campaign_id == ctx.campaign_id,
                                               Relation.status == RelationStatus.WAR)).all()
    for claim_id in claims:
        for rel in wars:
            pair = {rel.claim_a, rel.claim_b}
            if claim_id in pair:
                other = (pair - {claim_id}).pop() if len(pair) > 1 else claim_id
                if other in played:
                    return (f"{names.get(claim_id, claim_id)} is at war with "
                            f"{played[other]}, which {who} plays")
    return ""


def waits(session: Session, ctx: CampaignContext, action: Action, moderator: str
          ) -> tuple[str, str]:
    """(why ``action`` by ``moderator`` waits for a second moderator, the involvement); both
    "" when it may run at once."""
    involved = involvement(session, ctx, moderator, action.claims)
    if involved:
        return (f"{involved}: a moderator's action on their own claim or a claim at war with "
                "it waits for another moderator", involved)
    if action.kind in ctx.settings.moderators.approval:
        return (f"[moderators] approval asks a second moderator for {action.kind!r}", "")
    return "", ""


def known_moderator(ctx: CampaignContext, name: str) -> str:
    """``name`` as a campaign moderator's Reddit name; Refused when it is none of
    ``[campaign] moderators`` (who proposes or approves must be a known moderator)."""
    wanted = reddit_name(name)
    if not ctx.is_moderator(wanted):
        listed = ", ".join(f"u/{m}" for m in sorted(ctx.moderators)) or "none listed"
        raise Refused(f"u/{wanted} is not one of the campaign's moderators ({listed}, "
                      "[campaign] moderators): say who you are with --by u/NAME (or "
                      "MAESTER_MODERATOR=NAME), e.g. --by u/mod_jane")
    return wanted


# --- what each kind checks and runs -----------------------------------------------------

Checker = Callable[[Session, CampaignContext, dict[str, Any]], Any]
Runner = Callable[[Session, CampaignContext, dict[str, Any], str, str, datetime], list[str]]


@dataclass(frozen=True, slots=True)
class Kind:
    """How one action kind checks itself (raising Refused, changing nothing; returns the
    state of its targets, for :func:`fingerprint`) and runs (actor, approver, now)."""

    check: Checker
    run: Runner


def _claim(session: Session, ctx: CampaignContext, name: str) -> Claim:
    found = claim_by_name(session, ctx, name)
    if found is None:
        raise Refused(f"no claim called {name!r} (see `maester claims`)")
    return found


def _holdings(args: dict[str, Any]) -> Any:
    from bot.services.moderation import Holdings

    return Holdings(Decimal(args["gold"]), int(args["infantry"]), int(args["cavalry"]),
                    int(args["ships"]))


def adjust_action(claim: Claim, change: Any, reason: str) -> Action:
    """The action of ``maester adjust``: ``change`` (a
    :class:`~bot.services.moderation.Holdings`) to ``claim``'s gold and troops at home."""
    gold, infantry, cavalry, ships = change
    return Action("adjust", {"claim": claim.name, "gold": str(gold), "infantry": infantry,
                             "cavalry": cavalry, "ships": ships, "reason": reason},
                  f"adjust {claim.name}: gold {gold:+}, infantry {infantry:+}, cavalry "
                  f"{cavalry:+}, ships {ships:+}" + (f" ({reason})" if reason else ""),
                  (claim.id or 0,))


def _check_adjust(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    from bot.services.moderation import adjusted, held_gold

    claim = _claim(session, ctx, args["claim"])
    try:
        adjusted(claim, _holdings(args))
    except InvalidInput as exc:
        raise Refused(str(exc)) from None
    return [str(held_gold(claim)), claim.infantry, claim.cavalry, claim.ships]


def _run_adjust(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
                approver: str, now: datetime) -> list[str]:
    from bot.services.moderation import adjust_claim

    claim = _claim(session, ctx, args["claim"])
    new = adjust_claim(session, ctx, claim, _holdings(args), reason=args.get("reason", ""),
                       actor=actor, now=now)
    return [f"{claim.name} after: gold {new.gold}, {new.infantry} infantry, {new.cavalry} "
            f"cavalry, {new.ships} ships"]


def _army(session: Session, ctx: CampaignContext, army_id: int) -> Army:
    army = session.get(Army, army_id)
    if army is None or army.campaign_id != ctx.campaign_id or army.state not in ACTIVE_STATES:
        raise Refused(f"no raised army or fleet {army_id} (see `maester armies`)")
    return army


def army_action(session: Session, ctx: CampaignContext, army_id: int, reason: str) -> Action:
    """The action of ``maester army remove N``; Refused for no such raised army."""
    army = _army(session, ctx, army_id)
    return Action("army remove", {"army": army_id, "reason": reason},
                  f"remove army {army_id} ({reason})", (army.claim_id,))


def _check_army(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    army = _army(session, ctx, int(args["army"]))
    return [army.claim_id, army.infantry, army.cavalry, army.ships]


def _run_army(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
              approver: str, now: datetime) -> list[str]:
    from bot.services.moderation import remove_army

    summary = remove_army(session, ctx, int(args["army"]), reason=args["reason"], actor=actor,
                          now=now)
    return [summary[0].upper() + summary[1:] + "."]


def _character(session: Session, ctx: CampaignContext, character_id: int) -> Character:
    row = session.get(Character, character_id)
    if row is None or row.campaign_id != ctx.campaign_id:
        raise Refused(f"character {character_id} no longer exists (see `maester characters`)")
    return row


def fate_action(row: Character, fate: str, note: str) -> Action:
    """The action of ``maester character set NAME FATE``."""
    return Action("fates", {"character": row.id, "fate": fate.lower(), "note": note},
                  f"character {row.name}: {fate.lower()}" + (f" ({note})" if note else ""),
                  (row.claim_id,))


def _check_fate(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    row = _character(session, ctx, int(args["character"]))
    return [row.status.value, row.army_id]


def _run_fate(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
              approver: str, now: datetime) -> list[str]:
    from bot.services.moderation import set_fate

    row = _character(session, ctx, int(args["character"]))
    return [set_fate(session, ctx, row, args["fate"], note=args.get("note", ""), actor=actor,
                     now=now)]


def skill_action(session: Session, ctx: CampaignContext, character: str, skill: str
                 ) -> Action:
    """The action of ``maester skills grant CHARACTER SKILL``; Refused for an unknown
    character."""
    from bot.services.world import find_character

    try:
        row = find_character(session, ctx, character)
    except LookupError as exc:
        raise Refused(str(exc)) from None
    return Action("skills grant", {"character": character, "skill": skill},
                  f"grant {skill} to {row.name}", (row.claim_id,))


def map_action(text: str, source: str) -> Action:
    """The action of ``maester map update FILE --yes``."""
    return Action("map update", {"text": text, "source": source},
                  f"replace the map by {source}")


def _check_skill(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    from bot.services.catalogue import catalogue_of
    from bot.services.world import find_character
    from rules.campaign.catalogue import Section

    try:
        row = find_character(session, ctx, args["character"])
    except LookupError as exc:
        raise Refused(str(exc)) from None
    entry = catalogue_of(session, ctx).find(Section.SKILLS, args["skill"])
    if entry is None:
        raise Refused(f"no skill called {args['skill']!r} in the catalogue")
    if any(str(s).casefold() == entry.name.casefold() for s in row.skills_json):
        raise Refused(f"{row.name} already has {entry.name}")
    return [row.id, sorted(map(str, row.skills_json))]


def _run_skill(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
               approver: str, now: datetime) -> list[str]:
    from bot.services.catalogue import grant_skill

    return [grant_skill(session, ctx, args["character"], args["skill"], by=actor, now=now)]


def _map_plan(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    from bot.services.mapupdate import plan_map_update

    try:
        plan = plan_map_update(session, ctx, args["text"])
    except InvalidInput as exc:
        raise Refused(str(exc)) from None
    if plan.problems:
        raise Refused("the new map does not fit the campaign: " + "; ".join(plan.problems))
    if not plan.changed:
        raise Refused("the new map is the same as the campaign's: nothing to do")
    return plan


def _check_map(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    _map_plan(session, ctx, args)
    return hashlib.sha256(get_campaign(session, ctx).map_text.encode()).hexdigest()


def _run_map(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
             approver: str, now: datetime) -> list[str]:
    from bot.services.mapupdate import apply_map_update

    plan = _map_plan(session, ctx, args)
    apply_map_update(session, ctx, plan, now=now, actor=actor, source=args.get("source", "map"))
    return ["map updated; a running bot picks it up at its next wake-up (within a minute)"]


def undo_plan(session: Session, ctx: CampaignContext, args: dict[str, Any],
              now: datetime) -> snapshots.Plan:
    """The plan of an undo (``args["to"]`` None) or a rollback to tick ``args["to"]``."""
    to = args.get("to")
    snapshot = (snapshots.newest(session, ctx) if to is None
                else snapshots.after_tick(session, ctx, int(to)))
    return snapshots.plan(session, ctx, snapshot, now)


def undone_ids(chosen: snapshots.Plan) -> list[int]:
    return [s.id or 0 for s in chosen.undone]


def undo_action(session: Session, ctx: CampaignContext, *, to: int | None, reason: str,
                now: datetime, force: bool = False, delete_posts: bool = False,
                replay_revealed: bool = False) -> tuple[Action, snapshots.Plan]:
    """The action of an undo (``to`` None) or a rollback to just after tick ``to``, and its
    plan (UndoRefused when there is nothing to take back). It acts on the claims named by
    the events it takes back (their orders, their battles, the commands about them)."""
    args: dict[str, Any] = {"to": to, "reason": " ".join(reason.split())[:300],
                            "force": force, "delete_posts": delete_posts,
                            "replay_revealed": replay_revealed}
    chosen = undo_plan(session, ctx, args, now)
    touched = session.exec(select(Event.claim_id).where(
        Event.campaign_id == ctx.campaign_id, col(Event.id) > chosen.snapshot.event_mark,
        col(Event.claim_id).is_not(None)).distinct()).all()
    kind = "undo" if to is None else "rollback"
    summary = (f"{kind}: take the world back to before {chosen.snapshot.label} "
               f"({len(chosen.undone)} tick(s)/command(s)) because {args['reason']}")
    return Action(kind, args, summary, tuple(sorted(c for c in touched if c))), chosen


def _check_undo(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    try:
        chosen = undo_plan(session, ctx, args, args["now_"])
        snapshots.check_restorable(chosen, force=bool(args.get("force")),
                                   replay_revealed=bool(args.get("replay_revealed")))
    except snapshots.UndoRefused as exc:
        raise Refused(str(exc)) from None
    wanted = args.get("undone")
    if wanted is not None and undone_ids(chosen) != wanted:
        labels = ", ".join(s.label for s in chosen.undone if (s.id or 0) not in wanted)
        raise Refused("the world moved on since it was proposed: it would now take back "
                      f"{labels or 'something else'} as well; propose it again")
    return undone_ids(chosen)


def _run_undo(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
              approver: str, now: datetime) -> list[str]:
    from bot.services.corrections import take_back

    chosen = undo_plan(session, ctx, args, now)
    return take_back(session, ctx, chosen, reason=args["reason"], actor=actor, now=now,
                     approved_by=approver, force=bool(args.get("force")),
                     delete_posts=bool(args.get("delete_posts")),
                     replay_revealed=bool(args.get("replay_revealed")))


def relations_action(a: Claim, b: Claim, status: RelationStatus) -> Action:
    """The action of ``maester relations set A B STATUS``."""
    return Action("relations set", {"a": a.name, "b": b.name, "status": status.value},
                  f"relations set {a.name} {b.name} {status.value}", (a.id or 0, b.id or 0))


def _check_relations(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    a, b = _claim(session, ctx, args["a"]), _claim(session, ctx, args["b"])
    if a.id == b.id:
        raise Refused("name two different claims (see `maester claims`)")
    return relation(session, ctx, a.id or 0, b.id or 0).value


def _run_relations(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
                   approver: str, now: datetime) -> list[str]:
    from bot.services.moderation import set_relations

    a, b = _claim(session, ctx, args["a"]), _claim(session, ctx, args["b"])
    status = RelationStatus(args["status"])
    before = set_relations(session, ctx, a, b, status, actor=actor, now=now)
    return [f"{a.name} and {b.name} are now {status.value} (were {before.value})."]


def _holder(session: Session, ctx: CampaignContext, holdfast: str) -> tuple[str, int | None]:
    """(the holdfast's tile id, the claim holding it); Refused for a tile that is none."""
    from bot.services.order_world import load_order_world
    from rules.campaign.decide import Part
    from rules.campaign.holdfasts import holder_of

    try:
        tile = ctx.world.tile(holdfast)
    except (KeyError, LookupError, InvalidInput) as exc:
        raise Refused(str(exc)) from None
    if not tile.holdfast:
        raise Refused(f"{tile.label} is not a holdfast")
    world, _ = load_order_world(session, ctx, (Part.HOLDERS,))
    return tile.id, holder_of(world, tile.id)


def holdfast_action(session: Session, ctx: CampaignContext, holdfast: str, claim: Claim,
                    seat: bool) -> Action:
    """The action of ``maester holdfast give HOLDFAST CLAIM [--seat]``: it acts on the claim
    given it and on the claim holding it now."""
    tile, holder = _holder(session, ctx, holdfast)
    return Action("holdfast give", {"holdfast": tile, "claim": claim.name, "seat": seat},
                  f"holdfast give {ctx.world.tile(tile).label} {claim.name}"
                  + (" --seat" if seat else ""),
                  tuple(c for c in (claim.id or 0, holder) if c))


def _check_holdfast(session: Session, ctx: CampaignContext, args: dict[str, Any]) -> Any:
    _claim(session, ctx, args["claim"])
    return _holder(session, ctx, args["holdfast"])[1]


def _run_holdfast(session: Session, ctx: CampaignContext, args: dict[str, Any], actor: str,
                  approver: str, now: datetime) -> list[str]:
    from bot.services.moderation import give_holdfast

    return [give_holdfast(session, ctx, _claim(session, ctx, args["claim"]), args["holdfast"],
                          seat=bool(args["seat"]), actor=actor, now=now) + "."]


KINDS: dict[str, Kind] = {
    "adjust": Kind(_check_adjust, _run_adjust),
    "undo": Kind(_check_undo, _run_undo),
    "rollback": Kind(_check_undo, _run_undo),
    "map update": Kind(_check_map, _run_map),
    "skills grant": Kind(_check_skill, _run_skill),
    "army remove": Kind(_check_army, _run_army),
    "fates": Kind(_check_fate, _run_fate),
    "relations set": Kind(_check_relations, _run_relations),
    "holdfast give": Kind(_check_holdfast, _run_holdfast),
}
"""Every action that can wait for approval, by its :data:`bot.config.APPROVABLE` name (a test
checks that both name the same actions)."""


def check(session: Session, ctx: CampaignContext, action: Action, now: datetime) -> Any:
    """Whether ``action`` can run on the world as it stands (Refused saying why, changing
    nothing); returns the state of its targets."""
    return KINDS[action.kind].check(session, ctx, {**action.args, "now_": now})


def fingerprint(session: Session, ctx: CampaignContext, action: Action, now: datetime) -> str:
    """A digest of the state of ``action``'s targets (Refused when it cannot run)."""
    state = check(session, ctx, action, now)
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


# --- proposing, approving, refusing -----------------------------------------------------

def gate(session: Session, ctx: CampaignContext, action: Action, *, moderator: str,
         now: datetime) -> Proposal | None:
    """None when ``moderator`` may take ``action`` at once; otherwise the action is checked
    (Refused when it cannot run now) and stored as a pending proposal, the moderators are
    told, and the proposal is returned: the caller must then change nothing else.

    ``now`` is the clock the action runs on (the wall clock for an undo or a rollback: their
    delivery leases are on it); the proposal and the moderators' note carry the world's time
    (:func:`rules.campaign.timing.world_time`), as :func:`approve` and
    :func:`bot.services.corrections.take_back` do."""
    why, involved = waits(session, ctx, action, moderator)
    if not why:
        return None
    proposer = known_moderator(ctx, moderator)
    ctx, campaign = current(session, ctx, lock=True)  # the clock as stored
    at = world_time(now, ctx.tick_at(campaign.last_tick))
    args = dict(action.args)
    if action.kind in ("undo", "rollback"):  # what it takes back now is what is approved
        args["undone"] = check(session, ctx, action, now)
    proposal = Proposal(campaign_id=ctx.campaign_id, action=action.kind,
                        args_json={**args, "claims": list(action.claims)},
                        summary=action.summary[:300], proposer=proposer, why=why[:300],
                        involved=involved[:300], tick=campaign.last_tick,
                        fingerprint=fingerprint(session, ctx, action, now), created_at=at)
    session.add(proposal)
    session.flush()
    journal.notify_moderators(
        session, ctx.campaign_id, f"proposal:{proposal.id}", at=at, tick=campaign.last_tick,
        subject=f"Proposal #{proposal.id} waits for a second moderator",
        body=f"u/{proposer} proposes: {action.summary}\n\nIt waits because {why}.\n\n"
             f"Approve: `maester approve {proposal.id}` (or `!approve {proposal.id}` in Mod "
             f"Discussions); refuse: `maester refuse {proposal.id} --reason ...` (or "
             f"`!refuse {proposal.id} REASON`).\n\nNow "
             f"{waiting_line(waiting(session, ctx))}.")
    return proposal


def action_of(proposal: Proposal) -> Action:
    args = dict(proposal.args_json)
    claims = tuple(int(c) for c in args.pop("claims", []))
    return Action(proposal.action, args, proposal.summary, claims)


def _pending(session: Session, ctx: CampaignContext, proposal_id: int) -> Proposal:
    proposal = session.get(Proposal, proposal_id)
    if proposal is None or proposal.campaign_id != ctx.campaign_id:
        raise Refused(f"there is no proposal #{proposal_id} (see `maester proposals`)")
    if proposal.status != ProposalStatus.PENDING:
        raise Refused(f"proposal #{proposal_id} was {proposal.status.value} already by "
                      f"u/{proposal.decided_by}" + (f" ({proposal.decision})"
                                                    if proposal.decision else ""))
    return proposal


@dataclass(slots=True)
class Decision:
    """What :func:`approve` did: ran the action (``lines``), or refused it as stale."""

    proposal: Proposal
    ran: bool
    lines: list[str]


def approve(session: Session, ctx: CampaignContext, proposal_id: int, *, moderator: str,
            now: datetime) -> Decision:
    """Approve proposal ``proposal_id`` as ``moderator`` and run it. Refused (nothing
    changed) for an unknown or decided proposal, an approval by its proposer or by a
    moderator involved in it too. When the world moved on since the proposal and the action
    no longer applies, the proposal is refused with the reason (``ran`` False). The approval
    is logged (and the proposal decided) at the world's time, as in :func:`gate`."""
    approver = known_moderator(ctx, moderator)
    ctx, campaign = current(session, ctx, lock=True)  # the clock as stored
    # ``now`` may be the wall clock (an undo's delivery leases are on it: it runs on it); the
    # approval is logged at the world's time, read before the action runs, as take_back does
    at = world_time(now, ctx.tick_at(campaign.last_tick))
    proposal = _pending(session, ctx, proposal_id)
    if approver == proposal.proposer:
        raise Refused(f"u/{approver} proposed #{proposal_id}: another moderator must approve "
                      "it (nothing runs on one moderator's word)")
    action = action_of(proposal)
    involved = involvement(session, ctx, approver, action.claims)
    if involved:
        raise Refused(f"{involved}: an uninvolved moderator must approve #{proposal_id}")
    moved = campaign.last_tick != proposal.tick
    try:
        now_print = fingerprint(session, ctx, action, now)
    except Refused as exc:
        return _close(session, ctx, proposal, approver, at, ProposalStatus.REFUSED,
                      f"no longer applies: {exc}")
    moved = moved or now_print != proposal.fingerprint
    lines = KINDS[action.kind].run(session, ctx, action.args, proposal.proposer, approver,
                                   now)
    note = (f"proposal #{proposal.id} ({proposal.action}) by {proposal.proposer} approved by "
            f"{approver}" + (f"; re-checked: the world moved on since (tick {proposal.tick} "
                             f"then, {campaign.last_tick} at approval) and it still applies"
                             if moved else "")
            + (f" [involved: {proposal.involved}]" if proposal.involved else ""))
    journal.log_event(session, ctx.campaign_id, get_campaign(session, ctx).last_tick,
                      "approval", note[:300], at=at, actor=approver,
                      data={"proposal": proposal.id, "action": proposal.action,
                            "proposer": proposal.proposer, "approver": approver,
                            "involved": proposal.involved, "rechecked": moved,
                            "summary": proposal.summary})
    decided = _close(session, ctx, proposal, approver, at, ProposalStatus.APPROVED,
                     "re-checked and approved" if moved else "approved")
    decided.lines = [*lines, f"Proposal #{proposal.id} approved by u/{approver} (proposed by "
                     f"u/{proposal.proposer})" + (", re-checked after the world moved on"
                                                  if moved else "") + "."]
    return decided


def _close(session: Session, ctx: CampaignContext, proposal: Proposal, moderator: str,
           now: datetime, status: ProposalStatus, decision: str) -> Decision:
    # The proposal row may have been expunged by a restore (undo): write it by its id.
    row = session.get(Proposal, proposal.id) or proposal
    row.status, row.decided_by, row.decided_at = status, moderator, now
    row.decision = decision[:300]
    session.add(row)
    session.flush()
    # Decided, the proposal no longer waits, and its note to the moderators would count it
    # among those that do.
    withdraw_pending(session, ctx.campaign_id, col(Outbox.key) == f"proposal:{row.id}")
    ran = status is ProposalStatus.APPROVED
    lines = [] if ran else [f"Proposal #{row.id} refused: {decision}"]
    return Decision(row, ran, lines)


def refuse(session: Session, ctx: CampaignContext, proposal_id: int, *, moderator: str,
           reason: str, now: datetime) -> Decision:
    """Refuse proposal ``proposal_id`` with ``reason`` (its proposer may withdraw it so)."""
    who = known_moderator(ctx, moderator)
    reason = " ".join(reason.split())
    if not reason:
        raise Refused("a refusal needs a reason, e.g. `maester refuse 3 --reason 'the feast "
                      "was already paid for'`")
    proposal = _pending(session, ctx, proposal_id)
    return _close(session, ctx, proposal, who, now, ProposalStatus.REFUSED, reason)


def waiting(session: Session, ctx: CampaignContext) -> int:
    """How many proposals wait for a second moderator."""
    return int(session.exec(select(func.count()).where(
        Proposal.campaign_id == ctx.campaign_id,
        Proposal.status == ProposalStatus.PENDING)).one())


def waiting_line(count: int) -> str:
    """``2 proposals wait for a second moderator (`maester proposals`, `!proposals`)``."""
    if not count:
        return "no proposal waits for a second moderator"
    return (f"{count} proposal{'s wait' if count > 1 else ' waits'} for a second moderator "
            "(`maester proposals`, `!proposals`)")


def listing(session: Session, ctx: CampaignContext, *, everything: bool = False
            ) -> list[Proposal]:
    """The pending proposals (``everything``: decided ones too), oldest first."""
    query = select(Proposal).where(Proposal.campaign_id == ctx.campaign_id)
    if not everything:
        query = query.where(Proposal.status == ProposalStatus.PENDING)
    return list(session.exec(query.order_by(col(Proposal.id))).all())


def describe(proposal: Proposal) -> str:
    """One line for the moderators."""
    state = proposal.status.value + (f" by u/{proposal.decided_by}" if proposal.decided_by
                                     else "")
    # an undo's or a rollback's summary already starts with its action ("undo: take ...")
    action = "" if proposal.summary.startswith(f"{proposal.action}:") \
        else f"{proposal.action}: "
    return (f"#{proposal.id} [{state}] {action}{proposal.summary} (proposed by "
            f"u/{proposal.proposer}; {proposal.why})"
            + (f" - {proposal.decision}" if proposal.decision else ""))


def perform(session: Session, ctx: CampaignContext, action: Action, *, moderator: str,
            now: datetime) -> tuple[Proposal | None, list[str]]:
    """Take ``action`` for ``moderator`` (the Mod Discussions commands): stored as a proposal
    when it must wait (:func:`gate`), else checked then run; Refused (nothing changed) when
    it cannot run. Returns the proposal (None when it ran) and the lines to answer."""
    proposal = gate(session, ctx, action, moderator=moderator, now=now)
    if proposal is not None:
        return proposal, [f"Proposed as #{proposal.id}: {proposal.summary}. It waits because "
                          f"{proposal.why}. Nothing changed: another moderator approves it "
                          f"with `!approve {proposal.id}` (or refuses it with `!refuse "
                          f"{proposal.id} REASON`)."]
    check(session, ctx, action, now)
    return None, KINDS[action.kind].run(session, ctx, action.args, reddit_name(moderator), "",
                                        now)
