"""Data files shipped with the bot (the demo map). Read them through importlib.resources."""
