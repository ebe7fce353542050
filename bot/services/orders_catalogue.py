"""Orders that use the campaign's catalogue, and the fleets' blockade.

``build IMPROVEMENT at HOLDFAST``, ``buy EQUIPMENT for army N``, ``assign COMMANDER to army N``
and ``blockade PORT with fleet N``. Listed in
:data:`bot.services.orders.HANDLERS` with every other order. Names the catalogue does not
know are refused with the list of valid ones.
"""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import col, select

from bot.db.models import Army, ArmyKind, ArmyState, Character, Claim, RelationStatus
from bot.services import journal
from bot.services.catalogue import (
    catalogue_of,
    entry_cost_text,
    equipment_names,
    improvement_records,
    living_characters,
    set_improvement_records,
)
from bot.services.order_call import Call, Rejected, active_siege
from bot.services.render import force
from bot.services.world import set_relation
from bot.text import escape_md
from rules.campaign import calendar
from rules.campaign import orders as o
from rules.campaign.catalogue import Catalogue, Entry, Section, UnknownEntry
from rules.campaign.naming import state_word
from rules.campaign.world import FREE_CHARACTERS, CharacterStatus


def _lookup(catalogue: Catalogue, section: Section, name: str, example: str) -> Entry:
    try:
        return catalogue.lookup(section, name)
    except UnknownEntry as exc:
        hint = f" (did you mean {exc.suggestion}?)" if exc.suggestion else ""
        valid = ", ".join(exc.valid)
        raise Rejected(
            f"there is no {section.singular} called {escape_md(name, 100)}{hint}",
            f"one of: {valid}" if valid else f"nothing: this campaign has no {section.value}",
            example.replace("{}", exc.suggestion or (exc.valid[0] if exc.valid else name)),
        ) from None


def _label(c: Call, tile_id: str) -> str:
    return c.ctx.world.tile(tile_id).label


def _money(value: Decimal) -> str:
    """Gold as players write it: ``2658``, ``12.5``."""
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    return format(value.normalize(), "f")


# --- build ------------------------------------------------------------------------------

def build(c: Call, order: o.Build) -> str:
    claim = c.require_claim()
    home = _label(c, claim.holdfast)
    catalogue = catalogue_of(c.session, c.ctx)
    entry = _lookup(catalogue, Section.IMPROVEMENTS, order.improvement,
                    "build {} at " + home)
    place = c.ctx.world.tile(order.holdfast)
    if place.id != claim.holdfast:
        raise Rejected(f"you can only build in your own holdfast, {home}, not "
                       f"{escape_md(place.label, 100)}", "your holdfast",
                       f"build {entry.name} at {home}")
    records = improvement_records(claim)
    for record in records:
        if str(record.get("name", "")).casefold() == entry.name.casefold():
            if record.get("done"):
                raise Rejected(f"{home} already has {entry.name}",
                               "an improvement not built yet", "status")
            ready = calendar.date_of_month_number(int(record["ready_month"]), c.ctx.rules)
            raise Rejected(f"{entry.name} is already being built at {home} (finished at the "
                           f"start of {calendar.format_game_date(ready)})",
                           "an improvement not built yet", "status")
    if claim.gold < entry.cost:
        raise Rejected(f"{entry.name} costs {entry_cost_text(entry)} and {claim.name} has "
                       f"{_money(claim.gold)}", "enough gold in the treasury", "status")
    month = calendar.month_number(c.now, c.ctx.rules)
    ready_month = month + entry.months
    claim.gold -= entry.cost
    records.append({"name": entry.name, "holdfast": claim.holdfast, "cost": str(entry.cost),
                    "ordered_tick": c.tick, "ready_month": ready_month, "done": False})
    set_improvement_records(claim, records)
    c.session.add(claim)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "build",
                      f"{claim.name} begins {entry.name} at {home}", at=c.now,
                      claim_id=claim.id, actor=c.author,
                      data={"name": entry.name, "cost": str(entry.cost),
                            "ready_month": ready_month})
    ready_date = calendar.date_of_month_number(ready_month, c.ctx.rules)
    ready_at = calendar.month_start(ready_date, c.ctx.rules)
    secret = ("\n\nOnly your claim and the moderators know of it: posts never name it."
              if entry.hidden else "")
    return (f"Building **{entry.name}** at {home} for {entry_cost_text(entry)} (gold left: "
            f"{_money(claim.gold)}).\n\n"
            f"- Effect: {entry.describe_effects()}\n"
            f"- Finished: when the month begins, {c.ctx.when(ready_at)}; you will get a "
            f"note{secret}")


