"""Receipts of accepted orders as the markdown players read: the one place a receipt value
(:mod:`rules.campaign.decide`) becomes text (each receipt kind's function is listed with its
journal in ``bot.services.order_apply.RECEIPTS``).

Every function here takes the receipt (ids already the stored ones) and the campaign context
(for tile names and dates) and returns the reply's section; nothing here checks or changes the
world.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bot.render.common import Context, money, siege_note, troops_text
from bot.render.notes import shortfall_text
from bot.text import escape_md, name_code, name_md
from rules.campaign import decide as r
from rules.campaign.battle import Strength
from rules.campaign.examples import step_order
from rules.campaign.naming import force_name, force_noun, state_word, travel
from rules.campaign.paths import format_path
from rules.campaign.world import ArmyKind, ArmyState, Reaction


def _label(ctx: Context, tile: str) -> str:
    """A tile's name as the markdown shows it (escaped)."""
    return name_md(ctx.world.tile(tile).label)


def _code(ctx: Context, tile: str) -> str:
    """A tile's name inside a code span (an example order)."""
    return name_code(ctx.world.tile(tile).label)


def _at(ctx: Context, tick: int) -> str:
    return ctx.when(ctx.tick_at(tick))


def _warning(ctx: Context, rc: r.Receipt) -> str:
    """The receipt's upkeep warning paragraph, if it carries one."""
    return "" if rc.shortfall is None else shortfall_text(rc.shortfall,
                                                          ctx.when(rc.shortfall.charged))


def _name(kind: ArmyKind | None, number: int) -> str:
    """``Army 3``/``Fleet 3`` at the start of a sentence."""
    return force_name(kind, number, capital=True)


def mustered(ctx: Context, rc: r.Mustered) -> str:
    new = force_name(rc.kind, rc.army)
    return (f"**{_name(rc.kind, rc.army)}** ({troops_text(rc.infantry, rc.cavalry, rc.ships)}) is "
            f"mustering at {_label(ctx, rc.tile)}.\n\n"
            f"- Ready: {ctx.when(rc.ready)}\n"
            f"- Upkeep while raised: {money(rc.upkeep)} gold a month this season\n"
            f"- Left at home: {rc.home_infantry} infantry, {rc.home_cavalry} cavalry"
            + (f", {rc.home_ships} ships" if rc.show_ships else "")
            + _warning(ctx, rc)
            + (f"\n\nYou may already order it to {travel(rc.kind)}, e.g. "
               f"`{step_order(ctx.world, new, rc.step)}`." if rc.step is not None else ""))


def _watch_odds(needed: int | None) -> str:
    if needed is None or needed <= 1:
        return "certain"
    return "impossible" if needed > 20 else f"on a d20 of {needed}+"


def marched(ctx: Context, rc: r.Marched) -> str:
    plan = rc.plan
    speed = f"x{plan.multiplier.normalize():f}" + (f" ({', '.join(plan.reasons)})"
                                                  if plan.reasons else "")
    lines = [
        f"**{_name(rc.kind, rc.army)}** ({troops_text(rc.infantry, rc.cavalry, rc.ships)}) will "
        f"{travel(rc.kind)} from {_label(ctx, rc.start)} to {name_md(rc.check.tiles[-1].label)}.",
        "",
        f"- Path: {escape_md(rc.check.breakdown(), 4000)}",
        f"- Speed: {plan.budget} travel cost per tick, {speed}",
        f"- Departs: {ctx.when(rc.depart)}",
        f"- Arrives: {ctx.when(plan.arrival)}",
    ]
    if plan.watch:
        lines.append("- May be detected by: " + "; ".join(
            f"{_label(ctx, w.tile)} ({_watch_odds(w.needed)})" for w in plan.watch))
    else:
        lines.append("- Passes no holdfast or occupied resource tile that could detect it")
    if rc.cheaper is not None:
        lines.append(f"- A cheaper route there costs {rc.cheaper.total}: "
                     f"{format_path(name_md(t.label) for t in rc.cheaper.tiles)}")
    if rc.lifted:
        lines.append(f"- The siege of {_label(ctx, rc.lifted)} is lifted: your "
                     f"{force_noun(rc.kind)} has left it")
    if rc.at_once:  # ordered exactly on a tick: it is already on its way
        lines.append(f"\nIt sets off at once (your order came exactly on the tick), so it can "
                     f"no longer be cancelled; `stand {force_name(rc.kind, rc.army)}` halts it "
                     "where it stands.")
    else:
        lines.append(f"\nYou may `cancel {force_name(rc.kind, rc.army)}` until it departs.")
    return "\n".join(lines)


