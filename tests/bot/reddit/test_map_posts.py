"""The monthly [Realm] post and inset maps, end to end: tick, outbox, real PRAW 8 media upload
(lease, upload, rich text, submit) against the sandbox."""

from __future__ import annotations

import io
from datetime import timedelta

from PIL import Image
from sqlmodel import col, select

from bot.db.engine import transaction
from bot.db.models import Army, ArmyState, Outbox, PostImage
from bot.reddit.media import UPLOAD_NOTE
from bot.sandbox import BOT_USERNAME, Fault, media
from bot.services import journal
from bot.services.realm import attach_insets
from bot.services.tick import catch_up
from tests.bot.reddit.conftest import Harness


def _realm_entries(bot: Harness) -> list[Outbox]:
    return [e for e in bot.outbox() if e.key.startswith("realm:")]


def _image(bot: Harness, key: str) -> PostImage:
    with transaction(bot.engine) as session:
        return session.exec(select(PostImage).where(PostImage.key == key)).one()


def _past_a_month(bot: Harness) -> Outbox:
    bot.clock.advance(timedelta(hours=bot.settings.calendar.month_hours))
    catch_up(bot.engine, bot.ctx, bot.clock.now())
    entries = _realm_entries(bot)
    assert len(entries) >= 1
    return entries[-1]


def test_the_realm_post_goes_out_once_with_the_public_map_inline(bot: Harness) -> None:
    entry = _past_a_month(bot)
    assert entry.title.startswith("[Realm] The realm at the start of Month")
    assert "**Holdfasts held:** 14 of 40." in entry.body
    assert "| House Stark | Winterfell |" in entry.body
    assert _image(bot, entry.key).data == b""  # a snapshot until it is delivered
    assert _image(bot, entry.key).scene_json["title"].startswith("The realm, Month")

    bot.sandbox.reset_requests()
    report = bot.publish()
    assert entry.key in report.delivered_keys
    stored = _image(bot, entry.key)
    picture = Image.open(io.BytesIO(stored.data))
    assert picture.format == "PNG" and picture.size[0] > 1000
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == entry.title]
    (asset,) = media.post_media(bot.sandbox, post.id)
    assert asset.data == stored.data and asset.mimetype == "image/png"
    assert post.body.startswith(f'![img]({asset.asset_id} "{stored.caption}")')
    assert "**Holdfasts held:**" in post.body
    counts = bot.sandbox.request_counts()
    assert counts["media.asset"] == counts["media.upload"] == counts["convert_rte"] == \
        len(_realm_entries(bot))
    # served where the sandbox stored it
    import urllib.request

    with urllib.request.urlopen(media.media_url(bot.sandbox, asset.asset_id)) as answer:
        assert answer.read() == stored.data

    bot.publish()
    catch_up(bot.engine, bot.ctx, bot.clock.now())
    assert [p.title for p in bot.sandbox.posts(author=BOT_USERNAME)].count(entry.title) == 1


def test_a_failed_upload_posts_the_text_once_with_a_note(bot: Harness) -> None:
    entry = _past_a_month(bot)
    bot.sandbox.add_fault(Fault.server_error(500), method="POST", path=media.UPLOAD_PATH,
                          times=None)
    for _ in range(bot.settings.bot.picture_attempts):  # retried, then the text alone
        bot.publish()
        bot.clock.advance(timedelta(hours=2))
    bot.publish()
    posts = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == entry.title]
    assert len(posts) == 1
    assert posts[0].body.startswith(UPLOAD_NOTE.strip())
    assert media.post_media(bot.sandbox, posts[0].id) == []
    assert "**Holdfasts held:**" in posts[0].body
    assert entry.key not in bot.pending()


def test_a_lost_answer_to_the_image_submit_never_makes_a_second_post(bot: Harness) -> None:
    """Reddit stores the post but the answer is lost: the retry finds the marker."""
    entry = _past_a_month(bot)
    bot.sandbox.add_fault(Fault.stored_then_error(504), method="POST", path="/api/submit")
    first = bot.publish()
    assert entry.key not in first.delivered_keys
    bot.clock.advance(timedelta(hours=2))
    bot.publish()
    posts = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == entry.title]
    assert len(posts) == 1 and len(media.post_media(bot.sandbox, posts[0].id)) == 1


def test_the_realm_post_can_be_switched_off(bot: Harness) -> None:
    bot.ctx = bot.ctx.configured(posts={"realm_post": False})
    bot.clock.advance(timedelta(hours=bot.settings.calendar.month_hours * 2))
    catch_up(bot.engine, bot.ctx, bot.clock.now())
    assert _realm_entries(bot) == []


