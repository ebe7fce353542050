"""The answer to ``help`` and ``help ORDER``: every order, with examples built from this
campaign's own map and the asking player's own armies, holdfast and characters (never the demo
map's names on a custom map), and a link to the players' guide when ``[posts] guide_url`` is
set."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from bot.db.models import Claim
from bot.render.common import force
from bot.services.catalogue import catalogue_of, living_characters
from bot.services.order_call import Call, Rejected
from bot.services.world import all_claims, armies, relation
from bot.text import escape_md, name_code
from rules.campaign import orders as o
from rules.campaign.catalogue import Section
from rules.campaign.paths import ArmyKind, cheapest_route, entry_cost, format_path
from rules.campaign.world import RelationStatus


@dataclass(frozen=True, slots=True)
class Names:
    """What the examples name: the asker's army, fleet, holdfast and character, a rival
    claim and its holdfast, a port, a resource tile, an improvement and an equipment."""

    army: int
    fleet: int
    home: str
    rival: str
    rival_holdfast: str
    port: str
    resource: str
    character: str
    improvement: str
    equipment: str
    march: str  # a whole move order along the map, with its true cost
    sail: str = ""  # the same for the asker's fleet, when it has one


def _rival(c: Call, own: Claim | None, claims: list[Claim]) -> Claim | None:
    """Another claim to name in examples: one at war with the asker first."""
    others = [cl for cl in claims if own is None or cl.id != own.id]
    if own is not None:
        for other in others:
            if relation(c.session, c.ctx, own.id or 0, other.id or 0) is RelationStatus.WAR:
                return other
    return others[0] if others else None


def names_for(c: Call) -> Names:
    """The names of :class:`Names` for the player of ``c`` (or any claim's, for a stranger)."""
    world = c.ctx.world
    claims = [cl for cl in all_claims(c.session, c.ctx) if cl.holdfast in world]
    own = c.claim if c.claim is not None and c.claim.holdfast in world else None
    home_claim = own or (claims[0] if claims else None)
    holdfasts = [t for t in world if t.holdfast]
    home_tile = (world.tile(home_claim.holdfast) if home_claim is not None
                 else (holdfasts[0] if holdfasts else next(iter(world))))
    rival = _rival(c, home_claim, claims)
    rival_tile = world.tile(rival.holdfast) if rival is not None else home_tile
    ports = [world.tile(cl.holdfast) for cl in claims
             if home_claim is None or cl.id != home_claim.id]
    port = next((t for t in ports if t.port), rival_tile)
    resource = next((t for t in world if t.resource), home_tile)
    raised = list(armies(c.session, c.ctx, claim_id=own.id)) if own is not None else []
    land = next((a for a in raised if a.kind != ArmyKind.FLEET), None)
    fleet = next((a for a in raised if a.kind == ArmyKind.FLEET), None)
    characters = living_characters(c.session, c.ctx, own.id or 0) if own is not None else ()
    catalogue = catalogue_of(c.session, c.ctx)
    improvements = catalogue.section(Section.IMPROVEMENTS)
    equipment = catalogue.section(Section.EQUIPMENT)
    army_id = land.id or 1 if land is not None else 1
    start = world.tile(land.tile) if land is not None else home_tile
    route = cheapest_route(world, start.id, rival_tile.id, ArmyKind.LAND, c.ctx.rules)
    if route is not None and route.tiles:
        steps = min(3, len(route.tiles))
        path = format_path(name_code(t.label) for t in route.tiles[:steps])
        march = f"move army {army_id}: {path} (cost {sum(route.costs[:steps])})"
    else:
        march = f"move army {army_id}: TILE > TILE (cost N)"
    sail = ""
    if fleet is not None and fleet.tile in world:
        waters = [n for n in world.neighbours(fleet.tile)
                  if entry_cost(world.tile(n), ArmyKind.FLEET, c.ctx.rules) is not None]
        if waters:
            cost = entry_cost(world.tile(waters[0]), ArmyKind.FLEET, c.ctx.rules)
            sail = (f"move {force(fleet)}: {format_path([name_code(world.tile(waters[0]).label)])} "
                    f"(cost {cost})")
    return Names(
        sail=sail,
        # every name goes into a code span of an example: name_code keeps the span whole
        army=army_id, fleet=fleet.id or 1 if fleet is not None else 1,
        home=name_code(home_tile.label),
        rival=name_code(rival.name) if rival is not None else "CLAIM",
        rival_holdfast=name_code(rival_tile.label),
        port=name_code(port.label), resource=name_code(resource.label),
        character=name_code(characters[0].name) if characters else "CHARACTER",
        improvement=name_code(improvements[0].name) if improvements else "IMPROVEMENT",
        equipment=name_code(equipment[0].name) if equipment else "EQUIPMENT", march=march)


EXAMPLES: Mapping[str, Callable[[Names], str]] = MappingProxyType({
    "muster": lambda n: "muster 300 infantry 50 cavalry",
    "move": lambda n: n.march,
    "attack": lambda n: f"attack army 5 with army {n.army}",
    "intercept": lambda n: f"intercept army 5 with army {n.army}",
    "siege": lambda n: f"siege {n.rival_holdfast} with army {n.army}",
    "assault": lambda n: f"assault {n.rival_holdfast} with army {n.army}",
    "sally": lambda n: f"sally from {n.home} with army {n.army}",
    "lift": lambda n: f"lift siege of {n.rival_holdfast}",
    "retreat": lambda n: f"retreat army {n.army}",
    "stand": lambda n: f"stand army {n.army}",
    "spare": lambda n: "spare army 5",
    "cancel": lambda n: f"cancel army {n.army}",
    "route": lambda n: f"route army {n.army} to {n.rival_holdfast}",
    "status": lambda n: "status",
    "odds": lambda n: f"odds army {n.army} vs army 5",
    "build": lambda n: f"build {n.improvement} at {n.home}",
    "buy": lambda n: f"buy {n.equipment} for army {n.army}",
    "assign": lambda n: f"assign {n.character} to army {n.army}",
    "blockade": lambda n: f"blockade {n.port} with fleet {n.fleet}",
    "cede": lambda n: f"cede {n.resource} to {n.rival}",
    "disband": lambda n: f"disband army {n.army}",
    "help": lambda n: "help move",
})
"""One example per order word (a test checks every order has one), from :class:`Names`."""


def example_for(c: Call, verb: str) -> str:
    """The example of order ``verb`` made for the player of ``c`` (their own armies and this
    campaign's map), as ``help`` shows it; a reply to a line that could not be read uses it."""
    return EXAMPLES[verb](names_for(c))


def _guide(c: Call) -> str:
    url = c.ctx.settings.posts.guide_url.strip()
    return f"\n\nThe players' guide: {url}" if url else ""


def help_reply(c: Call, topic: str | None) -> str:
    """``help``: every order with its example; ``help ORDER``: that order explained."""
    names = names_for(c)
    if topic is None:
        lines = [f"- **{verb}**: {form.summary}. `{EXAMPLES[verb](names)}`"
                 for verb, form in o.ORDER_FORMS.items()]
        return ("**Orders** (one per line; send `help ORDER` for one of them, e.g. "
                "`help move`):\n\n" + "\n".join(lines) + _guide(c))
    verb = o.canonical_verb(topic)
    if verb is None:
        raise Rejected(f"there is no order called {escape_md(topic, 60)}",
                       f"one of: {', '.join(o.VERBS)}", "help move")
    form = o.ORDER_FORMS[verb]
    also = f"\n\nAlso written: {', '.join(form.aliases)}." if form.aliases else ""
    fleet = (f"\n\nA fleet sails with the same order:\n\n    {names.sail}"
             if verb == "move" and names.sail else "")
    return (f"**{verb}**: {form.summary}.\n\nWrite it as: `{form.pattern}`\n\nFor example:"
            f"\n\n    {EXAMPLES[verb](names)}{fleet}{also}" + _guide(c))