def route_found(ctx: Context, rc: r.RouteFound) -> str:
    goal = _label(ctx, rc.goal)
    name = force_name(rc.kind, rc.army)
    if not rc.route.tiles:
        return f"{_name(rc.kind, rc.army)} is already at {goal}."
    path = format_path(name_code(t.label) for t in rc.route.tiles)
    order_text = (f"move {name}: {path} "
                  f"(cost {rc.route.total})")
    return (f"The cheapest route for {name} from {_label(ctx, rc.start)} to {goal} "
            f"costs **{rc.route.total}**: {escape_md(rc.route.breakdown(), 4000)}.\n\nTo "
            f"{travel(rc.kind)}, "
            f"send:\n\n    {order_text}")


def cancelled(ctx: Context, rc: r.Cancelled) -> str:
    name = force_name(rc.kind, rc.army)
    if rc.what == "queued march":
        return (f"The queued {travel(rc.kind, 'noun')} of {name} is cancelled; it is still "
                f"mustering at {_label(ctx, rc.tile)}. To cancel the muster too, send "
                f"`cancel {name}` again.")
    if rc.what == "muster":
        return (f"The muster of {name} is cancelled; "
                f"{troops_text(rc.infantry, rc.cavalry, rc.ships)} are back at home.")
    return (f"The {travel(rc.kind, 'noun')} of {name} is cancelled; it stays at "
            f"{_label(ctx, rc.tile)}.")


def called_off(ctx: Context, rc: r.CalledOff) -> str:
    name, hold = force_name(rc.kind, rc.army), _label(ctx, rc.holdfast)
    return (f"The assault of {name} on {hold} is called off: there is no battle, and "
            f"{name} stays {state_word(rc.kind, rc.state)} at {hold}.")


def halted(ctx: Context, rc: r.Halted) -> str:
    return f"{_name(rc.kind, rc.army)} halts at {_label(ctx, rc.tile)} and stands there."


def reacted(ctx: Context, rc: r.Reacted) -> str:
    when = _at(ctx, rc.resolve_tick)
    name = _name(rc.kind, rc.army)
    if rc.reaction is not Reaction.RETREAT:
        return f"{name} will stand and fight at {when}."
    text = (f"{name} will try to retreat at {when} (a d20: 18+ keeps every troop, "
            "15+ three quarters, 13+ half; lower fails and gives -1 in the battle).")
    if rc.route:
        text += (" If it escapes it falls back by "
                 f"{format_path(_label(ctx, t) for t in rc.route)}.")
    return text


def retreat_referred(ctx: Context, rc: r.RetreatReferred) -> str:
    name = force_name(rc.kind, rc.army)
    return (f"{_name(rc.kind, rc.army)} has no path back (it did not {travel(rc.kind)} to "
            f"{_label(ctx, rc.tile)}) and you gave no route, so nothing was rolled: your "
            "retreat is **referred to the moderators**. To choose a way yourself, send "
            f"`retreat {name}: TILE > TILE` or `retreat {name} to TILE`.")


def spared(ctx: Context, rc: r.Spared) -> str:
    return (f"You let {force_name(rc.kind, rc.army)} stay at {_label(ctx, rc.tile)}: there is "
            f"no battle, and the two {force_noun(rc.kind, plural=True)} share the tile in peace "
            "until one of them moves.")


