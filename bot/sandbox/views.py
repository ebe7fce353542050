"""Read-only snapshots of sandbox content, returned by the test hooks.

They are plain frozen dataclasses so tests compare them directly and the control endpoint
can send them as JSON (:func:`view_to_json` / ``from_json``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PostView:
    """A submission as stored: ``id`` is base36 without ``t3_``."""

    id: str
    subreddit: str
    author: str
    title: str
    body: str
    flair_text: str | None
    flair_id: str | None
    created_utc: float
    permalink: str
    url: str

    @property
    def fullname(self) -> str:
        """``t3_`` plus the id."""
        return f"t3_{self.id}"


@dataclass(frozen=True, slots=True)
class CommentView:
    """A comment: ``parent_id`` is a fullname (``t3_...`` or ``t1_...``)."""

    id: str
    post_id: str
    parent_id: str
    subreddit: str
    author: str
    body: str
    created_utc: float
    permalink: str

    @property
    def fullname(self) -> str:
        """``t1_`` plus the id."""
        return f"t1_{self.id}"


@dataclass(frozen=True, slots=True)
class ConversationView:
    """A modmail conversation; ``state`` is 0 new, 1 in progress, 2 archived."""

    id: str
    subreddit: str
    subject: str
    participant: str | None
    is_auto: bool
    is_internal: bool
    state: int
    num_messages: int
    last_updated: str
    filtered: bool = False


@dataclass(frozen=True, slots=True)
class ModmailMessageView:
    """One modmail message, oldest first within its conversation."""

    id: str
    conversation_id: str
    author: str
    body: str
    date: str
    is_internal: bool
    is_author_hidden: bool
    author_is_mod: bool


@dataclass(frozen=True, slots=True)
class PrivateMessageView:
    """A legacy inbox message (``t4``), e.g. a modmail reply as the player receives it."""

    id: str
    author: str | None
    dest: str
    subject: str
    body: str
    subreddit: str | None
    conversation_id: str | None
    new: bool


@dataclass(frozen=True, slots=True)
class Activity:
    """One thing that appeared in the sandbox, in order (for ``maester demo`` printing)."""

    seq: int
    kind: str
    id: str
    author: str
    subreddit: str
    title: str
    body: str
    parent: str | None
    is_internal: bool
    created: str


@dataclass(frozen=True, slots=True)
class ForwardSeed:
    """What seeding an AutoModerator forward (or an imitation) created."""

    post_id: str
    conversation_id: str
    message_id: str
    permalink: str


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One API request the sandbox answered (control requests are not recorded)."""

    seq: int
    method: str
    path: str
    route: str
    status: int
    user: str | None
    fault: str | None
    user_agent: str = ""


def view_to_json(view: Any) -> dict[str, Any]:
    """A view dataclass as a JSON object."""
    return dataclasses.asdict(view)


def view_from_json(cls: type[T], data: dict[str, Any]) -> T:
    """Rebuild a view dataclass from :func:`view_to_json`."""
    return cls(**data)
