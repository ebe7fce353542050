"""Private notes as readable markdown: what a claim (or the moderators) is told by the tick
and by other claims' orders, as ``(subject, body)`` or a body alone.

Names come in plain: a body escapes them (:func:`bot.text.name_md`), a subject keeps them as
written (a modmail subject is not markdown).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from bot.render.common import Force, dice_md, force, money, siege_note, troops_of
from bot.text import escape_md, name_code, name_md
from rules.campaign.battle import Strength
from rules.campaign.catalogue import Entry
from rules.campaign.decide import BattleOrder
from rules.campaign.modifiers import Modifier
from rules.campaign.naming import force_name, force_noun, host, state_word, travel
from rules.campaign.paths import ArmyKind
from rules.campaign.siege import SiegeLength
from rules.campaign.upkeep import Troops, UpkeepResult
from rules.campaign.warnings import Shortfall, UpkeepForecast, WinterWarning
from rules.campaign.world import ArmyState


def scatter_forecast_text(f: UpkeepForecast) -> str:
    """What happens at the upkeep when the gold falls short (one paragraph, private)."""
    income = f" and {money(f.income)} gold of income" if f.income else ""
    return (f"The upkeep of your raised troops ({troops_of(f.raised)}) will be "
            f"{money(f.cost)} gold; you have {money(f.gold)} gold{income}, "
            f"**{money(f.shortfall)} gold short**. If nothing changes, your armies scatter: "
            f"{troops_of(f.survivors)} come home (and cannot be raised again until the end of "
            f"the year), {troops_of(f.lost)} are lost for good.")


HOW_TO_AVOID = ("To avoid it, have more gold by then, or disband armies (troops at home cost "
                "no upkeep; `status` lists your armies) until the upkeep fits your gold.")


def upkeep_warning_note(*, month: str, charged: str, forecast: UpkeepForecast
                        ) -> tuple[str, str]:
    """The warning after a paid upkeep that next month's (in game month ``month``, charged at
    ``charged``) will scatter the armies."""
    return (f"Warning: your armies will scatter in {month}",
            f"Next month's upkeep is charged {charged}. " + scatter_forecast_text(forecast)
            + "\n\n" + HOW_TO_AVOID)


def scattered_note(*, month: str, result: UpkeepResult, until: str) -> tuple[str, str]:
    """The note to a claim whose armies just scattered: what came home, what was lost and
    until when the survivors cannot be raised."""
    return (f"Your armies scattered in {month}",
            "Your gold" + (f" and {money(result.income)} gold of income" if result.income
                           else "")
            + f" did not cover the upkeep of {money(result.cost)} gold, so your armies "
            f"scattered and your gold is now 0.\n\n"
            f"- Came home: {troops_of(result.survivors)}\n"
            f"- Lost for good: {troops_of(result.lost)}\n"
            f"- The survivors cannot be raised again until {until}.")


def winter_note(multiplier: Decimal, warning: WinterWarning) -> tuple[str, str]:
    """The note to a claim with raised troops when winter multiplies the upkeep."""
    f = warning.forecast
    body = (f"Winter has begun: upkeep is multiplied by {money(multiplier)} until the "
            f"moderators end it. Your raised troops ({troops_of(f.raised)}) now cost "
            f"{money(f.cost)} gold a month instead of {money(warning.cost_before)}.")
    if f.scatter:
        body += "\n\n" + scatter_forecast_text(f) + "\n\n" + HOW_TO_AVOID
    return "Winter has begun: your upkeep doubles", body


def winter_ends_note(raised: Troops, before: Decimal, after: Decimal) -> tuple[str, str]:
    """The note to a claim with raised troops when winter ends (``before`` and ``after``: the
    monthly upkeep in winter and now)."""
    return ("Winter has ended: your upkeep falls",
            f"Winter has ended: your raised troops ({troops_of(raised)}) now cost "
            f"{money(after)} gold a month instead of {money(before)}.")


def shortfall_text(shortfall: Shortfall | None, when: str) -> str:
    """A receipt's warning paragraph (empty without one); ``when`` is the charge time as the
    reply shows times."""
    if shortfall is None:
        return ""
    what = "too little gold for the first upkeep" if shortfall.first else \
        "too little gold left for the next upkeep"
    return (f"\n\n**Warning: {what}** (charged {when}). "
            + scatter_forecast_text(shortfall.forecast))


def muster_note(a: Force, troops: str, place: str, state: ArmyState) -> tuple[str, str]:
    """The claim's note when a muster (of an army or a fleet) is ready: (subject, body)."""
    name = force(a, capital=True)
    return (f"{name} is ready",
            f"{name} ({troops}) has mustered at {name_md(place)} and is "
            f"{state_word(a.kind, state)}.")


