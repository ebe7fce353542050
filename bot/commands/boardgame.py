"""``!combat``: resolve one combat of A Game of Thrones: The Board Game (2nd edition).

The text is read by :func:`rules.boardgame.notation.parse_setup` and resolved by
:func:`rules.boardgame.combat.resolve_combat`; this module only turns errors into
:class:`CommandError` and the result into markdown. ``!housecard`` shows the House cards.
"""

from __future__ import annotations

from bot.commands.registry import CommandContext, CommandError, command
from bot.text import escape_md
from rules.boardgame.cards import CARDS_BY_HOUSE, find_card
from rules.boardgame.combat import (
    CombatResult,
    Decision,
    MarchOrderFate,
    RetreatStatus,
    SideResult,
    resolve_combat,
)
from rules.boardgame.model import (
    CombatSetup,
    House,
    HouseCard,
    OrderKind,
    Role,
    Structure,
    SupportTo,
    Units,
    Upgrade,
    parse_house,
)
from rules.boardgame.notation import format_setup, parse_setup
from rules.errors import InvalidInput, RulesError

EXAMPLE = ("!combat attacker Lannister 2 knights 1 footman march +1 card Tywin Lannister vs "
           "defender Stark 2 footmen defense +1 card Catelyn Stark")
SYNTAX = (
    "`!combat [attacker] HOUSE UNITS [march +1|+0|-1] [card NAME|S/W/F] vs [defender] HOUSE "
    "UNITS [defense +1|+2] [card NAME|S/W/F]`, then optionally `; in sea|castle|stronghold`, "
    "`; garrison N`, `; support HOUSE UNITS [+1] for attacker|defender|refused [from AREA]`, "
    "`; fiefdoms HOUSE HOUSE ...`, `; throne HOUSE ...`, `blade` (in the holder's part), "
    "`; area NAME land|sea|port [enemy] [friendly N] [max N] [origin]`, `; retreat AREA`"
)
CARD_EXAMPLE = "!housecard Tywin"


def _fail(err: RulesError) -> CommandError:
    if isinstance(err, InvalidInput):
        problem = f"{err.field}: {err.message}"
        expected = err.expected or SYNTAX
    else:
        problem, expected = str(err), SYNTAX
    return CommandError(escape_md(problem, 400), escape_md(expected, 900), EXAMPLE)


@command("combat", aliases=("agot", "bgcombat", "battle-bg", "agotcombat", "clash"),
         example=EXAMPLE)
def combat_command(cmd_ctx: CommandContext, args: str) -> str:
    """Resolve a combat of A Game of Thrones: The Board Game (2nd edition).

    Write the attacker (house, units, March order, House card), `vs`, then the defender
    (house, units, Defense order, card); both sides must play a card. Units: `2 footmen`,
    `1 knight`, `3 ships`, `1 siege`, `1 routed footman`. Cards by name (`Tywin`, `card The
    Hound`) or numbers `card 3/1/0` (strength/swords/fortifications). Anything else can follow,
    separated by `;`: `in sea`, `in castle`, `in stronghold`, `garrison 2`, `support Baratheon
    1 knight +1 for defender from Blackwater` (inside a side's part a support backs that side;
    `refused` for none), `blade` in the holder's part (`blade unused`, `blade spent`),
    `fiefdoms Stark Lannister ...` (needed on a tie), `throne ...` (for Stannis), `discard
    Stannis Baratheon` (the discard pile), `area Riverrun land friendly 2 max 3` (retreat
    areas: `enemy`, `origin`, `transport`, `sea`, `port`), `retreat Riverrun`, `casualties 1
    knight`. Card choices: `cancel` and `instead CARD` (Tyrion), `remove AREA` (Queen of
    Thorns), `track fiefdoms` (Doran), `upgrade none` (Renly), `discards CARD` (Patchface),
    `power N` (Aeron).

    Example: `!combat attacker Lannister 2 knights 1 footman march +1 card Tywin Lannister vs
    defender Stark 2 footmen defense +1 card Catelyn Stark`
    """
    del cmd_ctx
    try:
        setup = parse_setup(args)
        result = resolve_combat(setup)
    except RulesError as err:
        raise _fail(err) from err
    return render_result(result, setup)


