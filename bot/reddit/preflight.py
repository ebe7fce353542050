"""``maester check``: what must hold on Reddit before the bot runs, each with a fix.

Every check is one small question to Reddit (through the same gateway the bot uses), so a
new deployment learns in one command what the first hours of running would otherwise show
as dead posts: the login, the subreddit, the bot's moderator permissions, the flairs named
in the config, modmail, posting. ``maester run`` asks the same questions at start and
refuses to start when one that would kill the outbox fails (``fatal``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.config import Settings
from bot.reddit.gateway import (
    SCOPE_USES,
    SCOPES,
    AuthError,
    GatewayError,
    RateLimited,
    TransientError,
    user_agent,
)

#: Moderator permissions the bot needs: ``mail`` always; ``flair`` only for moderator-only
#: flairs; ``posts`` lets it read forwarded posts that AutoModerator removed.
NEEDED = ("mail",)


@dataclass(frozen=True, slots=True)
class Check:
    """One answer: ``ok``, what was found, and how to fix it if not."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    fatal: bool = True  # would make the outbox fail (``maester run`` refuses to start)


class CheckedGateway(Protocol):
    """The questions :func:`run_checks` asks (the PRAW gateway answers them)."""

    @property
    def subreddit(self) -> str: ...

    def me(self) -> str: ...

    def check_scopes(self, wanted: Sequence[str]) -> dict[str, tuple[bool | None, str]]: ...

    def subreddit_about(self) -> Mapping[str, Any]: ...

    def moderator_permissions(self, name: str) -> list[str] | None: ...

    def link_flairs(self) -> list[Mapping[str, Any]]: ...

    def modmail_page(self) -> int: ...


class PreflightFailed(RuntimeError):
    """A check that would kill the outbox failed; the message lists the fixes."""

    def __init__(self, failed: list[Check]) -> None:
        self.failed = failed
        super().__init__("maester check failed:\n" + "\n".join(
            f"  {c.name}: {c.detail}\n    fix: {c.fix}" for c in failed))


def run_checks(settings: Settings, gateway: CheckedGateway) -> list[Check]:
    """Every check, in order; later ones are skipped (not run) when the login fails."""
    sub = settings.campaign.subreddit
    checks: list[Check] = []
    try:
        agent = user_agent(settings)
        checks.append(Check("user agent", True, agent))
    except ValueError as exc:
        checks.append(Check("user agent", False, str(exc),
                            "set [reddit] operator (your Reddit name) or a user_agent of the "
                            "form <platform>:<app ID>:<version> (by /u/<username>)"))
    try:
        bot = gateway.me()
        checks.append(Check("login", True, f"logged in as u/{bot}"))
    except (TransientError, RateLimited) as exc:
        checks.append(Check(
            "reddit reachable", False, str(exc),
            "nothing says the credentials are wrong: check the network and [reddit] "
            "oauth_url and reddit_url, then run `maester check` again"))
        return checks
    except AuthError as exc:
        checks.append(Check(
            "login", False, str(exc),
            "check [reddit] client_id, client_secret and the password or refresh token "
            "(docs/setup.md, step 2); a refresh token must be permanent"))
        return checks
    except GatewayError as exc:
        checks.append(Check("login", False, f"Reddit refused /api/v1/me: {exc}",
                            "check that the account is not suspended and the token has "
                            "the identity scope (docs/setup.md, step 2)"))
        return checks
    checks.extend(_scope_checks(settings, gateway))
    try:
        about = gateway.subreddit_about()
    except GatewayError as exc:
        checks.append(Check("subreddit", False, f"r/{sub}: {exc}",
                            "check [campaign] subreddit (the name without r/)"))
        return checks
    if not about.get("user_is_moderator"):
        checks.append(Check("moderator", False, f"u/{bot} does not moderate r/{sub}",
                            f"invite u/{bot} as a moderator of r/{sub} and accept the "
                            "invitation while logged in as the bot"))
        return checks
    permissions = _permissions(gateway, bot)
    checks.append(_permission_check(bot, sub, permissions))
    checks.append(_removed_orders_check(settings, bot, sub, permissions))
    checks.extend(_flair_checks(settings, gateway, bot, permissions))
    if settings.posts.sidebar_widget:
        checks.append(_widget_check(bot, sub, permissions))
    try:
        count = gateway.modmail_page()
        checks.append(Check("modmail", True, f"modmail can be listed ({count} on page one)"))
    except GatewayError as exc:
        checks.append(Check("modmail", False, f"listing modmail failed: {exc}",
                            f"give u/{bot} the 'Manage Mod Mail' permission on r/{sub}, and "
                            "use a token with the modmail scope"))
    if about.get("user_is_banned"):
        checks.append(Check("posting", False, f"u/{bot} is banned from r/{sub}",
                            f"unban u/{bot} in the subreddit's mod tools"))
    elif about.get("submission_type") == "link":
        checks.append(Check("posting", False, f"r/{sub} takes link posts only; the bot "
                            "posts text posts", "allow text posts in the subreddit's "
                            "settings (Posts & comments: post types)"))
    else:
        checks.append(Check("posting", True, f"r/{sub} takes the bot's text posts"))
    return checks


def needed_scopes(settings: Settings) -> list[str]:
    """The OAuth scopes this configuration uses (see :data:`~bot.reddit.gateway.SCOPES`)."""
    posts = settings.posts
    flairs = any((posts.arrival_flair, posts.battle_flair, posts.siege_flair,
                  posts.scatter_flair, posts.realm_flair))
    return [s for s in SCOPES
            if not (s == "privatemessages" and not settings.bot.comment_commands)
            and not (s == "flair" and not flairs)
            and not (s == "structuredstyles" and not posts.sidebar_widget)]


