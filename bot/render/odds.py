"""The answer to the ``!odds`` command: the exact odds of two forces a player describes (a
module of its own, light to import: the command runs without the campaign's other texts)."""

from __future__ import annotations

from rules.campaign.battle import Side, Sides, armies_of
from rules.campaign.config import Terrain
from rules.campaign.odds import Odds


def _side_text(side: Sides) -> str:
    """One described side: its armies joined by ``+``."""
    return " + ".join(_army_text(a) for a in armies_of(side))


def _army_text(side: Side) -> str:
    bits = [f"{n} {k}" for n, k in ((side.infantry, "infantry"), (side.cavalry, "cavalry"),
                                    (side.ships, "ships")) if n]
    where = f" on {side.terrain.value} (stationary)" if side.stationary else ""
    return ", ".join(bits) + where


def odds_reply(attacker: Sides, defender: Sides, odds: Odds, *, ignored: Terrain | None) -> str:
    """The answer to ``!odds``: two described forces' exact odds (``ignored``: the terrain the
    player gave the attacker, which never counts for it)."""
    win = odds.attacker_win
    note = (f" The attacker never has the defender's terrain bonus, so \"on "
            f"{ignored.value}\" does not count for it." if ignored is not None else "")
    return (f"**Attacker** (the side before `vs`) {_side_text(attacker)} vs **defender** "
            f"{_side_text(defender)}:{note}\n\n"
            f"- attacker wins **{float(win) * 100:.1f}%** (exactly {win})\n"
            f"- defender wins **{float(1 - win) * 100:.1f}%**\n"
            f"- expected attacker losses: {float(odds.attacker_losses.infantry):.0f} infantry, "
            f"{float(odds.attacker_losses.cavalry):.0f} cavalry; defender losses: "
            f"{float(odds.defender_losses.infantry):.0f} infantry, "
            f"{float(odds.defender_losses.cavalry):.0f} cavalry\n\n"
            "The campaign's rules, without commanders or modifiers.")
