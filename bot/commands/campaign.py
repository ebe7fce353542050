"""Campaign commands for moderators, usable in modmail: ``!claim House Stark``."""

from __future__ import annotations

from typing import Any

from bot.commands.registry import CommandContext, CommandError, command
from bot.text import escape_md


@command("claim", aliases=("whois",), example="!claim House Stark", moderator_only=True)
def claim_command(ctx: CommandContext, args: str) -> str:
    """Moderators only: a claim's private state (gold, troops, armies), by claim name or by
    a player's Reddit name: `!claim House Stark`, `!claim u/ned_stark`."""
    from bot.services.orders import HANDLERS, Call
    from bot.services.world import claim_by_name, claim_of_user
    from rules.campaign.orders import Status

    session: Any = ctx.extra.get("session")
    campaign: Any = ctx.extra.get("campaign")
    if session is None or campaign is None:
        raise CommandError("this command needs the campaign", "a message sent to the bot",
                           "!claim House Stark")
    wanted = args.strip()
    if not wanted:
        raise CommandError("say which claim", "a claim name or a player's Reddit name",
                           "!claim House Stark")
    found = (claim_of_user(session, campaign, wanted) if wanted.lower().startswith("u/")
             else claim_by_name(session, campaign, wanted))
    if found is None:
        raise CommandError(f"no claim or player called {escape_md(wanted, 60)}",
                           "a claim name as `maester claims` lists it, or u/name",
                           "!claim House Stark")
    call = Call(session, campaign, ctx.author, found, ctx.now, "claim", True)
    return str(HANDLERS[Status](call, Status()))
