"""LlamaIndex: the block inside LlamaIndex's own ``Memory`` — messages that overflow the
short-term window are flushed to it and stored; a later session, through new objects, gets the
right fact back in its system prompt for the user's question; another user gets nothing."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from .conftest import FACTS


@pytest.fixture(scope="module")
def li():
    """LlamaIndex's pieces, imported when these tests run rather than when they are collected
    (every worker of ``make check`` collects every module)."""
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
    from llama_index.core.memory import Memory

    from fleet_memory.integrations.llamaindex import FleetMemoryBlock

    return SimpleNamespace(ChatMessage=ChatMessage, Memory=Memory, SimpleChatEngine=SimpleChatEngine,
                           MockLLM=MockLLMWithChatMemoryOfLastCall, Block=FleetMemoryBlock)


def _memory(li, block, session: str):
    # a word count stands in for tiktoken, whose encodings would be downloaded
    return li.Memory.from_defaults(session_id=session, token_limit=60, chat_history_token_ratio=0.5,
                                   token_flush_size=20, tokenizer_fn=str.split, memory_blocks=[block])


async def _conversation(li, memory) -> None:
    for fact in FACTS:
        await memory.aput(li.ChatMessage(role="user", content=fact))
        await memory.aput(li.ChatMessage(role="assistant", content="Noted, I will keep that in mind for later."))


def test_flushed_messages_are_recalled_in_a_later_session(li, open_memory):
    first = li.Block(memory=open_memory(), agent_id="assistant", user_id="alice")
    asyncio.run(_conversation(li, _memory(li, first, "s1")))
    stored = first.memory.list_units("assistant").units
    assert {u.text for u in stored} >= set(FACTS[:2]) and {u.session_id for u in stored} == {"s1"}

    later = _memory(li, li.Block(memory=open_memory(), agent_id="assistant", user_id="alice"), "s2")
    asyncio.run(later.aput(li.ChatMessage(role="user", content="I forgot something.")))
    prompt = asyncio.run(later.aget(input="What is Bob's job?"))
    assert "Bob works as a dentist in Lyon." in prompt[0].content.split("\n- ")[1]

    other = _memory(li, li.Block(memory=open_memory(), agent_id="assistant", user_id="bob"), "s3")
    assert all("dentist" not in (m.content or "") for m in asyncio.run(other.aget(input="What is Bob's job?")))


def test_a_chat_engine_with_the_mock_llm_sees_what_an_earlier_session_said(li, open_memory):
    first = _memory(li, li.Block(memory=open_memory(), agent_id="assistant", user_id="alice"), "s1")
    engine = li.SimpleChatEngine.from_defaults(llm=li.MockLLM(max_tokens=5), memory=first)
    for fact in FACTS:
        engine.chat(fact)

    llm = li.MockLLM(max_tokens=5)  # a later process: new objects, a new session
    later = _memory(li, li.Block(memory=open_memory(), agent_id="assistant", user_id="alice"), "s2")
    li.SimpleChatEngine.from_defaults(llm=llm, memory=later).chat("What is Bob's job?")
    system = "\n".join(m.content or "" for m in llm.last_chat_messages if m.role.value == "system")
    assert "Bob works as a dentist in Lyon." in system
