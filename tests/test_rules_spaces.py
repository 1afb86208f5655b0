"""Rules tests: the special spaces: START, income tax (decision 1), property tax, the
Anti-Monopoly Foundation, both card decks with every effect type (decision 10), and space 30
(decision 3). Card figures from cards.csv, board figures from board-2005.csv."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, ben_first, events_of, scenario, two

HOLD = 10


def four(**extra) -> list[dict]:
    """Ana (C), Ben (M), Cy (C), Dee (M) in that order; `extra` maps a name to more fields."""
    roles = {"Ana": "competitor", "Ben": "monopolist", "Cy": "competitor", "Dee": "monopolist"}
    return [{"name": n, "role": r, **extra.get(n, {})} for n, r in roles.items()]


def draw(role: str, card: str, players: list[dict] | None = None, start: int = 0, more_dice=()):
    """The first player (of `role`) throws 3 + 4 from `start` and draws `card` on the card space."""
    players = players or (two() if role == "competitor" else ben_first())
    return scenario(players, ["roll"], dice=[[3, 4], *more_dice], cards={role: [card]})


# -- START ------------------------------------------------------------------------------------


def test_start_collect_100_when_passing_start():
    """START: collect $100 when passing START."""
    game = scenario(two(ana={"position": 36}), ["roll"], dice=[[2, 3]])
    assert game.position[0] == (36 + 5) % 40  # Basin St.
    assert game.cash[0] == 1500 + 100
    (paid,) = [e for e in events_of(game, "payment") if e.reason == "start"]
    assert "collects $100 for reaching START" in paid.text


def test_start_collect_100_when_landing_on_start():
    """START: collect $100 when landing on START."""
    game = scenario(two(ana={"position": 35}), ["roll"], dice=[[2, 3]])
    assert game.position[0] == 0
    assert game.cash[0] == 1500 + 100
    assert game.pending.phase == "post_roll"


def test_start_monopolists_collect_100_too():
    """Player reference: START pays $100 to Competitors and Monopolists alike."""
    game = scenario(ben_first(ben={"position": 38}), ["roll"], dice=[[1, 2]])
    assert game.position[0] == 1
    assert game.cash[0] == 1500 + 100


def test_start_nothing_without_reaching_start():
    """START: a move that does not reach START pays nothing."""
    game = scenario(two(ana={"position": 31}), ["roll"], dice=[[1, 2]])
    assert game.position[0] == 34  # Nob Hill
    assert game.cash[0] == 1500
    assert [e for e in events_of(game, "payment") if e.reason == "start"] == []


# -- space 30 ---------------------------------------------------------------------------------


def test_space30_sends_a_competitor_to_price_war_without_start_money():
    """Prison/Price War, decision 3: space 30 sends a Competitor straight to Price War (space 10)."""
    game = scenario(two(ana={"position": 25}), ["roll"], dice=[[2, 3]])
    assert game.position[0] == HOLD
    assert game.cash[0] == 1500  # straight there: no START money
    state = game.state.as_dict()["players"][0]
    assert (state["held"], state["held_turns"]) == (True, 0)
    (sent,) = events_of(game, "sent_to_hold")
    assert "Price War" in sent.text
    assert game.pending.phase == "post_roll"


def test_space30_sends_a_monopolist_to_prison_without_start_money():
    """Prison/Price War, decision 3: space 30 sends a Monopolist straight to Prison."""
    game = scenario(ben_first(ben={"position": 26}), ["roll"], dice=[[1, 3]])
    assert game.position[0] == HOLD
    assert game.cash[0] == 1500
    assert game.state.held[0] == 0
    (sent,) = events_of(game, "sent_to_hold")
    assert "Prison" in sent.text
    assert "collects no rent" in sent.text


# -- income tax (decision 1) ------------------------------------------------------------------


def test_income_tax_player_chooses_between_flat_200_and_the_percentage():
    """Income Tax / decision 1: pay $200 flat or the percentage; the player chooses."""
    game = scenario(two(), ["roll"], dice=[[1, 3]])
    assert game.position[0] == 4
    assert game.pending.phase == "income_tax"
    assert game.pending.kinds == ("income_tax",)
    options = game.tax_options(0)
    assert (options.flat, options.percent) == (200, 1500 * 10 // 100)
    assert {str(c) for c in game.legal_choices()} == {"income_tax flat", "income_tax percent"}
    assert_illegal(game, "end_turn", "turn order")
    game.apply({"income_tax": "percent"})
    assert game.cash[0] == 1500 - 150
    (choice,) = events_of(game, "income_tax_choice")
    assert "$150 instead of $200" in choice.text
    assert "the cheaper option" in choice.text


def test_decision1_player_may_choose_the_dearer_option():
    """Decision 1: the choice is the player's, even the dearer one; both amounts are shown."""
    game = scenario(two(), ["roll", {"income_tax": "flat"}], dice=[[1, 3]])
    assert game.cash[0] == 1500 - 200
    text = events_of(game, "income_tax_choice")[0].text
    assert "$200 instead of $150" in text
    assert "not the cheaper option" in text


