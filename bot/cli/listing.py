"""The one list of ``maester``'s top-level commands (:data:`COMMANDS`): each names the module
that defines it and the one-line summary ``maester --help`` prints.

A plain table with no imports of the command line: :mod:`bot.cli` re-exports it and
:mod:`bot.cli.group` builds the Typer group from it.
"""

from __future__ import annotations

from dataclasses import dataclass

HELP = "maester: runs a Game of Thrones map campaign on a subreddit."


@dataclass(frozen=True, slots=True)
class Entry:
    """One top-level command: its name, the module defining it, and its one-line summary."""

    name: str
    module: str
    summary: str


# Every top-level command, in the order ``maester --help`` lists them. A test checks each
# summary against the command's own docstring and each module's commands against this list.
COMMANDS: tuple[Entry, ...] = (
    Entry("init", "bot.cli.campaign",
          "Create the database and the campaign (map from the config; --demo: demo roster)."),
    Entry("status", "bot.cli.campaign", "Last tick, next tick, pending outbox, in-game date "
          "and season, proposals waiting."),
    Entry("claims", "bot.cli.claims",
          "List the claims: holdfast, gold, troops at home, raised armies, players."),
    Entry("armies", "bot.cli.campaign", "List raised armies (optionally of one claim)."),
    Entry("show", "bot.cli.campaign", "Show one thing in detail."),
    Entry("order", "bot.cli.campaign",
          "Process TEXT exactly as a modmail from that user would be; print the reply."),
    Entry("tick", "bot.cli.campaign",
          "Apply every due tick up to --until (default: now); --preview: show, apply nothing."),
    Entry("undo", "bot.cli.safety",
          "Take back the last tick or moderator command (what is posted needs --force)."),
    Entry("rollback", "bot.cli.safety",
          "Take the world back to just after tick --to TICK|TIME (as undo, further back)."),
    Entry("proposals", "bot.cli.approval",
          "List the moderators' actions waiting for a second moderator (--all: decided ones "
          "too)."),
    Entry("approve", "bot.cli.approval",
          "Approve a proposal as a second moderator and run it (never your own)."),
    Entry("refuse", "bot.cli.approval",
          "Refuse a proposal, with a reason (the proposer may withdraw their own so)."),
    Entry("snapshots", "bot.cli.safety",
          "List the kept snapshots: what each tick or command can be taken back to."),
    Entry("pause", "bot.cli.safety",
          "Pause the campaign: no tick applies, orders are answered that it is paused."),
    Entry("resume", "bot.cli.safety",
          "End the pause: a holiday (missed ticks are skipped), or --catch-up --yes applies them."),
    Entry("season", "bot.cli.campaign", "The season (winter doubles upkeep)."),
    Entry("relations", "bot.cli.campaign", "Relations between claims."),
    Entry("holdfast", "bot.cli.campaign", "Who holds a holdfast, and claims' seats."),
    Entry("adjust", "bot.cli.campaign", "Change a claim's gold and troops at home; recorded "
          "in the log with the moderator."),
    Entry("characters", "bot.cli.steering",
          "List the characters (optionally of one claim) with army, skills and state."),
    Entry("character", "bot.cli.steering",
          "Record a character's fate (dead, wounded, captured or free)."),
    Entry("army", "bot.cli.steering", "Remove an army or fleet by hand."),
    Entry("skills", "bot.cli.catalogue", "Grant and remove characters' skills."),
    Entry("catalogue", "bot.cli.catalogue", "Show, check and load the campaign's catalogue."),
    Entry("log", "bot.cli.campaign", "The event log with dice, newest last."),
    Entry("outbox", "bot.cli.campaign",
          "Posts, replies and messages waiting to be delivered (--all: delivered and dead too)."),
    Entry("export", "bot.cli.campaign", "The whole world as JSON on stdout."),
    Entry("verify", "bot.cli.dice",
          "Recompute the dice of an event or a post and compare them with what was published."),
    Entry("check", "bot.cli.reddit",
          "Check the login, the subreddit, the bot's permissions, flairs, modmail and posting."),
    Entry("run", "bot.cli.reddit",
          "Run the bot: modmail intake, game ticks and posting, until SIGTERM/Ctrl-C."),
    Entry("poll", "bot.cli.reddit",
          "Read modmail (and mentions) and handle new orders; --once for a single round."),
    Entry("publish", "bot.cli.reddit",
          "Deliver the outbox (posts, replies, private news); --once for a single round."),
    Entry("db", "bot.cli.campaign", "Database maintenance."),
    Entry("rules", "bot.cli.rules",
          "Run a rules engine on JSON from stdin (one object, or one per line with --jsonl)."),
    Entry("engines", "bot.cli.rules", "List the JSON engines that maester rules knows."),
    Entry("command", "bot.cli.rules",
          "Run a tabletop bot command (!combat, !attack, !challenge ...) and print its reply."),
    Entry("map", "bot.cli.map", "Check, draw and update the campaign map."),
    Entry("web", "bot.cli.web", "Serve the campaign's web pages (the realm, war rooms, the "
          "moderators' room); show or replace links; export the realm."),
    Entry("demo", "bot.cli.campaign",
          "Play a whole demo campaign against a local Reddit sandbox (no credentials needed)."),
)
BY_NAME = {entry.name: entry for entry in COMMANDS}
