"""How `amteach dashboard` serves the app to a class, and what its kernels know about it.

- `config`: the server's configuration (grace periods, the visitor cap sized from memory, the
  class database) and the command line that starts it (`voila_command`). Light: the command
  line imports it.
- `environment`: what the server puts in its kernels' environment (the amteach template,
  plotly's bundle, the served flag) and what a kernel reads back (`is_served`).
- `preheat`: how a kernel from Voilà's preheated pool learns its visitor's page.
- `pool`: the kernel manager with the cap and prompt clean-up; `app`: the Voilà server itself
  (`python -m amteach.serving.app`). These two import Voilà and the Jupyter server, so only the
  server process imports them, never this package's `__init__`.
"""

from .config import (
    GRACE_SECONDS,
    HUB_SERVICE_ENV,
    MEMORY_SHARE_FOR_VISITORS,
    PER_ADDRESS_AUTO,
    PER_DEVICE,
    UNOPENED_SECONDS,
    VISITOR_MB,
    address_cap,
    available_memory_mb,
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
from .environment import (
    PLOTLY_BUNDLE,
    PLOTLY_BUNDLE_ENV,
    PUBLIC_URL_ENV,
    SERVED_ENV,
    TEMPLATE,
    is_served,
    lighten_dashboard_kernel,
    voila_environment,
)
from .preheat import QUERY_STRING, VOILA_PREHEAT, when_page_known

__all__ = [
    "GRACE_SECONDS",
    "HUB_SERVICE_ENV",
    "MEMORY_SHARE_FOR_VISITORS",
    "PER_ADDRESS_AUTO",
    "PER_DEVICE",
    "PLOTLY_BUNDLE",
    "PLOTLY_BUNDLE_ENV",
    "PUBLIC_URL_ENV",
    "QUERY_STRING",
    "SERVED_ENV",
    "TEMPLATE",
    "UNOPENED_SECONDS",
    "VISITOR_MB",
    "VOILA_PREHEAT",
    "address_cap",
    "available_memory_mb",
    "check_hub_login",
    "check_port_free",
    "default_max_visitors",
    "is_served",
    "kernel_socket_folder",
    "lighten_dashboard_kernel",
    "normalized_base_url",
    "rooms_environment",
    "running_as_root",
    "started_by_hub",
    "voila_command",
    "voila_environment",
    "when_page_known",
]
