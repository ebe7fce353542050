"""Public posts and private notes as readable markdown.

Public text never shows a hidden modifier: when a side's strength includes one (a holdfast's
secret defense bonus), its strength, the ratio and the multipliers are left out, and only the
band, the rolls and the outcome are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Protocol

from bot.text import name_md
from rules.campaign.battle import BattleResult, SideResult, Strength, Winner
from rules.campaign.characters import Fate, TableRoll
from rules.campaign.modifiers import Source
from rules.campaign.naming import force_name, force_noun, host, state_word
from rules.campaign.paths import ArmyKind
from rules.campaign.publication import PublicAssault
from rules.campaign.upkeep import Troops
from rules.campaign.warnings import Shortfall, UpkeepForecast


def money(value: Decimal) -> str:
    """Gold as players read it: ``750``, ``1.9``, ``12.25`` (exact, no trailing zeros)."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


class Force(Protocol):
    """An army or a fleet as stored (a database row or a tick's record)."""

    @property
    def id(self) -> int | None: ...

    @property
    def kind(self) -> ArmyKind: ...


def force(a: Force, *, capital: bool = False) -> str:
    """``army 3`` or ``fleet 3`` as players read it (``Army 3`` at the start of a sentence)."""
    return force_name(a.kind, a.id or 0, capital=capital)


def troops_text(infantry: int, cavalry: int, ships: int = 0) -> str:
    parts = []
    if infantry:
        parts.append(f"{infantry} infantry")
    if cavalry:
        parts.append(f"{cavalry} cavalry")
    if ships:
        parts.append(f"{ships} ships")
    return ", ".join(parts) or "no troops"


def scatter_forecast_text(f: UpkeepForecast) -> str:
    """What happens at the upkeep when the gold falls short (one paragraph, private)."""
    def troops(t: Troops) -> str:
        return troops_text(t.infantry, t.cavalry, t.ships)

    income = f" and {money(f.income)} gold of income" if f.income else ""
    return (f"The upkeep of your raised troops ({troops(f.raised)}) will be "
            f"{money(f.cost)} gold; you have {money(f.gold)} gold{income}, "
            f"**{money(f.shortfall)} gold short**. If nothing changes, your armies scatter: "
            f"{troops(f.survivors)} come home (and cannot be raised again until the end of "
            f"the year), {troops(f.lost)} are lost for good.")


def shortfall_text(shortfall: Shortfall | None, when: str) -> str:
    """A receipt's warning paragraph (empty without one); ``when`` is the charge time as the
    reply shows times."""
    if shortfall is None:
        return ""
    what = "too little gold for the first upkeep" if shortfall.first else \
        "too little gold left for the next upkeep"
    return (f"\n\n**Warning: {what}** (charged {when}). "
            + scatter_forecast_text(shortfall.forecast))


def _num(value: Decimal) -> str:
    text = f"{value.quantize(Decimal('0.01')):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _strength_cell(side: SideResult, hidden: bool) -> str:
    labels = side.strength.public_labels()
    if hidden:
        # the value would reveal the secret multipliers; the public ones may be named.
        secret = "holdfast defenses" if any(a.modifier.source is Source.HOLDFAST
                                            for a in side.strength.applied) else ""
        parts = "; ".join(filter(None, (secret, " ".join(labels))))
        return f"hidden ({parts})" if parts else "hidden"
    text = _num(side.strength.value)
    if labels:
        text += f" ({side.strength.base} " + " ".join(labels) + ")"
    return text


def _roll_cell(side: SideResult) -> str:
    return "auto" if side.roll is None else str(side.roll)


