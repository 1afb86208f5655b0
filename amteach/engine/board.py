"""The board and the cards, read from package data and validated once.

Every figure lives in `amteach/data/*.csv`; this module only gives them types and
precomputes the rent ladders the engine reads on every landing.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .errors import DataError

KINDS = ("corner", "street", "card", "tax", "transport", "utility")
TITLE_KINDS = ("street", "transport", "utility")
ROLES = ("competitor", "monopolist")
COMPETITOR, MONOPOLIST = 0, 1

CARD_EFFECTS = {
    "collect": ("amount",),
    "pay": ("amount",),
    "collect_from_each_monopolist": ("amount",),
    "collect_from_each_competitor": ("amount",),
    "all_monopolists_collect": ("amount",),
    "nothing": (),
    "move_to": ("target",),
    "go_to_price_war": ("target",),
    "go_to_prison": ("target",),
    "roll_for": ("amount", "target"),
}

_STREET_COLUMNS = (
    "price",
    "house_cost",
    "mortgage",
    "redeem",
    "c_rent_0",
    "c_rent_1",
    "c_rent_2",
    "c_rent_3",
    "c_rent_4",
    "c_rent_apartment",
    "m_rent_single",
    "m_rent_two_owned",
    "m_rent_1",
    "m_rent_2",
    "m_rent_3",
    "m_rent_apartment",
)


@dataclass(frozen=True, slots=True)
class Space:
    """One of the 40 spaces. Rent ladders are empty for spaces that are not streets.

    `competitor_rents[k]` is the rent with k houses; its last entry is the apartment.
    `monopolist_rents` is (single street, monopolized bare, 1 house, ..., apartment).
    """

    index: int
    name: str
    kind: str
    city: str
    price: int
    house_cost: int
    mortgage: int
    redeem: int
    competitor_rents: tuple[int, ...]
    monopolist_rents: tuple[int, ...]

    @property
    def is_title(self) -> bool:
        return self.kind in TITLE_KINDS


@dataclass(frozen=True, slots=True)
class Card:
    """A card's effect (figures from data) and the text shown to players (our own words)."""

    id: str
    deck: int
    effect: str
    amount: int
    target: int
    text: str


@dataclass(frozen=True, slots=True, eq=False)
class Board:
    """The spaces and cards. Compared and hashed by identity: one board object per data set."""

    spaces: tuple[Space, ...]
    cards: tuple[Card, ...]
    cities: dict[str, tuple[int, ...]]
    transports: tuple[int, ...]
    utilities: tuple[int, ...]
    titles: tuple[int, ...]
    streets: tuple[int, ...]
    income_tax_space: int
    property_tax_space: int
    hold_space: int
    go_to_hold_space: int
    foundation_space: int

    def space(self, key: int | str) -> Space:
        """A space by index or by its board name (case and surrounding spaces ignored)."""
        if isinstance(key, int) and not isinstance(key, bool):
            if 0 <= key < len(self.spaces):
                return self.spaces[key]
            raise KeyError(f"there is no space {key}; spaces are numbered 0 to 39")
        wanted = str(key).strip().casefold()
        for space in self.spaces:
            if space.name.casefold() == wanted:
                return space
        if wanted.isascii() and wanted.isdigit():  # "12"; not "²" or "٣", which int() misreads
            return self.space(int(wanted))
        raise KeyError(f"there is no space called {key!r}")

    def card(self, card_id: str) -> Card:
        for card in self.cards:
            if card.id == card_id:
                return card
        raise KeyError(f"there is no card {card_id!r}; ids run C1..C25 and M1..M25")

    def deck(self, role: int) -> tuple[Card, ...]:
        return tuple(card for card in self.cards if card.deck == role)


