"""The dashboard's Best play tab: who wins when each role plays the strongest strategy a search
found (`amteach.analysis.best_play_search`), from the runs shipped with amteach
(`amteach.analysis.best_play_results`), at a game length a teacher picks. Read from the back row: one sentence and its number in large type, the
win rates by game length, each side's strategy as a few bullets side by side, and a button
that sets up a game of best against best on the Play tab. The tournament matrix and what
matters most follow; seat codes, p-values and provenance wait in a details panel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import pandas as pd

from ..analysis import best_play_reading, best_play_results, outcomes, stats
from ..engine.board import ROLES
from ..render import html_join, html_text
from ..session import TABLE_PLAYERS, Reply, Session
from ..style import ROLE_COLOURS, ROLE_PATTERNS, ROLE_PLURALS, ROLE_SHAPES
from .batch import by_length_figure, chart_widgets

HEADLINE_LENGTH = "two-hour"  # the length the tab opens at: the game a class can play
# inline styles: they hold wherever the HTML lands (the dashboard, JupyterLab, a notebook)
HEADLINE_STYLE = "font-size:40px;line-height:1.15;font-weight:700;margin:6px 0 2px;color:#111"
BIG_STYLE = "font-size:56px;color:#1f4fb4"
CONDITION_STYLE = "font-size:18px;line-height:1.4;margin:2px 0 8px;max-width:60em"
SIDES_STYLE = "display:flex;flex-wrap:wrap;gap:16px 32px;max-width:100%;white-space:normal"
SIDE_STYLE = (
    "flex:1 1 320px;min-width:0;max-width:100%;padding-left:12px;font-size:18px;"
    "line-height:1.4;white-space:normal;border-left:6px solid {}"
)
DETAILS_STYLE = "font-size:16px;line-height:1.45;max-width:70em;white-space:normal"


def headline(result: best_play_results.BestPlayResult) -> tuple[str, str]:
    """The sentence a teacher reads aloud (its number in it as "95 of 100") and the condition
    under it: the rules, the length, the interval, and what "best" means."""
    summary = result.summary
    figures = summary.get("equilibrium") or {}
    if not figures:
        return ("The search stopped before its final games.", "")
    leader = max(ROLES, key=lambda role: figures[role]["rate"])
    row = figures[leader]
    plural = ROLE_PLURALS[ROLES.index(leader)]
    games = outcomes.short_name(int(summary["round_cap"]))
    sentence = f"{plural} win about {round(100 * row['rate'])} of 100 {games}"
    condition = (
        f"when each side plays the strongest strategy our search found for it, under the "
        f"{summary['preset']} rules, {outcomes.time_is_up(int(summary['round_cap']))}: "
        f"{100 * row['rate']:.1f}% of "
        f"{figures['games']:,} fresh games, 95% interval {100 * row['ci_low']:.1f}% to "
        f'{100 * row["ci_high"]:.1f}%. "Strongest" is within the family of strategies the '
        "search tries: one fixed strategy a side, both players of a side playing it."
    )
    if not summary.get("converged", False):
        condition += (
            " The search ran out of time before both sides stopped improving, so these are "
            "the strongest strategies it found, not yet best play."
        )
    gains = best_play_results.largest_gains(summary)
    if gains:
        parts = [
            f"the {ROLE_PLURALS[ROLES.index(role)]} "
            + (f"{_signed(row['gain'])} points" if row["gain"] > 0 else "nothing")
            + f" (95% interval {_signed(row['ci_low'])} to {_signed(row['ci_high'])})"
            for role, row in gains.items()
        ]
        condition += (
            ' So "about": the most a side was found to gain by playing otherwise is, for '
            + " and for ".join(parts)
            + "."
        )
    team = summary.get("team_play_gain")
    if team and team["ci_low"] > 0:
        condition += (
            f" Monopolists who also sell each other the street that completes a city (team "
            f"play, which this search left out) win {_signed(team['gain'])} points more (95% "
            f"interval {_signed(team['ci_low'])} to {_signed(team['ci_high'])})."
        )
    return sentence, condition


def _signed(x: float) -> str:
    return f"{100 * x:+.1f}"


def headline_html(result: best_play_results.BestPlayResult) -> str:
    """The headline in large type, its number larger still, and its condition under it."""
    sentence, condition = headline(result)
    number_at = sentence.find("about ")
    if number_at >= 0:
        end = sentence.find(" of 100") + len(" of 100")
        big = html_text(
            "{}<span class='am-big' style='{}'>{}</span>{}",
            sentence[:number_at],
            BIG_STYLE,
            sentence[number_at:end],
            sentence[end:],
        )
    else:
        big = html_text("{}", sentence)
    return html_text(
        "<div style='white-space:normal'><p class='am-headline' role='heading' aria-level='2' "
        "style='{}'>{}</p><p class='am-condition' style='{}'>{}</p></div>",
        HEADLINE_STYLE,
        big,
        CONDITION_STYLE,
        condition,
    )


def sides_html(result: best_play_results.BestPlayResult) -> str:
    """Each side's strategy as a few bullets (what matters most first), side by side, in its
    colour and shape; the boxes wrap under each other on a narrow screen."""
    blocks = []
    for index, role in enumerate(ROLES):
        blocks.append(
            html_text(
                "<div class='am-side' style='{}'><h3 style='font-size:20px;margin:4px 0'>{} {}' "
                "strategy</h3><ul style='margin:4px 0;padding-left:1.2em'>{}</ul></div>",
                SIDE_STYLE.format(ROLE_COLOURS[index]),
                ROLE_SHAPES[index],
                ROLE_PLURALS[index],
                html_join(
                    html_text("<li>{}</li>", b)
                    for b in best_play_reading.strategy_bullets(result, role)
                ),
            )
        )
    return html_text("<div class='am-sides' style='{}'>{}</div>", SIDES_STYLE, html_join(blocks))


def details_html(result: best_play_results.BestPlayResult) -> str:
    """What a curious student or a colleague asks next, in a details panel: the reading with
    its test, the presets compared, each strategy in full and as a seat, the size of
    "approximate", and where the numbers come from."""
    s = result.summary
    full = html_join(
        html_text(
            "<p><b>{} {}, in full.</b></p><ul>{}</ul><p>As a seat: <code>{}:family:{}</code></p>",
            ROLE_SHAPES[ROLES.index(role)],
            plural,
            html_join(html_text("<li>{}</li>", sentence) for sentence in sentences),
            role,
            result.strategies[role]["text"],
        )
        for role, (plural, sentences) in zip(
            ROLES, best_play_reading.strategies_words(result), strict=True
        )
    )
    approximation = ""
    check = s.get("approximation")
    if check:
        approximation = html_text(
            "<p><b>How approximate.</b> After the search, a new search (seed {}, {:,} games a "
            "candidate, {:g} minutes) looked for each side's best answer to the other's "
            "strategy, and played it against the strategy found on {:,} fresh games. {}</p>",
            check["seed"],
            check["games_per_candidate"],
            check["budget_minutes"],
            check["check_games"],
            " ".join(
                f"{ROLE_PLURALS[ROLES.index(role)]}: {100 * check[role]['final_rate']:.1f}% with "
                f"the strategy found, {100 * check[role]['best_response_rate']:.1f}% with the "
                f"best answer found, a gain of {_signed(check[role]['gain'])} points (95% "
                f"interval {_signed(check[role]['ci_low'])} to {_signed(check[role]['ci_high'])})."
                for role in ROLES
            ),
        )
    second = s.get("second_seed")
    if second:
        approximation += html_text(
            "<p><b>A second search.</b> <code>{}</code> found an equilibrium where Monopolists "
            "win {:.1f}% (this run: {:.1f}%; difference {} points, 95% interval {} to {}); its "
            "strategies differ from these on {} of the Competitors' knobs and {} of the "
            "Monopolists'. Played against this run's strategies on {:,} fresh games, its "
            "Competitors' strategy gains the Competitors {} points ({} to {}) and its "
            "Monopolists' strategy gains the Monopolists {} points ({} to {}).</p>",
            second["second_command"],
            100 * second["monopolist_rates"][1],
            100 * second["monopolist_rates"][0],
            _signed(second["difference"]),
            _signed(second["ci_low"]),
            _signed(second["ci_high"]),
            len(second["knobs_differ"][ROLES[0]]),
            len(second["knobs_differ"][ROLES[1]]),
            second["a_against_a"]["games"],
            _signed(second["competitor_gain"]["gain"]),
            _signed(second["competitor_gain"]["ci_low"]),
            _signed(second["competitor_gain"]["ci_high"]),
            _signed(second["monopolist_gain"]["gain"]),
            _signed(second["monopolist_gain"]["ci_low"]),
            _signed(second["monopolist_gain"]["ci_high"]),
        )
    team = s.get("team_play_gain")
    if team:
        approximation += html_text(
            "<p><b>Team play.</b> The same Monopolists' strategy, but selling a teammate the "
            "street that completes its city: Monopolists win {:.1f}% instead of {:.1f}% of "
            "{:,} fresh games ({} points, 95% interval {} to {}).</p>",
            100 * team["with_team_play"],
            100 * team["without"],
            team["games"],
            _signed(team["gain"]),
            _signed(team["ci_low"]),
            _signed(team["ci_high"]),
        )
    return html_text(
        "<details style='{}'><summary style='font-size:18px;cursor:pointer;font-weight:600'>"
        "Details: the test, each strategy in full, seat codes and where the numbers come "
        "from</summary><p>{}</p><p>{}</p>{}{}{}<p>{}</p></details>",
        DETAILS_STYLE,
        best_play_reading.reading_best_play(result),
        presets_sentence(s.get("length", "round-200")),
        full,
        approximation,
        provenance_html(result),
        outcomes.LENGTH_ASSUMPTIONS,
    )


def provenance_html(result: best_play_results.BestPlayResult) -> str:
    """Where the numbers come from: the command, seed, version, date and core of the run."""
    s = result.summary
    return html_text(
        "<p>From <code>{}</code> (seed {}, amteach {}, {}, {} core, a budget of {:g} minutes): "
        "{:,} candidate strategies, {:,} games, {} alternations{}.</p>",
        s["command"],
        s["seed"],
        s["version"],
        s["date"],
        s["core"],
        s["budget_minutes"],
        s["candidates"],
        s["games_played"],
        s["phases"],
        ", an approximate equilibrium" if s.get("converged") else ", stopped by its budget",
    )


def presets_sentence(length: str = "round-200") -> str:
    """The Monopolists' equilibrium win rate under default and under edition-2005, compared
    with Newcombe's interval for the difference (two separate batches of fresh games)."""
    a, b = (
        best_play_results.shipped("default", length),
        best_play_results.shipped("edition-2005", length),
    )
    change = best_play_results.compare_presets(a, b)
    return (
        "From the default rules to edition-2005, under the strongest strategies found for each: "
        + stats.difference_sentence("the Monopolists' win rate", change)
    )


