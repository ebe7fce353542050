"""Checking a campaign's files together before there is a database: map, roster, config and
catalogue (``maester map check``, and ``maester init`` before it creates anything).

Errors stop ``init``; warnings are printed and let it go on. Every problem is one line that
names the file, the line or entry, and what was expected.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.config import ConfigError, Settings, load_settings
from bot.maps import demo_map_text, read_map_text
from rules.campaign.catalogue import missing_resources
from rules.campaign.inputs import check_roster_entry
from rules.campaign.mapcheck import bonuses_out_of_range, map_warnings
from rules.campaign.worldmap import WorldMap, parse_map
from rules.errors import InvalidInput
from rules.suggest import closest

ROSTER_KEYS = ("name", "holdfast", "players", "gold", "infantry", "cavalry", "ships",
               "characters")
ROSTER_TOP_KEYS = ("claims", "wars")


@dataclass(slots=True)
class CheckReport:
    """What the check found. ``world`` is the parsed map (None when it did not load)."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    world: WorldMap | None = None
    map_text: str = ""
    settings: Settings | None = None
    roster: list[dict[str, Any]] = field(default_factory=list)
    wars: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _close(word: str, choices: Sequence[str]) -> str:
    found = closest(word, choices, key=str)
    return f" (did you mean {found[0]!r}?)" if found else ""


def check_roster(entries: Sequence[Mapping[str, Any]], wars: Sequence[Sequence[Any]],
                 world: WorldMap | None, report: CheckReport, *, source: str = "roster"
                 ) -> None:
    """Add the roster's errors and warnings to ``report`` (holdfasts checked on ``world``)."""
    names: dict[str, str] = {}
    players: dict[str, str] = {}
    holdfasts: dict[str, str] = {}
    characters: dict[str, str] = {}
    for i, entry in enumerate(entries):
        try:
            # the very check `init` makes of each entry, so the two never disagree
            checked = check_roster_entry(entry, f"claims[{i}]")
        except InvalidInput as exc:
            report.errors.append(f"{source}: {exc}")
            if isinstance(entry, Mapping):  # its wars are not reported as naming no claim
                names.setdefault(str(entry.get("name", "")).strip().casefold(), f"claims[{i}]")
            continue
        where = f"{source}: claims[{i}] ({checked.name})"
        name = checked.name
        if name.casefold() in names:
            report.errors.append(f"{where}: claim name {name!r} is already used by "
                                 f"{names[name.casefold()]} (expected unique claim names)")
        else:
            names[name.casefold()] = f"claims[{i}]"
        holdfast = checked.holdfast
        if world is not None:
            try:
                tile = world.tile(holdfast)
            except InvalidInput as exc:
                report.errors.append(f"{where}: {exc}")
            else:
                if not tile.holdfast:
                    shown = f"{tile.name} ({tile.id})" if tile.name else tile.id
                    report.errors.append(f"{where}: {shown} is not a holdfast "
                                         "(expected a tile with the holdfast flag)")
                elif tile.id in holdfasts:
                    report.errors.append(f"{where}: {tile.label} is already claimed by "
                                         f"{holdfasts[tile.id]} (expected one claim per "
                                         "holdfast)")
                else:
                    holdfasts[tile.id] = name or f"claims[{i}]"
        for key in checked.players:
            if key in players:
                report.errors.append(f"{where}: u/{key} already plays {players[key]} "
                                     "(expected each player in one claim)")
            players[key] = name or f"claims[{i}]"
        for character in checked.characters:
            key = " ".join(character.casefold().split())
            if key in characters:
                report.errors.append(f"{where}: character {character!r} has the same name "
                                     f"as one of {characters[key]} (orders naming them "
                                     "would be ambiguous; `init` refuses it)")
            characters[key] = name or f"claims[{i}]"
    for j, war in enumerate(wars):
        if not isinstance(war, Sequence) or isinstance(war, str) or len(war) != 2:
            report.errors.append(f"{source}: wars[{j}] = {war!r} (expected a pair of claim "
                                 "names, e.g. [\"House Stark\", \"House Lannister\"])")
            continue
        for side in war:
            if str(side).strip().casefold() not in names:
                report.errors.append(f"{source}: wars[{j}] names {side!r}, which is no claim "
                                     "of the roster")


