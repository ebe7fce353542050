"""The order language (with the orders for build/buy/assign and fleets): every documented
form, the forgiving variants, and every kind of syntax error with what it expects and its
example."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from rules.campaign.language import (
    EXCERPT_CHARS,
    MAX_LINE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_ORDER_LINES,
    ORDER_FORMS,
    ORDER_TYPES,
    VERBS,
    Assault,
    Assign,
    Attack,
    Blockade,
    Build,
    Buy,
    Cancel,
    CommandCall,
    Disband,
    Help,
    Intercept,
    Lift,
    Move,
    Muster,
    Odds,
    Order,
    OrderSyntaxError,
    Problem,
    Retreat,
    Route,
    Sally,
    Siege,
    Spare,
    Stand,
    Status,
    acting_for,
    canonical_verb,
    format_name,
    format_path,
    is_valid_name,
    parse_message,
    parse_order,
    parse_path,
)
from rules.errors import InvalidInput, RulesError


def syntax_error(line: str) -> OrderSyntaxError:
    with pytest.raises(OrderSyntaxError) as caught:
        parse_order(line)
    return caught.value


# --------------------------------------------------------------------------------------------
# The forms the issues list, exactly as written there


ISSUE_FORMS: list[tuple[str, Order]] = [
    ("muster 300 infantry 50 cavalry", Muster(300, 50)),
    (
        "move army 2: Winterfell > 0412 > 0413 > 0513 (cost 7)",
        Move(2, ("Winterfell", "0412", "0413", "0513"), 7),
    ),
    ("attack army 5 with army 2", Attack(5, 2)),
    ("siege Riverrun with army 2", Siege("Riverrun", 2)),
    ("assault Riverrun with army 2", Assault("Riverrun", 2)),
    ("sally from Riverrun with army 4", Sally("Riverrun", 4)),
    ("retreat army 2", Retreat(2)),
    ("stand army 2", Stand(2)),
    ("cancel army 2", Cancel(2)),
    ("route army 2 to Riverrun", Route(2, "Riverrun")),
    ("status", Status()),
    ("odds army 2 vs army 5", Odds(2, 5)),
    # the catalogue orders and the brief
    ("raise 300 foot and 50 horse", Muster(300, 50)),
    ("muster 4 ships at Pyke", Muster(0, 0, 4, "Pyke")),
    ("march army 2 Winterfell -> 0412, 0413 cost 7", Move(2, ("Winterfell", "0412", "0413"), 7)),
    ("build Stone Walls at Winterfell", Build("Stone Walls", "Winterfell")),
    ("buy trebuchets for army 2", Buy("trebuchets", 2)),
    ("assign Ser Brynden Tully to army 2", Assign("Ser Brynden Tully", 2)),
    ("blockade Pyke with fleet 3", Blockade("Pyke", 3)),
    ("disband army 2", Disband(2)),
    ("help", Help()),
]


@pytest.mark.parametrize(("line", "order"), ISSUE_FORMS, ids=[line for line, _ in ISSUE_FORMS])
def test_order_language_issue_forms_parse(line: str, order: Order) -> None:
    """The order language: at least the forms listed in the issues work, exactly as written."""
    assert parse_order(line) == order


ISSUE_BLOCK = """\
muster 300 infantry 50 cavalry
move army 2: Winterfell > 0412 > 0413 > 0513 (cost 7)
attack army 5 with army 2
siege Riverrun with army 2
assault Riverrun with army 2
sally from Riverrun with army 4
retreat army 2        stand army 2        cancel army 2
route army 2 to Riverrun        status        odds army 2 vs army 5
"""


def test_order_language_issue_block_as_one_message() -> None:
    """One or several orders per message: the issue's block, pasted as one modmail, gives
    every order in turn (orders on one line separated by a wide gap count as separate)."""
    parsed = parse_message(ISSUE_BLOCK)
    assert parsed.orders == tuple(order for _, order in ISSUE_FORMS[:12])
    assert [item.line_no for item in parsed.items] == [1, 2, 3, 4, 5, 6, 7, 7, 7, 8, 8, 8]
    assert not parsed.errors
    assert not parsed.truncated


def test_order_language_wide_gap_splits_only_before_an_order_word() -> None:
    """A wide gap inside an order (not followed by an order word) does not split it."""
    parsed = parse_message("move army 2: Winterfell >     0412")
    assert parsed.orders == (Move(2, ("Winterfell", "0412")),)


@pytest.mark.parametrize(
    "line",
    [
        "MUSTER 300 INFANTRY 50 CAVALRY",
        "Muster 300 Infantry 50 Cavalry",
        "mUsTeR 300 iNfAnTrY 50 cAvAlRy",
    ],
)
def test_order_language_is_case_insensitive(line: str) -> None:
    """Case-insensitive: order words and keywords may be written in any case."""
    assert parse_order(line) == Muster(300, 50)


def test_order_language_names_keep_their_case() -> None:
    """Names are passed on as written; the world resolves them (case-insensitively) later."""
    assert parse_order("SIEGE RIVERRUN WITH ARMY 2") == Siege("RIVERRUN", 2)


# --------------------------------------------------------------------------------------------
# Canonical forms


@pytest.mark.parametrize("verb", VERBS)
def test_canonical_form_examples_are_canonical(verb: str) -> None:
    """Every form's example parses, and is already written the canonical way."""
    example = ORDER_FORMS[verb].example
    order = parse_order(example)
    assert order.verb == verb
    assert str(order) == example


def test_canonical_form_one_class_per_verb() -> None:
    """Each order class carries its canonical verb, one class per form, in the same order."""
    assert tuple(cls.verb for cls in ORDER_TYPES) == VERBS
    assert all(ORDER_FORMS[v].pattern and ORDER_FORMS[v].summary for v in VERBS)


