"""The MCP server (official ``mcp`` SDK, ``MCPServer``): tools over the facade.

Tools: ``remember`` (put), ``recall`` (search, with metadata filters), ``build_context``,
``forget`` (delete a unit), ``forget_user`` and ``list_entities``. Results carry what a model needs
(ids, text, type, date, weight), never timing internals. Over stdio (``fleet-memory mcp``) the process's own database is used and an
optional default agent fills a missing ``agent_id``. Over HTTP (mounted at ``/mcp`` by the REST
server) the request's API key is checked by the REST app (401) and, per call, the key must be
allowed to act for the tool's ``agent_id`` (else the call fails with a 403 message). Facade calls
run in a worker thread so the event loop is never blocked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Optional, Union

from ..extras import require

require("mcp", "the MCP server", "mcp")

import anyio  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError

from ..model import plain
from ..errors import FleetMemoryError

if TYPE_CHECKING:
    from ..memory import FleetMemory

__all__ = ["build_server"]

Authorizer = Callable[[Optional[Mapping[str, str]], str], None]

RECALL_FIELDS = ("id", "text", "memory_type", "event_date", "weight")  # what a model needs of a result

INSTRUCTIONS = (
    "Long-term memory. Use 'remember' to store facts worth keeping, 'recall' to look up what is known "
    "about a question, 'build_context' to get a ready prompt section, 'forget' to delete one memory by id, "
    "'forget_user' to delete everything about one user, and 'list_entities' to see the people, places and "
    "organisations remembered."
)


def _untouched_logging(make: Callable[[], Any]) -> Any:
    """The SDK calls ``logging.basicConfig`` when a server is made, which would give the host's root
    logger a handler at INFO (and flood stderr with every library's INFO lines). basicConfig does
    nothing when the root logger has a handler, so one stands in while the server is made."""
    root = logging.getLogger()
    if root.handlers:
        return make()
    guard = logging.NullHandler()
    root.addHandler(guard)
    try:
        return make()
    finally:
        root.removeHandler(guard)


def build_server(memory: Callable[[], FleetMemory], *, default_agent: str | None = None,
                 authorize: Authorizer | None = None) -> Any:
    server = _untouched_logging(lambda: MCPServer("fleet-memory", instructions=INSTRUCTIONS, version="0.1.0"))

    async def call(ctx: Context, agent_id: str | None, fn: Callable[[FleetMemory, str], Any]) -> Any:
        agent = agent_id or default_agent
        if not agent:
            raise ToolError("agent_id: required (no default agent is configured)")
        try:
            if authorize is not None:
                authorize(ctx.headers, agent)
            return plain(await anyio.to_thread.run_sync(lambda: fn(memory(), agent)))
        except FleetMemoryError as exc:
            raise ToolError(str(exc)) from exc

    _store_tools(server, call)
    _recall_tools(server, call)
    _refuse_unknown_arguments(server)
    return server


Call = Callable[[Context, Optional[str], Callable[["FleetMemory", str], Any]], Any]


def _store_tools(server: Any, call: Call) -> None:
    """``remember``, ``forget`` and ``forget_user``."""

    @server.tool()
    async def remember(content: str, ctx: Context, agent_id: Optional[str] = None, context: Optional[str] = None,
                       memory_type: str = "episodic", importance: Optional[float] = None,
                       tags: Optional[list[str]] = None, corrects: Optional[str] = None,
                       speaker: Optional[str] = None, user_id: Optional[str] = None,
                       event_date: Optional[str] = None, format: str = "auto") -> dict[str, Any]:
        """Store a memory. `content` is split into self-contained, sentence-level facts; `memory_type` is
        episodic (events), semantic (facts) or procedural (how-to); `importance` 0-1 is computed when omitted.
        `speaker`: who said it (a chat message; "I" then means the speaker); `user_id`: whose memory it is
        (forget_user removes it); `event_date`: when it happened (ISO 8601; default now); `format`: how
        `content` is read (auto, text, markdown, rst). `corrects`: the id of a memory this one replaces
        (a new version; the old one is kept as history). Returns the stored units with their ids."""
        options: dict[str, Any] = {"context": context, "memory_type": memory_type, "importance": importance,
                                   "format": format}
        options.update({k: v for k, v in (("speaker", speaker), ("user_id", user_id), ("event_date", event_date),
                                          ("tags", tags)) if v})
        if corrects:
            result = await call(ctx, agent_id, lambda m, a: m.update(a, corrects, content, **options))
        else:
            result = await call(ctx, agent_id, lambda m, a: m.put(a, content, **options))
        return {k: result[k] for k in ("document_id", "units", "skipped_reason") if result.get(k) is not None}

    @server.tool()
    async def forget(unit_id: str, ctx: Context, agent_id: Optional[str] = None) -> dict[str, Any]:
        """Delete one memory unit by its id (as returned by remember or recall)."""
        await call(ctx, agent_id, lambda m, a: m.delete(a, unit_id))
        return {"deleted": unit_id}

    @server.tool()
    async def forget_user(user_id: str, ctx: Context, agent_id: Optional[str] = None) -> dict[str, Any]:
        """Forget everything remembered about one user (every memory stored with that `user_id`, and what
        was consolidated from them), for example when the user asks to be forgotten."""
        removed = await call(ctx, agent_id, lambda m, a: m.forget_user(a, user_id))
        return {"user_id": user_id, "removed": removed}


def _recall_tools(server: Any, call: Call) -> None:
    """``recall``, ``build_context`` and ``list_entities``."""

    @server.tool()
    async def recall(query: str, ctx: Context, agent_id: Optional[str] = None, top_k: int = 5,
                     types: Optional[list[str]] = None, min_importance: Optional[float] = None,
                     user_id: Optional[str] = None,
                     metadata: Optional[dict[str, Union[str, int, float, bool, None]]] = None) -> dict[str, Any]:
        """Recall what is remembered about `query` (spreading activation over time, meaning and entity
        links). Returns up to `top_k` memories with `id`, `text`, `memory_type`, `event_date` and `weight`,
        best first. `metadata` keeps only memories whose metadata has each key equal to its value."""
        hits = await call(ctx, agent_id, lambda m, a: m.search(a, query, top_k=top_k, types=types, user_id=user_id,
                                                                min_importance=min_importance, metadata=metadata))
        return {"results": [{k: hit[k] for k in RECALL_FIELDS} for hit in hits]}

    @server.tool()
    async def build_context(message: str, ctx: Context, agent_id: Optional[str] = None, limit: int = 10,
                            user_id: Optional[str] = None) -> str:
        """A prompt section for `message`: relevant past events, learned knowledge and effective procedures,
        with remembered text fenced as data, followed by the message."""
        return await call(ctx, agent_id, lambda m, a: m.build_context(a, message, limit=limit, user_id=user_id))

    @server.tool()
    async def list_entities(ctx: Context, agent_id: Optional[str] = None, limit: int = 50) -> dict[str, Any]:
        """The people, organisations and places remembered, with how often each is mentioned."""
        entities = await call(ctx, agent_id, lambda m, a: m.list_entities(a, limit=limit))
        return {"entities": entities}


def _refuse_unknown_arguments(server: Any) -> None:
    """Every tool refuses arguments it does not take (the SDK's default ignores them, so a
    misspelt ``importance`` was silently dropped); the listed input schemas say so too."""
    from pydantic import ConfigDict

    for tool in server._tool_manager.list_tools():
        base = tool.fn_metadata.arg_model
        strict = type(base.__name__, (base,), {"model_config": ConfigDict(**base.model_config, extra="forbid")})
        tool.fn_metadata.arg_model = strict
        tool.parameters = {**tool.parameters, "additionalProperties": False}
