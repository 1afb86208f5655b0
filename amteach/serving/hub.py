"""The dashboard as a JupyterHub service, behind the hub's login (docs/deploy.md section 7).

When the hub starts `amteach dashboard` as a managed service, it puts the service's API token,
OAuth client and callback address in the environment (`JUPYTERHUB_*`). With the hub login on
(`amteach dashboard --hub-login`, the default when those are set), the server asks the hub who
each visitor is, with jupyterhub's `HubOAuth` through the Jupyter server identity provider that
jupyterhub ships for single-user servers:

- a visitor without the service's cookie is sent to the hub's OAuth page, which sends a visitor
  who has not logged in to the hub's login, and back here (`oauth_callback`) once they have;
- a logged-in user without the `access:services!service=NAME` scope gets 403 (the hub's
  `load_roles` gives that scope to users: see the guide).

Imported by the server process only (through `ClassroomVoila.hub_login`), and only then, so a
server that is no hub service needs no jupyterhub installed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from jupyter_server.utils import url_path_join
from jupyterhub.singleuser.extension import (
    JupyterHubIdentityProvider,
    JupyterHubLogoutHandler,
    JupyterHubOAuthCallbackHandler,
)


class HubLogin(JupyterHubIdentityProvider):
    """jupyterhub's identity provider (HubOAuth), fitted to Voilà's server: Voilà passes the
    token and login handler of its own password login, which the hub's login replaces, and
    adds the provider's routes without its base URL, so the routes here carry it."""

    def __init__(self, token: Any = None, login_handler_class: Any = None, **kwargs: Any) -> None:
        # Voilà's token ("" for none) and login page have no use here: the hub logs users in
        super().__init__(**kwargs)

    def get_handlers(self) -> list[tuple[Any, ...]]:
        """The OAuth callback at the address the hub sends users back to (the service's
        `oauth_callback`, under its prefix), and a logout beside it."""
        callback = urlsplit(self.hub_auth.oauth_redirect_uri).path
        # the service's prefix: where the hub sends users back (JUPYTERHUB_OAUTH_CALLBACK_URL)
        prefix = callback.rsplit("/", 1)[0] + "/"
        return [
            (url_path_join(prefix, "logout"), JupyterHubLogoutHandler),
            (callback, JupyterHubOAuthCallbackHandler, {"hub_auth": self.hub_auth}),
        ]
