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
