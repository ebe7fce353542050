"""The ASOIAF Tabletop Miniatures command notation: ``!attack``, ``!charge``, ``!panic`` and
``!morale`` text read into requests (syntax only; the rules check the values).

Forgiving about spelling and order (``8 dice 4+ vs 5+ morale 6 reroll misses``). Each parser
returns a frozen request; ``format_attack`` writes an attack back in the canonical spelling, and
``parse_attack(format_attack(r)) == r``. Text that cannot be read raises
:class:`rules.errors.NotationError` with the syntax and an example; the player's own words in
the message are kept apart (``quoted``) so whoever shows it can make them inert.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from rules.errors import NotationError, RulesError
from rules.miniatures.attack import AttackProfile, AttackSpec
from rules.miniatures.charge import ChargeReroll, ChargeSetup
from rules.miniatures.errors import IllegalAction
from rules.miniatures.morale import PanicWounds, morale_pass_chance
from rules.miniatures.rolls import NO_REROLL, PoolRerolls, Reroll, RerollFaces, Side
from rules.miniatures.terrain import Terrain, parse_terrain

ATTACK_EXAMPLE = "!attack 8 dice 4+ vs 5+ morale 6"


ATTACK_SYNTAX = (
    "`!attack N dice HIT+ vs DEF+ [morale M] [reroll misses|ones|hits|saves|blocks] "
    "[charge] [hit +1] [def -1] [morale -1] [left W] [panic 1+d3] [roll]`"
)


CHARGE_EXAMPLE = '!charge 8" speed 5'


CHARGE_SYNTAX = (
    '`!charge DISTANCE" speed S [reroll] [morale M] [terrain such as bog, forest] [roll]`'
)


PANIC_EXAMPLE = "!panic 6+"


PANIC_SYNTAX = "`!panic MORALE+ [modifier such as -1] [0 wounds] [1+d3] [roll]`"


MORALE_EXAMPLE = "!morale 6+ -1"


MORALE_SYNTAX = "`!morale MORALE+ [modifier such as -1] [roll]`"


@dataclass(frozen=True, slots=True)
class Token:
    """One piece of command text: ``kind`` is sep, panic, profile, stat, signed, dice, num or
    word; ``text`` is what the player typed (for error messages)."""

    kind: str
    text: str
    number: Decimal | None = None
    inches: bool = False
    profile: tuple[int, ...] = ()

    @property
    def whole(self) -> int:
        """The token's number as an int (the tokenizer only makes whole ones where needed)."""
        assert self.number is not None
        return int(self.number)


_TOKEN = re.compile(
    r"""
    (?P<sep>[,;])
  | (?P<panic>1\+d3|d3)(?![a-z0-9])
  | (?P<profile>\d{1,3}(?:/\d{1,3})+)
  | (?P<stat>\d{1,3})\+
  | (?P<signed>[+-]\d{1,3})(?![\d.])
  | (?P<dice>\d{1,3})d6?(?![a-z0-9])
  | (?P<num>\d{1,6}(?:\.\d{1,3})?)\s*(?P<inch>"|''|in\b|inch(?:es)?\b)?
  | (?P<word>[a-z][a-z'_]*)
  | (?P<other>\S)
    """,
    re.VERBOSE,
)


_IGNORED_PUNCTUATION = frozenset(":.()!?\"'*`-/&=")


_FILLER = frozenset({
    "on", "to", "of", "the", "a", "an", "and", "with", "at", "is", "are", "for", "by", "my",
    "their", "please", "me", "unit", "units", "then", "into", "in", "from", "roll's",
})


def _normalise(text: str) -> str:
    text = text.lower().replace("’", "'").replace("“", '"').replace("”", '"')
    text = re.sub(r"\bre[- ]?rolls?\b|\brr\b|\brerolling\b|\brerolled\b", " reroll ", text)
    text = re.sub(r"\bto[- ]?hit\b", " hit ", text)
    text = re.sub(r"\bdefen[cs]e\b", "defense", text)
    text = re.sub(r"(?<![\d+])(?:1\s*\+\s*d3|d3\s*\+\s*1)(?![\d])", " 1+d3 ", text)
    text = re.sub(r"\b1'?s\b", " ones ", text)
    text = re.sub(r"\bup\s*to\b", " upto ", text)
    return text


