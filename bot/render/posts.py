"""Public posts as readable markdown: battles, arrivals, sieges, falls, scatters.

Public text never shows a hidden modifier: when a side's strength includes one (a holdfast's
secret defense bonus), its strength, the ratio and the multipliers are left out, and only the
band, the rolls and the outcome are shown. Names come in plain and are escaped here
(:func:`bot.text.name_md`); a post's title is the services' setting, formatted with plain names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from bot.render.common import Force, dice_md, force, number, troops_of
from bot.text import escape_md, name_md
from rules.campaign.battle import BattleResult, SideResult, Strength, Winner
from rules.campaign.characters import Fate, TableRoll
from rules.campaign.mapview import Situation
from rules.campaign.modifiers import Source
from rules.campaign.naming import host
from rules.campaign.paths import ArmyKind
from rules.campaign.publication import PublicAssault
from rules.campaign.worldmap import WorldMap


def _strength_cell(side: SideResult, hidden: bool) -> str:
    labels = side.strength.public_labels()
    if hidden:
        # the value would reveal the secret multipliers; the public ones may be named.
        secret = "holdfast defenses" if any(a.modifier.source is Source.HOLDFAST
                                            for a in side.strength.applied) else ""
        parts = "; ".join(filter(None, (secret, " ".join(labels))))
        return f"hidden ({parts})" if parts else "hidden"
    text = number(side.strength.value)
    if labels:
        text += f" ({side.strength.base} " + " ".join(labels) + ")"
    return text


def _roll_cell(side: SideResult) -> str:
    return "auto" if side.roll is None else str(side.roll)


def _casualty_cell(side: SideResult) -> str:
    return (f"{number(side.casualty_pct)}%: {troops_of(side.losses)}"
            + (" (captured)" if side.captured else ""))


def _table_head(result: BattleResult, what: str, *, attacker: str, defender: str, place: str,
                when: str) -> list[str]:
    """A battle report's heading and the first row of its table, the troops of each side
    (names already markdown)."""
    return [f"**{what} at {place}**, {when}", "",
            "| | " + attacker + " (attacker) | " + defender + " (defender) |",
            "|---|---|---|",
            f"| Troops | {troops_of(result.attacker.troops)} | "
            f"{troops_of(result.defender.troops)} |"]


def _wins(winner: str, claims: int) -> str:
    """``**House Stark wins**``, or ``win`` for a side of several claims."""
    return f"**{winner} {'wins' if claims == 1 else 'win'}"


def battle_post(result: BattleResult, *, attacker: str, defender: str, place: str, when: str,
                kind: str = "field", hide_defender: bool = False,
                claims: tuple[int, int] = (1, 1),
                settled: Mapping[tuple[str, str], TableRoll] | None = None,
                public: PublicAssault | None = None, dice: str | None = None,
                fate_dice: Sequence[str] = ()) -> str:
    """The public battle report.

    ``attacker`` and ``defender`` name each side's claims
    (:func:`bot.render.common.side_name`; ``claims``: how many claims each side holds, for
    the verb). ``settled`` holds the fate-table rolls the
    bot made, keyed by (``"attacker"`` or ``"defender"``, character name); without it the
    report lists who must roll. ``public`` (an assault on a holdfast with a secret bonus)
    limits the report to what
    :func:`rules.campaign.publication.public_assault` allows. ``dice`` (the battle's dice
    line, left out when it would tell a hidden defender's secret) and ``fate_dice`` (the
    lines of the fate-table rolls) end the post.
    """
    if public is not None:
        body = _assault_post(result, public, attacker=name_md(attacker),
                             defender=name_md(defender), place=name_md(place), when=when,
                             claims=claims)
    else:
        body = _battle_table(result, attacker=attacker, defender=defender, place=place,
                             when=when, kind=kind, hide_defender=hide_defender, settled=settled,
                             claims=claims)
    if dice and not hide_defender:
        body += f"\n\n{dice_md(dice)}\n"
    return body + "".join(f"\n{dice_md(line)}\n" for line in fate_dice)


def _battle_table(result: BattleResult, *, attacker: str, defender: str, place: str, when: str,
                  kind: str, hide_defender: bool,
                  settled: Mapping[tuple[str, str], TableRoll] | None,
                  claims: tuple[int, int] = (1, 1)) -> str:
    what = {"field": "Battle", "assault": "Assault", "sally": "Sally"}.get(kind, "Battle")
    attacker, defender, place = name_md(attacker), name_md(defender), name_md(place)
    winner = attacker if result.winner is Winner.ATTACKER else defender
    wins = _wins(winner, claims[0] if result.winner is Winner.ATTACKER else claims[1])
    defender_hidden = result.defender.strength.has_hidden
    hidden = hide_defender or defender_hidden or result.attacker.strength.has_hidden
    lines = [*_table_head(result, what, attacker=attacker, defender=defender, place=place,
                          when=when),
             f"| Strength | {_strength_cell(result.attacker, result.attacker.strength.has_hidden)}"
             f" | {_strength_cell(result.defender, hide_defender or defender_hidden)} |",
             (f"| Roll | {_roll_cell(result.attacker)} | {_roll_cell(result.defender)} |"
              if not hidden else "| Roll | (not published) | (not published) |"),
             f"| Casualties | {_casualty_cell(result.attacker)} | "
             f"{_casualty_cell(result.defender)} |",
             ""]
    band = "automatic victory" if result.band == "auto" else f"band {result.band}"
    if result.ratio is not None and not hidden:
        band = f"ratio {number(result.ratio)}, {band}"
    if hidden:
        # The band, the rolls and the margin would narrow down the secret defense bonus.
        lines.append(f"{wins}.** The strength of the walls is known only to their "
                     "lords, so the odds and the dice of an assault are not published.")
    else:
        lines.append(f"{wins}** ({band}"
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
                             f"(d100 {fate.roll} <= {number(fate.casualty_pct)})")
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
    return (f"{number(low)}-{number(high)}% (about {troops * low // 100:.0f}-"
            f"{troops * high // 100:.0f} of {troops})")


def _assault_post(result: BattleResult, public: PublicAssault, *, attacker: str, defender: str,
                  place: str, when: str, claims: tuple[int, int] = (1, 1)) -> str:
    """An assault report holding only the facts that cannot narrow the secret bonus."""
    lines = [*_table_head(result, "Assault", attacker=attacker, defender=defender, place=place,
                          when=when),
             f"| Strength | {_strength_cell(result.attacker, result.attacker.strength.has_hidden)}"
             f" | {_strength_cell(result.defender, True)} |",
             f"| Losses | {_loss_cell(public.attacker_losses, result.attacker)} | "
             f"{_loss_cell(public.defender_losses, result.defender)} |",
             ""]
    if public.winner is None:
        lines.append("The outcome is known only to the two claims.")
    else:
        winner = attacker if public.winner is Winner.ATTACKER else defender
        count = claims[0] if public.winner is Winner.ATTACKER else claims[1]
        lines.append(f"{_wins(winner, count)}.**")
    lines.append("The strength of the walls is known only to their lords, so the odds, the "
                 "dice and the exact losses of an assault are not published; the fates of "
                 "characters are told to their claims.")
    return "\n".join(lines)


def arrival_post(claim: str, place: str, when: str, *, returned: bool,
                 kind: ArmyKind) -> str:
    """The public post of an army (a host) or a fleet reaching the end of its march or voyage
    (or of its retreat)."""
    what = "returns to" if returned else "arrives at"
    return f"A {host(kind)} of **{name_md(claim)}** {what} **{name_md(place)}** ({when})."


def siege_paused(paused: bool) -> str:
    """What a siege month says of a siege paused by a broken blockade (empty otherwise)."""
    return " (paused: the blockade is broken)" if paused else ""


def siege_month_post(*, date: str, holdfast: str, besieger: str, months: int, paused: bool
                     ) -> str:
    """The public post of a siege month completed (``months``: the months counted so far;
    ``paused``: this one did not count): the siege enters the month after them."""
    return (f"{date}: the siege of **{name_md(holdfast)}** by {name_md(besieger)} enters its "
            f"month {months + 1}{siege_paused(paused)}.")


def besiegers_gone(besieger: str, fate: str) -> str:
    """Why a siege ended when its besiegers left or are no more (``fate``: "are no more")."""
    return f"The besiegers of {name_md(besieger)} {fate}."


def fall_post(*, holdfast: str, besieger: str, how: str, held: bool = True,
              garrison: bool = True) -> str:
    """The public post of a holdfast falling. ``held``: a claim held it (else nobody did);
    ``garrison``: a garrison was there to be captured (a holdfast nobody held may have had
    none: the map's neutral garrison of 0, taken without a fight)."""
    owner = "" if held else ", which nobody held,"
    captured = "Its garrison is captured; the" if held or garrison else "The"
    return (f"**{name_md(holdfast)}**{owner} has fallen to {name_md(besieger)}, {how}. "
            f"{captured} gold and the people within are at the mercy of the victors (the "
            "moderators will rule on them).")


def scatter_post(claim: str, date: str) -> str:
    """The public post of a claim's armies scattering, unpaid."""
    return (f"Unpaid and unfed, the armies of **{name_md(claim)}** scatter in {date}. Half of "
            "them "
            "straggle home and will not answer a call to arms again this year.")


def _holder(owner: str | None, seat: bool) -> str:
    """Who holds a besieged or blockaded holdfast, as its post names it: ``, seat of House
    Stark,`` (its seat), ``, held by House Stark,`` (a conquest or a gift: not its seat), or
    ``, which no claim holds,``."""
    if owner is None:
        return ", which no claim holds,"
    return f", {'seat of' if seat else 'held by'} {name_md(owner)},"


def siege_begins_post(*, claim: str, holdfast: str, owner: str | None, when: str,
                      seat: bool = True) -> str:
    """The public post of a siege laid (``owner``: the holder's name, None: nobody holds it;
    ``seat``: the holdfast is the holder's seat)."""
    return (f"The host of **{name_md(claim)}** has laid siege to **{name_md(holdfast)}**"
            f"{_holder(owner, seat)} on {when}.")


def blockade_post(*, claim: str, port: str, owner: str | None, when: str,
                  seat: bool = True) -> str:
    """The public post of a fleet closing a port (``owner``: its holder's name, if any;
    ``seat``: the port is the holder's seat)."""
    return (f"The ships of **{name_md(claim)}** close the harbour of **{name_md(port)}**"
            + (_holder(owner, seat) if owner is not None else "") + f" on {when}.")


def siege_over_post(holdfast: str, reason: str) -> str:
    """The public post of a siege ended; ``reason`` is a sentence already in markdown
    (:func:`besiegers_gone`)."""
    return f"The siege of **{name_md(holdfast)}** is over. {reason}"


def retreat_post(*, claim: str, place: str, kind: ArmyKind, roll: int, dice: str
                 ) -> tuple[str, str]:
    """The public post of a host (or a fleet) withdrawing before battle: (title, body)."""
    return (f"[Battle] {claim} withdraws from {place}",
            f"Rather than give battle at **{name_md(place)}**, the {host(kind)} of "
            f"{name_md(claim)} withdraws (retreat roll {roll}).\n\n{dice_md(dice)}")


def realm_post(situation: Situation, world: WorldMap, date: str, total_holdfasts: int) -> str:
    """The text of the monthly ``[Realm]`` post, from a PUBLIC situation (names escaped and
    cut to length here)."""
    held: dict[str, list[str]] = {}
    for tile, claim in situation.holders:
        held.setdefault(claim, []).append(world.tile(tile).label)
    lines = [f"**The realm at the start of {date}.** The map shows what the whole realm "
             "knows: the holdfasts and who holds them, sieges and blockades, announced hosts "
             "and last month's battles. Every hex carries its tile id for your orders.", ""]
    count = sum(len(v) for v in held.values())
    lines.append(f"**Holdfasts held:** {count} of {total_holdfasts}.")
    lines.append("")
    if held:
        lines += ["| Claim | Holdfasts |", "|---|---|"]
        for claim in situation.claims:
            if claim in held:
                lines.append(f"| {escape_md(claim, 80)} | "
                             f"{', '.join(escape_md(h, 60) for h in sorted(held[claim]))} |")
        lines.append("")
    sieges = [f"{escape_md(world.tile(s.holdfast).label, 60)} (by "
              f"{escape_md(s.besieger, 80)})" for s in situation.sieges]
    lines.append("**Sieges in progress:** " + ("; ".join(sieges) if sieges else "none") + ".")
    lines.append("")
    battles = [f"{escape_md(b.attacker, 80)} vs {escape_md(b.defender, 80)} at "
               f"{escape_md(world.tile(b.tile).label, 60)}" for b in situation.battles]
    lines.append(f"**Battles last month:** {len(battles)}"
                 + (": " + "; ".join(battles) if battles else "") + ".")
    return "\n".join(lines)


# --- the month's improvements and capacity; a battle's aftermath -----------------
# Rendered from the values of rules.campaign.tick: ImprovementDone, CapacityChanged,
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
Commitment = tuple[str, str | None, str]
"""One branch's row in a [Dice] post: (branch, its claim's name or None for the public
branch, the commitment)."""


def dice_post(*, commitments: Sequence[tuple[int, Sequence[Commitment]]],
              reveal: int | None = None, public_key: str = "",
              public_rolls: Sequence[str] = (), beacons: Sequence[str] = ()) -> str:
    """The [Dice] post: the commitments of the coming periods and, for period ``reveal``, the
    public dice key (hex) with every public roll's dice line and the ``beacons`` lines of the
    public beacon rounds they are bound to."""
    parts: list[str] = []
    for period, rows in commitments:
        parts += [f"**Commitments for period {period}** (SHA-256 of each branch's dice key):",
                  "", "| branch | commitment |", "| --- | --- |"]
        for branch, claim, commitment in rows:
            label = branch if claim is None else f"{branch} ({name_md(claim)})"
            parts.append(f"| {label} | `{commitment}` |")
        parts.append("")
    if reveal is not None:
        parts += [f"**Reveal of period {reveal}**: the public dice key is `{public_key}`", ""]
        if public_rolls:
            parts.append("Every public roll of the period:")
            parts.append("")
            parts += [f"- {dice_md(line)}" for line in public_rolls]
            if beacons:
                parts += ["", "The public beacon rounds they are bound to:", ""]
                parts += [f"- {line}" for line in beacons]
        else:
            parts.append("No public dice were rolled in that period.")
        parts.append("")
        parts.append("Each claim receives the dice key of its own branch privately.")
    parts.append("")
    parts.append("How to check any roll yourself: see the players' guide, *Dice you can check*.")
    return "\n".join(parts).strip() + "\n"


def clock_widget(*, date: str, next_tick: str | None, note: str = "") -> str:
    """The sidebar widget's text: the in-game date and when the world next moves (``None``:
    the campaign is paused), with an optional line under them."""
    lines = [f"**In-game date:** {escape_md(date, 80)}",
             f"**Next tick:** {escape_md(next_tick, 80)}" if next_tick is not None
             else "**Next tick:** none while the campaign is paused"]
    if note:
        lines.append(f"*{escape_md(note, 300)}*")
    return "\n\n".join(lines)
