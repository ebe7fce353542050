"""The tick's battles: the battles whose reaction window has closed (retreats and the opponent's
choice after a failed one, field battles, assaults on a holdfast's garrison, sallies out of a
besieged one, losses, captures, the beaten sent back, the characters' fate-table rolls), then the
hostile armies still sharing a tile meeting in a battle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from rules.campaign import calendar
from rules.campaign.battle import (
    BattleResult,
    Side,
    SideResult,
    Winner,
    resolve_battle,
    side_strength,
)
from rules.campaign.characters import (
    Fate,
    settle_fate,
)
from rules.campaign.contingents import split_losses
from rules.campaign.meetings import Presence, hostile_meetings
from rules.campaign.modifiers import (
    Effect,
    EffectKind,
    Modifier,
    Role,
    Source,
)
from rules.campaign.movement import (
    marches_on,
    ticks_to_cross,
)
from rules.campaign.paths import entry_cost
from rules.campaign.publication import PublicAssault, public_assault
from rules.campaign.retreat import roll_retreat
from rules.campaign.sides import (
    GARRISON_STATES,
    allies_drawn_in,
    fighting_sides,
    garrison_armies,
    join_wars,
)
from rules.campaign.tick.events import (
    BattleFought,
    BattleVoid,
    Encounter,
    FateRolled,
    OpponentDecides,
    Retreated,
    RetreatFailed,
    RetreatReferred,
    SiegeEnded,
    Tick,
    TickEvent,
)
from rules.campaign.tick.movement import arrived, budget, meet
from rules.campaign.tick.siege import holdfast_falls, with_siege
from rules.campaign.upkeep import (
    record_loss,
)
from rules.campaign.world import (
    FREE_CHARACTERS,
    Army,
    ArmyKind,
    ArmyState,
    BattleKind,
    BattleState,
    BattleStatus,
    CharacterStatus,
    ClaimState,
    EventDice,
    March,
    Reaction,
    SiegeState,
    SiegeStatus,
    World,
    battle_side,
    captured,
    fighting_side,
    gone,
    in_army_order,
)
from rules.fairdice import claim_branch

# --- battles --------------------------------------------------------------------------------

def secret_defense(bonus: Decimal) -> Modifier:
    """A holdfast's secret defense bonus as a hidden strength modifier for its defenders."""
    return Modifier("holdfast defenses", Source.HOLDFAST,
                    (Effect(EffectKind.STRENGTH, bonus, Role.DEFENSE),),
                    label="holdfast defenses", hidden=True)


@dataclass(frozen=True, slots=True)
class _Contingent:
    """One body of a holdfast's garrison: army ``army`` (None: the troops at home) with its
    troops when the battle began."""

    army: int | None
    infantry: int
    cavalry: int


