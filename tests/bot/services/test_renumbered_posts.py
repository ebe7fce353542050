"""Army numbers decide nothing, down to the words (issue #23): the same campaign played on a
real SQLite database twice, once with its armies numbered one way and once another, queues the
same public posts and the same private notes, word for word once the numbers are mapped back.
The rules' property (tests/rules/campaign/test_simultaneous.py) compares worlds and events;
this one goes through the tick service's reporters, the journal and the outbox."""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from bot.db.engine import make_engine, transaction
from bot.db.models import Army, Campaign, Claim, Outbox
from bot.services.tick import catch_up
from bot.services.world import load_context
from rules.campaign.paths import entry_cost
from rules.campaign.world import ArmyKind, ArmyState
from tests.bot.services import scenario

FIRST = 90_001
"""The armies are numbered from here: numbers no troop count or date in a text looks like."""
NUMBER = re.compile(r"\b900(0[1-9]|1[0-9])\b")
CLAIMS = ("House Stark", "House Lannister", "House Tully", "House Blackwood")
"""Around Riverrun: Stark, Tully and Blackwood are at war with Lannister (the demo's wars)."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new demo campaign (no armies yet), copied for every play."""
    path = Path(tmp_path_factory.mktemp("renumbered")) / "template.db"
    scenario.new_demo_campaign(f"sqlite:///{path}", "renumbered-secret")
    return path


@pytest.fixture
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = Path(tmp_path_factory.mktemp("plays"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _region(ctx: Any) -> list[str]:
    """The land tiles within two of Riverrun, by id."""
    riverrun = next(t.id for t in ctx.world if t.name == "Riverrun")
    return sorted(t for t in ctx.world.tiles_within(riverrun, 2) if ctx.world.tile(t).is_land)


def _walk(ctx: Any, start: str, length: int, rng: random.Random) -> list[str]:
    path, here = [], start
    for _ in range(length):
        ways = [n for n in sorted(ctx.world.neighbours(here)) if ctx.world.tile(n).is_land
                and entry_cost(ctx.world.tile(n), ArmyKind.LAND, ctx.rules) is not None]
        if not ways:
            break
        here = rng.choice(ways)
        path.append(here)
    return path


def _play(template: Path, where: Path, plan: list[dict[str, Any]], numbers: list[int]
          ) -> list[tuple[str, bool, str, str, str]]:
    """Play the campaign with the armies of ``plan`` numbered ``numbers`` for four ticks; the
    posts and notes it queued (kind, public, recipient claim, title, body), in order."""
    shutil.copy(template, where)
    url = f"sqlite:///{where}"
    engine = make_engine(url)
    with transaction(engine) as session:
        ctx = load_context(session, scenario.settings_for(url))
        last = session.exec(select(Campaign)).one().last_tick
        claims = {c.name: c.id or 0 for c in session.exec(select(Claim)).all()}
        for army, number in sorted(zip(plan, numbers, strict=True), key=lambda p: p[1]):
            path = army["path"]
            session.add(Army(
                id=number, campaign_id=ctx.campaign_id, claim_id=claims[army["claim"]],
                kind=ArmyKind.LAND, state=ArmyState.MARCHING if path else ArmyState.STANDING,
                tile=army["tile"], infantry=army["infantry"], cavalry=army["cavalry"],
                depart_tick=last - 1 if path else None, path_json=path,
                costs_json=[entry_cost(ctx.world.tile(t), ArmyKind.LAND, ctx.rules) or 1
                            for t in path],
                stationary_since=None if path else last - 2,
                arrival_tick=None if path else last - 2,
                meta_json={"order": army["order"]}))
        start = session.exec(select(col(Outbox.id)).order_by(col(Outbox.id).desc())).first()
    catch_up(engine, ctx, ctx.tick_at(last + 4))
    with transaction(engine) as session:
        names = {c.id: c.name for c in session.exec(select(Claim)).all()}
        rows = session.exec(select(Outbox).where(col(Outbox.id) > (start or 0))
                            .order_by(col(Outbox.id))).all()
        queued = [(r.kind, r.public, names.get(r.claim_id, r.target), r.title, r.body)
                  for r in rows]
    engine.dispose()
    return queued


def _mapped(texts: list[tuple[str, bool, str, str, str]], back: dict[int, int]
            ) -> list[tuple[str, bool, str, str, str]]:
    """``texts`` with every army number ``n`` written as ``back[n]``."""
    def swap(text: str) -> str:
        return NUMBER.sub(lambda m: str(back.get(int(m.group(0)), int(m.group(0)))), text)
    return [(k, p, who, swap(title), swap(body)) for k, p, who, title, body in texts]


@st.composite
def plans(draw: st.DrawFn) -> tuple[int, list[int]]:
    count = draw(st.integers(4, 8))
    return draw(st.integers(0, 10_000)), draw(st.permutations(range(count)))


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(plans())
def test_renumbering_the_armies_queues_the_same_posts_and_notes(
        template: Path, workdir: Path, drawn: tuple[int, list[int]]) -> None:
    """Armies of four claims around Riverrun, standing or marching (watched by Riverrun,
    Raventree Hall and the resource tiles near them, meeting each other, fighting), played for
    four ticks twice: numbered in one order, then in another. Every public post and private
    note is the same, word for word and in the same order, once the numbers are mapped back."""
    seed, order = drawn
    rng = random.Random(seed)
    engine = make_engine(f"sqlite:///{template}")
    with transaction(engine) as session:
        ctx = load_context(session, scenario.settings_for(f"sqlite:///{template}"))
    engine.dispose()
    region = _region(ctx)
    plan = []
    for i in range(len(order)):
        tile = rng.choice(region)
        plan.append({"claim": rng.choice(CLAIMS), "tile": tile,
                     "infantry": rng.choice((50, 300, 1500)), "cavalry": rng.choice((0, 40)),
                     "path": _walk(ctx, tile, rng.choice((0, 1, 2, 3)), rng),
                     "order": f"t1_plan{i}"})
    numbered = [FIRST + i for i in range(len(plan))]
    renumbered = [FIRST + j for j in order]
    back = dict(zip(renumbered, numbered, strict=True))
    first = _play(template, workdir / "first.db", plan, numbered)
    second = _play(template, workdir / "second.db", plan, renumbered)
    assert first  # (something was posted or noted: four ticks of a busy region)
    assert _mapped(second, back) == first
