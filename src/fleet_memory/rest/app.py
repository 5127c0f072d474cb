"""The REST server: FastAPI routes over the facade, one call each.

- Every route under ``/v1/agents/{agent_id}`` needs an API key (``Authorization: Bearer <key>`` or
  ``X-API-Key``) allowed to act for that agent: no / unknown / revoked key → 401, a key for
  other agents → 403. ``auth=False`` (``fleet-memory serve --no-auth``) turns keys off; the CLI
  then only binds to 127.0.0.1.
- Errors: bad input → 422 naming the field (Pydantic's, or the facade's ``InvalidInputError``),
  unknown ids → 404, a body over ``max_body_bytes`` → 413, database down → 503, model → 502.
- ``/mcp``: the MCP server (streamable HTTP, stateless JSON) behind the same keys.
- ``/ui``: the memory browser (``fleet_memory.ui``), static pages that call these routes with a key.
"""

from __future__ import annotations

import functools
import math
import tempfile
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any, Optional

from ..extras import require

require("server", "the REST server", "fastapi", "mcp", "fastapi_offline")

import anyio  # noqa: E402
from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request  # noqa: E402
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse

from .. import __version__
from ..config import Limits
from ..validation import MAX_OFFSET
from ..errors import (AuthError, BusyError, DatabaseError, FleetMemoryError, InvalidInputError, NotFoundError,
                      ProviderError)
from ..idempotency import MAX_KEY_CHARS
from . import schemas as s
from .deps import Agent, Memory
from .agents import agents_router
from ..ui import mount_ui
from .docs import mount_docs
from .errors import location, validation_error
from .entities import entities_router
from .filters import list_filters
from .keys import keys_router
from .limits import BodyLimit, InProgress, McpAuth
from .mcp_http import LazyMcp
from .startup import Startup
from .unit_views import unit_views_router
from .facts import facts_router

if TYPE_CHECKING:
    from ..memory import FleetMemory

__all__ = ["create_app"]

_MAX_PAGE = Limits().max_top_k
WARM_UP_JOIN_S = 300.0  # at shutdown, how long to let a model load that is under way finish
_GRAPH_LIMIT = Query(200, ge=1, le=5_000)


def _error(request: Request, exc: FleetMemoryError) -> JSONResponse:
    if isinstance(exc, InvalidInputError):
        detail = [{"loc": location(request, exc.field), "msg": exc.problem, "type": "invalid_input",
                   "ctx": {"limit": exc.limit}}]
        return JSONResponse({"detail": detail}, status_code=422)
    status = (404 if isinstance(exc, NotFoundError) else exc.status if isinstance(exc, (AuthError, BusyError))
              else 503 if isinstance(exc, DatabaseError) else 502 if isinstance(exc, ProviderError) else 400)
    headers = ({"WWW-Authenticate": "Bearer"} if status == 401 else
               {"Retry-After": str(max(1, math.ceil(exc.retry_after_s)))} if isinstance(exc, BusyError) else None)
    return JSONResponse({"detail": str(exc)}, status_code=status, headers=headers)


IdempotencyKey = Annotated[Optional[str], Header(alias="Idempotency-Key", min_length=1, max_length=MAX_KEY_CHARS,
                                                 description="A retry with the same key returns the first response "
                                                             "and stores nothing twice.")]


def _json(model: type, value: Any) -> Any:
    return model.model_validate(value, from_attributes=True).model_dump(mode="json")


def _once(memory: FleetMemory, agent: str, key: str | None, request: list, produce: Callable[[], Any]) -> Any:
    """``produce()``, once per ``Idempotency-Key`` when one is given (``FleetMemory.idempotent``)."""
    if key is None:
        return produce()
    fingerprint = [r.model_dump(mode="json") if hasattr(r, "model_dump") else r for r in request]
    return memory.idempotent(agent, key, fingerprint, produce)


def _unit_out(memory: FleetMemory, unit: Any) -> dict[str, Any]:
    """A unit with its effective (decayed) importance now, for the list and the one-unit read."""
    return {**unit.to_dict(), "effective_importance": memory.effective_importance(unit)}