def length_chart(result: best_play_results.BestPlayResult) -> tuple[Any, str] | None:
    """The run's strategies played at every game length (summary.json's `by_length`), with
    the sentence that reads it; None for a run without them."""
    rows = result.summary.get("by_length")
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    found = outcomes.short_name(int(result.summary["round_cap"]))
    figure = by_length_figure(
        frame, f"Who wins at each game length, both sides playing the strategies found for {found}"
    )
    # each length's own best play: the Monopolists' rate when both sides play the strategies
    # searched at that length (the other shipped runs of the preset)
    preset = result.summary["preset"]
    own = []
    for key in best_play_results.shipped_lengths(preset):
        run = best_play_results.shipped(preset, key)
        rounds = int(run.summary["round_cap"])
        if rounds in set(frame["rounds"]) and run.summary.get("equilibrium"):
            own.append((rounds, run.summary["equilibrium"][ROLES[1]]))
    if own:
        labels = {
            int(r): t
            for r, t in zip(sorted(frame["rounds"].unique()), figure.data[0].x, strict=True)
        }
        figure.add_scatter(
            x=[labels[r] for r, _ in own],
            y=[row["rate"] for _, row in own],
            mode="markers",
            name="Monopolists win, strategies searched at that length",
            marker={"symbol": "star", "size": 18, "color": ROLE_COLOURS[1], "line": {"width": 1}},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [row["ci_high"] - row["rate"] for _, row in own],
                "arrayminus": [row["rate"] - row["ci_low"] for _, row in own],
                "color": ROLE_COLOURS[1],
            },
            hovertemplate="%{x} rounds: best play searched at this length, Monopolists win "
            "%{y:.1%}<extra></extra>",
        )
    reading = outcomes.reading_by_length(frame)
    if own:
        reading += (
            " The stars are each length's own best play: "
            + "; ".join(f"{100 * row['rate']:.0f}% of {outcomes.short_name(r)}" for r, row in own)
            + " (Monopolists' wins when both sides play the strategies searched at that length)."
        )
    return figure, reading


