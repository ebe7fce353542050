"""ASOIAF Tabletop Miniatures: attacks, charges, panic and morale, terrain and victory.

Pure rules: dice are an argument (:mod:`rules.dice`), results are frozen values, probabilities
are exact fractions. Modules: :mod:`.rolls` (dice pools and re-rolls), :mod:`.units` (models,
ranks, wounds), :mod:`.morale` (morale and panic tests), :mod:`.attack` (resolving an attack),
:mod:`.distribution` (exact wound distributions), :mod:`.charge`, :mod:`.terrain`,
:mod:`.victory`.
"""
