"""Wire schemas (Pydantic) for the REST server, separate from the domain records. Requests forbid
unknown fields and non-finite numbers; the facade checks bounds and names the field when it
refuses (→ 422). The schema states the same bounds (``Limits``' defaults), so a client generated
from the OpenAPI document validates the way the server does."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Optional, Union
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from ..config import Limits
from ..model import AgentSummary as AgentSummaryOut  # noqa: F401
from ..model import AgentStats as StatsOut  # plain records with no wire-only fields serve as they are
from ..transfer import TransferReport as TransferOut

MemoryTypeName = Literal["episodic", "semantic", "procedural"]
_L = Limits()
Name = Annotated[str, Field(max_length=_L.max_agent_id_chars)]
Tag = Annotated[str, Field(min_length=1, max_length=_L.max_tag_chars)]
Tags = Annotated[list[Tag], Field(max_length=_L.max_tags)]
Unit = Annotated[float, Field(ge=0, le=1)]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class PutIn(Request):
    content: str = Field(..., min_length=1, max_length=_L.max_content_chars,
                         description="Text to remember; split into sentence-level units.")
    context: Optional[str] = Field(None, max_length=_L.max_context_chars)
    event_date: Optional[datetime] = Field(None, description="When it happened (naive = UTC); default now.")
    memory_type: MemoryTypeName = "episodic"
    importance: Optional[Unit] = None
    tags: Tags = []
    user_id: Optional[Name] = None
    session_id: Optional[Name] = None
    source: Optional[Tag] = None
    speaker: Optional[Tag] = None
    metadata: dict[str, Any] = {}
    format: Literal["auto", "text", "markdown", "rst"] = Field(
        "auto", description="How content is read: Markdown / reStructuredText by their parsers (prose only, "
                            "heading path as context); auto detects them.")
    keep_code: bool = Field(False, description="Store each code block of structured content as one unit.")


class UpdateIn(Request):
    content: str = Field(..., min_length=1, max_length=_L.max_content_chars,
                         description="The new version; it supersedes the unit.")
    context: Optional[str] = Field(None, max_length=_L.max_context_chars)
    event_date: Optional[datetime] = Field(None, description="When the change happened; default now.")
    importance: Optional[Unit] = None
    tags: Optional[Tags] = None
    speaker: Optional[Tag] = None
    metadata: Optional[dict[str, Any]] = None


class PutManyIn(Request):
    items: list[PutIn] = Field(..., min_length=1, max_length=_L.max_batch_items)


class StoredUnitOut(BaseModel):
    id: UUID
    text: str
    memory_type: MemoryTypeName


class PutOut(BaseModel):
    document_id: Optional[UUID]
    units: list[StoredUnitOut]
    skipped_reason: Optional[str] = None


class PutManyOut(BaseModel):
    results: list[PutOut]


class UnitOut(BaseModel):
    id: UUID
    agent_id: str
    text: str
    memory_type: MemoryTypeName
    event_date: datetime
    created_at: datetime
    importance: float
    access_count: int
    last_accessed: Optional[datetime]
    context: Optional[str]
    document_id: Optional[UUID]
    tags: list[str]
    user_id: Optional[str]
    session_id: Optional[str]
    source: Optional[str]
    speaker: Optional[str]
    archived_at: Optional[datetime]
    importance_set_at: Optional[datetime]
    metadata: dict[str, Any]
    valid_until: Optional[datetime] = None
    effective_importance: Optional[float] = Field(
        None, description="importance decayed along the forgetting curve at the server's now (the list and "
                          "one-memory reads give it; the value maintenance archives by).")


class UnitPageOut(BaseModel):
    units: list[UnitOut]
    next_offset: Optional[int]


class SearchIn(Request):
    query: str = Field(..., min_length=1, max_length=_L.max_query_chars)
    top_k: int = Field(10, ge=1, le=_L.max_top_k)
    limit: Optional[int] = Field(None, ge=1, le=_L.max_top_k, description="Another name for top_k; wins when given.")
    thinking_budget: int = Field(100, ge=1, le=_L.max_thinking_budget)
    types: Optional[list[MemoryTypeName]] = None
    min_importance: Optional[Unit] = None
    max_age_days: Optional[float] = Field(None, ge=0, le=365_000)
    since: Optional[datetime] = None
    until: Optional[datetime] = None
    tags: Optional[Tags] = None
    user_id: Optional[Name] = None
    session_id: Optional[Name] = None
    include_archived: bool = False
    metadata: Optional[dict[str, Union[StrictBool, int, float, str, None]]] = Field(
        None, description="Only units whose metadata has each of these keys equal to its value.")
    explain: bool = False
    reinforce: bool = True
    preset: Optional[Literal["balanced", "fast", "deep", "vector"]] = None
    now: Optional[datetime] = Field(None, description="Reference time for recency and time words; default now.")
    as_of: Optional[datetime] = Field(None, description="Answer with what was current then.")
    include_superseded: bool = True


class SearchHitOut(BaseModel):
    id: UUID
    text: str
    weight: float
    memory_type: MemoryTypeName
    event_date: datetime
    context: Optional[str]
    document_id: Optional[UUID]
    importance: float
    speaker: Optional[str]
    tags: list[str]
    metadata: dict[str, Any]
    explanation: Optional[dict[str, Any]]
    valid_until: Optional[datetime] = None


class SearchOut(BaseModel):
    results: list[SearchHitOut]


class ContextIn(Request):
    message: str = Field(..., min_length=1, max_length=_L.max_query_chars)
    user_id: Optional[Name] = None
    limit: int = Field(10, ge=1, le=_L.max_top_k)
    min_importance: Unit = 0.3
    max_chars: Optional[int] = Field(None, ge=1, le=_L.max_content_chars)


class ContextOut(BaseModel):
    context: str


class TurnIn(Request):
    role: Tag
    content: str = Field(..., min_length=1, max_length=_L.max_content_chars)
    time: Optional[datetime] = None


class ConversationIn(Request):
    turns: list[TurnIn] = Field(..., min_length=1, max_length=_L.max_batch_items)
    user_id: Optional[Name] = None
    session_id: Optional[Name] = None


class EntityOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: UUID
    agent_id: str
    name: str
    label: str
    aliases: list[str]
    first_seen: Optional[datetime]
    last_seen: Optional[datetime]
    mention_count: int


class EntityDetailOut(BaseModel):
    entity: EntityOut
    units: list[UnitOut]


class RenameIn(Request):
    name: Tag


class MergeIn(Request):
    keep: Tag = Field(..., description="Entity (id or name) that stays.")
    drop: Tag = Field(..., description="Entity (id or name) merged into it; its mentions move.")


class NowIn(Request):
    now: Optional[datetime] = Field(None, description="Run as of this time; default now.")


class GraphNodeOut(BaseModel):
    id: str
    text: str
    type: str
    importance: float
    date: str
    access_count: int
    entities: list[str]


class GraphEdgeOut(BaseModel):
    source: str
    target: str
    kind: Literal["temporal", "semantic", "entity"]
    weight: float
    label: Optional[str]


class TraceStepOut(BaseModel):
    id: str
    rank: int
    weight: float
    path: list[str]


class GraphOut(BaseModel):
    agent_id: str
    query: Optional[str]
    truncated: bool
    meta: dict[str, Any]
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
    trace: list[TraceStepOut]


class ReportOut(BaseModel):
    """A lifecycle report, as the facade's ``to_dict`` gives it."""

    model_config = ConfigDict(extra="allow")


