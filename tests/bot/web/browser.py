"""Headless Chromium for the browser tests: the operating system's package, driven by
Playwright for Python (never a browser download).

Missing browser: the tests skip with a message that says how to run them, unless
``MAESTER_REQUIRE_BROWSER=1`` (CI), which makes them fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

REQUIRE_ENV = "MAESTER_REQUIRE_BROWSER"
HOW = ("install the system's browser (`apt-get install -y chromium`) and run the tests again; "
       f"set {REQUIRE_ENV}=1 to make a missing browser a failure")


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _missing(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}; {REQUIRE_ENV}=1 requires it", pytrace=False)
    pytest.skip(f"{reason}: {HOW}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (module-wide; each test opens its own page)."""
    executable = chromium_path()
    if executable is None:
        _missing("no chromium on PATH")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (pip install -e '.[dev]')")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable,
                                          args=["--no-sandbox", "--disable-gpu"])
        try:
            yield launched
        finally:
            launched.close()