def _read_csv(name: str) -> list[dict[str, str]]:
    text = resources.files("amteach.data").joinpath(name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def _int(row: dict[str, str], column: str, source: str, line: int) -> int:
    raw = (row.get(column) or "").strip()
    try:
        return int(raw)
    except ValueError:
        raise DataError(
            f"expected a whole number, found {raw!r}", source, f"row {line}, column {column}"
        ) from None


def parse_board(rows: list[dict[str, str]], source: str = "board.csv") -> list[Space]:
    """Validate board rows (as read by csv.DictReader) into spaces."""
    if len(rows) != 40:
        raise DataError(f"expected 40 spaces, found {len(rows)}", source, "index")
    spaces = []
    for line, row in enumerate(rows, start=2):
        index = _int(row, "index", source, line)
        if index != line - 2:
            raise DataError(f"spaces must be in play order; expected {line - 2}", source, "index")
        kind = (row.get("kind") or "").strip()
        if kind not in KINDS:
            raise DataError(f"unknown kind {kind!r}; valid: {', '.join(KINDS)}", source, "kind")
        name = (row.get("name") or "").strip()
        if not name:
            raise DataError("a space needs a name", source, f"row {line}, column name")
        city = (row.get("city") or "").strip()
        price = house_cost = mortgage = redeem = 0
        c_rents: tuple[int, ...] = ()
        m_rents: tuple[int, ...] = ()
        if kind in TITLE_KINDS:
            price, mortgage, redeem = (
                _int(row, c, source, line) for c in ("price", "mortgage", "redeem")
            )
        if kind == "street":
            if not city:
                raise DataError("a street needs a city", source, f"row {line}, column city")
            values = {c: _int(row, c, source, line) for c in _STREET_COLUMNS}
            house_cost = values["house_cost"]
            c_rents = (*(values[f"c_rent_{k}"] for k in range(5)), values["c_rent_apartment"])
            m_rents = (
                values["m_rent_single"],
                values["m_rent_two_owned"],
                values["m_rent_1"],
                values["m_rent_2"],
                values["m_rent_3"],
                values["m_rent_apartment"],
            )
            if any(v < 0 for v in values.values()):
                raise DataError("figures cannot be negative", source, f"row {line}")
        spaces.append(
            Space(index, name, kind, city, price, house_cost, mortgage, redeem, c_rents, m_rents)
        )
    return spaces


def parse_cards(
    rows: list[dict[str, str]],
    texts: dict[str, str],
    spaces: list[Space],
    source: str = "cards.csv",
) -> list[Card]:
    cards = []
    seen = set()
    for line, row in enumerate(rows, start=2):
        card_id = (row.get("id") or "").strip()
        deck_name = (row.get("deck") or "").strip()
        if deck_name not in ROLES:
            raise DataError(
                f"deck must be one of {', '.join(ROLES)}", source, f"row {line}, column deck"
            )
        effect = (row.get("effect") or "").strip()
        if effect not in CARD_EFFECTS:
            raise DataError(
                f"unknown effect {effect!r}; valid: {', '.join(CARD_EFFECTS)}",
                source,
                f"row {line}, column effect",
            )
        needs = CARD_EFFECTS[effect]
        amount = _int(row, "amount", source, line) if "amount" in needs else 0
        target = _int(row, "target", source, line) if "target" in needs else 0
        if not 0 <= target < len(spaces):
            raise DataError(
                "target must be a space index 0..39", source, f"row {line}, column target"
            )
        if card_id in seen or not card_id:
            raise DataError(f"card id {card_id!r} is missing or repeated", source, f"row {line}")
        seen.add(card_id)
        if card_id not in texts:
            raise DataError(f"card {card_id} has no text", "card_texts.csv", "id")
        text = texts[card_id].format(
            amount=amount,
            target=spaces[target].name,
            threshold=target,
        )
        cards.append(Card(card_id, ROLES.index(deck_name), effect, amount, target, text))
    for role in (COMPETITOR, MONOPOLIST):
        count = sum(card.deck == role for card in cards)
        if count != 25:
            raise DataError(
                f"the {ROLES[role]} deck has {count} cards, expected 25", source, "deck"
            )
    return cards


def build_board(spaces: list[Space], cards: list[Card]) -> Board:
    def only(kind: str, name_part: str) -> int:
        found = [s.index for s in spaces if s.kind == kind and name_part in s.name]
        if len(found) != 1:
            raise DataError(
                f"expected one {kind} space named like {name_part!r}", "board.csv", "name"
            )
        return found[0]

    cities: dict[str, list[int]] = {}
    for space in spaces:
        if space.kind == "street":
            cities.setdefault(space.city, []).append(space.index)
    corners = [s.index for s in spaces if s.kind == "corner"]
    if len(corners) != 4 or corners[0] != 0:
        raise DataError("the board needs four corners, START first", "board.csv", "kind")
    return Board(
        spaces=tuple(spaces),
        cards=tuple(cards),
        cities={city: tuple(members) for city, members in cities.items()},
        transports=tuple(s.index for s in spaces if s.kind == "transport"),
        utilities=tuple(s.index for s in spaces if s.kind == "utility"),
        titles=tuple(s.index for s in spaces if s.is_title),
        streets=tuple(s.index for s in spaces if s.kind == "street"),
        income_tax_space=only("tax", "Income"),
        property_tax_space=only("tax", "Property"),
        hold_space=corners[1],
        foundation_space=corners[2],
        go_to_hold_space=corners[3],
    )


@cache
def standard_board() -> Board:
    """The 2005 US board and both decks, from package data."""
    spaces = parse_board(_read_csv("board.csv"))
    texts = {row["id"]: row["text"] for row in _read_csv("card_texts.csv")}
    cards = parse_cards(_read_csv("cards.csv"), texts, spaces)
    return build_board(spaces, cards)