class _Battles:
    """One battle phase over working copies of the world's mappings."""

    def __init__(self, world: World, tick: Tick, dice: EventDice) -> None:
        self.world = world
        self.tick = tick
        self.dice = dice
        self.armies: dict[int, Army] = dict(world.armies)
        self.claims: dict[int, ClaimState] = dict(world.claims)
        self.events: list[TickEvent] = []
        self.date = calendar.game_date(calendar.tick_time(tick.index, tick.rules), tick.rules)
        self.new_sieges = 0

    # the world as it stands now
    def now(self) -> World:
        return replace(self.world, armies=self.armies, claims=self.claims)

    def take(self, world: World) -> None:
        self.world = world
        self.armies = dict(world.armies)
        self.claims = dict(world.claims)

    def set(self, a: Army) -> Army:
        self.armies[a.id] = a
        return a

    def set_battle(self, battle: BattleState) -> None:
        self.world = replace(self.world, battles=tuple(
            battle if b.id == battle.id else b for b in self.world.battles))

    def side(self, a: Army, role: Winner, *, assault: bool = False,
             began: int | None = None) -> Side:
        return fighting_side(self.world, a, role, map=self.tick.map, tick=self.tick.index,
                             modifiers=self.tick.modifiers, began=began, assault=assault)

    def record_slain(self, claim_id: int, infantry: int, cavalry: int) -> None:
        claim = self.claims.get(claim_id)
        if claim is None or not (infantry or cavalry):
            return
        self.claims[claim_id] = replace(
            claim, slain=record_loss(claim.slain, self.date, infantry, cavalry))

    def capture(self, a: Army) -> Army:
        """``a`` is captured: gone, its characters captives, no commander."""
        self.world = replace(self.world, characters=captured(self.world, [a.id]))
        return replace(gone(a, "were captured in battle"), commander_id=None)

    # the phase
    def fight_all(self) -> None:
        due = sorted((b for b in self.world.battles if b.id is not None
                      and b.status is BattleStatus.PENDING and b.resolve_tick <= self.tick.index),
                     key=lambda b: b.id or 0)
        for battle in self.strongest_first(due):
            if battle.kind is BattleKind.FIELD:
                self.field(battle)
            elif battle.kind is BattleKind.ASSAULT:
                self.assault(battle)
            else:
                self.sally(battle)

    def strongest_first(self, due: Sequence[BattleState]) -> list[BattleState]:
        """``due`` with the field battles of each tile that has several (three or more hostile
        claims there) fought the pair of sides with the largest total strength first; the
        survivors then meet the next. Tiles keep the order of their first battle."""
        by_tile: dict[str, list[BattleState]] = {}
        for b in due:
            by_tile.setdefault(b.tile, []).append(b)
        ordered: list[BattleState] = []
        for b in due:
            here = by_tile.pop(b.tile, None)
            if here is not None:
                ordered.extend(sorted(here, key=lambda x: (-self.total_strength(x), x.id or 0))
                               if len(here) > 1 else here)
        return ordered

    def total_strength(self, battle: BattleState) -> Decimal:
        """Both sides' strength of a field battle as it stands (0 for any other battle, or one
        whose armies have parted)."""
        att = self.armies.get(battle.attacker_army)
        dfd = self.armies.get(battle.defender_army)
        if battle.kind is not BattleKind.FIELD or att is None or dfd is None \
                or att.tile != dfd.tile:
            return Decimal(0)
        attackers, defenders = fighting_sides(
            self.now(), att, dfd, map=self.tick.map, tick=self.tick.index,
            modifiers=self.tick.modifiers, began=battle.created_tick)
        return side_strength([s for _, s in attackers], Role.ATTACK, self.tick.rules).value \
            + side_strength([s for _, s in defenders], Role.DEFENSE, self.tick.rules).value

    def void(self, battle: BattleState) -> None:
        """``battle`` does not happen (reported: both claims are told)."""
        battle = replace(battle, status=BattleStatus.VOID)
        self.set_battle(battle)
        self.events.append(BattleVoid(battle))

    def field(self, battle: BattleState) -> None:
        att = self.armies.get(battle.attacker_army)
        dfd = self.armies.get(battle.defender_army)
        if att is None or dfd is None or att.tile != dfd.tile \
                or ArmyState.GONE in (att.state, dfd.state):
            self.void(battle)
            return
        if battle.reaction is Reaction.RETREAT and battle.reactor_claim is not None:
            runner = att if att.claim_id == battle.reactor_claim else dfd
            if self.try_retreat(battle, runner):
                self.set_battle(replace(battle, status=BattleStatus.AVOIDED))
                return
            runner = self.armies[runner.id]
            if runner.retreat_penalty:  # the retreat failed: the opponent decides
                opponent = self.armies[dfd.id if runner.id == att.id else att.id]
                battle = replace(battle, reaction=Reaction.FAILED,
                                 reactor_claim=opponent.claim_id,
                                 resolve_tick=self.tick.index
                                 + max(1, self.tick.rules.reaction_ticks))
                self.set_battle(battle)
                self.events.append(OpponentDecides(battle, runner, opponent))
                return
            att, dfd = self.armies[att.id], self.armies[dfd.id]
        # Fought between sides: every army on the tile that joins either claim
        # (rules.campaign.sides). The defender bonus is the defenders': the attackers either
        # marched in (in transit) or left their position to attack, so they never have it; a
        # defender has it only if it stood there before the battle began.
        attackers, defenders = fighting_sides(
            self.now(), att, dfd, map=self.tick.map, tick=self.tick.index,
            modifiers=self.tick.modifiers, began=battle.created_tick)
        dice, event = self.dice.roll_for(f"battle:{battle.id or 0}", att, dfd)
        result = resolve_battle([side for _, side in attackers], [side for _, side in defenders],
                                dice=dice, rules=self.tick.rules)
        battle = replace(battle, status=BattleStatus.RESOLVED)
        self.set_battle(battle)
        self.world = join_wars(self.world, (a.claim_id for a, _ in attackers),
                               (a.claim_id for a, _ in defenders))
        self.apply_result(battle, result, att, dfd, hidden_defender=False,
                          dice_line=self.dice.line(event, dice),
                          joined=(tuple(a for a, _ in attackers[1:]),
                                  tuple(a for a, _ in defenders[1:])))

    def try_retreat(self, battle: BattleState, runner: Army) -> bool:
        chosen = runner.meta.get("retreat_route")
        route = list(chosen) if chosen else list(reversed(runner.travelled))
        if not route:  # nowhere to go: the moderators decide; nothing is rolled or lost
            self.events.append(RetreatReferred(battle, runner))
            return False
        dice, event = self.dice.roll_for(f"retreat:{battle.id or 0}", runner)
        result = roll_retreat(runner.infantry, runner.cavalry, runner.ships, dice=dice,
                              rules=self.tick.rules)
        line = self.dice.line(event, dice)
        if not result.success:
            runner = self.set(replace(runner, retreat_penalty=True))
            self.events.append(RetreatFailed(battle, runner, result, line, tuple(dice.rolls)))
            return False
        lost = result.lost
        runner = replace(runner, infantry=result.escaped.infantry,
                         cavalry=result.escaped.cavalry, ships=result.escaped.ships)
        self.record_slain(runner.claim_id, lost.infantry, lost.cavalry)
        runner = self.send_back(runner, route)
        self.events.append(Retreated(battle, runner, result, line, tuple(dice.rolls)))
        return True

    def send_back(self, a: Army, route: Sequence[str] | None = None) -> Army:
        """Sends an army back along ``route`` (default: the way it came); with no way back it
        stays. It sets off at once: the first tile is entered on the next tick."""
        back = list(route) if route is not None else list(reversed(a.travelled))
        a = a.with_meta(retreat_route=[])
        if not back:
            return self.set(replace(a, state=ArmyState.STANDING))
        rules = self.tick.rules
        costs = [entry_cost(self.tick.map.tile(t), a.kind, rules) or 1 for t in back]
        a = replace(a, state=ArmyState.RETREATING, travelled=(),
                    march=March(tuple(back), tuple(costs), Fraction(0), self.tick.index))
        a = a.with_meta(retreat_from=a.tile)
        a = replace(a, arrival_tick=self.tick.index + ticks_to_cross(costs, budget(a, self.tick)))
        return self.set(a)

    def garrison(self, claim: ClaimState, tile: str, states: frozenset[ArmyState]
                 ) -> list[_Contingent]:
        """The claim's troops at home, then its land armies on ``tile`` in ``states``
        (:func:`rules.campaign.sides.garrison_armies` for the whole garrison)."""
        return [_Contingent(None, claim.infantry, claim.cavalry), *(
            _Contingent(a.id, a.infantry, a.cavalry)
            for a in garrison_armies(self.world, claim.id, tile, self.armies.values())
            if a.state in states)]

    def garrison_side(self, claim: ClaimState, tile_id: str, garrison: Sequence[_Contingent],
                      *, defending: bool) -> Side:
        """A holdfast's garrison as one side: defending (stationary, with the secret defense
        bonus) against an assault, or riding out in a sally."""
        tile = self.tick.map.tile(tile_id)
        mods = (secret_defense(tile.defense_bonus),) \
            if defending and tile.defense_bonus != 1 else ()
        home = tuple(c for c in self.world.characters.values()
                     if c.claim_id == claim.id and c.army_id is None
                     and c.status in FREE_CHARACTERS)
        characters = (*(c.name for c in home), *(name for c in garrison if c.army is not None
                                                 for name in self.world.characters_with(c.army)))
        return battle_side(Winner.DEFENDER if defending else Winner.ATTACKER,
                           infantry=sum(c.infantry for c in garrison),
                           cavalry=sum(c.cavalry for c in garrison), terrain=tile.terrain,
                           stationary=defending,
                           modifiers=(*mods, *self.tick.modifiers.holdfast(claim.id,
                                                                            characters=home)),
                           characters=characters)

    def garrison_losses(self, claim_id: int, garrison: Sequence[_Contingent], infantry: int,
                        cavalry: int, *, captured: bool) -> None:
        """Share a garrison's losses among its contingents."""
        inf = split_losses([c.infantry for c in garrison], infantry)
        cav = split_losses([c.cavalry for c in garrison], cavalry)
        for c, lost_inf, lost_cav in zip(garrison, inf, cav, strict=True):
            if c.army is None:
                claim = self.claims[claim_id]
                left_inf, left_cav = claim.infantry - lost_inf, claim.cavalry - lost_cav
                self.claims[claim_id] = replace(
                    claim, infantry=left_inf, cavalry=left_cav,
                    scattered_infantry=min(claim.scattered_infantry, left_inf),
                    scattered_cavalry=min(claim.scattered_cavalry, left_cav))
                continue
            a = self.armies[c.army]
            a = replace(a, infantry=a.infantry - lost_inf, cavalry=a.cavalry - lost_cav)
            if captured:
                a = self.capture(a)
            elif a.infantry + a.cavalry == 0:
                a = gone(a, "fell in battle to the last man")
            self.set(a)
        if not captured:
            self.record_slain(claim_id, infantry, cavalry)

    def apply_result(self, battle: BattleState, result: BattleResult, att: Army | None,
                     dfd: Army | None, *, hidden_defender: bool,
                     garrison_claim: ClaimState | None = None,
                     garrison: Sequence[_Contingent] = (), dice_line: str = "",
                     public: PublicAssault | None = None,
                     joined: tuple[Sequence[Army], Sequence[Army]] = ((), ())) -> None:
        """Apply a battle's losses; the side with no army is ``garrison_claim``'s
        ``garrison`` (its troops at home and its armies in the holdfast), whose losses are
        shared. ``joined``: the other armies of each side (after ``att`` and ``dfd``, in the
        side's order), each taking its own part of the losses. The beaten armies go back the
        way they came (or behind their own walls)."""
        after: list[Army | None] = []
        others: list[Army] = []
        for which, a, more in ((Winner.ATTACKER, att, joined[0]),
                               (Winner.DEFENDER, dfd, joined[1])):
            side = result.side(which)
            if a is not None:
                hit = [self.take_losses(army, part)
                       for army, part in zip((a, *more), side.armies(), strict=True)]
                a = hit[0]
                others.extend(hit[1:])
            elif garrison_claim is not None:
                self.garrison_losses(garrison_claim.id, garrison, side.losses.infantry,
                                     side.losses.cavalry, captured=side.captured)
            after.append(a)
        fates = self.settle_fates(battle, result, after[0], after[1], joined)
        after = [self.armies[a.id] if a is not None else None for a in after]
        beaten = joined[0] if result.winner is Winner.DEFENDER else joined[1]
        self.beaten(after[0] if result.winner is Winner.DEFENDER else after[1])
        for a in beaten:
            self.beaten(self.armies[a.id])
        # the event holds the armies as the battle left them: a beaten one turning back
        after = [self.armies[a.id] if a is not None else None for a in after]
        self.events.append(BattleFought(
            battle, result, after[0], after[1], hidden_defender,
            garrison_claim.id if garrison_claim is not None else None, dice_line, public,
            fates, tuple(self.armies[a.id] for a in others), len(joined[0])))

    def take_losses(self, a: Army, part: SideResult) -> Army:
        """Army ``a`` takes its ``part`` of a side's losses (captured, or gone to the last
        man); the slain are counted for regeneration."""
        a = replace(a, infantry=a.infantry - part.losses.infantry,
                    cavalry=a.cavalry - part.losses.cavalry,
                    ships=a.ships - part.losses.ships, retreat_penalty=False)
        if part.captured:
            a = self.capture(a)
        elif a.size == 0:
            a = gone(a, "fell in battle to the last man")
        self.set(a)
        if not part.captured:
            self.record_slain(a.claim_id, part.losses.infantry, part.losses.cavalry)
        return a

    def beaten(self, loser: Army | None) -> None:
        """A beaten army still standing goes back the way it came, or behind its own walls."""
        if loser is not None and loser.state is not ArmyState.GONE:
            home = self.claims.get(loser.claim_id)
            if not loser.travelled and home is not None and home.holdfast == loser.tile \
                    and loser.kind is ArmyKind.LAND:
                # No way back, but home: the beaten army withdraws behind its own walls,
                # where only an assault or a siege can reach it.
                self.set(replace(loser, state=ArmyState.GARRISON))
            else:  # with no way back it stays, and meets the winner again (meetings)
                self.send_back(loser)

    def settle_fates(self, battle: BattleState, result: BattleResult, att: Army | None,
                     dfd: Army | None, joined: tuple[Sequence[Army], Sequence[Army]] = ((), ())
                     ) -> tuple[FateRolled, ...] | None:
        """Roll the fate table of each character the battle called to a death or an injury
        roll (dice key ``fate:<battle id>:<name>``, the armies' last orders as entropy), when
        the campaign has the bot roll them (None when it does not). A character killed is dead
        at once: it fights in no later battle and its army loses it as commander."""
        settings = self.tick.fates
        if not settings.roll:
            return None
        claims = {Winner.ATTACKER: battle.attacker_claim, Winner.DEFENDER: battle.defender_claim}
        rolled: list[FateRolled] = []
        for which, more in ((Winner.ATTACKER, joined[0]), (Winner.DEFENDER, joined[1])):
            parts = result.side(which).armies()
            # each army of a side rolls for its own characters (its claim's)
            owners = (claims[which], *(a.claim_id for a in more))
            for owner, part in zip(owners, parts, strict=True):
                rolled.extend(self.settle_part(battle, which, owner, part, att, dfd))
        return tuple(rolled)

    def settle_part(self, battle: BattleState, which: Winner, claim_id: int, part: SideResult,
                    att: Army | None, dfd: Army | None) -> list[FateRolled]:
        """The fate-table rolls of one army's characters (claim ``claim_id``)."""
        settings = self.tick.fates
        rolled: list[FateRolled] = []
        for fate in part.fates:
            if fate.fate not in (Fate.DEATH_ROLL, Fate.INJURY_ROLL):
                continue
            dice, event = self.dice.roll_for(f"fate:{battle.id or 0}:{fate.name}", att, dfd)
            roll = settle_fate(fate, dice=dice, death_table=settings.death_table,
                               injury_table=settings.injury_table)
            if roll is None:
                continue
            dies = settings.kills(fate, roll)
            if dies:
                self.kill(claim_id, fate.name)
            rolled.append(FateRolled(which, claim_id, fate.name, roll, dies,
                                     self.dice.line(event, dice), tuple(dice.rolls)))
        return rolled

    def kill(self, claim_id: int, name: str) -> None:
        """Claim ``claim_id``'s free character ``name`` (the first by id) is dead; the army it
        commanded has no commander."""
        for c in self.world.characters.values():
            if c.claim_id != claim_id or c.name != name or c.status not in FREE_CHARACTERS:
                continue
            a = self.armies.get(c.army_id) if c.army_id is not None else None
            if a is not None and a.commander_id == c.id:
                self.set(replace(a, commander_id=None))
            self.world = replace(self.world, characters={
                **self.world.characters,
                c.id: replace(c, status=CharacterStatus.DEAD, army_id=None)})
            return

    def active_siege(self, holdfast: str) -> SiegeState | None:
        return next((s for s in self.world.sieges if s.holdfast == holdfast
                     and s.status is SiegeStatus.ACTIVE), None)

    def assault(self, battle: BattleState) -> None:
        att = self.armies.get(battle.attacker_army)
        claim = self.claims.get(battle.defender_claim)
        if att is None or claim is None or att.tile != battle.holdfast \
                or att.state is ArmyState.GONE:
            self.void(battle)
            return
        # Every troop of the claim on the tile defends: at home, mustering, standing, or back
        # inside after a sally; they share the holdfast's fate.
        garrison = self.garrison(claim, battle.holdfast, _DEFENDING)
        # Assault dice would show the secret bonus: they come from the claimant's own branch.
        dice, event = self.dice.roll_for(f"battle:{battle.id or 0}", att,
                                         branch=claim_branch(claim.id))
        sides = (self.side(att, Winner.ATTACKER, assault=True),
                 self.garrison_side(claim, battle.holdfast, garrison, defending=True))
        result = resolve_battle(*sides, dice=dice, rules=self.tick.rules)
        battle = replace(battle, status=BattleStatus.RESOLVED)
        self.set_battle(battle)
        self.apply_result(battle, result, att, None, hidden_defender=True,
                          garrison_claim=claim, garrison=garrison,
                          dice_line=self.dice.line(event, dice),
                          public=public_assault(*sides, result, self.tick.rules))
        if result.winner is not Winner.ATTACKER:
            return
        siege = self.active_siege(battle.holdfast)
        if siege is None:  # not stored yet: a negative id until the services store it
            self.new_sieges += 1
            siege = SiegeState(-self.new_sieges, army_id=att.id, besieger_claim=att.claim_id,
                               defender_claim=claim.id, holdfast=battle.holdfast,
                               started_tick=self.tick.index)
            self.world = replace(self.world, sieges=(*self.world.sieges, siege))
        att = self.armies[att.id]
        if att.state is not ArmyState.GONE:  # the battle may have captured it
            self.set(replace(att, state=ArmyState.STANDING, tile=battle.holdfast))
        world, fall = holdfast_falls(self.now(), siege, "taken by assault")
        self.take(world)
        self.events.append(fall)

    def sally(self, battle: BattleState) -> None:
        besieger = self.armies.get(battle.defender_army)
        claim = self.claims.get(battle.attacker_claim)
        siege = self.active_siege(battle.holdfast)
        if besieger is None or claim is None or siege is None \
                or besieger.state is not ArmyState.BESIEGING:
            self.void(battle)  # (the siege ended: the sally's side is told)
            return
        sally_army = self.armies.get(battle.attacker_army) if battle.attacker_army else None
        garrison: list[_Contingent] = []
        if sally_army is not None:
            if sally_army.state is not ArmyState.GARRISON:
                # only ready troops inside the walls sally
                self.void(battle)
                return
            sally_side = self.side(sally_army, Winner.ATTACKER)
        else:  # the whole ready garrison: the troops at home and the armies inside
            garrison = self.garrison(claim, battle.holdfast, frozenset({ArmyState.GARRISON}))
            sally_side = self.garrison_side(claim, battle.holdfast, garrison, defending=False)
        dice, event = self.dice.roll_for(f"battle:{battle.id or 0}", sally_army, besieger)
        result = resolve_battle(sally_side, self.side(besieger, Winner.DEFENDER),
                                dice=dice, rules=self.tick.rules)
        battle = replace(battle, status=BattleStatus.RESOLVED)
        self.set_battle(battle)
        self.apply_result(battle, result, sally_army, besieger, hidden_defender=False,
                          garrison_claim=None if sally_army else claim, garrison=garrison,
                          dice_line=self.dice.line(event, dice))
        besieger = self.armies[besieger.id]
        if result.winner is Winner.ATTACKER and besieger.state is ArmyState.STANDING:
            # beaten with no way back, the besiegers hold the tile: the siege goes on
            self.set(replace(besieger, state=ArmyState.BESIEGING))
        elif result.winner is Winner.ATTACKER:  # the sally breaks the siege: say how
            how = besieger.meta.get("fate") if besieger.state is ArmyState.GONE else None
            broken = replace(siege, status=SiegeStatus.BROKEN)
            self.world = replace(self.world, sieges=with_siege(self.world.sieges, broken))
            self.events.append(SiegeEnded(broken, str(how or "were driven off by a sally")))
        elif sally_army is not None and self.armies[sally_army.id].state is not ArmyState.GONE:
            a = self.armies[sally_army.id]
            self.set(replace(a, state=ArmyState.GARRISON, tile=battle.holdfast,
                             march=replace(a.march, path=(), costs=())))