def tokenize(text: str, syntax: str = "", example: str = "") -> list[Token]:
    """Split command text into tokens. Raises NotationError (with ``syntax`` and ``example``)
    for a character that means nothing here."""
    tokens: list[Token] = []
    for m in _TOKEN.finditer(_normalise(text)):
        kind = m.lastgroup or "other"
        raw = m.group(0).strip()
        if kind == "inch":  # only ever inside num
            kind = "num"
        if kind == "other":
            if raw in _IGNORED_PUNCTUATION:
                continue
            raise NotationError("I can't read \u201c{}\u201d here.", raw, syntax=syntax,
                                example=example)
        if kind == "word":
            word = raw.strip("'")
            if word in _FILLER:
                continue
            tokens.append(Token("word", word))
        elif kind == "profile":
            tokens.append(Token("profile", raw, profile=tuple(int(x) for x in raw.split("/"))))
        elif kind == "num":
            tokens.append(Token("num", raw, Decimal(m.group("num")), inches=bool(m.group("inch"))))
        elif kind in ("stat", "dice"):
            tokens.append(Token(kind, raw, Decimal(m.group(kind))))
        elif kind == "signed":
            tokens.append(Token("signed", raw, Decimal(raw)))
        else:
            tokens.append(Token(kind, raw))
    return tokens


def _is_whole(tok: Token) -> bool:
    return tok.number is not None and tok.number == tok.number.to_integral_value()


def signed(n: int) -> str:
    """A modifier with its sign: +1, 0, -2."""
    return f"+{n}" if n > 0 else str(n)


def rules_failure(exc: RulesError, syntax: str, example: str) -> NotationError:
    """A rules error met while reading (or resolving) a command, as a NotationError (one that
    already is one is returned as it is)."""
    if isinstance(exc, NotationError):
        return exc
    if isinstance(exc, IllegalAction):
        exc = RulesError(f"That {exc.action} is not allowed: {exc.reason}.")
    return NotationError.of(exc, syntax, example)


@dataclass(frozen=True, slots=True)
class AttackRequest:
    """One ``!attack`` command: the attack, and whether to roll it or show the odds."""

    spec: AttackSpec
    roll: bool = False


# Re-roll phrases: words after "reroll" -> (pool, side using the effect, faces).
_REROLL_PHRASES: dict[tuple[str, ...], tuple[str, Side, RerollFaces]] = {}


def _phrases(pool: str, side: Side, faces: RerollFaces, *spellings: str) -> None:
    for spelling in spellings:
        _REROLL_PHRASES[tuple(spelling.split())] = (pool, side, faces)


_phrases("attack", Side.ATTACKER, RerollFaces.FAILURES, "misses", "miss", "missed",
         "failed hits", "failed hit", "missed hits", "failures", "fails", "failed",
         "attack dice", "attack", "attacks", "hit dice", "failed attack dice")


_phrases("attack", Side.ATTACKER, RerollFaces.ONES, "ones", "attack ones", "hit ones",
         "missed ones")


_phrases("attack", Side.DEFENDER, RerollFaces.SUCCESSES, "hits", "hit", "successful hits",
         "enemy hits")


_phrases("defense", Side.DEFENDER, RerollFaces.FAILURES, "saves", "save", "failed saves",
         "failed save", "defense", "def", "defense dice", "failed defense",
         "failed defense dice", "armor", "armour")


_phrases("defense", Side.DEFENDER, RerollFaces.ONES, "save ones", "saves ones", "defense ones",
         "def ones")


_phrases("defense", Side.ATTACKER, RerollFaces.SUCCESSES, "successful saves", "blocks",
         "blocked", "block", "successful defense", "enemy saves", "made saves",
         "defender saves")


_REROLL_SKIP = frozenset({"all", "any", "every", "each", "dice"})


