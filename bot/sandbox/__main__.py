"""``python -m bot.sandbox --port N``: serve a sandbox until killed.

Prints one line ``SANDBOX READY http://127.0.0.1:PORT`` on stdout once it accepts
requests. Seed and read it with :class:`bot.sandbox.RemoteSandbox`.
"""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType

from bot.sandbox.defaults import populate_default_world
from bot.sandbox.server import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, RedditSandbox


def main(argv: list[str] | None = None) -> int:
    """Parse the options, start the sandbox and block until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(prog="python -m bot.sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--client-id", default=DEFAULT_CLIENT_ID)
    parser.add_argument("--client-secret", default=DEFAULT_CLIENT_SECRET)
    parser.add_argument(
        "--empty",
        action="store_true",
        help="start without r/westeros, the bot and the players",
    )
    options = parser.parse_args(argv)
    sandbox = RedditSandbox(
        host=options.host,
        port=options.port,
        client_id=options.client_id,
        client_secret=options.client_secret,
    )
    if not options.empty:
        populate_default_world(sandbox)

    def stop(signum: int, frame: FrameType | None) -> None:
        sandbox.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sandbox.start()
    print(f"SANDBOX READY {sandbox.url}", flush=True)
    sandbox.serve_until_stopped()
    return 0


if __name__ == "__main__":
    sys.exit(main())