@pytest.mark.parametrize(
    ("order", "text"),
    [
        (Muster(300, 50), "muster 300 infantry 50 cavalry"),
        (Muster(0, 50), "muster 50 cavalry"),
        (Muster(0, 0, 1, "Pyke"), "muster 1 ship at Pyke"),
        (Muster(1000, 0, 0, "Winterfell"), "muster 1000 infantry at Winterfell"),
        (Move(2, ("Winterfell",), None), "move army 2: Winterfell"),
        (Move(2, ("Road to Ruin", "0412"), 3), 'move army 2: "Road to Ruin" > 0412 (cost 3)'),
        (Buy("trebuchets", 2, 3), "buy 3 trebuchets for army 2"),
        (Buy("a ram", 2), 'buy "a ram" for army 2'),
        (Help("move"), "help move"),
        (Siege("The Twins", 1), "siege The Twins with army 1"),
        (Build("Walls in Stone", "Winterfell"), 'build "Walls in Stone" at Winterfell'),
    ],
)
def test_canonical_form_text(order: Order, text: str) -> None:
    """The canonical text of an order, with quotes only around names that need them."""
    assert str(order) == text
    assert parse_order(text) == order


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("Winterfell", "Winterfell"),
        ("0412", "0412"),
        ("King's Landing", "King's Landing"),
        ("Greywater Watch", "Greywater Watch"),
        ("Dún Laoghaire", "Dún Laoghaire"),
        ("Road to Ruin", '"Road to Ruin"'),
        ("Lord of the Crossing", '"Lord of the Crossing"'),
        ("A > B", '"A > B"'),
        ("7 Kingdoms", '"7 Kingdoms"'),
        ("Inn (north)", '"Inn (north)"'),
        ("İn", '"İn"'),
    ],
)
def test_format_name_quotes_only_what_would_not_read_back(name: str, written: str) -> None:
    """A name is written bare unless it holds order words, punctuation, or starts oddly."""
    assert format_name(name) == written


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("Winterfell", True),
        ("", False),
        (" Winterfell", False),
        ("Winter  fell", False),
        ('Say "hi"', False),
        ("a;b", False),
        ("zero\u200bwidth", False),
        ("x" * 100, True),
        ("x" * 101, False),
    ],
)
def test_is_valid_name(name: str, valid: bool) -> None:
    """Names: 1-100 characters, single spaces, no quotes, semicolons or invisible characters."""
    assert is_valid_name(name) is valid


def test_format_path_and_parse_path_are_inverse() -> None:
    """format_path writes tiles joined by > and parse_path reads them back."""
    path = ("Winterfell", "Road to Ruin", "0412")
    assert format_path(path) == 'Winterfell > "Road to Ruin" > 0412'
    assert parse_path(format_path(path)) == path


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Muster(0, 0), "muster"),
        (lambda: Muster(-1, 5), "muster.infantry"),
        (lambda: Move(0, ("A",)), "move.army"),
        (lambda: Move(1, ()), "move.path"),
        (lambda: Move(1, ("A",), -1), "move.stated_cost"),
        (lambda: Siege("", 1), "siege.holdfast"),
        (lambda: Buy("rams", 1, 0), "buy.quantity"),
        (lambda: Retreat(True), "retreat.army"),
        (lambda: Odds(1, 10**10), "odds.army_b"),
        (lambda: Help('say "hi"'), "help.topic"),
    ],
)
def test_order_values_refuse_what_cannot_be_written(build: object, field: str) -> None:
    """An order value that has no text form (bad numbers, bad names) cannot be built."""
    assert callable(build)
    with pytest.raises(InvalidInput) as caught:
        build()
    assert caught.value.field == field


def test_move_path_given_as_a_list_is_kept_as_a_tuple() -> None:
    """Orders are frozen values: a path given as a list is stored as a tuple (hashable)."""
    move = Move(2, ["A", "B"])  # type: ignore[arg-type]
    assert move.path == ("A", "B")
    assert hash(move) == hash(Move(2, ("A", "B")))


@pytest.mark.parametrize(
    ("word", "verb"),
    [
        ("move", "move"),
        ("March", "move"),
        ("RAISE", "muster"),
        ("lay  siege to", "siege"),
        ("sortie", "sally"),
        ("nonsense", None),
    ],
)
def test_canonical_verb(word: str, verb: str | None) -> None:
    """Help topics: any synonym of an order word names its canonical verb."""
    assert canonical_verb(word) == verb


# --------------------------------------------------------------------------------------------
# Forgiving variants


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("move army 2: A > B > C", ("A", "B", "C")),
        ("move army 2: A -> B -> C", ("A", "B", "C")),
        ("move army 2: A→B→C", ("A", "B", "C")),
        ("move army 2: A, B, C", ("A", "B", "C")),
        ("move army 2: A,B,C", ("A", "B", "C")),
        ("move army 2 A to B to C", ("A", "B", "C")),
        ("move army 2 from A to B then C", ("A", "B", "C")),
        ("move army 2: A - B - C", ("A", "B", "C")),
        ("move army 2: A => B — C", ("A", "B", "C")),
        ("move army 2 to Riverrun", ("Riverrun",)),
        ("move army 2 -> Riverrun", ("Riverrun",)),
        ("move army 2: A > B,", ("A", "B")),
        ("move army 2: Greywater Watch > King's Landing", ("Greywater Watch", "King's Landing")),
        ('move army 2: "Road to Ruin" > 0412', ("Road to Ruin", "0412")),
        ("move army 2: “Road to Ruin” > 0412", ("Road to Ruin", "0412")),
        ("move army 2: Hornwood-on-Sea > 0412", ("Hornwood-on-Sea", "0412")),
    ],
)
def test_move_path_separators(line: str, path: tuple[str, ...]) -> None:
    """Tiles by id or by name, multi-word names, and >, ->, →, commas or "to" between them."""
    assert parse_order(line) == Move(2, path, None)


