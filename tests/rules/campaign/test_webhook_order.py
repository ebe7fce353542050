"""The ``webhook`` order's words (issue #30): one address, or ``off``; the text form
round-trips. Which addresses are accepted is the bot's config (tests/bot/test_config.py)."""

from __future__ import annotations

import pytest

from rules.campaign import language as o

URL = "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOp"


@pytest.mark.parametrize("line", [f"webhook {URL}", f"Webhook <{URL}>",
                                  f"webhook [my channel]({URL})", f"discord {URL}",
                                  f"webhook: {URL}"])
def test_an_address_is_read_as_written(line: str) -> None:
    """Pasted bare, in angle brackets or as a markdown link; the token keeps its case."""
    order = o.parse_order(line)
    assert order == o.Webhook(URL)
    assert o.parse_order(str(order)) == order


@pytest.mark.parametrize("word", ["off", "OFF", "stop", "none", "remove"])
def test_off_stops_it(word: str) -> None:
    assert o.parse_order(f"webhook {word}") == o.Webhook(None)
    assert str(o.Webhook(None)) == "webhook off"


def test_an_address_with_dots_is_no_decimal_number() -> None:
    """``127.0.0.1`` in an address is not a number written wrong."""
    url = "https://10.0.0.1/api/webhooks/1/abcdefghijkl"
    assert o.parse_order(f"webhook {url}") == o.Webhook(url)


@pytest.mark.parametrize("line", ["webhook", "webhook two words", "webhook a b c"])
def test_anything_else_is_refused_with_the_form(line: str) -> None:
    with pytest.raises(o.OrderSyntaxError) as info:
        o.parse_order(line)
    assert "webhook URL | webhook off" in str(info.value)
