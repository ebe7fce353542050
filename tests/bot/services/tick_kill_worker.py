"""``python -m tests.bot.services.tick_kill_worker URL UNTIL [stop]``: apply the scenario's
ticks until UNTIL; with ``stop``, halt inside the first tick that begins battles, once their
rows (and ids) are written and before the tick commits, print ``inside`` and wait there to be
killed. The stop is an observable state for the crash test, not a guess at timing; the tick's
own code runs unchanged (the battles are inserted by the real function first)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import bot.services.tick as tick_service
from bot.services.tick import catch_up
from tests.bot.services import scenario


def main(argv: list[str]) -> int:
    url, until = argv[0], datetime.fromisoformat(argv[1])
    if argv[2:] == ["stop"]:
        insert = tick_service.insert_battles

        def insert_then_wait(session: Any, campaign_id: int, new: Sequence[Any]) -> list[int]:
            ids = insert(session, campaign_id, new)
            if new:
                print("inside", flush=True)
                sys.stdin.read()  # until killed
            return ids

        setattr(tick_service, "insert_battles", insert_then_wait)  # noqa: B010 (a hook, not a mock)
    engine, ctx = scenario.context(url)
    print("ready", flush=True)
    catch_up(engine, ctx, until)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