@pytest.mark.parametrize(
    ("tail", "cost"),
    [
        ("(cost 7)", 7),
        ("(Cost: 7)", 7),
        ("cost 7", 7),
        ("cost: 7", 7),
        ("cost=7", 7),
        ("[cost 7]", 7),
        ("(total cost 7)", 7),
        ("(travel cost of 7)", 7),
        ("(tc 7)", 7),
        ("(7 tc)", 7),
        ("(7 travel cost)", 7),
        ("(7)", 7),
        ("(cost 1,000)", 1000),
        ("(cost 0)", 0),
    ],
)
def test_move_stated_cost_variants(tail: str, cost: int) -> None:
    """The stated total travel cost may be written in several ways at the end of the path."""
    line = f"move army 2: A > B {tail}"
    assert parse_order(line) == Move(2, ("A", "B"), cost)


@pytest.mark.parametrize(
    "ref",
    [
        "army 2",
        "Army 2",
        "fleet 2",
        "#2",
        "# 2",
        "army #2",
        "army2",
        "army no. 2",
        "my army 2",
        "the army 2",
        "army number 2",
        "host 2",
    ],
)
def test_army_references(ref: str) -> None:
    """An "army N" also accepts "fleet N", "#N" and "army #N" (and a few natural variants)."""
    assert parse_order(f"retreat {ref}") == Retreat(2)
    assert parse_order(f"attack army 5 with {ref}") == Attack(5, 2)
    assert parse_order(f"move {ref}: A > B") == Move(2, ("A", "B"))


@pytest.mark.parametrize(
    ("line", "order"),
    [
        ("muster 1,000 infantry 2,500 cavalry", Muster(1000, 2500)),
        ("muster 1000 infantry, 50 cavalry", Muster(1000, 50)),
        ("muster 300 infantry & 50 cavalry", Muster(300, 50)),
        ("muster 300 infantry + 50 cavalry", Muster(300, 50)),
        ("muster 50 cavalry and 300 infantry", Muster(300, 50)),
        ("muster infantry 300 cavalry 50", Muster(300, 50)),
        ("muster infantry: 300, cavalry: 50", Muster(300, 50)),
        ("muster 300inf 50cav", Muster(300, 50)),
        ("muster an army of 300 infantry", Muster(300, 0)),
        ("raise 20 knights", Muster(0, 20)),
        ("levy 300 spearmen", Muster(300, 0)),
        ("recruit 300 foot soldiers", Muster(300, 0)),
        ("muster 1 ship at Pyke", Muster(0, 0, 1, "Pyke")),
        ("muster 4 longships at Lordsport", Muster(0, 0, 4, "Lordsport")),
        ("muster 300 infantry at Winterfell", Muster(300, 0, 0, "Winterfell")),
        ("muster: 300 infantry", Muster(300, 0)),
        ("muster 0 infantry 5 cavalry", Muster(0, 5)),
    ],
)
def test_muster_variants(line: str, order: Muster) -> None:
    """Mustering: numbers with thousands separators, several unit words, "and" or commas."""
    assert parse_order(line) == order


@pytest.mark.parametrize(
    ("line", "order"),
    [
        ("march army 2: A > B", Move(2, ("A", "B"))),
        ("sail fleet 3: 0101 > 0102", Move(3, ("0101", "0102"))),
        ("attack army 5 using army 2", Attack(5, 2)),
        ("attack 5 with 2", Attack(5, 2)),
        ("attack with army 2 army 5", Attack(5, 2)),
        ("attack with army 2 against army 5", Attack(5, 2)),
        ("engage army 5 with army 2", Attack(5, 2)),
        ("besiege Riverrun with army 2", Siege("Riverrun", 2)),
        ("lay siege to Riverrun with army 2", Siege("Riverrun", 2)),
        ("siege Riverrun army 2", Siege("Riverrun", 2)),
        ("siege with army 2 at Riverrun", Siege("Riverrun", 2)),
        ("siege King's Landing with army 2", Siege("King's Landing", 2)),
        ("siege The Twins with the army 2", Siege("The Twins", 2)),
        ("storm Riverrun with army 2", Assault("Riverrun", 2)),
        ("assault on Riverrun with army 2", Assault("Riverrun", 2)),
        ("sally forth from Riverrun with army 4", Sally("Riverrun", 4)),
        ("sally Riverrun with army 4", Sally("Riverrun", 4)),
        ("sally with army 4 from Riverrun", Sally("Riverrun", 4)),
        ("sortie from Riverrun with army 4", Sally("Riverrun", 4)),
        ("sally from Riverrun", Sally("Riverrun")),  # the whole ready garrison
        ("intercept army 5 with army 2", Intercept(5, 2)),
        ("waylay army 5 with army 2", Intercept(5, 2)),
        ("spare army 5", Spare(5)),
        ("sally forth from Riverrun", Sally("Riverrun")),
        ("lift siege of Riverrun", Lift("Riverrun")),
        ("lift the siege of Riverrun", Lift("Riverrun")),
        ("end siege of Riverrun", Lift("Riverrun")),
        ("retreat army 2 to Winterfell", Retreat(2, to="Winterfell")),
        ("retreat army 2: 0412 > 0413", Retreat(2, path=("0412", "0413"))),
        ("army 2 retreats to Winterfell", Retreat(2, to="Winterfell")),
        ("retreat 2", Retreat(2)),
        ("retreat army 2 now", Retreat(2)),
        ("withdraw army 2", Retreat(2)),
        ("fall back army 2", Retreat(2)),
        ("stand army 2 and fight", Stand(2)),
        ("stand army 2 its ground", Stand(2)),
        ("cancel army 2's march", Cancel(2)),
        ("cancel the march of army 2", Cancel(2)),
        ("cancel orders for army 2", Cancel(2)),
        ("abort army 2", Cancel(2)),
        ("route for army 2 to King's Landing", Route(2, "King's Landing")),
        ("route army 2 0412", Route(2, "0412")),
        ("route army 2 -> Riverrun", Route(2, "Riverrun")),
        ("route to Riverrun for army 2", Route(2, "Riverrun")),
        ("status of my armies", Status()),
        ("odds army 2 versus army 5", Odds(2, 5)),
        ("odds army 2 v army 5", Odds(2, 5)),
        ("odds of army 2 against army 5", Odds(2, 5)),
        ("odds 2 vs 5", Odds(2, 5)),
        ("chances army 2 vs army 5", Odds(2, 5)),
        ("build Stone Walls in Winterfell", Build("Stone Walls", "Winterfell")),
        ("construct a Maester's Tower at Winterfell", Build("a Maester's Tower", "Winterfell")),
        ("buy 2 trebuchets for army 2", Buy("trebuchets", 2, 2)),
        ("buy a trebuchet for army 2", Buy("trebuchet", 2, 1)),
        ("buy one battering ram for army 2", Buy("battering ram", 2, 1)),
        ("buy 3x rams for army 2", Buy("rams", 2, 3)),
        ("purchase 1,000 arrows for #2", Buy("arrows", 2, 1000)),
        ("assign Ser Brynden Tully to command army 2", Assign("Ser Brynden Tully", 2)),
        ("assign Ser Brynden Tully as commander of army 2", Assign("Ser Brynden Tully", 2)),
        ("appoint Lady Maege Mormont to army 2", Assign("Lady Maege Mormont", 2)),
        ("blockade Pyke with fleet #3", Blockade("Pyke", 3)),
        ("blockade with fleet 3 at Pyke", Blockade("Pyke", 3)),
        ("disband army 2 and send them home", Disband(2)),
        ("dismiss army 2", Disband(2)),
        ("help move", Help("move")),
        ("help: siege", Help("siege")),
        ("HELP", Help()),
    ],
)
def test_forgiving_variants(line: str, order: Order) -> None:
    """Synonyms, extra words and either word order are accepted; the result is the same order."""
    assert parse_order(line) == order