@command("housecard", aliases=("housecards", "hcard"), example=CARD_EXAMPLE)
def housecard_command(cmd_ctx: CommandContext, args: str) -> str:
    """Show a House card of the base game, or all seven of a house.

    Example: `!housecard Tywin` or `!housecard Greyjoy`.
    """
    del cmd_ctx
    text = args.strip()
    if not text:
        raise CommandError("no card or house named", "a card name or a house",
                           CARD_EXAMPLE)
    try:
        house = parse_house(text)
    except InvalidInput:
        house = None
    if house is not None:
        lines = [f"**House {house.display}'s cards**", "",
                 "| Card | Strength | Swords | Fortifications | Text |",
                 "|:--|--:|--:|--:|:--|"]
        lines += [_card_row(c) for c in CARDS_BY_HOUSE[house]]
        return "\n".join(lines)
    try:
        card = find_card(text)
    except InvalidInput as err:
        # Not _fail: that answers with the !combat syntax and example, not this command's.
        houses = ", ".join(h.display for h in House)
        raise CommandError(escape_md(f"{err.message} (nor a house)", 200),
                           escape_md(f"a house ({houses}) or one of its cards: {err.expected}",
                                     900), CARD_EXAMPLE) from err
    assert card.house is not None
    return (f"**{card.name}** ({card.house.display}): strength {card.strength}, "
            f"{_icons(card.swords, card.fortifications)}.\n\n{card.summary}")


def _card_row(card: HouseCard) -> str:
    return (f"| {card.name} | {card.strength} | {card.swords} | {card.fortifications} | "
            f"{card.summary} |")


def _icons(swords: int, forts: int) -> str:
    return (f"{swords} sword{'s' * (swords != 1)}, "
            f"{forts} fortification{'s' * (forts != 1)}")


def _units_cell(units: Units, strength: int, routed: Units) -> str:
    text = f"{units.describe()} = {strength}"
    if routed.total:
        text += f"; routed {routed.describe()} = 0"
    return text


def _order_cell(setup: CombatSetup, side: SideResult) -> str:
    order = setup.side(side.role).order
    if order is None:
        return "none"
    if side.role is Role.DEFENDER and order.kind is not OrderKind.DEFENSE:
        return f"{order.describe()}: 0"
    doubled = side.strength.order != order.bonus
    return f"{order.describe()}" + (f", doubled: {side.strength.order:+d}" if doubled else "")


def _card_cell(side: SideResult) -> str:
    if side.card is None:
        return "no card: 0"
    printed = side.card.strength
    if side.strength.card != printed:
        return f"{side.card.name}: {printed} → {side.strength.card}"
    return f"{side.card.name}: {printed}"


def render_result(result: CombatResult, setup: CombatSetup) -> str:
    """The markdown reply for ``result``: every number, then casualties, retreat, clean-up."""
    att, dfn = result.attacker, result.defender
    a_name, d_name = att.house.display, dfn.house.display
    where = setup.area.value
    if setup.structure is not Structure.NONE:
        where += f", {setup.structure.value}"
    lines = [f"**Combat: {a_name} attacks {d_name}** ({where} area)", ""]
    lines += [
        f"| | {a_name} (attacker) | {d_name} (defender) |",
        "|:--|--:|--:|",
        f"| Units | {_units_cell(att.units, att.strength.units, setup.attacker.routed)} | "
        f"{_units_cell(dfn.units, dfn.strength.units, setup.defender.routed)} |",
        f"| Support | {att.strength.support} | {dfn.strength.support} |",
        f"| Order | {_order_cell(setup, att)} | {_order_cell(setup, dfn)} |",
        f"| Garrison | – | {dfn.strength.garrison} |",
    ]
    announced = [
        f"{s.strength.initial}" + (f" (announced {s.strength.announced})"
                                   if s.strength.announced != s.strength.initial else "")
        for s in (att, dfn)
    ]
    lines += [
        f"| **Initial strength** | {announced[0]} | {announced[1]} |",
        f"| House card | {_card_cell(att)} | {_card_cell(dfn)} |",
        f"| Card text | {att.strength.card_bonus:+d} | {dfn.strength.card_bonus:+d} |",
        f"| Valyrian Steel Blade | {att.strength.blade:+d} | {dfn.strength.blade:+d} |",
    ]
    finals = [
        f"**{s.strength.final}**" + (f" (total {s.strength.total}, never below 0)"
                                     if s.strength.total < 0 else "")
        for s in (att, dfn)
    ]
    lines += [
        f"| **Final strength** | {finals[0]} | {finals[1]} |",
        f"| Swords / fortifications | {att.swords} / {att.fortifications} | "
        f"{dfn.swords} / {dfn.fortifications} |",
        "",
    ]
    winner, loser = result.winner, result.loser
    if result.decided_by is Decision.FIEFDOMS:
        lines.append(f"**{winner.house.display} wins** the tie at {winner.final}: higher on "
                     "the Fiefdoms track.")
    else:
        lines.append(f"**{winner.house.display} wins**, {winner.final} to {loser.final}.")
    if result.supports:
        lines += ["", "**Support**"]
        for s in result.supports:
            who = ("refused" if s.support.to is SupportTo.NOBODY
                   else f"for the {s.support.to.value}")
            bonus = f", Support +{s.support.bonus}" if s.support.bonus else ""
            note = f" ({s.note})" if s.note and s.note != "refused" else ""
            lines.append(f"- {escape_md(s.label, 60)}: {s.support.house.display}, "
                         f"{s.support.units.describe()}{bonus}, {who}: {s.strength}{note}")
    if result.effects:
        lines += ["", "**Effects**"]
        lines += [f"- {escape_md(e, 300)}" for e in result.effects]
    lines += ["", "**Resolution**"]
    lines.append(_casualty_line(result))
    lines.append(_retreat_line(result))
    lines.append(_cleanup_line(result, setup))
    for side in (att, dfn):
        line = _cards_line(side)
        if line:
            lines.append(line)
    lines += ["", f"Read as: {escape_md(format_setup(setup), 1200)}"]
    return "\n".join(lines)


