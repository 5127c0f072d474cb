"""The OpenAI Agents SDK: ``Runner.run`` with a scripted model that calls the memory tools — three
facts stored in one run, recalled in a later run through new objects — the user taken from the
run's context, and ``with_memories`` putting recalled memories into the run's instructions.

The SDK ships no fake model: ``scripted_agents.ScriptedModel`` stands in."""

from __future__ import annotations

import pytest

from .conftest import ANSWER, FACTS, QUESTION


@pytest.fixture(scope="module")
def sdk():
    """The SDK and the scripted model, imported when these tests run rather than when they are
    collected (every worker of ``make check`` collects every module)."""
    pytest.importorskip("agents")
    from . import scripted_agents

    return scripted_agents


def test_an_agent_stores_three_facts_and_recalls_them_in_a_later_run(sdk, open_memory):
    model = sdk.ScriptedModel(sdk.tool_calls(*[("remember", {"text": f}) for f in FACTS]), sdk.message("Noted."))
    agent = sdk.Agent(name="assistant", instructions="Help the user.", model=model,
                      tools=sdk.memory_tools(open_memory(), "assistant"))
    assert sdk.run(agent, "Remember these.", {"user_id": "alice"}).final_output == "Noted."
    assert all(out.startswith("Stored: [") for out in sdk.tool_outputs(model))

    memory = open_memory()  # a later process
    model = sdk.ScriptedModel(sdk.tool_calls(("recall", {"query": QUESTION, "limit": 1})), sdk.message("orchid42"))
    later = sdk.Agent(name="assistant", instructions="Help the user.", model=model,
                      tools=sdk.memory_tools(memory, "assistant"))
    sdk.run(later, QUESTION, {"user_id": "alice"})
    assert ANSWER in sdk.tool_outputs(model)[0]

    model = sdk.ScriptedModel(sdk.tool_calls(("recall", {"query": QUESTION, "limit": 1})), sdk.message("?"))
    sdk.run(later.clone(model=model), QUESTION, {"user_id": "bob"})
    assert sdk.tool_outputs(model) == ["No memories found."]


def test_with_memories_adds_what_is_recalled_to_the_instructions(sdk, open_memory):
    memory = open_memory()
    for fact in FACTS:
        memory.put("assistant", fact, user_id="alice")
    model = sdk.ScriptedModel(sdk.message("It is orchid42."))
    agent = sdk.Agent(name="assistant", instructions="Help the user.", model=model)
    sdk.run(sdk.with_memories(agent, memory, "assistant", QUESTION, user_id="alice"), QUESTION)
    assert model.instructions[0].startswith("Help the user.\n\n") and "orchid42" in model.instructions[0]
    assert agent.instructions == "Help the user."  # the agent itself is unchanged

    model = sdk.ScriptedModel(sdk.message("?"))
    sdk.run(sdk.with_memories(agent.clone(model=model), memory, "assistant", QUESTION, user_id="bob"), QUESTION)
    assert "orchid42" not in model.instructions[0]


def test_with_memories_extends_dynamic_instructions(sdk, open_memory):
    memory = open_memory()
    memory.put("assistant", FACTS[2])

    async def dynamic(ctx, agent) -> str:
        return f"Help {ctx.context['user_id']}."

    model = sdk.ScriptedModel(sdk.message("ok"))
    agent = sdk.Agent(name="assistant", instructions=dynamic, model=model)
    sdk.run(sdk.with_memories(agent, memory, "assistant", QUESTION), QUESTION, {"user_id": "alice"})
    assert model.instructions[0].startswith("Help alice.\n\n") and "orchid42" in model.instructions[0]