@pytest.mark.parametrize(
    ("line", "order"),
    [
        ("move 1: Winterfell > 0412 (cost 2)", Move(1, ("Winterfell", "0412"), 2)),
        ("march 1: Winterfell > 0412 (cost 2)", Move(1, ("Winterfell", "0412"), 2)),
        ("sail 6: 0101 > 0102 (cost 2)", Move(6, ("0101", "0102"), 2)),
        ("move fleet 6: 0101 > 0102 (cost 2)", Move(6, ("0101", "0102"), 2)),
        ("move 12 Winterfell > 0412 (cost 2)", Move(12, ("Winterfell", "0412"), 2)),
        ("move 2 from Winterfell > 0412 (cost 2)", Move(2, ("Winterfell", "0412"), 2)),
        ("stand 1", Stand(1)),
        ("retreat 1", Retreat(1)),
        ("retreat 1 to Winterfell", Retreat(1, to="Winterfell")),
        ("disband 1", Disband(1)),
        ("cancel 1", Cancel(1)),
        ("spare 5", Spare(5)),
        ("attack 5 with 2", Attack(5, 2)),
        ("intercept 5 with 2", Intercept(5, 2)),
        ("siege Riverrun with 2", Siege("Riverrun", 2)),
        ("assault Riverrun with 2", Assault("Riverrun", 2)),
        ("sally from Riverrun with 4", Sally("Riverrun", 4)),
        ("route 1 to Riverrun", Route(1, "Riverrun")),
        ("odds 1 vs 5", Odds(1, 5)),
        ("buy trebuchet for 1", Buy("trebuchet", 1)),
        ("assign Ser Brynden Tully to 1", Assign("Ser Brynden Tully", 1)),
        ("blockade Pyke with 3", Blockade("Pyke", 3)),
    ],
)
def test_bare_army_numbers(line: str, order: Order) -> None:
    """The bare number names the army in every order about one army (docs/orders.md), the
    move and march included, with a colon or a tile after it."""
    assert parse_order(line) == order


@pytest.mark.parametrize("line", ["move 0412 > 0413 (cost 2)", "move 0412 0413 (cost 2)",
                                  "move 1 > 0413 (cost 2)", "move 1 to 0413 (cost 2)"])
def test_a_path_without_an_army_is_not_read_as_a_bare_number(line: str) -> None:
    """A four-digit tile id, or a number followed by a path separator, is a path that forgot
    its army: the reply asks for the army rather than moving army 412."""
    assert syntax_error(line).code is Problem.MISSING_ARMY


@pytest.mark.parametrize(
    "line",
    ["cancel army 2", "cancel 2", "cancel the attack of army 2", "cancel army 2's attack",
     "cancel the assault of army 2", "call off army 2", "call off the attack by army 2",
     "call off army 2's assault", "abort army 2 attack", "cancel the march of army 2"],
)
def test_calling_off_is_a_cancel(line: str) -> None:
    """An attack or assault is called off with the same order as a march or a muster."""
    assert parse_order(line) == Cancel(2)


@pytest.mark.parametrize(
    ("line", "order"),
    [
        ("army 2 retreats", Retreat(2)),
        ("army 2: retreat", Retreat(2)),
        ("army 2 will stand", Stand(2)),
        ("army 2 marches from Winterfell to 0412 (cost 1)", Move(2, ("Winterfell", "0412"), 1)),
        ("army 2: move Winterfell > 0412", Move(2, ("Winterfell", "0412"))),
        ("army 2 besieges Riverrun", Siege("Riverrun", 2)),
        ("army 4 sallies from Riverrun", Sally("Riverrun", 4)),
        ("army 2 attacks army 5", Attack(5, 2)),
        ("fleet 3 blockades Pyke", Blockade("Pyke", 3)),
        ("army 2 buys trebuchets", Buy("trebuchets", 2)),
        ("#2 cancels", Cancel(2)),
    ],
)
def test_army_first_orders(line: str, order: Order) -> None:
    """An order may name the army first ("army 2 retreats") when the verb allows it."""
    assert parse_order(line) == order