_REROLL_CANONICAL = {
    ("attack", Side.ATTACKER, RerollFaces.FAILURES): "misses",
    ("attack", Side.ATTACKER, RerollFaces.ONES): "ones",
    ("attack", Side.DEFENDER, RerollFaces.SUCCESSES): "hits",
    ("defense", Side.DEFENDER, RerollFaces.FAILURES): "saves",
    ("defense", Side.DEFENDER, RerollFaces.ONES): "save ones",
    ("defense", Side.ATTACKER, RerollFaces.SUCCESSES): "blocks",
}


_REROLL_EXPECTED = (
    "`reroll misses` (attacker), `reroll ones`, `reroll hits` (defender forces it), "
    "`reroll saves` (defender re-rolls failed saves), `reroll save ones`, "
    "`reroll blocks` (attacker forces successful saves), optionally `reroll up to 2 misses`"
)


_DICE_WORDS = frozenset({"dice", "die", "d", "attacks", "attack", "ad", "d6"})


_HIT_WORDS = frozenset({"hit", "hits", "hitting", "tohit", "th"})


_DEF_WORDS = frozenset({"vs", "v", "versus", "against", "def", "defense", "defending", "save",
                        "saves", "sv", "armor", "armour"})


_MORALE_WORDS = frozenset({"morale", "moral", "mor", "mo", "ld"})


_LEFT_PREFIX = frozenset({"target", "targets"})


_LEFT_POSTFIX = frozenset({"left", "remaining", "remain"})


_RANK_WORDS = frozenset({"ranks", "rank"})


_ROLL_WORDS = frozenset({"roll", "rolled", "rolling", "go", "live", "throw"})


_CHARGE_WORDS = frozenset({"charge", "charging", "charged", "charges"})


_SOFT_KEYWORDS = frozenset({"vs", "v", "versus", "against"})


_Slot = str  # "dice", "hit", "def", "morale", "left", "ranks"


# Named effects a player can type: which roll they modify and by how much.
_EFFECTS: dict[str, tuple[str, int]] = {
    "sundering": ("def", -1),  # defenders suffer -1 to defense dice rolls
    "fortified": ("def", 1),  # a charge through fortified terrain: +1 to defense rolls
    "horrific": ("morale", -1),  # within short range of horrific terrain
    "inspiring": ("morale", 1),  # within short range of inspiring terrain
}


_NAMED_EFFECTS = {"sundering": "sundering", "sunder": "sundering", "fortified": "fortified",
                  "horrific": "horrific", "inspiring": "inspiring"}


def _slot_of(word: str) -> _Slot | None:
    if word in _DICE_WORDS:
        return "dice"
    if word in _HIT_WORDS:
        return "hit"
    if word in _DEF_WORDS:
        return "def"
    if word in _MORALE_WORDS:
        return "morale"
    if word in _LEFT_PREFIX or word in _LEFT_POSTFIX:
        return "left"
    if word in _RANK_WORDS:
        return "ranks"
    return None


def _postfix_first(word: str) -> bool:
    return word in _DICE_WORDS or word in _LEFT_POSTFIX or word in _RANK_WORDS


def _subslot(slot: _Slot, tok: Token) -> str | None:
    """Where ``tok`` goes when attached to ``slot`` (None: it cannot)."""
    if slot in ("dice", "left", "ranks"):
        return slot if tok.kind in ("num", "dice") and _is_whole(tok) else None
    if tok.kind == "signed":
        return f"{slot}_mod"
    if tok.kind in ("stat", "num") and _is_whole(tok):
        return slot
    return None


