"""Large puts parsed by worker processes (``ingest.parse_processes``): the same records as the
caller's own parse, workers that yield the CPU, and a parse that still happens when they fail."""

import logging
import os

import pytest

from fleet_memory.ingest import parse_processes
from fleet_memory.ingest.parse_processes import WORKER_NICE, ProcessNLP
from fleet_memory.providers.nlp import PARALLEL_MIN, Parsed, SpacyNLP, Token

SHAPES = [
    "Alice joined Google last year.",
    "we met caroline in New York.",
    "Congrats!",
    "I love it, and I'm keeping it.",
    "She moved to Berlin in March 2024.",
    "Kelvo Brashu.",
    "The harbour crane lifts containers at night.",
]


@pytest.mark.processes
@pytest.mark.models
def test_workers_give_the_records_of_the_callers_own_parse_in_order_and_run_niced():
    texts = [f"{SHAPES[i % len(SHAPES)]} ({i})" for i in range(PARALLEL_MIN + 700)]  # distinct: order is checked
    nlp = SpacyNLP(batch_size=64)
    workers = ProcessNLP(nlp, 2)
    try:
        assert workers.parse(texts) == nlp.parse(texts)
        pids = list(workers._workers()._processes)
        assert pids and all(os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICE
                            for pid in pids)
        few = texts[:PARALLEL_MIN - 1]
        assert workers.parse(few) == nlp.parse(few)  # a short call stays in this process
    finally:
        workers.close()
    assert all(not _alive(pid) for pid in pids)


class _Fallback(SpacyNLP):
    """A parse in this process that needs no model; the workers are given a model name that does
    not exist, so they cannot start."""

    def __init__(self) -> None:
        super().__init__("fleet_memory_no_such_model")
        self.calls = 0

    def parse(self, texts):
        self.calls += 1
        return [Parsed((Token(t, "", "NN", "NOUN", "ROOT", 0),), ()) for t in texts]


@pytest.mark.processes
def test_when_the_workers_cannot_start_the_caller_parses_says_so_and_tries_again_later(caplog, monkeypatch):
    nlp = _Fallback()
    workers = ProcessNLP(nlp, 1)
    texts = [f"text {i}" for i in range(PARALLEL_MIN)]
    started = []
    real_workers = workers._workers
    monkeypatch.setattr(workers, "_workers", lambda: started.append(1) or real_workers())
    with caplog.at_level(logging.WARNING, logger="fleet_memory.ingest.parse_processes"):
        first, second = workers.parse(texts), workers.parse(texts)  # the second comes within the cool-down
        monkeypatch.setattr(parse_processes, "RETRY_AFTER_S", 0.0)
        third = workers.parse(texts)  # past it: workers are tried again (and fail again)
    workers.close()
    assert [p.tokens[0].text for p in first] == texts and second == first == third and nlp.calls == 3
    assert len(started) == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and all("parse workers failed" in w for w in warnings)


def test_a_worker_count_out_of_range_is_refused():
    with pytest.raises(ValueError, match="processes must be at least 1"):
        ProcessNLP(SpacyNLP(), 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:  # a zombie is gone for our purpose
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


_OWNER = """
import sys, time
from fleet_memory.ingest.parse_processes import ProcessNLP
from fleet_memory.providers.nlp import PARALLEL_MIN, SpacyNLP

if __name__ == "__main__":
    workers = ProcessNLP(SpacyNLP(), 2)
    workers.parse([f"Kelvo Brashu number {i}." for i in range(PARALLEL_MIN)])
    print(" ".join(str(pid) for pid in workers._workers()._processes), flush=True)
    time.sleep(600)
"""


@pytest.mark.processes
@pytest.mark.models
def test_the_workers_exit_when_their_owner_is_killed(tmp_path):
    """A server killed with SIGKILL leaves no parse worker behind."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "owner.py"
    script.write_text(_OWNER)
    owner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in owner.stdout.readline().split()]
        assert 1 <= len(pids) <= 2 and all(_alive(pid) for pid in pids)  # started as the chunks need them
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait(30)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in pids)


def test_the_facade_parses_in_workers_only_when_asked_and_then_cuts_long_documents_finer(db_url):
    from fleet_memory import Config, FleetMemory
    from fleet_memory.ingest.windows import EPISODE_CUT_FACTS, EPISODE_CUT_FACTS_WORKERS
    from fleet_memory.providers.embedder import HashingEmbedder

    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder()) as plain:
        assert isinstance(plain._ingest.nlp, SpacyNLP) and plain._ingest.episode_cut == EPISODE_CUT_FACTS
    with FleetMemory(Config(database_url=db_url, parse_processes=2), embedder=HashingEmbedder()) as workers:
        assert isinstance(workers._ingest.nlp, ProcessNLP) and workers._ingest.nlp.processes == 2
        assert workers._ingest.episode_cut == EPISODE_CUT_FACTS_WORKERS < EPISODE_CUT_FACTS
