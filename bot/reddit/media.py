"""Posts with a picture: the stored map image of an outbox entry, uploaded through PRAW.

An entry whose key has a :class:`~bot.db.models.PostImage` goes out as a self post with the
picture inline (PRAW 8's media upload). If the upload fails, nothing was posted yet. A
failure that may pass (the storage bucket's 403 or 5xx, a timeout, a failed lease) is tried
again with the outbox's back-off, up to ``[bot] picture_attempts`` attempts; after that, or
at once for a failure that cannot pass (a picture too large), the post goes out as text with
a note instead: the reader gets the news once, never two copies (the delivery's marker and
reference line cover a submission whose answer was lost, as for every post).
"""

from __future__ import annotations

import logging
from pathlib import PurePosixPath

from sqlalchemy import Engine
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import PostImage
from bot.reddit.gateway import ImageUploadFailed, RedditGateway, Sent, TransientError
from bot.services.realm import picture_for
from bot.services.world import CampaignContext
from rules.errors import InvalidInput

log = logging.getLogger(__name__)

UPLOAD_NOTE = ("*(The map picture for this post could not be uploaded. The moderators can "
               "share it: `maester map render`.)*\n\n")


def post_image(engine: Engine, ctx: CampaignContext, key: str) -> PostImage | None:
    """The picture for the outbox entry ``key``, if any: drawn from its stored snapshot the
    first time it is needed, and kept (so a retry uploads the same picture)."""
    with transaction(engine) as session:
        image = session.exec(select(PostImage).where(PostImage.campaign_id == ctx.campaign_id,
                                                     PostImage.key == key)).first()
        if image is None:
            return None
        if not image.data and image.scene_json:
            try:
                picture = picture_for(ctx, dict(image.scene_json))
                image.data = picture.data
                image.name = str(PurePosixPath(image.name).with_suffix(picture.suffix))
            except InvalidInput as exc:
                log.warning("the picture of %s cannot be drawn: %s", key, exc)
                return None
            session.add(image)
            session.flush()
        session.expunge(image)
        return image


def submit_post(gateway: RedditGateway, title: str, body: str, flair: str | None,
                image: PostImage | None, *, last_try: bool = True) -> Sent:
    """Submit a self post, with ``image`` inline when there is one. If the upload fails
    for a passing reason and this is not the ``last_try`` for the picture, raise
    :class:`~bot.reddit.gateway.TransientError` (nothing was posted: the outbox tries again
    after its back-off); otherwise post the text with a note."""
    if image is None or not image.data:
        return gateway.submit(title, body, flair)
    try:
        return gateway.submit_image(title, body, flair, image=image.data, name=image.name,
                                    caption=image.caption)
    except ImageUploadFailed as exc:
        if exc.transient and not last_try:
            raise TransientError(f"the picture could not be uploaded ({exc}); nothing was "
                                 "posted, the picture is tried again") from exc
        log.warning("the picture of %s could not be uploaded (%s): posting the text alone",
                    image.key, exc)
        return gateway.submit(title, UPLOAD_NOTE + body, flair)