_DEFENDING = GARRISON_STATES
"""The states of a claim's armies on its holdfast that defend it against an assault."""


def advance_battles(world: World, tick: Tick, dice: EventDice
                    ) -> tuple[World, list[TickEvent]]:
    """Every pending battle whose reaction window has closed (by id) is decided (see the
    module's docstring). A holdfast taken by assault with no siege before it gets a new
    :class:`~rules.campaign.world.SiegeState` with a negative id (the services store it).
    The world needs its free characters (they fight with their armies)."""
    phase = _Battles(world, tick, dice)
    phase.fight_all()
    return phase.now(), phase.events


# --- meetings -------------------------------------------------------------------------------

_MEETING = (ArmyState.STANDING, ArmyState.BESIEGING, ArmyState.MARCHING, ArmyState.RETREATING)
"""The states of the armies that meet a hostile army on their tile."""


def advance_meetings(world: World, tick: Tick) -> tuple[World, list[TickEvent]]:
    """Every pair of hostile armies left sharing a tile after the tick's moves and battles
    meets in a battle (:mod:`rules.campaign.meetings`); armies on the move stop to fight.

    Armies already in a pending battle start no new one; two armies let stay after a failed
    retreat (a spared battle) share that tile in peace.
    """
    if not world.wars:  # (only armies of claims at war meet)
        return world, []
    busy: set[int] = set()
    spared: set[tuple[int, int, str]] = set()
    for b in world.battles:
        if b.status is BattleStatus.PENDING:
            busy.update((b.attacker_army, b.defender_army))
        elif b.status is BattleStatus.SPARED:
            spared.update(((b.attacker_army, b.defender_army, b.tile),
                           (b.defender_army, b.attacker_army, b.tile)))
    warring = {claim for pair in world.wars for claim in pair}
    retreating = ArmyState.RETREATING  # (looked up once: a member looked up on its enum
    # costs several times what the test does)
    present = [a for a in world.armies.values()
               if a.claim_id in warring and a.state in _MEETING
               and not (a.state is retreating and a.meta.get("retreat_from") == a.tile)]
    # (an army of a claim at war with nobody meets nobody; a retreating army leaving the battle
    # it escaped meets nobody there)
    # Only tiles where two claims' armies stand can hold a meeting.
    first_claim: dict[str, int] = {}
    shared: set[str] = set()
    for a in present:
        if first_claim.setdefault(a.tile, a.claim_id) != a.claim_id:
            shared.add(a.tile)
    presences = []
    for rank, a in enumerate(in_army_order(a for a in present if a.tile in shared)):
        moving = a.state in (ArmyState.MARCHING, ArmyState.RETREATING) \
            and marches_on(tick.index, a.march.depart_tick)
        presences.append(Presence(a.id, a.claim_id, a.tile, a.kind,
                                  None if moving else a.stationary_since, rank))
    armies = dict(world.armies)
    battles = list(world.battles)
    events: list[TickEvent] = []
    pending = {(b.tile, frozenset((b.attacker_claim, b.defender_claim))) for b in world.battles
               if b.status is BattleStatus.PENDING}
    for attacker, defender in hostile_meetings(presences, world.at_war, busy):
        if (attacker.army, defender.army, attacker.tile) in spared \
                or (attacker.tile, frozenset((attacker.claim, defender.claim))) in pending:
            continue  # (a battle of their claims is pending there: they fight in it)
        for stopping in (attacker.army, defender.army):
            if armies[stopping].state in (ArmyState.MARCHING, ArmyState.RETREATING):
                armies[stopping] = arrived(armies[stopping], tick.index)  # both stop to fight
        att, dfd = armies[attacker.army], armies[defender.army]
        # both came this tick (on the move, or stopped by the meeting): both were marching
        battle = meet(att, dfd, tick, world.new_battle_id(battles), both_marching=all(
            p.since is None or p.since == tick.index for p in (attacker, defender)))
        battles.append(battle)
        events.append(Encounter(att, dfd, battle,
                                allies_drawn_in(replace(world, armies=armies), att, dfd)))
    if not events:
        return world, events
    return replace(world, armies=armies, battles=tuple(battles)), events