def detection_roll_text(automatic: bool, roll: int | None, bonus: int, total: int | None,
                        target: int | None, labels: tuple[str, ...]) -> str:
    """How a detection was decided, for the watcher: ``automatic`` or the d20 sum."""
    if automatic:
        return "automatic"
    return f"d20 {roll} + {bonus} = {total} vs {target}" \
        + (f" ({', '.join(labels)})" if labels else "")


def sighting_note(*, watch_place: str, claim: str, place: str, when: str, troops: str,
                  roll: str, guard: int | None, army_id: int, until: str,
                  kind: ArmyKind) -> tuple[str, str]:
    """The watcher's note when its watchers sight a host (or a fleet, ``kind``): (subject,
    body); ``guard``: its standing army (or fleet: guards are of the sighted kind) that may
    intercept the force before ``until``."""
    hint = "" if guard is None else (
        f" Your {force_name(kind, guard)} stands at {name_md(watch_place)}: you may stop this "
        "force "
        f"with `intercept {force_name(kind, army_id)} with {force_name(kind, guard)}` before "
        f"{until}.")
    return (f"A {host(kind)} is sighted near {watch_place}",
            f"Your watchers at {name_md(watch_place)} sight {force_noun(kind, article=True)} of "
            f"{name_md(claim)} at {name_md(place)}, {when}: {troops}. Detection roll: {roll}."
            + hint)


def encounter_note(*, own: int, enemy: int, enemy_claim: str, place: str, when: str,
                   first_reaction: bool, kind: ArmyKind, nobody: bool = False
                   ) -> tuple[str, str]:
    """Each side's note when two hostile armies (or fleets: ``kind``, both the same) meet:
    (subject, body). ``nobody``: both were marching, neither has the first reaction."""
    mine, theirs = force_name(kind, own), force_name(kind, enemy)
    if nobody:
        choice = " You met on the march: neither side may retreat."
    elif first_reaction:
        choice = (f" You have the first reaction: reply `retreat {mine}` or "
                  f"`stand {mine}` before then.")
    else:
        choice = (f" {name_md(enemy_claim)} has the first reaction: until then it may still "
                  "choose to retreat instead of fighting.")
    return (f"Battle looms at {place}",
            f"Your {mine} faces {theirs} of {name_md(enemy_claim)} at {name_md(place)}. The "
            "battle is "
            f"fought at {when}.{choice} {odds_hint(mine, theirs)}")


def ally_encounter_note(*, own: int, lead: int, lead_claim: str, enemy: int, enemy_claim: str,
                        place: str, when: str, kind: ArmyKind) -> tuple[str, str]:
    """The note to a claim whose army stands where its ally's army (``lead``) met an enemy: it
    fights on that side when the battle is fought (docs/rules.md, battles between sides):
    (subject, body)."""
    return (f"Battle looms at {place}",
            f"Your {force_name(kind, own)} stands at {name_md(place)} with "
            f"{force_name(kind, lead)} of {name_md(lead_claim)}, your ally, which faces "
            f"{force_name(kind, enemy)} of {name_md(enemy_claim)}. If your "
            f"{force_name(kind, own)} still stands there when the battle is fought, at "
            f"{when}, it fights on {name_md(lead_claim)}'s side (and your claim is at war with "
            f"{name_md(enemy_claim)} from then on). To stay out of it, march away before then.")


