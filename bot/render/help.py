"""The answer to ``help`` and ``help ORDER``: every order with an example built from the
campaign's own map and the asker's own armies, holdfast and characters (the services pick the
names: :func:`bot.services.help.names_for`), and a link to the players' guide when one is set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from bot.text import name_code
from rules.campaign import orders as o
from rules.campaign.naming import force_name
from rules.campaign.paths import ArmyKind, format_path


@dataclass(frozen=True, slots=True)
class Names:
    """What the examples name, each ready for a code span: the asker's army, fleet, holdfast
    and character, a rival claim and its holdfast, a port, a resource tile, an improvement and
    an equipment."""

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


def names(*, army: int, fleet: int, home: str, rival: str | None, rival_holdfast: str,
          port: str, resource: str, character: str | None, improvement: str | None,
          equipment: str | None, march: Sequence[str] = (), march_cost: int = 0,
          sail: str | None = None, sail_cost: int | None = None) -> Names:
    """:class:`Names` from plain names (None: the campaign has none, a placeholder is shown);
    ``march``: the first tiles of a route for the army (empty: none) and their cost; ``sail``:
    a water tile next to the asker's fleet and its cost."""
    # every name goes into a code span of an example: name_code keeps the span whole
    path = (f"move army {army}: {format_path(name_code(t) for t in march)} (cost {march_cost})"
            if march else f"move army {army}: TILE > TILE (cost N)")
    return Names(
        army=army, fleet=fleet, home=name_code(home),
        rival=name_code(rival) if rival is not None else "CLAIM",
        rival_holdfast=name_code(rival_holdfast), port=name_code(port),
        resource=name_code(resource),
        character=name_code(character) if character is not None else "CHARACTER",
        improvement=name_code(improvement) if improvement is not None else "IMPROVEMENT",
        equipment=name_code(equipment) if equipment is not None else "EQUIPMENT", march=path,
        sail="" if sail is None else (f"move {force_name(ArmyKind.FLEET, fleet)}: "
                                      f"{format_path([name_code(sail)])} (cost {sail_cost})"))


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


def _guide(url: str) -> str:
    url = url.strip()
    return f"\n\nThe players' guide: {url}" if url else ""


def orders_help(n: Names, guide_url: str) -> str:
    """``help``: every order with its example."""
    lines = [f"- **{verb}**: {form.summary}. `{EXAMPLES[verb](n)}`"
             for verb, form in o.ORDER_FORMS.items()]
    return ("**Orders** (one per line; send `help ORDER` for one of them, e.g. "
            "`help move`):\n\n" + "\n".join(lines) + _guide(guide_url))


def order_help(verb: str, n: Names, guide_url: str) -> str:
    """``help ORDER``: the order ``verb`` (canonical) explained, with its example."""
    form = o.ORDER_FORMS[verb]
    also = f"\n\nAlso written: {', '.join(form.aliases)}." if form.aliases else ""
    fleet = (f"\n\nA fleet sails with the same order:\n\n    {n.sail}"
             if verb == "move" and n.sail else "")
    return (f"**{verb}**: {form.summary}.\n\nWrite it as: `{form.pattern}`\n\nFor example:"
            f"\n\n    {EXAMPLES[verb](n)}{fleet}{also}" + _guide(guide_url))