def test_decision1_an_unknown_income_tax_option_is_illegal():
    """Decision 1: income tax is paid flat or as the percentage, nothing else."""
    game = scenario(two(), ["roll"], dice=[[1, 3]])
    assert_illegal(game, {"income_tax": "half"}, "decision 1")


def test_income_tax_competitor_pays_10_percent_of_cash_property_and_improvements():
    """Income Tax: Competitors: 10% cash + 10% property + 10% improvements (mortgaged excluded)."""
    titles = {"Rush St.": {"houses": 2}, "U.S. Railroad": {}, "Wall St.": {"mortgaged": True}}
    game = scenario(two(ana={"cash": 1000, "titles": titles}), ["roll"], dice=[[1, 3]])
    options = game.tax_options(0)
    assert (options.cash, options.property, options.improvements) == (1000, 140 + 200, 2 * 100)
    assert options.percent == 1000 // 10 + 340 // 10 + 200 // 10  # 100 + 34 + 20
    game.apply({"income_tax": "percent"})
    assert game.cash[0] == 1000 - 154


def test_income_tax_monopolist_pays_20_percent_of_cash_10_of_property_and_improvements():
    """Income Tax: Monopolists: 20% cash + 10% property + 10% improvements."""
    titles = {"Rush St.": {"houses": 1}, "State St.": {}}
    game = scenario(ben_first(ben={"cash": 1000, "titles": titles}), ["roll"], dice=[[1, 3]])
    options = game.tax_options(0)
    assert options.rates == (20, 10, 10)
    assert options.percent == 1000 * 20 // 100 + 280 // 10 + 100 // 10  # 200 + 28 + 10
    assert options.cheaper == "flat"
    game.apply({"income_tax": "flat"})
    assert game.cash[0] == 1000 - 200


@pytest.mark.parametrize(
    ("role", "improvements"),
    [("competitor", 5 * 100), ("monopolist", 4 * 100)],
)
def test_decision6_apartment_improvements_count_what_was_paid(role, improvements):
    """Decisions 1/6: an apartment's improvements are 5 (Competitor) or 4 (Monopolist) house prices."""
    player = {"name": "P", "role": role, "cash": 0, "titles": {"Rush St.": {"apartment": True}}}
    if role == "monopolist":
        player["titles"]["State St."] = {}
    other = {"name": "Q", "role": "monopolist" if role == "competitor" else "competitor"}
    game = scenario([player, other])
    options = game.tax_options(0)
    assert options.improvements == improvements
    assert options.percent == (options.property + improvements) // 10


@pytest.mark.parametrize(("cash", "percent"), [(1505, 151), (1504, 150), (1495, 150)])
def test_decision1_percentage_is_whole_dollars_rounded_half_up(cash, percent):
    """Decision 1: whole dollars, rounded half up (10 % of 1505 is 150.5 -> 151)."""
    game = scenario(two(ana={"cash": cash}))
    assert game.tax_options(0).percent == percent


# -- property tax -----------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["competitor", "monopolist"])
def test_property_tax_everyone_pays_75(role):
    """Property Tax: everyone pays $75."""
    players = two(ana={"position": 35}) if role == "competitor" else ben_first(ben={"position": 35})
    game = scenario(players, ["roll"], dice=[[1, 2]])
    assert game.position[0] == 38
    assert game.cash[0] == 1500 - 75
    assert game.state.treasury == 75
    (paid,) = events_of(game, "payment")
    assert "$75 property tax" in paid.text


