"""maester: the campaign bot. The distribution is ``maester-campaign`` (the console command
is ``maester``; ``maester`` on the package index is an unrelated project)."""

from __future__ import annotations

DISTRIBUTION = "maester-campaign"


def __getattr__(name: str) -> str:
    # ``__version__`` is read from the installed distribution on first use: importlib.metadata
    # costs a short-lived command (``maester rules battle``) a tenth of its start.
    if name != "__version__":
        raise AttributeError(f"module 'bot' has no attribute {name!r}")
    from importlib import metadata

    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # running from a checkout that is not installed
        version = "0.1.0"
    globals()["__version__"] = version
    return version
