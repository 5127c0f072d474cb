"""The ``fleet-memory`` command line: a thin adapter over the facade."""

from .app import app, main

__all__ = ["app", "main"]
