"""``maester map check|render|update``: the campaign map as files, pictures and updates."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from bot.cli.common import DEFAULT_CONFIG, ByOpt, campaign_session, moderator_name, settings_of
from bot.cli.options import ConfigOpt, command_group

if TYPE_CHECKING:
    from bot.services.mapcheck import CheckReport
    from rules.campaign.worldmap import WorldMap

app = command_group()
map_app = command_group(help="Check, draw and update the campaign map.", no_args_is_help=True)
app.add_typer(map_app, name="map")
OptConfig = ConfigOpt


def print_report(report: CheckReport) -> None:
    """Print a :class:`~bot.services.mapcheck.CheckReport`: errors, then warnings."""
    for line in report.errors:
        typer.echo(f"error: {line}", err=True)
    for line in report.warnings:
        typer.echo(f"warning: {line}", err=True)


@map_app.command("check")
def check_cmd(
    map_file: Annotated[Path | None, typer.Argument(
        help="Map CSV file (default: the config's campaign.map).", show_default=False)] = None,
    roster: Annotated[Path | None, typer.Option("--roster", help="Roster TOML file.")] = None,
    config: OptConfig = None,
) -> None:
    """Check the map, roster, config and catalogue together, without a database.

    Prints every error (with line and tile) and warning; exit code 1 when there is an error.
    """
    from bot.services.mapcheck import check_all
    from rules.campaign.mapcheck import neutral_garrisons

    report = check_all(config=_config_path(config), map_path=map_file, roster=roster)
    print_report(report)
    if report.world is not None:
        w = report.world
        typer.echo(f"map: {len(w)} tiles, {len(w.holdfasts())} holdfasts, {len(w.ports())} "
                   f"ports, {len(w.resource_tiles())} resource tiles; roster: "
                   f"{len(report.roster)} claims")
        unheld = neutral_garrisons(w, (c.get("holdfast") for c in report.roster
                                       if isinstance(c, dict)))
        if unheld:
            typer.echo("neutral garrisons (holdfasts that are no claim's seat): "
                       + ", ".join(f"{label} {troops}" for label, troops in unheld))
    typer.echo(f"{len(report.errors)} error(s), {len(report.warnings)} warning(s)")
    raise typer.Exit(1 if report.errors else 0)


def _config_path(config: Path | None) -> Path | None:
    if config is not None:
        return config
    if DEFAULT_CONFIG.exists():
        return DEFAULT_CONFIG
    from bot.cli.common import NO_CONFIG

    typer.echo(f"maester: {NO_CONFIG}: checking with the default settings", err=True)
    return None


@map_app.command("render")
def render_cmd(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file: .png or .svg.")] =
        Path("map.png"),
    view: Annotated[str, typer.Option(
        "--view", help="public, moderator or claim:NAME.")] = "public",
    around: Annotated[str | None, typer.Option(
        "--around", help="Draw only the tiles around this tile (id or name).")] = None,
    radius: Annotated[int, typer.Option("--radius", min=0, max=50,
                                        help="With --around: how many steps.")] = 4,
    labels: Annotated[str, typer.Option("--labels", help="ids, names or both.")] = "both",
    map_file: Annotated[Path | None, typer.Option(
        "--map", help="Draw this map file alone (no campaign database needed).")] = None,
    width: Annotated[int | None, typer.Option(
        "--width", min=300, max=20000, help="Picture width in pixels (sets the hex size).",
        show_default=False)] = None,
    hex_size: Annotated[float | None, typer.Option(
        "--hex-size", min=6, max=200, help="Hex size in pixels (centre to corner); default "
        "32, larger for a small map or inset.", show_default=False)] = None,
    config: OptConfig = None,
) -> None:
    """Draw the campaign map as a viewer may see it (PNG or SVG)."""
    from bot.mapimage.scene import MIN_WIDTHS, Labels, SceneOptions, at_least
    from bot.maps import load_map
    from bot.services.mapview import draw, render_view
    from rules.campaign.mapview import MODERATOR, Situation, Viewer
    from rules.errors import InvalidInput

    suffix = out.suffix.lower()
    if suffix not in (".png", ".svg"):
        _fail(f"--out {out}: unknown picture type (expected a file ending in .png or .svg)")
    try:
        viewer = Viewer.parse(view)
        chosen = Labels(labels.strip().lower())
    except (InvalidInput, ValueError) as exc:
        _fail(str(exc) if isinstance(exc, InvalidInput) else
              f"--labels {labels!r}: expected ids, names or both")
    if width is not None and hex_size is not None:
        _fail("--width and --hex-size both set the size: give one of them "
              "(e.g. --width 2000)")
    options = SceneOptions(labels=chosen, around=around, radius=radius,
                           legend=around is None, width=width)
    if hex_size is not None:
        options = SceneOptions(labels=chosen, around=around, radius=radius,
                               legend=around is None, size=hex_size)

    def sized(world: WorldMap) -> SceneOptions:
        if width is not None or hex_size is not None:
            return options
        return at_least(world, options, MIN_WIDTHS["inset" if around else "map"])

    try:
        if map_file is not None:
            from bot.services.world import CampaignContext

            settings = settings_of(config, required=False)
            world = load_map(map_file)
            ctx = CampaignContext(0, settings, settings.rules_config(), world, "")
            picture = draw(ctx, Situation(), MODERATOR, sized(world), svg=suffix == ".svg")
        else:
            with campaign_session(config) as (session, ctx):
                picture = render_view(session, ctx, viewer, sized(ctx.world),
                                      svg=suffix == ".svg")
    except InvalidInput as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(f"--width {width}: {exc}")
    except OSError as exc:
        _fail(f"{map_file}: cannot be read ({exc.strerror or exc})")
    out.write_bytes(picture.data)
    shown = f"map file {map_file}" if map_file is not None else f"view {viewer}"
    typer.echo(f"wrote {out} ({picture.scene.width}x{picture.scene.height} px, "
               f"{len(picture.data)} bytes, {shown})")


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@map_app.command("update")
def update_cmd(
    map_file: Annotated[Path, typer.Argument(help="The new map CSV file.")],
    yes: Annotated[bool, typer.Option("--yes", help="Apply the new map.")] = False,
    by: ByOpt = None,
    config: OptConfig = None,
) -> None:
    """Replace a running campaign's map, after checking that everything still stands on it.

    Prints the difference (added, removed, renamed and changed tiles); applies it only with
    --yes. Exit code 1 when the new map does not fit the campaign.
    """
    from bot.cli.approval import proposed
    from bot.clock import SystemClock
    from bot.maps import read_map_text
    from bot.services.mapupdate import apply_map_update, plan_map_update
    from bot.services.proposals import map_action
    from rules.errors import InvalidInput

    try:
        text = read_map_text(map_file)
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"{map_file}: cannot be read ({getattr(exc, 'strerror', None) or exc})")
    with campaign_session(config) as (session, ctx):
        try:
            plan = plan_map_update(session, ctx, text)
        except InvalidInput as exc:
            _fail(f"{map_file}: {exc}")
        for line in plan.describe():
            typer.echo(line)
        if plan.problems:
            for problem in plan.problems:
                typer.echo(f"error: {problem}", err=True)
            typer.echo("the map was NOT changed", err=True)
            raise typer.Exit(1)
        if not plan.changed:
            typer.echo("the new map is the same as the campaign's: nothing to do")
            return
        if not yes:
            typer.echo("run again with --yes to apply it")
            return
        if proposed(session, ctx, map_action(text, map_file.name), by, SystemClock().now()):
            return
        apply_map_update(session, ctx, plan, now=SystemClock().now(), actor=moderator_name(by),
                         source=map_file.name)
    typer.echo("map updated; a running bot picks it up at its next wake-up (within a minute)")
