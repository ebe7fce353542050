"""No public post gives away a secret: a whole march and assault played through Reddit.

Every test with a sandbox also has its posts scanned at teardown (``conftest.py``); this one
makes sure there is something worth scanning: arrival and battle posts about an assault on a
holdfast with a secret defense bonus, and detection rolls that only the watcher may read.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Army
from bot.sandbox import BOT_USERNAME, MODERATOR
from tests.bot.reddit.conftest import Harness, assert_no_secrets, public_texts, secrets_in

MARCH = "move army 1: 0436 > 0435 > 0434 > 0533 > 0633 > 0732 > 0731 > Riverrun (cost 13)"


def _army(bot: Harness) -> Army:
    with transaction(bot.engine) as session:
        return session.exec(select(Army).where(Army.id == 1)).one()


def _private(bot: Harness) -> list[tuple[str | None, str]]:
    """(participant, body) of every message the bot sent in modmail."""
    out = []
    for conversation in bot.sandbox.conversations():
        for m in bot.sandbox.conversation_messages(conversation.id):
            if m.author == BOT_USERNAME:
                out.append((conversation.participant, m.body))
    return out


def test_public_posts_hold_no_secret_bonus_and_no_detection_result(bot: Harness) -> None:
    """Lannister marches on Riverrun and assaults it. The arrival and battle posts are
    public and say nothing of Riverrun's secret defenses or of who detected whom; the
    detection rolls and the defenses reach House Tully's player only, in private modmail."""
    bot.send("tywin_lannister", f"muster 3000 infantry 800 cavalry\n{MARCH}")
    for _ in range(40):
        bot.clock.advance(timedelta(hours=6))
        bot.cycle()
        army = _army(bot)
        if army.tile == "0831" and army.state == "standing":
            break
    assert _army(bot).tile == "0831"
    bot.send("tywin_lannister", "assault Riverrun with army 1")
    for _ in range(3):
        bot.clock.advance(timedelta(hours=6))
        bot.cycle()
    assert not bot.pending()

    titles = [p.title for p in bot.sandbox.posts(author=BOT_USERNAME)]
    assert "[Arrival] House Lannister arrives at Riverrun" in titles
    assert "[Battle] House Lannister vs House Tully at Riverrun" in titles
    assert assert_no_secrets(public_texts(bot.sandbox)) >= 2

    private = _private(bot)
    secret = [(who, body) for who, body in private if secrets_in(body)]
    assert any("Detection roll" in body for _, body in secret)
    assert any("holdfast defenses (secret)" in body for _, body in secret)
    # Tully's own secrets reach Tully; Riverrun fell, so its defences are Lannister's now
    # (issue #23: a fallen holdfast's secret bonus goes to its new holder), told only so
    assert {who for who, _ in secret} == {"hoster_tully", "tywin_lannister"}
    assert all("is your claim's now" in body for who, body in secret
               if who == "tywin_lannister")


def test_only_a_moderator_may_act_for_a_claim(bot: Harness) -> None:
    """``as House Lannister:`` works for a moderator; from a player it is not obeyed."""
    player, _ = bot.send("ned_stark", "as House Lannister: muster 100 infantry")
    moderator, _ = bot.send(MODERATOR, "as House Lannister: muster 200 infantry")
    bot.cycle()
    with transaction(bot.engine) as session:
        raised = [(a.claim_id, a.infantry) for a in session.exec(select(Army)).all()]
    assert raised == [(2, 200)]  # House Lannister is the roster's second claim
    assert "Army 1" not in bot.bot_messages(player)[0]
    assert "Army 1" in bot.bot_messages(moderator)[0]
