"""Campaign commands for moderators, usable in modmail: ``!claim House Stark``."""

from __future__ import annotations

import re
from typing import Any

from bot.commands.registry import CommandContext, CommandError, command
from bot.render.odds import odds_reply
from bot.text import escape_md
from rules.campaign.battle import Side, Winner
from rules.campaign.config import DEFAULT_RULES, Terrain
from rules.campaign.odds import battle_odds
from rules.campaign.world import as_role


@command("claim", aliases=("whois",), example="!claim House Stark", moderator_only=True,
         private=True)
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
                           "a claim name as `maester claims` lists it, or `u/name`",
                           "!claim House Stark")
    call = Call(session, campaign, ctx.author, found, ctx.now, "claim", True)
    return str(HANDLERS[Status](call, Status()))


_SIDE_WORDS = re.compile(
    r"(?P<n>\d[\d,]*)\s*(?P<kind>inf(?:antry)?|foot|cav(?:alry)?|horse|ships?)\b", re.I)
_TERRAIN = re.compile(r"\b(?:on|in)\s+(?:a\s+|the\s+)?(?P<t>field|forest|hill|mountain|sand|"
                      r"swamp)s?\b", re.I)
ODDS_EXAMPLE = "!odds 300 infantry 50 cavalry vs 200 infantry on a hill"


def _odds_side(text: str, which: str) -> Side:
    counts = {"infantry": 0, "cavalry": 0, "ships": 0}
    for m in _SIDE_WORDS.finditer(text):
        kind = m.group("kind").lower()
        key = "infantry" if kind.startswith(("inf", "foot")) else \
            "cavalry" if kind.startswith(("cav", "horse")) else "ships"
        counts[key] += int(m.group("n").replace(",", ""))
    if not any(counts.values()):
        raise CommandError(f"the {which} side has no troops", "numbers of infantry, cavalry "
                           "or ships on each side of `vs`", ODDS_EXAMPLE)
    if any(v > 10_000_000 for v in counts.values()):
        raise CommandError(f"the {which} side is too large", "at most 10,000,000 of a kind",
                           ODDS_EXAMPLE)
    terrain = _TERRAIN.search(text)
    return Side(infantry=counts["infantry"], cavalry=counts["cavalry"], ships=counts["ships"],
                terrain=Terrain(terrain.group("t").lower()) if terrain else Terrain.FIELD,
                stationary=terrain is not None)


@command("odds", aliases=("battleodds",), example=ODDS_EXAMPLE)
def odds_command(ctx: CommandContext, args: str) -> str:
    """Exact odds of a campaign battle between two forces you describe (only what you give
    it counts): `!odds 300 infantry 50 cavalry vs 200 infantry on a hill`. The first side is
    the attacker; "on TERRAIN" gives the defender (after `vs`) the terrain's bonus as a
    stationary army; the attacker never has it, as in the battle."""
    parts = re.split(r"\s+(?:vs\.?|versus|against)\s+", args.strip(), maxsplit=1, flags=re.I)
    if len(parts) != 2:
        raise CommandError("I need two sides separated by `vs`", "ATTACKER vs DEFENDER",
                           ODDS_EXAMPLE)
    described = _odds_side(parts[0], "attacking")
    attacker = as_role(described, Winner.ATTACKER)
    defender = as_role(_odds_side(parts[1], "defending"), Winner.DEFENDER)
    campaign: Any = ctx.extra.get("campaign")
    rules = campaign.rules if campaign is not None else DEFAULT_RULES
    return odds_reply(attacker, defender, battle_odds(attacker, defender, rules),
                      ignored=described.terrain if described.stationary else None)
