"""The `amteach` command line. Every subcommand has --help; bad input gets one line, no traceback."""

from __future__ import annotations

import ipaddress
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from .content import dashboard_notebook, lessons_dir, notebooks_dir
from .engine.errors import AmteachError, InputError
from .engine.rule_input import parse_overrides, parse_sweep_values
from .engine.rules import RuleSet, preset_names
from .engine.scenario import ScriptStepError, scenario_report
from .serving import (
    GRACE_SECONDS,
    MEMORY_SHARE_FOR_VISITORS,
    PER_ADDRESS_AUTO,
    PER_DEVICE,
    TEMPLATE,
    VISITOR_MB,
    address_cap,
    check_hub_login,
    check_port_free,
    default_max_visitors,
    kernel_socket_folder,
    normalized_base_url,
    rooms_environment,
    running_as_root,
    started_by_hub,
    voila_command,
)


def _fail(message: str, status: int) -> None:
    click.echo(f"amteach: {message}", err=True)
    sys.exit(status)


override_option = click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a rule parameter, e.g. --set foundation_monopolist_fee=160 (repeatable).",
)

# one game length for every command that plays games (simulate, best-play)
length_option = click.option(
    "--length",
    "length",
    default=None,
    metavar="LENGTH",
    help="How long a game lasts: two-hour (time is up after about 40 rounds), round-200, "
    "to-the-end (played out, stopped at 2,000 rounds), or a number N: time is up after N "
    "rounds and the final accounting settles the games still running. Default: round-200.",
)


def rules_with_cap(
    preset: str, overrides: tuple[str, ...], cap: int | None, option: str, default_cap: int
) -> RuleSet:
    """The preset with its --set overrides and one round cap: the option's, or a
    `--set round_cap=...`, or `default_cap` when neither is given. Both at once must agree."""
    values = parse_overrides(overrides)
    if cap is not None and "round_cap" in values and values["round_cap"] != cap:
        raise InputError(
            f"{option} {cap} and --set round_cap={values['round_cap']} both give the round "
            "cap; give it once"
        )
    if cap is None and "round_cap" not in values:
        cap = default_cap
    ruleset = RuleSet.preset(preset, **values)
    return ruleset if cap is None else ruleset.replace(round_cap=cap)


