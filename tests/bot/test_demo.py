"""`maester demo` plays a whole campaign through real PRAW against the sandbox."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from bot.demo import DemoReport, run_demo, summary

SERVED: dict[str, str] = {}


def _fetch_pages(report: DemoReport) -> None:
    """While the demo's pages are up: read the realm and House Stark's war room."""
    for name, url in zip(("realm", "war room"), report.web, strict=True):
        with urllib.request.urlopen(url, timeout=30) as answer:
            SERVED[name] = answer.read().decode()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, str]:
    lines: list[str] = []
    report = run_demo(lines.append, tmp_path_factory.mktemp("demo"), web_port=0,
                      linger=_fetch_pages)
    return report, "\n".join(lines)


def test_the_demo_serves_its_pages_and_prints_their_addresses(demo: tuple[object, str]
                                                              ) -> None:
    report, text = demo
    realm, room = report.web  # type: ignore[attr-defined]
    assert f"the realm at {realm}" in text and f"House Stark's war room at {room}" in text
    assert "/claim/" in room
    assert "[Battle]" in SERVED["realm"] or "battle" in SERVED["realm"]
    assert "House Stark · war room" in SERVED["war room"]
    assert "Winterfell" in SERVED["war room"]


def test_the_demo_shows_every_kind_of_public_post(demo: tuple[object, str]) -> None:
    report, _ = demo
    titles = " | ".join(report.posts)  # type: ignore[attr-defined]
    for kind in ("[Arrival]", "[Battle]", "[Siege] Siege begins", "[Siege] Holdfast falls",
                 "Blockade"):
        assert kind in titles


def test_the_demo_answers_good_bad_and_forwarded_orders(demo: tuple[object, str]) -> None:
    _, text = demo
    assert "is mustering at Winterfell" in text
    assert "**Not done:**" in text and "**Example:**" in text  # the bad order's reply
    # AutoMod forward, answered in Tywin's dispatch conversation (the title is escaped)
    assert "Your orders: \\[Orders\\] The lions ride for Riverrun" in text
    assert "written by u/roose\\_bolton, not by AutoModerator" in text  # the imitation
    assert "Expected wounds" in text  # a tabletop command in modmail


def test_the_demo_uses_skills_equipment_improvements_and_a_fleet(demo: tuple[object, str]
                                                                  ) -> None:
    """A skill, an improvement, siege equipment and a fleet blockade, shown in the
    bot's posts and receipts."""
    report, text = demo
    posts = [item for item in report.transcript  # type: ignore[attr-defined]
             if item.startswith("\n=== ")]
    battle = next(p for p in posts if "Battle at Riverrun" in p)
    assault = next(p for p in posts if "Assault at Raventree Hall" in p)
    assert "x1.2 Blackfish" in battle  # a commander's skill
    assert "x1.2 Siege Towers" in assault  # siege equipment
    assert "-1 month Trebuchets" in text and "-1 month Siegecraft" in text  # siege receipt
    assert "Building **Watchtowers** at Winterfell" in text  # an improvement
    assert any("Blockade: Seagard" in p for p in posts)  # a fleet blockade


def test_no_public_post_reveals_the_secret_defense_bonus(demo: tuple[object, str]) -> None:
    """Raventree Hall's secret bonus (x1.7) reaches only its claimant, never a post."""
    report, _ = demo
    posts = [item for item in report.transcript  # type: ignore[attr-defined]
             if item.startswith("\n=== ")]
    assert len(posts) >= 5
    for post in posts:
        assert "1.7" not in post and "secret" not in post.lower()


def test_the_demo_is_quick_and_summarised(demo: tuple[object, str], tmp_path: Path) -> None:
    report, _ = demo
    assert report.ticks >= 15  # type: ignore[attr-defined]
    assert report.replies >= 10 and report.private >= 10  # type: ignore[attr-defined]
    assert report.seconds < 60  # type: ignore[attr-defined]
    assert "Demo finished." in summary(report)  # type: ignore[arg-type]


def test_the_demo_posts_one_realm_map_and_says_where_it_is(demo: tuple[object, str]) -> None:
    """One [Realm] post with the month past inline as a film (the demo switches
    [posts] realm_film on), and where the picture went."""
    import io

    from PIL import Image

    report, text = demo
    realm = [t for t in report.posts if t.startswith("[Realm]")]  # type: ignore[attr-defined]
    assert len(realm) == 1
    (where, data), = report.images  # type: ignore[attr-defined]
    assert data.startswith(b"GIF8") and "/sandbox-media/" in where
    film = Image.open(io.BytesIO(data))
    assert film.n_frames >= 2 and film.size[0] >= 1600
    assert f"stored by the sandbox at {where}" in text and "table postimage" in text