# -- the Anti-Monopoly Foundation --------------------------------------------------------------


@pytest.mark.parametrize(("face", "prize"), [(1, 25), (2, 50), (3, 0), (4, 0), (5, 0), (6, 0)])
def test_foundation_competitor_rolls_one_die(face, prize):
    """Foundation: Competitors roll 1 die: 1 collects $25, 2 collects $50, otherwise nothing."""
    game = scenario(two(ana={"position": 15}), ["roll"], dice=[[2, 3], [face]])
    assert game.position[0] == 20
    assert game.cash[0] == 1500 + prize
    throw = [e for e in events_of(game, "dice") if e.purpose == "foundation"]
    assert [e.dice for e in throw] == [(face,)]
    assert "one die at the Foundation" in throw[0].text
    grants = [e for e in events_of(game, "payment") if e.reason == "foundation_grant"]
    assert [e.amount for e in grants] == ([prize] if prize else [])


def test_foundation_monopolist_pays_10():
    """Foundation: Monopolists pay $10 (the specification; decisions table default)."""
    game = scenario(ben_first(ben={"position": 15}), ["roll"], dice=[[2, 3]])
    assert game.position[0] == 20
    assert game.cash[0] == 1500 - 10
    assert game.state.treasury == 10
    assert "Monopolists pay a fee" in events_of(game, "payment")[0].text
    assert [e for e in events_of(game, "dice") if e.purpose == "foundation"] == []


# -- cards (decision 10) ----------------------------------------------------------------------


def test_card_space_each_role_draws_from_its_own_deck():
    """Card spaces / decision 10: each role draws from its own deck."""
    game = scenario(
        two(),
        ["roll", "end_turn", "roll"],
        dice=[[3, 4], [3, 4]],
        cards={"competitor": ["C1"], "monopolist": ["M13"]},
    )
    assert [e.card for e in events_of(game, "card")] == ["C1", "M13"]
    assert game.cash == [1500 + 25, 1500 + 25]
    assert "draws a Competitor card" in events_of(game, "card")[0].text
    assert "draws a Monopolist card" in events_of(game, "card")[1].text


def test_decision10_the_card_goes_to_the_bottom_of_its_deck():
    """Card spaces / decision 10: obey the card and return it to the bottom of the deck."""
    game = scenario(
        two(), ["roll", "roll"], dice=[[1, 1], [2, 3]], cards={"competitor": ["C1", "C3"]}
    )
    # 0 -> 2 (card C1, +25) with doubles, then 2 -> 7 (card C3, +50)
    assert [e.card for e in events_of(game, "card")] == ["C1", "C3"]
    assert game.cash[0] == 1500 + 25 + 50
    deck = list(game.state.decks[0])
    assert len(deck) == 25
    assert deck[-2:] == ["C1", "C3"]
    assert "C1" not in deck[:-2]


COLLECT_AND_PAY = [
    ("competitor", "C1", +25),
    ("competitor", "C2", +25),
    ("competitor", "C3", +50),
    ("competitor", "C4", +50),
    ("competitor", "C5", +50),
    ("competitor", "C6", +75),
    ("competitor", "C7", +75),
    ("competitor", "C20", -25),
    ("competitor", "C21", -25),
    ("competitor", "C22", -50),
    ("competitor", "C23", -50),
    ("competitor", "C24", -75),
    ("competitor", "C25", -75),
    ("monopolist", "M13", +25),
    ("monopolist", "M15", +50),
    ("monopolist", "M16", +50),
    ("monopolist", "M17", +50),
    ("monopolist", "M18", +75),
    ("monopolist", "M19", +75),
    ("monopolist", "M20", -25),
    ("monopolist", "M21", -25),
    ("monopolist", "M22", -50),
    ("monopolist", "M23", -50),
    ("monopolist", "M24", -75),
    ("monopolist", "M25", -75),
]


@pytest.mark.parametrize(("role", "card", "change"), COLLECT_AND_PAY)
def test_card_collect_and_pay_cards_move_money_with_the_treasury(role, card, change):
    """Cards (effects collect / pay): the drawer collects from or pays the Treasury."""
    game = draw(role, card)
    assert game.position[0] == 7
    assert game.cash == [1500 + change, 1500]
    assert game.state.treasury == -change
    (payment,) = [e for e in events_of(game, "payment") if e.reason == "card"]
    assert payment.amount == abs(change)
    assert "because of a card" in payment.text
    assert game.pending.phase == "post_roll"