class _AttackParser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text, ATTACK_SYNTAX, ATTACK_EXAMPLE)
        self.values: dict[str, int] = {}
        self.profile: tuple[int, ...] | None = None
        self.rerolls: dict[tuple[str, Side], Reroll] = {}
        self.flags: set[str] = set()
        self.effects: set[str] = set()
        self.rule = PanicWounds.D3
        self.active = Side.ATTACKER
        self.last_slot: _Slot | None = None

    def fail(self, template: str, *quoted: str) -> NotationError:
        return NotationError(template, *quoted, syntax=ATTACK_SYNTAX, example=ATTACK_EXAMPLE)

    def peek(self, i: int) -> Token | None:
        return self.tokens[i] if 0 <= i < len(self.tokens) else None

    def put(self, sub: str, tok: Token) -> None:
        if sub in self.values:
            names = {"dice": "numbers of dice", "hit": "to-hit values", "def": "defense values",
                     "morale": "morale values", "left": "remaining-wound counts",
                     "ranks": "rank counts"}
            name = names.get(sub, sub.replace("_mod", " modifiers"))
            raise self.fail(f"I found two {name} (the second is {{}}).", tok.text)
        self.values[sub] = tok.whole
        self.last_slot = sub.removesuffix("_mod")

    def bare(self, tok: Token) -> None:
        if tok.kind == "dice" or (tok.kind == "num" and "dice" not in self.values):
            if not _is_whole(tok):
                raise self.fail("{} is not a whole number of dice.", tok.text)
            self.put("dice", tok)
        elif tok.kind == "stat":
            for slot in ("hit", "def", "morale"):
                if slot not in self.values:
                    self.put(slot, tok)
                    return
            raise self.fail("I don't know what {} is for: to-hit, defense and morale are all "
                            "set.", tok.text)
        elif tok.kind == "signed" and self.last_slot in ("hit", "def", "morale"):
            self.put(f"{self.last_slot}_mod", tok)
        elif tok.kind == "signed":
            raise self.fail("Which roll does {0} modify? Write `hit {0}`, `def {0}` or "
                            "`morale {0}`.", tok.text)
        elif tok.kind == "num":
            # The dice are counted already: a bare number is most likely a to-hit, defense or
            # morale value written without its `+` (`8 dice 4 vs 5`).
            raise self.fail("I don't know what {0} means here: the number of dice is given "
                            "already; a to-hit, defense or morale value takes a `+` ({0}+) "
                            "or its name (`hit {0}`, `def {0}`, `morale {0}`).", tok.text)
        else:
            raise self.fail("I don't know what {} means here.", tok.text)

    def parse(self) -> AttackRequest:
        i = 0
        toks = self.tokens
        while i < len(toks):
            tok = toks[i]
            if tok.kind == "sep":
                self.last_slot = None
                i += 1
            elif tok.kind in ("num", "stat", "signed", "dice"):
                i = self.value(i)
            elif tok.kind == "profile":
                if self.profile is not None:
                    raise self.fail("I found two dice profiles.")
                self.profile = tok.profile
                i += 1
            elif tok.kind == "panic":
                self.rule = PanicWounds(tok.text)
                i += 1
            else:
                i = self.word(i)
        return self.build()

    def value(self, i: int) -> int:
        tok = self.tokens[i]
        nxt = self.peek(i + 1)
        if tok.kind == "signed" and self.last_slot in ("hit", "def", "morale"):
            # "hit 4+ +1 vs 5+": a modifier right after a value belongs to it, unless the next
            # keyword has no value of its own ("vs 5+ +1 hit").
            slot = _slot_of(nxt.text) if nxt is not None and nxt.kind == "word" else None
            after = self.peek(i + 2)
            if slot is None or (after is not None and _subslot(slot, after) == slot):
                self.put(f"{self.last_slot}_mod", tok)
                return i + 1
        if nxt is not None and nxt.kind == "word":
            slot = _slot_of(nxt.text)
            sub = _subslot(slot, tok) if slot else None
            if slot and sub:
                after = self.peek(i + 2)
                competing = after is not None and _subslot(slot, after) == sub
                if _postfix_first(nxt.text) or not competing:
                    self.put(sub, tok)
                    return i + 2
        self.bare(tok)
        return i + 1

    def word(self, i: int) -> int:
        word = self.tokens[i].text
        nxt = self.peek(i + 1)
        if word == "reroll":
            return self.reroll(i + 1)
        if word == "panic":
            if nxt is not None and nxt.kind == "panic":
                self.rule = PanicWounds(nxt.text)
                return i + 2
            if nxt is not None and _subslot("morale", nxt):
                self.put(_subslot("morale", nxt) or "morale", nxt)
                return i + 2
            self.flags.add("panic")
            return i + 1
        if word in ("no", "without", "nopanic"):
            if word == "nopanic" or (nxt is not None and nxt.text in ("panic", "morale")):
                self.flags.add("no panic")
                return i + (1 if word == "nopanic" else 2)
            raise self.fail("No what? (after {})", word)
        if word in ("defender", "attacker") and nxt is not None and nxt.text in (
            "first", "active", "turn"
        ):
            self.active = Side(word)
            return i + 2
        if word in _ROLL_WORDS:
            self.flags.add("roll")
            return i + 1
        if word in _CHARGE_WORDS:
            self.flags.add("charge")
            return i + 1
        if word == "disorderly":
            self.flags.add("disorderly")
            return i + 1
        if word in _NAMED_EFFECTS:
            # Effects with the same name do not add up, so naming one twice changes nothing.
            self.effects.add(_NAMED_EFFECTS[word])
            return i + 1
        if word in ("updated", "new"):
            self.rule = PanicWounds.ONE_PLUS_D3
            return i + 1
        slot = _slot_of(word)
        if slot is not None:
            if nxt is not None:
                sub = _subslot(slot, nxt)
                if sub is not None:
                    self.put(sub, nxt)
                    return i + 2
            if word in _SOFT_KEYWORDS or (slot == "dice" and "dice" in self.values):
                return i + 1
            raise self.fail("`{}` needs a value after it, like "
                            + {"dice": "`8 dice`", "hit": "`hit 4+`", "def": "`vs 5+`",
                               "morale": "`morale 6`", "left": "`12 left`",
                               "ranks": "`2 ranks`"}[slot] + ".", word)
        raise self.fail("I don't know the word \u201c{}\u201d.", word)

    def reroll(self, i: int) -> int:
        """Read a re-roll phrase after the word "reroll" at ``i - 1``; returns the next index."""
        limit: int | None = None
        tok = self.peek(i)
        if tok is not None and tok.kind == "word" and tok.text == "upto":
            i += 1
            tok = self.peek(i)
            if tok is None or tok.kind not in ("num", "dice") or not _is_whole(tok):
                raise self.fail("`reroll up to` needs a number of dice, as in "
                                "`reroll up to 2 misses`.")
        if tok is not None and tok.kind in ("num", "dice") and _is_whole(tok):
            limit = tok.whole
            if limit < 1:
                raise self.fail("A re-roll needs to take at least 1 die.")
            i += 1
        skipped = False
        while (tok := self.peek(i)) is not None and tok.kind == "word" and (
            tok.text in _REROLL_SKIP
        ):
            skipped = True
            i += 1
        words: list[str] = []
        while (tok := self.peek(i + len(words))) is not None and tok.kind == "word" and (
            len(words) < 3
        ):
            words.append(tok.text)
        for n in (3, 2, 1):
            key = tuple(words[:n])
            if len(key) == n and key in _REROLL_PHRASES:
                self.add_reroll(*_REROLL_PHRASES[key], limit)
                return i + n
        if skipped:  # "reroll any", "reroll all dice": the charge bonus's wording
            self.add_reroll("attack", Side.ATTACKER, RerollFaces.FAILURES, limit)
            return i
        what = " ".join(words) or "nothing"
        raise NotationError("Re-roll what? I read \u201c{}\u201d.", what,
                            syntax=_REROLL_EXPECTED,
                            example="!attack 8 dice 4+ vs 5+ reroll misses")

    def add_reroll(self, pool: str, side: Side, faces: RerollFaces, limit: int | None) -> None:
        if (pool, side) in self.rerolls:
            raise self.fail(f"Two re-rolls for the {side}'s use on {pool} dice: a player may "
                            "re-roll a die only once.")
        self.rerolls[(pool, side)] = Reroll(faces, limit)

    def build(self) -> AttackRequest:
        v = self.values
        if self.profile is not None:
            if "dice" in v:
                raise self.fail("Give either a number of dice or a dice profile, not both.")
            ranks = v.get("ranks", len(self.profile))
            try:
                profile = AttackProfile("attack", v.get("hit", 4), self.profile)
                v["dice"] = profile.dice_for(ranks)
            except RulesError as exc:
                raise rules_failure(exc, ATTACK_SYNTAX, "!attack 7/5/3 ranks 2 hit 4+ vs 5+"
                                    ) from None
        elif "ranks" in v:
            raise self.fail("Ranks only count with a dice profile, as in `7/5/3 ranks 2`.")
        if "dice" not in v:
            raise self.fail("How many attack dice? Write it like `8 dice`.")
        if "hit" not in v:
            raise self.fail("What does a die need to hit? Write it like `4+` or `hit 4+`.")
        if "def" not in v:
            raise self.fail("What is the defender's defense? Write it like `vs 5+`.")
        if "no panic" in self.flags and "morale" in v:
            raise self.fail("You gave a morale value and `no panic`; leave one out.")
        effect = {"def": 0, "morale": 0}
        for name in self.effects:
            roll, delta = _EFFECTS[name]
            effect[roll] += delta
        morale_mod = v.get("morale_mod", 0) + effect["morale"]
        if "panic" in self.flags and "morale" not in v:
            raise self.fail("A panic test needs the defender's morale, as in `morale 6`.")
        attack = PoolRerolls(self.rerolls.get(("attack", Side.ATTACKER), NO_REROLL),
                             self.rerolls.get(("attack", Side.DEFENDER), NO_REROLL))
        defense = PoolRerolls(self.rerolls.get(("defense", Side.ATTACKER), NO_REROLL),
                              self.rerolls.get(("defense", Side.DEFENDER), NO_REROLL))
        try:
            spec = AttackSpec(
                dice=v["dice"], to_hit=v["hit"], defense=v["def"], morale=v.get("morale"),
                hit_modifier=v.get("hit_mod", 0),
                defense_modifier=v.get("def_mod", 0) + effect["def"],
                morale_modifier=morale_mod, attack_rerolls=attack, defense_rerolls=defense,
                active=self.active, panic_wounds=self.rule, target_wounds=v.get("left"),
            )
            if "charge" in self.flags and "disorderly" not in self.flags:
                spec = spec.with_charge_bonus()
        except RulesError as exc:
            raise rules_failure(exc, ATTACK_SYNTAX, ATTACK_EXAMPLE) from None
        return AttackRequest(spec, "roll" in self.flags)


