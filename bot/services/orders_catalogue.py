"""Orders that use the campaign's catalogue, and the fleets' blockade.

``build IMPROVEMENT at HOLDFAST``, ``buy EQUIPMENT for army N``, ``assign COMMANDER to army N``
and ``blockade PORT with fleet N``. Listed in
:data:`bot.services.orders.HANDLERS` with every other order. Names the catalogue does not
know are refused with the list of valid ones.
"""

from __future__ import annotations

from sqlmodel import col, select

from bot.db.models import Army, Character
from bot.services import journal
from bot.services.catalogue import (
    catalogue_of,
    living_characters,
)
from bot.services.order_apply import decided
from bot.services.order_call import Call, Rejected
from bot.text import escape_md
from rules.campaign import orders as o
from rules.campaign.catalogue import Section
from rules.campaign.world import FREE_CHARACTERS, CharacterStatus

# --- build ------------------------------------------------------------------------------

def build(c: Call, order: o.Build) -> str:
    return decided(c, order)


# --- buy --------------------------------------------------------------------------------

def buy(c: Call, order: o.Buy) -> str:
    return decided(c, order)


# --- assign -----------------------------------------------------------------------------

def _find_character(characters: list[Character], name: str) -> Character | None:
    wanted = " ".join(name.split()).casefold()
    for ch in characters:
        if ch.name.casefold() == wanted:
            return ch
    words = set(wanted.split())
    close = [ch for ch in characters if words <= set(ch.name.casefold().split())]
    return close[0] if len(close) == 1 else None


def assign(c: Call, order: o.Assign) -> str:
    a = c.own_army(order.army)
    claim = c.require_claim()
    characters = list(living_characters(c.session, c.ctx, claim.id or 0))
    chosen = _find_character(characters, order.commander)
    unfree = _find_character(list(c.session.exec(select(Character).where(
        Character.campaign_id == c.ctx.campaign_id, Character.claim_id == claim.id,
        col(Character.status).in_(sorted(set(CharacterStatus) - FREE_CHARACTERS)))).all()),
        order.commander) if chosen is None else None
    if unfree is not None:
        free = ", ".join(ch.name for ch in characters)
        why = ("is dead" if unfree.status is CharacterStatus.DEAD else
               "is a captive and cannot command until the moderators free them")
        raise Rejected(f"{unfree.name} {why}",
                       f"a free character of your claim ({free})" if free else
                       "a free character of your claim (you have none now; the moderators "
                       "add characters)",
                       f"assign {characters[0].name if characters else 'NAME'} to army {a.id}")
    if chosen is None:
        names = ", ".join(ch.name for ch in characters)
        raise Rejected(f"{claim.name} has no living character called "
                       f"{escape_md(order.commander, 100)}",
                       f"one of: {names}" if names else "a character (your claim has none; "
                       "the moderators add characters)",
                       f"assign {characters[0].name if characters else 'NAME'} to army {a.id}")
    if chosen.army_id == a.id:
        raise Rejected(f"{chosen.name} already commands army {a.id}", "another army", "status")
    notes: list[str] = []
    if chosen.army_id is not None:
        before = c.session.get(Army, chosen.army_id)
        if before is not None and before.commander_id == chosen.id:
            before.commander_id = None
            c.session.add(before)
            notes.append(f"{chosen.name} leaves army {before.id}, which has no commander now.")
    if a.commander_id is not None and a.commander_id != chosen.id:
        relieved = c.session.get(Character, a.commander_id)
        if relieved is not None and relieved.army_id == a.id:
            relieved.army_id = None
            c.session.add(relieved)
            notes.append(f"{relieved.name} is relieved of army {a.id}.")
    for other in c.session.exec(select(Character).where(Character.army_id == a.id)).all():
        if other.id != chosen.id:
            other.army_id = None
            c.session.add(other)
    chosen.army_id = a.id
    a.commander_id = chosen.id
    c.session.add(chosen)
    c.session.add(a)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "assign",
                      f"{chosen.name} takes command of army {a.id}", at=c.now,
                      claim_id=claim.id, actor=c.author,
                      data={"army": a.id, "character": chosen.id})
    catalogue = catalogue_of(c.session, c.ctx)
    skills = []
    for skill in chosen.skills_json:
        entry = catalogue.find(Section.SKILLS, str(skill))
        if entry is not None:
            skills.append(f"{entry.shown_as} ({entry.describe_effects()})"
                          + (" (secret)" if entry.hidden else ""))
    skill_text = ("Skills now with the army: " + "; ".join(skills)) if skills else \
        f"{chosen.name} has no skills in this campaign's catalogue."
    return "\n\n".join([f"**{chosen.name}** takes command of army {a.id}.", *notes, skill_text])


# --- blockade ---------------------------------------------------------------------------

def blockade(c: Call, order: o.Blockade) -> str:
    return decided(c, order)
