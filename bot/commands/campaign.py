"""Campaign commands for moderators, usable in modmail: ``!claim House Stark``."""

from __future__ import annotations

from typing import Any

from bot.commands.registry import CommandContext, CommandError, command
from bot.errors import notation_failure
from bot.render.odds import odds_reply
from bot.text import escape_md
from rules.campaign import notation
from rules.campaign.config import DEFAULT_RULES
from rules.errors import NotationError


@command("claim", aliases=("whois",), example="!claim House Stark", moderator_only=True,
         private=True)
def claim_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: a claim's private state (gold, troops, armies), by claim name or by
    a player's Reddit name: `!claim House Stark`, `!claim u/ned_stark`."""
    from bot.services.orders import Call, answer
    from bot.services.world import claim_by_name, claim_of_user
    from rules.campaign.language import Status

    session: Any = cmd_ctx.extra.get("session")
    campaign: Any = cmd_ctx.extra.get("campaign")
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
                           "a claim name as `maester claims` lists it, or `u/name`",
                           "!claim House Stark")
    call = Call(session, campaign, cmd_ctx.author, found, cmd_ctx.now, "claim", True)
    return answer(call, Status())


ODDS_EXAMPLE = f"!odds {notation.ODDS_EXAMPLE}"


@command("odds", aliases=("battleodds",), example=ODDS_EXAMPLE)
def odds_command(cmd_ctx: CommandContext, args: str) -> str:
    """Exact odds of a campaign battle between two forces you describe (only what you give
    it counts): `!odds 300 infantry 50 cavalry vs 200 infantry on a hill`. The first side is
    the attacker; "on TERRAIN" gives the defender (after `vs`) the terrain's bonus as a
    stationary army; the attacker never has it, as in the battle. `+` joins several armies
    into one side: `!odds 200 infantry + 100 cavalry vs 250 infantry`."""
    campaign: Any = cmd_ctx.extra.get("campaign")
    try:  # parse and resolve: rules.campaign.notation; render: here
        answer = notation.odds_answer(notation.parse_odds(args),
                                      campaign.rules if campaign is not None else DEFAULT_RULES)
    except NotationError as err:
        failure = notation_failure(err)
        failure.example = f"!odds {err.example}" if err.example else ODDS_EXAMPLE
        raise failure from None
    return odds_reply(answer.attacker, answer.defender, answer.odds,
                      ignored=answer.ignored_terrain)
