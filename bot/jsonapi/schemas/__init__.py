"""The JSON Schema files of the JSON engines, generated from their models.

``ENGINE.input.json`` and ``ENGINE.output.json`` for every engine, and ``error.json``. Regenerate
them with ``python -m bot.jsonapi.engines --write-schemas`` after changing a model; a test fails
while they differ from the models.
"""
