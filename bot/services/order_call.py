"""One order being handled: who sent it, for which claim, when; and the refusal it may raise.

The services that answer an order (:func:`bot.services.orders.answer` and what it calls) take
a :class:`Call` and raise :class:`Rejected`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

from bot.db.models import Claim
from bot.errors import CommandError
from bot.services.world import CampaignContext
from bot.text import escape_md


class Rejected(CommandError):
    """An order that cannot be carried out: what was wrong, what was expected, an example."""


@dataclass(slots=True)
class Call:
    """One order being handled: who sent it, for which claim, when."""

    session: Session
    ctx: CampaignContext
    author: str
    claim: Claim | None
    now: datetime
    ref: str
    is_moderator: bool
    refusals: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    finish: Callable[[], str] | None = None
    """Set by a handler whose receipt depends on later lines: called again after the whole
    message and its answer replaces the first receipt."""

    @property
    def tick(self) -> int:
        return self.ctx.tick_of(self.now)

    def require_claim(self) -> Claim:
        if self.claim is None:
            raise Rejected(
                f"u/{escape_md(self.author)} does not play a claim in this campaign",
                "a message from a registered player (moderators may write `as House Name:` "
                "on the first line to act for a claim)",
                "as House Stark: status" if self.is_moderator else "status",
            )
        return self.claim
