"""CrewAI on fleet-memory: ``FleetMemoryStorage``, a ``Storage`` for a crew's external memory
(``Crew(external_memory=ExternalMemory(storage=FleetMemoryStorage(memory, "crew-agent", user_id=…)))``).

What CrewAI does with it: after each task, the crew saves the agent's answer to its external
memory (``save(value, metadata)``: the answer's text, the task's ``description`` and the agent's
``messages``); before each task it searches the external memory with the task's description and
the context from earlier tasks (``search(query, limit, score_threshold)``) and puts each result's
``content`` into the task's prompt under "External memories"; ``crew.reset_memories(command_type=
"external")`` calls ``reset()``. ``ExternalMemory.save`` / ``search`` may also be called directly.

- ``save`` stores the final answer (the text after CrewAI's ``Final Answer:`` marker, as CrewAI's
  parser reads it; the whole text when there is none) as a semantic memory of the scope, its facts
  ingested like any put (source ``crewai``). The metadata is kept, the task description under
  ``crewai.task``; the ``messages`` are not stored (they repeat the prompts, which already hold the
  memories recalled for the task).
- ``search`` recalls the scope's best memories for the query (at most 50; a query is cut to the
  configured ``max_query_chars``) as dicts: ``id``, ``content`` (the memory's text), ``score``
  (the recall weight), ``event_date`` (ISO 8601), ``memory_type`` and ``metadata``.
- ``reset`` removes the scope's memories: with a user, ``forget_user`` (that user's memories and
  nothing else); with no user, ``delete_agent`` (everything the fleet-memory agent holds).

Mapping: CrewAI gives a storage no identity of its own (its external memory is the crew's, shared
by the crew's agents, and the calls carry no agent or user). As CrewAI's own Mem0 storage takes a
``user_id`` and an ``agent_id`` in its config, this storage is bound to one fleet-memory agent
(``agent_id``: name it after the crew) and optionally one user (``user_id``) and session
(``session_id``): build one storage (and crew) per user, and a user's crew neither recalls nor
resets another user's memories. With no user, the memories are the agent's own, shared by every
run, and recall covers every memory of the agent.

Not supported: ``score_threshold`` (CrewAI's similarity cut-off, 0.6 by default, on its own
vector store's scale) is ignored: the recall weight is relevance × recency × frequency × importance,
not a similarity, so ``limit`` alone bounds the results. The CrewAI agent that saved an answer is
not recorded (CrewAI does not pass it to the storage). CrewAI 1.10 replaced external memory with
its unified ``Memory`` and a ``StorageBackend`` that searches by a vector CrewAI computed; those
releases cannot be installed beside fleet-memory (they pin pydantic < 2.13, openai < 3 and mcp < 2),
and are not supported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..extras import require

require("crewai", "fleet_memory.integrations.crewai", "crewai")

from crewai.memory.storage.interface import Storage  # noqa: E402

from ..validation import check_agent_id, check_user_id  # noqa: E402
from . import tools as core  # noqa: E402

__all__ = ["FleetMemoryStorage", "final_answer"]

FINAL_ANSWER = "Final Answer:"  # CrewAI's marker of an agent's answer (crewai.agents.parser)
TASK = "crewai.task"  # metadata key of the task description


def final_answer(text: str) -> str:
    """The answer in an agent's output text, as CrewAI's parser reads it."""
    if FINAL_ANSWER not in text:
        return text.strip()
    answer = text.split(FINAL_ANSWER)[-1].strip()
    if answer.endswith("```") and answer.count("```") % 2:
        answer = answer[:-3].rstrip()
    return answer


class FleetMemoryStorage(Storage):
    """The external memory of a crew in ``memory``: fleet-memory agent ``agent_id``, and ``user_id``
    (and ``session_id``) when given. See the module docstring for what each call does."""

    def __init__(self, memory: Any, agent_id: str, *, user_id: str | None = None,
                 session_id: str | None = None) -> None:
        super().__init__()
        limits = memory.config.limits
        self.memory = memory
        self.agent_id = check_agent_id(agent_id, limits)
        self.user_id = check_user_id(user_id, limits)
        self.session_id = check_user_id(session_id, limits, "session_id")
        self.scope = core.Scope(self.agent_id, self.user_id, self.session_id, source="crewai")

    def save(self, value: Any, metadata: Mapping[str, Any] | None = None) -> None:
        text = final_answer(value if isinstance(value, str) else str(value))
        if not text:
            return
        meta = {key: item for key, item in (metadata or {}).items() if key != "messages"}
        description = meta.pop("description", None)
        if isinstance(description, str) and description.strip():
            meta[TASK] = description
        elif description is not None:
            meta["description"] = description  # not CrewAI's task description: kept as given
        self.memory.put(self.agent_id, text, user_id=self.user_id, session_id=self.session_id, source="crewai",
                        memory_type="semantic", metadata=meta or None)

    def search(self, query: str, limit: int = 5, score_threshold: float = 0.6) -> list[dict[str, Any]]:
        query = (query or "")[:self.memory.config.limits.max_query_chars]
        if not query.strip() or limit < 1:
            return []
        results = core.recall_results(self.memory, self.scope, query, min(int(limit), core.MAX_RECALL))
        return [{"id": str(r.id), "content": r.text, "score": r.weight, "event_date": r.event_date.isoformat(),
                 "memory_type": r.memory_type.value, "metadata": dict(r.metadata)} for r in results]

    def reset(self) -> None:
        if self.user_id is not None:
            self.memory.forget_user(self.agent_id, self.user_id)
        else:
            self.memory.delete_agent(self.agent_id)

    def __deepcopy__(self, memo: dict[int, Any]) -> FleetMemoryStorage:
        # a deep copy (pydantic's model_copy(deep=True) of the ExternalMemory) shares the fleet
        # memory, its connection pool and models, instead of duplicating them
        return FleetMemoryStorage(self.memory, self.agent_id, user_id=self.user_id, session_id=self.session_id)