def odds_hint(mine: str, theirs: str) -> str:
    """How a side in a pending battle asks for its odds."""
    return f"Send `odds {mine} vs {theirs}` to see the odds of this battle."


def holder_note(place: str, benefit: str) -> tuple[str, str]:
    """The note to a claim that now receives a resource tile's benefit: (subject, body)."""
    return (f"You hold {place}",
            f"Your army holds {name_md(place)}: your claim receives {name_md(benefit)} while a "
            "standing army of yours is the strongest there. It also watches the land around it "
            "like a holdfast.")


def upkeep_note(date: str, cost: Decimal, income: Decimal, sources: str, troops: str,
                gold: Decimal) -> tuple[str, str]:
    """The claim's note on in-game month ``date``'s upkeep paid (``sources``: where its income
    came from): (subject, body)."""
    earned = f"Income: {income} gold ({sources}). " if income else ""
    return (f"Upkeep for {date}",
            f"{earned}Upkeep of {money(cost)} gold paid for {troops}. Gold left: "
            f"{money(gold)}.")


def siege_left_note(holdfast: str, months_left: int) -> tuple[str, str]:
    """The besieger's note after a siege month: how long until the holdfast falls."""
    return f"Siege of {holdfast}", f"{months_left} in-game months until {name_md(holdfast)} falls."


def opponent_decides_note(*, runner: Force, runner_claim: str, own: Force, place: str,
                          until: str) -> tuple[str, str]:
    """After a failed retreat, the note to the runner's opponent, who chooses before ``until``
    to fight (the runner at -1) or to let it stay."""
    return (f"{force(runner, capital=True)} failed to retreat at {place}",
            f"{force(runner, capital=True)} of {name_md(runner_claim)} tried to retreat from "
            f"your {force(own)} at {name_md(place)} and failed. You decide: reply "
            f"`stand {force(own)}` to fight (they fight at -1) or `spare {force(runner)}` to let "
            f"them stay, before {until}. Without an answer the battle is fought then.")


def retreat_failed_note(*, runner: Force, opponent_claim: str, place: str, until: str
                        ) -> tuple[str, str]:
    """After a failed retreat, the note to the runner: its opponent decides."""
    return (f"{force(runner, capital=True)} failed to retreat",
            f"{force(runner, capital=True)} could not get away from {name_md(place)}. "
            f"{name_md(opponent_claim)} decides before {until} whether to fight (you would fight "
            "at -1) or to let you stay.")


def army_after_battle_note(*, battle: int | None, kind: ArmyKind, army: int, place: str,
                           state: str, troops: str, fate: str, back_to: str = "",
                           arriving: str = "", beaten: bool = False) -> tuple[str, str]:
    """To the claim of every army that fought: what is left of it (``fate``: why it is gone,
    when it is) and where it goes: a beaten army turns back the way it came (``back_to``, at
    ``arriving``), withdraws behind its walls, or, with no path to fall back along, stays
    (and meets the enemy again while both stand there)."""
    name = force_name(kind, army, capital=True)
    if state == "gone":
        what = f"{name} is no more: its troops {fate or 'are gone'}."
    elif state == "retreating" and back_to:
        what = (f"{name} has {troops} left and falls back the way it came, to "
                f"{name_md(back_to)}, arriving {arriving}.")
    elif state == "garrison":
        what = f"{name} has {troops} left and withdraws behind the walls of {name_md(place)}."
    elif state == "standing" and beaten:
        what = (f"{name} has {troops} left and stays at {name_md(place)}: it has no path to "
                "fall back along, so it meets the enemy again while an army at war with you "
                "stands there (a note on that battle follows).")
    else:
        what = f"{name} has {troops} left and is {state}."
    return (f"Battle {battle} at {place}: {force_name(kind, army)}",
            f"After the battle at {name_md(place)}: {what} The public post gives the battle in "
            "full.")


