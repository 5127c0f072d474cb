"""Routes over whole agents and users: list the agents (admin key), delete an agent, forget one
user of an agent — one facade call each."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from ..config import Limits
from ..validation import MAX_OFFSET
from . import schemas as s
from .deps import Agent, Memory, get_memory, key_of

_bearer = HTTPBearer(auto_error=False)
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False)
_L = Limits()
UserId = Annotated[str, Path(min_length=1, max_length=_L.max_agent_id_chars, description="The user's id.")]


def admin_scope(request: Request, bearer: Annotated[Optional[HTTPAuthorizationCredentials], Depends(_bearer)],
                header: Annotated[Optional[str], Depends(_api_key)]) -> None:
    """401 without a valid key, 403 unless it is an admin key."""
    if request.app.state.auth:
        from ..errors import AuthError

        record = get_memory(request).authenticate(key_of(bearer, header))
        if not record.admin:
            raise AuthError("listing agents needs an admin key (fleet-memory keys create --admin)", status=403)


def agents_router() -> APIRouter:
    r = APIRouter(tags=["agents"])

    @r.get("/v1/agents", response_model=list[s.AgentSummaryOut], dependencies=[Depends(admin_scope)])
    def list_agents(memory: Memory, limit: int = Query(100, ge=1, le=_L.max_top_k),
                    offset: int = Query(0, ge=0, le=MAX_OFFSET)) -> Any:
        """Every agent in the store with its unit and document counts (admin key only)."""
        return memory.list_agents(limit=limit, offset=offset)

    @r.get("/v1/agents/{agent_id}/size", response_model=s.AgentSizeOut)
    def agent_size(agent: Agent, memory: Memory) -> Any:
        """The agent's size class, whether its own indexes are built, and its last write."""
        return memory.agent_size(agent).to_dict()

    @r.delete("/v1/agents/{agent_id}", response_model=s.RemovedOut)
    def delete_agent(agent: Agent, memory: Memory) -> Any:
        """Remove everything the agent has stored."""
        return {"removed": memory.delete_agent(agent)}

    @r.delete("/v1/agents/{agent_id}/users/{user_id:path}", response_model=s.RemovedOut)
    def forget_user(agent: Agent, memory: Memory, user_id: UserId) -> Any:
        """Forget one user of the agent: their units, what was consolidated from them, their documents."""
        return {"removed": memory.forget_user(agent, user_id)}

    return r