# --- buy --------------------------------------------------------------------------------

def buy(c: Call, order: o.Buy) -> str:
    a = c.own_army(order.army)
    claim = c.require_claim()
    if a.kind == ArmyKind.FLEET:
        raise Rejected(f"fleet {a.id} carries no siege equipment", "a land army",
                       "status")
    catalogue = catalogue_of(c.session, c.ctx)
    entry = _lookup(catalogue, Section.EQUIPMENT, order.equipment,
                    "buy {} for army " + str(a.id))
    if order.quantity > 1:
        raise Rejected(f"an army can use only one {entry.name}: equipment of the same name "
                       "does not stack", "one of each kind of equipment",
                       f"buy {entry.name} for {force(a)}")
    if any(n.casefold() == entry.name.casefold() for n in equipment_names(a)):
        raise Rejected(f"{force(a)} already carries {entry.name}",
                       "equipment the army does not carry yet", "status")
    if claim.gold < entry.cost:
        raise Rejected(f"{entry.name} costs {entry_cost_text(entry)} and {claim.name} has "
                       f"{_money(claim.gold)}", "enough gold in the treasury", "status")
    claim.gold -= entry.cost
    a.equipment_json = [*a.equipment_json, {"name": entry.name, "cost": str(entry.cost),
                                            "bought_tick": c.tick}]
    c.session.add(claim)
    c.session.add(a)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "buy",
                      f"{claim.name} buys {entry.name} for {force(a)}", at=c.now,
                      claim_id=claim.id, actor=c.author,
                      data={"army": a.id, "name": entry.name, "cost": str(entry.cost)})
    return (f"{force(a, capital=True)} now carries **{entry.name}** "
            f"({entry_cost_text(entry)}; gold left: {_money(claim.gold)}).\n\n"
            f"- Effect: {entry.describe_effects()}\n"
            "- Siege equipment counts when the army besieges or assaults a holdfast.")


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
                       f"assign {characters[0].name if characters else 'NAME'} to {force(a)}")
    if chosen is None:
        names = ", ".join(ch.name for ch in characters)
        raise Rejected(f"{claim.name} has no living character called "
                       f"{escape_md(order.commander, 100)}",
                       f"one of: {names}" if names else "a character (your claim has none; "
                       "the moderators add characters)",
                       f"assign {characters[0].name if characters else 'NAME'} to {force(a)}")
    if chosen.army_id == a.id:
        raise Rejected(f"{chosen.name} already commands {force(a)}", "another army or fleet",
                       "status")
    notes: list[str] = []
    if chosen.army_id is not None:
        before = c.session.get(Army, chosen.army_id)
        if before is not None and before.commander_id == chosen.id:
            before.commander_id = None
            c.session.add(before)
            notes.append(f"{chosen.name} leaves {force(before)}, which has no commander now.")
    if a.commander_id is not None and a.commander_id != chosen.id:
        relieved = c.session.get(Character, a.commander_id)
        if relieved is not None and relieved.army_id == a.id:
            relieved.army_id = None
            c.session.add(relieved)
            notes.append(f"{relieved.name} is relieved of {force(a)}.")
    for other in c.session.exec(select(Character).where(Character.army_id == a.id)).all():
        if other.id != chosen.id:
            other.army_id = None
            c.session.add(other)
    chosen.army_id = a.id
    a.commander_id = chosen.id
    c.session.add(chosen)
    c.session.add(a)
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "assign",
                      f"{chosen.name} takes command of {force(a)}", at=c.now,
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
    return "\n\n".join([f"**{chosen.name}** takes command of {force(a)}.", *notes, skill_text])


# --- blockade ---------------------------------------------------------------------------

def _holdfast_owner(c: Call, tile_id: str) -> Claim | None:
    return c.session.exec(select(Claim).where(Claim.campaign_id == c.ctx.campaign_id,
                                              Claim.holdfast == tile_id)).first()