def battle_ordered(ctx: Context, rc: r.BattleOrdered) -> str:
    when = _at(ctx, rc.resolve_tick)
    place = _label(ctx, rc.tile)
    name, target = _name(rc.kind, rc.army), force_name(rc.kind, rc.target)
    if rc.how is r.BattleOrder.ATTACK:
        return (f"{name} will attack {target} at {place}. The defender has the first "
                f"reaction; the battle is fought at {when}. An attack cannot be called off: "
                "your claims are now at war.")
    if rc.how is r.BattleOrder.INTERCEPT:
        return (f"{name} intercepts {target} at {place}: its {travel(rc.kind, 'noun')} is "
                f"stopped. The defender has the first reaction; the battle is fought at "
                f"{when}.")
    if rc.how is r.BattleOrder.ASSAULT:
        return (f"{name} will assault {place} at {when}. You may call it off until then: "
                f"`cancel {force_name(rc.kind, rc.army)}`.")
    who = f"army {rc.army}" if rc.army else "the whole ready garrison"
    return f"{who.capitalize()} will sally from {place} at {when}."


def siege_lifted(ctx: Context, rc: r.SiegeLifted) -> str:
    return (f"The siege of {_label(ctx, rc.holdfast)} is lifted. {_name(rc.kind, rc.army)} "
            "stands on the tile; the months counted are lost.")


def siege_begun(ctx: Context, rc: r.SiegeBegun) -> str:
    hold = _label(ctx, rc.holdfast)
    if rc.falls_tick is not None:  # nobody holds it and it has no garrison
        return (f"{_name(rc.kind, rc.army)} besieges {hold}, which nobody holds or garrisons: "
                f"it falls to you at {ctx.when(ctx.tick_at(rc.falls_tick))} (the first tick "
                "after the siege begins) if your army still holds the tile.")
    return (f"{_name(rc.kind, rc.army)} besieges {hold}. With its garrison it falls after "
            f"**{rc.length.months}** in-game months{siege_note(rc.length, rc.besieger_mods)} "
            f"if you hold the tile; you may also `assault {_code(ctx, rc.holdfast)} with "
            f"{force_name(rc.kind, rc.army)}`.")


def siege_referred(ctx: Context, rc: r.SiegeReferred) -> str:
    return (f"{_label(ctx, rc.holdfast)} has its own siege rules: your order is **referred to "
            "the moderators**, who will rule on it. Nothing has changed yet.")


def disbanded(ctx: Context, rc: r.Disbanded) -> str:
    return (f"{_name(rc.kind, rc.army)} is disbanded; "
            f"{troops_text(rc.infantry, rc.cavalry, rc.ships)} return home and cost no more "
            "upkeep.")


def ceded(ctx: Context, rc: r.Ceded) -> str:
    return (f"From the next tick **{name_md(rc.to_name)}** receives the benefit of "
            f"{_label(ctx, rc.tile)}, for as long as both your armies stand there.")


def building(ctx: Context, rc: r.Building) -> str:
    secret = ("\n\nOnly your claim and the moderators know of it: posts never name it."
              if rc.entry.hidden else "")
    return (f"Building **{name_md(rc.entry.name)}** at {_label(ctx, rc.holdfast)} for "
            f"{r.cost_text(rc.entry)} (gold left: {r.gold_text(rc.gold_left)}).\n\n"
            f"- Effect: {rc.entry.describe_effects()}\n"
            f"- Finished: when the month begins, {ctx.when(rc.ready)}; you will get a "
            f"note{secret}" + _warning(ctx, rc))


def bought(ctx: Context, rc: r.Bought) -> str:
    return (f"{_name(ArmyKind.LAND, rc.army)} now carries **{name_md(rc.entry.name)}** "
            f"({r.cost_text(rc.entry)}; gold "
            f"left: {r.gold_text(rc.gold_left)}).\n\n- Effect: "
            f"{rc.entry.describe_effects()}\n"
            "- Siege equipment counts when the army besieges or assaults a holdfast."
            + _warning(ctx, rc))


def blockading(ctx: Context, rc: r.Blockading) -> str:
    port = _label(ctx, rc.port)
    head = f"**Fleet {rc.fleet}** ({rc.ships} ships) blockades {port}.\n\n"
    if rc.owner is None:
        return (head + f"No claim holds {port}, so there is no siege to support; its harbour "
                "is closed all the same while the fleet stays on its tile.")
    siege = rc.siege
    if siege is None:
        example = (f"`siege {_code(ctx, rc.port)} with army {rc.army}`" if rc.army is not None
                   else "you have no army standing: muster one first, or halt one, and march "
                   "it there")
        status = (f"No siege yet: {port} may now be besieged by an army of yours standing "
                  f"on it ({example}). The blockade holds while the fleet stays on its tile.")
    elif siege.besieger_claim == rc.claim_id:
        paused = " It was paused while no ships held the blockade; it counts again from the " \
                 "next month." if siege.paused else ""
        status = (f"The siege of {port} goes on: {siege.months_elapsed} of "
                  f"{siege.months_required} months counted.{paused}")
    else:
        status = f"{port} is besieged by another claim; your blockade stands beside it."
    return head + status