#: Scopes whose lack stops only one side line of the bot's work, which halts alone while
#: the rest goes on (deleting posts on undo, comment commands, the sidebar widget): a
#: warning, not a failure.
OPTIONAL_SCOPES = frozenset({"edit", "privatemessages", "structuredstyles"})


def _scope_checks(settings: Settings, gateway: CheckedGateway) -> list[Check]:
    """One check per scope the configuration uses, each tried on its own."""
    wanted = needed_scopes(settings)
    fix = ("obtain a new permanent refresh token with the scopes "
           f"{' '.join(SCOPES)} (docs/setup.md, step 2)")
    try:
        found = gateway.check_scopes(wanted)
    except GatewayError as exc:
        return [Check("scopes", False, f"a fresh login to read the granted scopes failed: "
                      f"{exc}", "run `maester check` again; if it goes on, " + fix)]
    out = []
    for scope in wanted:
        has, how = found.get(scope, (None, "not checked"))
        use = SCOPE_USES[scope]
        if has:
            out.append(Check(f"scope {scope}", True, f"{how} ({use})"))
        elif has is None:
            out.append(Check(f"scope {scope}", False, f"{how} ({use})",
                             "run `maester check` again", fatal=False))
        else:
            out.append(Check(f"scope {scope}", False, f"the token lacks it: {how}; {use} "
                             "would be refused", fix, fatal=scope not in OPTIONAL_SCOPES))
    return out


def _permissions(gateway: CheckedGateway, bot: str) -> list[str]:
    try:
        return gateway.moderator_permissions(bot) or []
    except GatewayError:
        return []


def _has(permissions: list[str], wanted: str) -> bool:
    return "all" in permissions or wanted in permissions


def _permission_check(bot: str, sub: str, permissions: list[str]) -> Check:
    missing = [p for p in NEEDED if not _has(permissions, p)]
    shown = ", ".join(permissions) or "none"
    if missing:
        return Check("permissions", False, f"u/{bot} has {shown}; missing {', '.join(missing)}",
                     f"give u/{bot} 'Manage Mod Mail' on r/{sub} (Mod Tools > Moderators)")
    note = "" if _has(permissions, "posts") else (
        "; without 'Manage Posts and Comments' it cannot read forwarded posts that "
        "AutoModerator removed")
    return Check("permissions", True, f"u/{bot} has {shown}{note}")


def _removed_orders_check(settings: Settings, bot: str, sub: str,
                          permissions: list[str]) -> Check:
    """Order posts that AutoModerator removes read ``[removed]`` to a moderator without
    the ``posts`` permission: with ``[bot] orders_posts_removed`` that is an error."""
    if not settings.bot.orders_posts_removed:
        return Check("removed order posts", True, "the orders rule does not remove posts "
                     "([bot] orders_posts_removed = false)", fatal=False)
    if _has(permissions, "posts"):
        return Check("removed order posts", True, f"u/{bot} can read the order posts "
                     "AutoModerator removes ('Manage Posts and Comments')")
    return Check("removed order posts", False,
                 f"AutoModerator removes order posts and u/{bot} lacks 'Manage Posts and "
                 "Comments': every forwarded order post would read [removed] to it",
                 f"give u/{bot} 'Manage Posts and Comments' on r/{sub} (Mod Tools > "
                 "Moderators), or stop removing order posts and set [bot] "
                 "orders_posts_removed = false")


def _widget_check(bot: str, sub: str, permissions: list[str]) -> Check:
    """The sidebar widget needs "Manage Settings"; without it only the widget waits."""
    if _has(permissions, "config"):
        return Check("sidebar widget", True, f"u/{bot} may keep the sidebar widget")
    return Check("sidebar widget", False, f"u/{bot} lacks 'Manage Settings' (config): the "
                 "sidebar widget would be refused", f"give u/{bot} 'Manage Settings' on "
                 f"r/{sub}, or set [posts] sidebar_widget = false", fatal=False)


def _flair_checks(settings: Settings, gateway: CheckedGateway, bot: str,
                  permissions: list[str]) -> list[Check]:
    posts = settings.posts
    wanted = {key: getattr(posts, key) for key in
              ("arrival_flair", "battle_flair", "siege_flair", "scatter_flair")
              if getattr(posts, key)}
    if not wanted:
        return [Check("flairs", True, "no post flairs configured", fatal=False)]
    try:
        templates = gateway.link_flairs()
    except GatewayError as exc:
        return [Check("flairs", False, f"the flair list could not be read: {exc}",
                      "give the bot 'Manage Flair', or leave [posts] *_flair empty",
                      fatal=False)]
    by_text = {str(t.get("text", "")).lower(): t for t in templates}
    out = []
    for key, text in wanted.items():
        found = by_text.get(text.lower())
        if found is None:
            known = ", ".join(repr(str(t.get("text", ""))) for t in templates) or "none"
            out.append(Check(f"flair {key}", False, f"no post flair with the text {text!r} "
                             f"(there are: {known})", f"create it, or fix [posts] {key} (the "
                             "flair's text, not its id)", fatal=False))
        elif found.get("mod_only") and not _has(permissions, "flair"):
            out.append(Check(f"flair {key}", False, f"{text!r} is moderator-only and u/{bot} "
                             "lacks 'Manage Flair': every such post would be refused",
                             f"give u/{bot} 'Manage Flair', or make the flair usable by "
                             "everyone"))
        else:
            out.append(Check(f"flair {key}", True, f"{text!r} exists"))
    return out


def fatal_failures(checks: list[Check]) -> list[Check]:
    """The failed checks that would kill the outbox."""
    return [c for c in checks if not c.ok and c.fatal]
