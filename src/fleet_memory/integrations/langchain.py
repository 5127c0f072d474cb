"""LangChain on fleet-memory: ``FleetMemoryRetriever`` (a ``BaseRetriever``: recall as ``Document``s)
and ``memory_tools`` (``remember`` / ``recall`` / ``forget`` as ``StructuredTool``s), so a
``create_agent`` or any tool-calling agent can manage its own memory.

Mapping: the retriever and the tools are bound to one fleet-memory agent (``agent_id``). The user is
the one given when they are made; when none is given, the tools take it from the run's config
(``configurable.user_id``) and the session from its thread (``configurable.thread_id``), as
LangGraph passes them. With no user at all, the memories are the agent's own, shared by every run.

A ``Document`` holds the memory's text; its metadata: ``id`` (the unit id, for ``forget``),
``weight`` (the recall score), ``event_date`` (ISO 8601), ``entities`` (names mentioned),
``source``, ``memory_type`` and ``context``.
"""

from __future__ import annotations

from typing import Any

from ..extras import require

require("langchain", "fleet_memory.integrations.langchain", "langchain_core")

from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.tools import StructuredTool  # noqa: E402
from pydantic import ConfigDict  # noqa: E402

from . import tools as core  # noqa: E402

__all__ = ["FleetMemoryRetriever", "memory_tools"]


class FleetMemoryRetriever(BaseRetriever):
    """Recall from ``memory`` for ``agent_id`` (and ``user_id``): the ``top_k`` best memories."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any
    agent_id: str
    user_id: str | None = None
    top_k: int = 5

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        scope = core.Scope(self.agent_id, self.user_id)
        results = core.recall_results(self.memory, scope, query, self.top_k)
        details = core.unit_details(self.memory, self.agent_id, results)
        return [Document(page_content=r.text, id=str(r.id), metadata={
            "id": str(r.id), "weight": r.weight, "event_date": r.event_date.isoformat(),
            "entities": list(details[r.id].entities) if r.id in details else [],
            "source": details[r.id].source if r.id in details else None,
            "memory_type": r.memory_type.value, "context": r.context,
        }) for r in results]


def memory_tools(memory: Any, agent_id: str, *, user_id: str | None = None,
                 session_id: str | None = None) -> list[StructuredTool]:
    """``remember``, ``recall`` and ``forget`` for an agent (see the module docstring for the user)."""

    def scope(config: RunnableConfig | None) -> core.Scope:
        configurable = (config or {}).get("configurable") or {}
        return core.Scope(agent_id, user_id or configurable.get("user_id"),
                          session_id or configurable.get("thread_id"), source="langchain")

    def remember(text: str, config: RunnableConfig) -> str:
        return core.remember(memory, scope(config), text)

    def recall(query: str, config: RunnableConfig, limit: int = 5) -> str:
        return core.recall(memory, scope(config), query, limit)

    def forget(memory_id: str, config: RunnableConfig) -> str:
        return core.forget(memory, scope(config), memory_id)

    return [StructuredTool.from_function(func=f, name=f.__name__, description=core.DESCRIPTIONS[f.__name__])
            for f in (remember, recall, forget)]
