"""``maester demo``: a whole campaign against a local Reddit sandbox, with no credentials.

The demo starts the sandbox in-process, creates a temporary campaign from the demo map and
roster, and plays a short war through real PRAW: players send modmail and AutoModerator
forwards posts; the bot polls, answers, advances a simulated clock tick by tick and publishes.
Everything that appears on the sandbox subreddit and in modmail is printed as it appears, and
so is what the bot keeps outside the posts: the sidebar widget "Campaign clock" (``[posts]
sidebar_widget``) at every tick, and each notice to the Discord-compatible webhooks of a local
receiver (:mod:`bot.sandbox.webhooks`): the public channel (``[webhooks] public``) and House
Stark's own, which its player registers by modmail (``webhook URL``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import praw

from bot.clock import ManualClock
from bot.config import Settings, parse_settings
from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.maps import demo_map_text
from bot.reddit.deliver import publish_once
from bot.reddit.gateway import praw_gateway
from bot.reddit.intake import poll_once
from bot.reddit.ratelimit import RequestBudget
from bot.sandbox import RedditSandbox
from bot.sandbox.beacon import LocalBeacon
from bot.sandbox.defaults import BOT_PASSWORD, BOT_USERNAME, MODERATOR, password_for
from bot.sandbox.praw_client import make_reddit
from bot.sandbox.webhooks import WebhookReceiver
from bot.services.setup import DEMO_ROSTER, DEMO_WARS, create_campaign
from bot.services.tick import advancer
from bot.services.world import CampaignContext
from bot.web.serve import Background
from rules.campaign import calendar
from rules.campaign.paths import ArmyKind, cheapest_route, format_path
from rules.campaign.world import BattleStatus

DEMO_SEED = "maester-demo-1"  # the campaign secret: the demo's story depends on its dice
SUBREDDIT = "westeros"
START = datetime(2026, 11, 22, 7, 30, tzinfo=UTC)
PUBLIC_HOOK = ("100000000000000001", "demo-public-channel")  # the receiver's webhooks
STARK_HOOK = ("200000000000000002", "stark-own-channel")
WIDGET = "Campaign clock"


@dataclass(slots=True)
class DemoReport:
    """What the demo saw, for its summary (and for its test)."""

    replies: int = 0
    posts: list[str] = field(default_factory=list)
    private: int = 0
    requests: int = 0
    ticks: int = 0
    seconds: float = 0.0
    transcript: list[str] = field(default_factory=list)
    images: list[tuple[str, bytes]] = field(default_factory=list)  # (where, PNG) per picture
    web: tuple[str, str] = ("", "")  # the realm's address and House Stark's war room
    widget: list[str] = field(default_factory=list)  # the sidebar widget's texts, in turn
    hooks: list[tuple[str, str]] = field(default_factory=list)  # (channel, text) received


class Demo:
    """The demo's world: sandbox, players' PRAW clients, the bot's database and clock."""

    def __init__(self, workdir: Path, echo: Callable[[str], None], *,
                 web_port: int | None = None) -> None:
        self.echo = echo
        self.web_port = web_port
        self.web: Background | None = None
        self.clock = ManualClock(START)
        self.sandbox = RedditSandbox(clock=self.clock.now)
        # The demo's public randomness beacon: a local one (the demo runs offline), its rounds
        # every 3 s from long before the campaign, signed under drand's scheme with a test key.
        self.beacon = LocalBeacon(genesis=int(START.timestamp()) - 86_400)
        # Discord stand-in: the public channel and House Stark's own receive the notices.
        self.hooks = WebhookReceiver()
        self.hooks_seen = 0
        self.workdir = workdir
        self.report = DemoReport()
        self.seen = 0
        self._players: dict[str, praw.Reddit] = {}

    # --- set-up --------------------------------------------------------------------------
    def start(self) -> None:
        self.sandbox.start()
        self.sandbox.add_subreddit(SUBREDDIT, title="The Seven Kingdoms")
        self.sandbox.add_user(BOT_USERNAME, BOT_PASSWORD, moderator_of=(SUBREDDIT,))
        self.sandbox.add_user(MODERATOR, password_for(MODERATOR), moderator_of=(SUBREDDIT,))
        for entry in DEMO_ROSTER:
            for player in entry["players"]:
                self.sandbox.add_user(player, password_for(player))
        self.sandbox.add_automod_forward_rule(SUBREDDIT, title_contains="[Orders]")
        self.beacon.start()
        self.hooks.start()
        self.settings = self._settings()
        self.engine = make_engine(self.settings.campaign.database_url)
        upgrade(self.engine)
        with transaction(self.engine) as session:
            self.ctx: CampaignContext = create_campaign(
                session, self.settings, map_text=demo_map_text(), roster=DEMO_ROSTER,
                now=self.clock.now(), seed=DEMO_SEED, wars=DEMO_WARS)
        # The sandbox has no rate limit worth keeping to; Reddit's budget applies in `run`.
        self.gateway = praw_gateway(self.settings, budget=RequestBudget(60_000))
        if self.web_port is not None:
            self.start_web(self.web_port)

    def start_web(self, port: int) -> None:
        """Serve the campaign's pages (a free port if ``port`` is taken) and print the
        realm's address and House Stark's war room."""
        from bot.services import weblinks
        from bot.web.serve import start_background

        try:
            self.web = start_background(self.settings, host="127.0.0.1", port=port)
        except RuntimeError:
            self.web = start_background(self.settings, host="127.0.0.1", port=0)
        with transaction(self.engine) as session:
            stark = weblinks.links(session, self.ctx, self.clock.now(), claim="House Stark")[0]
        base = f"http://127.0.0.1:{self.web.port}"
        self.report.web = (f"{base}/", f"{base}{stark.path}")
        self.echo(f"The web pages: the realm at {base}/ and House Stark's war room at "
                  f"{base}{stark.path}")

    def _settings(self) -> Settings:
        return parse_settings({
            "campaign": {"name": "The War of the Five Kings (demo)", "subreddit": SUBREDDIT,
                         "database_url": f"sqlite:///{self.workdir / 'demo.db'}",
                         "moderators": [MODERATOR]},
            "reddit": {"client_id": self.sandbox.client_id,
                       "client_secret": self.sandbox.client_secret,
                       "username": BOT_USERNAME, "password": BOT_PASSWORD,
                       "oauth_url": self.sandbox.url,
                       "reddit_url": self.sandbox.url, "timeout_seconds": 5},
            "bot": {"requests_per_minute": 100, "post_spacing_seconds": 0.2,
                    # no cap per minute: the demo's weeks pass in a minute of real time;
                    # the sandbox's account paces only the demo's own sends
                    "message_spacing_seconds": 0, "sends_per_minute": 0,
                    "pace_file": str(self.workdir / "pace.json")},
            "calendar": {"epoch": "2026-11-22T00:00:00Z", "epoch_year": 298},
            "catalogue": {"file": "demo"},
            # one [Realm] map, at the last month boundary (see play); on by default; the
            # sidebar widget keeps the in-game date and the next tick
            "posts": {"realm_post": False, "realm_film": True, "sidebar_widget": True,
                      "sidebar_widget_name": WIDGET},
            # every public post also goes to the public channel (a Discord-compatible
            # webhook of the local receiver, allowed by its prefix); a claim may add its own
            "webhooks": {"allowed_prefixes": [self.hooks.prefix],
                         "public": [self.hooks.url(*PUBLIC_HOOK)], "spacing_seconds": 0,
                         "timeout_seconds": 5},
            # every tick's dice bound to the local beacon's first round 10 s after the tick
            "dice": self.beacon.settings(margin=10, timeout=5.0),
        }, source="demo")

    def stop(self) -> None:
        from sqlmodel import select

        from bot.db.models import Outbox, OutboxStatus

        self.report.requests = self.sandbox.request_count()
        with transaction(self.engine) as session:
            sent = session.exec(select(Outbox).where(
                Outbox.status == OutboxStatus.DELIVERED)).all()
        self.report.replies = sum(1 for o in sent if o.kind == "reply")
        self.report.private = sum(1 for o in sent if o.kind == "message")
        if self.web is not None:
            self.web.stop()
        self.engine.dispose()
        self.sandbox.stop()
        self.beacon.stop()
        self.hooks.stop()

    # --- players -------------------------------------------------------------------------
    def player(self, name: str) -> praw.Reddit:
        if name not in self._players:
            self._players[name] = make_reddit(self.sandbox.url, username=name,
                                              password=password_for(name))
        return self._players[name]

    def modmail(self, name: str, body: str, subject: str = "Orders") -> None:
        """A player writes to the moderators (real PRAW: subreddit.message)."""
        self.player(name).subreddit(SUBREDDIT).message(subject=subject, message=body)

    def post_orders(self, name: str, title: str, body: str) -> None:
        """A player posts orders; AutoModerator forwards the post to modmail."""
        self.player(name).subreddit(SUBREDDIT).submit(title=title, selftext=body)

    def grant(self, character: str, skill: str) -> None:
        """A moderator grants a skill (as `maester skills grant` does)."""
        from bot.services.catalogue import grant_skill

        with transaction(self.engine) as session:
            text = grant_skill(session, self.ctx, character, skill, by=MODERATOR,
                               now=self.clock.now())
        self.emit(f"\n$ maester skills grant \"{character}\" {skill}\n{text}")

    def preview(self, hours: int) -> None:
        """A moderator previews the next ticks (as `maester tick --preview --until`): they
        are applied in a transaction that is rolled back; nothing changes."""
        from bot.services.preview import preview

        until = self.clock.now() + timedelta(hours=hours)
        lines = [f"\n$ maester tick --preview --until {until:%Y-%m-%dT%H:%MZ}"]
        ticks = preview(self.engine, self.ctx, until)
        for tick in ticks:
            lines.append(f"tick {tick.tick} ({self.ctx.when(tick.at)})")
            lines += [f"  - {event}" for event in tick.events]
            same: dict[tuple[str, str], list[str]] = {}  # one line per kind and title
            for entry in tick.queued:
                same.setdefault((entry.kind, entry.title), []).append(entry.target)
            lines += [f"  {kind} to {', '.join(targets[:3])}"
                      + (f" and {len(targets) - 3} more" if len(targets) > 3 else "")
                      + f": {title}" for (kind, title), targets in same.items()]
        lines.append(f"Preview: {len(ticks)} tick(s); nothing was applied.")
        self.emit("\n".join(lines))

    def verify_battle(self, place: str) -> None:
        """A player's doubt answered: the battle at ``place``'s dice, bound to a beacon round,
        checked as `maester verify EVENT` does (the round's signature too)."""
        from sqlmodel import col, select

        from bot.db.models import Event
        from bot.services import fairplay
        from rules.fairdice import DiceLine

        with transaction(self.engine) as session:
            found = [e for e in session.exec(select(Event).where(Event.kind == "battle")
                                             .order_by(col(Event.id))).all()
                     if place in e.summary and fairplay.DICE_KEY in (e.data_json or {})]
            assert found, f"no battle with dice at {place}"
            event = found[-1]
            line = DiceLine.parse(str(event.data_json[fairplay.DICE_KEY]))
            report, _ = fairplay.check_lines(session, self.ctx, [line])
        self.emit(f"\n$ maester verify {event.id}\n" + "\n".join(report))

    def mistake_and_rollback(self) -> None:
        """A moderator records a fate for the wrong character and takes it back with a
        reason (as `maester character set ...` then `maester rollback --to TICK --reason
        ...`): the bot posts the public [Correction] and tells House Stark privately."""
        from bot.services import corrections, snapshots
        from bot.services.moderation import set_fate
        from bot.services.world import find_character, get_campaign

        now = self.clock.now()
        with transaction(self.engine) as session:
            character = find_character(session, self.ctx, "Robb Stark")
            done = set_fate(session, self.ctx, character, "dead", note="fell at the ford",
                            actor=MODERATOR, now=now)
        self.emit(f"\n$ maester character set \"Robb Stark\" dead --note \"fell at the "
                  f"ford\"\n{done}")
        reason = "the ruling was for Rickard Karstark, not Robb Stark"
        with transaction(self.engine) as session:
            tick = get_campaign(session, self.ctx).last_tick
            plan = snapshots.plan(session, self.ctx, snapshots.after_tick(session, self.ctx,
                                                                          tick), now)
            lines = corrections.take_back(session, self.ctx, plan, reason=reason,
                                          actor=MODERATOR, now=now)
            robb = find_character(session, self.ctx, "Robb Stark")
            state = robb.status.value
        self.emit(f"\n$ maester rollback --to {tick} --reason \"{reason}\"\n"
                  + "\n".join(lines) + f"\nTaken back. Robb Stark is {state} again.")

    def imitation(self, name: str, body: str) -> None:
        """A player lays a message out like an AutoModerator forward (the bot refuses it)."""
        self.sandbox.seed_fake_automod_forward(name, "[Orders] sneaky", body,
                                               subreddit=SUBREDDIT)

    def route(self, army_tile: str, goal: str, kind: ArmyKind = ArmyKind.LAND) -> str:
        """The path text a player would copy from a `route` reply."""
        start = self.ctx.world.tile(army_tile).id
        found = cheapest_route(self.ctx.world, start, self.ctx.world.tile(goal).id, kind,
                               self.ctx.rules)
        assert found is not None, f"no route from {army_tile} to {goal}"
        return f"{format_path(found.tiles)} (cost {found.total})"

    # --- the bot ----------------------------------------------------------------------------
    def bot_round(self) -> None:
        """One round of the bot: read modmail (applying due ticks first), then publish."""
        intake = poll_once(self.engine, self.ctx, self.gateway, self.clock,
                           advance_to=advancer(self.engine, self.ctx))
        self.report.ticks += intake.ticks_applied
        for _ in range(20):
            delivered = publish_once(self.engine, self.ctx, self.gateway, self.clock)
            if not delivered.delivered:
                break
        self.show()

    def advance(self, hours: int) -> None:
        """Move the simulated clock tick by tick, the bot running after each tick; a player
        who gets the first reaction to a battle answers it before the next tick."""
        step = calendar.tick_length(self.ctx.rules)  # the rules' tick, not a number here
        for _ in range(int(timedelta(hours=hours) / step)):
            self.clock.advance(step)
            self.bot_round()
            self.react()

    def react(self) -> None:
        from sqlmodel import select

        from bot.db.models import Army, PendingBattle, Player

        with transaction(self.engine) as session:
            waiting = session.exec(select(PendingBattle).where(
                PendingBattle.status == BattleStatus.PENDING, PendingBattle.reaction == None)).all()  # noqa: E711
            answers = []
            for battle in waiting:
                if battle.reactor_claim is None:
                    continue
                player = session.exec(select(Player.reddit_name).where(
                    Player.claim_id == battle.reactor_claim)).first()
                armies = [session.get(Army, i) for i in (battle.attacker_army,
                                                         battle.defender_army)]
                own = next((a for a in armies if a and a.claim_id == battle.reactor_claim),
                           None)
                if player and own:
                    answers.append((player, f"stand army {own.id}"))
        for player, text in answers:
            self.modmail(player, text)
        if answers:
            self.bot_round()

    def show(self) -> None:
        items = self.sandbox.activity(after=self.seen)
        self.seen += len(items)
        for item in items:
            when = self.clock.now().strftime("%Y-%m-%d %H:%M UTC")
            if item.kind == "post":
                if item.author == BOT_USERNAME:
                    self.report.posts.append(item.title)
                self.emit(f"\n=== r/{item.subreddit} post by u/{item.author} ({when}) ===\n"
                          f"## {item.title}\n{_strip_marker(item.body)}")
                self._show_images(item.id)
            elif item.kind == "modmail":
                self.emit(f"\n--- modmail from u/{item.author} ({when}) "
                          f"{item.title and '[' + item.title + ']'}\n"
                          f"{_strip_marker(item.body)}")
            else:
                self.emit(f"\n--- {item.kind} by u/{item.author} ({when})\n"
                          f"{_strip_marker(item.body)}")

        self._show_outside()

    def _show_outside(self) -> None:
        """What the bot keeps beyond posts and modmail: the sidebar widget's new text, and
        each notice the webhooks received since the last look."""
        widget = next((str(w.get("text", "")) for w in self.sandbox.sidebar_widgets(SUBREDDIT)
                       if w.get("shortName") == WIDGET), None)
        if widget is not None and (not self.report.widget or widget != self.report.widget[-1]):
            self.report.widget.append(widget)
            line = " · ".join(p.replace("**", "") for p in widget.split("\n\n") if p)
            self.emit(f"[sidebar widget \"{WIDGET}\" on r/{SUBREDDIT} "
                      f"{'added' if len(self.report.widget) == 1 else 'updated'}: {line}]")
        received = self.hooks.messages()
        for message in received[self.hooks_seen:]:
            channel = ("the public channel" if message.webhook == PUBLIC_HOOK[0]
                       else "House Stark's own channel")
            self.report.hooks.append((channel, message.text))
            first = message.text.splitlines()[0].replace("**", "") if message.text else ""
            self.emit(f">>> webhook notice to {channel}: {first}")
        self.hooks_seen = len(received)

    def _show_images(self, post_id: str) -> None:
        """Where a post's picture went: uploaded to the (sandbox) Reddit, kept by the bot."""
        from bot.sandbox.media import media_url, post_media

        for asset in post_media(self.sandbox, post_id):
            url = media_url(self.sandbox, asset.asset_id)
            self.report.images.append((url, asset.data or b""))
            self.emit(f"[picture {asset.filepath}: {len(asset.data or b'')} bytes, uploaded "
                      f"through PRAW's media upload and stored by the sandbox at {url}; the "
                      f"bot keeps its copy in the database table postimage "
                      f"({self.settings.campaign.database_url})]")

    def emit(self, text: str) -> None:
        self.report.transcript.append(text)
        self.echo(text)

    def narrate(self, text: str) -> None:
        self.emit(f"\n##### {self.clock.now():%a %d %b %H:%M} UTC — {text}")


