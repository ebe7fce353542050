"""The answer to ``help`` and ``help ORDER``: the names its examples use, from this
campaign's own map and the asking player's own armies, holdfast and characters (never the demo
map's names on a custom map); the text, with a link to the players' guide when ``[posts]
guide_url`` is set, is :mod:`bot.render.help`'s."""

from __future__ import annotations

from bot.db.models import Claim
from bot.render.help import EXAMPLES, Names, order_help, orders_help
from bot.render.help import names as help_names
from bot.services.catalogue import catalogue_of, living_characters
from bot.services.order_call import Call, Rejected
from bot.services.world import all_claims, armies, relation
from bot.text import escape_md
from rules.campaign import orders as o
from rules.campaign.catalogue import Section
from rules.campaign.paths import ArmyKind, cheapest_route, entry_cost
from rules.campaign.world import RelationStatus
from rules.campaign.worldmap import Tile


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
    steps = min(3, len(route.tiles)) if route is not None else 0
    sail: Tile | None = None
    if fleet is not None and fleet.tile in world:
        sail = next((world.tile(n) for n in world.neighbours(fleet.tile)
                     if entry_cost(world.tile(n), ArmyKind.FLEET, c.ctx.rules) is not None), None)
    return help_names(
        army=army_id, fleet=fleet.id or 1 if fleet is not None else 1, home=home_tile.label,
        rival=rival.name if rival is not None else None, rival_holdfast=rival_tile.label,
        port=port.label, resource=resource.label,
        character=characters[0].name if characters else None,
        improvement=improvements[0].name if improvements else None,
        equipment=equipment[0].name if equipment else None,
        march=[t.label for t in route.tiles[:steps]] if route is not None else [],
        march_cost=sum(route.costs[:steps]) if route is not None else 0,
        sail=sail.label if sail is not None else None,
        sail_cost=entry_cost(sail, ArmyKind.FLEET, c.ctx.rules) if sail is not None else None)


def example_for(c: Call, verb: str) -> str:
    """The example of order ``verb`` made for the player of ``c`` (their own armies and this
    campaign's map), as ``help`` shows it; a reply to a line that could not be read uses it."""
    return EXAMPLES[verb](names_for(c))


def help_reply(c: Call, topic: str | None) -> str:
    """``help``: every order with its example; ``help ORDER``: that order explained."""
    names = names_for(c)
    url = c.ctx.settings.posts.guide_url
    if topic is None:
        return orders_help(names, url)
    verb = o.canonical_verb(topic)
    if verb is None:
        raise Rejected(f"there is no order called {escape_md(topic, 60)}",
                       f"one of: {', '.join(o.VERBS)}", "help move")
    return order_help(verb, names, url)