def _casualty_line(result: CombatResult) -> str:
    winner, loser = result.winner, result.loser
    text = (f"- Casualties: {winner.house.display}'s {winner.swords} sword(s) − "
            f"{loser.house.display}'s {loser.fortifications} fortification(s) = "
            f"{max(0, winner.swords - loser.fortifications)}")
    if result.casualties != max(0, winner.swords - loser.fortifications):
        text += f", cancelled to {result.casualties}"
    if result.casualties_taken:
        text += f": {loser.house.display} destroys {loser.casualties.describe()}"
        if result.casualties_taken < result.casualties:
            text += " (all it can: routed units are never casualties)"
        return text + "."
    return text + f": {loser.house.display} loses no unit to casualties."


def _retreat_line(result: CombatResult) -> str:
    r = result.retreat
    loser = result.loser.house.display
    extra = ""
    lost = result.loser.destroyed_retreating + result.loser.routed_destroyed
    if lost.total:
        extra = f" Destroyed instead of retreating: {lost.describe()}."
    if r.status is RetreatStatus.NOTHING_LEFT:
        return f"- Retreat: none of {loser}'s units is left to retreat.{extra}"
    one = r.units.total == 1  # "1 knight goes back", "2 footmen go back"
    if r.status is RetreatStatus.TO_ORIGIN:
        return (f"- Retreat: {loser}'s {r.units.describe()} {'goes' if one else 'go'} back to "
                f"the area {'it' if one else 'they'} marched from, routed.{extra}")
    if r.status is RetreatStatus.NOT_DESCRIBED:
        return (f"- Retreat: {loser}'s {r.units.describe()} must retreat to one legal adjacent "
                f"area (not where the attackers came from) and {'is' if one else 'are'} "
                f"routed; add `area ...` to have it checked.{extra}")
    if r.status is RetreatStatus.NO_LEGAL_AREA:
        return f"- Retreat: no legal area, so {loser}'s retreating units are destroyed.{extra}"
    options = ", ".join(
        escape_md(o.name, 60) + (f" (loses {o.losses})" if o.losses else "") for o in r.options
    )
    if r.status is RetreatStatus.AWAITING_CHOICE:
        chooser = "Stark (Robb Stark)" if r.chosen_by is Role.ATTACKER else loser
        return (f"- Retreat: {loser}'s {r.units.describe()} must retreat; {chooser} chooses "
                f"among {options}.{extra}")
    survivors = result.loser.survivors
    moved = survivors.describe() + (" retreats" if survivors.total == 1 else " retreat")
    return (f"- Retreat: {loser}'s {moved} to {escape_md(r.area or '', 60)}, routed "
            f"(legal: {options}).{extra}")


def _cleanup_line(result: CombatResult, setup: CombatSetup) -> str:
    c = result.cleanup
    parts = []
    if c.march_order is MarchOrderFate.MOVED_INTO_AREA:
        parts.append("the March order moves into the conquered area")
    else:
        parts.append("the March order is removed")
    if c.defender_order_removed and setup.defender.order is not None:
        parts.append(f"{result.defender.house.display}'s {setup.defender.order.describe()} "
                     "order is removed")
    if c.defender_power_token_removed:
        parts.append(f"{result.defender.house.display}'s Power token is removed")
    if c.garrison_removed:
        parts.append(f"{result.defender.house.display}'s garrison is removed")
    elif c.garrison_after:
        parts.append(f"{result.defender.house.display}'s garrison ({c.garrison_after}) stays")
    if c.support_orders_kept:
        parts.append("Support orders stay on the board")
    if c.attacker_moves_in:
        parts.append(f"{result.attacker.house.display} takes the area")
    upgrade = result.winner.upgrade
    if upgrade is not Upgrade.NONE:
        parts.append(f"Renly upgrades a {upgrade.value} footman to a knight")
    return "- Clean-up: " + "; ".join(parts) + "."


def _cards_line(side: SideResult) -> str:
    piles = side.piles
    if piles is None:
        return ""
    note = " (hand refreshed)" if piles.refreshed else ""
    discard = ", ".join(piles.discard) or "empty"
    return (f"- {side.house.display}'s cards{note}: hand {len(piles.hand)} "
            f"({', '.join(piles.hand) or 'empty'}); discard {discard}.")
