"""Media uploads as PRAW 8 performs them for inline images in self posts.

PRAW's ``Subreddit.submit(selftext=..., inline_media={...})`` makes four requests:

1. ``POST /api/media/asset.json`` (form ``filepath``, ``mimetype``): the upload lease.
   Reddit answers ``{"args": {"action": "//<bucket host>", "fields": [{"name", "value"}...]},
   "asset": {"asset_id", ...}}``; PRAW posts the file to ``"https:" + action``.
2. The upload: a ``multipart/form-data`` POST of the lease's fields plus ``file``, without
   Reddit's bearer token (it goes to the storage bucket). Success is any 2xx; a failure may
   carry S3's XML (``EntityTooLarge`` with ``ProposedSize``/``MaxSizeAllowed``).
3. ``POST /api/convert_rte_body_format`` (``markdown_text``, ``output_mode=rtjson``): the
   markdown, with ``![img](ASSET_ID "caption")`` where the image goes, as rich text JSON.
4. ``POST /api/submit`` with ``kind=self`` and ``richtext_json`` instead of ``text``.

The sandbox's lease names its own host as the bucket (``//127.0.0.1:PORT``); maester's
requestor sends https uploads to a plain-http sandbox over http. Uploaded files are kept and
served at ``GET /sandbox-media/<asset_id>`` so a person can look at what was posted.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from typing import Any, Protocol


class Host(Protocol):
    """What the media endpoints need of the sandbox serving them (a
    :class:`~bot.sandbox.server.RedditSandbox`): its base address. The sandbox itself keys
    its media store."""

    @property
    def url(self) -> str: ...

UPLOAD_PATH = "/sandbox-media/upload"
MEDIA_PREFIX = "/sandbox-media/"
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
_INLINE = re.compile(r'^!\[(?P<e>img|gif|video)\]\((?P<id>[A-Za-z0-9_]+)(?: "(?P<c>.*)")?\)$',
                     re.DOTALL)


@dataclass(slots=True)
class Asset:
    """One media asset: leased, then (maybe) uploaded."""

    asset_id: str
    filepath: str
    mimetype: str
    key: str
    data: bytes | None = None


@dataclass(slots=True)
class MediaStore:
    """The sandbox's uploaded media and which post uses which asset."""

    assets: dict[str, Asset] = field(default_factory=dict)
    post_media: dict[str, list[str]] = field(default_factory=dict)
    max_bytes: int = MAX_UPLOAD_BYTES
    lock: threading.Lock = field(default_factory=threading.Lock)


_STORES: weakref.WeakKeyDictionary[Host, MediaStore] = weakref.WeakKeyDictionary()
_STORES_LOCK = threading.Lock()


def media_store(sandbox: Host) -> MediaStore:
    """The media store of ``sandbox`` (made on first use)."""
    with _STORES_LOCK:
        store = _STORES.get(sandbox)
        if store is None:
            store = _STORES[sandbox] = MediaStore()
        return store


def media_url(sandbox: Host, asset_id: str) -> str:
    """Where the sandbox serves an uploaded asset."""
    return f"{sandbox.url}{MEDIA_PREFIX}{asset_id}"


def lease(sandbox: Host, form: Mapping[str, str]) -> dict[str, Any]:
    """``POST /api/media/asset.json``: a new asset and where to upload it."""
    filepath = form.get("filepath", "") or "upload"
    mimetype = form.get("mimetype", "")
    asset_id = secrets.token_hex(6)
    key = f"{asset_id}/{filepath}"
    store = media_store(sandbox)
    with store.lock:
        store.assets[asset_id] = Asset(asset_id, filepath, mimetype, key)
    host = sandbox.url.split("://", 1)[1]
    return {
        "args": {
            "action": f"//{host}{UPLOAD_PATH}",
            "fields": [
                {"name": "acl", "value": "private"},
                {"name": "key", "value": key},
                {"name": "Content-Type", "value": mimetype},
                {"name": "x-amz-storage-class", "value": "STANDARD"},
            ],
        },
        "asset": {
            "asset_id": asset_id,
            "processing_state": "incomplete",
            "payload": {"filepath": filepath},
            "websocket_url": f"ws://{host}/sandbox-media/ws/{asset_id}",
        },
    }


def _parts(raw: bytes, content_type: str) -> dict[str, Message]:
    parsed = message_from_bytes(b"Content-Type: " + content_type.encode("latin-1")
                                + b"\r\n\r\n" + raw)
    out: dict[str, Message] = {}
    if not parsed.is_multipart():
        return out
    for part in parsed.get_payload():
        if isinstance(part, Message):
            name = part.get_param("name", header="content-disposition")
            if isinstance(name, str):
                out[name] = part
    return out


