"""Fixtures for the front doors: a CLI runner and facades bound to the test database, with the
hashing embedder (no model) and a fixed clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fleet_memory import Config, FleetMemory
from fleet_memory.cli import app
from fleet_memory.providers.embedder import HashingEmbedder

REPO = Path(__file__).resolve().parents[2]
LOCOMO = REPO.parent / "shared" / "bench" / "locomo_dev.jsonl"


@pytest.fixture
def factory(db_url, clock):
    """A fresh facade over the test database per call, as the CLI opens one per command."""
    return lambda: FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock)


@pytest.fixture
def cli(factory):
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(app, list(args), obj=factory, input=input)

    return invoke
