"""The dashboard's analysis tabs: landing odds, returns on titles, taxes, inequality and
fairness. Each page shows the tool's own numbers (amteach.analysis) as charts, with a sentence
under each chart that reads it for students. Pages are built when first opened."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..analysis import fairness, inequality, returns, taxes
from ..analysis.landing import landing_figure, landing_table, reading_landing
from ..analysis.rules_table import parameter_label, parameter_words
from ..engine.errors import AmteachError, InputError
from ..engine.rule_input import parse_sweep_values
from ..engine.rules import RuleSet
from ..render import html_text
from ..session import Session
from ..sim import sweep as sweeps
from .batch import BatchPanel, chart_widgets, on_kernel_thread
from .what_if import WhatIfPanel

INTRO_STYLE = "max-width:900px"


def _intro(text: str) -> widgets.HTML:
    return widgets.HTML(f"<p style='{INTRO_STYLE}'>{text}</p>")


def landing_page() -> widgets.Widget:
    """Landing odds per space and role, from the Markov chain, for either way of leaving
    Prison / Price War."""
    table = landing_table()
    policy = widgets.ToggleButtons(
        options=[("Pay the fine at once", "pay"), ("Stay and try for doubles", "doubles")],
        value="pay",
        description="Held players",
        style={"button_width": "auto", "description_width": "auto"},
    )
    charts = widgets.VBox()

    def show(_: Any = None) -> None:
        charts.children = chart_widgets(
            [(landing_figure(table, policy.value), reading_landing(table, policy.value))]
        )

    policy.observe(show, names="value")
    show()
    return widgets.VBox(
        [
            _intro(
                "Where does a pawn land in the long run? A Markov chain follows one pawn from "
                "throw to throw, with the dice, the moving cards and the Go to Prison / Price "
                "War corner. These are its exact long-run odds; a test checks them against a "
                "million throws of the game itself."
            ),
            policy,
            charts,
        ]
    )


def inequality_charts(rounds: Any, lorenz_rounds: tuple[int, ...]) -> list[tuple[Any, str]]:
    """Gini over rounds, the gap between the roles, and Lorenz curves, each with its reading."""
    gini_frame = inequality.gini_by_round(rounds)
    gap_frame = inequality.role_gap_by_round(rounds)
    reached = sorted(set(lorenz_rounds) & set(rounds["round"].unique()))
    charts = [
        (inequality.gini_figure(gini_frame), inequality.reading_gini(gini_frame)),
        (inequality.role_gap_figure(gap_frame), inequality.reading_role_gap(gap_frame)),
    ]
    if reached:
        curves = inequality.lorenz_at_rounds(rounds, at=reached)
        charts.append((inequality.lorenz_figure(curves), inequality.reading_lorenz(curves)))
    return charts


def inequality_page(session: Session) -> widgets.Widget:
    """Inequality in the game on the Play tab, and over a batch of bot games."""
    this_game = widgets.Button(
        description="Show the Play tab's game",
        button_style="info",
        tooltip="the charts below for the game on the Play tab, as it stands now",
        layout=widgets.Layout(width="auto"),
    )
    game_charts = widgets.VBox()

    def show_game(_: Any = None) -> None:
        try:
            history = inequality.wealth_history(session.game, session.seat_controllers)
        except AmteachError as err:  # said on the page, never a silent failure
            game_charts.children = [widgets.HTML(html_text("<p style='color:#b00020'>{}</p>", err))]
            return
        last = int(history["round"].max())  # the round in progress counts
        if last < 2:
            game_charts.children = [
                widgets.HTML("<p>Play at least one whole round on the Play tab first.</p>")
            ]
            return
        game_charts.children = chart_widgets(
            inequality_charts(history, (0, max(1, last // 2), last))
        )

    this_game.on_click(show_game)
    batch = BatchPanel(
        "<p><b>Many games.</b> Investor bots, two Competitors and two Monopolists. The same "
        "seed plays the same games; try another for a sample of your own.</p>",
        lambda result: inequality_charts(result.rounds, (0, 10, 25, 50)),
        default_games=200,
    )
    return widgets.VBox(
        [
            _intro(
                "How unequal does the game make the players? The <b>Gini coefficient</b> is 0 "
                "when everyone holds the same wealth and close to 1 when one player holds "
                "everything. A <b>Lorenz curve</b> shows what share of all wealth the poorest "
                "players hold; the further it sags below the diagonal, the more unequal."
            ),
            widgets.HTML("<p><b>One game.</b></p>"),
            this_game,
            game_charts,
            batch.widget,
        ]
    )


RETURN_COLUMNS = {
    "name": "title",
    "owner_role": "owner",
    "level": "level",
    "holding": "titles held",
    "invested": "cost of the titles held ($)",
    "rent": "rent per landing on this title ($)",
    "holding_rent": "rent per landing, every title held ($)",
    "rent_per_round": "rent per round, every title held ($)",
    "payback_rounds": "rounds to pay back",
}
# a Monopolist's city rows hold more than one street: say so above the table, so that a cost
# of both streets beside one street's rent does not make the payback look wrong
RETURNS_TABLE_NOTE = (
    "Each row is a holding: the titles the owner needs for that rent (a Monopolist's "
    '"monopolized city" rows hold the other street of the city too). The cost, the rent per '
    "round and the rounds to pay back count every title held; the rent per landing is given "
    "for this title and for every title held."
)


def returns_table_html(frame: Any, players: int, owner_role: str | None) -> str:
    """The Returns tab's table of every title at every level, with the note on holdings."""
    rows = frame[frame["players"] == players]
    if owner_role:
        rows = rows[rows["owner_role"] == owner_role]
    shown = rows.sort_values(["space", "owner_role", "level_order"])[list(RETURN_COLUMNS)]
    shown = shown.rename(columns=RETURN_COLUMNS).round(
        {
            "rent per round, every title held ($)": 2,
            "rounds to pay back": 1,
            "rent per landing on this title ($)": 2,
            "rent per landing, every title held ($)": 2,
        }
    )
    return str(html_text("<p>{}</p>", RETURNS_TABLE_NOTE)) + shown.to_html(
        index=False, border=0, classes="am-table"
    )