def memories_router() -> APIRouter:
    """Writing, reading and deleting one agent's memories."""
    r = APIRouter(prefix="/v1/agents/{agent_id}", tags=["memories"])

    @r.post("/memories", status_code=201, response_model=s.PutOut)
    def put(agent: Agent, memory: Memory, body: s.PutIn, key: IdempotencyKey = None) -> Any:
        return _once(memory, agent, key, ["put", body],
                     lambda: _json(s.PutOut, memory.put(agent, **body.model_dump())))

    @r.post("/memories/batch", status_code=201, response_model=s.PutManyOut)
    def put_many(agent: Agent, memory: Memory, body: s.PutManyIn, key: IdempotencyKey = None) -> Any:
        return _once(memory, agent, key, ["put_many", body], lambda: _json(s.PutManyOut, {
            "results": memory.put_many([i.model_dump() for i in body.items], agent_id=agent)}))

    @r.post("/memories/{unit_id}/versions", status_code=201, response_model=s.PutOut)
    def update(agent: Agent, memory: Memory, unit_id: str, body: s.UpdateIn, key: IdempotencyKey = None) -> Any:
        options = body.model_dump(exclude={"content"}, exclude_unset=True)
        return _once(memory, agent, key, ["update", unit_id, body],
                     lambda: _json(s.PutOut, memory.update(agent, unit_id, body.content, **options)))

    @r.get("/memories/{unit_id}/history", response_model=list[s.UnitOut])
    def history(agent: Agent, memory: Memory, unit_id: str) -> Any:
        return [u.to_dict() for u in memory.history(agent, unit_id)]

    @r.get("/memories", response_model=s.UnitPageOut)
    def list_units(agent: Agent, memory: Memory, filters: Annotated[dict, Depends(list_filters)],
                   limit: int = Query(100, ge=1, le=_MAX_PAGE), offset: int = Query(0, ge=0, le=MAX_OFFSET)) -> Any:
        """A page of the agent's memories, oldest event first, filtered (``listing.listing_filter``)."""
        page = memory.list_units(agent, limit=limit, offset=offset, **filters)
        return {"units": [_unit_out(memory, u) for u in page.units], "next_offset": page.next_offset}

    @r.get("/memories/{unit_id}", response_model=s.UnitOut)
    def get(agent: Agent, memory: Memory, unit_id: str) -> Any:
        return _unit_out(memory, memory.get(agent, unit_id))

    @r.delete("/memories/{unit_id}", status_code=204)
    def delete(agent: Agent, memory: Memory, unit_id: str) -> Response:
        memory.delete(agent, unit_id)
        return Response(status_code=204)

    @r.post("/memories/{unit_id}/restore", response_model=s.UnitOut)
    def restore(agent: Agent, memory: Memory, unit_id: str) -> Any:
        return memory.restore(agent, unit_id).to_dict()

    @r.get("/memories/{unit_id}/sources", response_model=list[s.UnitOut])
    def sources(agent: Agent, memory: Memory, unit_id: str) -> Any:
        return [u.to_dict() for u in memory.sources(agent, unit_id)]

    @r.get("/stats", response_model=s.StatsOut)
    def stats(agent: Agent, memory: Memory) -> Any:
        return memory.stats(agent)

    return r


def recall_router() -> APIRouter:
    """Search, context building and the lifecycle jobs of one agent."""
    r = APIRouter(prefix="/v1/agents/{agent_id}", tags=["memories"])

    @r.post("/search", response_model=s.SearchOut)
    def search(agent: Agent, memory: Memory, body: s.SearchIn) -> Any:
        options = body.model_dump(exclude={"query", "top_k", "thinking_budget"}, exclude_none=True)
        hits = memory.search(agent, body.query, top_k=body.top_k, thinking_budget=body.thinking_budget, **options)
        return {"results": [h.to_dict() for h in hits]}

    @r.post("/context", response_model=s.ContextOut)
    def context(agent: Agent, memory: Memory, body: s.ContextIn) -> Any:
        return {"context": memory.build_context(agent, body.message, **body.model_dump(exclude={"message"}))}

    @r.post("/conversations", status_code=201, response_model=s.ReportOut)
    def conversations(agent: Agent, memory: Memory, body: s.ConversationIn) -> Any:
        turns = [t.model_dump(exclude_none=True) for t in body.turns]
        return memory.process_conversation(agent, turns, user_id=body.user_id, session_id=body.session_id).to_dict()

    @r.post("/maintenance", response_model=s.ReportOut)
    def maintenance(agent: Agent, memory: Memory, body: Optional[s.NowIn] = None) -> Any:
        return memory.maintain(agent, now=body.now if body else None).to_dict()

    @r.post("/consolidation", response_model=s.ReportOut)
    def consolidation(agent: Agent, memory: Memory, body: Optional[s.NowIn] = None) -> Any:
        return memory.consolidate(agent, now=body.now if body else None).to_dict()

    return r