# --------------------------------------------------------------------------------------------
# Errors: what was wrong, what was expected, an example


@pytest.mark.parametrize(
    ("line", "code", "fragment", "verb"),
    [
        ("", Problem.EMPTY, "empty", None),
        ("   ", Problem.EMPTY, "empty", None),
        ("300 infantry", Problem.NO_ORDER_WORD, "start with an order word", None),
        ("conquer Riverrun", Problem.UNKNOWN_ORDER, "not a known order word", None),
        ("muster 300", Problem.BAD_TROOPS, "infantry, cavalry or ships", "muster"),
        ("muster 300 men", Problem.BAD_TROOPS, "infantry, cavalry or ships", "muster"),
        ("muster 300 infantry 20 infantry", Problem.BAD_TROOPS, "given twice", "muster"),
        ("muster 0 infantry", Problem.BAD_TROOPS, "nothing to muster", "muster"),
        ("muster lots", Problem.BAD_TROOPS, "no numbers", "muster"),
        ("muster 99999999999 infantry", Problem.BAD_NUMBER, "too large", "muster"),
        ("move army 0: A > B", Problem.BAD_NUMBER, "start at 1", "move"),
        ("move Winterfell > 0412", Problem.MISSING_ARMY, "which army", "move"),
        ("move army 2", Problem.BAD_PATH, "no tiles", "move"),
        ("move army 2: A > > B", Problem.BAD_PATH, "missing between", "move"),
        ("move army 2: A > B >", Problem.BAD_PATH, "ends without a tile", "move"),
        ('move army 2: "A" "B"', Problem.BAD_PATH, "no > between", "move"),
        ("move army 2: A > B (cost seven)", Problem.BAD_COST, "(cost N)", "move"),
        ('move army 2: "A > B', Problem.BAD_NAME, "in pairs", "move"),
        ("move army 2: " + "x" * 101, Problem.BAD_NAME, "too long", "move"),
        ('siege "" with army 2', Problem.BAD_NAME, "empty", "siege"),
        ("siege Riv\u200berrun with army 2", Problem.BAD_NAME, "invisible", "siege"),
        ("attack army 5", Problem.MISSING_ARMY, "which of your armies", "attack"),
        ("attack Riverrun with army 2", Problem.WRONG_FORM, "siege or assault", "attack"),
        ("siege Riverrun", Problem.MISSING_ARMY, "no army was named", "siege"),
        ("siege with army 2", Problem.BAD_NAME, "holdfast name is missing", "siege"),
        ("siege army 2", Problem.WRONG_FORM, "which holdfast", "siege"),
        ("route army 2 to", Problem.BAD_NAME, "destination is missing", "route"),
        ("siege army 3 with army 2", Problem.WRONG_FORM, "not an army", "siege"),
        ("blockade Pyke", Problem.MISSING_ARMY, "no army was named", "blockade"),
        ("lift army 3", Problem.WRONG_FORM, "name the holdfast", "lift"),
        ("retreat", Problem.MISSING_ARMY, "no army was named", "retreat"),
        ("stand army 2 and dance", Problem.WRONG_FORM, "could not be read", "stand"),
        ("route army 2", Problem.WRONG_FORM, "where to", "route"),
        ("odds army 2", Problem.MISSING_ARMY, "two armies", "odds"),
        ("build Stone Walls", Problem.WRONG_FORM, "where to build", "build"),
        ("build", Problem.WRONG_FORM, "what to build", "build"),
        ("buy trebuchets", Problem.MISSING_ARMY, "no army was named", "buy"),
        ("buy 0 trebuchets for army 2", Problem.BAD_NUMBER, "at least 1", "buy"),
        ("assign Ser Brynden Tully", Problem.MISSING_ARMY, "no army was named", "assign"),
        ("army 2 musters 300 infantry", Problem.WRONG_FORM, "start the line", "muster"),
        ("help " + "x" * 120, Problem.BAD_NAME, "too long", "help"),
    ],
)
def test_syntax_errors_say_what_was_expected(
    line: str, code: Problem, fragment: str, verb: str | None
) -> None:
    """Every invalid order gets what was wrong, what was expected, and an example: of the same
    order when the order word was recognised, else a short list of orders."""
    error = syntax_error(line)
    assert error.code is code
    assert fragment in error.problem
    assert error.verb == verb
    if verb is not None:
        assert error.expected == ORDER_FORMS[verb].pattern
        assert error.example == ORDER_FORMS[verb].example
    else:
        assert "muster" in error.expected and "move" in error.expected
        assert error.example.splitlines()[0] == ORDER_FORMS["muster"].example
        assert len(error.example.splitlines()) >= 5
    assert str(error).startswith(error.problem)
    assert isinstance(error, RulesError)


@pytest.mark.parametrize(
    ("word", "suggestion"),
    [
        ("mvoe", "move"),
        ("marhc", "move"),
        ("seige", "siege"),
        ("retreet", "retreat"),
        ("staus", "status"),
        ("atack", "attack"),
        ("blokade", "blockade"),
        ("musterr", "muster"),
    ],
)
def test_unknown_order_word_did_you_mean(word: str, suggestion: str) -> None:
    """Unknown order words get a "did you mean", with the suggested order's form and example."""
    error = syntax_error(f"{word} army 2")
    assert error.code is Problem.UNKNOWN_ORDER
    assert error.suggestion == suggestion
    assert f"did you mean {suggestion}?" in error.problem
    assert error.example == ORDER_FORMS[suggestion].example
    assert error.expected == ORDER_FORMS[suggestion].pattern


def test_unknown_order_word_without_a_close_match() -> None:
    """With no close order word, the reply lists the order words and a few examples."""
    error = syntax_error("xyzzy army 2")
    assert error.suggestion is None
    assert "did you mean" not in error.problem
    assert all(verb in error.expected for verb in VERBS)


