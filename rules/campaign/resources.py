"""Resource tiles: which occupying claim receives the tile's benefit.

A standing army on a resource tile gains its benefit. When several claims occupy the tile, the
one with the highest army strength receives it, unless that claim lets another occupant take
it. Ties are broken deterministically: the claim already holding the benefit keeps it if it is
among the tied; otherwise the tied claim listed first wins (callers list occupants in the order
they arrived, so the earliest arrival wins). Claims with no strength do not occupy the tile.

A hostile newcomer does not take the benefit by arriving: while the holder still occupies the
tile, only claims not hostile to it compete with it (the benefit changes hands only
when the occupier is defeated or leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Protocol, TypeVar

from rules.campaign.config import RulesConfig
from rules.campaign.world import ArmyState
from rules.errors import InvalidInput

C = TypeVar("C", bound=Hashable)
Strength = int | Decimal | Fraction


def benefit_holder(
    occupants: Sequence[tuple[C, Strength]],
    ceded_to: C | None = None,
    *,
    holder: C | None = None,
    hostile: Callable[[C, C], bool] | None = None,
) -> C | None:
    """The claim that receives a resource tile's benefit, or None when nobody occupies it.

    ``occupants`` pairs each occupying claim with its army strength (one entry per claim, its
    armies on the tile already added up). ``ceded_to`` is the occupant the
    strongest claim lets take the benefit. ``holder`` is the claim holding it so far (for ties,
    and: while it occupies the tile, claims for which ``hostile(holder, claim)`` is true cannot
    take the benefit from it).
    Raises InvalidInput for a negative strength, a claim listed twice, or a ``ceded_to`` that
    does not occupy the tile.
    """
    strengths: dict[C, Strength] = {}
    for i, (claim, strength) in enumerate(occupants):
        if strength < 0:
            raise InvalidInput(f"occupants[{i}]", f"strength must not be negative, not {strength}")
        if claim in strengths:
            raise InvalidInput(f"occupants[{i}]", "lists a claim a second time")
        strengths[claim] = strength
    present = [claim for claim, strength in strengths.items() if strength > 0]
    if ceded_to is not None:
        if ceded_to not in present:
            raise InvalidInput("ceded_to", "the benefit can only pass to a claim on the tile")
        return ceded_to
    if not present:
        return None
    if holder is not None and holder in present and hostile is not None:
        present = [claim for claim in present if claim == holder or not hostile(holder, claim)]
    best = max(strengths[claim] for claim in present)
    tied = [claim for claim in present if strengths[claim] == best]
    if holder is not None and holder in tied:
        return holder
    return tied[0]


class Occupant(Protocol):
    """An army as :func:`tile_holder` reads it (the rules' army value or a stored army)."""

    @property
    def claim_id(self) -> int: ...
    @property
    def state(self) -> ArmyState: ...
    @property
    def infantry(self) -> int: ...
    @property
    def cavalry(self) -> int: ...
    @property
    def ships(self) -> int: ...
    @property
    def stationary_since(self) -> int | None: ...


def tile_holder(armies: Iterable[Occupant], rules: RulesConfig, *, recorded: int | None,
                ceded_to: int | None, hostile: Callable[[int, int], bool]) -> int | None:
    """The claim receiving a resource tile's benefit now, from the ``armies`` on the tile.

    The claims with standing armies there occupy it, each with its armies' strength by the
    battle weights, listed in the order they came (earliest standing first, then by claim:
    never by the armies' numbers);
    ``recorded`` is the holder so far, ``ceded_to`` the occupant the holder let have it (it
    counts only while that claim is still there): :func:`benefit_holder` decides.
    """
    standing = sorted((a for a in armies if a.state is ArmyState.STANDING),
                      key=lambda a: (a.stationary_since or 0, a.claim_id))
    strengths: dict[int, int] = {}
    for a in standing:
        strengths[a.claim_id] = strengths.get(a.claim_id, 0) + (
            a.infantry * rules.infantry_strength + a.cavalry * rules.cavalry_strength
            + a.ships * rules.ship_strength)
    if not strengths:
        return None
    ceded = ceded_to if ceded_to is not None and strengths.get(ceded_to, 0) > 0 else None
    return benefit_holder(list(strengths.items()), ceded, holder=recorded, hostile=hostile)