def parse_attack(text: str) -> AttackRequest:
    """Read ``!attack`` text (forgiving about spelling and order). Raises NotationError."""
    return _AttackParser(text).parse()


def format_attack(request: AttackRequest) -> str:
    """The canonical text of ``request``; :func:`parse_attack` reads it back unchanged."""
    s = request.spec
    parts = [f"{s.dice} dice", f"hit {s.to_hit}+", f"vs {s.defense}+"]
    if s.morale is not None:
        parts.append(f"morale {s.morale}+")
    for name, mod in (("hit", s.hit_modifier), ("def", s.defense_modifier),
                      ("morale", s.morale_modifier)):
        if mod:
            parts.append(f"{name} {signed(mod)}")
    for pool, rerolls in (("attack", s.attack_rerolls), ("defense", s.defense_rerolls)):
        for side in (Side.ATTACKER, Side.DEFENDER):
            r = rerolls.of(side)
            key = (pool, side, r.faces)
            if not r.is_active:
                continue
            if key not in _REROLL_CANONICAL:
                raise ValueError(f"{side} cannot {r.faces} on {pool} dice in command text")
            limit = f"up to {r.limit} " if r.limit is not None else ""
            parts.append(f"reroll {limit}{_REROLL_CANONICAL[key]}")
    if s.target_wounds is not None:
        parts.append(f"{s.target_wounds} left")
    if s.active is Side.DEFENDER:
        parts.append("defender first")
    if s.panic_wounds is not PanicWounds.D3:
        parts.append(f"panic {s.panic_wounds}")
    if request.roll:
        parts.append("roll")
    return " ".join(parts)


