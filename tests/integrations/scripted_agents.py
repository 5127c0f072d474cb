"""A scripted model for the OpenAI Agents SDK, which ships no fake: ``ScriptedModel`` implements
its ``Model`` interface, each call answering the next scripted output (tool calls or a message)
and recording the instructions it got. Imported by the tests when they run (it imports the SDK)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, Model, ModelResponse, Runner, RunConfig, Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from fleet_memory.integrations.openai_agents import memory_tools, with_memories

__all__ = ["Agent", "ScriptedModel", "memory_tools", "message", "run", "tool_calls", "tool_outputs", "with_memories"]


def tool_calls(*calls: tuple[str, dict]) -> list:
    return [ResponseFunctionToolCall(type="function_call", call_id=f"c{i}", name=name, arguments=json.dumps(args))
            for i, (name, args) in enumerate(calls)]


def message(text: str) -> list:
    return [ResponseOutputMessage(id="m", type="message", role="assistant", status="completed",
                                  content=[ResponseOutputText(type="output_text", text=text, annotations=[])])]


class ScriptedModel(Model):
    def __init__(self, *outputs: list) -> None:
        self.outputs, self.instructions, self.inputs = list(outputs), [], []

    async def get_response(self, system_instructions: str | None, input: Any, *args: Any,
                           **kwargs: Any) -> ModelResponse:
        self.instructions.append(system_instructions)
        self.inputs.append(input)
        return ModelResponse(output=self.outputs.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the tests do not stream")


def run(agent: Agent, text: str, context: Any = None):
    return asyncio.run(Runner.run(agent, text, context=context, run_config=RunConfig(tracing_disabled=True)))


def tool_outputs(model: ScriptedModel) -> list[str]:
    return [item["output"] for item in model.inputs[-1] if isinstance(item, dict)
            and item.get("type") == "function_call_output"]
