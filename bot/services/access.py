"""Opening a campaign from its settings: the one way the bot and the CLI reach a campaign."""

from __future__ import annotations

from sqlalchemy import Engine

from bot.config import Settings
from bot.db.engine import make_engine, transaction
from bot.services.world import CampaignContext, load_context


def open_campaign(settings: Settings, *, check_schema: bool = True
                  ) -> tuple[Engine, CampaignContext]:
    """The engine and context of the configured database's campaign.

    With ``check_schema`` (the bot's long-running commands) it raises
    :class:`~bot.db.migrate.SchemaOutOfDate` when the database needs ``maester db upgrade``;
    quick moderator commands skip the check and the migration tool's import. Raises
    LookupError when the database holds no campaign.
    """
    engine = make_engine(settings.campaign.database_url, must_exist=True)
    try:
        if check_schema:
            from bot.db.migrate import ensure_current

            ensure_current(engine)
        with transaction(engine) as session:
            ctx = load_context(session, settings)
    except BaseException:
        engine.dispose()
        raise
    return engine, ctx