def returns_page() -> widgets.Widget:
    """Returns on titles: cost, rent and payback, by owner role and number of players."""
    frame = returns.title_returns()
    players = widgets.IntSlider(value=4, min=2, max=6, description="Players")
    owner = widgets.ToggleButtons(
        options=[
            ("Both roles", ""),
            ("Competitor owner", "competitor"),
            ("Monopolist owner", "monopolist"),
        ],
        value="",
    )
    charts = widgets.VBox()
    table = widgets.HTML()

    def show(_: Any = None) -> None:
        role = owner.value or None
        charts.children = chart_widgets(
            [
                (
                    returns.returns_figure(frame, players.value, role),
                    returns.reading_returns(frame, players.value, role),
                )
            ]
        )
        table.value = returns_table_html(frame, players.value, role)

    players.observe(show, names="value")
    owner.observe(show, names="value")
    show()
    details = widgets.Accordion(children=[table], titles=("Every title at every level",))
    details.selected_index = None
    return widgets.VBox(
        [
            _intro(
                "Which titles pay? For every title: what it costs with its buildings, one "
                "landing's rent, the rent it can expect each round from the other players' "
                "throws (landing odds × rent), and how many rounds it takes to pay for itself. "
                "The rents are the game engine's own answers for each owner's role."
            ),
            widgets.HBox([players, owner]),
            charts,
            details,
        ]
    )


# one seat of each role for every tax behaviour, so one batch compares them all
TAX_SEATS = ",".join(
    f"{role}:investor:{tax}"
    for tax in taxes.TAX_BEHAVIOURS
    for role in ("competitor", "monopolist")
)


def taxes_page() -> widgets.Widget:
    """Flat or percentage income tax: each role's break-even, and what bots chose."""
    break_even = taxes.tax_break_even()

    def show(result: Any) -> list[tuple[Any, str]]:
        summary = taxes.tax_choice_summary(result)
        return [(taxes.tax_choice_figure(summary), taxes.reading_tax_choice(summary))]

    batch = BatchPanel(
        "<p><b>What do players choose?</b> Six investor bots: for each role, one always "
        "takes the cheaper option, one always pays flat and one always pays the percentage.</p>",
        show,
        default_games=200,
        seats=TAX_SEATS,
        seed=2,
    )
    return widgets.VBox(
        [
            _intro(
                "At Income Tax a player pays either a flat amount or a percentage of what they "
                "own, and the percentage differs by role. Below the break-even the percentage "
                "is cheaper; above it the flat amount is."
            ),
            *chart_widgets(
                [(taxes.tax_break_even_figure(), taxes.reading_tax_break_even(break_even))]
            ),
            batch.widget,
        ]
    )


# the most values one sweep on the page may try (its games are the number per value)
MAX_SWEEP_VALUES = 8
# the bots of "What does market structure do?"
STRUCTURE_BOT = "investor"
# each bot plays both roles, so a batch compares roles, seats and bots at once
FAIRNESS_SEATS = "competitor:investor,monopolist:builder,competitor:builder,monopolist:investor"


def sweepable_parameters() -> list[str]:
    """Rule parameters a sweep can vary from the dashboard: the whole numbers."""
    values = RuleSet.preset("default").to_dict()
    return sorted(
        name
        for name, value in values.items()
        if isinstance(value, int) and not isinstance(value, bool) and name != "round_cap"
    )


def say_estimate(panel: BatchPanel, seconds: float, total_games: int) -> None:
    """Before a long batch starts, say how long it should take."""
    if seconds > sweeps.LONG_SWEEP_SECONDS:
        message = html_text("{}", sweeps.estimate_message(total_games, seconds))
        on_kernel_thread(lambda: setattr(panel.status, "value", message))


