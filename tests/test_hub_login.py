"""`amteach dashboard` as a JupyterHub service: the hub login is on when the hub started the
server (its JUPYTERHUB_* variables), refused in one line when it cannot work, and passed on to
the server; and a server run as root says so. (tests/test_jupyterhub.py runs the real hub.)"""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from amteach.cli import main
from amteach.engine.errors import InputError
from amteach.serving import HUB_SERVICE_ENV, check_hub_login, started_by_hub

HUB_FLAG = "--ClassroomVoila.hub_login=True"


def hub_environment(prefix: str = "/services/amteach/") -> dict[str, str]:
    """What JupyterHub gives a service named amteach (jupyterhub.services.service)."""
    return {
        "JUPYTERHUB_SERVICE_NAME": "amteach",
        "JUPYTERHUB_API_TOKEN": "a-token",
        "JUPYTERHUB_API_URL": "http://127.0.0.1:8081/hub/api",
        "JUPYTERHUB_CLIENT_ID": "service-amteach",
        "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{prefix}oauth_callback",
        "JUPYTERHUB_SERVICE_PREFIX": prefix,
    }


@pytest.fixture
def started(monkeypatch, tmp_path) -> list[list[str]]:
    """The server command lines `amteach dashboard` would become (os.execv caught), in an
    environment without the hub's variables, as a user other than root."""
    commands: list[list[str]] = []
    monkeypatch.setattr(os, "execv", lambda path, args: commands.append(args))
    monkeypatch.setattr(os, "environ", os.environ.copy())
    for name in [*HUB_SERVICE_ENV, "JUPYTERHUB_SERVICE_NAME"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.chdir(tmp_path)
    return commands


def dashboard(*args: str):
    return CliRunner().invoke(main, ["dashboard", "--base-url", "/services/amteach/", *args])


def test_started_by_the_hub_means_its_name_and_token_are_set():
    assert started_by_hub(hub_environment())
    assert not started_by_hub({})
    assert not started_by_hub({**hub_environment(), "JUPYTERHUB_API_TOKEN": ""})


def test_the_hub_login_needs_every_variable_the_hub_gives_and_its_own_prefix():
    check_hub_login("/services/amteach/", hub_environment())
    for name in HUB_SERVICE_ENV:
        env = {k: v for k, v in hub_environment().items() if k != name}
        with pytest.raises(InputError, match=name):
            check_hub_login("/services/amteach/", env)
    # the hub's proxy passes /services/amteach/ on unchanged: another path never matches
    with pytest.raises(InputError, match="--base-url /services/amteach/"):
        check_hub_login("/amteach/", hub_environment())


def test_a_server_the_hub_started_puts_visitors_behind_the_hub_login(started, monkeypatch):
    for name, value in hub_environment().items():
        monkeypatch.setenv(name, value)
    result = dashboard()
    assert result.exit_code == 0, result.output
    assert "Visitors log in at the JupyterHub that started this server." in result.output
    assert HUB_FLAG in started[-1]
    # said outright: anyone who reaches the proxy gets in
    result = dashboard("--no-hub-login")
    assert result.exit_code == 0, result.output
    assert HUB_FLAG not in started[-1]
    assert "log in" not in result.output


def test_a_server_started_otherwise_has_no_hub_login_and_refuses_one_it_cannot_do(started):
    result = dashboard()
    assert result.exit_code == 0, result.output
    assert HUB_FLAG not in started[-1]
    result = dashboard("--hub-login")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert lines[0].startswith("amteach: --hub-login: JUPYTERHUB_API_TOKEN")
    assert "docs/deploy.md, section 7" in lines[0]
    assert len(started) == 1  # the refused one never started


def test_a_server_run_as_root_warns_that_every_kernel_would_run_as_root(started, monkeypatch):
    result = dashboard()
    assert "running as root" not in result.output
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    result = dashboard()
    assert result.exit_code == 0, result.output
    assert "amteach: warning: running as root" in result.output
    assert "docs/deploy.md" in result.output


def test_the_hub_login_takes_voilas_arguments_and_routes_its_callback_under_the_prefix(
    monkeypatch,
):
    """Voilà builds its identity provider with its own token and login page (which the hub's
    login replaces) and adds the provider's routes as they are: the callback must carry the
    service's prefix, where the hub sends users back."""
    from amteach.serving.hub import HubLogin

    for name, value in hub_environment().items():
        monkeypatch.setenv(name, value)
    login = HubLogin(token="", login_handler_class=object)
    routes = {route[0]: route[1].__name__ for route in login.get_handlers()}
    assert routes == {
        "/services/amteach/oauth_callback": "JupyterHubOAuthCallbackHandler",
        "/services/amteach/logout": "JupyterHubLogoutHandler",
    }
    # the hub's own token, not Voilà's empty one
    assert login.token == "a-token"
