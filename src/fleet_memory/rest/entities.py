"""Entity routes: list, get (with its units), rename, merge, delete — one facade call each."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from fastapi import APIRouter, Path, Query, Response

from ..config import Limits
from ..validation import MAX_OFFSET

from . import schemas as s
from .deps import Agent, Memory


_MAX = Limits().max_top_k
EntityName = Annotated[str, Path(min_length=1, max_length=Limits().max_tag_chars,
                                 description="The entity's id or name.")]


def entities_router() -> APIRouter:
    r = APIRouter(prefix="/v1/agents/{agent_id}", tags=["entities"])

    @r.get("/entities", response_model=list[s.EntityOut])
    def list_entities(agent: Agent, memory: Memory, limit: int = Query(100, ge=1, le=_MAX),
                      offset: int = Query(0, ge=0, le=MAX_OFFSET), label: Optional[str] = None) -> Any:
        return memory.list_entities(agent, limit=limit, offset=offset, label=label)

    @r.get("/entities/{entity:path}", response_model=s.EntityDetailOut)
    def get_entity(agent: Agent, memory: Memory, entity: EntityName,
                   unit_limit: int = Query(100, ge=1, le=_MAX)) -> Any:
        detail = memory.get_entity(agent, entity, unit_limit=unit_limit)
        return {"entity": detail.entity, "units": [u.to_dict() for u in detail.units]}

    @r.post("/entities/{entity:path}/rename", response_model=s.EntityOut)
    def rename(agent: Agent, memory: Memory, entity: EntityName, body: s.RenameIn) -> Any:
        return memory.rename_entity(agent, entity, body.name)

    @r.post("/entities/merge", response_model=s.EntityOut)
    def merge(agent: Agent, memory: Memory, body: s.MergeIn) -> Any:
        return memory.merge_entities(agent, body.keep, body.drop)

    @r.delete("/entities/{entity:path}", status_code=204)
    def delete(agent: Agent, memory: Memory, entity: EntityName) -> Response:
        memory.delete_entity(agent, entity)
        return Response(status_code=204)

    return r
