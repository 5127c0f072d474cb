"""Each facade method as one HTTP call of the REST server: the request to send and how to read
the answer. Written once; ``Client`` and ``AsyncClient`` only differ in how they send
(sans-I/O: nothing here touches the network).

An error answer becomes the facade's exception: 422 → ``InvalidInputError`` naming the field,
404 → ``NotFoundError``, 401 / 403 → ``AuthError``, 413 → ``InvalidInputError('body')``,
503 → ``DatabaseError``, 502 → ``ProviderError``, anything else → ``FleetMemoryError``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
import json
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any, Optional
from urllib.parse import quote
from uuid import UUID

import httpx

from ..errors import (AuthError, BusyError, DatabaseError, FleetMemoryError, InvalidInputError, NotFoundError,
                      ProviderError)
from ..model import (
    AgentStats,
    AgentSummary,
    ConsolidationReport,
    ConversationReport,
    Entity,
    EntityDetail,
    MaintenanceReport,
    MemoryUnit,
    PutResult,
    SearchResult,
    UnitPage,
)
from ..model import plain
from ..validation import check_path_segment, check_uuid
from .records import from_plain

__all__ = ["Call", "OPERATIONS", "read_response"]


@dataclass(frozen=True, slots=True)
class Call:
    method: str
    path: str
    parse: Callable[[Any], Any]
    json: Any = None
    params: Optional[Mapping[str, Any]] = None
    idempotency_key: Optional[str] = None  # sent as ``Idempotency-Key``; the client retries a 409 with it
    lines: Optional[str] = None  # a JSON Lines body (an import), sent instead of ``json``
    text: bool = False  # the answer is JSON Lines (an export), handed to ``parse`` as text


def _agent(agent_id: str, *rest: object) -> str:
    """The path of ``agent_id``'s resource ``rest``: each part percent-encoded as ONE segment.
    Empty parts and the dot segments ``.`` / ``..`` are refused here, before anything is sent:
    HTTP libraries resolve them (``/agents/A/users/..`` is sent as ``/agents/A``), which would
    turn a user's forget into the agent's delete."""
    return "/v1/agents/" + "/".join([_segment(agent_id, "agent_id"), *(_segment(p, "id") for p in rest)])


def _segment(part: object, field: str) -> str:
    text = str(part)
    if not text:
        raise InvalidInputError(field, "is empty", "a non-empty id")
    return quote(check_path_segment(text, field), safe="")


def _unit(unit_id: UUID | str) -> str:
    return str(check_uuid(unit_id, "unit_id"))


def _named(value: UUID | str, field: str) -> str:
    _segment(value, field)
    return str(value)


def _body(**values: Any) -> dict[str, Any]:
    return {k: plain(v) for k, v in values.items() if v is not None}


def _as(tp: Any, key: str | None = None) -> Callable[[Any], Any]:
    return lambda data: from_plain(tp, data if key is None else data[key])


def put(agent_id: str, content: str, *, context: str | None = None, event_date: datetime | str | None = None,
        memory_type: str = "episodic", importance: float | None = None, tags: Iterable[str] = (),
        user_id: str | None = None, session_id: str | None = None, source: str | None = None,
        speaker: str | None = None, metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None) -> Call:
    body = _body(content=content, context=context, event_date=event_date, memory_type=memory_type,
                 importance=importance, tags=list(tags), user_id=user_id, session_id=session_id, source=source,
                 speaker=speaker, metadata=dict(metadata) if metadata else None)
    return Call("POST", _agent(agent_id, "memories"), _as(PutResult), body, idempotency_key=idempotency_key)


def put_many(items: Iterable[Mapping[str, Any]], *, agent_id: str, idempotency_key: str | None = None) -> Call:
    return Call("POST", _agent(agent_id, "memories", "batch"),
                lambda data: [from_plain(PutResult, r) for r in data["results"]],
                {"items": [_body(**item) for item in items]}, idempotency_key=idempotency_key)


def update(agent_id: str, unit_id: UUID | str, content: str, *, idempotency_key: str | None = None,
           **options: Any) -> Call:
    return Call("POST", _agent(agent_id, "memories", _unit(unit_id), "versions"), _as(PutResult),
                _body(content=content, **options), idempotency_key=idempotency_key)


def history(agent_id: str, unit_id: UUID | str) -> Call:
    return Call("GET", _agent(agent_id, "memories", _unit(unit_id), "history"),
                lambda data: [from_plain(MemoryUnit, u) for u in data])


def search(agent_id: str, query: str, *, top_k: int = 10, thinking_budget: int = 100, **options: Any) -> Call:
    body = _body(query=query, top_k=top_k, thinking_budget=thinking_budget, **options)
    return Call("POST", _agent(agent_id, "search"), lambda data: [from_plain(SearchResult, r) for r in data["results"]],
                body)


def get(agent_id: str, unit_id: UUID | str) -> Call:
    return Call("GET", _agent(agent_id, "memories", _unit(unit_id)), _as(MemoryUnit))


def delete(agent_id: str, unit_id: UUID | str) -> Call:
    return Call("DELETE", _agent(agent_id, "memories", _unit(unit_id)), lambda data: None)


def list_units(agent_id: str, *, limit: int = 100, offset: int = 0, metadata: Optional[Mapping[str, Any]] = None,
               **filters: Any) -> Call:
    """``filters``: the facade's (``listing.listing_filter``); ``metadata`` travels as a JSON object."""
    params = _body(limit=limit, offset=offset, metadata=None if metadata is None else json.dumps(dict(metadata)),
                   **filters)
    return Call("GET", _agent(agent_id, "memories"), _as(UnitPage), params=params)


