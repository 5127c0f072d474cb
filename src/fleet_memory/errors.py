"""The exceptions fleet-memory raises.

    FleetMemoryError
    ├── InvalidInputError (also ValueError)   bad argument: names the field and the limit
    ├── NotFoundError (also LookupError)      an id or name that does not exist for this agent
    ├── ConfigurationError                    settings that cannot work together
    │   └── PortInUseError                    ``serve``'s port is taken by another process
    ├── DatabaseError
    │   ├── DatabaseUnavailableError          a configured database cannot be reached / lacks pgvector
    │   └── SchemaError                       schema newer than this code, or embedding size mismatch
    ├── ProviderError                         a model (embedder, NLP, LLM) cannot be loaded or answered badly
    │   └── ExtractionError                   an LLM kept returning output that fails validation
    ├── AuthError                             missing / wrong API key (front doors map it to 401/403)
    └── BusyError                             a limit on work in flight was reached: retry after a while (429)

Every message says what was wrong and, where there is one, what to do about it. Front doors
translate these into exit codes and HTTP statuses; nothing else is caught and hidden.
"""

from __future__ import annotations

__all__ = [
    "AuthError",
    "BusyError",
    "ConfigurationError",
    "DatabaseError",
    "DatabaseUnavailableError",
    "ExtractionError",
    "FleetMemoryError",
    "InvalidInputError",
    "NotFoundError",
    "PortInUseError",
    "ProviderError",
    "SchemaError",
]


class FleetMemoryError(Exception):
    """Base class of every error fleet-memory raises on purpose."""


class InvalidInputError(FleetMemoryError, ValueError):
    """An argument is out of bounds. ``field`` names it, ``limit`` says what is allowed."""

    def __init__(self, field: str, problem: str, limit: str | None = None) -> None:
        self.field = field
        self.problem = problem
        self.limit = limit
        message = f"{field}: {problem}"
        if limit:
            message += f" (limit: {limit})"
        super().__init__(message)


class NotFoundError(FleetMemoryError, LookupError):
    """The thing asked for does not exist for this agent."""

    def __init__(self, kind: str, key: object, agent_id: str | None = None) -> None:
        self.kind = kind
        self.key = key
        where = f" for agent {agent_id!r}" if agent_id is not None else ""
        super().__init__(f"{kind} {key!s} not found{where}")


class ConfigurationError(FleetMemoryError):
    """Settings that cannot work."""


class PortInUseError(ConfigurationError):
    """The port a server was asked to listen on is taken (``fleet-memory serve`` exits with 7)."""


class DatabaseError(FleetMemoryError):
    """Something about the database."""


class DatabaseUnavailableError(DatabaseError):
    """A configured database cannot be reached or lacks pgvector. Never falls back to another store."""


class SchemaError(DatabaseError):
    """The database schema does not fit this code (newer version, other embedding size)."""


class ProviderError(FleetMemoryError):
    """A model provider failed to load or to answer."""


class ExtractionError(ProviderError):
    """An LLM's answers kept failing validation after the allowed retries."""


class AuthError(FleetMemoryError):
    """Missing, unknown or out-of-scope API key. ``status`` is 401 or 403."""

    def __init__(self, message: str, status: int = 401) -> None:
        self.status = status
        super().__init__(message)


class BusyError(FleetMemoryError):
    """Too much work of one agent (or one key) is in flight: nothing was done; retry after
    ``retry_after_s`` seconds (REST answers 429 or 409 with ``Retry-After``)."""

    def __init__(self, message: str, retry_after_s: float = 1.0, status: int = 429) -> None:
        self.retry_after_s = retry_after_s
        self.status = status
        super().__init__(message)
