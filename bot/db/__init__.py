"""Storage: SQLModel tables, the engine with safe SQLite/PostgreSQL settings, transactions."""
