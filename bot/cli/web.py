"""``maester web``: serve the campaign's pages; ``web links`` and ``web export``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bot.cli.common import campaign_session, fail, settings_of
from bot.cli.options import ConfigOpt, command_group

app = command_group()
web_app = command_group(help="Serve the campaign's web pages (the realm, war rooms, the "
                        "moderators' room); show or replace links; export the realm.")
app.add_typer(web_app, name="web")


@web_app.callback(invoke_without_command=True)
def web_cmd(
    context: typer.Context,
    host: Annotated[str | None, typer.Option(
        "--host", help="Address to listen on (default: [web] host, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(
        "--port", min=0, max=65535, help="Port (default: [web] port, 8080).")] = None,
    config: ConfigOpt = None,
) -> None:
    """Serve the campaign's web pages over HTTP until Ctrl-C (read-only: never blocks a tick).

    The realm is at /, each claim's war room at /claim/TOKEN, the moderators' room at
    /mod/TOKEN, the JSON under /api/ (docs/web.md). `maester web links` prints the links.
    """
    if context.invoked_subcommand is not None:
        return
    import logging

    from bot.db.engine import MissingDatabase
    from bot.web.serve import server

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    settings = settings_of(config)
    try:
        srv = server(settings, host=host, port=port)
    except (MissingDatabase, ValueError) as exc:
        raise fail(str(exc)) from None
    cfg = srv.config
    typer.echo(f"maester: the realm is at http://{cfg.host}:{cfg.port}/ "
               "(`maester web links` prints the war rooms' links); Ctrl-C stops")
    srv.run()


@web_app.command("links")
def links_cmd(
    claim: Annotated[str | None, typer.Argument(
        help="One claim (default: every claim and the moderators' room).",
        show_default=False)] = None,
    rotate: Annotated[bool, typer.Option(
        "--rotate", help="Replace the links: the old ones stop working at once, and each "
        "claim's players are sent the new one privately.")] = False,
    config: ConfigOpt = None,
) -> None:
    """Show the private links (a war room per claim, the moderators' room), or replace them.

    Anyone holding a link sees that page: give each claim only its own. A link is made the
    first time it is asked for.
    """
    from bot.clock import SystemClock
    from bot.services import weblinks

    now = SystemClock().now()
    with campaign_session(config) as (session, ctx):
        try:
            found = weblinks.links(session, ctx, now, claim=claim, renew=rotate)
        except LookupError as exc:
            raise fail(f"{exc}; `maester claims` lists them") from None
        if rotate:
            for link in found:
                if link.scope != weblinks.MODERATORS:
                    weblinks.send_to_claim(session, ctx, int(link.scope.split(":")[1]),
                                           link.name, link.token, now=now,
                                           tick=ctx.tick_of(now))
        for link in found:
            label = link.name or "moderators"
            typer.echo(f"{label}: {weblinks.address(ctx, link)}")
    if rotate:
        typer.echo("replaced: the old links no longer open anything; the claims' players "
                   "are sent their new link privately")
    elif not ctx.settings.web.public_url:
        typer.echo("(set [web] public_url to print and send full addresses)", err=True)


@web_app.command("export")
def export_cmd(
    folder: Annotated[Path, typer.Argument(help="The folder to write (made if missing).")],
    config: ConfigOpt = None,
) -> None:
    """Write the public realm as static files (HTML, SVG, JSON) for any static host."""
    from bot.db.engine import MissingDatabase, make_reader_engine
    from bot.web.export import export_realm

    settings = settings_of(config)
    try:
        engine = make_reader_engine(settings.campaign.database_url)
    except (MissingDatabase, ValueError) as exc:
        raise fail(str(exc)) from None
    try:
        written = export_realm(engine, settings, folder)
    except OSError as exc:
        raise fail(f"{folder}: cannot be written ({exc.strerror or exc})") from None
    finally:
        engine.dispose()
    typer.echo(f"wrote {len(written)} files to {folder} (open {folder / 'index.html'})")
