"""The OpenAI Agents SDK: ``Runner.run`` with a scripted model that calls the memory tools — three
facts stored in one run, recalled in a later run through new objects — the user taken from the
run's context, and ``with_memories`` putting recalled memories into the run's instructions.

The SDK ships no fake model, so ``ScriptedModel`` implements its ``Model`` interface: each call
answers the next scripted output (tool calls or a message) and records the instructions it got."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, Model, ModelResponse, Runner, RunConfig, Usage  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from fleet_memory.integrations.openai_agents import memory_tools, with_memories  # noqa: E402

from .conftest import ANSWER, FACTS, QUESTION  # noqa: E402


def tool_calls(*calls: tuple[str, dict]) -> list:
    return [ResponseFunctionToolCall(type="function_call", call_id=f"c{i}", name=name, arguments=json.dumps(args))
            for i, (name, args) in enumerate(calls)]


def message(text: str) -> list:
    return [ResponseOutputMessage(id="m", type="message", role="assistant", status="completed",
                                  content=[ResponseOutputText(type="output_text", text=text, annotations=[])])]


class ScriptedModel(Model):
    def __init__(self, *outputs: list) -> None:
        self.outputs, self.instructions, self.inputs = list(outputs), [], []

    async def get_response(self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.instructions.append(system_instructions)
        self.inputs.append(input)
        return ModelResponse(output=self.outputs.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the tests do not stream")


def _run(agent: Agent, text: str, context: Any = None):
    return asyncio.run(Runner.run(agent, text, context=context, run_config=RunConfig(tracing_disabled=True)))


def _tool_outputs(model: ScriptedModel) -> list[str]:
    return [item["output"] for item in model.inputs[-1] if isinstance(item, dict)
            and item.get("type") == "function_call_output"]


def test_an_agent_stores_three_facts_and_recalls_them_in_a_later_run(open_memory):
    model = ScriptedModel(tool_calls(*[("remember", {"text": f}) for f in FACTS]), message("Noted."))
    agent = Agent(name="assistant", instructions="Help the user.", model=model,
                  tools=memory_tools(open_memory(), "assistant"))
    assert _run(agent, "Remember these.", {"user_id": "alice"}).final_output == "Noted."
    assert all(out.startswith("Stored: [") for out in _tool_outputs(model))

    memory = open_memory()  # a later process
    model = ScriptedModel(tool_calls(("recall", {"query": QUESTION, "limit": 1})), message("orchid42"))
    later = Agent(name="assistant", instructions="Help the user.", model=model, tools=memory_tools(memory, "assistant"))
    _run(later, QUESTION, {"user_id": "alice"})
    assert ANSWER in _tool_outputs(model)[0]

    model = ScriptedModel(tool_calls(("recall", {"query": QUESTION, "limit": 1})), message("?"))
    _run(later.clone(model=model), QUESTION, {"user_id": "bob"})
    assert _tool_outputs(model) == ["No memories found."]


def test_with_memories_adds_what_is_recalled_to_the_instructions(open_memory):
    memory = open_memory()
    for fact in FACTS:
        memory.put("assistant", fact, user_id="alice")
    model = ScriptedModel(message("It is orchid42."))
    agent = Agent(name="assistant", instructions="Help the user.", model=model)
    _run(with_memories(agent, memory, "assistant", QUESTION, user_id="alice"), QUESTION)
    assert model.instructions[0].startswith("Help the user.\n\n") and "orchid42" in model.instructions[0]
    assert agent.instructions == "Help the user."  # the agent itself is unchanged

    model = ScriptedModel(message("?"))
    _run(with_memories(agent.clone(model=model), memory, "assistant", QUESTION, user_id="bob"), QUESTION)
    assert "orchid42" not in model.instructions[0]


def test_with_memories_extends_dynamic_instructions(open_memory):
    memory = open_memory()
    memory.put("assistant", FACTS[2])

    async def dynamic(ctx, agent) -> str:
        return f"Help {ctx.context['user_id']}."

    model = ScriptedModel(message("ok"))
    agent = Agent(name="assistant", instructions=dynamic, model=model)
    _run(with_memories(agent, memory, "assistant", QUESTION), QUESTION, {"user_id": "alice"})
    assert model.instructions[0].startswith("Help alice.\n\n") and "orchid42" in model.instructions[0]
