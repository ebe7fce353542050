"""Which AutoModerator messages are the campaign's orders forwards (``docs/setup.md``,
"AutoModerator").

AutoModerator sends what a subreddit's rules say, and a subreddit has many rules: reports,
removals, new-account notices. Only the campaign's own orders rule (the shipped template,
``docs/automoderator.yaml``) forwards orders, and only the item that rule fired on may be run
as orders. A forward is accepted when

- its first line is the permalink of the item (the template puts ``{{permalink}}`` first, so a
  title or body pasted after it cannot bring in a link of its own),
- it names the item's author (``u/{{author}}`` in the subject, or on a line of the body after
  the permalink) and the item fetched from the API has that author, and
- it comes from the orders rule: the subject starts with the configured ``forward_subject``,
  or the body holds :data:`FORWARD_MARKER`, or the fetched post (a comment's post) has the
  orders flair or its title starts with the orders tag.

Everything here is pure: the caller fetches the item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.reddit.gateway import Thing

__all__ = ["FORWARD_MARKER", "NOT_THE_ORDERS_RULE", "OrdersRule", "first_line_permalink",
           "first_permalink", "is_permalink", "named_author", "parse_permalink", "refusal"]

NOT_THE_ORDERS_RULE = ("it did not come from the campaign's orders rule (an AutoModerator "
                       "notice, not a forward of orders)")
#: The line the shipped template adds to every forward (docs/automoderator.yaml).
FORWARD_MARKER = "Forwarded to maester as orders."

#: A permalink alone (bare or between angle brackets).
_PERMALINK = re.compile(
    r"^<?(?:https?://[^/\s]+)?/r/(?P<sub>[A-Za-z0-9_]+)/comments/(?P<post>[0-9a-z]+)"
    r"(?:/[^/\s?#]*)?(?:/(?P<comment>[0-9a-z]+))?/?(?:[?#]\S*)?>?$"
)
#: A permalink alone on a line: bare, ``<link>`` or ``[text](link)``.
_LINE_PERMALINK = re.compile(
    r"^[<\[]?(?:[^\]]*\]\()?(?:https?://[^/\s]+)?/r/(?P<sub>[A-Za-z0-9_]+)/comments/"
    r"(?P<post>[0-9a-z]+)(?:/[^/\s?#)>]*)?(?:/(?P<comment>[0-9a-z]+))?/?(?:[?#][^\s)>]*)?"
    r"[>)]?$")
#: A permalink anywhere in a text (in a markdown link, between angle brackets, on any line).
_ANY_PERMALINK = re.compile(
    r"(?<![A-Za-z0-9_/])(?:https?://[^/\s()<>\[\]]+)?/r/(?P<sub>[A-Za-z0-9_]+)/comments/"
    r"(?P<post>[0-9a-z]+)(?:/[^/\s?#()<>\[\]]*)?(?:/(?P<comment>[0-9a-z]+))?"
)
_NAMED = re.compile(r"(?<![A-Za-z0-9_/])/?u/(?P<name>[A-Za-z0-9_-]{3,20})", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class OrdersRule:
    """How the campaign's AutoModerator orders rule shows itself (``[bot]`` settings)."""

    subject: str
    flair: str
    title_tag: str

    def fired_on(self, subject: str, body: str, post: Thing | None) -> bool:
        """Whether the orders rule sent this message: its subject, its marker line, or the
        forwarded post's orders flair or title tag."""
        if self.subject.strip() and subject.strip().lower().startswith(
                self.subject.strip().lower()):
            return True
        if FORWARD_MARKER.lower() in body.lower():
            return True
        if post is None:
            return False
        if self.flair.strip() and (post.flair or "").strip().lower() == \
                self.flair.strip().lower():
            return True
        return bool(self.title_tag.strip()) and post.title.strip().lower().startswith(
            self.title_tag.strip().lower())


def _fullname(found: re.Match[str] | None, subreddit: str) -> str | None:
    """The ``t1_``/``t3_`` fullname a permalink match names, if it is into ``subreddit``."""
    if found is None or found.group("sub").lower() != subreddit.lower():
        return None
    if found.group("comment"):
        return f"t1_{found.group('comment')}"
    return f"t3_{found.group('post')}"


def is_permalink(text: str) -> bool:
    """Whether ``text`` is a permalink into any subreddit, alone."""
    return _PERMALINK.match(text.strip()) is not None


def parse_permalink(url: str, subreddit: str) -> str | None:
    """The fullname (``t3_``/``t1_``) a permalink into ``subreddit`` points at, else None."""
    return _fullname(_PERMALINK.match(url.strip()), subreddit)


def first_permalink(text: str, subreddit: str) -> str | None:
    """The fullname the first permalink into ``subreddit`` anywhere in ``text`` points at
    (permalinks into other subreddits are skipped); used only to say what is wrong with a
    forward whose first line is not its permalink."""
    for found in _ANY_PERMALINK.finditer(text):
        if (name := _fullname(found, subreddit)) is not None:
            return name
    return None


def first_line_permalink(body: str, subreddit: str) -> str | None:
    """The fullname the permalink on the message's first non-empty line points at (a bare
    link, ``<link>`` or ``[text](link)``), if it points into ``subreddit``; else None."""
    lines = [line.strip() for line in body.strip().splitlines() if line.strip()]
    return _fullname(_LINE_PERMALINK.match(lines[0]), subreddit) if lines else None


def named_author(subject: str, body: str) -> str | None:
    """The author a forward names: ``u/NAME`` in its subject, else the first ``u/NAME`` of
    the body after the permalink line (where the template puts ``u/{{author}}``)."""
    found = _NAMED.search(subject)
    if found is not None:
        return found.group("name")
    rest = body.strip().split("\n", 1)
    found = _NAMED.search(rest[1]) if len(rest) == 2 else None
    return found.group("name") if found is not None else None


def refusal(rule: OrdersRule, subject: str, body: str, subreddit: str,
            item: Thing | None, post: Thing | None) -> str | None:
    """Why this AutoModerator message is not an orders forward to run (None: it is one).

    ``item`` is the thing the first-line permalink names, fetched from the API (None: gone
    or not fetched); ``post`` is the post the orders rule fired on (the item, or a comment's
    post)."""
    if first_line_permalink(body, subreddit) is None:
        return (f"its first line is not a permalink into r/{subreddit} (the orders template "
                "must begin with `{{permalink}}`)")
    if item is None or item.author is None or item.subreddit.lower() != subreddit.lower():
        return f"the forwarded item is gone or not in r/{subreddit}"
    if not rule.fired_on(subject, body, post):
        return NOT_THE_ORDERS_RULE
    named = named_author(subject, body)
    if named is None:
        return "it does not name the author of the forwarded item (`u/{{author}}`)"
    if named.lower() != item.author.lower():
        return (f"it names u/{named} but the forwarded item was written by "
                f"u/{item.author}")
    return None
