"""Running the web pages under uvicorn: in the foreground (``maester web``) or on a thread
beside the bot (``maester run`` with ``[web] enabled``, ``maester demo``)."""

from __future__ import annotations

import logging
import threading
import time

import uvicorn
from sqlalchemy import Engine

from bot.config import Settings
from bot.db.engine import make_reader_engine
from bot.web.app import create_app

log = logging.getLogger("maester.web")


def server(settings: Settings, *, host: str | None = None, port: int | None = None,
           engine: Engine | None = None) -> uvicorn.Server:
    """A uvicorn server of the campaign's pages (not started), on its own read-only
    connection to the database."""
    reader = engine or make_reader_engine(settings.campaign.database_url)
    config = uvicorn.Config(create_app(reader, settings), host=host or settings.web.host,
                            port=settings.web.port if port is None else port,
                            log_level="warning", access_log=False, server_header=False,
                            proxy_headers=True, forwarded_allow_ips="127.0.0.1")
    return uvicorn.Server(config)


class Background:
    """The pages served on a daemon thread; :meth:`stop` ends them."""

    def __init__(self, srv: uvicorn.Server) -> None:
        self.server = srv
        self.thread = threading.Thread(target=srv.run, name="maester-web", daemon=True)

    def start(self, timeout: float = 30.0) -> None:
        """Start and wait until the socket listens (or the server gave up)."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and self.thread.is_alive() \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        if not self.server.started:
            raise RuntimeError("the web pages could not start (is the port in use?)")

    @property
    def port(self) -> int:
        for s in self.server.servers:
            for sock in s.sockets:
                return int(sock.getsockname()[1])
        return self.server.config.port

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_background(settings: Settings, *, host: str | None = None,
                     port: int | None = None) -> Background:
    bg = Background(server(settings, host=host, port=port))
    bg.start()
    log.info("web pages on http://%s:%d/", bg.server.config.host, bg.port)
    return bg
