"""Windows of facts (ingest.pipeline): cut at episode ends, stages run window by window with the
concurrent ones in a worker thread, and the windows merged back in order."""

from __future__ import annotations

import threading
from contextlib import nullcontext
from dataclasses import replace

import pytest

from fleet_memory.clock import FixedClock
from fleet_memory.errors import ConfigurationError
from fleet_memory.ingest.pipeline import Pipeline, Stage, fact_windows
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
    assert len(threads["embed"]) == 1 and threads["embed"] != threads["parse"]
    assert set(timings) == {"extract", "parse", "embed", "write"}
    one, _ = pipeline.run(episodes, nullcontext, window_facts=100)
    assert one.units == state.units


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


def test_a_short_put_is_cut_in_about_three_windows_a_long_one_in_windows_of_the_largest_size():
    from fleet_memory.ingest.pipeline import window_size

    assert window_size(45) == 15  # one session of long assistant turns: three windows
    assert window_size(20) == 12  # under twice the smallest: fact_windows keeps one window
    assert fact_windows(_facts(*[5] * 4), window_size(20)) == [tuple(_facts(*[5] * 4))]
    assert window_size(1_000) == 96 and window_size(300) == 96
    assert window_size(45, largest=4) == 4  # the largest caps the smallest
    windows = fact_windows(_facts(*[6] * 8), window_size(48))
    assert [len(w) for w in windows] == [18, 18, 12]


class _Transaction:
    """A stand-in for ``Database.transaction``: records how each one ended."""

    def __init__(self) -> None:
        self.ended: list[str] = []
        self.threads: set[str] = set()

    def __call__(self):
        from contextlib import contextmanager

        @contextmanager
        def opened():
            self.threads.add(threading.current_thread().name)
            try:
                yield "conn"
            except BaseException:
                self.ended.append("rolled back")
                raise
            self.ended.append("committed")
        return opened()


def _writing_stages():
    return [
        Stage("extract", ("episodes",), ("facts",)),
        Stage("parse", ("facts",), ("parsed",), windowed=True),
        Stage("embed", ("parsed",), ("embedded",), windowed=True, concurrent=True),
        Stage("documents", ("episodes",), ("documents",), in_transaction=True),
        Stage("write", ("embedded", "documents"), ("units", "unit_counts"), in_transaction=True, windowed=True),
        Stage("link", ("units",), ("links", "mentions"), in_transaction=True, windowed=True),
        Stage("count", ("units",), ("superseded",), in_transaction=True),
    ]


def _writing_pipeline(seen: list, parse=None, link=None):
    def write(s, conn):
        seen.append((threading.current_thread().name, conn, s.documents, len(s.embedded)))
        return replace(s, units=s.embedded, unit_counts={"a": len(seen), f"w{len(seen)}": 1})

    return Pipeline(_writing_stages(), {
        "extract": lambda s: replace(s, facts=tuple(_facts(*[2] * 6))),
        "parse": parse or (lambda s: replace(s, parsed=tuple(f.text for f in s.facts))),
        "embed": lambda s: replace(s, embedded=tuple(t.upper() for t in s.parsed)),
    }, {
        "documents": lambda s, conn: replace(s, documents=("d",) * len(s.episodes)),
        "write": write,
        "link": link or (lambda s, conn: replace(s, links={"temporal": len(s.units), "semantic": 1}, mentions=2)),
        "count": lambda s, conn: replace(s, superseded=len(s.units)),
    })


def test_windows_are_written_in_order_in_one_transaction_on_a_thread_of_their_own():
    seen: list = []
    txn = _Transaction()
    state, timings = _writing_pipeline(seen).run([Episode("a", "x", NOW)] * 6, txn, window_facts=4)
    assert state.units == tuple(f"FACT {e}.{i}" for e in range(6) for i in range(2))
    assert [n for *_, n in seen] == [4, 4, 4] and {conn for _, conn, *_ in seen} == {"conn"}
    assert all(docs == ("d",) * 6 for _, _, docs, _ in seen)  # the documents, written once first
    assert len({name for name, *_ in seen}) == 1 and threading.current_thread().name not in {n for n, *_ in seen}
    assert txn.ended == ["committed"] and txn.threads == {seen[0][0]}
    assert state.unit_counts == {"a": 3, "w1": 1, "w2": 1, "w3": 1}  # latest: the later window wins
    assert (dict(state.links), state.mentions) == ({"temporal": 12, "semantic": 3}, 6)  # added up
    assert state.superseded == 12  # after every window: on them all
    assert {"documents", "write", "link", "count"} <= set(timings)


def test_a_failure_in_any_thread_rolls_the_put_back_and_reaches_the_caller():
    def parse(s):
        if any(f.episode_index >= 4 for f in s.facts):
            raise ValueError("parse failed")
        return replace(s, parsed=tuple(f.text for f in s.facts))

    def link(s, conn):
        raise RuntimeError("link failed")

    for pipeline, error in ((_writing_pipeline([], parse=parse), "parse failed"),
                            (_writing_pipeline([], link=link), "link failed")):
        txn = _Transaction()
        with pytest.raises((ValueError, RuntimeError), match=error):
            pipeline.run([Episode("a", "x", NOW)] * 6, txn, window_facts=4)
        assert txn.ended == ["rolled back"]


def test_a_stage_that_opens_the_transaction_cannot_read_what_windows_provide():
    stages = _writing_stages()
    stages[3] = Stage("documents", ("episodes", "parsed"), ("documents",), in_transaction=True)
    runners = {s.name: (lambda st: st) for s in stages if not s.in_transaction}
    with pytest.raises(ConfigurationError, match="documents run as the transaction opens"):
        Pipeline(stages, runners, {s.name: (lambda st, c: st) for s in stages if s.in_transaction})