Fail = Callable[..., NotationError]


def _words_and_values(text: str, example: str, syntax: str) -> tuple[list[Token], Fail]:
    def fail(template: str, *quoted: str) -> NotationError:
        return NotationError(template, *quoted, syntax=syntax, example=example)

    return tokenize(text, syntax, example), fail


def _read_morale(tokens: Sequence[Token], fail: Fail
                 ) -> tuple[int | None, int, set[str], PanicWounds, int | None, list[Token]]:
    """Morale value, modifier, flags, panic rule and wounds suffered from ``tokens``; the
    tokens nobody claimed are returned for the caller."""
    morale: int | None = None
    modifier = 0
    flags: set[str] = set()
    rule = PanicWounds.D3
    wounds: int | None = None
    rest: list[Token] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.kind == "panic":
            rule = PanicWounds(tok.text)
        elif tok.kind == "word" and tok.text in _MORALE_WORDS | {"panic"}:
            if nxt is not None and nxt.kind in ("stat", "num") and _is_whole(nxt):
                if morale is not None:
                    raise fail("I found two morale values.")
                morale = nxt.whole
                i += 1
            elif nxt is not None and nxt.kind == "signed":
                modifier += nxt.whole
                i += 1
            elif nxt is not None and nxt.kind == "panic":
                rule = PanicWounds(nxt.text)
                i += 1
        elif tok.kind == "stat":
            if morale is not None:
                raise fail("I found two morale values ({} is the second).", tok.text)
            morale = tok.whole
        elif tok.kind == "signed":
            modifier += tok.whole
        elif tok.kind == "word" and tok.text in ("horrific", "inspiring"):
            if tok.text not in flags:  # same-named effects do not add up
                flags.add(tok.text)
                modifier += 1 if tok.text == "inspiring" else -1
        elif tok.kind == "word" and tok.text in ("updated", "new"):
            rule = PanicWounds.ONE_PLUS_D3
        elif tok.kind == "word" and tok.text in _ROLL_WORDS:
            flags.add("roll")
        elif tok.kind in ("num", "dice") and nxt is not None and nxt.kind == "word" and (
            nxt.text in ("wounds", "wound")
        ) and _is_whole(tok):
            wounds = tok.whole
            i += 1
        elif tok.kind == "word" and tok.text in ("no", "zero") and nxt is not None and (
            nxt.text in ("wounds", "wound")
        ):
            wounds = 0
            i += 1
        elif tok.kind == "word" and tok.text in ("wounds", "wound") and nxt is not None and (
            nxt.kind in ("num", "dice") and _is_whole(nxt)
        ):
            wounds = nxt.whole
            i += 1
        else:
            rest.append(tok)
        i += 1
    return morale, modifier, flags, rule, wounds, rest