def test_an_arrival_post_carries_an_inset_map_when_switched_on(bot: Harness) -> None:
    bot.ctx = bot.ctx.configured(posts={"inset_maps": True})
    now = bot.clock.now()
    tick = bot.ctx.tick_of(now)
    with transaction(bot.engine) as session:
        army = Army(campaign_id=bot.ctx.campaign_id, claim_id=1, state=ArmyState.STANDING.value,
                    tile="1320", infantry=300, arrival_tick=tick)
        session.add(army)
        session.flush()
        key = f"arrival:{army.id}:{tick}"
        journal.queue(session, bot.ctx.campaign_id, key, "post", body="A host arrives.",
                      at=now, tick=tick, target=bot.settings.campaign.subreddit,
                      title="[Arrival] House Stark arrives at 1320", public=True)
    with transaction(bot.engine) as session:
        assert attach_insets(session, bot.ctx, tick=tick, at=now) == 1
        assert attach_insets(session, bot.ctx, tick=tick, at=now) == 0  # once
    assert _image(bot, key).scene_json["around"] == "1320"
    bot.publish()
    stored = _image(bot, key)
    inset = Image.open(io.BytesIO(stored.data))
    assert 600 <= inset.size[0] < 800 and stored.caption == "Around 1320"
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME)
               if p.title.startswith("[Arrival]")]
    (asset,) = media.post_media(bot.sandbox, post.id)
    assert asset.data == stored.data
    with transaction(bot.engine) as session:
        assert session.exec(select(col(Outbox.status)).where(Outbox.key == key)).one() \
            == "delivered"


def test_a_catch_up_posts_only_the_newest_realm_map(bot: Harness) -> None:
    """Months missed while the bot was down: one [Realm] post, the newest month's."""
    bot.clock.advance(timedelta(hours=bot.settings.calendar.month_hours * 4))
    catch_up(bot.engine, bot.ctx, bot.clock.now())
    entries = _realm_entries(bot)
    assert len(entries) == 1
    with transaction(bot.engine) as session:
        keys = session.exec(select(PostImage.key)).all()
    assert keys == [entries[0].key]
    bot.publish()
    assert len([p for p in bot.sandbox.posts(author=BOT_USERNAME)
                if p.title.startswith("[Realm]")]) == 1


def test_a_realm_post_already_tried_is_never_dropped(bot: Harness) -> None:
    first = _past_a_month(bot)
    bot.sandbox.add_fault(Fault.stored_then_error(504), method="POST", path="/api/submit")
    bot.publish()  # tried once: it may be on Reddit
    second = _past_a_month(bot)
    assert second.key != first.key
    assert {e.key for e in _realm_entries(bot)} == {first.key, second.key}
    bot.clock.advance(timedelta(hours=2))
    bot.publish()
    titles = [p.title for p in bot.sandbox.posts(author=BOT_USERNAME)]
    assert titles.count(first.title) == 1 and titles.count(second.title) == 1


def test_a_picture_too_large_for_reddit_goes_out_as_text(bot: Harness) -> None:
    """S3 refuses the upload with EntityTooLarge (PRAW's TooLargeMediaException)."""
    entry = _past_a_month(bot)
    media.media_store(bot.sandbox).max_bytes = 1000
    bot.publish()
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == entry.title]
    assert post.body.startswith(UPLOAD_NOTE.strip())
    assert bot.sandbox.request_counts()["media.upload"] >= 1


def test_the_realm_film_shows_the_month_past_as_a_gif_of_public_frames(bot: Harness) -> None:
    """With [posts] realm_film, every tick whose public situation changed adds a frame; the
    [Realm] post carries the month as an animated GIF (an inline gif on Reddit). A hidden
    army never reaches a frame; the film's rows go once the post is queued."""
    bot.ctx = bot.ctx.configured(posts={"realm_film": True})
    hours = bot.settings.calendar.month_hours
    bot.clock.advance(timedelta(hours=hours // 4))
    catch_up(bot.engine, bot.ctx, bot.clock.now())
    tick = bot.ctx.tick_of(bot.clock.now())
    with transaction(bot.engine) as session:
        session.add(Army(campaign_id=bot.ctx.campaign_id, claim_id=1, tile="1320",
                         state=ArmyState.STANDING.value, infantry=300, arrival_tick=tick))
        session.add(Army(campaign_id=bot.ctx.campaign_id, claim_id=2, tile="0633",
                         state=ArmyState.STANDING.value, infantry=900))  # never announced
    entry = _past_a_month(bot)
    data = _image(bot, entry.key).scene_json
    frames = data["frames"]
    assert len(frames) >= 2 and frames[0]["day"] >= 1
    tiles = [{a["tile"] for a in f["situation"]["armies"]} for f in frames]
    assert "1320" in tiles[-1] and not any("0633" in t for t in tiles)
    assert all(not a["id"] and not a["infantry"] for f in frames
               for a in f["situation"]["armies"])
    with transaction(bot.engine) as session:
        film_rows = session.exec(select(PostImage.key).where(
            col(PostImage.key).startswith("film:"))).all()
    assert all(int(k.split(":")[1]) > int(entry.key.split(":")[1]) - 1 for k in film_rows)

    bot.publish()
    stored = _image(bot, entry.key)
    film = Image.open(io.BytesIO(stored.data))
    assert film.format == "GIF" and film.n_frames >= len(frames) + 1
    assert film.size[0] >= 1600 and stored.name.endswith(".gif")
    assert len(stored.data) < 20_000_000
    (post,) = [p for p in bot.sandbox.posts(author=BOT_USERNAME) if p.title == entry.title]
    (asset,) = media.post_media(bot.sandbox, post.id)
    assert asset.data == stored.data and asset.mimetype == "image/gif"
    assert post.body.startswith(f'![gif]({asset.asset_id} "{stored.caption}")')
