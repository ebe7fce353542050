"""The bot on Reddit: the gateway to PRAW, exactly-once intake, effectively-once delivery,
the request budget and the one-bot-per-campaign lease."""
