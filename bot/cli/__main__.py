"""``python -m bot.cli``: the same as the ``maester`` command."""

from bot.cli import main

main()
