"""Runs ``!commands`` from the registry and turns every failure into a helpful reply."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable

from bot.commands.registry import (
    CommandContext,
    CommandError,
    all_commands,
    command,
    lookup,
)
from bot.text import escape_md
from rules.errors import RulesError

log = logging.getLogger(__name__)

COMMAND_MODULES = (
    "bot.commands.boardgame",
    "bot.commands.miniatures",
    "bot.commands.cardgame",
    "bot.commands.campaign",
)
_loaded = False


def load_commands() -> None:
    """Import every command module once (each registers its commands)."""
    global _loaded
    if _loaded:
        return
    for name in COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    _loaded = True


def render_command_error(exc: CommandError) -> str:
    return exc.render()


def run_command(name: str, args: str, ctx: CommandContext, *, ref: str = "",
                on_refused: Callable[[str], None] | None = None) -> str:
    """Run ``!name args`` and return the markdown reply (never raises).

    ``on_refused`` is told when a non-moderator tries a moderator command (for the log).
    """
    load_commands()
    cmd = lookup(name)
    if cmd is None:
        known = ", ".join(f"`!{c.name}`" for c in all_commands())
        return render_command_error(CommandError(
            f"I do not know the command `!{escape_md(name, 40)}`",
            f"one of {known}", "!help"))
    if cmd.moderator_only and not ctx.is_moderator:
        log.warning("u/%s tried moderator command !%s", ctx.author, cmd.name)
        if on_refused is not None:
            on_refused(cmd.name)
        return render_command_error(CommandError(
            f"`!{cmd.name}` is for moderators only", "a command open to players", "!help"))
    try:
        return cmd.handler(ctx, args)
    except CommandError as exc:
        if not exc.example and cmd.example:
            exc.example = cmd.example
        return render_command_error(exc)
    except RulesError as exc:
        return render_command_error(CommandError(escape_md(str(exc), 300), "", cmd.example))
    except Exception:
        log.exception("command !%s (%s) failed", cmd.name, ref)
        return (f"**Not done:** something went wrong on my side (reference `{escape_md(ref)}`)."
                " The moderators can look it up.")


@command("help", aliases=("commands",), example="!help attack")
def help_command(ctx: CommandContext, args: str) -> str:
    """Lists the bot's commands, or explains one: `!help attack`."""
    load_commands()
    wanted = args.strip().lstrip("!")
    if wanted:
        cmd = lookup(wanted)
        if cmd is None:
            raise CommandError(f"there is no command `!{escape_md(wanted, 40)}`",
                               "a command name from `!help`", "!help attack")
        aliases = ", ".join(f"`!{a}`" for a in cmd.aliases)
        text = f"**!{cmd.name}**" + (f" (also {aliases})" if aliases else "") + "\n\n" + cmd.help
        if cmd.example:
            text += f"\n\nExample: `{cmd.example}`"
        return text
    lines = ["**Commands** (write them on a line of their own):", ""]
    for cmd in all_commands():
        if cmd.moderator_only and not ctx.is_moderator:
            continue
        lines.append(f"- `!{cmd.name}`: {cmd.summary}")
    lines.append("\nCampaign orders (muster, move, attack...) are explained in the players' "
                 "guide; send `help` for a summary.")
    return "\n".join(lines)
