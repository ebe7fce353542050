""""Did you mean ...?": the one function that finds the names closest to a misspelt one.

Tile names in orders, catalogue entries, JSON fields and map roster keys all go through
:func:`closest`, so every reply suggests names the same way; :func:`did_you_mean` words the
suggestion for a reply.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable

CUTOFF = 0.6
"""How alike (difflib's ratio, 0-1) a name must be to be suggested."""


def _casefold(text: str) -> str:
    return " ".join(text.split()).casefold()


def closest(
    name: str,
    known: Iterable[str],
    *,
    n: int = 1,
    key: Callable[[str], str] = _casefold,
    cutoff: float = CUTOFF,
    stems: bool = False,
) -> tuple[str, ...]:
    """Up to ``n`` of ``known``, best first, that are close to ``name`` (compared by ``key``,
    by default case and spacing aside). With ``stems``, a known name that ``name`` abbreviates
    or extends ("str" for "strength") comes first. Empty when nothing is close enough."""
    by_key: dict[str, str] = {}
    for item in known:
        by_key.setdefault(key(item), item)
    wanted = key(name)
    if not wanted:
        return ()
    if stems:
        found = [k for k in by_key
                 if len(k) >= 3 and (wanted.startswith(k) or k.startswith(wanted))]
        if found:
            return (by_key[max(found, key=len)],)
    return tuple(by_key[k] for k in difflib.get_close_matches(wanted, list(by_key), n=n,
                                                               cutoff=cutoff))


def did_you_mean(suggestions: Iterable[str]) -> str:
    """``Did you mean Riverrun?`` or ``Did you mean Riverrun or Seagard?``; empty for none."""
    names = list(dict.fromkeys(suggestions))
    if not names:
        return ""
    if len(names) == 1:
        return f"Did you mean {names[0]}?"
    return f"Did you mean {', '.join(names[:-1])} or {names[-1]}?"
