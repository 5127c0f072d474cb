"""Pydantic AI: an ``Agent`` driven by Pydantic AI's own ``FunctionModel``, scripted to call the
toolset's tools — three facts stored in one run, recalled in a later run through new objects,
forgotten — the user taken from the run's ``deps``, the tools' answers typed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from fleet_memory.integrations.pydantic_ai import FleetMemoryToolset, RecalledMemory  # noqa: E402

from .conftest import ANSWER, FACTS, QUESTION  # noqa: E402


@dataclass
class Deps:
    user_id: str


def scripted(*turns: list[tuple[str, dict]] | str) -> FunctionModel:
    """A model answering each request with the next turn: tool calls, or a final text."""
    queue = list(turns)

    def answer(messages: list, info: AgentInfo) -> ModelResponse:
        turn = queue.pop(0)
        if isinstance(turn, str):
            return ModelResponse(parts=[TextPart(turn)])
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"c{i}") for i, (name, args) in enumerate(turn)])

    return FunctionModel(answer)


def _returns(result) -> list:
    return [part.content for message in result.all_messages() for part in message.parts
            if isinstance(part, ToolReturnPart)]


def test_an_agent_stores_three_facts_and_recalls_them_in_a_later_run(open_memory):
    agent = Agent(scripted([("remember", {"text": f}) for f in FACTS], "Noted."), deps_type=Deps,
                  toolsets=[FleetMemoryToolset(open_memory(), "assistant")])
    stored = _returns(agent.run_sync("Remember these.", deps=Deps("alice")))
    assert [s[0].text for s in stored] == FACTS

    memory = open_memory()  # a later process
    later = Agent(scripted([("recall", {"query": QUESTION, "limit": 1})], "orchid42"), deps_type=Deps,
                  toolsets=[FleetMemoryToolset(memory, "assistant")])
    [[hit]] = _returns(later.run_sync(QUESTION, deps=Deps("alice")))
    assert isinstance(hit, RecalledMemory) and hit.text == ANSWER and hit.score > 0

    bob = Agent(scripted([("recall", {"query": QUESTION}), ("forget", {"memory_id": hit.id})], "?"), deps_type=Deps,
                toolsets=[FleetMemoryToolset(memory, "assistant")])
    assert _returns(bob.run_sync(QUESTION, deps=Deps("bob"))) == [[], False]
    owner = Agent(scripted([("forget", {"memory_id": hit.id})], "done"), deps_type=Deps,
                  toolsets=[FleetMemoryToolset(memory, "assistant")])
    assert _returns(owner.run_sync("Forget the password.", deps=Deps("alice"))) == [True]
    assert all(r.text != ANSWER for r in memory.search("assistant", QUESTION))