def garrison_after_battle_note(*, battle: int | None, kind: str, place: str, won: bool,
                               captured: bool, lost: str) -> tuple[str, str]:
    """To the claim whose garrison fought a sally or held against an assault: how it went and
    what it cost (its troops at home are no army, so no army's note tells it)."""
    what = "sally from" if kind == "sally" else "assault on"
    cost = "was captured" if captured else f"lost {lost}"
    return (f"Battle {battle} at {place}: your garrison",
            f"The {what} {name_md(place)} is {'won' if won else 'lost'}: your garrison {cost}. "
            "Send `status` to see the troops left at home.")


def battle_void_note(*, battle: int | None, place: str, kind: str) -> tuple[str, str]:
    """To both claims of a battle that does not happen (its armies parted or are gone, or the
    siege a sally was to break has ended)."""
    return (f"Battle {battle} at {place} does not happen",
            f"The {kind} at {name_md(place)} (battle {battle}) does not happen: the armies "
            "parted, one of them is no more, or the siege it belonged to has ended. Your armies "
            "stay as they are; send `status` to see them.")


def defenses_note(place: str, strength: Strength, dice: str | None) -> tuple[str, str]:
    """The garrison's private note after an assault on its holdfast: the secret defenses
    counted and, from its private branch, the assault's dice line (``dice``)."""
    return (f"The assault on {place}",
            "Your holdfast's defenses multiplied your garrison's strength: "
            + ", ".join(strength.all_labels()) + f"; strength {money(strength.value)}."
            + (f"\n\nThe assault's dice (your private branch): {dice_md(dice)}" if dice else ""))


# --- what another claim's order tells a claim --------------------------------------------------

def call_off_note(kind: ArmyKind | None, army: int, holdfast: str) -> tuple[str, str]:
    """The defender's note when the assault on its holdfast is called off: (subject, body)."""
    return (f"The assault on {holdfast} is called off",
            f"{force_name(kind, army, capital=True)} will not assault {name_md(holdfast)} after "
            "all: there is no battle.")


def spared_note(*, claim: str, kind: ArmyKind | None, army: int, place: str) -> tuple[str, str]:
    """The note to the claim whose army (after a failed retreat) ``claim`` lets stay."""
    return (f"{force_name(kind, army, capital=True)} is spared",
            f"{name_md(claim)} lets your {force_name(kind, army)} stay at {name_md(place)}: "
            "there is no battle.")


def assault_note(*, kind: ArmyKind | None, army: int, troops: str, holdfast: str, when: str
                 ) -> tuple[str, str]:
    """The defender's note when its holdfast will be assaulted."""
    return (f"{holdfast} will be assaulted",
            f"{force_name(kind, army, capital=True)} ({troops}) will assault "
            f"{name_md(holdfast)} at {when}. Your garrison defends with the holdfast's "
            "defenses.")


def attacked_note(*, how: BattleOrder, kind: ArmyKind | None, army: int, target: int,
                  troops: str, place: str, when: str) -> tuple[str, str]:
    """The defender's note when its army (or fleet) is attacked (``how``: an attack) or
    intercepted on the march (an intercept); it has the first reaction."""
    mine = force_name(kind, army, capital=True)
    theirs, theirs_cap = force_name(kind, target), force_name(kind, target, capital=True)
    if how == BattleOrder.ATTACK:
        subject = f"{theirs_cap} is attacked at {place}"
        news = f"{mine} ({troops}) attacks your {theirs} at {name_md(place)}."
    else:
        subject = f"{theirs_cap} is intercepted at {place}"
        news = (f"{mine} ({troops}) bars the way of your {theirs} at "
                f"{name_md(place)}: your {travel(kind, 'noun')} is stopped.")
    return (subject,
            f"{news} The battle is fought at {when}.\n\nYou have the first reaction: reply "
            f"`retreat {theirs}` to try to escape, or `stand {theirs}` to fight. "
            + odds_hint(theirs, force_name(kind, army)))