def importance_figure(result: best_play_results.BestPlayResult) -> Any:
    """How much each role's win rate falls when one knob of its best strategy moves alone:
    the five knobs that matter most for each role, as bars in the role's colour and pattern."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    figure = make_subplots(
        rows=2,
        cols=1,
        subplot_titles=[f"{p} {s}" for p, s in zip(ROLE_PLURALS, ROLE_SHAPES, strict=True)],
        vertical_spacing=0.16,
    )
    for index, role in enumerate(ROLES):
        table = best_play_results.importance(result, role).head(5).iloc[::-1]
        figure.add_trace(
            go.Bar(
                x=100 * table["drop"],
                y=[best_play_reading.KNOB_WORDS[k] for k in table["knob"]],
                orientation="h",
                marker={
                    "color": ROLE_COLOURS[index],
                    "pattern": {"shape": ROLE_PATTERNS[index]},
                },
                text=[f"{100 * d:.1f}" for d in table["drop"]],
                textposition="outside",
                textfont={"size": 14},
                hovertemplate="%{y}: moving it alone costs up to %{x:.1f} points<extra></extra>",
                showlegend=False,
            ),
            row=index + 1,
            col=1,
        )
    figure.update_xaxes(
        title={"text": "win rate lost, points", "font": {"size": 14}}, tickfont={"size": 14}
    )
    figure.update_yaxes(tickfont={"size": 14}, automargin=True)
    figure.update_annotations(font={"size": 15})
    figure.update_layout(
        title={"text": "What matters most in each role's strategy", "font": {"size": 17}},
        template="plotly_white",
        height=560,
        margin={"l": 20, "r": 40, "t": 80, "b": 50},
    )
    return figure


def play_best_against_best(session: Session, result: best_play_results.BestPlayResult) -> Reply:
    """A new game on the Play tab, under the run's rules, with every seat played by its role's
    strongest strategy found (through the session's public API)."""
    preset = result.summary["preset"]
    with session.grouped():
        reply = session.new_game(preset=preset, players=TABLE_PLAYERS)
        if not reply.ok:
            return reply
        for seat, role in enumerate(session.game.roles):
            session.set_controller(seat, best_play_results.family_name(result.best(ROLES[role])))
    return Reply(
        True,
        f"Best against best is set up on the Play tab ({preset} rules): the Competitors play "
        "the Competitors' strongest strategy found, the Monopolists the Monopolists'. Press "
        "Play to watch.",
    )


def best_play_page(session: Session, show_play: Callable[[], None] | None = None) -> widgets.Widget:
    """The Best play tab: the shipped run for the rules and game length chosen, and a button
    that plays best against best on the Play tab (`show_play` switches to it)."""
    w = widgets
    preset = w.ToggleButtons(
        options=[("Default rules", "default"), ("Edition 2005", "edition-2005")],
        value="default",
        description="Rules",
        style={"button_width": "auto"},
    )
    lengths = [
        (outcomes.LENGTHS_BY_KEY[key].label, key)
        for key in best_play_results.shipped_lengths("default")
    ]
    length = w.ToggleButtons(
        options=lengths,
        value=HEADLINE_LENGTH if HEADLINE_LENGTH in dict(map(reversed, lengths)) else lengths[0][1],
        description="Game length",
        tooltip=outcomes.LENGTH_ASSUMPTIONS,
        style={"button_width": "auto", "description_width": "auto"},
        layout=w.Layout(flex_flow="row wrap"),
    )
    status = w.HTML()
    top = w.HTML()
    sides = w.HTML()
    details = w.HTML()
    length_box = w.VBox()
    charts = w.VBox()
    play = w.Button(
        description="Play best against best",
        button_style="primary",
        tooltip="a new game on the Play tab, every seat played by its role's best strategy",
        layout=w.Layout(width="260px"),
    )

    def chosen() -> best_play_results.BestPlayResult:
        key = (
            length.value
            if length.value in best_play_results.shipped_lengths(preset.value)
            else "round-200"
        )
        return best_play_results.shipped(preset.value, key)

    def show(_: Any = None) -> None:
        result = chosen()
        top.value = headline_html(result)
        sides.value = sides_html(result)
        details.value = details_html(result)
        by_length = length_chart(result)
        length_box.children = chart_widgets([by_length]) if by_length is not None else []
        charts.children = chart_widgets(
            [
                (
                    best_play_reading.matrix_figure(result.matrix),
                    best_play_reading.reading_matrix(result),
                ),
                (importance_figure(result), importance_reading(result)),
            ]
        )

    def start_game(_: Any) -> None:
        reply = play_best_against_best(session, chosen())
        colour = "#1b5e20" if reply.ok else "#b00020"
        status.value = html_text("<p style='color:{}'>{}</p>", colour, reply.message)
        if reply.ok and show_play is not None:
            show_play()

    preset.observe(show, names="value")
    length.observe(show, names="value")
    play.on_click(start_game)
    show()
    page = w.VBox(
        [
            w.HBox([preset, length], layout=w.Layout(flex_flow="row wrap")),
            top,
            length_box,
            sides,
            w.HBox([play, status], layout=w.Layout(flex_flow="row wrap")),
            charts,
            details,
        ],
        layout=w.Layout(max_width="100%"),
    )
    page.add_class("am-best")
    return page


def importance_reading(result: best_play_results.BestPlayResult) -> str:
    """A sentence under the importance chart: the knob that matters most for each role."""
    parts = []
    for role in ROLES:
        table = best_play_results.importance(result, role)
        if table.empty:
            continue
        top = table.iloc[0]
        parts.append(
            f"for the {ROLE_PLURALS[ROLES.index(role)]}, "
            f"{best_play_reading.KNOB_WORDS[top['knob']]} (moving it alone costs up to "
            f"{100 * top['drop']:.1f} points of their win rate on the same games)"
        )
    if not parts:
        return ""
    return (
        "Each bar moves one knob of a role's best strategy to other values, everything else "
        "kept, and plays the same fresh games again. What matters most: " + "; ".join(parts) + "."
    )