def test_line_too_long_is_a_syntax_error() -> None:
    """Any order line over 500 characters is refused as "line too long"."""
    line = "move army 1: " + "A > " * 200
    assert len(line) > MAX_LINE_CHARS
    error = syntax_error(line)
    assert error.code is Problem.LINE_TOO_LONG
    assert "too long" in error.problem
    assert str(MAX_LINE_CHARS) in error.expected
    assert len(error.excerpt) <= 61


@pytest.mark.parametrize(
    "line",
    [
        "siege u/someone with army 2 ZQXJ",
        "move army 2: ZQXJ > > B",
        "muster 300 ZQXJ",
        "ZQXJ army 2",
        "attack ZQXJ with army 2",
        "move army 2: A > B (cost ZQXJ)",
        'siege "ZQXJ with army 2',
    ],
)
def test_errors_never_put_player_text_outside_the_excerpt(line: str) -> None:
    """Player text reaches replies only through the excerpt (which the renderer escapes):
    problem, expected and example are the module's own words."""
    error = syntax_error(line)
    for text in (error.problem, error.expected, error.example):
        assert "ZQXJ" not in text and "u/" not in text
    assert "ZQXJ" in error.excerpt


def test_syntax_error_excerpt_is_cut() -> None:
    """Excerpts are cut to the excerpt length with an ellipsis."""
    error = syntax_error("siege " + "x" * 300 + " with army 2")
    assert len(error.excerpt) == EXCERPT_CHARS
    assert error.excerpt.endswith("…")


def test_syntax_errors_compare_and_pickle_by_their_fields() -> None:
    """Errors are values: equal when their fields are, and they survive pickling."""
    first, second = syntax_error("retreat"), syntax_error("retreat")
    assert first == second and hash(first) == hash(second)
    assert first != syntax_error("stand")
    copy = pickle.loads(pickle.dumps(first))
    assert copy == first and copy.code is Problem.MISSING_ARMY


# --------------------------------------------------------------------------------------------
# Whole messages


def test_message_markdown_is_tolerated() -> None:
    """Markdown bullets (-, *, +, 1.), quotes (>), bold and italic markers, code ticks and
    headings around orders are ignored."""
    message = "\n".join(
        [
            "# My orders",
            "- retreat army 1",
            "* retreat army 2",
            "+ retreat army 3",
            "1. retreat army 4",
            "2) retreat army 5",
            "> retreat army 6",
            "> > - **retreat** army 7",
            "*retreat army 8*",
            "__retreat army 9__",
            "`retreat army 10`",
            "~~stand army 11~~ retreat army 11",
            "### retreat army 12",
            "- [ ] retreat army 13",
        ]
    )
    parsed = parse_message(message)
    assert parsed.errors == ()
    assert parsed.orders[:12] == tuple(Retreat(n) for n in range(1, 13))
    assert parsed.ignored_lines == (1,)


@pytest.mark.parametrize(
    "line",
    [
        "please retreat army 2",
        "Please, retreat army 2.",
        "I want to retreat army 2",
        "I would like to retreat army 2, thanks!",
        "I'd like to retreat army 2",
        "We will retreat army 2",
        "I retreat army 2",
        "My lord, retreat army 2!",
        "my lord, I want to retreat army 2",
        "Your Grace: please retreat army 2",
        "Hi mods, retreat army 2",
        "Could you please retreat army 2?",
        "And then retreat army 2",
        "Also: retreat army 2",
        "Order 1: retreat army 2",
        "u/maester_bot retreat army 2",
        "retreat army 2 please",
        "retreat army 2, my lord.",
        "retreat army 2!!!",
        "retreat army 2 ⚔️",
        "⚔️ retreat army 2",
        "retreat army 2…",
    ],
)
def test_message_polite_words_and_punctuation(line: str) -> None:
    """Extra polite words before the verb and trailing punctuation are ignored."""
    parsed = parse_message(line)
    assert parsed.orders == (Retreat(2),)


def test_message_prose_lines_are_ignored() -> None:
    """Lines that are clearly prose and do not start with an order word are skipped."""
    message = (
        "My lord,\n\nThe Blackfish sends his regards. Winter is coming, and 300 men are ready.\n"
        "retreat army 2\n\nYours, u/someone"
    )
    parsed = parse_message(message)
    assert parsed.orders == (Retreat(2),)
    assert parsed.items[0].line_no == 4
    assert parsed.ignored_lines == (1, 3, 6)
    assert parsed.no_orders is None


def test_message_with_no_orders_gets_help() -> None:
    """When no order is found at all, the result says so and gives help."""
    parsed = parse_message("Hello! How do I play?\nThanks")
    assert parsed.items == ()
    assert parsed.no_orders is not None
    assert parsed.no_orders.code is Problem.NO_ORDERS
    assert "no orders" in parsed.no_orders.problem
    assert "move" in parsed.no_orders.expected
    assert ORDER_FORMS["move"].example in parsed.no_orders.example
    assert parsed.no_orders.excerpt == "Hello! How do I play?"


@pytest.mark.parametrize("text", ["", "   \n\n\t", "\u200b\u200b", "**", "> \n- \n#"])
def test_message_empty_gets_help(text: str) -> None:
    """An empty (or invisible, or markdown-only) message finds no orders and gets help."""
    parsed = parse_message(text)
    assert parsed.items == () and parsed.no_orders is not None


def test_message_near_miss_verb_is_answered_not_ignored() -> None:
    """A misspelt order word on an order-like line gets a did-you-mean reply."""
    parsed = parse_message("Greetings.\nmvoe army 2: Winterfell > 0412")
    assert len(parsed.items) == 1
    error = parsed.items[0].error
    assert error is not None and error.suggestion == "move"