def test_the_demo_previews_ticks_and_takes_a_mistake_back(demo: tuple[object, str]) -> None:
    """A moderator previews the next ticks (nothing applies; then they happen as
    shown) and takes back a wrong ruling with `maester rollback`, which posts a public
    correction with the reason (issue 29) and tells House Stark privately."""
    report, text = demo
    undo = text.index("$ maester rollback --to ")
    assert text.index('$ maester character set "Robb Stark" dead') < undo
    assert "Robb Stark: alive -> dead" in text and "Robb Stark is alive again" in text[undo:]
    assert "Correction queued: a public [Correction] post and a private note to House " \
        "Stark." in text[undo:]
    correction = text.index("[Correction] The world is taken back to", undo)
    assert "the ruling was for Rickard Karstark, not Robb Stark" in text[correction:]
    assert any(t.startswith("[Correction]") for t in report.posts)  # type: ignore[attr-defined]
    shown = text.index("$ maester tick --preview")
    preview = text[shown:text.index("nothing was applied", shown)]
    assert "army 1 is ready at" in preview and "message to ned_stark: Army 1 is ready" in preview
    after = text[text.index("nothing was applied", shown):]
    assert "**Army 1 is ready**" in after  # the real tick sent what the preview showed


def test_the_demo_shows_a_player_going_on_leave_and_coming_back(demo: tuple[object, str]
                                                                ) -> None:
    _, text = demo
    assert "Noted: House Arryn is away until" in text
    assert "(hunting in the Mountains of the Moon)" in text
    assert "Your leave ended on" in text  # the private welcome back, three days on


def test_the_demo_verifies_a_beacon_bound_battle(demo: tuple[object, str]) -> None:
    """The battle at Riverrun is bound to a round of the demo's local beacon: its post names
    the round and carries the verifiable mark, and `maester verify` checks it, signature
    and all."""
    report, text = demo
    posts = [item for item in report.transcript  # type: ignore[attr-defined]
             if item.startswith("\n=== ")]
    battle = next(p for p in posts if "Battle at Riverrun" in p)
    assert "beacon: drand chain=" in battle and "beacon=" in battle
    assert "Verifiable dice" in battle
    verify = text[text.index("$ maester verify"):]
    assert verify.splitlines()[1].startswith("OK ")
    assert "(signature checked)" in verify.splitlines()[1]


def test_the_demo_keeps_the_sidebar_clock_and_sends_to_webhooks(demo: tuple[object, str]
                                                                ) -> None:
    """The demo switches on the sidebar widget and the webhooks and prints what they get: the
    widget added at the first tick and updated at every tick after (the in-game date and the
    next tick), every public post announced once to the public channel of the local
    receiver, and House Stark's private news, after its player's `webhook URL` order, to its
    own channel. No public notice tells more than its post; none of Stark's goes public."""
    report, text = demo
    widget: list[str] = report.widget  # type: ignore[attr-defined]
    assert len(widget) >= report.ticks  # type: ignore[attr-defined]
    assert len(set(widget)) == len(widget)  # each print is a change
    assert all(w.startswith("**In-game date:** Month ") and "**Next tick:** 2026-" in w
               for w in widget)
    assert '[sidebar widget "Campaign clock" on r/westeros added: In-game date: ' in text
    assert text.count('[sidebar widget "Campaign clock" on r/westeros updated: ') \
        == len(widget) - 1
    hooks: list[tuple[str, str]] = report.hooks  # type: ignore[attr-defined]
    public = [t for channel, t in hooks if channel == "the public channel"]
    own = [t for channel, t in hooks if channel == "House Stark's own channel"]
    assert sorted(t.splitlines()[0].strip("*") for t in public) == sorted(
        report.posts)  # type: ignore[attr-defined]
    assert all("/comments/" in t for t in public)  # each links to its post
    done = next(line for line in text.splitlines()
                if line.startswith("Done: from now on House Stark's private news also goes"))
    assert "stark-own-channel" not in done  # the reply never repeats the webhook's token
    assert own and any("Army 1 is ready" in t for t in own)
    assert not any(t in public for t in own)
    for t in public:
        assert "2.6" not in t and "secret" not in t.lower()  # Winterfell's bonus stays home
    assert f">>> webhook notice to the public channel: {report.posts[0]}" in text  # type: ignore[attr-defined]
    assert ">>> webhook notice to House Stark's own channel: " in text
    assert "notices of public posts to the public channel" in summary(report)  # type: ignore[arg-type]