@pytest.mark.parametrize(
    ("role", "card"),
    [("competitor", c) for c in ("C9", "C10")] + [("monopolist", m) for m in ("M1", "M2")],
)
def test_card_nothing_cards_change_nothing(role, card):
    """Cards (effect nothing): a moral victory only: no money moves and the pawn stays."""
    game = draw(role, card)
    assert game.position[0] == 7
    assert game.cash == [1500, 1500]
    assert game.state.treasury == 0
    assert game.pending.phase == "post_roll"


def test_card_c8_every_monopolist_pays_the_competitor():
    """Cards (C8, collect from each monopolist) / decision 10: each Monopolist pays the drawer."""
    game = draw("competitor", "C8", players=four())
    assert game.cash == [1500 + 2 * 25, 1500 - 25, 1500, 1500 - 25]
    payers = [e.payer for e in events_of(game, "payment") if e.reason == "card"]
    assert payers == [1, 3]


def test_card_m12_every_competitor_pays_the_monopolist():
    """Cards (M12, collect from each competitor) / decision 10: each Competitor pays the drawer."""
    players = four()
    players = [players[1], players[0], players[3], players[2]]  # Ben, Ana, Dee, Cy
    game = draw("monopolist", "M12", players=players)
    assert [game.cash[game.names.index(n)] for n in ("Ben", "Ana", "Dee", "Cy")] == [
        1500 + 2 * 25,
        1500 - 25,
        1500,
        1500 - 25,
    ]


def test_card_m14_every_monopolist_collects():
    """Cards (M14, all monopolists collect): every Monopolist, the drawer included, collects 25."""
    players = four()
    players = [players[1], players[0], players[3], players[2]]  # Ben, Ana, Dee, Cy
    game = draw("monopolist", "M14", players=players)
    assert [game.cash[game.names.index(n)] for n in ("Ben", "Ana", "Dee", "Cy")] == [
        1500 + 25,
        1500,
        1500 + 25,
        1500,
    ]
    assert game.state.treasury == -50


def test_decision10_collect_from_each_uses_the_debt_rules():
    """Decision 10: a 'collect from each' card makes each pay with the debt rules (raise money)."""
    players = four(Ben={"cash": 10, "titles": {"Rush St.": {}}})
    game = draw("competitor", "C8", players=players)
    assert game.pending.player == 1
    assert game.pending.phase == "raise"
    assert "must sell buildings or mortgage" in events_of(game, "must_raise")[0].text
    game.apply({"mortgage": "Rush St."})
    assert game.cash == [1500 + 25 + 25, 10 + 70 - 25, 1500, 1500 - 25]
    assert game.pending.player == 0
    assert game.pending.phase == "post_roll"


def test_decision10_collect_from_each_can_bankrupt_a_payer_to_the_drawer():
    """Decision 10 / rule 24: a payer who cannot pay is bankrupt to the drawer of the card."""
    players = four(Ben={"cash": 10})
    game = draw("competitor", "C8", players=players)
    assert game.bankrupt == [False, True, False, False]
    assert game.cash == [1500 + 10 + 25, 0, 1500, 1500 - 25]
    assert not game.over


@pytest.mark.parametrize(("role", "card"), [("competitor", "C12"), ("monopolist", "M4")])
def test_decision10_moving_back_past_start_moves_forward_and_collects_start(role, card):
    """Decision 10 / table: move cards go forward; passing START pays it; the target is a landing."""
    game = draw(role, card)
    assert game.position[0] == 3  # French Quarter, reached by going round past START
    assert game.cash[0] == 1500 + 100
    assert game.pending.phase == "buy"
    game.apply("buy")
    assert game.cash[0] == 1500 + 100 - 60
    assert game.owner[3] == 0
    moved = [e for e in events_of(game, "moved") if e.by == "card"]
    assert [(e.start, e.end) for e in moved] == [(7, 3)]
    assert "on a card's orders" in moved[0].text


@pytest.mark.parametrize(("role", "card"), [("competitor", "C13"), ("monopolist", "M5")])
def test_decision10_move_to_pennsylvania_ave_offers_it_for_sale(role, card):
    """Decision 10: 'go to Pennsylvania Ave.' moves forward without START and resolves the landing."""
    game = draw(role, card)
    assert game.position[0] == 29
    assert game.cash[0] == 1500
    assert game.pending.phase == "buy"


