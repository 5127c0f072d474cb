"""What every command shares: opening the facade (injectable for tests), printing machine output
(``--json``) and mapping fleet-memory's errors to one line on stderr and an exit code.

Exit codes: 0 ok · 1 other fleet-memory error · 2 bad input (also typer's usage errors) ·
3 not found · 4 database unavailable / schema · 5 model provider · 6 auth · 7 ``serve``'s port in use.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.text import Text

from ..config import MAX_PARSE_PROCESSES, Config
from ..errors import (
    AuthError,
    DatabaseError,
    FleetMemoryError,
    InvalidInputError,
    NotFoundError,
    PortInUseError,
    ProviderError,
)
from ..model import plain

if TYPE_CHECKING:
    from ..memory import FleetMemory

MemoryFactory = Callable[[], "FleetMemory"]

AGENT = typer.Option(..., "--agent", "-a", envvar="FLEET_MEMORY_AGENT", help="Agent id (or FLEET_MEMORY_AGENT).")
JSON = typer.Option(False, "--json", help="Print machine-readable JSON.")
UNIT_ID = typer.Argument(..., help="The memory unit's id (from put, search or list).")

_EXIT = ((InvalidInputError, 2), (NotFoundError, 3), (DatabaseError, 4), (ProviderError, 5), (AuthError, 6),
         (PortInUseError, 7))


@dataclass
class CliState:
    factory: MemoryFactory | None = None  # None: the facade, configured from the environment
    verbose: bool = False


def state(ctx: typer.Context) -> CliState:
    root = ctx.find_root()
    if not isinstance(root.obj, CliState):
        root.obj = CliState(root.obj) if callable(root.obj) else CliState()
    return root.obj


def open_memory(ctx: typer.Context) -> FleetMemory:
    """The injected facade, else one configured from the environment for a command that owns its
    process: large puts are parsed by worker processes, one per core this process may use, unless
    ``FLEET_MEMORY_PARSE_PROCESSES`` says how many (``ingest.parse_processes``)."""
    from ..memory import FleetMemory

    if (factory := state(ctx).factory) is not None:
        return factory()
    config = Config.from_env()
    if not os.environ.get("FLEET_MEMORY_PARSE_PROCESSES", "").strip():
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        config = replace(config, parse_processes=min(MAX_PARSE_PROCESSES, cores))
    return FleetMemory(config)


@contextmanager
def memory_from(ctx: typer.Context) -> Iterator[FleetMemory]:
    memory = open_memory(ctx)
    try:
        yield memory
    finally:
        memory.close()


def guarded(command: Callable[..., Any]) -> Callable[..., Any]:
    """Map fleet-memory's errors to one line on stderr and a non-zero exit (no traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (FleetMemoryError, OSError, UnicodeError) as exc:  # a file that cannot be read or written
            code = next((c for kind, c in _EXIT if isinstance(exc, kind)), 1)
            message = Text.assemble(("error: ", "bold red"), str(exc))
            Console(stderr=True).print(message, highlight=False, soft_wrap=True)
            raise typer.Exit(code) from None

    return wrapper


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(plain(value), indent=2, ensure_ascii=False) + "\n")


def console(stderr: bool = False) -> Console:
    return Console(highlight=False, soft_wrap=True, stderr=stderr)
