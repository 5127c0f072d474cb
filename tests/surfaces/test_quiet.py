"""Quiet by default: a command prints its result and nothing on stderr (no "Loading weights" bar,
no library INFO lines); ``--verbose`` shows the logs. As a library, fleet-memory leaves the host's
logging configuration alone (making the REST app, which builds the MCP server, adds no handler)."""

from __future__ import annotations

import logging
import subprocess

import pytest

from tests.support.processes import FLEET_MEMORY, clean_env


@pytest.mark.processes
@pytest.mark.models
def test_a_command_prints_nothing_on_stderr_unless_verbose(db_url, tmp_path):
    env = clean_env(FLEET_MEMORY_DATABASE_URL=db_url, FLEET_MEMORY_HOME=str(tmp_path))
    quiet = subprocess.run([FLEET_MEMORY, "put", "-a", "q", "Alice works at Google."], env=env, capture_output=True,
                           text=True, timeout=300)
    assert quiet.returncode == 0 and "stored 1 unit(s)" in quiet.stdout
    assert quiet.stderr == ""
    loud = subprocess.run([FLEET_MEMORY, "--verbose", "search", "-a", "q", "Alice"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert loud.returncode == 0 and "INFO" in loud.stderr


def test_making_the_rest_app_leaves_the_host_logging_alone(memory):
    from fleet_memory.rest import create_app

    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    root.handlers.clear()  # a host that configured nothing (pytest's own capture handlers set aside)
    try:
        create_app(memory)
        seen = (list(root.handlers), root.level)
    finally:
        root.handlers[:], _ = saved[0], root.setLevel(saved[1])
    assert seen == ([], saved[1])