class HealthOut(BaseModel):
    status: Literal["ok", "ready", "starting", "failed"]
    version: str
    phases: Optional[dict[str, Optional[float]]] = Field(
        None, description="Readiness: seconds since the process started at each start-up milestone done so far "
                          "(imported, database, embedder, nlp, settled).")
    error: Optional[str] = Field(None, description="Readiness: why loading the models failed.")


class RemovedOut(BaseModel):
    removed: int = Field(..., description="Memory units removed.")


class KeyScopeOut(BaseModel):
    """What the request's API key may do (``GET /v1/me``)."""

    auth: bool = Field(..., description="False when the server runs without keys (serve --no-auth).")
    name: Optional[str]
    prefix: Optional[str] = Field(..., description="The key's first characters, as `keys list` shows them.")
    admin: bool = Field(..., description="An admin key acts for every agent and may list them.")
    agent_ids: list[str] = Field(..., description="The agents a non-admin key may act for.")


class UnitLinkOut(BaseModel):
    """One link of a memory (``GET .../memories/{unit_id}/links``)."""

    kind: Literal["semantic", "entity", "temporal"]
    weight: float = Field(..., ge=0, le=1, description="Cosine (semantic), nearness in time (temporal), 1 (entity).")
    unit: UnitOut = Field(..., description="The memory at the other end.")


class SourceDocumentOut(BaseModel):
    """The document a memory was split from (``GET .../memories/{unit_id}/document``)."""

    id: UUID
    content: str
    context: Optional[str]
    source: Optional[str]
    speaker: Optional[str]
    event_date: datetime
    created_at: datetime
    start: Optional[int] = Field(..., ge=0, description="Where the memory's sentence starts in content "
                                                        "(characters); null when it is not found there.")
    end: Optional[int] = Field(..., ge=0, description="Where it ends (excluded).")


class FactVersionOut(BaseModel):
    unit: UnitOut
    replaced_by: Optional[UUID] = Field(..., description="The next version; null for the current one.")
    reason: Optional[str] = Field(..., description="Why it was replaced: rule:<slot>, llm or update.")


class FactLineOut(BaseModel):
    slot: Optional[str] = Field(..., description="The attribute a supersession rule matched (e.g. residence).")
    versions: list[FactVersionOut] = Field(..., description="Oldest first.")


class HolderOut(BaseModel):
    id: UUID
    name: str
    label: str


class FactTimelineOut(BaseModel):
    """Facts that change, for one holder (``GET .../facts``)."""

    entity: Optional[HolderOut]
    user_id: Optional[str]
    lines: list[FactLineOut] = Field(..., description="Oldest first, by their first version.")


class AgentSizeOut(BaseModel):
    """An agent's size class (``GET /v1/agents/{agent_id}/size``)."""

    agent_id: str
    units: int
    size_class: Literal["small", "large"] = Field(..., description="small: below boundary_units, ranked exactly; "
                                                                   "large: the agent has its own indexes.")
    own_indexes: bool = Field(..., description="Whether the agent's own vector index is built and valid.")
    boundary_units: int
    last_write: Optional[datetime]
