"""bot.storage.world_rows on SQLite and PostgreSQL: every field of the claims, sieges,
characters, resource tile holders and relations survives a load and a save; only the rows and
columns that changed are written; the statements of a save do not grow with the rows; ORM
objects the session holds for the same rows see the written values and do not write older
ones back."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy import Engine, event, select
from sqlmodel import Session

from bot.db.engine import transaction
from bot.db.models import (
    Army,
    Campaign,
    Character,
    Claim,
    Relation,
    ResourceHolder,
    Siege,
)
from bot.services.orders import order_savepoint
from bot.storage.world_rows import (
    CLAIM_TABLE,
    ledger_to_json,
    load_characters,
    load_claims,
    load_holders,
    load_relations,
    load_sieges,
    next_siege_ids,
    save_world,
)
from rules.campaign import calendar
from rules.campaign.upkeep import SlainLedger, SlainLoss
from rules.campaign.world import (
    ArmyState,
    CharacterState,
    CharacterStatus,
    ClaimState,
    HolderState,
    RelationStatus,
    SiegeState,
    SiegeStatus,
    World,
    war_key,
)

SCATTERED = datetime(2026, 12, 1, 6, 30, 15, 123456, tzinfo=UTC)
LEDGER = SlainLedger((SlainLoss(calendar.GameDate(300, 4), 120, 30, 40, 10, Fraction(1, 3),
                                Fraction(2, 7)),
                      SlainLoss(calendar.GameDate(300, 5), 7, 0, 0, 0, Fraction(0),
                                Fraction(5, 2))),
                     calendar.GameDate(300, 6))
IMPROVEMENTS = [{"name": "Walls", "holdfast": "0101", "cost": "150.5", "ready_month": 7,
                 "done": False}, {"capacity": {"infantry": 100, "cavalry": 0}}]


def _campaign(session: Session, claims: int = 3) -> tuple[int, list[int], int]:
    """A campaign with ``claims`` claims (the first with every field set), one army; returns
    (campaign id, claim ids, army id)."""
    campaign = Campaign(name="Rows", secret="not-a-real-secret")
    session.add(campaign)
    session.flush()
    cid = campaign.id or 0
    rows = [Claim(campaign_id=cid, name=f"House {i}", holdfast=f"{i:02d}01",
                  gold=Decimal("1234.5678") if i == 0 else Decimal(i), infantry=10 * i,
                  cavalry=i, ships=i % 2,
                  scattered_until=SCATTERED if i == 0 else None, scattered_infantry=i,
                  scattered_cavalry=0, slain_json=ledger_to_json(LEDGER) if i == 0 else [],
                  improvements_json=IMPROVEMENTS if i == 0 else [])
            for i in range(claims)]
    session.add_all(rows)
    session.flush()
    army = Army(campaign_id=cid, claim_id=rows[0].id or 0, tile="0101",
                state=ArmyState.BESIEGING, infantry=50)
    session.add(army)
    session.flush()
    return cid, [c.id or 0 for c in rows], army.id or 0


def _rest(session: Session, cid: int, claims: list[int], army: int) -> None:
    """Sieges, characters, holders and relations for the campaign."""
    a, b, c = claims[:3]
    session.add_all([
        Siege(campaign_id=cid, army_id=army, besieger_claim=a, defender_claim=b,
              holdfast="0201", started_tick=4, months_elapsed=2, months_required=9,
              paused=True),
        Siege(campaign_id=cid, army_id=army, besieger_claim=a, defender_claim=c,
              holdfast="0301", started_tick=1, status=SiegeStatus.FALLEN),
        Character(campaign_id=cid, claim_id=a, name="Arya", skills_json=["Stealthy", "Swift"],
                  army_id=army, status=CharacterStatus.WOUNDED),
        Character(campaign_id=cid, claim_id=b, name="Bran", status=CharacterStatus.DEAD),
        ResourceHolder(campaign_id=cid, tile="0505", claim_id=a, ceded_to=b),
        ResourceHolder(campaign_id=cid, tile="0606"),
        Relation(campaign_id=cid, claim_a=a, claim_b=b, status=RelationStatus.WAR),
        Relation(campaign_id=cid, claim_a=a, claim_b=c, status=RelationStatus.ALLIED),
        Relation(campaign_id=cid, claim_a=b, claim_b=c, status=RelationStatus.NEUTRAL),
    ])
    session.flush()


def _load(session: Session, cid: int) -> World:
    wars, allies = load_relations(session, cid)
    return World(claims=load_claims(session, cid),
                 sieges=load_sieges(session, cid, tuple(SiegeStatus)),
                 characters=load_characters(session, cid), holders=load_holders(session, cid),
                 wars=wars, allies=allies)


@contextmanager
def _statements(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
    """The SQL statements run meanwhile, each with its list of parameter sets (one per row of
    an executemany)."""
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        seen.append((statement, parameters if executemany else [parameters]))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_every_field_is_loaded_as_stored(engine: Engine) -> None:
    with transaction(engine) as session:
        cid, claims, army = _campaign(session)
        _rest(session, cid, claims, army)
    a, b, c = claims
    with transaction(engine) as session:
        world = _load(session, cid)
    first = world.claims[a]
    assert first == ClaimState(a, "House 0", "0001", Decimal("1234.5678"), 0, 0, 0, 0, 0,
                               SCATTERED, LEDGER)
    assert isinstance(first.gold, Decimal) and first.scattered_until == SCATTERED
    assert first.improvements == tuple(IMPROVEMENTS)
    assert world.claims[c] == ClaimState(c, "House 2", "0201", Decimal(2), 20, 2, 0, 2, 0)
    assert world.sieges[0] == SiegeState(world.sieges[0].id, army, a, b, "0201", 4, 2, 9, True,
                                         SiegeStatus.ACTIVE)
    assert world.sieges[1].status is SiegeStatus.FALLEN
    arya, bran = world.characters.values()
    assert arya == CharacterState(min(world.characters), a, "Arya", ("Stealthy", "Swift"), army,
                                  CharacterStatus.WOUNDED)
    assert bran.status is CharacterStatus.DEAD and bran.skills == ()
    assert world.holders == {"0505": HolderState("0505", a, b), "0606": HolderState("0606")}
    assert world.wars == {war_key(a, b)} and world.allies == {war_key(a, c)}
    with transaction(engine) as session:
        assert load_sieges(session, cid) == (world.sieges[0],)  # active ones by default
        assert list(load_characters(session, cid, (CharacterStatus.DEAD,)).values()) == [bran]


def test_every_changed_field_is_written_and_read_back(engine: Engine) -> None:
    with transaction(engine) as session:
        cid, claims, army = _campaign(session)
        _rest(session, cid, claims, army)
    a, b, c = claims
    ledger = SlainLedger((SlainLoss(calendar.GameDate(301, 1), 5, 6, 1, 2, Fraction(3, 4),
                                    Fraction(1, 9)),), calendar.GameDate(301, 2))
    until = datetime(2027, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
    improvements = ({"name": "Walls", "holdfast": "0101", "cost": "150.5", "ready_month": 7,
                     "done": True}, {"capacity": {"infantry": 100, "cavalry": 20}})
    with transaction(engine) as session:
        before = _load(session, cid)
        siege, fallen = before.sieges
        arya, bran = before.characters.values()
        after = replace(
            before,
            claims={**before.claims, a: replace(
                before.claims[a], name="House Zero", holdfast="0909", gold=Decimal("0.0001"),
                infantry=1, cavalry=2, ships=3, scattered_infantry=1, scattered_cavalry=2,
                scattered_until=until, slain=ledger, improvements=improvements),
                c: replace(before.claims[c], scattered_until=None, gold=Decimal("-7.5"))},
            sieges=(replace(siege, months_elapsed=3, months_required=10, paused=False,
                            status=SiegeStatus.LIFTED, holdfast="0202", started_tick=5,
                            besieger_claim=c, defender_claim=a), fallen,
                    SiegeState(-1, army, b, c, "0303", 9, 0, 6, False, SiegeStatus.FALLEN)),
            characters={arya.id: replace(arya, army_id=None, status=CharacterStatus.CAPTURED,
                                         name="Arya Stark", skills=("Swift",), claim_id=b),
                        bran.id: bran},
            holders={"0505": HolderState("0505", b, None), "0606": HolderState("0606", c, a),
                     "0707": HolderState("0707", a, None)},
            wars=frozenset({war_key(b, c)}), allies=frozenset({war_key(a, b)}))
        saved_world, saved = save_world(session, cid, before, after)
    new_id = saved.siege_ids[-1]
    assert new_id > fallen.id and saved_world.sieges[2].id == new_id
    assert saved.changed == {"claim": 2, "siege": 1, "character": 1, "resourceholder": 2,
                             "relation": 3}
    assert saved.added == {"siege": 1, "resourceholder": 1}
    with transaction(engine) as session:
        again = _load(session, cid)
        stored_slain = session.connection().execute(
            select(CLAIM_TABLE.c.slain_json).where(CLAIM_TABLE.c.id == a)).scalar_one()
    assert again.claims == saved_world.claims
    assert again.claims[a].improvements == improvements and again.claims[a].slain == ledger
    assert again.claims[a].scattered_until == until and again.claims[c].scattered_until is None
    assert again.claims[c].gold == Decimal("-7.5") and again.claims[b] == before.claims[b]
    assert stored_slain == ledger_to_json(ledger)
    assert again.sieges == tuple(sorted(saved_world.sieges, key=lambda s: s.id))
    assert again.characters == saved_world.characters
    assert again.holders == saved_world.holders
    assert again.wars == {war_key(b, c)} and again.allies == {war_key(a, b)}


def test_only_changed_rows_and_columns_are_written(engine: Engine) -> None:
    with transaction(engine) as session:
        cid, claims, army = _campaign(session, claims=6)
        _rest(session, cid, claims, army)
    with transaction(engine) as session:
        before = _load(session, cid)
        a, b = claims[1], claims[4]
        after = replace(before, claims={
            **before.claims, a: replace(before.claims[a], gold=Decimal(99)),
            b: replace(before.claims[b], gold=Decimal(98), infantry=1)})
        with _statements(engine) as seen:
            save_world(session, cid, before, after)
        updates = [(sql, params) for sql, params in seen if sql.startswith("UPDATE")]
        assert len(updates) == 2  # one per set of changed columns
        set_clauses = [(sql.split(" SET ")[1].split(" WHERE ")[0], params)
                       for sql, params in updates]
        by_columns = {frozenset(re.findall(r"(\w+)\s*=", clause)): params
                      for clause, params in set_clauses}
        assert set(by_columns) == {frozenset({"gold"}), frozenset({"gold", "infantry"})}
        assert all(len(params) == 1 for params in by_columns.values())  # one row each
        with _statements(engine) as seen:
            unchanged, saved = save_world(session, cid, after, after)
        assert seen == [] and saved.statements == 0 and unchanged is after
    with transaction(engine) as session:
        now = load_claims(session, cid)
    assert now == after.claims


def test_statements_do_not_grow_with_the_rows(engine: Engine) -> None:
    counts = []
    for size in (3, 40):
        with transaction(engine) as session:
            cid, claims, army = _campaign(session, claims=size)
            session.add_all([Character(campaign_id=cid, claim_id=i, name=f"C{i}")
                             for i in claims])
            session.add_all([Siege(campaign_id=cid, army_id=army, besieger_claim=i,
                                   defender_claim=i, holdfast=f"{n:04d}", started_tick=0)
                             for n, i in enumerate(claims)])
            session.add_all([ResourceHolder(campaign_id=cid, tile=f"{n:04d}")
                             for n in range(size)])
        with transaction(engine) as session:
            before = _load(session, cid)
            after = replace(
                before,
                claims={i: replace(c, gold=c.gold + 1, slain=LEDGER)
                        for i, c in before.claims.items()},
                sieges=(*(replace(s, months_elapsed=1) for s in before.sieges),
                        *(SiegeState(-n, army, i, i, "9999", 1)
                          for n, i in enumerate(claims, start=1))),
                characters={i: replace(ch, army_id=army)
                            for i, ch in before.characters.items()},
                holders={**{t: HolderState(t, claims[0]) for t in before.holders},
                         **{f"x{n}": HolderState(f"x{n}", claims[1]) for n in range(size)}},
                wars=frozenset(war_key(claims[0], i) for i in claims[1:]))
            with _statements(engine) as seen:
                _, saved = save_world(session, cid, before, after)
            counts.append((len(seen), saved.statements))
            assert saved.changed["claim"] == size and saved.added["siege"] == size
        with transaction(engine) as session:
            assert _load(session, cid).claims == after.claims
    assert counts[0] == counts[1], counts
    # claims (two sets of columns: the first claim's ledger was already the same), sieges
    # (update, insert), characters, holders (update, insert), relations (which pairs have a
    # row, insert); the flush before them has nothing to write
    assert counts[0] == (9, 9)


def test_orm_objects_of_the_rows_see_the_writes_and_keep_them(engine: Engine) -> None:
    """The lost-write hazard: an ORM object of a row the Core save writes, changed before
    (not yet flushed) and after the save, keeps both changes and reads the saved values."""
    with transaction(engine) as session:
        cid, claims, army = _campaign(session)
        _rest(session, cid, claims, army)
    a = claims[0]
    with transaction(engine) as session:
        row = session.get(Claim, a)
        assert row is not None
        holder = session.exec(select(ResourceHolder).where(  # type: ignore[call-overload]
            ResourceHolder.campaign_id == cid, ResourceHolder.tile == "0505")).one()[0]
        before = _load(session, cid)
        row.ships = 7  # an ORM change not yet flushed (the month's job, say)
        session.add(row)
        after = replace(before, claims={**before.claims, a: replace(
            before.claims[a], gold=Decimal(5), infantry=44)},
            holders={**before.holders, "0505": HolderState("0505", None, None)})
        save_world(session, cid, before, after)
        assert row.gold == Decimal(5) and row.infantry == 44 and row.ships == 7
        assert holder.claim_id is None and holder.ceded_to is None
        assert a not in {o.id for o in session.dirty if isinstance(o, Claim)}
        row.cavalry = 3  # an ORM change after the save: flushed with the transaction
        session.add(row)
    with transaction(engine) as session:
        stored = load_claims(session, cid)[a]
        assert load_holders(session, cid)["0505"] == HolderState("0505")
    assert (stored.gold, stored.infantry, stored.ships, stored.cavalry) == (Decimal(5), 44, 7, 3)


def test_a_failed_order_leaves_no_written_value_in_the_orm_objects(engine: Engine) -> None:
    """An order's savepoint rolled back after a Core save: the rows and the ORM objects of the
    session are as before the order."""
    with transaction(engine) as session:
        cid, claims, _ = _campaign(session)
    a = claims[0]
    with transaction(engine) as session:
        row = session.get(Claim, a)
        assert row is not None and row.gold == Decimal("1234.5678")
        before = _load(session, cid)
        try:
            with order_savepoint(session):
                save_world(session, cid, before, replace(before, claims={
                    **before.claims, a: replace(before.claims[a], gold=Decimal(1))}))
                assert row.gold == Decimal(1)
                raise RuntimeError("the order fails after its save")
        except RuntimeError:
            pass
        assert row.gold == Decimal("1234.5678")
        assert load_claims(session, cid)[a].gold == Decimal("1234.5678")


def test_next_siege_ids_are_the_ids_save_world_then_gives(engine: Engine) -> None:
    """A preview numbers the sieges a tick begins as the tick will store them
    (:func:`next_siege_ids`, read without taking them), also after a rolled-back insert moved
    PostgreSQL's sequence on (SQLite takes the next id after the largest again)."""
    with transaction(engine) as session:
        cid, claims, army = _campaign(session)
        _rest(session, cid, claims, army)
    a, b, c = claims
    new = (SiegeState(-1, army, b, c, "0303", 9), SiegeState(-2, army, c, a, "0404", 9))

    class Undone(Exception):
        pass

    try:
        with transaction(engine) as session:
            before = _load(session, cid)
            save_world(session, cid, before, replace(before, sieges=(*before.sieges, new[0])))
            raise Undone
    except Undone:
        pass
    with transaction(engine) as session:
        shown = next_siege_ids(session, 2)
        assert next_siege_ids(session, 2) == shown  # reading takes nothing
        before = _load(session, cid)
        _, saved = save_world(session, cid, before, replace(before, sieges=(*before.sieges,
                                                                              *new)))
    assert [saved.siege_ids[-1], saved.siege_ids[-2]] == shown
