"""The moderators' safety net: snapshots, undo and rollback, pause and resume.

``maester tick --preview`` (in :mod:`bot.cli.campaign`) belongs here in spirit: it shows what
the due ticks would do before they are applied.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from bot.cli.common import ByOpt, Opened, fail, moderator_name, open_campaign
from bot.cli.options import ConfigOpt, command_group
from bot.cli.output import console

app = command_group()

ForceOpt = Annotated[bool, typer.Option(
    "--force", help="Take back even what is already on Reddit (listed, for you to delete or "
    "correct there).")]
DeleteOpt = Annotated[bool, typer.Option(
    "--delete-posts", help="With --force: the bot deletes those posts and comments on Reddit "
    "(queued in the outbox; modmail cannot be deleted).")]
DryOpt = Annotated[bool, typer.Option("--dry-run", help="Say what would be taken back; "
                                                        "change nothing.")]
RevealedOpt = Annotated[bool, typer.Option(
    "--replay-revealed-dice", help="Take back even to before a dice period whose key was "
    "revealed since: the ticks applied again roll dice anyone holding the key can compute.")]


def parse_time(value: str, option: str) -> datetime:
    """An ISO time with a zone (``2026-11-23T12:00:00Z``), or exit 2 saying what was wrong."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise fail(f"{option}: {value!r} is not an ISO time (e.g. 2026-11-23T12:00:00Z); "
                   "nothing changed") from None
    if moment.tzinfo is None:
        raise fail(f"{option} needs a time zone, e.g. 2026-11-23T12:00:00Z; nothing changed")
    return moment


ReasonOpt = Annotated[str, typer.Option(
    "--reason", help="Why (required): said in the public [Correction] post, the claims' notes "
    "and the log.")]

REASON_NEEDED = ("--reason must say why the world is taken back: it goes in the public "
                 "[Correction] post, the private notes to the claims it changes and the log "
                 "(expected --reason TEXT, e.g. --reason 'the 12:00 tick used the old map'); "
                 "nothing changed")


def _take_back(env: Opened, which: str | None, *, force: bool, delete_posts: bool,
               dry_run: bool, by: str | None, reason: str = "",
               replay_revealed: bool = False) -> None:
    """Restore the snapshot ``which`` names (None: the newest) with a public correction, or
    propose it when it waits for a second moderator, and print what happened."""
    from bot.cli.approval import proposed
    from bot.services import corrections, snapshots
    from bot.services.proposals import undo_action

    if delete_posts and not force:
        raise fail("--delete-posts goes with --force (it deletes what is already on Reddit); "
                   "nothing changed")
    if not dry_run and not reason.strip():
        raise fail(REASON_NEEDED)
    ctx, now = env.ctx, env.clock.now()
    try:
        with env.session() as session:
            to = None
            if which is not None:
                to = int(which) if which.lstrip("-").isdigit() else \
                    ctx.tick_of(parse_time(which, "--to"))
            action, plan = undo_action(session, ctx, to=to, reason=reason, now=now,
                                       force=force, delete_posts=delete_posts,
                                       replay_revealed=replay_revealed)
            if dry_run:
                lines = plan.lines(ctx)
            else:
                if proposed(session, ctx, action, by, now):
                    return
                lines = corrections.take_back(session, ctx, plan, reason=reason,
                                              actor=moderator_name(by), now=now, force=force,
                                              delete_posts=delete_posts,
                                              replay_revealed=replay_revealed)
    except snapshots.UndoRefused as exc:
        raise fail(f"not taken back: {exc}; nothing changed") from None
    for line in lines:
        console.print(escape(line))
    if dry_run:
        console.print("Dry run: nothing changed.")
        return
    deleted = sum(1 for e in plan.sent if e.deletable) if delete_posts else 0
    console.print(f"Taken back. The world stands as before {escape(plan.snapshot.label)}"
                  + (f"; {deleted} deletion(s) queued in the outbox" if deleted else "")
                  + ". The ticks apply again as they fall due (the same dice"
                  + ("; those of period(s) " + ", ".join(map(str, plan.revealed))
                     + " can be computed by anyone holding their revealed key)"
                     if plan.revealed else ")") + ".")


@app.command("undo")
def undo_cmd(config: ConfigOpt = None, reason: ReasonOpt = "", force: ForceOpt = False,
             delete_posts: DeleteOpt = False, dry_run: DryOpt = False,
             replay_revealed_dice: RevealedOpt = False, by: ByOpt = None) -> None:
    """Take back the last tick or moderator command (what is posted needs --force).

    --reason is required: a public [Correction] post says what was taken back, from which
    tick and why, and each claim whose situation changed is told privately. Posts and
    messages it queued and not yet delivered are withdrawn. Orders players sent since are
    taken back with it: they are listed, and the players are told to send them
    again. Run it again to go further back; `maester snapshots` lists what can be taken back.
    Refused when a dice period's key was revealed since (the replayed dice would be known to
    anyone), unless --replay-revealed-dice.
    """
    _take_back(open_campaign(config), None, force=force, delete_posts=delete_posts,
               dry_run=dry_run, by=by, reason=reason, replay_revealed=replay_revealed_dice)


