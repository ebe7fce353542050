"""Who holds each holdfast, and claims' seats (docs/rules.md "Holdfasts change hands").

A holdfast is held by the claim whose seat it is, unless the world records another holder for
its tile (``World.holders``, the same record as a resource tile's: a holdfast that fell, or
that the moderators gave, to a claim; ``claim_id`` None: nobody holds it). A map holdfast that
is nobody's seat and has no record is unheld: any claim may besiege it without a war, against
its neutral garrison from the map file (:attr:`rules.campaign.worldmap.Tile.garrison`).

A claim's seat (:attr:`~rules.campaign.world.ClaimState.holdfast`) is where its troops live
and muster. A claim whose seat another claim now holds has no seat: it cannot muster until the
moderators give it one.

Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from rules.campaign.improvements import move_improvements
from rules.campaign.world import ClaimState, HolderState, World

__all__ = ["NEUTRAL", "Given", "change_hands", "give_holdfast", "has_seat", "holder_of",
           "release_holdfasts"]

NEUTRAL = 0
"""The defending claim of a siege or an assault of a holdfast nobody holds."""


def holder_of(world: World, tile: str) -> int | None:
    """The claim that holds holdfast ``tile`` (None: nobody)."""
    row = world.holders.get(tile)
    if row is not None:
        return row.claim_id
    return next((c.id for c in world.claims.values() if c.holdfast == tile), None)


def has_seat(world: World, claim: ClaimState) -> bool:
    """Whether ``claim`` still holds its seat (it may muster there)."""
    return bool(claim.holdfast) and holder_of(world, claim.holdfast) == claim.id


def change_hands(world: World, tile: str, claim_id: int | None) -> World:
    """The world with holdfast ``tile`` held by ``claim_id`` (None: by nobody). When a claim
    takes it from another, the improvements built (or being built) there go with it
    (:func:`rules.campaign.improvements.move_improvements`)."""
    before = holder_of(world, tile)
    claims = world.claims
    if (claim_id is not None and before is not None and before != claim_id
            and claim_id in claims and before in claims):
        kept, taken = move_improvements(claims[before].improvements,
                                        claims[claim_id].improvements, tile)
        claims = {**claims, before: replace(claims[before], improvements=kept),
                  claim_id: replace(claims[claim_id], improvements=taken)}
    return replace(world, claims=claims,
                   holders={**world.holders, tile: HolderState(tile, claim_id)})


def release_holdfasts(world: World, claim_id: int,
                      tiles: Iterable[str]) -> tuple[World, tuple[str, ...]]:
    """The world in which nobody holds the holdfasts among ``tiles`` that ``claim_id`` held
    (a retired claim's seat and conquests become unheld: any claim may besiege them without a
    war, against their neutral garrison), and the tiles released, in the order given."""
    released = tuple(tile for tile in tiles if holder_of(world, tile) == claim_id)
    for tile in released:
        world = change_hands(world, tile, None)
    return world, released


@dataclass(frozen=True, slots=True)
class Given:
    """A moderator gave holdfast ``tile`` to claim ``claim_id`` (``seat``: as its seat).
    ``before``: who held it; ``seat_lost``: the claim whose seat it was and that has none now
    (None: nobody lost a seat)."""

    tile: str
    claim_id: int
    seat: bool
    before: int | None
    seat_lost: int | None


def give_holdfast(world: World, tile: str, claim_id: int, *, seat: bool) -> tuple[World, Given]:
    """Holdfast ``tile`` is held by ``claim_id`` from now on (``seat``: and it is its seat,
    where its troops live and muster; its old seat, if it still held it, stays its own). A
    claim whose seat ``tile`` was loses it. Raises KeyError for an unknown claim."""
    claim = world.claims[claim_id]
    before = holder_of(world, tile)
    lost = next((c.id for c in world.claims.values()
                 if c.holdfast == tile and c.id != claim_id and before == c.id), None)
    if seat and claim.holdfast != tile:
        old = claim.holdfast
        if old and holder_of(world, old) == claim_id:  # keeps holding its old seat
            world = change_hands(world, old, claim_id)
        world = replace(world, claims={**world.claims, claim_id: replace(claim, holdfast=tile)})
    world = change_hands(world, tile, claim_id)
    return world, Given(tile, claim_id, seat, before, lost)