def pictures_router() -> APIRouter:
    r = APIRouter(prefix="/v1/agents/{agent_id}", tags=["graph and export"])

    def graph_of(agent: str, memory: FleetMemory, entity: Optional[str], query: Optional[str], since: Optional[str],
                 until: Optional[str], limit: int) -> Any:
        return memory.graph(agent, entity=entity, query=query, since=since, until=until, limit=limit)

    @r.get("/graph", response_model=s.GraphOut)
    def graph(agent: Agent, memory: Memory, entity: Optional[str] = None, query: Optional[str] = None,
              since: Optional[str] = None, until: Optional[str] = None, limit: int = _GRAPH_LIMIT) -> Any:
        return graph_of(agent, memory, entity, query, since, until, limit).to_dict()

    @r.get("/graph.html", response_class=HTMLResponse)
    def graph_page(agent: Agent, memory: Memory, entity: Optional[str] = None, query: Optional[str] = None,
                   since: Optional[str] = None, until: Optional[str] = None, limit: int = _GRAPH_LIMIT) -> HTMLResponse:
        from ..viz import render_html

        return HTMLResponse(render_html(graph_of(agent, memory, entity, query, since, until, limit)))

    @r.get("/export", response_class=StreamingResponse,
           responses={200: {"content": {"application/x-ndjson": {}}, "description": "JSON Lines export"}})
    def export(agent: Agent, memory: Memory) -> StreamingResponse:
        spool = tempfile.SpooledTemporaryFile(max_size=8 * 2**20, mode="w+", encoding="utf-8")
        memory.export_agent(agent, spool)
        spool.seek(0)

        def lines() -> Iterator[str]:
            with spool:
                yield from spool

        return StreamingResponse(lines(), media_type="application/x-ndjson",
                                 headers={"Content-Disposition": _attachment(f"{agent}.jsonl")})

    @r.post("/import", status_code=201, response_model=s.TransferOut,
            openapi_extra={"requestBody": {"required": True, "content": {"application/x-ndjson": {
                "schema": {"type": "string", "description": "an export (JSON Lines) of any agent"}}}}})
    async def import_(agent: Agent, memory: Memory, request: Request) -> Any:
        """Load an export into this agent, which must have no memories yet (one transaction)."""
        try:
            text = (await request.body()).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError("body", f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        return (await run_in_threadpool(memory.import_agent, agent, text.split("\n"))).to_dict()

    return r


def _attachment(filename: str) -> str:
    """A Content-Disposition any agent id fits in (RFC 6266: ASCII fallback plus UTF-8 name)."""
    from urllib.parse import quote

    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


@functools.cache
def agent_routers() -> tuple[APIRouter, ...]:
    """The routes of the API, built once per process: an app includes them by reference, and they
    keep nothing of an app (each call reads its facade and settings from ``request.app.state``),
    so every app of the process shares them."""
    return (memories_router(), unit_views_router(), facts_router(), recall_router(), entities_router(),
            pictures_router(), agents_router(), keys_router())


def create_app(memory: FleetMemory | None = None, *, memory_factory: Callable[[], FleetMemory] | None = None,
               auth: bool = True, max_body_bytes: int = 16 * 2**20, own_process: bool = False) -> FastAPI:
    """The app over ``memory`` (kept open) or one made by ``memory_factory`` at start-up (closed at
    shutdown). ``auth=False`` disables API keys (local use only). ``own_process=True`` (the
    ``serve`` command) loads the models in the background as soon as the database is open and
    keeps the garbage collector off them (``providers.heap``), which only a process of our own may
    do (``rest.startup``): ``/health`` says the process is live, ``/health/ready`` that it can
    serve; a request that needs a model waits for it meanwhile."""
    def build_mcp() -> Any:
        from ..mcp_server import build_server

        server = build_server(lambda: app.state.memory, authorize=None if not auth else
                              lambda headers, agent: app.state.memory.authenticate(McpAuth.key(headers), agent))
        return McpAuth.configure(server)

    mcp = LazyMcp(build_mcp, lambda: startup.ready.is_set() or startup.error is not None)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        from ..memory import FleetMemory

        owned = memory is None
        app.state.memory = memory if memory is not None else await run_in_threadpool(memory_factory or FleetMemory)
        startup.mark("database")
        warming = None
        if own_process:
            warming = startup.warm_in_background(app.state.memory)
        else:
            startup.finish()
        try:
            async with anyio.create_task_group() as tasks:
                mcp.start(tasks)
                yield
                tasks.cancel_scope.cancel()
        finally:
            if warming is not None:  # a process that exits while torch loads a model aborts (SIGABRT)
                await run_in_threadpool(warming.join, WARM_UP_JOIN_S)
            if owned:
                app.state.memory.close()

    # redirect_slashes=False: a client following a 307 replays a DELETE or POST at another path
    app = FastAPI(title="fleet-memory", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  redirect_slashes=False,
                  description="Long-term memory for AI agents. Authenticate with `Authorization: Bearer <key>`.")
    startup = Startup()
    startup.mark("imported")
    app.state.auth, app.state.startup = auth, startup
    app.add_exception_handler(FleetMemoryError, _error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_middleware(InProgress, state=lambda: app.state)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    for router in agent_routers():
        app.include_router(router)
    mount_docs(app)
    mount_ui(app)  # the memory browser: static pages calling the routes above
    app.add_route("/mcp", McpAuth(mcp, lambda: app.state, auth), methods=["GET", "POST", "DELETE"],
                  include_in_schema=False)
    app.include_router(health_router(startup))
    return app


def health_router(startup: Startup) -> APIRouter:
    """Liveness and readiness (``rest.startup``)."""
    r = APIRouter(tags=["health"])

    @r.get("/health", response_model=s.HealthOut, response_model_exclude_none=True)
    def health() -> Any:
        """Liveness: the process answers."""
        return {"status": "ok", "version": __version__}

    @r.get("/health/ready", response_model=s.HealthOut, response_model_exclude_none=True,
           responses={503: {"description": "still starting (models not loaded yet) or loading failed",
                            "model": s.HealthOut}})
    def ready() -> Any:
        """Readiness: the database is open and the models are loaded (``rest.startup``)."""
        body = {"status": startup.status, "version": __version__, "phases": dict(startup.phases),
                "error": startup.error}
        return body if startup.ready.is_set() else JSONResponse(body, status_code=503)

    return r

