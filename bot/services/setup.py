"""Creating a campaign: the map, the claims and their players, the secret dice seed."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from bot.config import Settings
from bot.db.models import Campaign, Character, Claim, Player, RelationStatus
from bot.services import fairplay, journal
from bot.services.world import CampaignContext, load_context, set_relation
from bot.text import escape_md
from rules.campaign import calendar
from rules.campaign.inputs import check_roster_entry
from rules.campaign.worldmap import WorldMap, parse_map
from rules.errors import InvalidInput

DEMO_ROSTER: tuple[dict[str, Any], ...] = (
    {"name": "House Stark", "holdfast": "Winterfell", "players": ["ned_stark"],
     "gold": "900", "infantry": 3000, "cavalry": 600,
     "characters": ["Eddard Stark", "Robb Stark"]},
    {"name": "House Lannister", "holdfast": "Casterly Rock", "players": ["tywin_lannister"],
     "gold": "5000", "infantry": 3500, "cavalry": 900,
     "characters": ["Tywin Lannister", "Jaime Lannister"]},
    {"name": "House Tully", "holdfast": "Riverrun", "players": ["hoster_tully"],
     "gold": "700", "infantry": 2000, "cavalry": 400, "characters": ["Brynden Tully"]},
    {"name": "House Frey", "holdfast": "The Twins", "players": ["walder_frey"],
     "gold": "1200", "infantry": 1800, "cavalry": 300},
    {"name": "House Bolton", "holdfast": "The Dreadfort", "players": ["roose_bolton"],
     "gold": "500", "infantry": 1500, "cavalry": 250},
    {"name": "House Greyjoy", "holdfast": "Pyke", "players": ["balon_greyjoy"],
     "gold": "600", "infantry": 1200, "cavalry": 50, "ships": 40},
    {"name": "House Tyrell", "holdfast": "Highgarden", "players": ["mace_tyrell"],
     "gold": "3000", "infantry": 4000, "cavalry": 1200},
    {"name": "House Martell", "holdfast": "Sunspear", "players": ["doran_martell"],
     "gold": "1500", "infantry": 2200, "cavalry": 500, "ships": 10},
    {"name": "House Baratheon", "holdfast": "Storm's End", "players": ["stannis_baratheon"],
     "gold": "1000", "infantry": 2500, "cavalry": 700},
    {"name": "House Arryn", "holdfast": "The Eyrie", "players": ["jon_arryn"],
     "gold": "1400", "infantry": 2400, "cavalry": 800},
    {"name": "House Manderly", "holdfast": "White Harbor", "players": ["wyman_manderly"],
     "gold": "1100", "infantry": 1600, "cavalry": 200, "ships": 25},
    {"name": "House Reed", "holdfast": "Greywater Watch", "players": ["howland_reed"],
     "gold": "200", "infantry": 400, "cavalry": 0},
    {"name": "House Blackwood", "holdfast": "Raventree Hall", "players": ["tytos_blackwood"],
     "gold": "400", "infantry": 300, "cavalry": 60},
    {"name": "House Mallister", "holdfast": "Seagard", "players": ["jason_mallister"],
     "gold": "600", "infantry": 700, "cavalry": 150, "ships": 4},
)
DEMO_WARS: tuple[tuple[str, str], ...] = (
    ("House Stark", "House Lannister"),
    ("House Tully", "House Lannister"),
    ("House Greyjoy", "House Stark"),
    ("House Blackwood", "House Lannister"),
    ("House Greyjoy", "House Mallister"),
)


class RosterRows:
    """Claims written from roster entries (``init``'s roster, ``maester claims add``'s snippet),
    each checked against those written before and those already in the campaign: a known
    holdfast not claimed yet, a claim name, players and characters not already used (names
    compared without case)."""

    def __init__(self, session: Session, campaign_id: int, world: WorldMap, *,
                 now: datetime, several: bool = False) -> None:
        self.session, self.campaign_id, self.world, self.now = session, campaign_id, world, now
        self.several = several  # [claims] players_may_play_several: one user, several claims
        claims = session.exec(select(Claim).where(Claim.campaign_id == campaign_id)).all()
        self.holdfasts = {c.holdfast for c in claims if c.retired_at is None}
        self.claims = {c.name.casefold() for c in claims}
        self.players = {p.reddit_name for p in session.exec(
            select(Player).where(Player.campaign_id == campaign_id))}
        self.characters = {" ".join(c.name.casefold().split()) for c in session.exec(
            select(Character).where(Character.campaign_id == campaign_id))}

    def add(self, entry: Mapping[str, Any], field: str) -> Claim:
        """Write the claim of roster ``entry`` (``field`` names it in errors) with its players
        and characters. Raises ValueError naming the entry."""
        where = f"{field} ({escape_md(str(entry.get('name', '?')), 80)})"
        try:
            checked = check_roster_entry(entry, field)
        except InvalidInput as exc:
            raise ValueError(str(exc)) from None
        try:
            tile = self.world.tile(str(entry["holdfast"]))
        except Exception as exc:
            raise ValueError(f"{where}: {exc}") from None
        if not tile.holdfast:
            raise ValueError(f"{where}: {tile.label} is not a holdfast")
        if tile.id in self.holdfasts:
            raise ValueError(f"{where}: {tile.label} is already claimed")
        self.holdfasts.add(tile.id)
        if checked.name.casefold() in self.claims:
            raise ValueError(f"{where}: another claim already has this name (names are compared "
                             "without case)")
        self.claims.add(checked.name.casefold())
        claim = Claim(campaign_id=self.campaign_id, name=checked.name, holdfast=tile.id,
                      gold=checked.gold, infantry=checked.infantry, cavalry=checked.cavalry,
                      ships=checked.ships, active_at=self.now)
        self.session.add(claim)
        self.session.flush()
        for key in checked.players:
            if key in self.players and not self.several:
                raise ValueError(f"{where}: u/{key} already plays another claim (a player "
                                 "plays one claim unless `[claims] players_may_play_several = "
                                 "true`)")
            self.players.add(key)
            self.session.add(Player(campaign_id=self.campaign_id, claim_id=claim.id or 0,
                                    reddit_name=key))
        for character in checked.characters:
            folded = " ".join(character.casefold().split())
            if folded in self.characters:
                raise ValueError(f"{where}: another character is already called {character} "
                                 "(names are compared without case)")
            self.characters.add(folded)
            self.session.add(Character(campaign_id=self.campaign_id, claim_id=claim.id or 0,
                                       name=character))
        return claim


def create_campaign(session: Session, settings: Settings, *, map_text: str,
                    roster: Sequence[Mapping[str, Any]], now: datetime,
                    seed: str | None = None,
                    wars: Sequence[tuple[str, str]] = ()) -> CampaignContext:
    """Create the campaign and its claims; the last applied tick is the one at ``now``.

    Raises ValueError naming the roster entry for unknown holdfasts, duplicate players or
    claims, or a holdfast claimed twice.
    """
    if session.exec(select(Campaign)).first() is not None:
        raise ValueError("this database already holds a campaign")
    world = parse_map(map_text)
    rules = settings.rules_config()
    campaign = Campaign(
        name=settings.campaign.name, subreddit=settings.campaign.subreddit,
        secret=seed or settings.campaign.seed or secrets.token_hex(32),
        last_tick=calendar.tick_index(now, rules),
        last_month=calendar.month_number(now, rules),
        map_text=map_text, created_at=now,
    )
    session.add(campaign)
    session.flush()
    ctx = load_context(session, settings, campaign.id)
    roster_rows = RosterRows(session, campaign.id or 0, world, now=now,
                             several=settings.claims.players_may_play_several)
    by_name: dict[str, Claim] = {}
    for i, entry in enumerate(roster):
        claim = roster_rows.add(entry, f"roster[{i}]")
        by_name[claim.name] = claim
    for a, b in wars:
        if a not in by_name or b not in by_name:
            raise ValueError(f"wars: {escape_md(a if a not in by_name else b, 80)} is not a claim "
                             "of the roster")
        set_relation(session, ctx, by_name[a].id or 0, by_name[b].id or 0, RelationStatus.WAR)
    fairplay.start_campaign(session, ctx, tick=campaign.last_tick, at=now,
                            claims={c.id or 0: c.name for c in by_name.values()})
    journal.log_event(session, campaign.id or 0, campaign.last_tick, "campaign_created",
                      f"campaign {campaign.name} created with {len(roster)} claims", at=now,
                      actor="moderator")
    return ctx