def assigned(ctx: Context, rc: r.Assigned) -> str:
    notes = []
    if rc.left is not None:
        notes.append(f"{name_md(rc.name)} leaves {force_name(rc.left_kind, rc.left)}, which has no "
                     "commander now.")
    if rc.relieved is not None:
        notes.append(f"{name_md(rc.relieved)} is relieved of {force_name(rc.kind, rc.army)}.")
    skills = [f"{e.shown_as} ({e.describe_effects()})" + (" (secret)" if e.hidden else "")
              for e in rc.skills]
    skill_text = ("Skills now with the army: " + "; ".join(skills)) if skills else \
        f"{name_md(rc.name)} has no skills in this campaign's catalogue."
    return "\n\n".join([f"**{name_md(rc.name)}** takes command of {force_name(rc.kind, rc.army)}.",
                        *notes, skill_text])


def status_report(ctx: Context, rc: r.StatusReport) -> str:
    claim = rc.claim
    lines = [f"**{name_md(claim.name)}** — {ctx.when(rc.at)}", "",
             f"- Gold: {money(claim.gold)}",
             (f"- At home in {_label(ctx, claim.holdfast)}: " if rc.seat else
              "- At home (no seat): ") + f"{claim.infantry} infantry, "
             f"{claim.cavalry} cavalry" + (f", {claim.ships} ships" if claim.ships else "")]
    if rc.defense_bonus != 1:  # the claimant knows its own holdfast's secret
        lines.append(f"- Defenses of {_label(ctx, claim.holdfast)}: x{money(rc.defense_bonus)} "
                     "to your defenders' strength against an assault (secret: only your claim "
                     "and the moderators see this)")
    if not rc.seat:
        lines.append(f"- No seat: {_label(ctx, claim.holdfast)} has fallen; nobody musters "
                     "until the moderators give your claim a new seat")
    for tile, bonus in rc.held:
        lines.append(f"- Also holds {_label(ctx, tile)}" + (
            f" (defenses x{money(bonus)}, secret)" if bonus != 1 else ""))
    if rc.scattered and claim.scattered_until is not None:
        lines.append(f"- Scattered (cannot be raised until {ctx.when(claim.scattered_until)}):"
                     f" {claim.scattered_infantry} infantry, {claim.scattered_cavalry} cavalry")
    if not rc.armies:
        lines.append("- No armies or fleets raised")
    for a in rc.armies:
        extra = ""
        if a.state is ArmyState.MUSTERING and a.ready_tick is not None:
            extra = f", ready {_at(ctx, a.ready_tick)}"
        going = (f", {travel(a.kind, 'ing')} to {_label(ctx, a.march.path[-1])}, arrives "
                 f"{_at(ctx, a.arrival_tick)}") if a.march.path and a.arrival_tick is not None \
            else ""
        extra += going
        if a.equipment:
            extra += ", siege equipment: " + ", ".join(name_md(e) for e in a.equipment)
        # on the march, "marching to" says it when shown: "at Gullmarch, marching to
        # Harbourtown"; without it the state word stays
        state = "" if a.state is ArmyState.MARCHING and going else \
            f"{state_word(a.kind, a.state)} "
        lines.append(f"- {_name(a.kind, a.id)}: {troops_text(a.infantry, a.cavalry, a.ships)}, "
                     f"{state}at {_label(ctx, a.tile)}{extra}")
    for s in rc.sieges:
        paused = " (paused: its last month did not count)" if s.paused else ""
        if s.besieging:
            head = (f"- Siege of {_label(ctx, s.holdfast)} by {_name(ArmyKind.LAND, s.army)}"
                    + (f" (held by {name_md(s.other)})" if s.other else ""))
        else:
            head = f"- {_label(ctx, s.holdfast)} besieged by {name_md(s.other)}"
        lines.append(f"{head}: {s.done} in-game months counted, {s.left} left{paused}")
    lines.append(f"- Upkeep of raised troops: {money(rc.upkeep)} gold a month this season")
    return "\n".join(lines) + _warning(ctx, rc)


