"""The catalogue of order forms: how each order is written (its word, synonyms, shape,
example and summary), as the players' guide and the replies show it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from rules.campaign.language.values import fold

# --------------------------------------------------------------------------------------------
# The catalogue of order forms


@dataclass(frozen=True, slots=True)
class OrderForm:
    """How one order is written: its word, accepted synonyms, shape, an example, a summary."""

    verb: str
    aliases: tuple[str, ...]
    pattern: str
    example: str
    summary: str


_FORMS: tuple[OrderForm, ...] = (
    OrderForm(
        "muster",
        ("raise", "levy", "recruit"),
        "muster N infantry N cavalry, or muster N ships at PORT",
        "muster 300 infantry 50 cavalry",
        "raise troops (or ships) at your holdfast",
    ),
    OrderForm(
        "move",
        ("march", "sail", "travel"),
        "move army N: TILE > TILE > TILE (cost N)",
        "move army 2: Winterfell > 0412 > 0413 > 0513 (cost 7)",
        "march an army (or sail a fleet) along a path, stating its total travel cost",
    ),
    OrderForm(
        "attack",
        ("engage",),
        "attack army N with army N",
        "attack army 5 with army 2",
        "attack an enemy army on your army's tile",
    ),
    OrderForm(
        "intercept",
        ("waylay",),
        "intercept army N with army N",
        "intercept army 5 with army 2",
        "stop an enemy force your watchers sighted, with your army standing there",
    ),
    OrderForm(
        "siege",
        ("besiege", "lay siege to"),
        "siege HOLDFAST with army N",
        "siege Riverrun with army 2",
        "begin a siege of the holdfast your army stands on",
    ),
    OrderForm(
        "assault",
        ("storm",),
        "assault HOLDFAST with army N",
        "assault Riverrun with army 2",
        "storm a holdfast instead of starving it out",
    ),
    OrderForm(
        "sally",
        ("sally forth", "sortie"),
        "sally from HOLDFAST [with army N]",
        "sally from Riverrun with army 4",
        "ride out of a besieged holdfast to fight the besiegers",
    ),
    OrderForm(
        "lift",
        ("end siege",),
        "lift siege of HOLDFAST",
        "lift siege of Riverrun",
        "end your siege of a holdfast (your army stays on the tile, standing)",
    ),
    OrderForm(
        "retreat",
        ("withdraw", "fall back"),
        "retreat army N [: PATH | to TILE]",
        "retreat army 2",
        "refuse battle and fall back along the path travelled (or a path you give)",
    ),
    OrderForm(
        "stand",
        ("stand firm",),
        "stand army N",
        "stand army 2",
        "accept battle instead of retreating",
    ),
    OrderForm(
        "spare",
        (),
        "spare army N",
        "spare army 5",
        "after an enemy's failed retreat, let it stay instead of fighting",
    ),
    OrderForm(
        "cancel",
        ("abort", "revoke", "call off"),
        "cancel army N",
        "cancel army 2",
        "call off a march, a muster or an assault before it happens",
    ),
    OrderForm(
        "route",
        ("path",),
        "route army N to TILE",
        "route army 2 to Riverrun",
        "ask for the cheapest path and its cost (changes nothing)",
    ),
    OrderForm(
        "status",
        (),
        "status",
        "status",
        "show your claim's gold, troops and armies (changes nothing)",
    ),
    OrderForm(
        "odds",
        ("chances", "compare"),
        "odds army N vs army N",
        "odds army 2 vs army 5",
        "show the battle odds between two armies (changes nothing)",
    ),
    OrderForm(
        "build",
        ("construct",),
        "build IMPROVEMENT at HOLDFAST",
        "build Stone Walls at Winterfell",
        "build an improvement in one of your holdfasts",
    ),
    OrderForm(
        "buy",
        ("purchase",),
        "buy [N] EQUIPMENT for army N",
        "buy trebuchets for army 2",
        "buy siege equipment for an army",
    ),
    OrderForm(
        "assign",
        ("appoint",),
        "assign COMMANDER to army N",
        "assign Ser Brynden Tully to army 2",
        "put one of your characters in command of an army",
    ),
    OrderForm(
        "blockade",
        (),
        "blockade PORT with fleet N",
        "blockade Pyke with fleet 3",
        "close a port holdfast with a fleet on an adjacent water tile",
    ),
    OrderForm(
        "cede",
        ("yield",),
        "cede RESOURCE TILE to CLAIM",
        "cede The Wolfswood to House Manderly",
        "let another claim standing on a resource tile take its benefit",
    ),
    OrderForm(
        "disband",
        ("dismiss",),
        "disband army N",
        "disband army 2",
        "send an army's troops home (the army must be at its holdfast)",
    ),
    OrderForm(
        "away",
        ("leave",),
        "away until YYYY-MM-DD [reason]",
        "away until 2027-01-10 travelling for work",
        "announce a leave: your claim is not marked inactive until then",
    ),
    OrderForm(
        "link",
        (),
        "link",
        "link",
        "get the private address of your claim's war room on the web (changes nothing)",
    ),
    OrderForm(
        "webhook",
        ("discord",),
        "webhook URL | webhook off",
        "webhook https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOp",
        "send your claim's private news to a Discord channel's webhook as well (changes "
        "nothing in the game)",
    ),
    OrderForm(
        "help",
        (),
        "help [ORDER]",
        "help move",
        "list the orders, or explain one",
    ),
)

ORDER_FORMS: Mapping[str, OrderForm] = MappingProxyType({form.verb: form for form in _FORMS})
"""Every order form by canonical verb, in the order the players' guide lists them."""

VERBS: tuple[str, ...] = tuple(ORDER_FORMS)
"""The canonical order words."""

ALIASES: dict[str, str] = {}
for _form in _FORMS:
    ALIASES[_form.verb] = _form.verb
    for _alias in _form.aliases:
        ALIASES[_alias] = _form.verb

# Single words only: did-you-mean compares the first word of a line with these.
SINGLE_WORDS: tuple[str, ...] = tuple(a for a in ALIASES if " " not in a)

SHORT_LIST_VERBS = ("muster", "move", "attack", "siege", "status", "help")
"""The orders shown as examples under a line that names no order (one each)."""
VERB_LIST = ", ".join(VERBS)
SHORT_EXAMPLES = "\n".join(ORDER_FORMS[v].example for v in SHORT_LIST_VERBS)



def canonical_verb(word: str) -> str | None:
    """The canonical order word for ``word`` (any case, synonyms allowed), or None.

    Used by help topics: ``canonical_verb("March") == "move"``.
    """
    return ALIASES.get(fold(word))


