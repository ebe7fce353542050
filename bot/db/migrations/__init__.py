"""Alembic migrations of the campaign database (run them with :mod:`bot.db.migrate`)."""
