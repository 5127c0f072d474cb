"""The OpenAI Agents SDK on fleet-memory: ``memory_tools`` (``remember`` / ``recall`` / ``forget``
as function tools) and ``with_memories``, which gives an agent, for one run, instructions that
carry what the memory recalls for the run's message.

Mapping: the tools and the helper are bound to one fleet-memory agent (``agent_id``). The user is
the one given when they are made; when none is given, the tools take it from the run's context
(``Runner.run(..., context=…)``): its ``user_id`` attribute or key. With no user at all, the
memories are the agent's own, shared by every run.

Not supported: the SDK's ``Session`` (conversation history) seam — that is short-term history, not
long-term memory; keep a ``Session`` for the turns and these tools for what should last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..extras import require

require("openai-agents", "fleet_memory.integrations.openai_agents", "agents")

from agents import Agent, FunctionTool, RunContextWrapper, function_tool  # noqa: E402

from . import tools as core  # noqa: E402

__all__ = ["memory_tools", "with_memories"]


def _context_user(context: Any) -> str | None:
    if isinstance(context, Mapping):
        return context.get("user_id")
    return getattr(context, "user_id", None)


def memory_tools(memory: Any, agent_id: str, *, user_id: str | None = None) -> list[FunctionTool]:
    """``remember``, ``recall`` and ``forget`` for an agent (see the module docstring for the user)."""

    def scope(ctx: RunContextWrapper[Any]) -> core.Scope:
        return core.Scope(agent_id, user_id or _context_user(ctx.context), source="openai-agents")

    def remember(ctx: RunContextWrapper[Any], text: str) -> str:
        return core.remember(memory, scope(ctx), text)

    def recall(ctx: RunContextWrapper[Any], query: str, limit: int = 5) -> str:
        return core.recall(memory, scope(ctx), query, limit)

    def forget(ctx: RunContextWrapper[Any], memory_id: str) -> str:
        return core.forget(memory, scope(ctx), memory_id)

    return [function_tool(f, name_override=f.__name__, description_override=core.DESCRIPTIONS[f.__name__])
            for f in (remember, recall, forget)]


def with_memories(agent: Agent[Any], memory: Any, agent_id: str, message: str, *, user_id: str | None = None,
                  limit: int = 5) -> Agent[Any]:
    """A copy of ``agent`` whose instructions end with the memories recalled for ``message``
    (``FleetMemory.build_context``: fenced as data, grouped by type). Call it per run."""
    recalled = memory.build_context(agent_id, message, user_id=user_id, limit=limit)
    base = agent.instructions
    if callable(base):
        async def instructions(ctx: RunContextWrapper[Any], current: Agent[Any]) -> str:
            text = base(ctx, current)
            text = await text if hasattr(text, "__await__") else text
            return f"{text}\n\n{recalled}"
        return agent.clone(instructions=instructions)
    return agent.clone(instructions=f"{base}\n\n{recalled}" if base else recalled)
