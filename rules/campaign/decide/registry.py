"""The one table of order kinds and :func:`apply_order`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from rules.campaign import language as o
from rules.campaign.decide.battle import (
    decide_assault,
    decide_attack,
    decide_intercept,
    decide_retreat,
    decide_sally,
    decide_spare,
)
from rules.campaign.decide.characters import decide_assign
from rules.campaign.decide.common import (
    Receipt,
    Sender,
    refuse,
)
from rules.campaign.decide.economy import (
    decide_build,
    decide_buy,
    decide_cede,
    decide_disband,
    decide_muster,
    decide_status,
)
from rules.campaign.decide.movement import (
    decide_cancel,
    decide_move,
    decide_route,
    decide_stand,
)
from rules.campaign.decide.siege import (
    decide_blockade,
    decide_lift,
    decide_siege,
)
from rules.campaign.world import (
    World,
)
from rules.dice import Dice

# --- the table --------------------------------------------------------------------------

Decide = Callable[[World, Sender, Any, datetime], "tuple[World, Receipt]"]
"""How an order kind is decided: ``decide(world, sender, order, at) -> (world, receipt)``."""


class Part(StrEnum):
    """A part of the world an order may read (the claims are always read)."""

    ARMIES = "armies"
    BATTLES = "battles"
    SIEGES = "sieges"
    RELATIONS = "relations"
    HOLDERS = "holders"
    CHARACTERS = "characters"  # every status (an order may name the dead or a captive)
    MODIFIERS = "modifiers"  # the modifiers in force (the catalogue's, worked out beforehand)


@dataclass(frozen=True, slots=True)
class OrderKind:
    """One kind of order, end to end in the rules: its row of the order language
    (:attr:`words`, from :data:`rules.campaign.language.ORDER_LANGUAGE`: the value, how it is
    written, :attr:`form`, and how a line is read, :attr:`parse`), what decides it
    (``decide``, None for the kinds the services answer themselves: ``odds`` reads the sides
    through :func:`odds_shown`, ``away`` is a leave kept in the claim's row, ``link`` answers
    with the claim's war-room link, ``help`` with the guide) and which parts of the world it
    reads besides the claims (``reads``: the services load only those; a part not read is
    empty in the world the order sees, and the order changes nothing there;
    :attr:`Part.MODIFIERS`: the modifiers in force, which the services work out before the
    decision and hand over with the sender)."""

    words: o.OrderWords
    decide: Decide | None
    reads: frozenset[Part]

    @property
    def order(self) -> type[o.Order]:
        """The order's value class."""
        return self.words.order

    @property
    def verb(self) -> str:
        """The order's word."""
        return self.words.form.verb

    @property
    def form(self) -> o.OrderForm:
        """How the order is written (its word, synonyms, shape, example, summary)."""
        return self.words.form

    @property
    def parse(self) -> Callable[[str, str], o.Order]:
        """The line parser of the order: ``parse(rest, line)`` (the text after the order word,
        the whole line) -> the order value, or :class:`rules.campaign.language.OrderSyntaxError`."""
        return self.words.parse


def _kind(order: type[o.Order], decide: Decide | None, *reads: Part) -> OrderKind:
    """The order kind of ``order``, on its row of the language's table."""
    return OrderKind(o.ORDER_LANGUAGE[order], decide, frozenset(reads))


_A, _B, _S, _R, _H = Part.ARMIES, Part.BATTLES, Part.SIEGES, Part.RELATIONS, Part.HOLDERS
_C, _M = Part.CHARACTERS, Part.MODIFIERS
ORDER_KINDS: Mapping[type, OrderKind] = MappingProxyType({k.order: k for k in (
    # In the players' guide's order (rules.campaign.language.ORDER_LANGUAGE).
    _kind(o.Muster, decide_muster, _H),  # a claim whose seat fell cannot muster
    _kind(o.Move, decide_move, _A, _B, _S, _R, _M),
    _kind(o.Attack, decide_attack, _A, _B, _R),
    _kind(o.Intercept, decide_intercept, _A, _B, _R),
    _kind(o.Siege, decide_siege, _A, _S, _R, _M, _H),
    _kind(o.Assault, decide_assault, _A, _B, _R, _H),
    _kind(o.Sally, decide_sally, _A, _S),
    _kind(o.Lift, decide_lift, _A, _B, _S),
    _kind(o.Retreat, decide_retreat, _A, _B, _R),
    _kind(o.Stand, decide_stand, _A, _B),
    _kind(o.Spare, decide_spare, _A, _B),
    _kind(o.Cancel, decide_cancel, _A, _B),  # an assault may be called off
    _kind(o.Route, decide_route, _A, _R),
    _kind(o.Status, decide_status, _A, _S, _H),
    _kind(o.Odds, None, _A, _B, _R, _C, _M),  # allies join sides; a pending battle
    _kind(o.Build, decide_build),
    _kind(o.Buy, decide_buy, _A),
    _kind(o.Assign, decide_assign, _A, _C),
    _kind(o.Blockade, decide_blockade, _A, _S, _R, _H),
    _kind(o.Cede, decide_cede, _A, _H, _R),
    _kind(o.Disband, decide_disband, _A, _C),
    _kind(o.Away, None),  # a leave: kept by bot.services.absence, outside the rules' world
    _kind(o.Link, None),  # the war-room link: bot.services.weblinks
    _kind(o.Webhook, None),  # the claim's private webhook: bot.services.webhooks
    _kind(o.Help, None),
)})
"""Every order kind of the language, once, built on the language's table: to add an order, add
its value to ``rules.campaign.language.values`` and its parser and row (value, form, parser)
to ``ORDER_LANGUAGE`` in ``rules.campaign.language.lines``, its decision to the area's file of
this package, its row here, and its receipt's row in ``bot.services.order_apply.RECEIPTS``
(docs/architecture.md, "How to add an order")."""


def apply_order(world: World, order: object, at: datetime, dice: Dice | None = None, *,
                sender: Sender) -> tuple[World, Receipt]:
    """Decide ``order`` sent by ``sender`` at ``at``: the world after it and the
    receipt, or :class:`OrderRefused` (or another :class:`RulesError`) with nothing changed.

    No order of this table rolls a die today; ``dice`` is taken so that one that does needs
    no other signature.
    """
    del dice
    kind = ORDER_KINDS.get(type(order))
    decide = None if kind is None else kind.decide
    if decide is None:
        raise refuse(f"`{type(order).__name__.lower()}` orders are not decided by the rules "
                      "module yet", "an order of rules.campaign.decide.ORDER_KINDS", "status")
    return decide(world, sender, order, at)
