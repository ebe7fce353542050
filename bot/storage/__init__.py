"""The tick's storage: the driver-level readers and writers of the rows a tick works on.

The tick service loads the rules' frozen world from these readers and writes back, through
these writers, only what the rules changed: the armies (:mod:`bot.storage.army_rows`), the
claims, sieges, characters, relations and resource tile holders
(:mod:`bot.storage.world_rows`) and the battles (:mod:`bot.storage.battle_rows`). They sit
between the database models and the services: they import the rules and the models, and
nothing of the services. How fast they are is measured by the benchmarks
(``scripts/bench tick``; figures in benchmarks/README.md).
"""
