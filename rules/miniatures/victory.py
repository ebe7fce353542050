"""Game size and victory.

Suggested sizes are 30 (small), 40 (medium) and 50 points (large). The victory points needed to
win are 8, 10 and 12, and 2 more for every further 10 points. Sizes the text does not name are
read as: below 30 points, the small game's 8; between steps, only complete steps of 10 count
(45 points needs 10).

At the end of a round a player wins who has at least the needed points and more than every
opponent; after the sixth round the most points win, then the most army points left on the
battlefield, else a draw. A player with no combat units left is eliminated; when one player is
left, that player wins at once. Destroying an enemy combat unit earns 1 victory point; a unit
destroyed by its owner's own effect, or by no player's, earns each of its owner's opponents 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from rules.errors import InvalidInput

LAST_ROUND = 6


class GameSize(IntEnum):
    """The suggested game sizes, in army points."""

    SMALL = 30
    MEDIUM = 40
    LARGE = 50


def victory_points_to_win(army_points: int) -> int:
    """The victory points needed to win a game of ``army_points``. Raises InvalidInput for a
    size below 1 point."""
    if isinstance(army_points, bool) or not isinstance(army_points, int) or army_points < 1:
        raise InvalidInput("game_size", f"must be a positive number of points, not "
                           f"{army_points!r}", "e.g. 40")
    steps = max(0, (army_points - GameSize.SMALL) // 10)
    return 8 + 2 * steps


def destruction_points(owner: str, destroyed_by: str | None, players: Sequence[str]
                       ) -> dict[str, int]:
    """Victory points earned when a combat unit of ``owner`` is destroyed by ``destroyed_by``
    (None: an effect no player controls). Raises InvalidInput for unknown players."""
    if owner not in players:
        raise InvalidInput("owner", f"{owner!r} is not playing")
    if destroyed_by is not None and destroyed_by not in players:
        raise InvalidInput("destroyed_by", f"{destroyed_by!r} is not playing")
    if destroyed_by is None or destroyed_by == owner:
        return {p: 1 for p in players if p != owner}
    return {destroyed_by: 1}


class VictoryOutcome(StrEnum):
    """The state of the game after a check."""

    CONTINUE = "continue"
    WIN = "win"
    DRAW = "draw"


class VictoryReason(StrEnum):
    """Why the game ended (or did not)."""

    NOT_YET = "not_yet"
    VICTORY_POINTS = "victory_points"  # reached the target with the most points
    MOST_POINTS = "most_points"  # after the last round
    BATTLEFIELD = "battlefield"  # tied points, more army points left on the table
    ELIMINATION = "elimination"
    TIED = "tied"


@dataclass(frozen=True, slots=True)
class VictoryCheck:
    """The result of the end-of-round victory check."""

    outcome: VictoryOutcome
    reason: VictoryReason
    winner: str | None = None
    needed: int = 0
    eliminated: tuple[str, ...] = ()


def check_victory(
    scores: Mapping[str, int],
    *,
    army_points: int,
    round_number: int,
    units_left: Mapping[str, int] | None = None,
    battlefield_points: Mapping[str, int] | None = None,
) -> VictoryCheck:
    """Check for a winner at the end of ``round_number`` (1 to 6).

    ``units_left`` (combat units each player has on the table) enables elimination;
    ``battlefield_points`` breaks a tie after the last round and must be given then. Raises
    InvalidInput for fewer than two players, bad rounds, or a missing tie-breaker.
    """
    if len(scores) < 2:
        raise InvalidInput("scores", "needs at least two players")
    if not 1 <= round_number <= LAST_ROUND:
        raise InvalidInput("round", f"must be 1 to {LAST_ROUND}, not {round_number}")
    needed = victory_points_to_win(army_points)
    players = list(scores)
    eliminated: tuple[str, ...] = ()
    if units_left is not None:
        eliminated = tuple(p for p in players if units_left.get(p, 0) <= 0)
        standing = [p for p in players if p not in eliminated]
        if len(standing) == 1:
            return VictoryCheck(VictoryOutcome.WIN, VictoryReason.ELIMINATION, standing[0],
                                needed, eliminated)
        if not standing:
            return VictoryCheck(VictoryOutcome.DRAW, VictoryReason.TIED, None, needed,
                                eliminated)
        players = standing
    best = max(scores[p] for p in players)
    leaders = [p for p in players if scores[p] == best]
    if best >= needed and len(leaders) == 1:
        return VictoryCheck(VictoryOutcome.WIN, VictoryReason.VICTORY_POINTS, leaders[0],
                            needed, eliminated)
    if round_number < LAST_ROUND:
        return VictoryCheck(VictoryOutcome.CONTINUE, VictoryReason.NOT_YET, None, needed,
                            eliminated)
    if len(leaders) == 1:
        return VictoryCheck(VictoryOutcome.WIN, VictoryReason.MOST_POINTS, leaders[0], needed,
                            eliminated)
    if battlefield_points is None:
        raise InvalidInput("battlefield_points", "needed to break a tie after the last round",
                           "each tied player's army points left on the table")
    most = max(battlefield_points.get(p, 0) for p in leaders)
    top = [p for p in leaders if battlefield_points.get(p, 0) == most]
    if len(top) == 1:
        return VictoryCheck(VictoryOutcome.WIN, VictoryReason.BATTLEFIELD, top[0], needed,
                            eliminated)
    return VictoryCheck(VictoryOutcome.DRAW, VictoryReason.TIED, None, needed, eliminated)