def stats(agent_id: str) -> Call:
    return Call("GET", _agent(agent_id, "stats"), _as(AgentStats))


def restore(agent_id: str, unit_id: UUID | str) -> Call:
    return Call("POST", _agent(agent_id, "memories", _unit(unit_id), "restore"), _as(MemoryUnit))


def sources(agent_id: str, unit_id: UUID | str) -> Call:
    return Call("GET", _agent(agent_id, "memories", _unit(unit_id), "sources"),
                lambda data: [from_plain(MemoryUnit, u) for u in data])


def build_context(agent_id: str, message: str, *, user_id: str | None = None, limit: int = 10,
                  min_importance: float = 0.3, max_chars: int | None = None) -> Call:
    body = _body(message=message, user_id=user_id, limit=limit, min_importance=min_importance, max_chars=max_chars)
    return Call("POST", _agent(agent_id, "context"), lambda data: data["context"], body)


def process_conversation(agent_id: str, turns: Iterable[Mapping[str, Any]], *, user_id: str | None = None,
                         session_id: str | None = None) -> Call:
    body = _body(turns=[_body(**t) for t in turns], user_id=user_id, session_id=session_id)
    return Call("POST", _agent(agent_id, "conversations"), _as(ConversationReport), body)


def maintain(agent_id: str, *, now: datetime | str | None = None) -> Call:
    return Call("POST", _agent(agent_id, "maintenance"), _as(MaintenanceReport), _body(now=now))


def consolidate(agent_id: str, *, now: datetime | str | None = None) -> Call:
    return Call("POST", _agent(agent_id, "consolidation"), _as(ConsolidationReport), _body(now=now))


def list_entities(agent_id: str, *, limit: int = 100, offset: int = 0, label: str | None = None) -> Call:
    return Call("GET", _agent(agent_id, "entities"), lambda data: [from_plain(Entity, e) for e in data],
                params=_body(limit=limit, offset=offset, label=label))


def get_entity(agent_id: str, name_or_id: UUID | str, *, unit_limit: int = 100) -> Call:
    return Call("GET", _agent(agent_id, "entities", _named(name_or_id, "name_or_id")), _as(EntityDetail), params={"unit_limit": unit_limit})


def rename_entity(agent_id: str, name_or_id: UUID | str, new_name: str) -> Call:
    return Call("POST", _agent(agent_id, "entities", _named(name_or_id, "name_or_id"), "rename"), _as(Entity), {"name": new_name})


