"""The classroom app (ipywidgets and plotly); the engine never imports this package."""

from ..serving import lighten_dashboard_kernel

lighten_dashboard_kernel()  # before plotly is imported below

from .app import ClassroomApp  # noqa: E402

__all__ = ["ClassroomApp"]