def _strip_marker(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if not line.startswith("[](#maester:"))


def army_tile(demo: Demo, army_id: int) -> str:
    from bot.db.models import Army

    with transaction(demo.engine) as session:
        army = session.get(Army, army_id)
        assert army is not None
        return army.tile


def newest_army(demo: Demo, claim: str) -> int:
    """The number of a claim's newest army, as its player reads it from the receipt."""
    from sqlmodel import col, select

    from bot.db.models import Army, Claim

    with transaction(demo.engine) as session:
        found = session.exec(select(Army.id).join(Claim, col(Claim.id) == col(Army.claim_id))
                             .where(Claim.name == claim).order_by(col(Army.id).desc())).first()
    assert found is not None, f"{claim} has no army"
    return found


def play(demo: Demo) -> None:
    """The scripted war."""
    demo.narrate("the moderators grant the commanders their skills")
    demo.grant("Brynden Tully", "Blackfish")
    demo.grant("Jaime Lannister", "Siegecraft")
    demo.narrate("the lords raise their banners; Lord Arryn goes away for a few days; House "
                 "Stark sends its private news to its own Discord channel too")
    demo.modmail("ned_stark", "muster 800 infantry 200 cavalry\nstatus\n"
                              f"webhook {demo.hooks.url(*STARK_HOOK)}")
    demo.modmail("hoster_tully", "muster 400 infantry 100 cavalry")
    demo.modmail("tywin_lannister", "muster 900 cavalry")
    demo.modmail("balon_greyjoy", "muster 12 ships")
    demo.modmail("walder_frey", "march my army to the moon (cost 3)")
    demo.modmail("doran_martell", "!attack 8 dice 4+ vs 5+ morale 6")
    demo.imitation("roose_bolton", "muster 1500 infantry\nattack army 1 with army 2")
    demo.modmail("ned_stark", "build Watchtowers at Winterfell")
    back = (demo.clock.now() + timedelta(days=3)).date()
    demo.modmail("jon_arryn", f"away until {back:%Y-%m-%d} hunting in the Mountains of the Moon")
    demo.bot_round()
    lions = newest_army(demo, "House Lannister")
    fleet = newest_army(demo, "House Greyjoy")
    tullys = newest_army(demo, "House Tully")
    demo.modmail("tywin_lannister", f"buy Siege Towers for army {lions}\n"
                                    f"buy Trebuchets for army {lions}\n"
                                    f"assign Jaime Lannister to army {lions}")
    demo.modmail("hoster_tully", f"assign Brynden Tully to army {tullys}")
    demo.bot_round()

    demo.narrate("before the musters complete, the moderators preview the next day")
    demo.preview(30)
    demo.advance(30)  # the musters complete
    demo.narrate("Lord Tywin posts his orders; AutoModerator forwards them")
    path = demo.route(army_tile(demo, lions), "Riverrun")
    demo.post_orders("tywin_lannister", "[Orders] The lions ride for Riverrun",
                     f"move army {lions}: {path}")
    seagard = demo.ctx.world.tile("Seagard").id
    station = demo.ctx.world.water_adjacent(seagard)[0]
    fleet_path = demo.route(army_tile(demo, fleet), station, ArmyKind.FLEET)
    demo.modmail("balon_greyjoy", f"move fleet {fleet}: {fleet_path}")
    demo.bot_round()

    demo.advance(42)  # the lions reach Riverrun; the Tullys, warned first, stand and fight
    demo.narrate("a player doubts the dice at Riverrun; anyone can check them, beacon round "
                 "and all")
    demo.verify_battle("Riverrun")

    demo.narrate("the ironborn close the sea road to Seagard")
    demo.modmail("balon_greyjoy", f"blockade Seagard with fleet {fleet}")
    demo.bot_round()
    demo.narrate("the lions turn on Raventree Hall")
    tile = army_tile(demo, lions)
    if demo.ctx.world.tile(tile).label != "Raventree Hall":
        demo.modmail("tywin_lannister",
                     f"move army {lions}: {demo.route(tile, 'Raventree Hall')}")
        demo.bot_round()
        demo.advance(18)
    demo.modmail("tywin_lannister", f"siege Raventree Hall with army {lions}\n"
                                    f"assault Raventree Hall with army {lions}")
    demo.bot_round()
    demo.advance(12)
    demo.narrate("a new month: upkeep, the monthly digests and the [Realm] map")
    demo.ctx = demo.ctx.configured(posts={"realm_post": True})
    demo.advance(24)
    demo.narrate("a moderator records a fate for the wrong Stark, and rolls it back: the bot "
                 "posts a correction")
    demo.mistake_and_rollback()
    demo.bot_round()