def merge_entities(agent_id: str, keep: UUID | str, drop: UUID | str) -> Call:
    return Call("POST", _agent(agent_id, "entities", "merge"), _as(Entity), {"keep": str(keep), "drop": str(drop)})


def delete_entity(agent_id: str, name_or_id: UUID | str) -> Call:
    return Call("DELETE", _agent(agent_id, "entities", _named(name_or_id, "name_or_id")), lambda data: None)


def delete_agent(agent_id: str) -> Call:
    return Call("DELETE", _agent(agent_id), lambda data: data["removed"])


def forget_user(agent_id: str, user_id: str) -> Call:
    return Call("DELETE", _agent(agent_id, "users", _named(user_id, "user_id")), lambda data: data["removed"])


def export_agent(agent_id: str, out: IO[str]) -> Call:
    """The agent's export written to ``out``; its report counts the rows of each table, as the
    facade's does."""
    return Call("GET", _agent(agent_id, "export"), lambda text: _exported(agent_id, text, out), text=True)


def _exported(agent_id: str, text: str, out: IO[str]) -> Any:
    from ..transfer import TransferReport

    out.write(text)
    lines = iter(line for line in text.split("\n") if line)  # never on U+2028, which a row may hold
    counts = dict.fromkeys(json.loads(next(lines, "{}")).get("tables", ()), 0)
    for line in lines:
        table = json.loads(line)["table"]
        counts[table] = counts.get(table, 0) + 1
    return TransferReport(agent_id, counts)


def import_agent(agent_id: str, lines: Iterable[str]) -> Call:
    """``lines`` (an export, with or without their line ends) loaded into the empty agent."""
    from ..transfer import TransferReport

    body = "\n".join(line.removesuffix("\n") for line in lines)
    return Call("POST", _agent(agent_id, "import"), _as(TransferReport), lines=body)


def list_agents(*, limit: int = 100, offset: int = 0) -> Call:
    return Call("GET", "/v1/agents", lambda data: [from_plain(AgentSummary, a) for a in data],
                params={"limit": limit, "offset": offset})


OPERATIONS: tuple[Callable[..., Call], ...] = (
    put, put_many, update, history, search, get, delete, list_units, stats, restore, sources, build_context, process_conversation,
    maintain, consolidate, list_entities, get_entity, rename_entity, merge_entities, delete_entity, delete_agent,
    forget_user, list_agents, export_agent, import_agent,
)


def read_response(call: Call, response: httpx.Response) -> Any:
    """The call's result, or the facade's exception for an error answer."""
    if response.status_code < 400:
        return call.parse(response.text if call.text else response.json() if response.content else None)
    try:
        detail = response.json().get("detail")
    except ValueError:
        detail = response.text[:300]
    raise _error(response.status_code, detail, _seconds(response.headers.get("retry-after")))


def _seconds(header: str | None) -> float | None:
    return float(header) if header and header.strip().isdigit() else None


def _error(status: int, detail: Any, retry_after: float | None = None) -> FleetMemoryError:
    if status == 422 and isinstance(detail, list) and detail:
        first = detail[0]
        loc = [str(p) for p in first.get("loc", ())]
        loc = loc[1:] if loc[:1] and loc[0] in ("body", "query", "path", "header") else loc
        limit = (first.get("ctx") or {}).get("limit")
        return InvalidInputError(".".join(loc) or "body", first.get("msg", "invalid"), limit)
    message = detail if isinstance(detail, str) else str(detail)
    if status == 404:
        error = NotFoundError.__new__(NotFoundError)
        Exception.__init__(error, message)
        error.kind, error.key = "resource", None
        return error
    if status in (401, 403):
        return AuthError(message, status)
    if status == 413:
        return InvalidInputError("body", message)
    if status in (409, 429):
        return BusyError(message, retry_after_s=retry_after or 1.0, status=status)
    if status == 503:
        return DatabaseError(message)
    if status == 502:
        return ProviderError(message)
    return FleetMemoryError(f"the server answered {status}: {message}")
