"""CrewAI: the storage inside a real crew's external memory — a crew run with a scripted LLM stores
its three answers; a later run, through new objects, finds the right one in the task's prompt; a
crew of another user finds nothing. And the storage's own calls: save, search, reset.

CrewAI is imported only after its telemetry, its tracing (and its first-run prompt about traces)
are switched off with its own settings and its files are sent to a temporary folder, for these
tests only (``crewai_offline``): nothing reaches the network or the home folder."""

from __future__ import annotations

import importlib
import ipaddress
import importlib.util
import socket
import warnings
from typing import Any

import pytest

if importlib.util.find_spec("crewai") is None:  # not importorskip: importing crewai reads its settings
    pytest.skip("crewai is not installed (extra 'crewai')", allow_module_level=True)

from .conftest import ANSWER, FACTS, QUESTION  # noqa: E402

AGENT = "notes-crew"


@pytest.fixture(scope="module", autouse=True)
def crewai_offline(tmp_path_factory):
    """CrewAI's own switches, set before it is imported and undone after this module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CREWAI_DISABLE_TELEMETRY", "true")  # no telemetry spans, no install ping
        patch.setenv("OTEL_SDK_DISABLED", "true")
        patch.setenv("CREWAI_TRACING_ENABLED", "false")
        patch.setenv("CREWAI_TESTING", "true")  # no first-run question about viewing traces
        home = tmp_path_factory.mktemp("crewai")
        patch.setenv("CREWAI_STORAGE_DIR", str(home / "storage"))  # its kickoff files
        patch.setenv("HOME", str(home))  # its credentials key (~/.local/share/crewai), made with every crew
        patch.setattr(warnings, "warn", warnings.warn)  # importing crewai replaces it process-wide
        remote: list[object] = []
        real_connect = socket.socket.connect

        def connect(sock: socket.socket, address: Any) -> Any:  # loopback and Unix sockets only
            if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
                remote.append(address)
                raise OSError(f"no network in this test: {address}")
            return real_connect(sock, address)

        patch.setattr(socket.socket, "connect", connect)
        importlib.import_module("crewai")
        yield
        assert remote == []


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _classes() -> Any:
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM
    from crewai.memory.external.external_memory import ExternalMemory

    from fleet_memory.integrations.crewai import FleetMemoryStorage

    return Agent, Crew, Task, BaseLLM, ExternalMemory, FleetMemoryStorage


def _scripted_llm(answer):
    """A CrewAI LLM (``BaseLLM``, CrewAI's seam for custom models) that answers ``answer(prompt)``
    in CrewAI's answer format and keeps the prompts it was sent."""
    _, _, _, BaseLLM, _, _ = _classes()

    class ScriptedLLM(BaseLLM):
        def __init__(self) -> None:
            super().__init__(model="scripted")
            self.prompts: list[str] = []

        def call(self, messages, *args: Any, **kwargs: Any) -> str:
            prompt = messages if isinstance(messages, str) else messages[-1]["content"]
            self.prompts.append(prompt)
            return f"Thought: I now know the final answer\nFinal Answer: {answer(prompt)}"

    return ScriptedLLM()


def _crew(llm, storage, descriptions):
    Agent, Crew, Task, _, ExternalMemory, _ = _classes()
    agent = Agent(role="Note keeper", goal="Keep the user's facts", backstory="You keep notes.", llm=llm)
    tasks = [Task(description=d, expected_output="One sentence.", agent=agent) for d in descriptions]
    return Crew(agents=[agent], tasks=tasks, external_memory=ExternalMemory(storage=storage))


def _recalled(prompt: str) -> list[str]:
    """The external memories CrewAI put into a task's prompt, in order."""
    _, _, section = prompt.partition("External memories:\n")
    return [line[2:] for line in section.splitlines() if line.startswith("- ")]


def _first_recalled(prompt: str) -> str:
    recalled = _recalled(prompt)
    return recalled[0] if recalled else "I don't know."


def test_a_later_run_of_the_crew_recalls_the_right_fact(open_memory):
    *_, FleetMemoryStorage = _classes()
    facts = iter(FACTS)
    first = open_memory()
    crew = _crew(_scripted_llm(lambda prompt: next(facts)), FleetMemoryStorage(first, AGENT, user_id="alice"),
                 [f"Note down what the user just said: {fact}" for fact in FACTS])
    crew.kickoff()
    stored = first.list_units(AGENT).units
    assert sorted(u.text for u in stored) == sorted(FACTS)
    assert {(u.user_id, u.source) for u in stored} == {("alice", "crewai")}
    assert {u.metadata["crewai.task"] for u in stored} == {f"Note down what the user just said: {f}" for f in FACTS}

    # a later process: a new fleet memory, storage, LLM, agent and crew
    llm = _scripted_llm(_first_recalled)
    later = _crew(llm, FleetMemoryStorage(open_memory(), AGENT, user_id="alice"), [QUESTION])
    assert later.kickoff().raw == ANSWER
    assert _recalled(llm.prompts[0])[0] == ANSWER and set(_recalled(llm.prompts[0])) <= set(FACTS)

    other = _scripted_llm(_first_recalled)  # another user's crew on the same fleet-memory agent
    assert _crew(other, FleetMemoryStorage(open_memory(), AGENT, user_id="bob"), [QUESTION]).kickoff().raw \
        == "I don't know."
    assert _recalled(other.prompts[0]) == [] and "orchid42" not in other.prompts[0]


def test_save_stores_the_final_answer_with_the_task(open_memory):
    *_, ExternalMemory, FleetMemoryStorage = _classes()
    memory = open_memory()
    storage = FleetMemoryStorage(memory, AGENT, user_id="alice", session_id="run-1")
    storage.save("Thought: I now know the final answer\nFinal Answer: Bob works as a dentist in Lyon.",
                 {"description": "Find Bob's job.", "messages": [{"role": "user", "content": "x"}], "project": "p"})
    ExternalMemory(storage=storage).save("Alice's favourite colour is green.")  # CrewAI's own save, no marker
    storage.save("Final Answer:   ", {"description": "Nothing to say."})  # an empty answer stores nothing
    units = {u.text: u for u in memory.list_units(AGENT).units}
    assert set(units) == {"Bob works as a dentist in Lyon.", "Alice's favourite colour is green."}
    bob = units["Bob works as a dentist in Lyon."]
    assert bob.metadata == {"crewai.task": "Find Bob's job.", "project": "p"}  # the messages are not kept
    assert (bob.user_id, bob.session_id, bob.source, bob.memory_type.value) == ("alice", "run-1", "crewai", "semantic")


def test_search_returns_the_users_memories_as_crewai_reads_them(open_memory):
    *_, ExternalMemory, FleetMemoryStorage = _classes()
    memory = open_memory()
    alice = FleetMemoryStorage(memory, AGENT, user_id="alice")
    for fact in FACTS:
        alice.save(fact, {"description": "note"})
    FleetMemoryStorage(memory, AGENT, user_id="bob").save("The office wifi password is tulip7.", {})

    [best] = alice.search(QUESTION, limit=1)
    assert best["content"] == ANSWER and best["metadata"] == {"crewai.task": "note"}
    assert set(best) == {"id", "content", "score", "event_date", "memory_type", "metadata"}
    assert memory.get(AGENT, best["id"]).user_id == "alice" and best["score"] > 0

    found = ExternalMemory(storage=alice).search(QUESTION, limit=10, score_threshold=0.99)  # threshold ignored
    assert found[0]["content"] == ANSWER and {r["content"] for r in found} == set(FACTS)
    assert {r["content"] for r in FleetMemoryStorage(memory, AGENT, user_id="bob").search(QUESTION)} \
        == {"The office wifi password is tulip7."}
    assert {r["content"] for r in FleetMemoryStorage(memory, AGENT).search(QUESTION)} \
        == set(FACTS) | {"The office wifi password is tulip7."}  # no user: every memory of the agent
    assert alice.search("   ") == [] and alice.search(QUESTION, limit=0) == []
    assert len(alice.search(QUESTION, limit=500)) == 3  # more than recall's 50 is asked as 50
    assert alice.search(QUESTION + " x" * 20_000)[0]["content"] == ANSWER  # cut to the longest query


def test_reset_forgets_the_users_memories_only(open_memory):
    *_, FleetMemoryStorage = _classes()
    memory = open_memory()
    alice, bob = (FleetMemoryStorage(memory, AGENT, user_id=user) for user in ("alice", "bob"))
    alice.save(FACTS[0], {})
    bob.save(FACTS[1], {})
    memory.put("other-agent", FACTS[2])

    crew = _crew(_scripted_llm(lambda prompt: "unused"), alice, ["unused"])
    crew.reset_memories(command_type="external")  # CrewAI's reset of the crew's external memory
    assert [u.text for u in memory.list_units(AGENT).units] == [FACTS[1]]

    FleetMemoryStorage(memory, AGENT).reset()  # no user: everything of the agent
    assert memory.list_units(AGENT).units == ()
    assert [u.text for u in memory.list_units("other-agent").units] == [FACTS[2]]


def test_a_deep_copy_shares_the_fleet_memory(open_memory):
    *_, ExternalMemory, FleetMemoryStorage = _classes()
    memory = open_memory()
    storage = FleetMemoryStorage(memory, AGENT, user_id="alice", session_id="s")
    twin = ExternalMemory(storage=storage).model_copy(deep=True).storage
    assert twin is not storage and twin.memory is memory
    assert (twin.agent_id, twin.user_id, twin.session_id) == (AGENT, "alice", "s")


def test_identity_is_checked_when_the_storage_is_made(open_memory):
    *_, FleetMemoryStorage = _classes()
    from fleet_memory.errors import InvalidInputError

    memory = open_memory()
    with pytest.raises(InvalidInputError):
        FleetMemoryStorage(memory, "  ")
    with pytest.raises(InvalidInputError):
        FleetMemoryStorage(memory, AGENT, user_id="..")
