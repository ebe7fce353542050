"""No lost write when the ORM and the tick's bulk Core statements change the same rows in one
tick: the month's improvement job (ORM) and the upkeep and the battle's losses (Core) change
one claim, a fate roll's death (ORM) and the battle (Core) one character and its army, the
battle ends a siege (Core, announced by ``end_siege``); every change is in the database after
the tick, and the next tick keeps them."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from bot.db.models import ArmyState, CharacterStatus, SiegeStatus
from tests.bot.catalogue_world import World, roster
from tests.bot.test_modifiers_in_play import ALL_FALL, day


def test_a_month_job_a_fate_death_and_a_siege_end_in_one_tick_all_stay(tmp_path: Path
                                                                        ) -> None:
    w = World(tmp_path, claims=roster("tully", "lannister"), rules=ALL_FALL,
              characters={"roll_fates": True, "death_table": {"1-100": "dies"}})
    built = w.say("hoster_tully", "build Barracks at Riverrun\nmuster 100 infantry\n"
                  "assign Brynden Tully to army 1\nmuster 100 infantry")
    assert "Upkeep while raised: 10 gold a month" in built
    w.say("tywin_lannister", "muster 100 infantry")
    w.run(day(1, 12))
    w.place(1, "Casterly Rock")
    w.place(2, "0436")
    w.place(3, "0436")  # off the holdfast: the siege may begin
    assert "besieges Casterly Rock" in w.say("hoster_tully", "siege Casterly Rock with army 1",
                                             at=day(1, 13))
    # a first battle, before the month: both armies fall, Tully's 100 go to its ledger
    w.say("hoster_tully", "attack army 3 with army 2", at=day(1, 13))
    # the garrison sallies at the tick that also begins an in-game month
    assert "2026-11-24 00:00 UTC" in w.say("tywin_lannister", "sally from Casterly Rock",
                                           at=day(1, 19))
    w.run(day(1, 18))
    tully, lannister = w.claim("House Tully"), w.claim("House Lannister")
    siege = w.siege()
    assert siege.status is SiegeStatus.ACTIVE and w.character("Brynden Tully").army_id == 1
    assert [loss["infantry"] for loss in tully.slain_json if "month" in loss] == [100]

    events = w.run(day(2, 0))  # month jobs, then the sally: everything changes at once
    assert "House Tully finishes Barracks at Riverrun" in events
    [regained] = [int(e.split()[3]) for e in events if e.startswith("House Tully regains")]
    assert regained > 0
    assert any(e.startswith("the siege of Casterly Rock ends") for e in events)
    for _ in range(2):  # after the tick, and after a quiet tick more
        now = w.claim("House Tully")
        # the month's job (ORM): the barracks finished, +200 troops at home; regeneration
        # (Core) changed the same column in the same tick
        assert now.improvements_json[0]["done"] is True
        assert now.improvements_json[1] == {"capacity": {"infantry": 200, "cavalry": 0}}
        assert now.infantry == tully.infantry + 200 + regained
        # the upkeep of army 1 (Core): 10 gold; the sally (Core): army 1's 100 in the ledger
        assert now.gold == tully.gold - Decimal(10)
        assert [loss["infantry"] for loss in now.slain_json if "month" in loss] == [100, 100]
        # the garrison that sallied fell (Core)
        assert w.claim("House Lannister").infantry == 0 < lannister.infantry
        # the fate roll (ORM): dead, with no army; the army (Core) lost its commander
        brynden = w.character("Brynden Tully")
        assert brynden.status is CharacterStatus.DEAD and brynden.army_id is None
        army = w.army(1)
        assert army.state is ArmyState.GONE and army.commander_id is None
        # the siege (Core) is broken, and announced once
        ended = w.siege()
        assert ended.id == siege.id and ended.status is SiegeStatus.BROKEN
        assert len(w.events("siege_lifted")) == 1
        assert len(w.events("improvement_done")) == 1
        w.run(day(2, 6))
