"""One order, end to end, on the demo world (SQLite file): parse, check, save, receipt.

Each order is sent as its own message in its own transaction, as the bot does: ``parse`` is
the order language alone; ``order`` is the whole message (parse, the checks against the world,
the changes, the journal, the receipt) and its commit. Armies mustered by the benchmark are
cancelled again, so every repetition sees the same world. Each order also prints the SQL
statements its message ran (the most over the repetitions).
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event

from bot.config import parse_settings
from bot.db.engine import create_all, make_engine, transaction
from bot.maps import demo_map_text
from bot.messages import handle_message
from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign
from bot.services.world import load_context
from rules.campaign.language import parse_message

START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)
REPEAT = 30
ORDERS = (
    ("status", "status"),
    ("route", "route army 1 to Riverrun"),
    ("move", "move army 1: 1316 > 1317 (cost 2)"),
    ("muster + cancel", "muster 100 infantry\ncancel army {next}"),
)


def run() -> list[tuple[str, int, float]]:
    results: list[tuple[str, int, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'orders.db'}"
        settings = parse_settings({"campaign": {"database_url": url, "name": "Bench"}})
        engine = make_engine(url)
        create_all(engine)
        with transaction(engine) as session:
            create_campaign(session, settings, map_text=demo_map_text(), roster=DEMO_ROSTER,
                            now=START, seed="bench", wars=DEMO_WARS)
        with transaction(engine) as session:
            ctx = load_context(session, settings)
            handle_message(session, ctx, author="ned_stark", text="muster 300 infantry",
                           now=START, ref="setup")
        next_army = 2
        statements = 0

        def count(*_: Any) -> None:
            nonlocal statements
            statements += 1

        event.listen(engine, "before_cursor_execute", count)
        for name, text in ORDERS:
            began = time.perf_counter()
            for _ in range(REPEAT * 10):
                parse_message(text.format(next=next_army))
            results.append((f"parse: {name}", REPEAT * 10, time.perf_counter() - began))
            spent = 0.0
            most = 0
            for i in range(REPEAT):
                message = text.format(next=next_army)
                statements = 0
                began = time.perf_counter()
                with transaction(engine) as session:
                    reply = handle_message(session, ctx, author="ned_stark", text=message,
                                           now=START, ref=f"{name}:{i}")
                spent += time.perf_counter() - began
                most = max(most, statements)
                assert "**Not done:**" not in reply, reply
                if "muster" in message:
                    next_army += 1
            print(f"order {name}: {most} SQL statements per message", flush=True)
            results.append((f"order (parse, check, save, receipt, commit): {name}", REPEAT,
                            spent))
        event.remove(engine, "before_cursor_execute", count)
        engine.dispose()
    return results