def run_demo(echo: Callable[[str], None] = print, workdir: Path | None = None, *,
             web_port: int | None = None,
             linger: Callable[[DemoReport], None] | None = None) -> DemoReport:
    """Play the demo campaign and return what happened. With ``web_port`` the campaign's
    pages are served meanwhile (and, with ``linger``, until it returns)."""
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="maester-demo-") as tmp:
        demo = Demo(workdir or Path(tmp), echo, web_port=web_port)
        demo.start()
        try:
            play(demo)
            demo.report.seconds = time.perf_counter() - began
            if linger is not None:
                linger(demo.report)
        finally:
            demo.stop()
    demo.report.seconds = time.perf_counter() - began
    return demo.report


def summary(report: DemoReport) -> str:
    lines = ["", "=" * 72, "Demo finished.",
             f"- {report.replies} replies to players' orders, {report.private} private "
             f"messages, {len(report.posts)} public posts",
             f"- {report.ticks} ticks applied; {report.requests} requests to the sandbox; "
             f"{report.seconds:.1f} s",
             "- public posts:"]
    lines += [f"    {title}" for title in report.posts]
    if report.widget:
        lines.append(f"- sidebar widget \"{WIDGET}\": added, then updated "
                     f"{len(report.widget) - 1} times (the in-game date and the next tick)")
    if report.hooks:
        public = sum(1 for channel, _ in report.hooks if channel == "the public channel")
        lines.append(f"- webhooks (a local Discord-compatible receiver): {public} notices of "
                     f"public posts to the public channel, {len(report.hooks) - public} of "
                     "House Stark's private news to its own channel")
    if report.web[0]:
        lines.append(f"- web pages (served while the demo ran): the realm at {report.web[0]}, "
                     f"House Stark's war room at {report.web[1]}; `maester demo --serve` "
                     "keeps them up after the demo")
    lines.append("Run it against Reddit: see docs/setup.md. Tests: scripts/test.")
    return "\n".join(lines)


REALM_COPY = Path("maester-demo-realm.png")


def main(echo: Callable[[str], None] = print, save_to: Path | None = REALM_COPY, *,
         web_port: int | None = 8080, serve: bool = False) -> int:
    """The demo, its summary and a copy of its [Realm] map. Its web pages are served on
    ``web_port`` (None: not at all) while it plays; with ``serve``, until Ctrl-C after it."""
    def linger(report: DemoReport) -> None:
        echo(summary(report))
        echo(f"The pages stay up until Ctrl-C: the realm at {report.web[0]}, House Stark's "
             f"war room at {report.web[1]}")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            echo("stopped")

    report = run_demo(echo, web_port=web_port, linger=linger if serve else None)
    if not serve:
        echo(summary(report))
    if report.images and save_to is not None:
        data = report.images[-1][1]
        if data.startswith(b"GIF8"):  # the month as a film
            save_to = save_to.with_suffix(".gif")
        save_to.write_bytes(data)
        echo(f"A copy of the [Realm] map is saved as {save_to.resolve()}.")
    return 0

