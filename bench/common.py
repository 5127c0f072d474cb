"""What the benchmark scripts share: a throwaway data directory and the JSON report."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any


def temporary_home(name: str) -> Path:
    """A fresh data directory, removed at exit (registered before the embedded server starts, so
    its stop, registered later, runs first)."""
    home = tempfile.mkdtemp(prefix=f"fm-{name}-")
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    return Path(home)


def write_report(report: Any, path: str | Path | None) -> None:
    """The full report as JSON at ``path`` (``--json``); nothing when no path was given."""
    if path:
        Path(path).write_text(json.dumps(report, indent=2, default=str))
