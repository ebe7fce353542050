"""Private notes as readable markdown: what a claim (or the moderators) is told by the tick
and by other claims' orders, as ``(subject, body)`` or a body alone.

Names come in plain: a body escapes them (:func:`bot.text.name_md`), a subject keeps them as
written (a modmail subject is not markdown).
"""

from __future__ import annotations

from decimal import Decimal

from bot.render.common import Force, force, money, troops_text
from bot.text import name_md
from rules.campaign.naming import force_name, force_noun, host, state_word
from rules.campaign.paths import ArmyKind
from rules.campaign.upkeep import Troops
from rules.campaign.warnings import Shortfall, UpkeepForecast


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


def muster_note(a: Force, troops: str, place: str, state: str) -> tuple[str, str]:
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
