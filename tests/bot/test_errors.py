"""The player-facing error replies of bot/errors.py: one renderer for refusals, one apology
for failures on the bot's side."""

from __future__ import annotations

from bot.errors import INTERNAL_FAILURE, Answer, CommandError, apology, render_error
from bot.reddit.intake import Inbound, Outcome, imitation_reply
from rules.errors import InvalidInput


def test_a_refusal_has_its_three_parts_in_order() -> None:
    reply = CommandError("no such army", "an army number of yours", "stand army 2").render()
    assert reply == ("**Not done:** no such army.\n\n**Expected:** an army number of yours."
                     "\n\n**Example:** `stand army 2`")


def test_an_apology_names_the_reference_and_says_nothing_changed() -> None:
    reply = apology("t4_*abc*:2", "handling this order")
    assert reply.startswith(f"**Not done:** {INTERNAL_FAILURE} while handling this order")
    assert "(reference `t4_*abc*:2`)" in reply  # a code span shows it as it is
    assert "Nothing changed" in reply


def test_an_imitated_forward_is_refused_through_the_one_renderer() -> None:
    inbound = Inbound(Outcome.IMITATION, "mallory_*", "muster 5 infantry", "reply", "c1")
    assert imitation_reply(inbound) == (
        "**Not done:** this message is laid out like an AutoModerator forward, but it was "
        "written by u/mallory\\_\\*, not by AutoModerator. Nothing in it was carried out."
        "\n\n**Expected:** your orders sent straight to modmail from your own account, or a "
        "post flaired *Orders* that AutoModerator forwards itself.\n\n"
        "**Example:** `muster 300 infantry 50 cavalry`")


def test_every_error_becomes_words_in_one_place() -> None:
    """render_error: a refusal as it says (the caller's example when it gives none), a rules
    error in its own words made inert, anything else an apology marked as the bot's failure."""
    refusal = render_error(CommandError("no such army", "an army of yours"), ref="r", doing="x",
                           example="status")
    assert refusal == Answer(CommandError("no such army", "an army of yours", "status").render())
    rules = render_error(InvalidInput("troops", "*-5* is out of range", "0 or more"), ref="r",
                         doing="x")
    assert not rules.failed and rules.text.startswith("**Not done:** ")
    assert "\\*-5\\*" in rules.text  # the player's words cannot format the reply
    bug = render_error(ZeroDivisionError("division by zero"), ref="t4_1:2", doing="handling it")
    assert bug == Answer(apology("t4_1:2", "handling it"), failed=True)
    assert "division" not in bug.text
