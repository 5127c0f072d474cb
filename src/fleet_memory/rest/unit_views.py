"""One memory seen from around it, for the memory browser's memory page: its entities, its links
by kind and weight, its source document (the sentence located in it) and archiving it by hand.
One facade call each (``unit_views``), behind the same per-agent key as every agent route."""

from __future__ import annotations

from typing import Any, Optional

from fastapi import APIRouter, Query

from ..config import Limits
from . import schemas as s
from .deps import Agent, Memory

__all__ = ["unit_views_router"]


def unit_views_router() -> APIRouter:
    r = APIRouter(prefix="/v1/agents/{agent_id}/memories/{unit_id}", tags=["memories"])

    @r.get("/entities", response_model=list[s.EntityOut])
    def entities(agent: Agent, memory: Memory, unit_id: str) -> Any:
        """The entities the memory mentions, by name."""
        return memory.unit_entities(agent, unit_id)

    @r.get("/links", response_model=list[s.UnitLinkOut])
    def links(agent: Agent, memory: Memory, unit_id: str,
              limit: int = Query(100, ge=1, le=Limits().max_top_k)) -> Any:
        """The memory's links: semantic, entity, temporal; strongest first within a kind."""
        return [link.to_dict() for link in memory.unit_links(agent, unit_id, limit=limit)]

    @r.get("/document", response_model=Optional[s.SourceDocumentOut])
    def document(agent: Agent, memory: Memory, unit_id: str) -> Any:
        """The document the memory was split from (null for one stored without: a consolidated memory)."""
        found = memory.unit_document(agent, unit_id)
        return None if found is None else found.to_dict()

    @r.post("/archive", response_model=s.UnitOut)
    def archive(agent: Agent, memory: Memory, unit_id: str) -> Any:
        """Archive the memory: out of recall until restored (POST .../restore)."""
        return memory.archive(agent, unit_id).to_dict()

    return r
