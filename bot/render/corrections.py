"""What a moderator's ``undo`` or ``rollback`` tells everyone: the public correction post and
the private note to each claim whose world it changed.

The public post says only what the whole subreddit may know: when the world now stands, how
many ticks and moderator commands were taken back (never what the commands were: their labels
name amounts, armies and skills), why (the moderator's reason, escaped), who, and which public
posts no longer hold. The private note lists a claim's own state before and after.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.text import escape_md


def correction_post(*, when: str, ticks: int, commands: int, reason: str, by: str,
                    approved_by: str = "", void_posts: Sequence[str] = (),
                    deleted: bool = False, orders: bool = False) -> str:
    """The body of the public ``[Correction]`` post (markdown). ``when`` is the moment the
    world is taken back to, ``void_posts`` the titles of public posts already on Reddit that
    no longer hold, ``orders`` whether players' orders were taken back too."""
    undone = []
    if ticks:
        undone.append(f"{ticks} tick{'s' if ticks != 1 else ''}")
    if commands:
        undone.append(f"{commands} moderator command{'s' if commands != 1 else ''}")
    who = f"u/{escape_md(by, 40)}" + (f", approved by u/{escape_md(approved_by, 40)}"
                                      if approved_by else "")
    lines = [f"The moderators took the world back to how it stood at {when}.", "",
             f"- **Taken back:** {' and '.join(undone) or 'nothing but the last command'}"
             " applied since then",
             f"- **Why:** {escape_md(reason, 300)}",
             f"- **By:** {who}"]
    if void_posts:
        fate = "deleted" if deleted else "left up as a record"
        lines.append(f"- **Posts that no longer hold** ({fate}): "
                     + "; ".join(escape_md(t, 120) for t in void_posts))
    if orders:
        lines.append("- Orders sent since then were taken back with it; their players are "
                     "told privately and may send them again.")
    lines += ["", ("The ticks apply again as they fall due, with the same dice. " if ticks
                   else "") + "Each claim whose situation changed is told privately what "
              "changed for it."]
    return "\n".join(lines) + "\n"


def correction_note(*, claim: str, when: str, reason: str,
                    changes: Sequence[tuple[str, str, str]]) -> tuple[str, str]:
    """The private note to ``claim`` whose world the correction changed: (subject, body).
    ``changes`` are (what, before the correction, after it) of the claim's own state."""
    rows = [f"- {escape_md(what, 80)}: now {escape_md(after, 200)} "
            f"(before the correction: {escape_md(before, 200)})"
            for what, before, after in changes]
    body = (f"The moderators took the world back to how it stood at {when} "
            f"(why: {escape_md(reason, 300)}). For {escape_md(claim, 80)} this changed:\n\n"
            + "\n".join(rows) + "\n")
    return "Correction: your claim was taken back", body
