"""Fixtures for the framework integrations: a factory of fresh facades over one test database, so a
test can store in one run and recall in a later one through a new object, as a new process would;
and a scripted tool-calling chat model for LangChain and LangGraph agents."""

from __future__ import annotations

import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.providers.embedder import HashingEmbedder

FACTS = ["Alice's favourite colour is green.", "Bob works as a dentist in Lyon.",
         "The office wifi password is orchid42."]
QUESTION = "What is the office wifi password?"
ANSWER = "The office wifi password is orchid42."


@pytest.fixture
def open_memory(db_url, clock):
    """``open_memory()``: a new facade over the test database (closed at the end of the test)."""
    opened: list[FleetMemory] = []

    def open_() -> FleetMemory:
        opened.append(FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock))
        return opened[-1]

    yield open_
    for memory in opened:
        memory.close()