@pytest.mark.parametrize(("text", "expected"), [
    ("as House Stark: status\nretreat army 2", ("status\nretreat army 2", "House Stark")),
    ("  AS Tully :\nmuster 300 infantry", ("muster 300 infantry", "Tully")),
    ("status\nas House Stark: status", ("status\nas House Stark: status", None)),
    ("ask the maester: status", ("ask the maester: status", None)),
    ("as House Stark status", ("as House Stark status", None)),
    # issue 24: a zero-width space hid the line (its orders then ran for the moderator's own
    # claim, or named no claim)
    ("as\u200b House\u200b Lannister:\nstatus", ("status", "House Lannister")),
    ("\u200bas House Lann\u200bister\u200b:\nstatus", ("status", "House Lannister")),
    ("as\u00a0House Lannister:\nstatus", ("status", "House Lannister")),
])
def test_a_moderators_first_line_names_the_claim_acted_for(
        text: str, expected: tuple[str, str | None]) -> None:
    """``as CLAIM:`` on the first line only: the rest of the message is parsed as usual."""
    assert acting_for(text) == expected


@pytest.mark.parametrize("text", [
    "muster 10**30 infantry", "muster 10\\*\\*30 infantry", "muster 1`0`00 infantry",
    "muster 10^30 infantry", "muster 10~~30 infantry", "muster 10*30 cavalry",
])
def test_markdown_inside_a_number_does_not_join_its_digits_into_another_number(text: str) -> None:
    """Issue 24: ``muster 10**30 infantry`` mustered 1,030 (the ``**`` vanished and the digits
    joined up); markdown between digits now splits the number and the order is refused."""
    (item,) = parse_message(text).items
    assert item.error is not None
    assert not isinstance(item.result, Muster)


def test_markdown_around_a_whole_number_still_reads_it() -> None:
    for text in ("muster **300** infantry", "muster `300` infantry", "muster *300* infantry"):
        (item,) = parse_message(text).items
        assert item.result == Muster(infantry=300, cavalry=0, ships=0, at=None), text


def test_message_semicolons_separate_orders() -> None:
    """Several orders on one line may be separated by semicolons; they share a line number."""
    parsed = parse_message("retreat army 2; stand army 3;cancel army 4")
    assert parsed.orders == (Retreat(2), Stand(3), Cancel(4))
    assert {item.line_no for item in parsed.items} == {1}


def test_message_bot_commands_are_passed_on() -> None:
    """Lines starting with ! are bot commands, returned with their arguments, not parsed."""
    parsed = parse_message("!odds 2 5\n- **!Status**\nretreat army 2\n!!!\n! nope")
    assert parsed.commands == (CommandCall("odds", "2 5", 1), CommandCall("status", "", 2))
    assert parsed.orders == (Retreat(2),)
    assert parsed.ignored_lines == (4, 5)


def test_message_a_command_line_keeps_its_semicolons() -> None:
    """A `!command` line is one command: `;` inside it belongs to its arguments (the board
    game's `!combat` separates supports and areas with it); order lines still split."""
    parsed = parse_message("!combat A vs B; support C; area D\nretreat army 2; stand army 3")
    assert parsed.commands == (CommandCall("combat", "A vs B; support C; area D", 1),)
    assert parsed.orders == (Retreat(2), Stand(3))


def test_message_a_long_line_is_a_command_only_if_its_read_part_is_one() -> None:
    """A line over 500 characters is read on its first half, as its "too long" error is: a
    link whose end lies past that half does not make the line one `!command` whose `;`
    would swallow the order after it."""
    line = "[!odds 2 5 " + "a " * 135 + "](https://example.com/" + "p" * 200 + "); retreat army 2"
    assert len(line) > MAX_LINE_CHARS
    parsed = parse_message(line)
    assert parsed.commands == ()
    assert parsed.orders == (Retreat(2),)


def test_message_errors_and_orders_keep_their_lines() -> None:
    """Each item records its line number, its source excerpt and its order or error."""
    parsed = parse_message("retreat army 2\nsiege Riverrun\n\nstand army 3")
    assert [(item.line_no, item.source) for item in parsed.items] == [
        (1, "retreat army 2"),
        (2, "siege Riverrun"),
        (4, "stand army 3"),
    ]
    assert parsed.items[0].order == Retreat(2)
    assert parsed.items[1].order is None and parsed.items[1].command is None
    assert parsed.items[1].error is not None
    assert parsed.items[1].error.code is Problem.MISSING_ARMY
    assert parsed.errors == (parsed.items[1].error,)


def test_message_only_first_twenty_order_lines() -> None:
    """Only the first 20 order lines are considered; the result records the truncation."""
    parsed = parse_message("\n".join(f"retreat army {n}" for n in range(1, 31)))
    assert len(parsed.items) == MAX_ORDER_LINES
    assert parsed.orders[-1] == Retreat(MAX_ORDER_LINES)
    assert parsed.lines_truncated and parsed.truncated and not parsed.text_truncated


def test_message_exactly_twenty_order_lines_is_not_truncated() -> None:
    """Twenty order lines (with prose around them) are all read, with nothing cut."""
    body = "\n".join(f"retreat army {n}\nsome prose" for n in range(1, 21))
    parsed = parse_message(body)
    assert len(parsed.orders) == MAX_ORDER_LINES
    assert not parsed.truncated


def test_message_only_first_ten_thousand_characters() -> None:
    """Only the first 10,000 characters are read; an order after them is not."""
    filler = ("Winter is coming. " * 600)[: MAX_MESSAGE_CHARS - 20]
    parsed = parse_message(f"retreat army 1\n{filler}\nretreat army 2")
    assert parsed.orders == (Retreat(1),)
    assert parsed.text_truncated and parsed.truncated


