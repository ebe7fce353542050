"""A player of two claims (issue #28, ``[claims] players_may_play_several``) through modmail:
real PRAW against the sandbox, on SQLite and PostgreSQL. A message that does not say which
claim it is for is answered with the player's claims and an example, and changes nothing; an
``as House X:`` line carries the orders out for that claim."""

from __future__ import annotations

from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Army, Claim, Outbox, Player
from bot.sandbox import BOT_USERNAME
from tests.bot.reddit.conftest import Harness


def _armies(bot: Harness) -> list[tuple[str, int]]:
    with transaction(bot.engine) as session:
        names = {c.id: c.name for c in session.exec(select(Claim)).all()}
        return sorted((names[a.claim_id], a.infantry)
                      for a in session.exec(select(Army)).all())


def _answer(bot: Harness, conversation_id: str) -> str:
    return [m.body for m in bot.sandbox.conversation_messages(conversation_id)
            if m.author == BOT_USERNAME][-1]


def test_a_player_of_two_claims_names_the_claim_and_one_claim_players_are_unaffected(
        bot_any: Harness) -> None:
    bot = bot_any
    with transaction(bot.engine) as session:  # as `claims transfer --add` leaves it
        lannister = session.exec(select(Claim).where(Claim.name == "House Lannister")).one()
        session.add(Player(campaign_id=bot.ctx.campaign_id, claim_id=lannister.id or 0,
                           reddit_name="ned_stark"))
    unnamed, _ = bot.send("ned_stark", "muster 100 infantry")
    assert bot.poll().processed == 1
    bot.publish()
    reply = _answer(bot, unnamed)
    assert "you play several claims (House Lannister, House Stark)" in reply
    assert "as House Lannister: status" in reply
    assert _armies(bot) == []
    named, _ = bot.send("ned_stark", "as House Lannister: muster 200 infantry")
    single, _ = bot.send("tywin_lannister", "muster 50 infantry")
    assert bot.poll().processed == 2
    bot.publish()
    assert "Army 1" in _answer(bot, named)
    assert "several claims" not in _answer(bot, single)
    assert _armies(bot) == [("House Lannister", 50), ("House Lannister", 200)]
    with transaction(bot.engine) as session:  # not filed under one claim (its page shows it)
        answers = [o for o in session.exec(select(Outbox)).all()
                   if "several claims" in o.body or "200 infantry" in o.body]
        assert answers and all(o.claim_id is None for o in answers)
