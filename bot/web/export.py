"""``maester web export DIR``: the public realm as static files for any static host.

Writes ``index.html``, ``map.svg``, ``api/realm.json`` and ``static/`` (the script and the
style sheet) into DIR. Each file is written to a temporary name and renamed over the old one,
so a web server reading the folder never serves half a file. Only the public view is written:
no war room and no moderators' room ever reaches the folder.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from bot.config import Settings
from bot.services.world import Parses, load_context
from bot.web import data, pages


def _write(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export_realm(engine: Engine, settings: Settings, folder: Path, *,
                 parses: Parses | None = None) -> list[Path]:
    """Write the realm into ``folder``; returns the files written. ``parses``: the caller's
    (the running bot's, which exports after each tick), else the map is parsed anew."""
    with Session(engine) as session, session.begin():
        view = data.realm(session, load_context(session, settings, parses=parses))
    files = {
        folder / "index.html": pages.html(view, static="static").encode(),
        folder / "map.svg": pages.map_svg(view).encode(),
        folder / "api" / "realm.json": pages.json_text(view).encode(),
    }
    for asset in sorted(pages.STATIC_DIR.iterdir()):
        if asset.is_file():
            files[folder / "static" / asset.name] = asset.read_bytes()
    for path, content in files.items():
        _write(path, content)
    return sorted(files)