def besieged_note(*, claim: str, kind: ArmyKind | None, army: int, troops: str, holdfast: str,
                  length: SiegeLength, own: Iterable[Modifier]) -> tuple[str, str]:
    """The defender's note when its holdfast is besieged (``own``: the defender's modifiers,
    the only secret ones its note may name)."""
    return (f"{holdfast} is besieged",
            f"{force_name(kind, army, capital=True)} of {name_md(claim)} ({troops}) besieges "
            f"{name_md(holdfast)}. Your garrison can hold for {length.months} in-game "
            f"months{siege_note(length, own)}. You may sally: `sally from {name_code(holdfast)}`.")


def blockaded_note(*, claim: str, fleet: int, ships: int, port: str) -> tuple[str, str]:
    """The port holder's note when a fleet blockades its port."""
    return (f"{port} is blockaded",
            f"Fleet {fleet} of {name_md(claim)} ({ships} ships) blockades {name_md(port)}. "
            f"Defeat it at sea to break the blockade: a siege of {name_md(port)} pauses while "
            "it is broken.")


def blockade_war(port: str) -> str:
    """How a blockade began a war, for :func:`war_note`."""
    return f"its fleet blockades {name_md(port)}"


def war_note(enemy: str | None, how: str = "") -> tuple[str, str]:
    """The note to a claim another claim (``enemy``; None: unknown) is now at war with;
    ``how``: what began it, already markdown (:func:`blockade_war`)."""
    return (f"{enemy if enemy is not None else 'Another claim'} is at war with you",
            f"**{name_md(enemy if enemy is not None else 'another claim')}** is now at war "
            "with your claim" + (f" ({how})" if how else "") + ". Its armies may attack, "
            "intercept or besiege yours, and meeting them in the field means battle.")


# --- referrals to the moderators -------------------------------------------------------------

def _retreat_referral(kind: ArmyKind | None, army: int, body: str) -> tuple[str, str]:
    return f"Retreat of {force_name(kind, army)} referred to you", body


def retreat_referred_by_order(*, author: str, claim: str, kind: ArmyKind | None, army: int,
                              troops: str, place: str, battle: int | None) -> tuple[str, str]:
    """A player's retreat order with no way back and no route: the moderators decide before
    the battle (nothing is rolled)."""
    return _retreat_referral(kind, army, (
        f"u/{escape_md(author)} ({name_md(claim)}) wants {force_name(kind, army)} ({troops}) to "
        f"retreat from {name_md(place)} before battle {battle}, but it did not {travel(kind)} "
        "there and gave no route. The rules leave this to your discretion. Nothing was rolled; "
        "the battle stands unless you rule otherwise."))


def retreat_referred_in_battle(*, claim: str, kind: ArmyKind | None, army: int, place: str
                               ) -> tuple[str, str]:
    """A retreat with no way back met at the battle: fought all the same, the moderators
    may rule on it afterwards."""
    return _retreat_referral(kind, army, (
        f"{force_name(kind, army, capital=True)} of {name_md(claim)} chose to retreat from "
        f"{name_md(place)} but has no way back. Nothing was rolled and the battle was fought; "
        "rule on it if needed."))


def siege_referral_note(*, author: str, claim: str, kind: ArmyKind | None, army: int, troops: str,
                        holdfast: str, owner: str) -> tuple[str, str]:
    """A siege of a holdfast with its own siege rules: the moderators rule on it."""
    return (f"Siege of {holdfast} referred to you",
            f"u/{escape_md(author)} ({name_md(claim)}) orders {force_name(kind, army)} "
            f"({troops}) to besiege **{name_md(holdfast)}**, seat of {name_md(owner)}. This "
            "holdfast has its own siege rules, so maester started nothing: please rule on it "
            "and tell both claims.")


def holdfast_lost_note(*, holdfast: str, conqueror: str, infantry: int, cavalry: int,
                       seat: bool) -> tuple[str, str]:
    """To the claim whose holdfast fell: what was captured, and (its seat) that it cannot
    muster until the moderators give it a new seat."""
    body = (f"**{name_md(holdfast)}** has fallen to {name_md(conqueror)}. Your troops there "
            f"({infantry} infantry, {cavalry} cavalry, and every army inside) are captured.")
    if seat:
        body += (" It was your seat: your claim has **no seat** now and cannot muster until the "
                 "moderators give it one (they have been told).")
    return f"{holdfast} has fallen", body


