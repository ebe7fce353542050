"""The moderators' interventions in Mod Discussions: ``!undo``, ``!rollback``, ``!adjust``,
``!removearmy``, ``!fate``, ``!grantskill``, ``!relations``, ``!giveholdfast`` (and
``!mapupdate``, which answers how to propose a new map from the CLI: a message cannot carry
the file), and the second moderator's ``!proposals``, ``!approve`` and ``!refuse``
(:mod:`bot.services.proposals`).

Each is for moderators only and answered in the Mod Discussion (an internal note). The author
of the message is the acting moderator: Reddit says who wrote it. A reason follows
``because``: ``!undo because the 12:00 tick used the old map``.
"""

from __future__ import annotations

import re
from typing import Any

from bot.commands.registry import CommandContext, CommandError, command
from bot.text import escape_md
from rules.campaign.inputs import parse_gold, parse_troops
from rules.errors import InvalidInput

_BECAUSE = re.compile(r"\s*\bbecause\b\s*", re.IGNORECASE)


def _campaign(cmd_ctx: CommandContext, example: str) -> tuple[Any, Any]:
    session: Any = cmd_ctx.extra.get("session")
    campaign: Any = cmd_ctx.extra.get("campaign")
    if session is None or campaign is None:
        raise CommandError("this command needs the campaign", "a message sent to the bot",
                           example)
    return session, campaign