def battle_post(result: BattleResult, *, attacker: str, defender: str, place: str, when: str,
                kind: str = "field", hide_defender: bool = False,
                settled: Mapping[tuple[str, str], TableRoll] | None = None,
                public: PublicAssault | None = None) -> str:
    """The public battle report.

    ``settled`` holds the fate-table rolls the bot made, keyed by (``"attacker"`` or
    ``"defender"``, character name); without it the report lists who must roll. ``public``
    (an assault on a holdfast with a secret bonus) limits the report to what
    :func:`rules.campaign.publication.public_assault` allows.
    """
    if public is not None:
        return _assault_post(result, public, attacker=name_md(attacker),
                             defender=name_md(defender), place=name_md(place), when=when)
    what = {"field": "Battle", "assault": "Assault", "sally": "Sally"}.get(kind, "Battle")
    attacker, defender, place = name_md(attacker), name_md(defender), name_md(place)
    winner = attacker if result.winner is Winner.ATTACKER else defender
    hidden = hide_defender or result.defender.strength.has_hidden \
        or result.attacker.strength.has_hidden
    lines = [f"**{what} at {place}**, {when}", "",
             "| | " + attacker + " (attacker) | " + defender + " (defender) |",
             "|---|---|---|",
             f"| Troops | {troops_text(result.attacker.troops.infantry, result.attacker.troops.cavalry, result.attacker.troops.ships)}"  # noqa: E501
             f" | {troops_text(result.defender.troops.infantry, result.defender.troops.cavalry, result.defender.troops.ships)} |",  # noqa: E501
             f"| Strength | {_strength_cell(result.attacker, result.attacker.strength.has_hidden)}"
             f" | {_strength_cell(result.defender, hidden and (hide_defender or result.defender.strength.has_hidden))} |",  # noqa: E501
             (f"| Roll | {_roll_cell(result.attacker)} | {_roll_cell(result.defender)} |"
              if not hidden else "| Roll | (not published) | (not published) |"),
             f"| Casualties | {_num(result.attacker.casualty_pct)}%: "
             f"{troops_text(result.attacker.losses.infantry, result.attacker.losses.cavalry, result.attacker.losses.ships)}"  # noqa: E501
             f"{' (captured)' if result.attacker.captured else ''} | "
             f"{_num(result.defender.casualty_pct)}%: "
             f"{troops_text(result.defender.losses.infantry, result.defender.losses.cavalry, result.defender.losses.ships)}"  # noqa: E501
             f"{' (captured)' if result.defender.captured else ''} |",
             ""]
    band = "automatic victory" if result.band == "auto" else f"band {result.band}"
    if result.ratio is not None and not hidden:
        band = f"ratio {_num(result.ratio)}, {band}"
    if hidden:
        # The band, the rolls and the margin would narrow down the secret defense bonus.
        lines.append(f"**{winner} wins.** The strength of the walls is known only to their "
                     "lords, so the odds and the dice of an assault are not published.")
    else:
        lines.append(f"**{winner} wins** ({band}"
                     + (f", margin {result.margin}" if result.margin is not None else "")
                     + ").")
    dice = ", ".join(f"d{r.sides}={r.value}" for r in result.rolls
                     if not r.purpose.startswith("character"))
    if dice and not hidden:
        lines.append(f"\nDice: {dice}")
    rolls = []
    for which, name, side in (("attacker", attacker, result.attacker),
                              ("defender", defender, result.defender)):
        for fate in side.fates:
            shown = name_md(fate.name)
            rolled = settled.get((which, fate.name)) if settled is not None else None
            if rolled is not None:
                table = "death" if fate.fate is Fate.DEATH_ROLL else "injury"
                rolls.append(f"- {shown} ({name}) made a **{table} roll** (d100 {fate.roll}), "
                             f"{table} table {rolled.roll}: {rolled.outcome}")
            elif fate.fate is Fate.CAPTURED:
                rolls.append(f"- {shown} ({name}) is **captured**")
            elif fate.fate is Fate.DEATH_ROLL:
                rolls.append(f"- {shown} ({name}) must make a **death roll** "
                             f"(d100 {fate.roll} <= {_num(fate.casualty_pct)})")
            elif fate.fate is Fate.INJURY_ROLL:
                rolls.append(f"- {shown} ({name}) must make an **injury roll** "
                             f"(d100 {fate.roll})")
    if rolls:
        lines += ["", "Characters:", *rolls]
    return "\n".join(lines)


