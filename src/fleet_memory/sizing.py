"""An agent's size class (``FleetMemory.agent_size``), the one boundary of ``store.db.agent_indexes``:
``small`` below ``OWN_INDEX_UNITS`` units (recall ranks the agent's rows exactly, through B-tree
indexes led by the agent), ``large`` from it on (the agent has its own HNSW and full-text indexes,
built after the put that crosses the boundary or by maintenance; ``own_indexes`` says whether they
are there now). And the effective importance of a unit, for pages that show it (``lifecycle.decay``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .store import Database
from .store.db.agent_indexes import OWN_INDEX_UNITS
from .store.reads import agent_size as size_sql

__all__ = ["AgentSize", "agent_size", "size_class", "OWN_INDEX_UNITS"]


@dataclass(frozen=True, slots=True)
class AgentSize:
    agent_id: str
    units: int
    size_class: Literal["small", "large"]
    own_indexes: bool
    last_write: datetime | None

    def to_dict(self) -> dict[str, Any]:
        return {"agent_id": self.agent_id, "units": self.units, "size_class": self.size_class,
                "own_indexes": self.own_indexes, "boundary_units": OWN_INDEX_UNITS,
                "last_write": None if self.last_write is None else self.last_write.isoformat()}


def size_class(units: int) -> Literal["small", "large"]:
    return "large" if units >= OWN_INDEX_UNITS else "small"


def agent_size(db: Database, agent_id: str) -> AgentSize:
    """Three cheap reads: a primary-key lookup, a catalogue lookup and the last write."""
    with db.transaction() as conn:
        units = size_sql.unit_count(conn, agent_id)
        own = size_sql.has_own_indexes(conn, agent_id)
        last = size_sql.last_write(conn, agent_id)
    return AgentSize(agent_id, units, size_class(units), own, last)