def _print_version(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    """--version: the version and the core that plays batches here (compiled or pure Python)."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from .sim.core import core_name

    click.echo(f"amteach {version('amteach')}, core: {core_name()}")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and which core plays batches (compiled or pure Python).",
)
def main() -> None:
    """amteach: play and study the board game Anti-Monopoly."""


@main.command()
@click.option(
    "--seed", type=int, default=1, show_default=True, help="Seed for the dice and the cards."
)
@click.option(
    "--rounds",
    type=click.IntRange(1, 1000),
    default=None,
    help="Round limit; then the final accounting settles the game (default: 30, or "
    "--set round_cap=...).",
)
@click.option(
    "--rules",
    "preset",
    default="default",
    show_default=True,
    help="Rules preset (list them with `amteach rules`).",
)
@override_option
def demo(seed: int, rounds: int | None, preset: str, overrides: tuple[str, ...]) -> None:
    """Play and narrate a demo game: two Competitors and two Monopolists, all bots."""
    from .session import Session
    from .style import ROLE_LABELS

    seats = (
        ("Ana", "competitor", "cautious"),
        ("Ben", "monopolist", "cautious"),
        ("Cleo", "competitor", "cautious"),
        ("Dev", "monopolist", "cautious"),
    )
    try:
        rules = rules_with_cap(preset, overrides, rounds, "--rounds", 30)
        session = Session(seats, seed=seed, rules=rules)
    except AmteachError as err:
        _fail(str(err), 2)
    narration = session.cursor()
    session.subscribe(lambda change: [click.echo(e.text) for e in narration.take()[0]])
    while session.step().ok:
        pass
    game = session.game
    click.echo()
    click.echo("Final standings:")
    for p in sorted(range(len(game.names)), key=lambda p: -game.cash[p]):
        state = "bankrupt" if game.bankrupt[p] else f"${game.cash[p]} cash"
        click.echo(f"  {game.names[p]:<6} {ROLE_LABELS[game.roles[p]]:<11} {state}")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--indent", type=int, default=1, show_default=True, help="JSON indentation.")
def scenario(file: str, indent: int) -> None:
    """Set up the position in FILE (YAML), play its script, print the state as JSON.

    Exit status 0: the script played; 1: a script step was illegal (the message names the
    step and the rule); 2: the file is malformed or the set-up is invalid.
    """
    from .files import load_scenario_file

    try:
        game = load_scenario_file(file)
    except ScriptStepError as err:
        _fail(str(err), 1)
    except AmteachError as err:
        _fail(str(err), 2)
    click.echo(json.dumps(scenario_report(game), indent=indent))


@main.command()
@click.argument("preset", required=False, default="default")
@override_option
def rules(preset: str, overrides: tuple[str, ...]) -> None:
    """Show every rule parameter of PRESET (default: the specification)."""
    try:
        ruleset = RuleSet.preset(preset, **parse_overrides(overrides))
    except AmteachError as err:
        _fail(str(err), 2)
    click.echo(f"Rules preset: {preset} (presets: {', '.join(preset_names())})")
    changed = ruleset.changed_from_default()
    for name, value in ruleset.to_dict().items():
        if name != "preset_name":
            mark = "  *" if name in changed else ""
            click.echo(f"  {name:<38} {value}{mark}")
    if changed:
        click.echo("  * differs from the default preset")


def simulate_cap(length: str | None, round_cap: int | None) -> tuple[int | None, str]:
    """The round cap `simulate` plays to, from --length (a name or a number of rounds) and
    --round-cap, and the option to name if it disagrees with --set round_cap. Both options at
    once must give the same round."""
    from .analysis.outcomes import rounds_of_length

    if length is None:
        return round_cap, "--round-cap"
    rounds = rounds_of_length(length)
    if round_cap is not None and round_cap != rounds:
        raise InputError(
            f"--length {length} (time is up after {rounds:,} rounds) and --round-cap "
            f"{round_cap} both say when time is up; give one of them"
        )
    named = not length.strip().replace(",", "").replace("_", "").isdigit()
    return rounds, (f"--length {length}, time up after" if named else "--length")


def length_line(result: Any) -> str:
    """The report's first line: the game length in words and how many games time settled."""
    from .analysis.outcomes import time_is_up

    cap = (result.meta.get("rules") or {}).get("round_cap")
    if not cap:
        return "Length played: no round cap (every game was played to its end)."
    games = result.games
    capped = int((games["end_reason"] == "round_cap").sum()) if len(games) else 0
    share = f"{100 * capped / len(games):.1f}%" if len(games) else "none"
    settled = "; the final accounting settled them" if capped else ""
    return (
        f"Length played: {time_is_up(int(cap))}. Time was up for {capped:,} of {len(games):,} "
        f"games ({share}){settled}."
    )


@main.command()
@click.option("--games", type=int, default=1000, show_default=True, help="How many games to play.")
@click.option(
    "--seats",
    default=None,
    metavar="ROLE:BOT[:TAX],...",
    help="Seats in turn order, e.g. competitor:investor,monopolist:builder:flat. "
    "Default: two Competitors and two Monopolists, all investor. "
    "Bots: cautious, builder, investor, random, family. Tax: cheaper (default), flat, percent. "
    "A family strategy: competitor:family:reserve=100/tax=flat (knobs joined by /).",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Master seed; game i's seed comes from it and i.",
)
@click.option(
    "--workers",
    type=int,
    default=None,
    help="Processes to use (default: the CPUs this process may use, by its affinity and cgroup quota, at most AMTEACH_WORKERS).",
)
@click.option("--rules", "preset", default="default", show_default=True, help="Rules preset.")
@override_option
@length_option
@click.option(
    "--round-cap",
    type=int,
    default=None,
    help="Rounds before a game is settled by the final accounting (default: 200, or "
    "--set round_cap=...); the same as --length N.",
)
@click.option(
    "--game",
    "game_type",
    type=click.Choice(["A", "B", "two-hour"]),
    default="A",
    show_default=True,
    help="Which ending the games play to.",
)
@click.option(
    "--dask",
    "dask_address",
    default=None,
    metavar="ADDRESS",
    help="Run on a dask.distributed scheduler at ADDRESS, or 'local' to start a LocalCluster.",
)
@click.option(
    "--out", type=click.Path(file_okay=False), default=None, help="Folder to save the frames in."
)
@click.option(
    "--format",
    "file_format",
    type=click.Choice(["parquet", "csv"]),
    default="parquet",
    show_default=True,
    help="File format for --out.",
)
@click.option("--force", is_flag=True, help="Replace results already in --out.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--check-invariants",
    is_flag=True,
    help="After every decision, check what must always hold (money is conserved, the building "
    "supply balances, no cash is negative, a Monopolist's buildings stand in a monopolized "
    "city, held players stand on the hold space); exit 1 if anything broke.",
)
def simulate(
    games: int,
    seats: str | None,
    seed: int,
    workers: int | None,
    preset: str,
    overrides: tuple[str, ...],
    length: str | None,
    round_cap: int | None,
    game_type: str,
    dask_address: str | None,
    out: str | None,
    file_format: str,
    force: bool,
    quiet: bool,
    check_invariants: bool,
) -> None:
    """Play many bot games and summarize who wins.

    Prints the game length (when time is up), the win rate by role with a 95% Wilson
    interval, the mean game length, the end reasons, the win rates by how the games ended:
    played out, or settled by the final accounting when time was up, and how many of the
    games time ended the final accounting changed the winner (and the winning role) of: the
    player with the most cash when time was up did not win. With --out, saves four
    tidy tables (games, players, rounds, taxes). Ctrl-C stops the batch cleanly and keeps the
    games already finished.
    """
    from pathlib import Path

    from .sim import simulate as run_batch
    from .sim.results import TABLES

    if out is not None and not force and Path(out).is_dir():
        existing = sorted(p.name for p in Path(out).iterdir() if p.stem in (*TABLES, "meta"))
        if existing:
            _fail(
                f"{out}: already holds results ({', '.join(existing)}); add --force to replace them",
                2,
            )
    client = None
    try:
        cap, cap_option = simulate_cap(length, round_cap)
        rules = rules_with_cap(preset, overrides, cap, cap_option, 200)
        if dask_address is not None:
            from .sim import dask_client

            client = dask_client(dask_address)
        result = run_batch(
            games=games,
            seats=seats,
            rules=rules,
            seed=seed,
            workers=workers,
            round_cap=None,  # already in the rules
            game=game_type,
            client=client,
            progress=False if quiet else "text",
            check_invariants=check_invariants,
        )
    except AmteachError as err:
        _fail(str(err), 2)
    except OSError as err:
        _fail(f"cannot reach the Dask scheduler {dask_address}: {err}", 2)
    finally:
        if client is not None:
            client.close()
    click.echo(length_line(result))
    click.echo(result.summary())
    click.echo(result.accounting_text())
    if check_invariants:
        violations = result.meta["invariant_violations"]
        decisions = int(result.games["decisions"].sum())
        click.echo(
            f"Invariants checked after each of {decisions:,} decisions in {len(result.games):,} "
            f"games ({result.meta['core']} core, {result.meta['elapsed']:.1f} s): "
            f"{violations:,} violation{'' if violations == 1 else 's'}."
        )
    if out is not None:
        try:
            saved = result.save(out, format=file_format, force=force)
        except AmteachError as err:
            _fail(str(err), 2)
        click.echo(f"Saved games, players, rounds and taxes ({file_format}) to {saved}")
    if result.interrupted:
        click.echo("Stopped early (Ctrl-C); the games above finished and are kept.", err=True)
        sys.exit(130)
    if check_invariants and result.meta["invariant_violations"]:
        sys.exit(1)


@main.command()
@click.option(
    "--set",
    "sweep_spec",
    multiple=True,
    metavar="NAME=V1,V2,...",
    help="The rule parameter to vary and its values, e.g. --set foundation_monopolist_fee=10,160. "
    "--set preset=default,edition-2005 compares presets.",
)
@click.option(
    "--games", type=int, default=1000, show_default=True, help="Games to play for each value."
)
@click.option(
    "--seats",
    default=None,
    metavar="ROLE:BOT[:TAX],...",
    help="Seats in turn order, as for `amteach simulate`. "
    "Default: two Competitors and two Monopolists, all investor.",
)
@click.option("--rules", "preset", default="default", show_default=True, help="Rules preset.")
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Master seed; every value plays the same game seeds.",
)
@click.option(
    "--workers",
    type=int,
    default=None,
    help="Processes to use (default: the CPUs this process may use, by its affinity and cgroup quota, at most AMTEACH_WORKERS).",
)
@click.option(
    "--round-cap",
    type=int,
    default=200,
    show_default=True,
    help="Rounds before a game is settled by the final accounting.",
)
@click.option(
    "--game",
    "game_type",
    type=click.Choice(["A", "B", "two-hour"]),
    default="A",
    show_default=True,
    help="Which ending the games play to.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False), default=None, help="CSV file to save the table in."
)
@click.option(
    "--chart",
    type=click.Path(dir_okay=False),
    default=None,
    help="HTML file to save the chart of win rate by role against the value (opens offline).",
)
@click.option("--force", is_flag=True, help="Replace the --out or --chart file if it exists.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def sweep(
    sweep_spec: tuple[str, ...],
    games: int,
    seats: str | None,
    preset: str,
    seed: int,
    workers: int | None,
    round_cap: int,
    game_type: str,
    out: str | None,
    chart: str | None,
    force: bool,
    quiet: bool,
) -> None:
    """Play bot games for each value of one rule parameter and compare who wins.

    Prints one row per value and role (win rate with a 95% Wilson interval, mean game length,
    share of games settled by the round cap) and a one-line reading per value. A sweep
    expected to take long says so before it starts. Ctrl-C stops cleanly and keeps the values
    already finished.
    """
    from .analysis import fairness
    from .sim import sweep as sweeps

    for option, path, kind in (("--out", out, "a CSV"), ("--chart", chart, "an HTML")):
        if path is None:
            continue
        target = Path(path)
        if target.is_dir():
            _fail(f"{path}: is a folder; {option} takes {kind} file name", 2)
        if target.exists() and not force:
            _fail(f"{path}: already exists; add --force to replace it", 2)
        if not target.parent.is_dir():
            _fail(f"{path}: the folder {target.parent} does not exist", 2)

    def announce(seconds: float, total_games: int) -> None:
        if seconds > sweeps.LONG_SWEEP_SECONDS:
            click.echo(sweeps.estimate_message(total_games, seconds), err=True)

    options: dict[str, Any] = {
        "games": games,
        "seats": seats,
        "seed": seed,
        "workers": workers,
        "round_cap": round_cap,
        "game": game_type,
        "progress": False if quiet else "text",
        "on_estimate": announce,
    }
    try:
        name, values = parse_sweep_values(sweep_spec)
        if name == "preset":
            if preset != "default":
                raise InputError(
                    "--set preset=... compares presets; leave out --rules", field="--rules"
                )
            frame = sweeps.compare_presets([str(v) for v in values], **options)
        else:
            frame = sweeps.sweep(name, values, rules=preset, **options)
    except AmteachError as err:
        _fail(str(err), 2)
    except KeyboardInterrupt:  # while timing the sweep, before any value started
        _fail("stopped before the sweep started", 130)
    if frame.empty:
        click.echo("Stopped before any value finished; nothing to show.", err=True)
        sys.exit(130)
    shown = frame.copy()
    for column in ("rate", "ci_low", "ci_high", "round_cap_share"):
        shown[column] = shown[column].map(lambda x: f"{100 * x:.1f}%")
    shown["mean_rounds"] = shown["mean_rounds"].map(lambda x: f"{x:.1f}")
    click.echo(shown.to_string(index=False))
    click.echo()
    for value in dict.fromkeys(frame["value"]):
        click.echo(fairness.reading_sweep_value(frame, value))
    if frame["value"].nunique() > 1:
        click.echo(fairness.reading_sweep(frame))
    if out is not None:
        try:
            frame.to_csv(out, index=False)
        except OSError as err:
            _fail(f"{out}: cannot write the table: {err.strerror or err}", 2)
        click.echo(f"Saved the table (CSV) to {out}")
    if chart is not None:
        try:  # plotly.js goes into the file, so it opens without internet
            fairness.sweep_figure(frame).write_html(chart, include_plotlyjs=True)
        except OSError as err:
            _fail(f"{chart}: cannot write the chart: {err.strerror or err}", 2)
        click.echo(f"Saved the chart (HTML) to {chart}")
    if frame.attrs.get("interrupted"):
        click.echo("Stopped early (Ctrl-C); the values above finished and are kept.", err=True)
        sys.exit(130)


