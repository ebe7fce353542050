"""The bot's ``!commands``, listed in one place, and the runner that answers them.

:data:`COMMANDS` is every command in force (each command's module is imported only when it
is looked up, see ``_TABLE``); :func:`run_command` runs one and turns every
failure into a helpful reply (by :func:`bot.errors.render_error`).
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable

from bot.commands.registry import Command, CommandContext, Handler, Registry, command, described
from bot.errors import Answer, CommandError, render_error
from bot.text import escape_md
from rules.suggest import closest

log = logging.getLogger(__name__)


def run_command(name: str, args: str, cmd_ctx: CommandContext, *, ref: str = "",
                on_refused: Callable[[str], None] | None = None) -> Answer:
    """Run ``!name args`` and return the reply (never raises; ``failed`` when the command
    failed on the bot's side).

    ``on_refused`` is told when a non-moderator tries a moderator command (for the log).
    """
    cmd = lookup(name)
    if cmd is None:
        return Answer(_unknown(name, cmd_ctx).render())
    if cmd.moderator_only and not cmd_ctx.is_moderator:
        log.warning("u/%s tried moderator command !%s", cmd_ctx.author, cmd.name)
        if on_refused is not None:
            on_refused(cmd.name)
        return Answer(CommandError(f"`!{cmd.name}` is for moderators only",
                                   "a command open to players", "!help").render())
    try:
        return Answer(cmd.handler(cmd_ctx, args))
    except Exception as exc:
        answer = render_error(exc, ref=ref, doing=f"running !{cmd.name}", example=cmd.example)
        if answer.failed:
            log.exception("command !%s (%s) failed", cmd.name, ref)
        return answer


def _unknown(name: str, cmd_ctx: CommandContext) -> CommandError:
    """The answer to ``!name`` that is no command: the closest command's name (by any of its
    names, `!atack` -> `!attack`) and the commands the sender may use, as ``!help`` lists
    them (a player is not shown the moderators' commands)."""
    usable = [c for c in all_commands() if cmd_ctx.is_moderator or not c.moderator_only]
    names = {alias: c.name for c in usable for alias in (c.name, *c.aliases)}
    near = closest(name, names)
    problem = f"I do not know the command `!{escape_md(name, 40)}`"
    if near:
        problem += f"; did you mean `!{names[near[0]]}`?"
    known = ", ".join(f"`!{c.name}`" for c in usable)
    example = f"!help {names[near[0]]}" if near else "!help"
    return CommandError(problem, f"one of {known}", example)


@command("help", aliases=("commands",), example="!help attack")
def help_command(cmd_ctx: CommandContext, args: str) -> str:
    """Lists the bot's commands, or explains one: `!help attack`."""
    wanted = args.strip().lstrip("!")
    if wanted:
        cmd = lookup(wanted)
        if cmd is None:
            raise _unknown(wanted, cmd_ctx)
        aliases = ", ".join(f"`!{a}`" for a in cmd.aliases)
        text = f"**!{cmd.name}**" + (f" (also {aliases})" if aliases else "") + "\n\n" + cmd.help
        if cmd.example:
            text += f"\n\nExample: `{cmd.example}`"
        return text
    lines = ["**Commands** (write them on a line of their own):", ""]
    for cmd in all_commands():
        if cmd.moderator_only and not cmd_ctx.is_moderator:
            continue
        lines.append(f"- `!{cmd.name}`: {cmd.summary}")
    lines.append("\nCampaign orders (muster, move, attack...) are explained in the players' "
                 "guide; send `help` for a summary.")
    return "\n".join(lines)


# Every bot command, in one place: the module of bot.commands that defines it, its handler
# there, and the names it answers to (a test checks them against the handler's @command). A
# command's module is imported when the command is looked up, so `maester command !attack`
# loads one game's rules; COMMANDS (the whole registry) imports them all.
_TABLE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("dispatch", "help_command", ("help", "commands")),
    ("boardgame", "combat_command",
     ("combat", "agot", "bgcombat", "battle-bg", "agotcombat", "clash")),
    ("boardgame", "housecard_command", ("housecard", "housecards", "hcard")),
    ("miniatures", "attack_command", ("attack", "atk")),
    ("miniatures", "charge_command", ("charge",)),
    ("miniatures", "panic_command", ("panic",)),
    ("miniatures", "morale_command", ("morale", "moral")),
    ("cardgame", "challenge_command", ("challenge", "chal", "chall", "cardchallenge")),
    ("campaign", "claim_command", ("claim", "whois")),
    ("campaign", "odds_command", ("odds", "battleodds")),
    ("moderation", "undo_command", ("undo",)),
    ("moderation", "rollback_command", ("rollback",)),
    ("moderation", "adjust_command", ("adjust",)),
    ("moderation", "remove_army_command", ("removearmy", "armyremove")),
    ("moderation", "fate_command", ("fate",)),
    ("moderation", "grant_skill_command", ("grantskill", "skillgrant")),
    ("moderation", "relations_command", ("relations", "setrelations")),
    ("moderation", "give_holdfast_command", ("giveholdfast", "holdfastgive")),
    ("moderation", "map_update_command", ("mapupdate", "updatemap")),
    ("moderation", "proposals_command", ("proposals",)),
    ("moderation", "approve_command", ("approve",)),
    ("moderation", "refuse_command", ("refuse",)),
)
_WHERE = {name: (module, handler) for module, handler, names in _TABLE for name in names}


def _handler(module: str, name: str) -> Handler:
    found: Handler = getattr(importlib.import_module(f"bot.commands.{module}"), name)
    return found


@functools.cache
def _registry() -> Registry:
    return Registry(_handler(module, name) for module, name, _ in _TABLE)


def __getattr__(name: str) -> Registry:
    # ``COMMANDS``: every command in force (imports every command module).
    if name == "COMMANDS":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lookup(name: str) -> Command | None:
    """The command called ``name`` (or one of its aliases), case-insensitively."""
    found = _WHERE.get(name.lower().lstrip("!"))
    return None if found is None else described(_handler(*found))


def all_commands() -> list[Command]:
    """Every command once, sorted by name."""
    return _registry().all()


def is_private(name: str) -> bool:
    """Whether ``!name`` is answered by modmail only (an unknown name is not private)."""
    found = lookup(name)
    return found is not None and found.private
