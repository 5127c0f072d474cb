"""Windows of facts (ingest.pipeline): cut at episode ends, stages run window by window with the
concurrent ones in a worker thread, and the windows merged back in order."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from contextlib import nullcontext
from dataclasses import replace

import pytest

from fleet_memory.clock import FixedClock
from fleet_memory.errors import ConfigurationError
from fleet_memory.ingest.pipeline import BACK_WORKERS, Carry, Pipeline, Stage, fact_windows
from fleet_memory.ingest.records import Episode, ExtractedFact

NOW = FixedClock().now()


def _facts(*per_episode: int) -> list[ExtractedFact]:
    return [ExtractedFact(e, f"fact {e}.{i}", "episodic") for e, n in enumerate(per_episode) for i in range(n)]


def _sizes(windows):
    return [len(w) for w in windows]


def test_windows_end_with_an_episode_and_hold_at_least_the_size():
    windows = fact_windows(_facts(2, 3, 1, 4, 2, 2, 1), 4)
    assert _sizes(windows) == [5, 5, 5]
    assert all(w[-1].episode_index != n[0].episode_index for w, n in zip(windows, windows[1:]))
    assert [f for w in windows for f in w] == _facts(2, 3, 1, 4, 2, 2, 1)


def test_small_puts_and_one_long_episode_are_one_window():
    assert _sizes(fact_windows(_facts(3, 2), 4)) == [5]
    assert _sizes(fact_windows(_facts(40), 4)) == [40]
    assert fact_windows([], 4) == []


def test_a_short_tail_joins_the_window_before_it():
    assert _sizes(fact_windows(_facts(4, 4, 1), 4)) == [4, 5]


def _stages():
    return [
        Stage("extract", ("episodes",), ("facts",)),
        Stage("parse", ("facts",), ("parsed",), windowed=True),
        Stage("embed", ("parsed",), ("embedded",), windowed=True, concurrent=True),
        Stage("write", ("embedded",), ("units",), in_transaction=True),
    ]


def test_concurrent_stages_run_in_a_worker_and_windows_merge_in_order():
    threads: dict[str, set[str]] = {"parse": set(), "embed": set()}
    episodes = [Episode("a", f"text {i}", NOW) for i in range(6)]

    def extract(s):
        return replace(s, facts=tuple(ExtractedFact(i, f"f{i}.{j}", "episodic") for i in range(6) for j in range(2)))

    def parse(s):
        threads["parse"].add(threading.current_thread().name)
        return replace(s, parsed=tuple(f.text for f in s.facts))

    def embed(s):
        threads["embed"].add(threading.current_thread().name)
        return replace(s, embedded=tuple(t.upper() for t in s.parsed))

    pipeline = Pipeline(_stages(), {"extract": extract, "parse": parse, "embed": embed},
                        {"write": lambda s, conn: replace(s, units=s.embedded)})
    state, timings = pipeline.run(episodes, nullcontext, window_facts=4)
    assert state.units == tuple(f"F{i}.{j}" for i in range(6) for j in range(2))
    assert threads["parse"] == {threading.current_thread().name}
    assert 1 <= len(threads["embed"]) <= BACK_WORKERS and threads["parse"].isdisjoint(threads["embed"])
    assert set(timings) == {"extract", "parse", "embed", "write"}
    one, _ = pipeline.run(episodes, nullcontext, window_facts=100)
    assert one.units == state.units


def test_a_window_is_the_last_once_parsing_is_done_and_no_other_is_left():
    carry = Carry()
    carry.back_started()
    carry.back_started()
    assert not carry.last_window()  # still parsing
    carry.front_done.set()
    assert not carry.last_window()  # another window waits or is being embedded
    carry.back_finished()
    assert carry.last_window()


def test_a_concurrent_stage_before_a_windowed_one_is_refused():
    stages = _stages()
    stages[1], stages[2] = replace(stages[2], requires=("facts",)), replace(stages[1], requires=("embedded",))
    runners = {s.name: (lambda st: st) for s in stages if not s.in_transaction}
    with pytest.raises(ConfigurationError, match="plain, then windowed, then concurrent"):
        Pipeline(stages, runners, {"write": lambda s, c: s})


def test_an_error_in_the_worker_reaches_the_caller():
    def embed(s):
        raise ValueError("embedding failed")

    pipeline = Pipeline(_stages(), {"extract": lambda s: replace(s, facts=tuple(_facts(3, 3, 3, 3))),
                                    "parse": lambda s: replace(s, parsed=s.facts), "embed": embed},
                        {"write": lambda s, c: s})
    with pytest.raises(ValueError, match="embedding failed"):
        pipeline.run([Episode("a", "x", NOW)] * 4, nullcontext, window_facts=3)


def test_reads_handed_to_other_threads_are_cancelled_when_the_put_fails():
    """A window's read beside that has not started when a later stage fails is cancelled (the put
    will not use it); one that has finished is left as it is."""
    reads: list[Future] = []

    def embed(s):
        waiting, done = Future(), Future()  # one still queued, one already answered
        done.set_result("read")
        s.carry.reads.extend([waiting, done])
        reads.extend([waiting, done])
        return replace(s, embedded=s.parsed)

    def write(s, conn):
        raise ValueError("write failed")

    stages = [replace(_stages()[2], requires=("parsed", "carry")) if i == 2 else st for i, st in enumerate(_stages())]
    pipeline = Pipeline(stages, {"extract": lambda s: replace(s, facts=tuple(_facts(3, 3, 3, 3))),
                                 "parse": lambda s: replace(s, parsed=s.facts), "embed": embed},
                        {"write": write})
    with pytest.raises(ValueError, match="write failed"):
        pipeline.run([Episode("a", "x", NOW)] * 4, nullcontext, window_facts=3)
    assert len(reads) == 8  # four windows
    assert all(f.cancelled() for f in reads[0::2]) and not any(f.cancelled() for f in reads[1::2])


def test_a_short_put_is_cut_in_about_three_windows_a_long_one_in_windows_of_the_largest_size():
    from fleet_memory.ingest.pipeline import window_size

    assert window_size(45) == 15  # one session of long assistant turns: three windows
    assert window_size(20) == 12  # under twice the smallest: fact_windows keeps one window
    assert fact_windows(_facts(*[5] * 4), window_size(20)) == [tuple(_facts(*[5] * 4))]
    assert window_size(1_000) == 96 and window_size(300) == 96
    assert window_size(45, largest=4) == 4  # the largest caps the smallest
    windows = fact_windows(_facts(*[6] * 8), window_size(48))
    assert [len(w) for w in windows] == [18, 18, 12]