def _payload(part: Message) -> bytes:
    data = part.get_payload(decode=True)
    return data if isinstance(data, bytes) else b""


def _xml_error(code: str, message: str, extra: str = "") -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
            f"<Message>{message}</Message>{extra}</Error>")


def storage_error(code: str) -> str:
    """The storage bucket's XML answer to a refused request (``AccessDenied``, ``SlowDown``,
    ``InternalError``)."""
    return _xml_error(code, {"AccessDenied": "Access Denied",
                             "SlowDown": "Please reduce your request rate."}.get(
                                 code, "We encountered an internal error. Please try again."))


def upload(sandbox: Host, raw: bytes, content_type: str) -> tuple[int, str]:
    """The storage bucket's answer to an upload: (status, XML body)."""
    if not content_type.lower().startswith("multipart/form-data"):
        return 400, _xml_error("InvalidArgument", "expected multipart/form-data")
    parts = _parts(raw, content_type)
    key_part, file_part = parts.get("key"), parts.get("file")
    if key_part is None or file_part is None:
        return 400, _xml_error("InvalidArgument", "the form needs key and file")
    key = _payload(key_part).decode("utf-8", "replace")
    data = _payload(file_part)
    store = media_store(sandbox)
    with store.lock:
        asset = store.assets.get(key.split("/", 1)[0])
        if asset is None or asset.key != key:
            return 403, _xml_error("AccessDenied", "no lease for this key")
        if len(data) > store.max_bytes:
            return 400, _xml_error(
                "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size",
                f"<ProposedSize>{len(data)}</ProposedSize>"
                f"<MaxSizeAllowed>{store.max_bytes}</MaxSizeAllowed>")
        asset.data = bytes(data)
    location = f"{sandbox.url}{MEDIA_PREFIX}{asset.asset_id}"
    return 201, (f'<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>{location}'
                 f"</Location><Key>{key}</Key><ETag>\"{len(data)}\"</ETag></PostResponse>")


def to_richtext(markdown: str) -> dict[str, Any]:
    """``/api/convert_rte_body_format``: paragraphs stay text, inline media become elements."""
    document: list[dict[str, Any]] = []
    for block in re.split(r"\n\s*\n", markdown.strip()):
        block = block.strip()
        if not block:
            continue
        found = _INLINE.match(block)
        if found:
            element: dict[str, Any] = {"e": found["e"], "id": found["id"]}
            if found["c"]:
                element["c"] = found["c"]
            document.append(element)
        else:
            document.append({"e": "par", "c": [{"e": "text", "t": block}]})
    return {"output": {"document": document}}


def from_richtext(text: str) -> tuple[str, list[str]]:
    """The post's markdown and the media ids of a ``richtext_json`` document.

    Raises ValueError for a document the sandbox cannot read."""
    data = json.loads(text)
    blocks: list[str] = []
    media: list[str] = []
    for element in data.get("document", []):
        kind = element.get("e")
        if kind == "par":
            blocks.append("".join(str(c.get("t", "")) for c in element.get("c", [])))
        elif kind in ("img", "gif", "video"):
            media.append(str(element["id"]))
            blocks.append(f'![{kind}]({element["id"]} "{element.get("c", "")}")')
        else:
            raise ValueError(f"unknown rich text element {kind!r}")
    return "\n\n".join(blocks), media


def submit_form(sandbox: Host, form: Mapping[str, str]) -> tuple[dict[str, str],
                                                                          list[str]]:
    """A submit form with ``richtext_json`` turned into ``text``, and the media it uses.

    Raises ValueError (the caller answers with Reddit's error) for unknown or not uploaded
    media."""
    if "richtext_json" not in form:
        return dict(form), []
    text, media = from_richtext(form["richtext_json"])
    store = media_store(sandbox)
    with store.lock:
        for asset_id in media:
            asset = store.assets.get(asset_id)
            if asset is None or asset.data is None:
                raise ValueError(f"media {asset_id} was never uploaded")
    out = {k: v for k, v in form.items() if k != "richtext_json"}
    out["text"] = text
    return out, media


def record_post_media(sandbox: Host, post_id: str, media: list[str]) -> None:
    if media:
        store = media_store(sandbox)
        with store.lock:
            store.post_media[post_id] = list(media)


def post_media(sandbox: Host, post_id: str) -> list[Asset]:
    """The uploaded assets a post shows, in order (test and demo helper)."""
    store = media_store(sandbox)
    with store.lock:
        return [store.assets[a] for a in store.post_media.get(post_id, [])]


def asset(sandbox: Host, asset_id: str) -> Asset | None:
    store = media_store(sandbox)
    with store.lock:
        return store.assets.get(asset_id)
