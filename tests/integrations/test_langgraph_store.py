"""The LangGraph store inside LangGraph: ``graph.compile(store=…)`` with ``get_store()`` in a node,
and an agent whose scripted model calls tools that use the store; stored in one run, recalled in a
later run through new objects; users kept apart by the namespace."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.config import get_config, get_store  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402

from fleet_memory.integrations.langgraph import FleetMemoryStore  # noqa: E402

from .chat_model import calls, scripted  # noqa: E402
from .conftest import ANSWER, FACTS, QUESTION  # noqa: E402


class State(TypedDict, total=False):
    facts: list[str]
    question: str
    answer: str


def _remember(state: State) -> State:
    user = get_config()["configurable"]["user_id"]
    for i, fact in enumerate(state.get("facts", [])):
        get_store().put(("users", user, "facts"), f"fact-{i}", {"text": fact})
    return {}


def _recall(state: State) -> State:
    user = get_config()["configurable"]["user_id"]
    hits = get_store().search(("users", user, "facts"), query=state["question"], limit=1) if state.get("question") else []
    return {"answer": hits[0].value["text"] if hits else ""}


def _graph(store: FleetMemoryStore):
    builder = StateGraph(State)
    builder.add_node("remember", _remember)
    builder.add_node("recall", _recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def test_a_graph_stores_in_one_run_and_recalls_in_the_next(open_memory):
    alice = {"configurable": {"user_id": "alice"}}
    _graph(FleetMemoryStore(open_memory(), user_level=1)).invoke({"facts": FACTS}, alice)
    store = FleetMemoryStore(open_memory(), user_level=1)  # a later process
    assert _graph(store).invoke({"question": QUESTION}, alice)["answer"] == ANSWER
    assert _graph(store).invoke({"question": QUESTION}, {"configurable": {"user_id": "bob"}})["answer"] == ""
    hits = store.search(("users", "alice"), query=QUESTION, limit=3)
    assert hits[0].value == {"text": ANSWER} and hits[0].score > 0
    assert len(hits) == 3 and [h.score for h in hits[1:]].count(None) <= 2
    assert store.memory.search("langgraph", QUESTION, user_id="alice")[0].text == ANSWER  # alice is the user
    assert store.memory.forget_user("langgraph", "alice") > 0
    assert store.search(("users", "alice")) == []


@tool
def save_fact(key: str, fact: str) -> str:
    """Save a fact about the user under a key."""
    user = get_config()["configurable"]["user_id"]
    get_store().put(("users", user, "facts"), key, {"text": fact})
    return "saved"


@tool
def find_facts(query: str) -> str:
    """Find the saved facts about the user that answer a question."""
    user = get_config()["configurable"]["user_id"]
    return "\n".join(hit.value["text"] for hit in get_store().search(("users", user, "facts"), query=query, limit=1))


def test_an_agent_whose_model_calls_store_tools(open_memory):
    config = {"configurable": {"user_id": "alice"}}
    model = scripted(calls(*[("save_fact", {"key": f"f{i}", "fact": f}) for i, f in enumerate(FACTS)]), "Saved.")
    agent = create_agent(model, tools=[save_fact, find_facts], store=FleetMemoryStore(open_memory(), user_level=1))
    agent.invoke({"messages": [("user", "Remember these three things.")]}, config)

    later = create_agent(scripted(calls(("find_facts", {"query": QUESTION})), "It is orchid42."),
                         tools=[save_fact, find_facts], store=FleetMemoryStore(open_memory(), user_level=1))
    out = later.invoke({"messages": [("user", QUESTION)]}, config)
    [answer] = [m.content for m in out["messages"] if isinstance(m, ToolMessage)]
    assert answer == ANSWER


def test_the_async_methods_run_the_same_operations(open_memory):
    asyncio.run(_async_round_trip(FleetMemoryStore(open_memory())))


async def _async_round_trip(store: FleetMemoryStore) -> None:
    await store.aput(("docs",), "a", {"text": "The billing service runs on Fridays."})
    assert (await store.aget(("docs",), "a")).value == {"text": "The billing service runs on Fridays."}
    assert [i.key for i in await store.asearch(("docs",), query="When does billing run?")] == ["a"]
    assert await store.alist_namespaces() == [("docs",)]
    await store.adelete(("docs",), "a")
    assert await store.aget(("docs",), "a") is None


def test_a_put_of_an_existing_key_is_an_update_and_delete_removes_everything(open_memory, clock):
    memory = open_memory()
    store = FleetMemoryStore(memory, agent_id="me", user_level=0)
    store.put(("ines", "facts"), "home", {"text": "Ines lives in Lisbon.", "since": 2024})
    first = store.get(("ines", "facts"), "home")
    clock.advance(days=200)
    store.put(("ines", "facts"), "home", {"text": "Ines lives in Porto now.", "since": 2025})
    item = store.get(("ines", "facts"), "home")
    assert item.value == {"text": "Ines lives in Porto now.", "since": 2025} and item.created_at == first.created_at
    assert item.updated_at > first.updated_at
    [hit] = memory.search("me", "Where does Ines live?", top_k=1)
    assert hit.text == "Ines lives in Porto now."
    assert [u.text for u in memory.history("me", hit.id)] == ["Ines lives in Lisbon.", "Ines lives in Porto now."]
    assert [i.value["since"] for i in store.search(("ines",), query="Where does Ines live?")] == [2025]

    store.delete(("ines", "facts"), "home")
    assert store.get(("ines", "facts"), "home") is None and store.list_namespaces() == []
    stats = memory.stats("me")
    assert (stats.documents, stats.units) == (0, 0)


def test_index_names_the_fields_that_are_recalled(open_memory):
    store = FleetMemoryStore(open_memory(), index=["note"])
    store.put(("docs",), "a", {"note": "The billing service runs on Fridays.", "title": "Payroll calendar"})
    store.put(("docs",), "b", {"note": "Deploys freeze in December."}, index=False)
    store.put(("docs",), "c", {"body": {"lines": ["Payroll closes early."]}}, index=["body.lines[*]"])
    ingested = {u.text for u in store.memory.list_units("langgraph").units}
    assert ingested == {"The billing service runs on Fridays.", "Payroll closes early."}
    ranked = store.search(("docs",), query="When does the billing service run?")
    assert ranked[0].key == "a" and ranked[0].score > 0 and {i.key for i in ranked} == {"a", "b", "c"}
    assert [i.score for i in ranked if i.key == "b"] == [None]  # listed after the ranked ones, unscored
    assert store.search(("docs",), query="When does payroll close?")[0].key == "c"
    assert [i.key for i in store.search(("docs",), query="payroll", limit=1, offset=2)] == ["b"]