def _loss_cell(pct_range: tuple[Decimal, Decimal] | None, side: SideResult) -> str:
    if pct_range is None:
        return "not published"
    low, high = pct_range
    troops = side.troops.infantry + side.troops.cavalry + side.troops.ships
    return (f"{_num(low)}-{_num(high)}% (about {troops * low // 100:.0f}-"
            f"{troops * high // 100:.0f} of {troops})")


def _assault_post(result: BattleResult, public: PublicAssault, *, attacker: str, defender: str,
                  place: str, when: str) -> str:
    """An assault report holding only the facts that cannot narrow the secret bonus."""
    a, d = result.attacker.troops, result.defender.troops
    lines = [f"**Assault at {place}**, {when}", "",
             "| | " + attacker + " (attacker) | " + defender + " (defender) |",
             "|---|---|---|",
             f"| Troops | {troops_text(a.infantry, a.cavalry, a.ships)} | "
             f"{troops_text(d.infantry, d.cavalry, d.ships)} |",
             f"| Strength | {_strength_cell(result.attacker, result.attacker.strength.has_hidden)}"
             f" | {_strength_cell(result.defender, True)} |",
             f"| Losses | {_loss_cell(public.attacker_losses, result.attacker)} | "
             f"{_loss_cell(public.defender_losses, result.defender)} |",
             ""]
    if public.winner is None:
        lines.append("The outcome is known only to the two claims.")
    else:
        winner = attacker if public.winner is Winner.ATTACKER else defender
        lines.append(f"**{winner} wins.**")
    lines.append("The strength of the walls is known only to their lords, so the odds, the "
                 "dice and the exact losses of an assault are not published; the fates of "
                 "characters are told to their claims.")
    return "\n".join(lines)


# --- the tick's moves (from the events of rules.campaign.advance) ----------------------------
# Names come in plain: a body escapes them (name_md), a subject keeps them as written.

def muster_note(a: Force, troops: str, place: str, state: str) -> tuple[str, str]:
    """The claim's note when a muster (of an army or a fleet) is ready: (subject, body)."""
    name = force(a, capital=True)
    return (f"{name} is ready",
            f"{name} ({troops}) has mustered at {name_md(place)} and is "
            f"{state_word(a.kind, state)}.")


def arrival_post(claim: str, place: str, when: str, *, returned: bool,
                 kind: ArmyKind) -> str:
    """The public post of an army (a host) or a fleet reaching the end of its march or voyage
    (or of its retreat)."""
    what = "returns to" if returned else "arrives at"
    return f"A {host(kind)} of **{name_md(claim)}** {what} **{name_md(place)}** ({when})."


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
                   first_reaction: bool, kind: ArmyKind) -> tuple[str, str]:
    """Each side's note when two hostile armies (or fleets: ``kind``, both the same) meet:
    (subject, body)."""
    mine, theirs = force_name(kind, own), force_name(kind, enemy)
    if first_reaction:
        choice = (f" You have the first reaction: reply `retreat {mine}` or "
                  f"`stand {mine}` before then.")
    else:
        choice = (f" {name_md(enemy_claim)} saw you first: until then it may still choose to "
                  "retreat instead of fighting.")
    return (f"Battle looms at {place}",
            f"Your {mine} faces {theirs} of {name_md(enemy_claim)} at {name_md(place)}. The "
            "battle is "
            f"fought at {when}.{choice}")


def siege_month_post(*, date: str, holdfast: str, besieger: str, months: int, note: str
                     ) -> str:
    """The public post of a siege month completed (``note``: why it did not count)."""
    return (f"{date}: the siege of **{name_md(holdfast)}** by {name_md(besieger)} enters its "
            f"month {months}{note}.")