def _unknown(rest: Sequence[Token], fail: Fail) -> None:
    leftovers = [t for t in rest if t.kind != "sep"]
    if leftovers:
        raise fail("I don't know what \u201c{}\u201d means here.", leftovers[0].text)


@dataclass(frozen=True, slots=True)
class MoraleRequest:
    """One ``!panic`` or ``!morale`` command: the test, and whether to roll it."""

    morale: int
    modifier: int = 0
    roll: bool = False
    rule: PanicWounds = PanicWounds.D3
    wounds_suffered: int | None = None  # !panic only: 0 is an automatic pass


def parse_panic(text: str) -> MoraleRequest:
    """Read ``!panic`` text. Raises NotationError."""
    return _morale_args(text, PANIC_EXAMPLE, PANIC_SYNTAX, panic=True)


def parse_morale(text: str) -> MoraleRequest:
    """Read ``!morale`` text. Raises NotationError."""
    return _morale_args(text, MORALE_EXAMPLE, MORALE_SYNTAX, panic=False)


def _morale_args(text: str, example: str, syntax: str, *, panic: bool) -> MoraleRequest:
    tokens, fail = _words_and_values(text, example, syntax)
    # A bare number is the morale value here: there is nothing else it could be.
    tokens = [Token("stat", t.text, t.number) if t.kind == "num" and _is_whole(t) and (
        not any(u.kind == "stat" for u in tokens)) and not _followed_by_wounds(tokens, k)
        else t for k, t in enumerate(tokens)]
    morale, modifier, flags, rule, wounds, rest = _read_morale(tokens, fail)
    _unknown(rest, fail)
    if morale is None:
        raise fail("What is the unit's morale? Write it like `6+`.")
    if not panic and wounds is not None:
        raise fail("A morale test does not depend on wounds; use `!panic` for a panic test.")
    try:
        morale_pass_chance(morale, modifier)
    except RulesError as exc:
        raise rules_failure(exc, syntax, example) from None
    return MoraleRequest(morale, modifier, "roll" in flags, rule, wounds)