def _reason(args: str, example: str, *, needed: bool = True) -> tuple[str, str]:
    """(what comes before ``because``, the reason after it)."""
    parts = _BECAUSE.split(args.strip(), maxsplit=1)
    head, reason = (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")
    if needed and not reason.strip():
        raise CommandError("say why, after `because`: it goes in the log and, for an undo, "
                           "in the public correction", "the command, then `because REASON`",
                           example)
    return head.strip(), " ".join(reason.split())[:300]


def _answer(session: Any, campaign: Any, action: Any, cmd_ctx: CommandContext,
            example: str, expected: str = "see the example") -> str:
    from bot.services.proposals import Refused, perform
    from bot.services.snapshots import UndoRefused

    try:
        _, lines = perform(session, campaign, action, moderator=cmd_ctx.author,
                           now=cmd_ctx.now)
    except (Refused, UndoRefused, LookupError, InvalidInput, ValueError) as exc:
        raise CommandError(escape_md(str(exc), 600), expected, example) from None
    return "\n\n".join(escape_md(line, 600) for line in lines)


UNDO_EXAMPLE = "!undo because the 12:00 tick used the old map"


def _take_back(cmd_ctx: CommandContext, args: str, *, rollback: bool) -> str:
    from bot.services.proposals import undo_action
    from bot.services.snapshots import UndoRefused

    example = ROLLBACK_EXAMPLE if rollback else UNDO_EXAMPLE
    session, campaign = _campaign(cmd_ctx, example)
    head, reason = _reason(args, example)
    words = head.lower().split()
    to = None
    if rollback:
        if not words or not words[0].isdigit():
            raise CommandError("say which tick to go back to", "a tick number (as `maester "
                               "snapshots` lists them), then `because REASON`",
                               ROLLBACK_EXAMPLE)
        to, words = int(words[0]), words[1:]
    unknown = [w for w in words if w not in ("force", "delete")]
    if unknown:
        raise CommandError(f"I do not know `{escape_md(unknown[0], 40)}` here",
                           "`force` (take back what is on Reddit) and `delete` (delete those "
                           "posts), then `because REASON`", example)
    try:
        action, _ = undo_action(session, campaign, to=to, reason=reason, now=cmd_ctx.now,
                                force="force" in words,
                                delete_posts="force" in words and "delete" in words)
    except UndoRefused as exc:
        raise CommandError(f"not taken back: {escape_md(str(exc), 600)}", "see the example",
                           example) from None
    return _answer(session, campaign, action, cmd_ctx, example)


@command("undo", example=UNDO_EXAMPLE, moderator_only=True, private=True)
def undo_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: take back the last tick or moderator command, with a public
    correction: `!undo because REASON` (`!undo force because ...` when its posts are on
    Reddit, `force delete` to delete them too)."""
    return _take_back(cmd_ctx, args, rollback=False)


ROLLBACK_EXAMPLE = "!rollback 83121 because the siege was entered twice"


@command("rollback", example=ROLLBACK_EXAMPLE, moderator_only=True, private=True)
def rollback_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: take the world back to just after tick N, with a public correction:
    `!rollback N because REASON` (`force`, `delete` as for `!undo`)."""
    return _take_back(cmd_ctx, args, rollback=True)


ADJUST_EXAMPLE = "!adjust House Stark gold +100 infantry -50 because the feast"
_AMOUNT = re.compile(r"\b(gold|infantry|cavalry|ships)\s+([+-]?[0-9][0-9.]*)", re.IGNORECASE)


@command("adjust", example=ADJUST_EXAMPLE, moderator_only=True, private=True)
def adjust_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: change a claim's gold and troops at home:
    `!adjust House Stark gold +100 infantry -50 because REASON`."""
    from bot.services.moderation import Holdings
    from bot.services.proposals import adjust_action
    from bot.services.world import claim_by_name

    session, campaign = _campaign(cmd_ctx, ADJUST_EXAMPLE)
    head, reason = _reason(args, ADJUST_EXAMPLE)
    first = _AMOUNT.search(head)
    name = head[:first.start()].strip() if first else head
    amounts = {k.lower(): v for k, v in _AMOUNT.findall(head)}
    if not name or not amounts or _AMOUNT.sub("", head[len(name):]).strip():
        raise CommandError("say the claim and the changes", "a claim name, then `gold`, "
                           "`infantry`, `cavalry` or `ships` with a signed number each",
                           ADJUST_EXAMPLE)
    claim = claim_by_name(session, campaign, name)
    if claim is None:
        raise CommandError(f"no claim called {escape_md(name, 60)}", "a claim's name",
                           ADJUST_EXAMPLE)
    try:
        change = Holdings(parse_gold(amounts.get("gold", "0"), "gold", signed=True),
                          *(parse_troops(amounts.get(k, "0"), k, signed=True)
                            for k in ("infantry", "cavalry", "ships")))
    except InvalidInput as exc:
        raise CommandError(f"{escape_md(str(exc), 300)}", "signed numbers",
                           ADJUST_EXAMPLE) from None
    return _answer(session, campaign, adjust_action(claim, change, reason), cmd_ctx,
                   ADJUST_EXAMPLE)


REMOVE_EXAMPLE = "!removearmy 3 because a duplicate muster"


@command("removearmy", aliases=("armyremove",), example=REMOVE_EXAMPLE, moderator_only=True,
         private=True)
def remove_army_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: remove army or fleet N (its troops are gone, not sent home):
    `!removearmy N because REASON`."""
    from bot.services.proposals import Refused, army_action

    session, campaign = _campaign(cmd_ctx, REMOVE_EXAMPLE)
    head, reason = _reason(args, REMOVE_EXAMPLE)
    if not head.isdigit() or not 0 < int(head) < 2**31:
        raise CommandError("say which army", "an army number (`!removearmy 3 because ...`)",
                           REMOVE_EXAMPLE)
    try:
        action = army_action(session, campaign, int(head), reason)
    except Refused as exc:
        raise CommandError(f"{escape_md(str(exc), 300)}", "a raised army's number",
                           REMOVE_EXAMPLE) from None
    return _answer(session, campaign, action, cmd_ctx, REMOVE_EXAMPLE)


FATE_EXAMPLE = "!fate Robb Stark captured because taken at the Twins"


@command("fate", example=FATE_EXAMPLE, moderator_only=True, private=True)
def fate_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: record a character's fate (dead, wounded, captured or free):
    `!fate NAME FATE because NOTE`."""
    from bot.services.moderation import FATES
    from bot.services.proposals import fate_action
    from bot.services.world import find_character

    session, campaign = _campaign(cmd_ctx, FATE_EXAMPLE)
    head, note = _reason(args, FATE_EXAMPLE, needed=False)
    name, _, fate = head.rpartition(" ")
    if fate.lower() not in FATES or not name.strip():
        raise CommandError("say the character and the fate", "a character's name, then one "
                           f"of {', '.join(FATES)}", FATE_EXAMPLE)
    try:
        row = find_character(session, campaign, name)
    except LookupError as exc:
        raise CommandError(f"{escape_md(str(exc), 300)}", "a character's name",
                           FATE_EXAMPLE) from None
    return _answer(session, campaign, fate_action(row, fate, note), cmd_ctx, FATE_EXAMPLE)


@command("proposals", example="!proposals", moderator_only=True, private=True)
def proposals_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: the actions waiting for a second moderator."""
    from bot.services.proposals import describe, listing

    session, campaign = _campaign(cmd_ctx, "!proposals")
    rows = listing(session, campaign)
    if not rows:
        return "No proposal is waiting."
    return "\n".join(f"- {escape_md(describe(p), 600)}" for p in rows)


APPROVE_EXAMPLE = "!approve 3"


def _number(args: str, example: str) -> tuple[int, str]:
    head, _, rest = args.strip().partition(" ")
    head = head.lstrip("#")
    if not head.isdigit() or not 0 < int(head) < 2**31:
        raise CommandError("say which proposal", "its number, as `!proposals` lists them",
                           example)
    return int(head), rest


@command("approve", example=APPROVE_EXAMPLE, moderator_only=True, private=True)
def approve_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: approve proposal N and run it (never your own): `!approve N`."""
    from bot.services.proposals import Refused, approve
    from bot.services.snapshots import UndoRefused

    session, campaign = _campaign(cmd_ctx, APPROVE_EXAMPLE)
    number, _ = _number(args, APPROVE_EXAMPLE)
    try:
        done = approve(session, campaign, number, moderator=cmd_ctx.author, now=cmd_ctx.now)
    except (Refused, UndoRefused, LookupError) as exc:
        raise CommandError(f"not approved: {escape_md(str(exc), 600)}",
                           "a pending proposal of another moderator", APPROVE_EXAMPLE) from None
    return "\n\n".join(escape_md(line, 600) for line in done.lines)


REFUSE_EXAMPLE = "!refuse 3 because the feast was paid already"


@command("refuse", example=REFUSE_EXAMPLE, moderator_only=True, private=True)
def refuse_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: refuse proposal N with a reason: `!refuse N because REASON`."""
    from bot.services.proposals import Refused, refuse

    session, campaign = _campaign(cmd_ctx, REFUSE_EXAMPLE)
    number, rest = _number(args, REFUSE_EXAMPLE)
    _, reason = _reason(f"x because {_BECAUSE.sub('', rest, count=1)}" if rest.strip()
                        else "", REFUSE_EXAMPLE)
    try:
        done = refuse(session, campaign, number, moderator=cmd_ctx.author, reason=reason,
                      now=cmd_ctx.now)
    except Refused as exc:
        raise CommandError(f"not refused: {escape_md(str(exc), 600)}",
                           "a pending proposal and a reason", REFUSE_EXAMPLE) from None
    return escape_md(f"Proposal #{done.proposal.id} refused by u/{done.proposal.decided_by}: "
                     f"{done.proposal.decision}.", 600)


def _with_reason(action: Any, reason: str) -> Any:
    """``action`` with the moderator's ``because`` note added to its summary (what the
    moderators read in the proposal and its note)."""
    from dataclasses import replace

    return replace(action, summary=f"{action.summary} ({reason})") if reason else action


def _splits(head: str) -> list[tuple[str, str]]:
    """Every way to cut ``head`` in two at a space, the longest first part first (names of
    claims, characters and holdfasts have spaces)."""
    words = head.split()
    return [(" ".join(words[:i]), " ".join(words[i:])) for i in range(len(words) - 1, 0, -1)]


SKILL_EXAMPLE = "!grantskill Brynden Tully Blackfish because won at the Fords"


@command("grantskill", aliases=("skillgrant",), example=SKILL_EXAMPLE, moderator_only=True,
         private=True)
def grant_skill_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: give a character a skill of the catalogue (its claim is told):
    `!grantskill CHARACTER SKILL because NOTE`."""
    from bot.services.proposals import Refused, skill_action

    session, campaign = _campaign(cmd_ctx, SKILL_EXAMPLE)
    head, note = _reason(args, SKILL_EXAMPLE, needed=False)
    for character, skill in _splits(head):
        try:  # (refused only when no character has that name: try the next split)
            action = skill_action(session, campaign, character, skill)
        except Refused:
            continue
        return _answer(session, campaign, _with_reason(action, note), cmd_ctx, SKILL_EXAMPLE,
                       "a character's name, then a skill of the catalogue")
    raise CommandError(f"no character's name starts `{escape_md(head, 80)}`" if head
                       else "say the character and the skill",
                       "a character's name (as `maester characters` lists them), then a "
                       "skill of the catalogue", SKILL_EXAMPLE)


RELATIONS_EXAMPLE = "!relations House Stark House Lannister war because the Red Fork"


@command("relations", aliases=("setrelations",), example=RELATIONS_EXAMPLE,
         moderator_only=True, private=True)
def relations_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: set how two claims stand (war, neutral or allied):
    `!relations CLAIM CLAIM STATUS because NOTE`."""
    from bot.services.proposals import relations_action
    from bot.services.world import claim_by_name
    from rules.campaign.world import RelationStatus

    session, campaign = _campaign(cmd_ctx, RELATIONS_EXAMPLE)
    head, note = _reason(args, RELATIONS_EXAMPLE, needed=False)
    pair, _, status = head.rpartition(" ")
    try:
        value = RelationStatus(status.lower())
    except ValueError:
        raise CommandError(f"`{escape_md(status, 40)}` is not a relation" if status
                           else "say the two claims and the relation",
                           "two claims' names, then war, neutral or allied",
                           RELATIONS_EXAMPLE) from None
    for first, second in _splits(pair):
        a, b = claim_by_name(session, campaign, first), claim_by_name(session, campaign, second)
        if a is None or b is None:
            continue
        if a.id == b.id:
            break
        return _answer(session, campaign, _with_reason(relations_action(a, b, value), note),
                       cmd_ctx, RELATIONS_EXAMPLE, "two different claims and a relation")
    raise CommandError(f"`{escape_md(pair, 80)}` is not two different claims",
                       "two claims' names (as `maester claims` lists them), then war, neutral "
                       "or allied", RELATIONS_EXAMPLE)


HOLDFAST_EXAMPLE = "!giveholdfast Moat Cailin House Bolton seat because sworn at the feast"


@command("giveholdfast", aliases=("holdfastgive",), example=HOLDFAST_EXAMPLE,
         moderator_only=True, private=True)
def give_holdfast_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: give a holdfast to a claim (`seat`: as its seat; both claims are
    told): `!giveholdfast HOLDFAST CLAIM [seat] because NOTE`."""
    from bot.services.proposals import Refused, holdfast_action
    from bot.services.world import claim_by_name

    session, campaign = _campaign(cmd_ctx, HOLDFAST_EXAMPLE)
    head, note = _reason(args, HOLDFAST_EXAMPLE, needed=False)
    rest, _, last = head.rpartition(" ")
    seat = last.lower() == "seat" and bool(rest)
    head = rest if seat else head
    refused = ""
    for holdfast, name in _splits(head):
        claim = claim_by_name(session, campaign, name)
        if claim is None:
            continue
        try:
            action = holdfast_action(session, campaign, holdfast, claim, seat)
        except Refused as exc:
            refused = str(exc)
            continue
        return _answer(session, campaign, _with_reason(action, note), cmd_ctx,
                       HOLDFAST_EXAMPLE, "a holdfast, then the claim to give it to")
    raise CommandError(escape_md(refused, 300) if refused
                       else f"`{escape_md(head, 80)}` is not a holdfast then a claim",
                       "a holdfast's name or tile, then a claim's name, then `seat` to make "
                       "it the claim's seat", HOLDFAST_EXAMPLE)


MAP_EXAMPLE = "!mapupdate"


@command("mapupdate", aliases=("updatemap",), example=MAP_EXAMPLE, moderator_only=True,
         private=True)
def map_update_command(cmd_ctx: CommandContext, args: str) -> str:
    """Moderators only: how to replace the map (it needs a file, so only from the CLI)."""
    return ("A map update needs the new map's file, which a message cannot carry, so it is "
            "proposed from the command line on the bot's machine: `maester map update "
            "NEW-MAP.yaml` shows the difference, then `maester map update NEW-MAP.yaml --yes "
            "--by u/YOUR_NAME` applies it, or stores it as a proposal when [moderators] "
            "approval asks for a second moderator. That moderator can then `!approve N` it "
            "here (`!proposals` lists it). Nothing was changed.")
