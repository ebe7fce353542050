"""Hostile names never break a post: tables keep their columns, no live links, no pings.

Names are refused at init when unsafe, but a database may still hold one (an old campaign, a
hand edit); every post kind is rendered with hostile names and its markdown checked.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import tempfile
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from sqlmodel import select

from bot.db.engine import transaction
from bot.db.models import Character, Claim, Outbox
from bot.messages import handle_message
from bot.render.notes import skill_note
from bot.render.posts import battle_post
from bot.render.receipts import paused
from bot.services import snapshots
from bot.services.tick import catch_up
from bot.text import escape_md, inert_links, name_md
from rules.campaign.battle import Side, resolve_battle
from rules.campaign.catalogue import Entry, Section
from rules.campaign.modifiers import Effect, EffectKind
from rules.campaign.publication import public_assault, with_bonus
from rules.campaign.worldmap import WorldMap
from rules.dice import SeededDice
from tests.bot.services import scenario

HOSTILE = (
    "House Bolton | evil |",
    "House [Stark](https://evil.example) u/ned_stark",
    "**Lannister** _x_ > quote",
    "- list www.evil.example /r/all",
    "`code` <https://a.example> #h ~~s~~ ^sup",
)

_LIVE_LINK = re.compile(r"(?<!\\)\]\s*\(")
_URL = re.compile(r"(?i)https?://|www\.")
_PING = re.compile(r"(?i)(?<![\w/&;])/?[ur]/\w")
_PIPE = re.compile(r"(?<!\\)\|")


def markdown_problems(body: str) -> list[str]:
    """What in a post body would render as a link, a ping, or a broken table."""
    problems = [f"live link {m.group(0)!r}" for m in _LIVE_LINK.finditer(body)]
    problems += [f"bare url {m.group(0)!r}" for m in _URL.finditer(body)]
    problems += [f"ping {m.group(0)!r}" for m in _PING.finditer(body)]
    table: list[int] = []
    for line in [*body.split("\n"), ""]:
        if line.startswith("|"):
            table.append(len(_PIPE.findall(line)))
        elif table:
            if len(set(table)) != 1:
                problems.append(f"table rows have {table} columns")
            table = []
    return problems


def test_the_checker_sees_what_hostile_names_would_do() -> None:
    """Unescaped, the hostile names break a table and carry links and pings."""
    raw = f"| | {HOSTILE[0]} | x |\n|---|---|---|\n{HOSTILE[1]}"
    assert len(markdown_problems(raw)) >= 3


_names = st.one_of(st.sampled_from(HOSTILE), st.lists(
    st.sampled_from([*"ab |[]()*_~`>#-u/r:.w<>!\\^\n", "https://", "www.", "u/x", "](y)"]),
    min_size=1, max_size=20).map("".join))


@settings(max_examples=60, deadline=None)
@given(attacker=_names, defender=_names, place=_names, character=_names,
       kind=st.sampled_from(["field", "assault", "sally"]))
def test_battle_posts_keep_their_structure_with_any_names(attacker: str, defender: str,
                                                          place: str, character: str,
                                                          kind: str) -> None:
    """The battle table keeps three columns on every row; nothing becomes a link or a ping."""
    character = " ".join(character.split()) or "x"
    attacking = Side(infantry=500, cavalry=50, characters=(character,))
    defending = with_bonus(Side(infantry=400, characters=(character + "2",)), Decimal(2))
    result = resolve_battle(attacking, defending, dice=SeededDice("hostile"))
    public = public_assault(attacking, defending, result) if kind == "assault" else None
    body = inert_links(battle_post(result, attacker=attacker, defender=defender, place=place,
                                   when="today", kind=kind, public=public))
    assert markdown_problems(body) == []


@given(st.text(max_size=80))
def test_escaped_player_text_is_always_inert(text: str) -> None:
    assert markdown_problems(escape_md(text)) == []


def _rename_claims_and_characters(engine: Engine, hostile: str) -> None:
    """Every claim and character renamed after ``hostile``, straight in the database."""
    with transaction(engine) as session:
        for i, claim in enumerate(session.exec(select(Claim)).all()):
            claim.name = f"{hostile} {i}"
            session.add(claim)
        for i, character in enumerate(session.exec(select(Character)).all()):
            character.name = f"{hostile} c{i}"
            session.add(character)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_every_post_of_a_campaign_with_hostile_names_is_inert(tmp_path: Path,
                                                               hostile: str) -> None:
    """A campaign whose claims and characters have hostile names (written straight into the
    database) runs for ten days: every public post and every comment reply is inert."""
    url = f"sqlite:///{tmp_path / 'h.db'}"
    scenario.build(url)
    engine, ctx = scenario.context(url)
    _rename_claims_and_characters(engine, hostile)
    catch_up(engine, ctx, scenario.START + timedelta(days=10))
    with transaction(engine) as session:
        posts = session.exec(select(Outbox).where(Outbox.kind.in_(["post", "comment"]))).all()
    assert posts, "the scenario publishes posts"
    for post in posts:
        assert markdown_problems(post.body) == [], (post.key, post.body)


# ------------------------------------------------------------------ every message kind

MARKED = (
    "Evil | x | y |",
    "Evil [k](https://evil.example) u/evilping r/evilsub",
    "Evil **b** <b>h</b> `c` > q",
    "www.evil.example _i_ ~~s~~ 1. x",
)
_CODE = re.compile(r"(?<!\\)`[^`\n]*`")  # a backslash-escaped backtick opens no span
_HTML = re.compile(r"(?<![\\&])<[A-Za-z/!]")
# Reddit links u/ and r/ only after a character that is not a letter or digit (as _PING)
_MARKERS = re.compile(r"(?i)(?<![\w&;])/?(?:u/evilping|r/evilsub)|https?://|www\.evil")


def every_problem(body: str, hostile: str) -> list[str]:
    """:func:`markdown_problems` plus raw HTML, the hostile name unescaped, and any of its
    link, ping or HTML markers surviving in a form Reddit would act on."""
    # a code span or an indented code block shows its text as written
    body = _CODE.sub("`code`", re.sub(r"(?m)^    .*$", "    code", body))
    problems = markdown_problems(body)
    problems += [f"raw html {m.group(0)!r}" for m in _HTML.finditer(body)]
    hostile = hostile.strip()  # a line break at an end only splits the message
    # The name escaped may hold the raw name (``Evil\`` escaped is ``Evil\\``), and a name
    # typed with markdown escapes is read without them (``Evil \|`` is ``Evil |``), whose echo
    # escaped again is the hostile text itself: only the raw name outside those counts.
    typed = re.sub(r"\\([^\w\s])", r"\1", hostile)
    rest = body.replace(name_md(hostile), "").replace(escape_md(typed), "")
    if hostile in rest and name_md(hostile) != hostile:
        problems.append("the hostile name appears unescaped")
    problems += [f"marker {m.group(0)!r}" for m in _MARKERS.finditer(body)]
    return problems


def _hostile_world(ctx: Any, hostile: str) -> Any:
    """``ctx`` with every named tile renamed to a hostile name (as a hand-edited database
    could hold; the map parser refuses such names, so the tiles are copied and renamed)."""
    tiles = {}
    for tile_id, tile in ctx.world.tiles.items():
        if tile.name:
            tile = copy.copy(tile)
            object.__setattr__(tile, "name", f"{hostile} {tile.name}")
            object.__setattr__(tile, "special", False)  # Riverrun: a siege by the rules
        tiles[tile_id] = tile
    return dataclasses.replace(ctx, world=WorldMap(tiles=tiles, links=ctx.world.links,
                                                   cuts=ctx.world.cuts))


def run_hostile_campaign(folder: Path, hostile: str) -> tuple[list[Outbox], list[str]]:
    """The scenario with every claim, character and named tile renamed after ``hostile``,
    orders and commands naming them (receipts and refusals, in modmail and in a public
    comment), a battle, a siege and an assault, 12 days of ticks: every outbox row and every
    reply."""
    url = f"sqlite:///{folder / 'h.db'}"
    scenario.build(url)
    engine, ctx = scenario.context(url)
    _rename_claims_and_characters(engine, hostile)
    ctx = _hostile_world(ctx, hostile)
    riverrun = next(t.id for t in ctx.world.tiles.values() if t.name.endswith(" Riverrun"))
    replies: list[str] = []

    def send(who: str, text: str, at: datetime, *, public: bool = False) -> None:
        with transaction(engine) as session:
            replies.append(handle_message(session, ctx, author=who, text=text, now=at,
                                          ref=f"h{len(replies)}", orders=not public))

    after_battle = scenario.START + timedelta(days=6, hours=1)
    catch_up(engine, ctx, after_battle)
    for who, text in (
        ("tywin_lannister", f"siege {riverrun} with army 3"),
        ("tywin_lannister", "status"),
        ("tywin_lannister", f"assign {hostile} c1 to army 3"),
        ("tywin_lannister", "assign Nobody Here to army 3"),
        ("tywin_lannister", f"cede {riverrun} to {hostile} 3"),
        ("tywin_lannister", "odds army 3 vs army 2"),
        ("ned_stark", f"muster 10 infantry at {riverrun}"),
        ("ned_stark", f"as {hostile} 2: status"),
        ("ned_stark", f"route army 1 to {riverrun}"),
        ("ned_stark", f"build {hostile} at {riverrun}"),
        ("ned_stark", "!claim ned_stark"),
        ("mod_jane", f"!claim {hostile} 0"),
        ("ned_stark", f"help {hostile}"),
        ("ned_stark", hostile),
    ):
        send(who, text, after_battle + timedelta(minutes=len(replies)))
    send("mod_jane", f"!claim {hostile} 1", after_battle + timedelta(minutes=30), public=True)
    send("ned_stark", f"!odds {hostile}", after_battle + timedelta(minutes=31), public=True)
    catch_up(engine, ctx, scenario.START + timedelta(days=7, hours=1))
    send("tywin_lannister", f"assault {riverrun} with army 3",
         scenario.START + timedelta(days=7, hours=2))
    catch_up(engine, ctx, scenario.START + timedelta(days=12))
    with transaction(engine) as session:
        rows = list(session.exec(select(Outbox)).all())
    engine.dispose()
    return rows, replies


@pytest.mark.parametrize("hostile", MARKED)
def test_every_message_kind_with_hostile_names_is_inert(tmp_path: Path, hostile: str) -> None:
    """Claims, characters and tiles with hostile names; a campaign with orders (receipts and
    refusals), commands, status, a battle, a siege, an assault, arrivals, scatterings, upkeep,
    dice commitments and reveals and the realm post: every public post, comment reply, private
    message, moderators' note and order reply keeps its markdown structure (tables, no live
    link, no ping, no raw HTML, the name never unescaped)."""
    rows, replies = run_hostile_campaign(tmp_path, hostile)
    kinds = {(row.key.split(":")[0], row.kind) for row in rows}
    for seen in (("battle", "post"), ("siege", "post"), ("arrival", "post"),
                 ("dice", "post"), ("realm", "post"), ("encounter", "message"),
                 ("upkeep", "message"), ("ready", "message"), ("besieged", "message"),
                 ("assault", "message"), ("battle", "message"),
                 ("private", "message")):
        assert seen in kinds, (seen, sorted(kinds))
    assert any(row.body.startswith("**Assault at") for row in rows)
    for row in rows:
        assert every_problem(row.body, hostile) == [], (row.key, row.body)
    assert len(replies) == 17
    for reply in replies:
        assert every_problem(reply, hostile) == [], reply


_campaign_names = st.lists(
    st.sampled_from(["Evil", "|", "[", "]", "(", ")", "*", "_", "~", "`", ">", "#", "-", "<b>",
                     "u/evilping", "r/evilsub", "https://e.example", "www.e.example", "](x)",
                     "\\", "^", "!", ":", "1.", "&#47;", "\n", " "]),
    min_size=2, max_size=12).map(lambda parts: "Evil " + "".join(parts))


@settings(max_examples=4, deadline=None)
@given(hostile=_campaign_names)
def test_every_message_kind_with_generated_names_is_inert(hostile: str) -> None:
    """The same campaign with generated hostile names (few examples: each is a campaign)."""
    with tempfile.TemporaryDirectory() as folder:
        rows, replies = run_hostile_campaign(Path(folder), hostile)
    assert rows and len(replies) == 17
    for body in [row.body for row in rows] + replies:
        assert every_problem(body, hostile) == [], body


# ------------------------------------------------------------------ moderators' actions

@pytest.mark.parametrize("hostile", MARKED)
def test_the_orders_an_undo_takes_back_are_listed_inert(tmp_path: Path, hostile: str) -> None:
    """An undo tells a player which orders to send again, from the journal's summaries (the
    names as written): the message lists them escaped."""
    url = f"sqlite:///{tmp_path / 'u.db'}"
    scenario.build(url)
    engine, ctx = scenario.context(url)
    _rename_claims_and_characters(engine, hostile)
    applied = catch_up(engine, ctx, scenario.START + timedelta(days=1))
    later = ctx.tick_at(applied[-1].tick) + timedelta(hours=1)
    with transaction(engine) as session:
        reply = handle_message(session, ctx, author="mace_tyrell", text="muster 30 cavalry",
                               now=later, ref="late-order")
    assert "mustering" in reply
    with transaction(engine) as session:
        chosen = snapshots.plan(session, ctx, snapshots.newest(session, ctx), later)
        assert any(hostile in o for o in chosen.orders["mace_tyrell"])  # the raw summary
        snapshots.restore(session, ctx, chosen, actor="jane", now=later)
    with transaction(engine) as session:
        told = session.exec(select(Outbox).where(Outbox.target == "mace_tyrell",
                                                 Outbox.key.startswith("undo:"))).all()
    assert len(told) == 1 and "Send these orders again" in told[0].body
    assert escape_md(hostile) in told[0].body
    assert every_problem(told[0].body, hostile) == [], told[0].body


@pytest.mark.parametrize("hostile", MARKED)
def test_a_skill_note_and_the_pause_answer_are_inert(hostile: str) -> None:
    """A character's skill note names the character and the skill escaped (the log's summary
    and the modmail subject keep them as written); the answer to orders during a pause shows
    the moderators' note escaped, still readable."""
    skill = Entry(Section.SKILLS, f"{hostile} skill",
                  (Effect(EffectKind.STRENGTH, Decimal("1.1")),))
    for granted in (True, False):
        summary, subject, body = skill_note(f"{hostile} c1", skill, granted=granted)
        assert summary.startswith(f"{hostile} c1 ") and subject.startswith(f"{hostile} c1 ")
        assert body.startswith(name_md(f"{hostile} c1"))
        assert every_problem(body, hostile) == [], body
    answer = paused(None, f"a note: {hostile}")
    assert escape_md(f"a note: {hostile}") in answer
    assert every_problem(answer, hostile) == [], answer
