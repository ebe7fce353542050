"""Forces made of several contingents: one side in battle, many bodies of troops.

A holdfast's defenders are every troop of its claim on the tile: the troops at home and every
army of the claim standing, mustering or back inside the walls there. They fight as one side;
the side's losses are then shared among the contingents in proportion to their numbers of each
troop type (largest remainder; ties go to the contingent listed first), so the shares always add
up to the side's losses and no contingent loses more than it had.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from rules.errors import InvalidInput


def split_losses(counts: Sequence[int], lost: int) -> tuple[int, ...]:
    """Share ``lost`` units among contingents of ``counts`` units, in proportion.

    Each share is the floor of its exact proportional part; the units left over go one each to
    the contingents with the largest remainders (the earlier one first on a tie). Raises
    InvalidInput for a negative count or more losses than units.
    """
    for i, count in enumerate(counts):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput(f"counts[{i}]", f"must be a whole number of at least 0, not "
                               f"{count!r}")
    total = sum(counts)
    if isinstance(lost, bool) or not isinstance(lost, int) or not 0 <= lost <= total:
        raise InvalidInput("lost", f"must be within 0..{total}, not {lost!r}")
    if total == 0:
        return tuple(0 for _ in counts)
    exact = [Fraction(count * lost, total) for count in counts]
    shares = [int(part) for part in exact]  # floor: parts are not negative
    left = lost - sum(shares)
    order = sorted(range(len(counts)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[:left]:
        shares[i] += 1
    return tuple(shares)
