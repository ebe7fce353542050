"""The moderators' rulings by hand: characters and their fates, removing an army or fleet."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from bot.cli.common import ByOpt, fail, moderator_name, open_campaign, whole
from bot.cli.options import ConfigOpt, command_group
from bot.cli.output import console

app = command_group()


@app.command("characters")
def characters_cmd(config: ConfigOpt = None,
                   claim: Annotated[str | None, typer.Option("--claim")] = None) -> None:
    """List the characters (optionally of one claim) with army, skills and state."""
    from bot.services import queries

    env = open_campaign(config)
    try:
        with env.session() as session:
            rows = queries.characters(session, env.ctx, claim)
    except LookupError as exc:
        raise fail(str(exc)) from None
    table = Table("Character", "Claim", "Army", "Skills", "State")
    for ch in rows:
        table.add_row(escape(ch.name), escape(ch.claim), str(ch.army or ""),
                      escape(", ".join(ch.skills)), ch.state)
    console.print(table)


character_app = command_group(
    help="Record a character's fate (dead, wounded, captured or free).", no_args_is_help=True)
app.add_typer(character_app, name="character")


@character_app.command("set")
def character_set_cmd(
    name: Annotated[str, typer.Argument(help="The character, as `maester characters` lists.")],
    fate: Annotated[str, typer.Argument(help="dead, wounded, captured or free.")],
    config: ConfigOpt = None,
    claim: Annotated[str | None, typer.Option(
        "--claim", help="The character's claim, when two claims have one of that name.")]
    = None,
    note: Annotated[str, typer.Option("--note", help="The ruling, for the log.")] = "",
    by: ByOpt = None,
) -> None:
    """Record the fate the moderators ruled: dead, wounded, captured or free (logged).

    Dead and captured characters leave their army and cannot be assigned; wounded ones keep
    their command; free makes a captive or wounded character whole again.
    """
    from bot.cli.approval import proposed
    from bot.services.moderation import FATES, set_fate
    from bot.services.proposals import fate_action
    from bot.services.world import find_character

    if fate.lower() not in FATES:
        raise fail(f"{fate!r} is not a fate: one of {', '.join(FATES)} (e.g. `maester "
                   f"character set {name!r} captured --note 'taken at the Twins'`); "
                   "nothing changed")
    env = open_campaign(config)
    now = env.world_now()
    try:
        with env.session() as session:
            character = find_character(session, env.ctx, name, claim)
            if proposed(session, env.ctx, fate_action(character, fate, note[:300]), by, now):
                return
            summary = set_fate(session, env.ctx, character, fate, note=note[:300],
                               actor=moderator_name(by), now=now)
    except LookupError as exc:
        raise fail(f"{exc}; nothing changed") from None
    console.print(escape(summary))


army_app = command_group(help="Remove an army or fleet by hand.", no_args_is_help=True)
app.add_typer(army_app, name="army")


@army_app.command("remove")
def army_remove_cmd(
    army_id: Annotated[int, typer.Argument(metavar="N", help="The army or fleet number.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (goes to the log).")],
    config: ConfigOpt = None,
    by: ByOpt = None,
) -> None:
    """Remove an army or fleet: its troops and ships are gone, not sent home (logged).

    A siege it held ends (with the public post), a battle it awaited does not happen, its
    characters stay free. To send the troops home instead, follow with `maester adjust`.
    """
    from bot.cli.approval import proposed
    from bot.services.moderation import remove_army
    from bot.services.proposals import Refused, army_action

    whole(army_id, "army number", example="3",
          hint=" (see `maester armies`); nothing changed")
    if not reason.strip():
        raise fail("--reason must say why (it goes to the log), e.g. --reason 'duplicate "
                   "muster'; nothing changed")
    env = open_campaign(config)
    now = env.world_now()
    try:
        with env.session() as session:
            try:
                action = army_action(session, env.ctx, army_id, reason.strip()[:300])
            except Refused as exc:
                raise fail(f"{exc}; nothing changed") from None
            if proposed(session, env.ctx, action, by, now):
                return
            summary = remove_army(session, env.ctx, army_id, reason=reason.strip()[:300],
                                  actor=moderator_name(by), now=now)
    except LookupError as exc:
        raise fail(f"{exc}; nothing changed") from None
    console.print(escape(summary[0].upper() + summary[1:]) + ".")