def test_decision10_move_to_an_owned_utility_charges_rent():
    """Decision 10: 'go to the Electric Company' then pays rent as a landing (4 x the throw 3+4)."""
    game = draw("competitor", "C11", players=two(ben={"titles": {"U.S. Electric Company": {}}}))
    assert game.position[0] == 12
    assert game.cash == [1500 - 4 * 7, 1500 + 4 * 7]


def test_decision10_monopolist_moved_to_competitors_electric_company_pays_rent():
    """Decision 10 (M3): the Monopolist's move card resolves the landing too."""
    game = draw(
        "monopolist", "M3", players=ben_first(ana={"titles": {"U.S. Electric Company": {}}})
    )
    assert game.position[0] == 12
    assert game.cash == [1500 - 4 * 7, 1500 + 4 * 7]


@pytest.mark.parametrize(
    ("role", "card", "owner_titles", "fare"),
    [
        ("competitor", "C14", {"U.S. Railroad": {}}, 40),
        ("monopolist", "M6", {"U.S. Railroad": {}}, 20),
    ],
)
def test_decision10_move_to_the_railroad_passes_start_and_pays_the_fare(
    role, card, owner_titles, fare
):
    """Decision 10: from space 7 the Railroad (5) is reached going round: START, then the fare."""
    players = (
        two(ben={"titles": owner_titles})
        if role == "competitor"
        else ben_first(ana={"titles": owner_titles})
    )
    game = draw(role, card, players=players)
    assert game.position[0] == 5
    assert game.cash == [1500 + 100 - fare, 1500 + fare]


@pytest.mark.parametrize(
    ("role", "card"),
    [("competitor", "C15"), ("competitor", "C16"), ("monopolist", "M7"), ("monopolist", "M8")],
)
def test_decision10_go_to_start_collects_start_money_once(role, card):
    """Cards (move to START): the pawn lands on START and collects $100 once."""
    players = two(ana={"position": 29}) if role == "competitor" else ben_first(ben={"position": 29})
    game = draw(role, card, players=players)
    assert game.position[0] == 0
    assert game.cash[0] == 1500 + 100
    assert len([e for e in events_of(game, "payment") if e.reason == "start"]) == 1


@pytest.mark.parametrize(
    ("role", "card", "hold"),
    [
        ("competitor", "C17", "Price War"),
        ("competitor", "C18", "Price War"),
        ("monopolist", "M9", "Prison"),
        ("monopolist", "M10", "Prison"),
    ],
)
def test_decision3_a_card_sends_straight_to_the_hold_without_start_money(role, card, hold):
    """Decision 3: sent by a card: straight to space 10, no START money, held."""
    players = two(ana={"position": 29}) if role == "competitor" else ben_first(ben={"position": 29})
    game = draw(role, card, players=players)
    assert game.position[0] == HOLD
    assert game.cash[0] == 1500
    assert game.state.held[0] == 0
    (sent,) = events_of(game, "sent_to_hold")
    assert hold in sent.text
    assert "by a card" in sent.text


@pytest.mark.parametrize(
    ("role", "card", "throw", "prize"),
    [
        ("competitor", "C19", [5, 5], 75),
        ("competitor", "C19", [4, 6], 75),
        ("competitor", "C19", [4, 5], 0),
        ("monopolist", "M11", [4, 4], 75),
        ("monopolist", "M11", [2, 6], 75),
        ("monopolist", "M11", [3, 4], 0),
    ],
)
def test_decision10_throw_the_dice_cards_pay_on_reaching_the_threshold(role, card, throw, prize):
    """Decision 10: 'throw the dice' cards throw two dice and pay on reaching the threshold
    (C19: 10 or more, M11: 8 or more)."""
    game = draw(role, card, more_dice=[throw])
    assert game.cash[0] == 1500 + prize
    assert game.position[0] == 7
    card_throws = [e.dice for e in events_of(game, "dice") if e.purpose == "card"]
    assert card_throws == [tuple(throw)]
    # the card's throw moves nobody and grants no extra throw, even as doubles
    assert game.pending.phase == "post_roll"
