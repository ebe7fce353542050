"""One incoming message, whatever its source (modmail, a forwarded post, a comment, the CLI).

:func:`answer_message` runs the campaign orders it holds (through :mod:`bot.services.orders`)
and its ``!commands`` (through the command registry) and returns the whole reply as an
:class:`bot.errors.Answer` (whether any part failed on the bot's side is ``failed``, never
read from the text); :func:`handle_message` gives its text. The caller
owns the transaction and records the message id in it, so the message's effects and its
"processed" mark commit together.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from bot.commands.dispatch import is_private, run_command
from bot.commands.registry import CommandContext
from bot.errors import Answer
from bot.render.receipts import FOOTER, PRIVATE_ELSEWHERE, quoted, reply
from bot.services import journal, pause
from bot.services.orders import process_message
from bot.services.world import CampaignContext


def handle_message(session: Session, ctx: CampaignContext, *, author: str, text: str,
                   now: datetime, ref: str, orders: bool = True,
                   public: bool | None = None) -> str:
    """The reply to one message (the text of :func:`answer_message`)."""
    return answer_message(session, ctx, author=author, text=text, now=now, ref=ref,
                          orders=orders, public=public).text


def answer_message(session: Session, ctx: CampaignContext, *, author: str, text: str,
                   now: datetime, ref: str, orders: bool = True,
                   public: bool | None = None) -> Answer:
    """The reply to one message, and whether any of its orders or commands failed on the
    bot's side. With ``orders`` False (public comments) only commands run.

    ``public`` (by default: when orders are not read, i.e. a public comment) means the reply
    is seen by everyone: the answer of a private command (``!claim``) is then queued as a
    modmail to the author instead, and the public reply only says so.
    """
    if public is None:
        public = not orders
    failed = False
    parts: list[str] = []
    if orders:  # while the campaign is paused no order changes the world; questions answer
        paused = pause.refusal(session, ctx, text)
        outcome = process_message(session, ctx, author=author, text=text, now=now, ref=ref,
                                  paused=paused)
        failed = outcome.failed > 0
        if outcome.reply:
            parts.append(outcome.reply)
        calls = [(c.name, c.args, c.line_no) for c in outcome.commands]
    else:
        from rules.campaign.language import CommandCall, parse_message

        calls = [(i.result.name, i.result.args, i.line_no) for i in parse_message(text).items
                 if isinstance(i.result, CommandCall)]
    for name, args, line_no in calls:
        cmd_ctx = CommandContext(author=author, dice=ctx.dice("command", ref, line_no), now=now,
                                 is_moderator=ctx.is_moderator(author),
                                 extra={"session": session, "campaign": ctx})

        def refused(command: str) -> None:
            journal.log_event(session, ctx.campaign_id, ctx.tick_of(now), "refused",
                              f"u/{author} tried the moderator command !{command}", at=now,
                              actor=author, data={"command": command})

        quote = quoted(f"!{name} {args}".rstrip(), 200)
        command = run_command(name, args, cmd_ctx, ref=f"{ref}:{line_no}", on_refused=refused)
        failed = failed or command.failed
        answer = command.text
        if public and is_private(name):
            journal.queue(session, ctx.campaign_id, f"private:{ref}:{line_no}", "message",
                          body=quote + answer + FOOTER, at=now, tick=ctx.tick_of(now),
                          target=author, title=f"!{name[:40]}")
            answer = PRIVATE_ELSEWHERE
        parts.append(quote + answer)
    return Answer(reply(parts) + FOOTER if parts else "", failed=failed)