@app.command("rollback")
def rollback_cmd(
    to: Annotated[str, typer.Option(
        "--to", help="A tick number (`maester snapshots`, `maester log`) or an ISO time on the "
        "world's clock (after a holiday: as `maester snapshots` lists the ticks): the world as "
        "it stood just after that tick (the last tick at or before that time).")],
    config: ConfigOpt = None, reason: ReasonOpt = "", force: ForceOpt = False,
    delete_posts: DeleteOpt = False, dry_run: DryOpt = False,
    replay_revealed_dice: RevealedOpt = False, by: ByOpt = None,
) -> None:
    """Take the world back to just after tick --to TICK|TIME (as undo, further back).

    TICK is a tick number (`maester snapshots`); TIME the last tick at or before it. Refused,
    --force, --delete-posts and --replay-revealed-dice as for `maester undo`.
    """
    _take_back(open_campaign(config), to, force=force, delete_posts=delete_posts,
               dry_run=dry_run, by=by, reason=reason, replay_revealed=replay_revealed_dice)


@app.command("snapshots")
def snapshots_cmd(config: ConfigOpt = None) -> None:
    """List the kept snapshots: what each tick or command can be taken back to."""
    from bot.services import snapshots

    env = open_campaign(config)
    with env.session() as session:
        rows = snapshots.listing(session, env.ctx)
        table = Table("#", "Before", "By", "After tick", "World time", "Taken", "Size")
        for s in rows:
            table.add_row(str(s.id), escape(s.label), escape(s.actor), str(s.tick),
                          env.ctx.when(env.ctx.tick_at(s.tick)),
                          f"{s.taken_at:%Y-%m-%d %H:%M}" if s.taken_at else "",
                          f"{len(s.data) / 1024:.1f} KiB")
    console.print(table)
    console.print(f"{len(rows)} kept (at most {env.settings.bot.snapshots_kept}: "
                  + escape("[bot] snapshots_kept)."))


@app.command("pause")
def pause_cmd(
    config: ConfigOpt = None,
    note: Annotated[str, typer.Option("--note", help="Why, told to players who send orders.")]
    = "",
    until: Annotated[str | None, typer.Option(
        "--until", help="ISO time the players are told the pause lasts until (resuming is "
        "still by hand).")] = None,
    by: ByOpt = None,
) -> None:
    """Pause the campaign: no tick applies, orders are answered that it is paused."""
    from bot.services.pause import PauseError, pause

    moment = parse_time(until, "--until") if until is not None else None
    env = open_campaign(config)
    try:
        with env.session() as session:
            summary = pause(session, env.ctx, note=note.strip()[:300], until=moment,
                            actor=moderator_name(by), now=env.clock.now())
    except PauseError as exc:
        raise fail(f"{exc}; nothing changed") from None
    console.print(escape(summary[0].upper() + summary[1:]) + ".")


@app.command("resume")
def resume_cmd(
    config: ConfigOpt = None,
    catch_up: Annotated[bool, typer.Option(
        "--catch-up", help="Apply the ticks missed during the pause (default: a holiday, "
        "they are skipped and the world's clock moves on); needs --yes.")] = False,
    yes: Annotated[bool, typer.Option(
        "--yes", help="With --catch-up: apply them (without it: say how many, change "
        "nothing).")] = False,
    by: ByOpt = None,
) -> None:
    """End the pause: a holiday (missed ticks are skipped), or --catch-up --yes applies them.

    Each tick applied keeps its snapshot; the snapshots from before the pause stay."""
    from bot.services.pause import PauseError, resume
    from bot.services.tick import CatchUpTooLong, check_catch_up_bound

    env = open_campaign(config)
    now = env.clock.now()

    try:
        with env.session() as session:
            summary = resume(session, env.ctx, catch_up=catch_up, actor=moderator_name(by),
                             now=now)
            if catch_up and not yes:
                try:
                    due, bound = check_catch_up_bound(session, env.ctx, now), ""
                except CatchUpTooLong as exc:
                    due, bound = exc.pending, (f", more than the {exc.bound}-day bound "
                                               "(bot.max_catch_up_days)")
                if due:  # leaving the transaction by an exception rolls the resume back
                    console.print(
                        f"[red]not resumed:[/red] {due} tick(s) "
                        f"({due * env.ctx.rules.tick_hours / 24:.1f} days){bound} fell due "
                        "during the pause; `--catch-up` applies them all at once: add --yes "
                        "to do so, or resume without --catch-up for a holiday (nothing "
                        "changed)")
                    raise typer.Exit(2)
    except PauseError as exc:
        raise fail(f"{exc}; nothing changed") from None
    console.print(escape(summary[0].upper() + summary[1:]) + ".")
    if catch_up:
        from bot.services.tick import catch_up as apply_due

        applied = apply_due(env.engine, env.ctx, now)
        console.print(f"{len(applied)} tick(s) applied.")
