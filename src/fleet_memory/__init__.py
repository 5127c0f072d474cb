"""fleet-memory: long-term memory for AI agents on PostgreSQL + pgvector.

Importing this package loads no model, no database driver and no torch; those load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .clock import FixedClock, SystemClock
from .config import Config, IngestConfig, LLMConfig
from .errors import (
    AuthError,
    ConfigurationError,
    DatabaseError,
    DatabaseUnavailableError,
    ExtractionError,
    FleetMemoryError,
    InvalidInputError,
    NotFoundError,
    ProviderError,
    SchemaError,
)
from .model import Entity, Explanation, Link, LinkKind, MemoryType, MemoryUnit, PathStep, PutResult, SearchResult
from .model import ConsolidationReport, ConversationReport, MaintenanceReport

if TYPE_CHECKING:
    from .memory import FleetMemory, TemporalSemanticMemory

__all__ = [
    "AuthError",
    "Config",
    "ConfigurationError",
    "ConsolidationReport",
    "ConversationReport",
    "DatabaseError",
    "DatabaseUnavailableError",
    "Entity",
    "Explanation",
    "ExtractionError",
    "FixedClock",
    "FleetMemory",
    "FleetMemoryError",
    "IngestConfig",
    "InvalidInputError",
    "Link",
    "LinkKind",
    "LLMConfig",
    "MaintenanceReport",
    "MemoryType",
    "MemoryUnit",
    "NotFoundError",
    "PathStep",
    "ProviderError",
    "PutResult",
    "SchemaError",
    "SearchResult",
    "SystemClock",
    "TemporalSemanticMemory",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The facade imports the database driver; load it only when asked for.
    if name in ("FleetMemory", "TemporalSemanticMemory"):
        from . import memory

        return getattr(memory, name)
    raise AttributeError(f"module 'fleet_memory' has no attribute {name!r}")