def blockade(c: Call, order: o.Blockade) -> str:
    fleet = c.own_army(order.fleet, "fleet")
    claim = c.require_claim()
    if fleet.kind != ArmyKind.FLEET:
        can_raise = c.ctx.world.tile(claim.holdfast).port and claim.ships > 0
        raise Rejected(f"army {fleet.id} is not a fleet", "one of your fleets"
                       + (" (muster ships at your port first)" if can_raise else ""),
                       f"muster {min(4, claim.ships)} ships" if can_raise else "status")
    port = c.ctx.world.tile(order.port)
    if not (port.holdfast and port.port):
        ports = ", ".join(t.label for t in c.ctx.world.ports() if t.holdfast)
        raise Rejected(f"{port.label} is not a port holdfast", f"one of: {ports}",
                       f"blockade {port.label} with fleet {fleet.id}")
    owner = _holdfast_owner(c, port.id)
    if owner is not None and owner.id == claim.id:
        raise Rejected(f"{port.label} is your own port", "the port holdfast of another claim",
                       "status")
    water = c.ctx.world.water_adjacent(port.id)
    if fleet.tile not in water or fleet.state != ArmyState.STANDING:
        where = ", ".join(water)
        raise Rejected(f"fleet {fleet.id} must stand on a water tile next to {port.label} "
                       f"({where}); it is {state_word(fleet.kind, fleet.state)} at "
                       f"{_label(c, fleet.tile)}",
                       "a standing fleet next to the port",
                       f"route {force(fleet)} to {water[0] if water else port.label}")
    if owner is not None:
        before = set_relation(c.session, c.ctx, claim.id or 0, owner.id or 0,
                              RelationStatus.WAR)
        if before is not RelationStatus.WAR:
            journal.log_event(c.session, c.ctx.campaign_id, c.tick, "war",
                              f"claims {claim.id} and {owner.id} are at war", at=c.now,
                              claim_id=claim.id, actor=c.author,
                              data={"claims": [claim.id, owner.id], "before": before.value})
    journal.log_event(c.session, c.ctx.campaign_id, c.tick, "blockade",
                      f"fleet {fleet.id} of {claim.name} blockades {port.label}", at=c.now,
                      claim_id=claim.id, actor=c.author, public=True,
                      data={"fleet": fleet.id, "port": port.id, "ships": fleet.ships})
    journal.queue(c.session, c.ctx.campaign_id, f"blockade:{fleet.id}:{port.id}:{c.tick}", "post",
                  title=c.ctx.settings.posts.siege_title.format(event="Blockade",
                                                                holdfast=port.label),
                  body=(f"The ships of **{claim.name}** close the harbour of **{port.label}**"
                        + (f", seat of {owner.name}," if owner is not None else "")
                        + f" in {c.ctx.when(c.now)}."),
                  flair=c.ctx.settings.posts.siege_flair, public=True, at=c.now, tick=c.tick,
                  target=c.ctx.settings.campaign.subreddit)
    if owner is None:
        return (f"**Fleet {fleet.id}** ({fleet.ships} ships) blockades {port.label}.\n\n"
                f"No claim holds {port.label}, so there is no siege to support; its harbour is "
                "closed all the same while the fleet stays on its tile.")
    journal.notify_claim(c.session, c.ctx.campaign_id, owner.id or 0,
                         f"blockaded:{fleet.id}:{port.id}:{c.tick}",
                         subject=f"{port.label} is blockaded",
                         body=(f"Fleet {fleet.id} of {claim.name} ({fleet.ships} ships) "
                               f"blockades {port.label}. Defeat it at sea to break the "
                               f"blockade: a siege of {port.label} pauses while it is broken."),
                         at=c.now, tick=c.tick)
    siege = active_siege(c.session, c.ctx, port.id)
    if siege is None:
        status = (f"No siege yet: {port.label} may now be besieged by an army of yours standing "
                  f"on it (`siege {port.label} with army N`). The blockade holds while the "
                  "fleet stays on its tile.")
    elif siege.besieger_claim == claim.id:
        paused = " It was paused while no ships held the blockade; it counts again from the " \
                 "next month." if siege.paused else ""
        status = (f"The siege of {port.label} goes on: {siege.months_elapsed} of "
                  f"{siege.months_required} months counted.{paused}")
    else:
        status = f"{port.label} is besieged by another claim; your blockade stands beside it."
    return f"**Fleet {fleet.id}** ({fleet.ships} ships) blockades {port.label}.\n\n{status}"