def holdfast_won_note(*, holdfast: str, bonus: str) -> tuple[str, str]:
    """To the conqueror: the holdfast is its claim's now, with its secret defences."""
    defenses = f" Its defenses: x{bonus} to your defenders against an assault (secret)." \
        if bonus else ""
    return (f"{holdfast} is yours",
            f"**{name_md(holdfast)}** is your claim's now: it watches for you, and its "
            f"improvements are yours.{defenses} It is not your seat: your troops still muster "
            "at home unless the moderators make it your seat.")


def seat_lost_referral(*, claim: str, holdfast: str, conqueror: str) -> tuple[str, str]:
    """To the moderators: a claim lost its seat and needs a new one."""
    return (f"{claim} has no seat",
            f"{name_md(holdfast)}, seat of {name_md(claim)}, has fallen to {name_md(conqueror)}. "
            f"{name_md(claim)} cannot muster until you give it a seat: `maester holdfast give "
            "HOLDFAST CLAIM --seat`.")


# --- what the moderators' actions tell a claim -------------------------------------------------

def holdfast_given_note(*, holdfast: str, seat: bool) -> tuple[str, str]:
    """The moderators gave a claim a holdfast (``seat``: as its seat)."""
    if seat:
        return (f"{holdfast} is your seat",
                f"The moderators made **{name_md(holdfast)}** your claim's seat: your troops "
                "live and muster there from now on.")
    return (f"{holdfast} is yours",
            f"The moderators gave **{name_md(holdfast)}** to your claim: it watches for you "
            "and its defenses are yours (see `status`).")


def holdfast_taken_note(*, holdfast: str, claim: str, seat: bool) -> tuple[str, str]:
    """The moderators gave a claim's holdfast to another claim."""
    return (f"{holdfast} is no longer yours",
            f"The moderators gave **{name_md(holdfast)}** to {name_md(claim)}."
            + (" It was your seat: your claim cannot muster until it has a new one."
               if seat else ""))


def skill_note(character: str, skill: Entry, *, granted: bool) -> tuple[str, str, str]:
    """A character gaining (``granted``) or losing a skill: (summary for the log, subject,
    body)."""
    verb = "gains" if granted else "loses"
    summary = f"{character} {verb} the skill {skill.name}"
    effects = f": {skill.describe_effects()}" if skill.effects else ""
    return (summary, f"{character} {verb} a skill",
            f"{name_md(character)} {verb} the skill {name_md(skill.name)}{effects}.")


def orders_taken_back_note(when: str, orders: Iterable[str]) -> tuple[str, str]:
    """The message to a player whose orders a moderator's undo took back (to the world of
    ``when``): (title, body). ``orders`` are the journal's plain summaries, names as written:
    each is escaped whole."""
    return ("Orders taken back by the moderators",
            f"The moderators took the campaign back to {when}. What your orders did since then "
            "was taken back with it:\n\n" + "\n".join(f"- {escape_md(o)}" for o in orders)
            + "\n\nSend these orders again if you still want them.")


def dice_key_note(*, period: int, branch: str, key: str, commitment: str,
                  rolls: Sequence[str], beacons: Sequence[str] = ()) -> tuple[str, str]:
    """The claim's private dice key of an ended period (hex), with its commitment, the
    dice lines of its private rolls and the beacon lines of the rounds they are bound to."""
    lines = [f"Your private dice key for period {period} ({branch}): `{key}`",
             "", f"Its commitment was `{commitment}`.", ""]
    if rolls:
        lines += ["Your private rolls of that period:", ""]
        lines += [f"- {dice_md(line)}" for line in rolls]
        if beacons:
            lines += ["", "The beacon rounds they are bound to:", ""]
            lines += [f"- {line}" for line in beacons]
    else:
        lines.append("No private dice were rolled for you in that period.")
    lines += ["", "Check them with docs/verify_dice.py (see the players' guide)."]
    return f"Your dice key for period {period}", "\n".join(lines) + "\n"