def besiegers_gone(besieger: str, fate: str) -> str:
    """Why a siege ended when its besiegers left or are no more (``fate``: "are no more")."""
    return f"The besiegers of {name_md(besieger)} {fate}."


def fall_post(*, holdfast: str, besieger: str, how: str) -> str:
    """The public post of a holdfast falling."""
    return (f"**{name_md(holdfast)}** has fallen to {name_md(besieger)}, {how}. Its garrison "
            "is captured; the "
            "gold and the people within are at the mercy of the victors (the moderators will "
            "rule on them).")


def holder_note(place: str, benefit: str) -> tuple[str, str]:
    """The note to a claim that now receives a resource tile's benefit: (subject, body)."""
    return (f"You hold {place}",
            f"Your army holds {name_md(place)}: your claim receives {name_md(benefit)} while a "
            "standing army of yours is the strongest there. It also watches the land around it "
            "like a holdfast.")


def upkeep_note(cost: Decimal, income: Decimal, sources: str, troops: str, gold: Decimal) -> str:
    """The claim's note on a month's upkeep paid (``sources``: where its income came from)."""
    earned = f"Income: {income} gold ({sources}). " if income else ""
    return (f"{earned}Upkeep of {money(cost)} gold paid for {troops}. Gold left: "
            f"{money(gold)}.")


def scatter_post(claim: str, date: str) -> str:
    """The public post of a claim's armies scattering, unpaid."""
    return (f"Unpaid and unfed, the armies of **{name_md(claim)}** scatter in {date}. Half of "
            "them "
            "straggle home and will not answer a call to arms again this year.")


# --- the month's improvements and capacity; a battle's aftermath (month11) -----------------
# Rendered from the values of rules.campaign.advance: ImprovementDone, CapacityChanged,
# BattleFought (its secret strengths and its fate-table rolls).

def improvement_done_summary(claim: str, name: str, where: str) -> str:
    """The journal line of a finished improvement."""
    return f"{claim} finishes {name} at {where}"


def improvement_note(name: str, where: str, effects: str | None) -> tuple[str, str]:
    """The claim's note on a finished improvement (``effects`` in words; None: the catalogue
    no longer has it): (subject, body)."""
    what = effects if effects is not None else "no effect in this catalogue"
    return f"{name} is finished at {where}", f"The {name} of {where} is finished: {what}."


def capacity_change_text(infantry: int, cavalry: int) -> str:
    """``+10 infantry, -5 cavalry`` (the kinds that changed)."""
    return ", ".join(f"{n:+d} {kind}" for n, kind in ((infantry, "infantry"),
                                                      (cavalry, "cavalry")) if n)


def capacity_summary(claim: str, change: str) -> str:
    """The journal line of troops at home changed by capacity effects."""
    return f"{claim} troops at home {change}"


def capacity_note(change: str, reasons: str, infantry: int, cavalry: int) -> tuple[str, str]:
    """The claim's note on its troops at home changed by capacity effects (``reasons``: the
    effects in words, its own secret ones marked): (subject, body)."""
    return ("Troops at home",
            f"Your troops at home change by {change} ({reasons or 'no capacity effects'}). "
            f"At home now: {infantry} infantry, {cavalry} cavalry.")


def secret_strength_note(battle: int | None, a: Force, strength: Strength) -> tuple[str, str]:
    """The private note to an army whose strength counted a hidden modifier: its strength in
    full, every multiplier named (the public post leaves them out): (subject, body)."""
    return (f"Battle {battle}: your strength in full",
            f"{force(a, capital=True)} fought with strength {strength.value} (base "
            f"{strength.base}: " + ", ".join(strength.all_labels())
            + "). The public post leaves your secret modifiers out.")


def fate_summary(character: str, roll: TableRoll) -> str:
    """The journal line of a fate-table roll the bot made."""
    return f"{character} rolls on the {roll.table} table: {roll.outcome}"
