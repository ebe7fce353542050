"""A second moderator: ``maester proposals``, ``approve N`` and ``refuse N --reason``, and
:func:`proposed`, which the commands of the actions that may wait for approval ask first
(:mod:`bot.services.proposals`)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from bot.cli.common import ByOpt, fail, moderator_name, open_campaign, whole, world_now_in
from bot.cli.options import ConfigOpt, command_group
from bot.cli.output import console

if TYPE_CHECKING:
    from sqlmodel import Session

    from bot.services.proposals import Action
    from bot.services.world import CampaignContext

app = command_group()


def proposed(session: Session, ctx: CampaignContext, action: Action, by: str | None,
             now: datetime) -> bool:
    """Whether ``action`` by ``--by`` must wait for a second moderator; if so it is stored as
    a proposal (said on the console) and the command must change nothing else. A proposal
    that cannot run, or by someone who is no moderator, ends the command (nothing changed)."""
    from bot.services.proposals import Refused, gate

    try:
        proposal = gate(session, ctx, action, moderator=moderator_name(by), now=now)
    except Refused as exc:
        raise fail(f"not proposed: {exc}; nothing changed") from None
    if proposal is None:
        return False
    console.print(escape(
        f"Proposed as #{proposal.id}: {proposal.summary}. It waits because {proposal.why}. "
        f"Nothing changed: another moderator approves it with `maester approve {proposal.id}` "
        f"(or refuses it with `maester refuse {proposal.id} --reason ...`)."))
    return True


@app.command("proposals")
def proposals_cmd(config: ConfigOpt = None,
                  everything: Annotated[bool, typer.Option(
                      "--all", help="Decided proposals too.")] = False) -> None:
    """List the moderators' actions waiting for a second moderator (--all: decided ones too)."""
    from bot.services.proposals import describe, listing

    env = open_campaign(config)
    with env.session() as session:
        rows = [describe(p) for p in listing(session, env.ctx, everything=everything)]
    for row in rows:
        console.print(escape(row))
    console.print(f"{len(rows)} proposal(s)" + ("" if everything else " waiting") + ".")


NumberArg = Annotated[int, typer.Argument(metavar="N", help="The proposal's number "
                                                            "(`maester proposals`).")]


@app.command("approve")
def approve_cmd(proposal: NumberArg, config: ConfigOpt = None, by: ByOpt = None) -> None:
    """Approve a proposal as a second moderator and run it (never your own)."""
    from bot.services.proposals import Refused, approve

    whole(proposal, "proposal number", example="3", hint=" (see `maester proposals`)")
    env = open_campaign(config)
    try:
        with env.session() as session:
            # undo and rollback plan on the wall clock (delivery leases), the rest on the
            # world's (as the commands themselves do); their log lines carry the world's
            now = env.clock.now() if _undo(session, proposal) \
                else world_now_in(session, env.ctx, env.clock.now())
            done = approve(session, env.ctx, proposal, moderator=moderator_name(by), now=now)
    except Refused as exc:
        raise fail(f"not approved: {exc}; nothing changed") from None
    for line in done.lines:
        console.print(escape(line))
    if not done.ran:
        raise typer.Exit(2)


def _undo(session: Session, proposal_id: int) -> bool:
    from bot.db.models import Proposal

    row = session.get(Proposal, proposal_id)
    return row is not None and row.action in ("undo", "rollback")


@app.command("refuse")
def refuse_cmd(proposal: NumberArg,
               reason: Annotated[str, typer.Option("--reason", help="Why (goes to the "
                                                   "proposal's record).")] = "",
               config: ConfigOpt = None, by: ByOpt = None) -> None:
    """Refuse a proposal, with a reason (the proposer may withdraw their own so)."""
    from bot.services.proposals import Refused, refuse

    whole(proposal, "proposal number", example="3", hint=" (see `maester proposals`)")
    env = open_campaign(config)
    try:
        with env.session() as session:
            done = refuse(session, env.ctx, proposal, moderator=moderator_name(by),
                          reason=reason, now=world_now_in(session, env.ctx, env.clock.now()))
    except Refused as exc:
        raise fail(f"not refused: {exc}; nothing changed") from None
    console.print(escape(f"Proposal #{done.proposal.id} refused by u/{done.proposal.decided_by}: "
                         f"{done.proposal.decision}."))
