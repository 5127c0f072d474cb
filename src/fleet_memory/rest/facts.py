"""Facts that change, by holder: ``GET /v1/agents/{agent_id}/facts`` (``FleetMemory.fact_timeline``),
behind the agent's key like every agent route."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from fastapi import APIRouter, Query

from ..config import Limits
from . import schemas as s
from .deps import Agent, Memory

__all__ = ["facts_router"]

_L = Limits()


def facts_router() -> APIRouter:
    r = APIRouter(prefix="/v1/agents/{agent_id}", tags=["memories"])

    @r.get("/facts", response_model=s.FactTimelineOut)
    def facts(agent: Agent, memory: Memory,
              entity: Annotated[Optional[str], Query(max_length=_L.max_tag_chars,
                                                     description="The holder: an entity's id, name or alias.")] = None,
              user_id: Annotated[Optional[str], Query(max_length=_L.max_agent_id_chars,
                                                      description="Or the holder: a user.")] = None,
              limit: int = Query(100, ge=1, le=_L.max_top_k)) -> Any:
        """Each line of versions of a fact that holds a memory of the holder (one of entity, user_id),
        versions oldest first with when each was stated and replaced."""
        return memory.fact_timeline(agent, entity=entity, user_id=user_id, limit=limit).to_dict()

    return r
