import os
from datetime import datetime, timezone

import pytest

from fleet_memory.config import Limits
from fleet_memory.errors import InvalidInputError
from fleet_memory.validation import check_agent_id, check_date, check_tags, check_text


def test_error_names_field_and_limit():
    with pytest.raises(InvalidInputError) as info:
        check_text("x" * 11, "content", 10)
    assert info.value.field == "content"
    assert str(info.value) == "content: is 11 characters long (limit: 10 characters)"


def test_dates():
    assert check_date("2024-05-08T13:56:00", "event_date") == datetime(2024, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert check_date(None, "event_date") is None


def test_agent_id_and_tags():
    limits = Limits()
    assert check_agent_id("agent-1", limits) == "agent-1"
    with pytest.raises(InvalidInputError, match="64 tags"):
        check_tags([f"t{i}" for i in range(65)], limits)


def test_config_values_out_of_range_are_refused_naming_the_field():
    from fleet_memory import Config
    from fleet_memory.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="pool_max_size must be at least 1, got 0"):
        Config(pool_max_size=0)
    with pytest.raises(ConfigurationError, match="pool_min_size must be 0 or more, got -1"):
        Config(pool_min_size=-1)
    assert Config(pool_min_size=5, pool_max_size=2).pool_min_size == 5  # the facade opens min(5, 2)
    with pytest.raises(ConfigurationError, match="embedding_precision must be one of auto, float32, bfloat16"):
        Config(embedding_precision="fp16")
    assert Config.from_env({"FLEET_MEMORY_EMBEDDING_PRECISION": " Float32 "}).embedding_precision == "float32"
    assert Config.from_env({}).embedding_precision == "auto"


def test_parse_processes_are_off_in_the_library_and_bounded():
    from fleet_memory import Config
    from fleet_memory.errors import ConfigurationError

    assert Config().parse_processes == 0 and Config.from_env({}).parse_processes == 0
    assert Config.from_env({"FLEET_MEMORY_PARSE_PROCESSES": " 3 "}).parse_processes == 3
    with pytest.raises(ConfigurationError, match="parse_processes must be 0 to 64, got 65"):
        Config(parse_processes=65)
    for raw in ("-1", "two", "65"):
        with pytest.raises(InvalidInputError, match="FLEET_MEMORY_PARSE_PROCESSES.*0 to 64"):
            Config.from_env({"FLEET_MEMORY_PARSE_PROCESSES": raw})


def test_a_command_that_owns_its_process_parses_large_puts_in_workers(monkeypatch):
    """``open_memory`` (every CLI command, ``serve`` and ``mcp``): one worker per usable core,
    unless the environment names a number; an injected facade is left alone."""
    import fleet_memory.memory
    from fleet_memory.cli.common import CliState, open_memory

    made = []
    monkeypatch.setattr(fleet_memory.memory, "FleetMemory", lambda config: made.append(config) or config)

    class Ctx:
        def __init__(self, obj):
            self.obj = obj

        def find_root(self):
            return self

    monkeypatch.delenv("FLEET_MEMORY_PARSE_PROCESSES", raising=False)
    assert open_memory(Ctx(CliState())).parse_processes == len(os.sched_getaffinity(0))
    monkeypatch.setenv("FLEET_MEMORY_PARSE_PROCESSES", "0")
    assert open_memory(Ctx(CliState())).parse_processes == 0
    assert open_memory(Ctx(CliState(factory=lambda: "injected"))) == "injected" and len(made) == 2