def fairness_page() -> widgets.Widget:
    """Is the game fair? Win rates by role, seat and bot; a rule sweep; the two presets; and
    the counterfactual of one role only."""

    win_rates = BatchPanel(
        "<p><b>Who wins, by role, by seat and by bot?</b> Two investor and two builder bots; "
        "each bot plays once as a Competitor and once as a Monopolist.</p>",
        lambda result: [
            (fairness.win_rates_figure(result, by), fairness.reading_win_rates(result, by))
            for by in ("role", "seat", "bot")
        ],
        default_games=200,
        seats=FAIRNESS_SEATS,
        seed=3,
    )

    parameter = widgets.Dropdown(
        options=[(parameter_label(name), name) for name in sweepable_parameters()],
        value="foundation_monopolist_fee",
        description="Rule",
        layout=widgets.Layout(width="560px"),
    )
    values = widgets.Text(
        value="10, 85, 160",
        description="Values",
        placeholder="e.g. 10, 85, 160",
        layout=widgets.Layout(width="420px"),
    )

    def run_sweep(games: int, preset: str, seed: int, on_progress: Any) -> Any:
        name = parameter.value
        try:
            name, chosen = parse_sweep_values((f"{name}={values.value}",), "Values")
            if len(chosen) > MAX_SWEEP_VALUES:  # a visitor's sweep shares the server's cores
                raise InputError(
                    f"a sweep on this page tries at most {MAX_SWEEP_VALUES} values, "
                    f"not {len(chosen)}"
                )
            return sweeps.sweep(
                name,
                chosen,
                games=games,
                seats=rule_sweep.seats,
                rules=preset,
                seed=seed,
                progress=False,
                on_progress=on_progress,
                on_estimate=lambda seconds, total: say_estimate(rule_sweep, seconds, total),
            )
        except InputError as err:  # said with the rule's words, as the page names it
            words = err.reason.replace(name, parameter_words(name))
            raise InputError(f"{parameter_label(name)}: {words}") from None

    rule_sweep = BatchPanel(
        "<p><b>Change one rule.</b> Play the same games for several values of one rule "
        "and see how the win rates move. Games is the number per value.</p>",
        lambda frame: [(fairness.sweep_figure(frame), fairness.reading_sweep(frame))],
        default_games=200,
        seats=FAIRNESS_SEATS,
        seed=3,
        run=run_sweep,
        controls=[widgets.HBox([parameter, values])],
        max_games=2000,
    )

    def run_presets(games: int, preset: str, seed: int, on_progress: Any) -> Any:
        return sweeps.compare_presets(
            games=games,
            seats=presets.seats,
            seed=seed,
            progress=False,
            on_progress=on_progress,
            on_estimate=lambda seconds, total: say_estimate(presets, seconds, total),
        )

    presets = BatchPanel(
        "<p><b>The two rule sets.</b> The publisher says the prices were balanced by "
        "probability and simulation. Test it: the same games under the <i>default</i> rules "
        "and under <i>edition-2005</i>, whose only change is the Monopolists' fee at the "
        "Foundation ($160 instead of $10; see the Rules tab).</p>",
        lambda frame: [(fairness.sweep_figure(frame), fairness.reading_sweep(frame))],
        default_games=200,
        seats=FAIRNESS_SEATS,
        seed=3,
        run=run_presets,
        max_games=2000,
        rules=False,
    )

    def run_structures(games: int, preset: str, seed: int, on_progress: Any) -> Any:
        return fairness.market_structures(
            games=games,
            bot=STRUCTURE_BOT,
            rules=preset,
            seed=seed,
            progress=False,
            on_progress=on_progress,
        )

    structures = BatchPanel(
        "<p><b>What does market structure do?</b> The same board with every player a "
        "Competitor, the usual mix, and every player a Monopolist (investor bots): rents, "
        "game length and inequality. A table of one role is not a real game, since the rules "
        "need both roles at the table; it is allowed here as a thought experiment.</p>",
        lambda frame: [
            (
                fairness.market_structures_figure(frame),
                fairness.reading_market_structures(frame),
            )
        ],
        default_games=100,
        seats=",".join(fairness.structure_seats("mixed", 4, STRUCTURE_BOT)),
        seed=3,
        run=run_structures,
        max_games=2000,
    )
    structures.bot = STRUCTURE_BOT
    return widgets.VBox(
        [
            _intro(
                "Is Anti-Monopoly fair? Each batch of bot games gives win rates with a "
                "<b>95% interval</b>: the range of rates that fits the games played (more "
                "games, a narrower range). The sentence under each chart then asks the right "
                "question. <i>Does a role (or a seat, or a bot) win its fair share?</i> Its "
                "wins are tested against the share an even game would give it (an exact "
                "binomial test). <i>Did a rule change move a win rate?</i> The two batches are "
                "compared by an interval for the difference (Newcombe's method): if it leaves "
                "out 0, the change is more than luck would explain. Two groups of the same "
                "batch are not compared with each other, and whether two intervals overlap is "
                "not a test. Each panel starts at the seed the lessons use; a pair can type "
                "another seed, or press New seed, for a sample of their own."
            ),
            win_rates.widget,
            rule_sweep.widget,
            presets.widget,
            structures.widget,
            WhatIfPanel().widget,
        ]
    )
