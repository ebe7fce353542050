"""The example of every order, made for the player who asks: their own army, fleet, holdfast and
character, a rival at war with them, this campaign's map (never the demo map's names on a
custom map), a march along it with its true cost.

:func:`example_names` chooses what the examples name from values the services read;
:data:`EXAMPLES` writes each order's example from them (one per order word). ``help`` and the
replies to unreadable lines render them (``bot.services.help``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from rules.campaign.catalogue import Catalogue, Section
from rules.campaign.config import RulesConfig
from rules.campaign.language.lines import SHORT_LIST_VERBS
from rules.campaign.naming import force_name
from rules.campaign.paths import ArmyKind, cheapest_route, first_step, format_path
from rules.campaign.worldmap import WorldMap
from rules.text import name_code


class NamedClaim(Protocol):
    """A claim as the examples need it (a stored claim or the rules' value)."""

    @property
    def id(self) -> int | None: ...

    @property
    def name(self) -> str: ...

    @property
    def holdfast(self) -> str: ...


class PlacedForce(Protocol):
    """An army or fleet as the examples need it."""

    @property
    def id(self) -> int | None: ...

    @property
    def kind(self) -> ArmyKind: ...

    @property
    def tile(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Names:
    """What the examples name: the asker's army, fleet, holdfast and character, a rival
    claim and its holdfast, a port, a resource tile, an improvement and an equipment; each
    ready for a code span (:func:`rules.text.name_code`)."""

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


def step_order(world: WorldMap, force: str, step: tuple[str, int]) -> str:
    """The move order of ``force`` (``army 3``) one step, to :func:`first_step`'s tile."""
    return f"move {force}: {format_path([name_code(world.tile(step[0]).label)])} (cost {step[1]})"


def _rival(own: NamedClaim | None, claims: Sequence[NamedClaim],
           at_war: Callable[[int, int], bool]) -> NamedClaim | None:
    """Another claim to name: one at war with the asker first."""
    others = [cl for cl in claims if own is None or cl.id != own.id]
    if own is not None:
        for other in others:
            if at_war(own.id or 0, other.id or 0):
                return other
    return others[0] if others else None


def example_names(world: WorldMap, rules: RulesConfig, *, own: NamedClaim | None,
                  claims: Sequence[NamedClaim], at_war: Callable[[int, int], bool],
                  forces: Sequence[PlacedForce] = (), characters: Sequence[str] = (),
                  catalogue: Catalogue | None = None) -> Names:
    """The :class:`Names` for the player of claim ``own`` (None: a stranger, shown any
    claim's): ``claims`` of the campaign, ``forces`` and ``characters`` (free ones) of the
    asker, the campaign's ``catalogue``; ``at_war(a, b)`` says whether two claims are at war.
    Claims whose holdfast is not on the map are not named."""
    claims = [cl for cl in claims if cl.holdfast in world]
    own = own if own is not None and own.holdfast in world else None
    home_claim = own or (claims[0] if claims else None)
    holdfasts = [t for t in world if t.holdfast]
    home_tile = (world.tile(home_claim.holdfast) if home_claim is not None
                 else (holdfasts[0] if holdfasts else next(iter(world))))
    rival = _rival(home_claim, claims, at_war)
    rival_tile = world.tile(rival.holdfast) if rival is not None else home_tile
    ports = [world.tile(cl.holdfast) for cl in claims
             if home_claim is None or cl.id != home_claim.id]
    port = next((t for t in ports if t.port), rival_tile)
    resource = next((t for t in world if t.resource), home_tile)
    raised = list(forces) if own is not None else []
    land = next((a for a in raised if a.kind != ArmyKind.FLEET), None)
    fleet = next((a for a in raised if a.kind == ArmyKind.FLEET), None)
    named = list(characters) if own is not None else []
    catalogue = catalogue or Catalogue()
    improvements = catalogue.section(Section.IMPROVEMENTS)
    equipment = catalogue.section(Section.EQUIPMENT)
    army_id = land.id or 1 if land is not None else 1
    start = world.tile(land.tile) if land is not None and land.tile in world else home_tile
    route = cheapest_route(world, start.id, rival_tile.id, ArmyKind.LAND, rules)
    if route is not None and route.tiles:
        steps = min(3, len(route.tiles))
        path = format_path(name_code(t.label) for t in route.tiles[:steps])
        march = f"move army {army_id}: {path} (cost {sum(route.costs[:steps])})"
    else:  # the rival is out of reach: one step anywhere
        step = first_step(world, rules, ArmyKind.LAND, start.id)
        march = (step_order(world, f"army {army_id}", step) if step is not None
                 else f"move army {army_id}: TILE > TILE (cost N)")
    sail = ""
    if fleet is not None and fleet.tile in world:
        step = first_step(world, rules, ArmyKind.FLEET, fleet.tile)
        if step is not None:
            sail = step_order(world, force_name(fleet.kind, fleet.id or 0), step)
    return Names(
        sail=sail,
        army=army_id, fleet=fleet.id or 1 if fleet is not None else 1,
        home=name_code(home_tile.label),
        rival=name_code(rival.name) if rival is not None else "CLAIM",
        rival_holdfast=name_code(rival_tile.label),
        port=name_code(port.label), resource=name_code(resource.label),
        character=name_code(named[0]) if named else "CHARACTER",
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
    "away": lambda n: "away until 2027-01-10 travelling for work",
    "link": lambda n: "link",
    "webhook": lambda n: "webhook https://discord.com/api/webhooks/123456789012345678/"
                         "AbCdEf-GhIjKl_MnOp",
    "help": lambda n: "help move",
})
"""One example per order word (a test checks every order has one), from :class:`Names`."""


def short_examples(n: Names) -> str:
    """The few examples shown under a line that names no order (one per line), made from
    ``n`` as :data:`EXAMPLES` makes them."""
    return "\n".join(EXAMPLES[verb](n) for verb in SHORT_LIST_VERBS)