class PerAddress(click.ParamType):
    """`--max-per-address`: a whole number from 0 (no limit) to 10000, or `auto` (half of
    `--max-visitors`)."""

    name = "N|auto"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int):
            return value
        if str(value).strip().lower() == "auto":
            return PER_ADDRESS_AUTO
        try:
            number = int(str(value).strip())
        except ValueError:
            self.fail(f"{str(value)[:40]!r} is not a whole number or 'auto'", param, ctx)
        if not 0 <= number <= 10000:
            self.fail(f"{number} is not between 0 and 10000 (or 'auto')", param, ctx)
        return number


class MaxVisitors(click.ParamType):
    """`--max-visitors`: a whole number from 0 (no limit) to 10000, or `auto`."""

    name = "N|auto"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int):
            number = value
        elif str(value).strip().lower() == "auto":
            return default_max_visitors()
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{str(value)[:40]!r} is not a whole number or 'auto'", param, ctx)
        if not 0 <= number <= 10000:
            self.fail(f"{number} is not between 0 and 10000 (or 'auto')", param, ctx)
        return number


@main.command()
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8866,
    show_default=True,
    help="Port to serve on (if another program has it, the command says so and stops).",
)
@click.option(
    "--ip",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; 0.0.0.0 serves a classroom network.",
)
@click.option(
    "--pool",
    type=click.IntRange(0, 200),
    default=2,
    show_default=True,
    help="Kernels kept started ahead of visitors.",
)
@click.option(
    "--template",
    default=TEMPLATE,
    show_default=True,
    help="Voilà template: amteach-lean (made for a projector, works offline; one light "
    "script draws the widgets, so the page is usable in about half the time; widgets other "
    "than ipywidgets' and anywidgets are not drawn), amteach (the same page on Voilà's "
    "JupyterLab front end), lab, classic, ...",
)
@click.option(
    "--cull-after",
    type=click.IntRange(10, 86400),
    default=GRACE_SECONDS,
    show_default=True,
    help="Seconds a visitor's game is kept after their page lost its connection.",
)
@click.option(
    "--base-url",
    default="/",
    show_default=True,
    help="Path the dashboard is served under, e.g. /amteach/ behind a reverse proxy.",
)
@click.option(
    "--max-visitors",
    type=MaxVisitors(),
    default="auto",
    show_default=True,
    help="Most visitors (kernels) at once, the pool included; 'auto' sizes it from this "
    f"machine's memory ({MEMORY_SHARE_FOR_VISITORS:.0%} of the available memory over "
    f"{VISITOR_MB} MB per visitor); 0 for no limit. Visitors beyond it see a 'full' page "
    "that retries.",
)
@click.option(
    "--max-per-address",
    type=PerAddress(),
    default="auto",
    show_default=True,
    help="Most visitors (kernels) from one network address at once; 'auto' is half of "
    "--max-visitors, so that one script cannot take every place; 0 for no limit. A class "
    "behind one NAT shares one address: raise it to the class size (docs/deploy.md).",
)
@click.option(
    "--max-per-device",
    type=click.IntRange(0, 10000),
    default=PER_DEVICE,
    show_default=True,
    help="Most dashboard pages (kernels) one browser may have open at once; 0 for no limit.",
)
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    multiple=True,
    metavar="ADDRESS",
    help="The address of a reverse proxy in front of this server (nginx on this machine: "
    "127.0.0.1): its requests count for the visitor its X-Real-IP header names. Repeat for "
    "several.",
)
@click.option(
    "--rooms",
    "rooms_url",
    default="amteach-rooms.sqlite",
    show_default=True,
    metavar="FILE|URL",
    help="The class database for class play: a SQLite file (created when missing) or a "
    "postgresql://user@host/db address.",
)
@click.option(
    "--public-url",
    default=None,
    metavar="URL",
    help="The address students open, shown in the Class tab's join link and QR code "
    "(default: the address the instructor's page was opened at).",
)
@click.option(
    "--nginx-config",
    is_flag=True,
    help="Print an nginx site file for this server (--port, --base-url, --template, and "
    "--public-url's host as the server name) and exit, without serving: nginx sends the "
    "page's scripts, styles and fonts from this Python environment's folders, compressed "
    "and cached, and passes the rest on (docs/deploy.md).",
)
@click.option(
    "--hub-login/--no-hub-login",
    default=None,
    help="Visitors log in at the JupyterHub that started this server as a service (the "
    "default when the hub started it: its JUPYTERHUB_* variables are set); "
    "--no-hub-login lets anyone who reaches the hub's proxy in (docs/deploy.md, section 7).",
)
def dashboard(
    port: int,
    ip: str,
    pool: int,
    template: str,
    cull_after: int,
    base_url: str,
    max_visitors: int,
    max_per_address: int,
    max_per_device: int,
    trusted_proxies: tuple[str, ...],
    rooms_url: str,
    public_url: str | None,
    nginx_config: bool,
    hub_login: bool | None,
) -> None:
    """Serve the class dashboard with Voilà, without code."""
    try:
        base_url = normalized_base_url(base_url)
    except ValueError as err:
        _fail(f"--base-url {err}", 2)
    try:  # written as the server sees it (127.0.0.1, ::1)
        trusted_proxies = tuple(str(ipaddress.ip_address(proxy)) for proxy in trusted_proxies)
    except ValueError as err:
        _fail(f"--trusted-proxy: {err}", 2)
    if nginx_config:
        _print_nginx_config(port, ip, base_url, template, public_url)
        return
    notebook = dashboard_notebook()
    if not notebook.is_file():
        _fail(f"{notebook}: the dashboard notebook is missing", 2)
    try:
        rooms_env = rooms_environment(rooms_url, public_url)
    except AmteachError as err:
        _fail(str(err), 2)
    try:
        kernel_socket_folder()
        check_port_free(ip, port)
    except InputError as err:
        _fail(str(err), 2)
    if hub_login is None:
        hub_login = started_by_hub()
    if hub_login:
        try:
            check_hub_login(base_url)
        except InputError as err:
            _fail(str(err), 2)
    if running_as_root():
        # every visitor's kernel runs as the server's user: root would give a bug in a kernel
        # the whole machine
        click.echo(
            "amteach: warning: running as root; every visitor's kernel would run as root too. "
            "Run the dashboard as a user of its own (docs/deploy.md: useradd, User= in the "
            'systemd unit, "user" in the hub\'s service).',
            err=True,
        )
    shown = "127.0.0.1" if ip in ("0.0.0.0", "::") else ip
    click.echo(
        f"Serving the Anti-Monopoly dashboard at http://{shown}:{port}{base_url}  (Ctrl-C stops it)"
    )
    if ip in ("0.0.0.0", "::"):
        click.echo(
            f"Listening on every network address: anyone on this network can open http://<this computer's address>:{port}{base_url}"
        )
    if max_visitors:
        click.echo(f"At most {max_visitors} visitors at once; others see a 'full' page.")
    else:
        click.echo("No limit on visitors (--max-visitors 0): each holds a kernel in memory.")
    per_address = address_cap(max_visitors, max_per_address)
    shares = [f"{max_per_device} per browser"] if max_per_device else []
    if per_address:
        shares.append(f"{per_address} per network address (--max-per-address)")
    if shares:
        click.echo(f"At most {' and '.join(shares)} at once; beyond, a 'too many pages' page.")
    if hub_login:
        click.echo("Visitors log in at the JupyterHub that started this server.")
    sys.stdout.flush()
    sys.stderr.flush()
    command = voila_command(
        notebook,
        port,
        ip,
        pool,
        template,
        cull_after,
        base_url,
        max_visitors,
        max_per_device=max_per_device,
        max_per_address=max_per_address,
        trusted_proxies=trusted_proxies,
        hub_login=hub_login,
    )
    # the kernels open the class database that was checked above
    os.environ.update(rooms_env)
    # become the server: a service manager's SIGTERM then reaches Voilà itself, which shuts
    # every kernel down (a child process would be left running as an orphan)
    os.execv(command[0], command)


