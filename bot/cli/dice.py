"""``maester verify``: check the dice of an event or a post (docs/dice.md)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

import typer

from bot.cli.common import fail, open_campaign
from bot.cli.options import ConfigOpt, command_group

if TYPE_CHECKING:
    from bot.config import Settings

app = command_group()

_POST_ID = re.compile(r"/comments/([a-z0-9]+)|^(?:t3_)?([a-z0-9]+)$")


@app.command("verify")
def verify_cmd(
    target: Annotated[str, typer.Argument(help="An event number (see `maester log`), a post's "
                                          "URL or id, or - to read a post's text on stdin.")],
    secret: Annotated[str | None, typer.Option(
        "--secret", "--key", help="The revealed dice key (hex); default: the campaign's own.")
    ] = None,
    config: ConfigOpt = None,
) -> None:
    """Recompute the dice of an event or a post and compare them with what was published.

    Also checks the signature of the public beacon round they are bound to, and that the
    round is the one their moment names."""
    import sys

    from bot.services import fairplay, queries
    from rules.beacon import BeaconLine, beacon_lines
    from rules.campaign.inputs import parse_row_number
    from rules.errors import InvalidInput
    from rules.fairdice import DiceLine

    env = open_campaign(config)
    lines: list[DiceLine] = []
    printed: dict[int, BeaconLine] = {}  # the beacon lines a post prints, by round
    try:
        number = parse_row_number(target, "event number")
    except InvalidInput as exc:
        raise fail(f"{exc} (see `maester log`)") from None
    if number is not None:
        with env.session() as session:
            event = queries.event(session, env.ctx, number)
        if event is None:
            raise fail(f"there is no event {target} (see `maester log`)")
        raw = (event.data_json or {}).get(fairplay.DICE_KEY)
        if not raw:
            raise fail(f"event {target} ({event.kind}) rolled no verifiable dice")
        lines = [DiceLine.parse(str(raw))]
    else:
        text = sys.stdin.read() if target == "-" else _post_text(env.settings, target)
        printed = beacon_lines(text)
        try:
            lines = fairplay.lines_in(text)
        except ValueError as exc:
            raise fail(str(exc)) from None
        if not lines:
            raise fail("no `dice: v1` line in that post")
    if secret is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", secret.strip()):
        raise fail("--secret must be the 64 hexadecimal digits of a revealed dice key")
    with env.session() as session:
        report, fair = fairplay.check_lines(session, env.ctx, lines,
                                            secret_hex=secret.strip() if secret else None,
                                            printed=printed)
    for text in report:
        typer.echo(text)
    raise typer.Exit(0 if fair else 1)


def _post_text(settings: Settings, target: str) -> str:
    """The text of a post on Reddit, by URL or id."""
    from bot.reddit.gateway import GatewayConfigError, GatewayError, praw_gateway

    match = _POST_ID.search(target.strip())
    if match is None:
        raise fail(f"{target!r} is not an event number, a post URL or a post id")
    post_id = match.group(1) or match.group(2)
    try:
        thing = praw_gateway(settings).thing(f"t3_{post_id}")
    except (GatewayError, GatewayConfigError) as exc:
        raise fail(f"could not read the post from Reddit: {exc}") from None
    if thing is None:
        raise fail(f"no post {post_id} on Reddit")
    return thing.body

