"""Services: load state, call rules/, save state, events and the outbox in one transaction."""
