"""The classroom app (ipywidgets and plotly); the engine never imports this package."""

from .app import ClassroomApp

__all__ = ["ClassroomApp"]
