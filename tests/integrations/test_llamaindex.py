"""LlamaIndex: the block inside LlamaIndex's own ``Memory`` — messages that overflow the
short-term window are flushed to it and stored; a later session, through new objects, gets the
right fact back in its system prompt for the user's question; another user gets nothing."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.base.llms.types import ChatMessage  # noqa: E402
from llama_index.core.memory import Memory  # noqa: E402

from fleet_memory.integrations.llamaindex import FleetMemoryBlock  # noqa: E402

from .conftest import FACTS  # noqa: E402


def _memory(block: FleetMemoryBlock, session: str) -> Memory:
    # a word count stands in for tiktoken, whose encodings would be downloaded
    return Memory.from_defaults(session_id=session, token_limit=60, chat_history_token_ratio=0.5, token_flush_size=20,
                                tokenizer_fn=str.split, memory_blocks=[block])


async def _conversation(memory: Memory) -> None:
    for fact in FACTS:
        await memory.aput(ChatMessage(role="user", content=fact))
        await memory.aput(ChatMessage(role="assistant", content="Noted, I will keep that in mind for later."))


def test_flushed_messages_are_recalled_in_a_later_session(open_memory):
    first = FleetMemoryBlock(memory=open_memory(), agent_id="assistant", user_id="alice")
    asyncio.run(_conversation(_memory(first, "s1")))
    stored = first.memory.list_units("assistant").units
    assert {u.text for u in stored} >= set(FACTS[:2]) and {u.session_id for u in stored} == {"s1"}

    later = _memory(FleetMemoryBlock(memory=open_memory(), agent_id="assistant", user_id="alice"), "s2")
    asyncio.run(later.aput(ChatMessage(role="user", content="I forgot something.")))
    prompt = asyncio.run(later.aget(input="What is Bob's job?"))
    assert "Bob works as a dentist in Lyon." in prompt[0].content.split("\n- ")[1]

    other = _memory(FleetMemoryBlock(memory=open_memory(), agent_id="assistant", user_id="bob"), "s3")
    assert all("dentist" not in (m.content or "") for m in asyncio.run(other.aget(input="What is Bob's job?")))


def test_a_chat_engine_with_the_mock_llm_sees_what_an_earlier_session_said(open_memory):
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall

    first = _memory(FleetMemoryBlock(memory=open_memory(), agent_id="assistant", user_id="alice"), "s1")
    engine = SimpleChatEngine.from_defaults(llm=MockLLMWithChatMemoryOfLastCall(max_tokens=5), memory=first)
    for fact in FACTS:
        engine.chat(fact)

    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=5)  # a later process: new objects, a new session
    later = _memory(FleetMemoryBlock(memory=open_memory(), agent_id="assistant", user_id="alice"), "s2")
    SimpleChatEngine.from_defaults(llm=llm, memory=later).chat("What is Bob's job?")
    system = "\n".join(m.content or "" for m in llm.last_chat_messages if m.role.value == "system")
    assert "Bob works as a dentist in Lyon." in system
