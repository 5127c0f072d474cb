"""A configured database that cannot be reached is an error naming it; never a fallback."""

from __future__ import annotations

import pytest

from fleet_memory import Config, DatabaseUnavailableError, FleetMemory
from fleet_memory.providers.embedder import HashingEmbedder
from fleet_memory.store.db.server import mask_url


def test_unreachable_url_fails_without_fallback(tmp_path, monkeypatch):
    url = "postgresql://scott:tiger-secret@127.0.0.1:1/memories"
    monkeypatch.setenv("FLEET_MEMORY_DATABASE_URL", url)
    monkeypatch.setenv("FLEET_MEMORY_HOME", str(tmp_path))
    with pytest.raises(DatabaseUnavailableError) as info:
        FleetMemory(embedder=HashingEmbedder())
    message = str(info.value)
    assert "postgresql://scott:***@127.0.0.1:1/memories" in message
    assert "tiger-secret" not in message
    assert "does not fall back" in message
    assert not (tmp_path / "pg").exists(), "the embedded store was started anyway"


def test_explicit_argument_wins_and_fails_the_same_way(tmp_path):
    with pytest.raises(DatabaseUnavailableError, match="cannot connect"):
        FleetMemory(Config(home=tmp_path), database_url="postgresql://nobody@127.0.0.1:1/x", embedder=HashingEmbedder())
    assert not (tmp_path / "pg").exists()


def test_mask_url():
    assert mask_url("postgresql://u:p@h:5432/d") == "postgresql://u:***@h:5432/d"
    assert mask_url("postgresql://u@h/d") == "postgresql://u@h/d"
    assert mask_url("postgresql://h/d?sslmode=require") == "postgresql://h/d?sslmode=require"