def _followed_by_wounds(tokens: Sequence[Token], k: int) -> bool:
    return k + 1 < len(tokens) and tokens[k + 1].text in ("wounds", "wound")


_SPEED_WORDS = frozenset({"speed", "spd", "sp", "move", "mv", "s"})


_DISTANCE_WORDS = frozenset({"distance", "dist", "range", "away", "inches", "inch", "in"})


_TERRAIN_WORDS = frozenset({
    "bog", "corpse", "corpses", "pile", "forest", "forrest", "woods", "hedge", "wall", "walls",
    "ruin", "palisade", "stakes", "stackes", "weirwood", "tree",
})


@dataclass(frozen=True, slots=True)
class ChargeRequest:
    """One ``!charge`` command."""

    setup: ChargeSetup
    roll: bool = False


def _terrain(tokens: list[Token], fail: Fail
             ) -> tuple[list[Terrain], list[Token]]:
    pieces: list[Terrain] = []
    rest: list[Token] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == "word" and tok.text in _TERRAIN_WORDS:
            name = tok.text
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if nxt is not None and nxt.kind == "word" and f"{name} {nxt.text}" in (
                "corpse pile", "weirwood tree", "wall ruin"
            ):
                name = f"{name} {nxt.text}"
                i += 1
            if name in ("pile", "tree"):
                raise fail(f"Which {name}? Write `corpse pile` or `weirwood tree`.")
            try:
                pieces.append(parse_terrain(name))
            except RulesError as exc:
                raise rules_failure(exc, CHARGE_SYNTAX, CHARGE_EXAMPLE) from None
        else:
            rest.append(tok)
        i += 1
    return pieces, rest


def parse_charge(text: str) -> ChargeRequest:
    """Read ``!charge`` text. Raises NotationError."""
    tokens, fail = _words_and_values(text, CHARGE_EXAMPLE, CHARGE_SYNTAX)
    distance: Decimal | None = None
    speed: int | None = None
    reroll = ChargeReroll.NONE
    rest: list[Token] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.kind == "word" and tok.text in _SPEED_WORDS and nxt is not None and (
            nxt.kind in ("num", "stat") and _is_whole(nxt)
        ):
            if speed is not None:
                raise fail("I found two speeds.")
            speed = nxt.whole
            i += 2
            continue
        if tok.kind == "num" and nxt is not None and nxt.kind == "word" and (
            nxt.text in _SPEED_WORDS
        ) and _is_whole(tok) and speed is None and distance is not None:
            speed = tok.whole
            i += 2
            continue
        if tok.kind == "word" and tok.text in _DISTANCE_WORDS and nxt is not None and (
            nxt.kind == "num"
        ):
            if distance is not None:
                raise fail("I found two distances.")
            distance = nxt.number
            i += 2
            continue
        if tok.kind == "num" and distance is None:
            distance = tok.number
            i += 1
            if i < len(tokens) and tokens[i].kind == "word" and tokens[i].text in (
                _DISTANCE_WORDS
            ):
                i += 1
            continue
        if tok.kind == "word" and tok.text == "reroll":
            if nxt is not None and nxt.kind == "word" and nxt.text in ("ones", "one"):
                reroll = ChargeReroll.IF_SHORT_OR_ONE
                i += 2
                continue
            reroll = ChargeReroll.IF_SHORT
            i += 1
            continue
        rest.append(tok)
        i += 1
    pieces, rest = _terrain(rest, fail)
    morale, modifier, flags, rule, wounds, rest = _read_morale(rest, fail)
    _unknown(rest, fail)
    if wounds is not None:
        raise fail("A charge does not take a number of wounds.")
    if distance is None:
        raise fail("How far is the target? Write it like `8\"` or `distance 8`.")
    if speed is None:
        raise fail("What is the charging unit's speed? Write it like `speed 5`.")
    try:
        setup = ChargeSetup(distance, speed, tuple(pieces), morale, modifier, reroll, rule)
    except RulesError as exc:
        raise rules_failure(exc, CHARGE_SYNTAX, CHARGE_EXAMPLE) from None
    return ChargeRequest(setup, "roll" in flags)
