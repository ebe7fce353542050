"""How players read an army or a fleet: one place for the words.

A fleet is a fleet everywhere a player reads about it: "Fleet 6 is ready", "fleet 6 will sail",
"sailing to Pyke"; an army marches. Every receipt, note, post, status line and refusal names a
force through :func:`force_name` (and says how it travels with :func:`travel`), so the two
kinds are never mixed up. A force whose kind is unknown (a number that matches nothing) is an
"army or fleet".
"""

from __future__ import annotations

from typing import Literal

from rules.campaign.paths import ArmyKind
from rules.campaign.world import ArmyState

Form = Literal["base", "s", "ing", "ed", "noun"]

_TRAVEL: dict[ArmyKind, dict[Form, str]] = {
    ArmyKind.LAND: {"base": "march", "s": "marches", "ing": "marching", "ed": "marched",
                    "noun": "march"},
    ArmyKind.FLEET: {"base": "sail", "s": "sails", "ing": "sailing", "ed": "sailed",
                     "noun": "voyage"},
}


def force_noun(kind: ArmyKind | None, *, plural: bool = False, article: bool = False) -> str:
    """``army``/``fleet`` (``armies``/``fleets``, or ``an army``/``a fleet``); ``army or
    fleet`` when the kind is unknown."""
    if article:
        return "a fleet" if kind is ArmyKind.FLEET else "an army"
    if kind is None:
        return "armies or fleets" if plural else "army or fleet"
    if kind is ArmyKind.FLEET:
        return "fleets" if plural else "fleet"
    return "armies" if plural else "army"


def force_name(kind: ArmyKind | None, number: int, *, capital: bool = False) -> str:
    """``army 3`` or ``fleet 3`` (``Army 3``/``Fleet 3`` at the start of a sentence)."""
    text = f"{force_noun(kind)} {number}"
    return text[0].upper() + text[1:] if capital else text


def host(kind: ArmyKind | None) -> str:
    """The word of public posts and notes for a force seen from afar: ``host`` or ``fleet``."""
    return "fleet" if kind is ArmyKind.FLEET else "host"


def travel(kind: ArmyKind | None, form: Form = "base") -> str:
    """How a force travels: ``march``/``marches``/``marching``/``marched`` (and the noun
    ``march``) for an army, ``sail``/``sails``/``sailing``/``sailed`` (``voyage``) for a fleet."""
    return _TRAVEL[ArmyKind.FLEET if kind is ArmyKind.FLEET else ArmyKind.LAND][form]


def state_word(kind: ArmyKind | None, state: ArmyState) -> str:
    """An army state as players read it: a fleet's ``marching`` is ``sailing``."""
    if state == ArmyState.MARCHING:
        return travel(kind, "ing")
    return str(state)
