"""A small, busy campaign used by the service tests and the crash tests.

Everything is deterministic: the campaign secret is fixed, orders are sent at fixed times and
the dice derive from the secret, so two databases built the same way end in the same world.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.config import Settings, parse_settings
from bot.db.engine import create_all, make_engine, transaction
from bot.maps import demo_map_text
from bot.messages import handle_message
from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign
from bot.services.tick import catch_up
from bot.services.world import CampaignContext, Parses, load_context

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)

ORDERS: tuple[tuple[str, str, timedelta], ...] = (
    ("ned_stark", "muster 300 infantry 50 cavalry", timedelta(0)),
    ("hoster_tully", "muster 500 infantry 100 cavalry", timedelta(0)),
    ("tywin_lannister", "muster 2000 infantry 500 cavalry", timedelta(0)),
    ("tywin_lannister", "move army 3: 0436 > 0435 > 0434 > 0533 > 0633 > 0732 > 0731 > "
     "Riverrun (cost 13)", timedelta(hours=1)),
    ("ned_stark", "move army 1: 1316 > 1317 > 1318 > 1319 > 1320 (cost 5)", timedelta(hours=2)),
    ("mace_tyrell", "muster 20 cavalry", timedelta(hours=3)),
    ("mace_tyrell", "move army 4: 0942 > 1042 (cost 2)", timedelta(hours=3)),
)


PARSES = Parses()
"""The parses of the scenario's contexts, for the test session (every scenario plays the
demo map: parsed once)."""


def settings_for(url: str) -> Settings:
    return parse_settings({"campaign": {"database_url": url, "name": "Scenario",
                                        "moderators": ["mod_jane"]}})


def new_demo_campaign(url: str, seed: str) -> None:
    """Create the demo campaign (its roster and wars, no armies, no orders) at ``url``."""
    engine = make_engine(url)
    create_all(engine)
    with transaction(engine) as session:
        create_campaign(session, settings_for(url), map_text=demo_map_text(),
                        roster=DEMO_ROSTER, now=START, seed=seed, wars=DEMO_WARS)
    engine.dispose()


def build(url: str) -> CampaignContext:
    """Create the campaign and send the scripted orders (no ticks applied yet)."""
    settings = settings_for(url)
    new_demo_campaign(url, "scenario-secret")
    engine = make_engine(url)
    with transaction(engine) as session:
        ctx = load_context(session, settings, parses=PARSES)
    for i, (who, text, delay) in enumerate(ORDERS):
        with transaction(engine) as session:
            handle_message(session, ctx, author=who, text=text, now=START + delay, ref=f"o{i}")
    engine.dispose()
    return ctx


def context(url: str) -> tuple[Any, CampaignContext]:
    settings = settings_for(url)
    engine = make_engine(url)
    with transaction(engine) as session:
        ctx = load_context(session, settings, parses=PARSES)
    return engine, ctx


def main(argv: list[str]) -> int:
    """``python -m tests.bot.services.scenario URL UNTIL_ISO``: apply ticks until UNTIL."""
    url, until = argv[0], datetime.fromisoformat(argv[1])
    engine, ctx = context(url)
    print("ready", flush=True)  # the crash test kills only after this: ticks are applying
    catch_up(engine, ctx, until)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
