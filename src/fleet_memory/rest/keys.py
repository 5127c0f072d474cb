"""``GET /v1/me``: what the request's API key may do — its name, prefix, whether it is an admin
key and the agents it may act for — so that a client (the memory browser at ``/ui``) shows only
those agents without trying each. It reads the key's own record only, through the same
``authenticate`` as every route (401 for a missing, unknown or revoked key); with keys turned off
(``serve --no-auth``) it answers as an admin."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from fastapi import APIRouter, Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from . import schemas as s
from .deps import get_memory, key_of

__all__ = ["keys_router"]

_bearer = HTTPBearer(auto_error=False)
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False)


def keys_router() -> APIRouter:
    r = APIRouter(tags=["agents"])

    @r.get("/v1/me", response_model=s.KeyScopeOut)
    def me(request: Request, bearer: Annotated[Optional[HTTPAuthorizationCredentials], Depends(_bearer)],
           header: Annotated[Optional[str], Depends(_api_key)]) -> Any:
        """The request's key: whether it is an admin key and which agents it may act for."""
        if not request.app.state.auth:
            return {"auth": False, "name": None, "prefix": None, "admin": True, "agent_ids": []}
        record = get_memory(request).authenticate(key_of(bearer, header))
        return {"auth": True, "name": record.name, "prefix": record.prefix, "admin": record.admin,
                "agent_ids": list(record.agent_ids)}

    return r
