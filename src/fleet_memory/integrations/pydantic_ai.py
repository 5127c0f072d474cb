"""Pydantic AI on fleet-memory: ``FleetMemoryToolset`` is a ``FunctionToolset`` with typed
``remember`` / ``recall`` / ``forget`` tools (``Agent(..., toolsets=[…])``).

Mapping: the toolset is bound to one fleet-memory agent (``agent_id``). The user is the one given
when it is made; when none is given, it is taken from the run's dependencies (``deps=``): their
``user_id`` attribute or key. With no user at all, the memories are the agent's own.

The tools answer typed values that Pydantic AI serialises for the model: ``remember`` the
``StoredMemory`` list of what was stored, ``recall`` a ``RecalledMemory`` list (best first),
``forget`` whether a memory was removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..extras import require

require("pydantic-ai", "fleet_memory.integrations.pydantic_ai", "pydantic_ai")

from pydantic import BaseModel  # noqa: E402
from pydantic_ai import RunContext  # noqa: E402
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

from . import tools as core  # noqa: E402

__all__ = ["FleetMemoryToolset", "RecalledMemory", "StoredMemory"]


class StoredMemory(BaseModel):
    id: str
    text: str


class RecalledMemory(BaseModel):
    id: str
    text: str
    score: float
    event_date: datetime


class FleetMemoryToolset(FunctionToolset[Any]):
    """``remember``, ``recall`` and ``forget`` over ``memory`` for ``agent_id`` (and a user)."""

    def __init__(self, memory: Any, agent_id: str, *, user_id: str | None = None) -> None:
        super().__init__()
        self.memory, self.agent_id, self.user_id = memory, agent_id, user_id
        for function in (self.remember, self.recall, self.forget):
            self.add_function(function, takes_ctx=True, name=function.__name__,
                              description=core.DESCRIPTIONS[function.__name__])

    def _scope(self, ctx: RunContext[Any]) -> core.Scope:
        deps = ctx.deps
        user = deps.get("user_id") if isinstance(deps, Mapping) else getattr(deps, "user_id", None)
        return core.Scope(self.agent_id, self.user_id or user, source="pydantic-ai")

    def remember(self, ctx: RunContext[Any], text: str) -> list[StoredMemory]:
        result = core.remember_result(self.memory, self._scope(ctx), text)
        return [StoredMemory(id=str(u.id), text=u.text) for u in result.units]

    def recall(self, ctx: RunContext[Any], query: str, limit: int = 5) -> list[RecalledMemory]:
        return [RecalledMemory(id=str(r.id), text=r.text, score=r.weight, event_date=r.event_date)
                for r in core.recall_results(self.memory, self._scope(ctx), query, limit)]

    def forget(self, ctx: RunContext[Any], memory_id: str) -> bool:
        return core.forget_unit(self.memory, self._scope(ctx), memory_id) is not None
