"""``!challenge``: resolve one challenge of A Game of Thrones: The Card Game (2nd edition).

Parse, resolve, render: the text is read by :mod:`rules.cardgame.notation` into a request and
the two-player game it describes, :func:`rules.cardgame.resolve_challenge` checks legality and
resolves it, and this module renders the reply.
"""

from __future__ import annotations

from bot.commands.registry import CommandContext, CommandError, command
from bot.errors import notation_failure
from bot.text import escape_md
from rules.cardgame import (
    ChallengeOutcome,
    ChallengeResult,
    ChallengeType,
    IllegalChallenge,
    KillChoiceNeeded,
    resolve_challenge,
)
from rules.cardgame.notation import (
    EXAMPLE,
    SYNTAX,
    ChallengeRequest,
    build_game,
    parse_challenge,
)
from rules.errors import NotationError, RulesError


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(escape_md(n) for n in names) if names else "nobody"


def _roster(result: ChallengeResult, request: ChallengeRequest, attacking: bool) -> str:
    specs = request.attackers if attacking else request.defenders
    present = set(result.attackers if attacking else result.defenders)
    shown = [f"{escape_md(s.name)} {s.strength}" for s in specs if s.name in present]
    return ", ".join(shown) if shown else "nobody"


def _why_nobody(result: ChallengeResult) -> str:
    attacker_ahead = result.attacking_strength >= result.defending_strength
    side = "attacker" if attacker_ahead else "defender"
    total = result.attacking_strength if attacker_ahead else result.defending_strength
    participants = result.attackers if attacker_ahead else result.defenders
    if total < 1:
        return f"the {side}'s side would win but has a total STR of {total}, and needs 1 or more"
    assert not participants
    return f"the {side}'s side would win but has no participating characters"


def _claim_lines(result: ChallengeResult, request: ChallengeRequest) -> list[str]:
    claim = result.claim
    if claim is None:
        return []
    head = f"Claim ({claim.challenge_type.value} {claim.value}): "
    if claim.value == 0:
        return [head + "a claim of 0 does nothing."]
    kind = claim.challenge_type
    if kind is ChallengeType.MILITARY:
        if claim.kills_owed or request.kills is None:
            return [head + f"the defender must choose {claim.value} character(s), all different, "
                    "and kill them (all they have, if fewer). Add `kill NAME` to apply it."]
        return [head + f"the defender kills {_names(claim.killed)}."]
    if kind is ChallengeType.INTRIGUE:
        if request.hand is None:
            return [head + f"the defender discards {claim.value} card(s) from hand at random "
                    "(all of them, if fewer). Add `hand N` to roll for them."]
        if not claim.discarded:
            return [head + "the defender has no cards in hand to discard."]
        lines = [head + f"the defender discards {claim.applied} of {request.hand} card(s) "
                 "at random:"]
        size = request.hand
        for number, roll in enumerate(claim.discard_rolls, start=1):
            lines.append(f"  * discard {number}: d{size} → **{roll}**: card number {roll} of the "
                         f"{size} still in hand")
            size -= 1
        lines.append(f"  * discarded: {', '.join(claim.discarded)} (numbering the hand as it "
                     "was before the claim)")
        return lines
    if request.power is None:
        return [head + f"{claim.value} power moves from the defender's faction card to the "
                "attacker's (all they have, if less). Add `power N` to apply it."]
    return [head + f"{claim.power_moved} power moves from the defender's faction card to the "
            f"attacker's (the defender had {request.power})."]


def render_result(result: ChallengeResult, request: ChallengeRequest) -> str:
    """The markdown reply for a resolved challenge."""
    kind = result.challenge_type.value.capitalize()
    headline = {
        ChallengeOutcome.ATTACKER_WINS: "the attacker wins",
        ChallengeOutcome.DEFENDER_WINS: "the defender wins",
        ChallengeOutcome.NO_WINNER: "nobody wins",
    }[result.outcome]
    if result.unopposed:
        headline += " (unopposed)"
    lines = [
        f"**{kind} challenge: {headline}**",
        "",
        "| Side | Characters (STR) | Total STR |",
        "|:--|:--|--:|",
        f"| Attacker | {_roster(result, request, True)} | **{result.attacking_strength}** |",
        f"| Defender | {_roster(result, request, False)} | **{result.defending_strength}** |",
        "",
    ]
    attacking = result.knelt[: len(request.attackers)]
    defending = result.knelt[len(request.attackers):]
    lines.append(f"* Knelt: {_names(attacking)} (attacking); {_names(defending)} (defending).")
    for pick in result.stealth_targets:
        lines.append(f"* Stealth: {escape_md(pick.attacker)} slips past "
                     f"{escape_md(pick.target)}, who cannot defend.")
    if result.outcome is ChallengeOutcome.NO_WINNER:
        lines.append(f"* Nobody wins or loses: {_why_nobody(result)}.")
    elif result.attacking_strength == result.defending_strength:
        lines.append("* The totals are tied, and a tie goes to the attacker.")
    if result.unopposed_bonus:
        lines.append("* Unopposed bonus: +1 power to the attacker's faction card.")
    if result.rivals_bonus:
        winner = "attacker" if result.outcome is ChallengeOutcome.ATTACKER_WINS else "defender"
        lines.append(f"* Rivals bonus: +1 power to the {winner}'s faction card.")
    for name in result.renown:
        lines.append(f"* Renown: {escape_md(name)} gains 1 power.")
    lines.extend(f"* {line}" if not line.startswith("  ") else line
                 for line in _claim_lines(result, request))
    if result.outcome is ChallengeOutcome.DEFENDER_WINS:
        lines.append("* The defender won, so there is no claim.")
    return "\n".join(lines)


@command("challenge", aliases=("chal", "chall", "cardchallenge"), example=EXAMPLE)
def challenge_command(cmd_ctx: CommandContext, args: str) -> str:
    """Resolve a challenge of A Game of Thrones: The Card Game (2nd edition).

    Give the type (military, intrigue, power), the attackers as NAME STR with optional icons
    (`mil`, `int`, `pow`; none means the challenge's own) and keywords (`stealth`,
    `stealth on NAME`, `renown`), then `vs` and the defenders (or `vs no defenders`). Optional
    at the end: `claim N` (default 1), `hand N` (cards in the defender's hand, for intrigue),
    `power N` (power on the defender's faction card, for power), `kill NAME, ...` (the
    defender's choice for a military claim) and `rivals` (a melee where the two titles are
    each other's Rival). Ties go to the attacker; random discards are rolled and shown.
    """
    try:
        request = parse_challenge(args)
        state, declaration = build_game(request)
        result = resolve_challenge(state, declaration, dice=cmd_ctx.dice)
    except NotationError as err:
        raise notation_failure(err) from None
    except IllegalChallenge as err:
        raise CommandError(f"illegal challenge: {escape_md(str(err), 300)}", SYNTAX,
                           EXAMPLE) from err
    except KillChoiceNeeded as err:
        raise CommandError(
            f"the military claim needs {err.owed} character(s) to kill, "
            f"but `kill` names {err.chosen}",
            f"`kill` followed by {err.owed} different names", EXAMPLE,
        ) from err
    except RulesError as err:
        raise CommandError(escape_md(str(err), 300), SYNTAX, EXAMPLE) from err
    return render_result(result, request)