def _print_nginx_config(
    port: int, ip: str, base_url: str, template: str, public_url: str | None
) -> None:
    """`amteach dashboard --nginx-config`: the site file on standard output."""
    from urllib.parse import urlsplit

    from .serving.nginx import site_file

    server_name = "_"
    if public_url is not None:
        parts = urlsplit(public_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            _fail(f"--public-url: {public_url!r} is not an http:// or https:// address", 2)
        server_name = parts.hostname
    upstream = "127.0.0.1" if ip in ("0.0.0.0", "::") else ip
    if ":" in upstream:  # an IPv6 address
        upstream = f"[{upstream}]"
    try:
        click.echo(site_file(port, base_url, template, server_name, upstream), nl=False)
    except ValueError as err:
        _fail(f"--nginx-config: {err}", 2)


def _copy_folders(folders: dict[str, Path], destination: Path, force: bool) -> None:
    """Copy each folder to destination/<name>; refuse, before writing anything, to overwrite."""
    if destination.exists() and not destination.is_dir():
        _fail(f"{destination}: exists and is not a folder", 2)
    files = [
        (source, destination / name / source.relative_to(folder))
        for name, folder in folders.items()
        for source in sorted(folder.rglob("*"))
        if source.is_file() and "__pycache__" not in source.parts
    ]
    existing = [target for _, target in files if target.exists()]
    if existing and not force:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        _fail(f"{existing[0]} exists{more}; add --force to overwrite", 2)
    import shutil

    try:
        for source, target in files:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    except OSError as err:
        _fail(f"{err.filename or destination}: cannot write: {err.strerror or err}", 2)
    for name in folders:
        click.echo(f"Wrote {destination / name}")


def copy_option(where: str) -> Any:
    """--copy DIR, whose help names the folders it writes inside DIR (`where`)."""
    return click.option(
        "--copy",
        "destination",
        type=click.Path(path_type=Path),
        metavar="DIR",
        help=f"Write a copy into {where} (folders made inside DIR), to read or edit.",
    )


force_option = click.option(
    "--force", is_flag=True, help="With --copy: overwrite files that are already there."
)


def _list_or_copy(
    what: str, folders: dict[str, Path], lines: list[str], destination: Path | None, force: bool
) -> None:
    """Without --copy, print `lines` and where `what` are; with it, copy the folders."""
    if destination is not None:
        _copy_folders(folders, destination, force)
        return
    if force:
        _fail("--force goes with --copy DIR", 2)
    for line in lines:
        click.echo(line)
    click.echo(f"The {what} are in {folders[what]}; `amteach {what} --copy DIR` copies them.")


def _number(text: str, option: str, kind: type, least: float, above: bool = False) -> Any:
    """A command-line number, or one line saying what is wrong with it (exit 2)."""
    try:
        value = kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        _fail(f"{option} must be {what}, not {text!r}", 2)
    if value != value or (value <= least if above else value < least):  # NaN, or too small
        bound = f"above {least:g}" if above else f"at least {least:g}"
        _fail(f"{option} must be {bound}, not {text!r}", 2)
    return value


def recorded_command(args: list[str]) -> str:
    """The best-play command as a run's provenance records it: without where it was saved
    (--out, often a scratch folder) or how it was shown (--force, --quiet), so a shipped run
    names no path on the machine that made it."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--out":
            skip = True
        elif not (arg.startswith("--out=") or arg in ("--force", "--quiet")):
            kept.append(arg)
    return " ".join(["amteach", *kept])


FULL_ONLY = ("--games-per-candidate", "--generations", "--team-play")


@main.command(name="best-play")
@click.option(
    "--rules",
    "--preset",
    "preset",
    default="default",
    show_default=True,
    help="Rules preset (--preset is the same option).",
)
@override_option
@length_option
@click.option(
    "--round-cap",
    default=None,
    metavar="ROUNDS",
    help="Deprecated: use --length ROUNDS, which means the same.",
)
@click.option("--seed", default="0", show_default=True, metavar="S", help="Master seed.")
@click.option(
    "--budget",
    default=None,
    metavar="MINUTES",
    help="Minutes the run may take (quick search: default 0.75; a phase or rung that would "
    "not fit is skipped, and fewer final games are played; --full: default 10, search, checks, final games and matrix).",
)
@click.option("--workers", default=None, metavar="N", help="Processes (default: one per core).")
@click.option(
    "--out",
    default=None,
    metavar="DIR",
    help="Folder for the tidy files (strategies, search history, checks; with --full also the "
    "matrix and the sensitivity). Required with --full.",
)
@click.option(
    "--full",
    is_flag=True,
    help="The full search (about 15 minutes): CMA-ES over the whole family, alternating "
    "roles, each role's search starting warm (the shipped runs' strategies and its incumbent "
    "with each knob moved alone are tried first), then a tournament matrix and a sensitivity "
    "check. Without it, the quick search.",
)
@click.option(
    "--games-per-candidate",
    "games",
    default=None,
    metavar="N",
    help="--full: games each candidate strategy plays (the same games for every candidate; "
    "default 500).",
)
@click.option(
    "--team-play",
    is_flag=True,
    help="--full: also search the team-play knob (a Monopolist sells its teammate the street "
    "that completes a city); without it the knob stays at 'no'.",
)
@click.option(
    "--generations",
    default=None,
    metavar="N",
    help="--full: most CMA-ES generations in each role's search (default: the budget alone). "
    "With it, the run is the same on any machine or cluster for the same seed.",
)
@click.option(
    "--phases",
    default=None,
    metavar="N",
    help="Most alternations between the roles (default 6 quick, 8 with --full).",
)
@click.option(
    "--dask",
    "dask_address",
    default=None,
    metavar="ADDRESS",
    help="Play the games on a dask.distributed scheduler at ADDRESS (tcp://host:port), or "
    "'local' to start a LocalCluster; the same seed gives the same result as here (with "
    "--full, given --generations; quick, when the budget cut nothing).",
)
@click.option("--force", is_flag=True, help="Replace best-play results already in --out.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def best_play(
    preset: str,
    overrides: tuple[str, ...],
    length: str | None,
    round_cap: str | None,
    seed: str,
    budget: str | None,
    workers: str | None,
    out: str | None,
    full: bool,
    games: str | None,
    team_play: bool,
    generations: str | None,
    phases: str | None,
    dask_address: str | None,
    force: bool,
    quiet: bool,
) -> None:
    """Best play: each role's strongest strategy in the family, and who wins when both play
    theirs, under a rule set (--rules, --set) and a game length (--length).

    By default a quick search, about a minute on 2 cores: it starts from the shipped run
    nearest the rules and length, drops candidates early (successive halving, every candidate
    on the same games) and checks the winner on other games. It prints the win rates with
    their 95% intervals, the conditions, how approximate the result is (the largest gain its
    check found, a lower bound), and how far it is from the shipped full search (an
    unchanged preset) or from best play under the unchanged rules (a changed rule set).

    --full runs the full search (about 15 minutes): it alternates the two roles' best
    responses (CMA-ES over the family's knobs) until neither improves by more than luck,
    then plays the result, a tournament matrix of every named bot and the strategies found,
    and a sensitivity check, on fresh games. Ctrl-C stops a search and keeps what it found.
    """
    from contextlib import ExitStack

    from .analysis import best_play_results

    if round_cap is not None:
        click.echo(
            f"amteach: --round-cap is deprecated; use --length {round_cap} (the same rounds)",
            err=True,
        )
    if not full:
        given = [
            option
            for option, value in zip(FULL_ONLY, (games, generations, team_play), strict=True)
            if value
        ]
        if given:
            _fail(f"{given[0]} belongs to the full search; add --full", 2)
    if full and out is None:
        _fail("best-play --full needs --out DIR, the folder to save its results in", 2)
    if out is not None:
        target = Path(out)
        if target.exists() and not target.is_dir():
            _fail(f"{out}: exists and is not a folder", 2)
        if not force and target.is_dir():
            held = sorted(
                p.name for p in target.iterdir() if p.name in best_play_results.RESULT_FILES
            )
            if held:
                _fail(f"{out}: already holds best-play results ({', '.join(held)}); add --force", 2)
    cap_number = None if round_cap is None else _number(round_cap, "--round-cap", int, 1)
    command = recorded_command(sys.argv[1:]) if sys.argv[1:2] == ["best-play"] else None
    try:
        cap, cap_option = simulate_cap(length, cap_number)
        rules = rules_with_cap(preset, overrides, cap, cap_option, 200)
        changed = tuple(
            (name, value)
            for name, value in rules.to_dict().items()
            if name not in ("round_cap", "preset_name")
            and value != RuleSet.preset(preset).to_dict()[name]
        )
        with ExitStack() as stack:
            executor, slots = None, None
            if dask_address is not None:
                from .sim.cluster import cluster_executor

                cluster = stack.enter_context(cluster_executor(dask_address))
                executor, slots = cluster.executor, cluster.slots
            n_workers = None if workers is None else _number(workers, "--workers", int, 1)
            if full:
                result = _full_search(
                    preset,
                    changed,
                    rules.round_cap,
                    seed,
                    budget,
                    n_workers or slots,
                    games,
                    team_play,
                    generations,
                    phases,
                    quiet,
                    command,
                    executor,
                )
            else:
                result = _quick_search(
                    preset,
                    changed,
                    rules.round_cap,
                    seed,
                    budget,
                    n_workers or slots,
                    phases,
                    quiet,
                    command,
                    executor,
                )
        saved = None if out is None else result.save(out, force=True)
    except AmteachError as err:
        _fail(str(err), 2)
    except OSError as err:
        _fail(f"{out}: cannot write the results: {err.strerror or err}", 2)
    if full:
        from .analysis import best_play_reading

        click.echo(best_play_reading.reading_best_play(result))
    else:
        from .analysis import best_play_quick

        for line in best_play_quick.report_lines(result):
            click.echo(line)
    for role in ("competitor", "monopolist"):
        click.echo(f"{role}:family:{result.strategies[role]['text']}")
    if saved is not None:
        click.echo(f"Saved {', '.join(best_play_results.RESULT_FILES)} to {saved}")
    if result.interrupted:
        click.echo("Stopped early (Ctrl-C); what the search found so far is kept.", err=True)
        sys.exit(130)


def _full_search(
    preset: str,
    changed: tuple[tuple[str, Any], ...],
    round_cap: int,
    seed: str,
    budget: str | None,
    workers: int | None,
    games: str | None,
    team_play: bool,
    generations: str | None,
    phases: str | None,
    quiet: bool,
    command: str | None,
    executor: Any,
) -> Any:
    from .analysis import best_play_search

    settings = best_play_search.SearchSettings(
        games_per_candidate=_number(
            games or "500", "--games-per-candidate", int, best_play_search.MIN_GAMES
        ),
        budget_minutes=_number(budget or "10", "--budget", float, 0, above=True),
        seed=_number(seed, "--seed", int, 0),
        preset=preset,
        round_cap=round_cap,
        workers=workers,
        team_play=team_play,
        generations=None if generations is None else _number(generations, "--generations", int, 1),
        phases=_number(phases or "8", "--phases", int, 1),
        overrides=changed,
    ).check()
    return best_play_search.Search(
        settings,
        progress=False if quiet else "text",
        command=command,
        on_event=None if quiet else lambda text: click.echo(text, err=True),
        executor=executor,
    ).run()


def _quick_search(
    preset: str,
    changed: tuple[tuple[str, Any], ...],
    round_cap: int,
    seed: str,
    budget: str | None,
    workers: int | None,
    phases: str | None,
    quiet: bool,
    command: str | None,
    executor: Any,
) -> Any:
    from .analysis import best_play_quick
    from .sim.pool import Progress

    minutes = _number(budget, "--budget", float, 0, above=True) if budget else None
    settings = best_play_quick.QuickSettings(
        preset=preset,
        overrides=changed,
        round_cap=round_cap,
        seed=_number(seed, "--seed", int, 0),
        workers=workers,
        phases=_number(phases or "6", "--phases", int, 1),
        **({"budget_seconds": 60.0 * minutes} if minutes else {}),
    ).check()
    search = best_play_quick.QuickSearch(
        settings,
        command=command,
        on_event=None if quiet else lambda text: click.echo(text, err=True),
    )
    with Progress(False if quiet else "text", search.total, description="Best play") as bar:
        search.on_progress = lambda done, total: bar.to(done)
        search.executor = executor
        return search.run()


@main.command()
@copy_option("DIR/lessons and DIR/notebooks")
@force_option
def lessons(destination: Path | None, force: bool) -> None:
    """List the lessons; with --copy DIR, write the lessons (plans, worksheets, checks,
    scenarios) and the notebooks they use into DIR/lessons and DIR/notebooks."""
    folder = lessons_dir()
    titles = [
        f"{plan.parent.name}: {plan.read_text(encoding='utf-8').partition(chr(10))[0].lstrip('# ').strip()}"
        for plan in sorted(folder.glob("*/plan.md"))
    ]
    folders = {"lessons": folder, "notebooks": notebooks_dir()}
    _list_or_copy("lessons", folders, titles, destination, force)


@main.command()
@copy_option("DIR/notebooks")
@force_option
def notebooks(destination: Path | None, force: bool) -> None:
    """List the notebooks; with --copy DIR, write them into DIR/notebooks."""
    folder = notebooks_dir()
    names = [notebook.name for notebook in sorted(folder.glob("*.ipynb"))]
    _list_or_copy("notebooks", {"notebooks": folder}, names, destination, force)


if __name__ == "__main__":  # pragma: no cover
    main()
