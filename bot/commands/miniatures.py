"""``!attack``, ``!charge``, ``!panic`` and ``!morale`` for ASOIAF Tabletop Miniatures.

Each command is parse, resolve, render: the text is read by :mod:`rules.miniatures.notation`,
resolved by :mod:`rules.miniatures` and rendered here as markdown. Without the word ``roll``
the reply is the exact odds; with it the bot rolls the dice and shows every one.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from bot.commands.registry import CommandContext, CommandError, command
from bot.errors import notation_failure
from rules.errors import NotationError, RulesError
from rules.miniatures.attack import AttackOutcome, AttackResult, AttackSpec, resolve_attack
from rules.miniatures.charge import (
    ChargeOutcome,
    ChargeReroll,
    ChargeResult,
    ChargeSetup,
    charge_odds,
    resolve_charge,
)
from rules.miniatures.distribution import WoundDistribution, wound_distribution
from rules.miniatures.morale import (
    MoraleResult,
    PanicOutcome,
    PanicResult,
    PanicWounds,
    morale_pass_chance,
    morale_test,
    panic_odds,
    panic_test,
)
from rules.miniatures.notation import (
    ATTACK_EXAMPLE,
    ATTACK_SYNTAX,
    CHARGE_EXAMPLE,
    CHARGE_SYNTAX,
    MORALE_EXAMPLE,
    PANIC_EXAMPLE,
    parse_attack,
    parse_charge,
    parse_morale,
    parse_panic,
    rules_failure,
    signed,
)
from rules.miniatures.rolls import (
    DieResult,
    PoolResult,
    Reroll,
    RerollFaces,
    Side,
)
from rules.miniatures.terrain import (
    Keyword,
    charge_defense_bonus,
    denies_charge_bonus,
)

# Rows of the odds table stop once "at least" falls below this.
_TABLE_FLOOR = Fraction(1, 10000)

# --------------------------------------------------------------------------- tokens


def _percent(p: Fraction) -> str:
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    value = (Decimal(p.numerator) * 100 / Decimal(p.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_EVEN
    )
    if value == 0:
        return "<0.01%"
    if value == 100:
        return ">99.99%"
    return f"{value}%"


def _decimal(p: Fraction, places: int = 2) -> str:
    value = Decimal(p.numerator) / Decimal(p.denominator)
    return str(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


# --------------------------------------------------------------------------- !attack


def _describe_reroll(pool: str, side: Side, r: Reroll) -> str:
    limit = f" (up to {r.limit})" if r.limit is not None else ""
    what = {
        ("attack", RerollFaces.FAILURES): "re-rolls misses",
        ("attack", RerollFaces.ONES): "re-rolls natural 1s on attack dice",
        ("attack", RerollFaces.SUCCESSES): "makes the attacker re-roll hits",
        ("defense", RerollFaces.FAILURES): "re-rolls failed saves",
        ("defense", RerollFaces.ONES): "re-rolls natural 1s on defense dice",
        ("defense", RerollFaces.SUCCESSES): "makes the defender re-roll successful saves",
    }[(pool, r.faces)]
    if side is Side.ATTACKER and (pool, r.faces) == ("defense", RerollFaces.FAILURES):
        what = "re-rolls the defender's failed saves"
    return f"the {side} {what}{limit}"


def describe_attack(spec: AttackSpec) -> str:
    """One paragraph saying how the bot read the attack."""
    hit_mod = f" ({signed(spec.hit_modifier)} to the dice)" if spec.hit_modifier else ""
    def_mod = f" ({signed(spec.defense_modifier)} to the dice)" if spec.defense_modifier else ""
    text = (f"**{spec.dice} {'die' if spec.dice == 1 else 'dice'}** hitting on "
            f"**{spec.to_hit}+**{hit_mod} against defense **{spec.defense}+**{def_mod}")
    if spec.morale is not None:
        mor_mod = f", {signed(spec.morale_modifier)} to the roll" if spec.morale_modifier else ""
        text += (f", then a panic test at morale **{spec.morale}+**{mor_mod} (a failed test "
                 f"costs {spec.panic_wounds} wounds)")
    else:
        text += ", no panic test"
    if spec.target_wounds is not None:
        text += f"; the target has **{spec.target_wounds}** wounds left"
    rerolls = [
        _describe_reroll(pool, side, r)
        for pool, pr in (("attack", spec.attack_rerolls), ("defense", spec.defense_rerolls))
        for side, r in pr.in_order(spec.active)
    ]
    if rerolls:
        first = "defender" if spec.active is Side.DEFENDER else "attacker"
        text += ". Re-rolls: " + "; ".join(rerolls) + f" (the {first}'s turn: theirs come first)"
    return text + "."


def render_distribution(dist: WoundDistribution) -> str:
    """The odds table for an attack."""
    lines = [describe_attack(dist.spec), "", "| Wounds | Exactly | At least |",
             "|---:|---:|---:|"]
    cut = None
    for wounds, p in enumerate(dist.wounds):
        at_least = dist.at_least(wounds)
        if at_least < _TABLE_FLOOR:
            cut = wounds
            break
        lines.append(f"| {wounds} | {_percent(p)} | {_percent(at_least)} |")
    if cut is not None:
        lines += ["", f"{cut} or more wounds: {_percent(dist.at_least(cut))}."]
    summary = (f"Expected wounds: **{_decimal(dist.expected)}** "
               f"(expected hits {_decimal(dist.expected_hits)}).")
    if dist.spec.morale is not None:
        summary += f" Chance of a failed panic test: {_percent(dist.panic_chance)}."
    lines += ["", summary, "", "Add `roll` to roll it."]
    return "\n".join(lines)


def _die(d: DieResult) -> str:
    faces = "→".join(str(f) for f in d.faces)
    shown = faces
    if d.modifier:
        shown += f" ({signed(d.modifier)} = {d.modified})"
    mark = "✓" if d.success else "✗"
    return f"{shown} {mark}"


def _pool_line(name: str, pool: PoolResult) -> str:
    if not pool.dice:
        return f"{name}: none"
    return f"{name}: " + ", ".join(_die(d) for d in pool.dice)


def _rerolled(pool: PoolResult) -> str:
    notes = []
    for side in (Side.ATTACKER, Side.DEFENDER):
        n = sum(1 for d in pool.dice if side in d.rerolled_by)
        if n:
            notes.append(f"the {side} re-rolled {n}")
    return f" ({'; '.join(notes)})" if notes else ""


def _panic_lines(panic: PanicResult) -> list[str]:
    if panic.outcome is PanicOutcome.AUTOMATIC_PASS:
        return ["Panic test: no wounds suffered, so it is passed without rolling (it still "
                "counts as taken)."]
    assert panic.test is not None
    line = f"Panic test (morale {panic.morale}+): " + _morale_roll(panic.test)
    if panic.outcome is PanicOutcome.PASSED:
        return [line + " → **passed**."]
    extra = f"1 + d3 = 1 + {panic.d3}" if panic.rule is PanicWounds.ONE_PLUS_D3 else (
        f"d3 = {panic.d3}")
    return [line + f" → **failed**: {extra}, so **{panic.wounds}** "
            f"{'wound' if panic.wounds == 1 else 'wounds'} (no defense dice)."]


def _morale_roll(test: MoraleResult) -> str:
    text = f"{test.rolls[0]} + {test.rolls[1]}"
    if test.modifier:
        text += f" {'+' if test.modifier > 0 else '-'} {abs(test.modifier)}"
    return text + f" = {test.total}"


def render_attack(result: AttackResult) -> str:
    """Every die of a rolled attack, and what it came to."""
    spec = result.spec
    lines = [describe_attack(spec), ""]
    lines.append(_pool_line(f"Attack dice ({spec.to_hit}+)", result.attack)
                 + _rerolled(result.attack) + f" → **{result.hits}** "
                 + ("hit" if result.hits == 1 else "hits"))
    if result.hits:
        lines.append(_pool_line(f"Defense dice ({spec.defense}+)", result.defense)
                     + _rerolled(result.defense) + f" → **{result.blocked}** blocked")
    lines.append(f"Wounds from the attack: **{result.attack_wounds}**")
    if result.panic is not None:
        lines += _panic_lines(result.panic)
    elif spec.morale is not None:
        lines.append("No panic test: the unit was destroyed.")
    verdict = f"**Total: {result.wounds} {'wound' if result.wounds == 1 else 'wounds'}**"
    if result.outcome is AttackOutcome.DESTROYED:
        verdict += " — the unit is destroyed."
    lines.append(verdict)
    return "\n\n".join(line for line in lines if line)


@command("attack", aliases=("atk",), example=ATTACK_EXAMPLE)
def attack_command(cmd_ctx: CommandContext, args: str) -> str:
    """Odds of an attack in ASOIAF Tabletop Miniatures, or roll it with `roll`.

    Give the attack dice, the to-hit value and the defense value; add the defender's morale
    for the panic test. Extras: `reroll misses`, `reroll ones`, `reroll hits` (defender),
    `reroll saves` (defender's failed saves), `reroll blocks` (attacker forces saves),
    `reroll up to 2 misses`, `charge` (re-roll any attack dice), `hit +1`, `def -1`,
    `sundering`, `fortified`, `morale -1`, `horrific`, `inspiring`, `12 left` (wounds the
    target has), `7/5/3 ranks 2` (dice by ranks), `panic 1+d3` (the updated panic rule).
    """
    if not args.strip():
        raise CommandError("Tell me the attack.", ATTACK_SYNTAX, ATTACK_EXAMPLE)
    try:
        request = parse_attack(args)
        if request.roll:
            return render_attack(resolve_attack(request.spec, dice=cmd_ctx.dice))
    except RulesError as exc:  # unreadable text, or values the rules refuse
        raise notation_failure(rules_failure(exc, ATTACK_SYNTAX, ATTACK_EXAMPLE)) from None
    return render_distribution(wound_distribution(request.spec))


# --------------------------------------------------------------------------- !panic / !morale


@command("panic", example=PANIC_EXAMPLE)
def panic_command(cmd_ctx: CommandContext, args: str) -> str:
    """A panic test in ASOIAF Tabletop Miniatures: the odds, or roll it with `roll`.

    Give the unit's morale (`6+`), any modifier (`-1`, `horrific`, `inspiring`), `0 wounds`
    if the attack dealt none (an automatic pass that still counts as taken), and `1+d3` for
    the updated rule (a failed test costs 1 + d3 wounds instead of d3).
    """
    try:
        req = parse_panic(args)
    except NotationError as exc:
        raise notation_failure(exc) from None
    morale, modifier, roll, rule, wounds = (req.morale, req.modifier, req.roll, req.rule,
                                            req.wounds_suffered)
    mod = f" with {signed(modifier)} to the roll" if modifier else ""
    head = f"Panic test at morale **{morale}+**{mod} (a failed test costs {rule} wounds)."
    if roll:
        result = panic_test(morale, dice=cmd_ctx.dice, modifier=modifier, rule=rule,
                            wounds_suffered=wounds)
        return "\n\n".join([head, *_panic_lines(result)])
    if wounds == 0:
        return "\n".join([head, "", "The unit suffered no wounds: it passes automatically, "
                          "without rolling, and still counts as having taken the test."])
    odds = panic_odds(morale, modifier=modifier, rule=rule)
    rows = ["| Result | Chance |", "|---|---:|", f"| Pass | {_percent(odds.passed)} |"]
    rows += [f"| Fail, {k} {'wound' if k == 1 else 'wounds'} | {_percent(p)} |"
             for k, p in odds.wounds]
    return "\n".join([head, "", *rows, "",
                      f"Expected wounds: **{_decimal(odds.expected_wounds)}**.", "",
                      "Add `roll` to roll it."])


@command("morale", aliases=("moral",), example=MORALE_EXAMPLE)
def morale_command(cmd_ctx: CommandContext, args: str) -> str:
    """A morale test in ASOIAF Tabletop Miniatures (2d6 against the morale value): the odds,
    or roll it with `roll`.

    Give the unit's morale (`6+`) and any modifier (`-1`, `horrific`, `inspiring`). What a
    failed test does depends on the effect that called for it; for a panic test use `!panic`.
    """
    try:
        req = parse_morale(args)
    except NotationError as exc:
        raise notation_failure(exc) from None
    morale, modifier, roll = req.morale, req.modifier, req.roll
    mod = f" with {signed(modifier)} to the roll" if modifier else ""
    head = f"Morale test at **{morale}+**{mod}."
    if roll:
        test = morale_test(morale, dice=cmd_ctx.dice, modifier=modifier)
        verdict = "**passed**" if test.passed else "**failed**"
        return "\n".join([head, "", f"Roll: {_morale_roll(test)} → {verdict}."])
    passing = morale_pass_chance(morale, modifier)
    return "\n".join([head, "", f"Chance to pass: **{_percent(passing)}**; to fail: "
                      f"{_percent(1 - passing)}.", "", "Add `roll` to roll it."])


# --------------------------------------------------------------------------- !charge


def _inches(d: Decimal) -> str:
    text = format(d.normalize(), "f")
    return f'{text}"'


def _describe_charge(setup: ChargeSetup) -> str:
    text = (f"Charge **{_inches(setup.distance)}** with speed **{setup.speed}**")
    if setup.terrain:
        text += " through " + ", ".join(p.value for p in setup.terrain)
        if setup.rough:
            text += f" (−{setup.rough}\" rough)"
    text += f": needs **{setup.needed}+** on the die" if setup.needed > 1 else (
        ": any die reaches")
    if setup.reroll is ChargeReroll.IF_SHORT:
        text += "; the die is re-rolled if it falls short"
    elif setup.reroll is ChargeReroll.IF_SHORT_OR_ONE:
        text += "; the die is re-rolled if it falls short or shows a 1"
    return text + "."


def render_charge(result: ChargeResult) -> str:
    """Every die of a rolled charge."""
    setup = result.setup
    lines = [_describe_charge(setup), ""]
    rolls = " → ".join(str(r) for r in result.rolls)
    rough = f" − {setup.rough}" if setup.rough else ""
    lines.append(f"Charge die: {rolls}; {result.roll} + {setup.speed}{rough} = "
                 f"{result.total_distance}\"")
    if result.outcome is ChargeOutcome.CHARGED:
        bonus = ("with the charge bonus (re-roll any attack dice)" if result.charge_bonus
                 else "but hindering terrain takes the charge bonus")
        lines.append(f"**Charge!** The unit contacts its target, {bonus}.")
    elif result.outcome is ChargeOutcome.DISORDERLY:
        lines.append("**Disorderly charge**: it contacts its target, but with no charge bonus, "
                     "and no tactics cards for the rest of this turn.")
    else:
        short = setup.distance - result.total_distance
        lines.append(f"**Failed charge**: {_inches(short)} short. The unit takes a panic test "
                     "and its activation ends.")
        if result.disorderly:
            lines.append("It rolled a 1, too: no tactics cards for the rest of this turn.")
    if result.defense_bonus:
        lines.append(f"Fortified terrain: the defender gets +{result.defense_bonus} to defense "
                     "rolls against this attack.")
    if result.dangerous_wounds:
        lines.append(f"Dangerous terrain: the charging unit suffers **{result.dangerous_wounds}"
                     "** wounds.")
    if result.panic is not None:
        lines += _panic_lines(result.panic)
    elif result.panic_due:
        lines.append("(Give `morale 6` to have the bot roll that panic test.)")
    return "\n\n".join(line for line in lines if line)


@command("charge", example=CHARGE_EXAMPLE)
def charge_command(cmd_ctx: CommandContext, args: str) -> str:
    """Odds of a charge in ASOIAF Tabletop Miniatures (d6 + speed must reach the target), or
    roll it with `roll`.

    Give the distance in inches and the unit's speed. Extras: `reroll` (re-roll a die that
    falls short), `reroll ones` (also re-roll a 1 that reaches, to avoid a disorderly
    charge), `morale 6` (for the panic test of a failed charge), and terrain on the way:
    `bog`, `corpse pile`, `forest`, `hedge`, `wall`, `stakes`.
    """
    if not args.strip():
        raise CommandError("Tell me the charge.", CHARGE_SYNTAX, CHARGE_EXAMPLE)
    try:
        request = parse_charge(args)
        if request.roll:
            return render_charge(resolve_charge(request.setup, dice=cmd_ctx.dice))
    except RulesError as exc:  # unreadable text, or values the rules refuse
        raise notation_failure(rules_failure(exc, CHARGE_SYNTAX, CHARGE_EXAMPLE)) from None
    setup = request.setup
    odds = charge_odds(setup)
    rows = ["| Result | Chance |", "|---|---:|",
            f"| Charge | {_percent(odds.charged)} |",
            f"| Disorderly charge (a 1: no charge bonus, no tactics cards) | "
            f"{_percent(odds.disorderly)} |",
            f"| Failed charge (panic test, activation ends) | {_percent(odds.failed)} |"]
    if setup.morale is not None:
        rows.append(f"| Failed charge and failed panic test | {_percent(odds.panic_failure)} |")
    return "\n".join([_describe_charge(setup), "", *rows, "", *_terrain_notes(setup),
                      "Add `roll` to roll it."])


def _terrain_notes(setup: ChargeSetup) -> list[str]:
    notes = []
    if denies_charge_bonus(setup.terrain):
        notes.append("Hindering terrain on the way: no charge bonus, whatever the roll.")
    if charge_defense_bonus(setup.terrain):
        notes.append("Fortified terrain on the way: the defender gets +1 to defense rolls "
                     "against the attack.")
    if any(p.has(Keyword.DANGEROUS) for p in setup.terrain):
        notes.append("Dangerous terrain on the way: the charging unit suffers d3 + 1 wounds.")
    return [line for note in notes for line in (note, "")]
