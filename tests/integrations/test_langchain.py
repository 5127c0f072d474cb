"""LangChain: a ``create_agent`` agent whose scripted model calls the memory tools — three facts
stored in one run, recalled in a later run through new objects, forgotten — and the retriever's
documents; the user from the run's config, never another user's memories."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import ToolMessage  # noqa: E402

from fleet_memory.integrations.langchain import FleetMemoryRetriever, memory_tools  # noqa: E402

from .chat_model import calls, scripted  # noqa: E402
from .conftest import ANSWER, FACTS, QUESTION  # noqa: E402

ALICE = {"configurable": {"user_id": "alice", "thread_id": "t1"}}


def _tool_answers(out) -> list[str]:
    return [m.content for m in out["messages"] if isinstance(m, ToolMessage)]


def test_an_agent_remembers_recalls_and_forgets(open_memory):
    first = create_agent(scripted(calls(*[("remember", {"text": f}) for f in FACTS]), "Noted."),
                         tools=memory_tools(open_memory(), "assistant"))
    stored = _tool_answers(first.invoke({"messages": [("user", "Remember these.")]}, ALICE))
    assert len(stored) == 3 and all(s.startswith("Stored: [") for s in stored)

    memory = open_memory()  # a later process
    later = create_agent(scripted(calls(("recall", {"query": QUESTION, "limit": 1})), "orchid42"),
                         tools=memory_tools(memory, "assistant"))
    [recalled] = _tool_answers(later.invoke({"messages": [("user", QUESTION)]}, ALICE))
    assert ANSWER in recalled.splitlines()[0]
    unit_id = re.search(r"\[([0-9a-f-]{36})\]", recalled).group(1)
    assert memory.get("assistant", unit_id).user_id == "alice" and memory.get("assistant", unit_id).session_id == "t1"

    bob = {"configurable": {"user_id": "bob"}}
    intruder = create_agent(scripted(calls(("recall", {"query": QUESTION}), ("forget", {"memory_id": unit_id})), "ok"),
                            tools=memory_tools(memory, "assistant"))
    assert _tool_answers(intruder.invoke({"messages": [("user", "hi")]}, bob)) == [
        "No memories found.", f"No memory with id {unit_id}."]

    owner = create_agent(scripted(calls(("forget", {"memory_id": unit_id})), "done"),
                         tools=memory_tools(memory, "assistant"))
    assert _tool_answers(owner.invoke({"messages": [("user", "forget it")]}, ALICE)) == [f"Forgotten: {ANSWER}"]
    assert all(r.text != ANSWER for r in memory.search("assistant", QUESTION))


def test_the_retriever_returns_documents_with_the_memory_in_metadata(open_memory):
    memory = open_memory()
    for fact in FACTS:
        memory.put("assistant", fact, user_id="alice", source="chat")
    memory.put("assistant", "The office wifi password is tulip7.", user_id="bob")
    docs = FleetMemoryRetriever(memory=memory, agent_id="assistant", user_id="alice", top_k=2).invoke(QUESTION)
    assert docs[0].page_content == ANSWER and len(docs) <= 2
    meta = docs[0].metadata
    assert meta["id"] == docs[0].id and memory.get("assistant", meta["id"]).text == ANSWER
    assert meta["weight"] > 0 and meta["event_date"].startswith("2025-01-01") and meta["source"] == "chat"
    assert "tulip7" not in " ".join(d.page_content for d in docs)
    alice = FleetMemoryRetriever(memory=memory, agent_id="assistant", user_id="alice").invoke("Bob dentist Lyon")
    assert "Lyon" in alice[0].metadata["entities"]