def _strength(power: Strength) -> str:
    labels = power.public_labels()
    return money(power.value) + (f" ({power.base} " + " ".join(labels) + ")" if labels else "")


def _joined(side: str, kind: ArmyKind, armies: tuple[int, ...]) -> str:
    """A line naming the other armies on the tile that fight on ``side`` (sides are summed)."""
    if not armies:
        return ""
    names = ", ".join(force_name(kind, a) for a in armies)
    return f"- also on {side} (every army on the tile that joins it fights): {names}\n"


def odds_shown(ctx: Context, rc: r.OddsShown) -> str:
    fight, odds = rc.fight, rc.odds
    ratio = "" if fight.ratio is None else f"ratio {money(fight.ratio)}, "
    attacker, defender = force_name(rc.kind, rc.army), force_name(rc.target_kind, rc.target)
    if rc.pending:
        head = (f"The battle of {attacker} (the attacker) against {defender}, fought at "
                f"{_at(ctx, rc.fought_tick)}:\n\n")
    else:
        head = (f"If {attacker} attacks {defender} now ({attacker} is the attacker: "
                "it never has the defender's terrain bonus; the battle would be fought at "
                f"{_at(ctx, rc.fought_tick)}):\n\n")
    ours, theirs = ("attacker", "defender") if rc.asker_attacks else ("defender", "attacker")
    win = odds.attacker_win if rc.asker_attacks else odds.defender_win
    lost = {"attacker": odds.attacker_losses, "defender": odds.defender_losses}
    return (head
            + _joined("the attacker's side", rc.kind, rc.with_army)
            + _joined("the defender's side", rc.target_kind, rc.with_target) +
            f"- strength {_strength(fight.attacker)} against {_strength(fight.defender)}: "
            f"{ratio}band {fight.band.name} ({'your' if rc.asker_attacks else 'their'} side's "
            "strength first)\n"
            f"- **{float(win) * 100:.1f}%** for your side to win, "
            f"{float(1 - win) * 100:.1f}% to lose (exactly {win})\n"
            f"- expected losses: yours {float(lost[ours].infantry):.0f} infantry, "
            f"{float(lost[ours].cavalry):.0f} cavalry; theirs "
            f"{float(lost[theirs].infantry):.0f} infantry, "
            f"{float(lost[theirs].cavalry):.0f} cavalry")


# --- the reply to a message of orders ----------------------------------------------------------

TRUNCATED = ("*Only the first orders of this long message were read; send the rest in another "
             "message.*")
"""The reply's last section when a message held more orders than are read."""


FOOTER = "\n\n*maester, the campaign's bot. Send `help` for the orders, `!help` for commands.*"
"""The end of every reply to a message."""

PRIVATE_ELSEWHERE = ("This command shows private information, so I have answered you by "
                     "modmail.")
"""The public reply of a private command (its answer goes by modmail)."""


def quoted(source: str, limit: int = 120) -> str:
    """An order (or command) line quoted above its receipt or refusal (``limit``: at most so
    many characters of it)."""
    return f"> {escape_md(source, limit)}\n\n"


def reply(sections: Iterable[str]) -> str:
    """The whole reply: one section per order (and command), ruled apart."""
    return "\n\n---\n\n".join(sections)


def pause_span(until: datetime | None) -> str:
    """How long a pause lasts: ``until 2026-12-01 00:00 UTC`` or ``until the moderators resume
    it``."""
    if until is not None:
        return f"until {until:%Y-%m-%d %H:%M} UTC"
    return "until the moderators resume it"


def paused(until: datetime | None, note: str | None) -> str:
    """The answer to orders while the campaign is paused (``note``: the moderators' reason)."""
    why = f" ({escape_md(note)})" if note else ""  # the moderators' words, shown as typed
    return (f"**Not done:** the campaign is paused {pause_span(until)}{why}. No tick "
            "is applied and no order is taken meanwhile; nothing of this message changed the "
            "world. Send your orders again once the campaign has resumed. (`status`, `route`, "
            "`odds` and `help` still answer.)")