def test_message_long_order_line_is_too_long_but_long_prose_is_ignored() -> None:
    """An order line over 500 characters is a "line too long" error; a long line of prose
    that does not start with an order word is skipped like other prose."""
    order = "move army 1: " + "Winterfell > " * 50
    prose = "The ravens flew " + "far and wide " * 50
    parsed = parse_message(f"{order}\n{prose}\nretreat army 2")
    assert parsed.items[0].error is not None
    assert parsed.items[0].error.code is Problem.LINE_TOO_LONG
    assert parsed.items[1].order == Retreat(2)
    assert parsed.ignored_lines == (2,)
    assert len(parsed.items[0].source) <= EXCERPT_CHARS


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("re\u200btreat army\u200d 2", Retreat(2)),  # zero-width characters
        ("\u202eretreat army 2\u202c", Retreat(2)),  # right-to-left override
        ("\u200fretreat army 2", Retreat(2)),  # right-to-left mark
        ("retreat\x00 army\x07 2", Retreat(2)),  # control characters
        ("ｒｅｔｒｅａｔ　ａｒｍｙ　２", Retreat(2)),  # fullwidth (NFKC)
        ("retreat army 2\r\nstand army 3", Retreat(2)),
        ("move army 2: Winterfell &gt; 0412", Move(2, ("Winterfell", "0412"))),
        ("move army 2: Winterfell \\> 0412", Move(2, ("Winterfell", "0412"))),
        ("&#x200B;\nretreat army 2", Retreat(2)),
        (">!retreat army 2!<", Retreat(2)),
        ("[retreat army 2](https://example.com)", Retreat(2)),
        ("siege Riverrun with army\u00a02", Siege("Riverrun", 2)),
        ("move army 2: Winterfell ＞ 0412", Move(2, ("Winterfell", "0412"))),
    ],
)
def test_message_normalisation(text: str, order: Order) -> None:
    """Input is NFKC-normalised, control and zero-width characters are removed, and Reddit's
    escapes and entities are undone before reading."""
    assert parse_message(text).orders[0] == order


@pytest.mark.parametrize(
    "text",
    [
        "'; DROP TABLE armies; --",
        "Robert'); DELETE FROM claims WHERE 1=1; --",
        "u/spez r/all /u/someone",
        "🐉🐉🐉 🔥 👑",
        "\u202e\u202d\u2066\u2067\u2068\u2069",
        "<script>alert(1)</script>",
        "${jndi:ldap://x}",
        "%s%s%s%n",
    ],
)
def test_message_hostile_text_is_answered(text: str) -> None:
    """Hostile text (SQL-looking strings, pings, emoji, bidi controls, markup) is answered
    with "no orders found" and help; nothing is raised."""
    parsed = parse_message(text)
    assert parsed.orders == ()
    assert parsed.no_orders is not None or parsed.errors


def test_message_unknown_tiles_are_just_names() -> None:
    """Tiles are strings at this stage: unknown ones are resolved (and refused) later."""
    parsed = parse_message("move army 2: Valyria > Asshai > 9999 (cost 40)")
    assert parsed.orders == (Move(2, ("Valyria", "Asshai", "9999"), 40),)


def test_message_sql_inside_an_order_is_only_a_name() -> None:
    """SQL-looking text inside an order is read as a (strange) name, never executed here;
    the semicolon ends the order."""
    parsed = parse_message("siege Riverrun'); DROP TABLE armies with army 2")
    assert parsed.items[0].error is not None
    assert parsed.items[0].error.code is Problem.MISSING_ARMY
    assert parsed.ignored_lines == (1,)


# --------------------------------------------------------------------------------------------
# The players' guide


GUIDE = Path(__file__).resolve().parents[3] / "docs" / "orders.md"


def guide_code_lines() -> list[str]:
    lines: list[str] = []
    inside = False
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside and line.strip():
            lines.append(line)
    return lines


def test_guide_examples_all_parse() -> None:
    """Every order shown in a code block of docs/orders.md reads without a syntax error."""
    lines = guide_code_lines()
    assert len(lines) > 25
    for line in lines:
        parsed = parse_message(line)
        assert parsed.errors == (), line
        assert parsed.orders or parsed.ignored_lines, line


def test_guide_lists_every_order() -> None:
    """The guide's table lists every order with its canonical example."""
    text = GUIDE.read_text(encoding="utf-8")
    for verb in VERBS:
        assert f"| `{verb}` |" in text
        assert f"`{ORDER_FORMS[verb].example}`" in text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("muster -100 infantry", "sign"),
        ("muster −100 infantry", "sign"),
        ("muster 100 infantry -50 cavalry", "sign"),
        ("muster 1² infantry", "digits 0 to 9"),
        ("retreat army ²", "digits 0 to 9"),
        ("muster ½ infantry", "digits 0 to 9"),
        ("muster ١٠٠ infantry", "digits 0 to 9"),
        ("army 3.0 retreat", "whole"),
        ("retreat army 3.0", "whole"),
        ("move army 3.0: Winterfell > 0412", "whole"),
        ("route army 2.0 to Riverrun", "whole"),
        ("muster 1e3 infantry", "whole"),
        ("cancel army -2", "sign"),
    ],
)
def test_numbers_are_plain_whole_digits(text: str, problem: str) -> None:
    """A number with a sign, a decimal point, an exponent or digit-like characters other than
    0-9 is refused as a number (never read as another number) with a reply saying why."""
    parsed = parse_message(text)
    assert not parsed.orders
    error = parsed.items[0].error
    assert error is not None and error.code is Problem.BAD_NUMBER
    assert problem in error.problem


def test_plain_numbers_and_quoted_names_still_read() -> None:
    """Thousands separators, fullwidth digits and numbers inside quoted names still read."""
    assert parse_message("muster 1,000 infantry + 50 cavalry").orders[0] == Muster(1000, 50, 0)
    assert parse_message("muster １００ infantry").orders[0] == Muster(100, 0, 0)
    assert parse_message('assign "Ser 2.0" to army 2').orders[0] == Assign("Ser 2.0", 2)
