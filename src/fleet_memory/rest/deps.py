"""FastAPI dependencies shared by the routers: the facade, and the path's agent once the
request's API key may act for it (401 / 403 otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

from fastapi import Depends, Path, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

if TYPE_CHECKING:
    from ..memory import FleetMemory

__all__ = ["Agent", "Memory", "agent_scope", "get_memory"]

_bearer = HTTPBearer(auto_error=False)
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False)


def key_of(bearer: Optional[HTTPAuthorizationCredentials], header: Optional[str]) -> Optional[str]:
    return bearer.credentials if bearer is not None else header


def get_memory(request: Request) -> FleetMemory:
    return request.app.state.memory


def agent_scope(request: Request, agent_id: Annotated[str, Path(max_length=128)],
                bearer: Annotated[Optional[HTTPAuthorizationCredentials], Depends(_bearer)],
                header: Annotated[Optional[str], Depends(_api_key)]) -> str:
    """The path's agent, once the request's key may act for it."""
    if request.app.state.auth:
        get_memory(request).authenticate(key_of(bearer, header), agent_id)
    return agent_id


Memory = Annotated["FleetMemory", Depends(get_memory)]
Agent = Annotated[str, Depends(agent_scope)]
