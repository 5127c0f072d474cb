"""LlamaIndex on fleet-memory: ``FleetMemoryBlock``, a long-term memory block for
``llama_index.core.memory.Memory`` (``Memory.from_defaults(memory_blocks=[…])``).

When the short-term window overflows, ``Memory`` flushes its oldest messages to the block: each
message with text is stored as a turn (speaker: its role), so its facts are ingested. On every
``Memory.get`` the block recalls the memories that best answer the latest user message and returns
them as text (one line per memory), which ``Memory`` places in the system prompt.

Mapping: the block is bound to one fleet-memory agent (``agent_id``) and optionally one user; the
``Memory``'s ``session_id`` becomes the stored turns' session. Recall covers the user's memories
of every session, so a new session remembers what an old one said.

Not supported: truncation below a token budget keeps LlamaIndex's default (the block's text is
dropped whole); tool-call and image parts of a message are not stored, only its text.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..extras import require

require("llamaindex", "fleet_memory.integrations.llamaindex", "llama_index.core")

from llama_index.core.base.llms.types import ChatMessage, MessageRole  # noqa: E402
from llama_index.core.memory import BaseMemoryBlock  # noqa: E402

from . import tools as core  # noqa: E402

__all__ = ["FleetMemoryBlock"]


class FleetMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory of ``agent_id`` (and ``user_id``) in ``memory``, for LlamaIndex's ``Memory``."""

    name: str = "fleet_memory"
    description: str | None = "Facts remembered from earlier conversations."
    memory: Any
    agent_id: str
    user_id: str | None = None
    top_k: int = 5

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        asked = [m.content for m in messages or () if m.role == MessageRole.USER and (m.content or "").strip()]
        if not asked:
            return ""
        scope = core.Scope(self.agent_id, self.user_id)
        results = await asyncio.to_thread(core.recall_results, self.memory, scope, asked[-1], self.top_k)
        return core.format_results(results) if results else ""

    async def _aput(self, messages: list[ChatMessage]) -> None:
        items = [{"content": m.content, "speaker": m.role.value, "user_id": self.user_id,
                  "session_id": m.additional_kwargs.get("session_id"), "source": "llamaindex"}
                 for m in messages if m.role in (MessageRole.USER, MessageRole.ASSISTANT) and (m.content or "").strip()]
        if items:
            await asyncio.to_thread(self.memory.put_many, items, agent_id=self.agent_id)