def read_roster(path: Path, report: CheckReport) -> None:
    """Read a roster TOML file into ``report`` (errors for an unreadable file)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        report.errors.append(f"roster {path}: cannot be read ({exc.strerror or exc})")
        return
    except tomllib.TOMLDecodeError as exc:
        report.errors.append(f"roster {path}: not valid TOML: {exc}")
        return
    for key in data:
        if key not in ROSTER_TOP_KEYS:
            report.warnings.append(f"roster {path}: unknown key {key!r}"
                                   f"{_close(key, ROSTER_TOP_KEYS)}; it is ignored (expected "
                                   "[[claims]] tables and wars = [...])")
    claims = data.get("claims", [])
    wars = data.get("wars", [])
    if not isinstance(claims, list) or not isinstance(wars, list):
        report.errors.append(f"roster {path}: claims and wars must be lists ([[claims]] "
                             "tables, wars = [[\"A\", \"B\"]])")
        return
    report.roster += [dict(c) if isinstance(c, Mapping) else c for c in claims]
    report.wars += [(str(w[0]), str(w[1])) if isinstance(w, list) and len(w) == 2 else w
                    for w in wars]


def check_all(*, config: Path | None = None, map_path: Path | None = None,
              roster: Path | None = None, extra_roster: Sequence[Mapping[str, Any]] = (),
              extra_wars: Sequence[tuple[str, str]] = (),
              settings: Settings | None = None) -> CheckReport:
    """Check config, map, catalogue and roster together; nothing is written anywhere.

    The map is ``map_path`` if given, else the config's ``campaign.map``. ``extra_roster``
    and ``extra_wars`` (the demo roster) are checked with the roster file's entries.
    """
    report = CheckReport()
    if settings is None:
        try:
            settings = load_settings(config)
        except ConfigError as exc:
            report.errors.append(f"config: {exc}")
            return report
    report.settings = settings
    source = str(map_path) if map_path is not None else settings.campaign.map
    try:
        text = demo_map_text() if source == "demo" else read_map_text(Path(source))
    except OSError as exc:
        report.errors.append(f"map {source}: cannot be read ({exc.strerror or exc})")
        text = ""
    except UnicodeDecodeError:
        report.errors.append(f"map {source}: is not UTF-8 text (expected a CSV export)")
        text = ""
    if text:
        try:
            report.world = parse_map(text)
            report.map_text = text
        except InvalidInput as exc:
            report.errors.append(f"map {source}: {exc}")
    if report.world is not None:
        report.warnings += [f"map {source}: {w}" for w in map_warnings(text, report.world)]
        report.errors += [f"map {source}: {e}"
                          for e in bonuses_out_of_range(report.world, settings.rules_config())]
        _check_catalogue(settings, report.world, report)
    report.roster += [dict(e) for e in extra_roster]
    report.wars += list(extra_wars)
    if roster is not None:
        read_roster(roster, report)
    check_roster(report.roster, report.wars, report.world, report,
                 source=str(roster) if roster is not None else "roster")
    return report


def _check_catalogue(settings: Settings, world: WorldMap, report: CheckReport) -> None:
    from bot.services.catalogue import CatalogueError, catalogue_from_settings

    try:
        catalogue = catalogue_from_settings(settings)
    except CatalogueError as exc:
        report.errors.append(f"catalogue: {exc}")
        return
    benefits = {t.resource_benefit for t in world.resource_tiles()}
    for name in missing_resources(catalogue, benefits):
        tiles = ", ".join(t.id for t in world.resource_tiles() if t.resource_benefit == name)
        report.warnings.append(
            f"catalogue: resource benefit {name!r} (tile {tiles}) is not in the catalogue, so "
            "holding it gives nothing (add [resources."
            f"{name}] or set catalogue.file)")
