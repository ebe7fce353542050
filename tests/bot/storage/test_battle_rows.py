"""bot.storage.battle_rows on SQLite and PostgreSQL: battles are stored under the next free
numbers, decided by the stored rows alone (issue #25): the numbers the rules give the battles
a tick begins are kept, a transaction rolled back and run again numbers its battles the same
(no sequence is consumed), and numbers another writer took meanwhile are not reused."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from bot.db.engine import transaction
from bot.db.models import Campaign
from bot.storage.battle_rows import insert_battles, load_battles, next_battle_id
from rules.campaign.world import BattleKind, BattleState, BattleStatus


def _campaign(engine: Engine) -> int:
    with transaction(engine) as session:
        campaign = Campaign(name="Battles", secret="not-a-real-secret")
        session.add(campaign)
        session.flush()
        return campaign.id or 0


def _battle(battle_id: int | None, attacker: int = 1) -> BattleState:
    return BattleState(battle_id, tile="0101", kind=BattleKind.FIELD, attacker_army=attacker,
                       defender_army=attacker + 1, attacker_claim=1, defender_claim=2,
                       created_tick=5, resolve_tick=6, reactor_claim=1)


def test_the_rules_numbers_are_kept_and_a_rolled_back_insert_numbers_the_same(
        engine: Engine) -> None:
    cid = _campaign(engine)
    with transaction(engine) as session:
        assert next_battle_id(session) == 1
        assert insert_battles(session, cid, [_battle(1), _battle(2, attacker=3)]) == [1, 2]
    for _ in range(2):  # begun, rolled back (a crash), begun again: the same numbers
        with Session(engine) as session, session.begin():
            first = next_battle_id(session)
            ids = insert_battles(session, cid, [_battle(first, attacker=5),
                                                _battle(first + 1, attacker=7)])
            assert ids == [3, 4]
            session.rollback()
    with transaction(engine) as session:
        assert next_battle_id(session) == 3
        assert insert_battles(session, cid, [_battle(None, attacker=9)]) == [3]  # an order's
        stored = load_battles(session, cid, (BattleStatus.PENDING,))
    assert [(b.id, b.attacker_army) for b in stored] == [(1, 1), (2, 3), (3, 9)]


def test_numbers_taken_meanwhile_are_not_reused(engine: Engine) -> None:
    cid = _campaign(engine)
    with transaction(engine) as session:
        insert_battles(session, cid, [_battle(None)])
    with transaction(engine) as session:  # the rules numbered from 1 when they read the world
        assert insert_battles(session, cid, [_battle(1, attacker=3), _battle(2, attacker=5)]
                              ) == [2, 3]
        stored = load_battles(session, cid, (BattleStatus.PENDING,))
    assert [(b.id, b.attacker_army) for b in stored] == [(1, 1), (2, 3), (3, 5)]
