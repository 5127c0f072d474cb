"""The library leaves its host's process alone: the collector's thresholds, frozen objects and the
interpreter's switch interval are changed only by the entry points that own their process
(``providers.heap.settle``, called by ``serve`` and ``mcp`` once their models are loaded)."""

from __future__ import annotations

import gc
import subprocess
import sys


def _process_settings() -> tuple:
    return gc.get_threshold(), sys.getswitchinterval(), gc.get_freeze_count()


def test_a_put_and_a_search_leave_the_hosts_collector_and_switch_interval_alone(memory):
    before = _process_settings()
    memory.put("host", "Alice works at Google in Zurich. She moved there in May.")
    memory.search("host", "Where does Alice work?")
    assert _process_settings() == before


def test_settle_tunes_the_process_that_calls_it():
    from fleet_memory.providers import heap

    code = ("import gc, sys; from fleet_memory.providers import heap; heap.settle(); "
            "print(gc.get_threshold(), sys.getswitchinterval(), gc.get_freeze_count() > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == f"{heap.GC_THRESHOLDS} {heap.SWITCH_INTERVAL_S} True"
