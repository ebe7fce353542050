"""Properties of the order language: canonical text forms round-trip, and no text crashes it.

Hypothesis builds every order kind from strategies (names included, with awkward ones that
need quoting) and checks ``parse_order(str(order)) == order``; and it throws arbitrary text,
and mutations of valid orders, at :func:`parse_message` and :func:`parse_order`, which must
answer within the limits and never raise anything unexpected.
"""

from __future__ import annotations

import contextlib
import os
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.campaign.language import (
    EXCERPT_CHARS,
    MAX_NUMBER,
    MAX_ORDER_LINES,
    Assault,
    Assign,
    Attack,
    Blockade,
    Build,
    Buy,
    Cancel,
    Cede,
    CommandCall,
    Disband,
    Help,
    Move,
    Muster,
    Odds,
    Order,
    OrderSyntaxError,
    ParsedMessage,
    Retreat,
    Route,
    Sally,
    Siege,
    Stand,
    Status,
    format_name,
    is_valid_name,
    parse_message,
    parse_order,
)

# MAESTER_FUZZ_EXAMPLES raises the example count for a long soak; the suite default stays fast.
FUZZ = settings(
    max_examples=int(os.environ.get("MAESTER_FUZZ_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

MAP_NAMES = (
    "Winterfell",
    "0412",
    "0513",
    "King's Landing",
    "Greywater Watch",
    "The Twins",
    "Storm's End",
    "Riverrun",
    "Pyke",
    "Casterly Rock",
    "Ser Brynden Tully",
    "Stone Walls",
    "trebuchets",
    "Dún Laoghaire",
    "Moat Cailin",
)
# Words and symbols the order forms use around names: names made of them must be quoted.
AWKWARD_WORDS = (
    "to",
    "then",
    "with",
    "army",
    "fleet",
    "#2",
    "at",
    "in",
    "on",
    "from",
    "for",
    "a",
    "an",
    "one",
    "x",
    "cost",
    "(cost",
    "7)",
    "(7)",
    "7",
    "1,000",
    ">",
    "->",
    "→",
    ",",
    "-",
    "vs",
    "and",
    "forth",
    "out",
    "of",
    "as",
    "command",
    "İn",
    "Foo",
    "'s",
    ":",
    "status",
    "move",
    "please",
)

awkward_names = (
    st.lists(st.sampled_from(AWKWARD_WORDS + MAP_NAMES), min_size=1, max_size=5)
    .map(" ".join)
    .filter(is_valid_name)
)
any_names = (
    st.text(min_size=1, max_size=40).map(lambda s: " ".join(s.split())).filter(is_valid_name)
)
names = st.one_of(st.sampled_from(MAP_NAMES), awkward_names, any_names)
armies = st.integers(min_value=1, max_value=MAX_NUMBER)
counts = st.integers(min_value=0, max_value=MAX_NUMBER)

musters = (
    st.tuples(counts, counts, counts, st.none() | names)
    .filter(lambda t: t[0] + t[1] + t[2] > 0)
    .map(lambda t: Muster(t[0], t[1], t[2], t[3]))
)

orders: st.SearchStrategy[Order] = st.one_of(
    musters,
    st.builds(
        Move,
        armies,
        st.lists(names, min_size=1, max_size=6).map(tuple),
        st.none() | st.integers(min_value=0, max_value=MAX_NUMBER),
    ),
    st.builds(Attack, armies, armies),
    st.builds(Siege, names, armies),
    st.builds(Assault, names, armies),
    st.builds(Sally, names, armies),
    st.builds(Retreat, armies),
    st.builds(Stand, armies),
    st.builds(Cancel, armies),
    st.builds(Route, armies, names),
    st.just(Status()),
    st.builds(Odds, armies, armies),
    st.builds(Build, names, names),
    st.builds(Buy, names, armies, st.integers(min_value=1, max_value=MAX_NUMBER)),
    st.builds(Assign, names, armies),
    st.builds(Blockade, names, armies),
    st.builds(Cede, names, names),
    st.builds(Disband, armies),
    st.builds(Help, st.none() | names),
)

# Orders whose names are ordinary map names survive a whole message too (markdown clean-up,
# polite words) unchanged.
plain_names = st.sampled_from(MAP_NAMES)
plain_orders: st.SearchStrategy[Order] = st.one_of(
    st.builds(Move, armies, st.lists(plain_names, min_size=1, max_size=6).map(tuple)),
    st.builds(Siege, plain_names, armies),
    st.builds(Sally, plain_names, armies),
    st.builds(Build, plain_names, plain_names),
    st.builds(Buy, plain_names, armies, st.integers(min_value=1, max_value=99)),
    st.builds(Assign, plain_names, armies),
    st.builds(Route, armies, plain_names),
    st.builds(Blockade, plain_names, armies),
    st.builds(Cede, plain_names, plain_names),
    st.builds(Odds, armies, armies),
)

any_text = st.text(
    alphabet=st.characters(codec=None, categories=None, exclude_categories=()), max_size=400
)


def mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply insertions, deletions and replacements at positions taken modulo the length."""
    for op, position, piece in edits:
        at = position % (len(text) + 1)
        if op == 0:
            text = text[:at] + piece + text[at:]
        elif op == 1:
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    return text


def assert_within_limits(parsed: ParsedMessage, text: str) -> None:
    assert len(parsed.items) <= MAX_ORDER_LINES
    line_count = text.count("\n") + text.count("\r") + text.count("\u2028") + 20_000
    for item in parsed.items:
        assert 1 <= item.line_no <= line_count
        assert len(item.source) <= EXCERPT_CHARS
        assert isinstance(item.result, (CommandCall, OrderSyntaxError)) or item.order is not None
        if item.error is not None:
            assert len(item.error.excerpt) <= EXCERPT_CHARS
            assert item.error.problem and item.error.expected and item.error.example
    if not parsed.items:
        assert parsed.no_orders is not None
    else:
        assert parsed.no_orders is None


@FUZZ
@given(orders)
def test_every_order_kind_round_trips_through_its_text_form(order: Order) -> None:
    """Canonical text forms: parse_order(str(order)) == order for every order value."""
    assert parse_order(str(order)) == order


@FUZZ
@given(plain_orders, st.sampled_from(("", "- ", "* ", "1. ", "> ", "**", "please ", "my lord, ")))
def test_orders_with_map_names_round_trip_through_a_message(order: Order, prefix: str) -> None:
    """A canonical order survives being sent in a message, with markdown or polite words."""
    suffix = "**" if prefix == "**" else "."
    parsed = parse_message(f"Greetings.\n{prefix}{order}{suffix}\n")
    assert parsed.orders == (order,)


@FUZZ
@given(names)
def test_every_valid_name_is_written_so_that_it_reads_back(name: str) -> None:
    """A name written by format_name is read back unchanged, in a path or as a holdfast."""
    assert parse_order(f"siege {format_name(name)} with army 1") == Siege(name, 1)
    assert parse_order(f"move army 1: {format_name(name)} > 0412") == Move(1, (name, "0412"))


@FUZZ
@given(any_text)
def test_parse_message_never_raises_on_arbitrary_text(text: str) -> None:
    """No text, whatever characters it holds, makes parse_message raise; it stays in limits."""
    assert_within_limits(parse_message(text), text)


@FUZZ
@given(any_text)
def test_parse_order_raises_only_syntax_errors(text: str) -> None:
    """parse_order either returns an order or raises OrderSyntaxError, nothing else."""
    try:
        order = parse_order(text)
    except OrderSyntaxError as error:
        assert error.problem and error.expected and error.example
    else:
        assert parse_order(str(order)) == order


@FUZZ
@given(
    orders,
    st.lists(
        st.tuples(
            st.integers(0, 2),
            st.integers(0, 10_000),
            st.text(alphabet=st.characters(codec=None), min_size=1, max_size=3)
            | st.sampled_from(
                ["\u200b", "\u202e", "\n", ";", ">", "**", "`", "u/", "'; DROP TABLE", "\x00"]
            ),
        ),
        max_size=8,
    ),
)
def test_mutated_orders_never_crash_the_parser(
    order: Order, edits: list[tuple[int, int, str]]
) -> None:
    """Valid orders with characters inserted, deleted or replaced are still answered."""
    text = mutate(str(order), edits)
    assert_within_limits(parse_message(text), text)
    with contextlib.suppress(OrderSyntaxError):
        parse_order(text)


@FUZZ
@given(st.lists(st.sampled_from([*AWKWARD_WORDS, *MAP_NAMES, "\n", ";", "!odds"]), max_size=60))
def test_order_like_word_salad_never_crashes(words: list[str]) -> None:
    """Strings built from the language's own words (the likeliest to confuse it) are answered."""
    text = " ".join(words)
    assert_within_limits(parse_message(text), text)


def test_a_megabyte_of_pathological_text_is_answered_quickly() -> None:
    """Hostile sizes: each megabyte-sized message is read (and cut) in well under a second."""
    hostile = [
        "move army 1: " + "a > " * 250_000,
        "\u200b" * 1_000_000,
        "x\n" * 500_000,
        "move\n" * 200_000,
        "a;" * 500_000,
        "\ufdfa" * 1_000_000,  # expands eighteen-fold under NFKC
        "mvoe army 1\n" * 100_000,
        "siege " + "with " * 200_000 + "army 2",
        "(" * 1_000_000,
        "**" * 500_000,
        "[" * 500_000 + "](" * 250_000,
        "_" * 1_000_000,
    ]
    for text in hostile:
        started = time.perf_counter()
        parsed = parse_message(text)
        elapsed = time.perf_counter() - started
        assert parsed.text_truncated
        assert_within_limits(parsed, text)
        assert elapsed < 1.0, (text[:20], elapsed)


def test_long_pathological_lines_parse_in_linear_time() -> None:
    """Lines just under the length limit, built to make a backtracking parser crawl, are fast."""
    fillers = ["a > ", "with ", "army ", "to ", "x ", "1,", '" ', "(cost ", "at ", "  "]
    started = time.perf_counter()
    for verb in (
        "move army 1:",
        "siege",
        "sally",
        "build",
        "buy",
        "assign",
        "route army 1",
        "muster",
        "odds",
        "attack",
        "cancel",
        "help",
        "army 1",
    ):
        for filler in fillers:
            line = (verb + " " + filler * 500)[:500]
            with contextlib.suppress(OrderSyntaxError):
                parse_order(line)
    assert time.perf_counter() - started < 2.0
