"""Shared pytest configuration."""

from __future__ import annotations

import os
import tempfile

# No praw.ini from a developer's home may leak into the tests.
os.environ["HOME"] = tempfile.mkdtemp(prefix="maester-home-")

pytest_plugins: list[str] = []
if os.path.exists(os.path.join(os.path.dirname(__file__), "fixtures", "reddit.py")):
    pytest_plugins.append("tests.fixtures.reddit")
pytest_plugins.append("tests.fixtures.db")

# No property test has a time limit: Hypothesis's default deadline (200 ms an example) turns a
# busy machine into failures that say nothing about the code (speed is measured in
# benchmarks/, never in a test). Each test keeps its own example counts.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("maester", deadline=None)
_hypothesis_settings.load_profile("maester")
