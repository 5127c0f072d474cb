"""How a put's stages run: the ``PutState`` they pass on, their declarations (``Stage``), and
``Pipeline``, which checks the order once and runs them, window by window, on up to three threads.

Stages declare the ``PutState`` fields they read and the fields they add; ``Pipeline`` checks once,
at construction, that every field a stage reads is the input or added by an earlier stage, and that
the stages which need the transaction's connection come last; when it runs, it checks that a stage
changed only the fields it declared.

Windows (``windowed`` stages): after the plain stages, the facts are cut into windows of about
``WINDOW_FACTS`` facts — a put of fewer than three times that into about three windows of at least
``MIN_WINDOW_FACTS`` (``window_size``) —, never splitting an episode. A put with one window runs
every stage in the caller's thread, one after the other, the transaction's stages in one
transaction. With more, three threads overlap:

- the caller's thread runs the windowed stages outside the transaction (parse … assemble), window
  by window; what they pass on from one window to the next is in ``Carry``;
- one worker runs the ``concurrent`` stages (embedding) of each window in turn — with one torch
  thread while the caller's is still parsing, so the two cores are both busy;
- one writer opens THE transaction, runs the transaction's stages that come before its windowed
  ones (the documents, the agents' locks) at once, then the windowed ones (units, entities, links,
  supersession) for each embedded window in order — while the next windows are parsed and
  embedded —, then the rest on all windows merged.

Each window's writes see the earlier windows' rows (one transaction), so the put reads as the
windows put one after the other; it is still all or nothing. A failure in any thread rolls the
transaction back and reaches the caller. Windows' outputs are merged in order (``_merge``: tuples
joined, counts added, a ``latest`` field's mapping updated). Stage timings are summed over windows
(the threads overlap, so they add up to more than the wall time).
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any

import psycopg

from ..errors import ConfigurationError
from .coref import Discourse
from .llm_extract import Progress
from .records import (
    AgentContext,
    CorefFact,
    EmbeddedUnit,
    Episode,
    ExtractedFact,
    NamedFact,
    ParsedFact,
    UnitDraft,
    UnitPlan,
    WrittenUnit,
)

__all__ = ["Carry", "Pipeline", "PutState", "Stage", "WINDOW_FACTS", "MIN_WINDOW_FACTS", "fact_windows",
           "window_size"]


@dataclass(frozen=True, slots=True)
class PutState:
    """One ``put_many`` as far as the stages have taken it: the input (``episodes``, ``progress``),
    then each stage's output. A field is empty until the stage that provides it has run."""

    episodes: tuple[Episode, ...]
    progress: Progress | None = None
    context: AgentContext = field(default_factory=AgentContext)
    carry: Carry | None = None  # what windows of one put pass on to the next (see ``Carry``)
    facts: tuple[ExtractedFact, ...] = ()
    parsed: tuple[ParsedFact, ...] = ()
    named: tuple[NamedFact, ...] = ()
    coref: tuple[CorefFact, ...] = ()
    plans: tuple[UnitPlan, ...] = ()
    drafts: tuple[UnitDraft, ...] = ()
    embedded: tuple[EmbeddedUnit, ...] = ()
    documents: tuple[uuid.UUID, ...] = ()  # one per episode, in order
    units: tuple[WrittenUnit, ...] = ()
    unit_counts: Mapping[str, int] = field(default_factory=dict, metadata={"merge": "latest"})  # per agent, after the write
    mentions: int = 0  # mention rows recorded
    links: Mapping[str, int] = field(default_factory=dict)  # link rows made, by kind
    superseded: int = 0  # older units a new unit superseded


class Carry:
    """Mutable state of one ``Pipeline.run`` shared by its windows, in order: the coreference
    discourse, the names the batch knows, and whether the caller's thread is done parsing."""

    def __init__(self) -> None:
        self.discourse = Discourse()
        self.known: dict[str, str] = {}
        self.front_done = threading.Event()


_FIELDS = tuple(f.name for f in dataclasses.fields(PutState))
_INPUTS = ("episodes", "progress", "carry")
WINDOW_FACTS = 96
MIN_WINDOW_FACTS = 12


def window_size(facts: int, largest: int = WINDOW_FACTS, smallest: int = MIN_WINDOW_FACTS) -> int:
    """Facts per window for a put of ``facts`` facts: ``largest`` for a long put; a shorter one is
    cut in about three windows of at least ``smallest`` (never more than ``largest``), so that a
    put of a few dozen facts — one session of long assistant turns — overlaps parse and embedding
    too instead of running them one after the other."""
    return min(largest, max(smallest, facts // 3))


Runner = Callable[[PutState], PutState]
TransactionRunner = Callable[[PutState, "psycopg.Connection"], PutState]


@dataclass(frozen=True, slots=True)
class Stage:
    """A stage's name, the ``PutState`` fields it reads and those it adds; stages that write run
    ``in_transaction`` (with the connection), after all the others (see the module docstring for
    ``windowed`` and ``concurrent``)."""

    name: str
    requires: tuple[str, ...]
    provides: tuple[str, ...]
    in_transaction: bool = False
    windowed: bool = False  # runs once per window of facts
    concurrent: bool = False  # a windowed stage outside the transaction, run in the embedding thread


class Pipeline:
    """Stages in order, checked at construction; ``run`` times each stage. ``runners`` implement
    the stages outside the transaction, ``transaction_runners`` those inside it."""

    def __init__(self, stages: Sequence[Stage], runners: Mapping[str, Runner],
                 transaction_runners: Mapping[str, TransactionRunner] | None = None):
        transaction_runners = transaction_runners or {}
        available = set(_INPUTS)
        in_txn = False
        for stage in stages:
            if stage.name not in (transaction_runners if stage.in_transaction else runners):
                raise ConfigurationError(f"pipeline stage {stage.name!r} has no implementation")
            if in_txn and not stage.in_transaction:
                raise ConfigurationError(f"pipeline stage {stage.name!r} runs outside the transaction "
                                         "after one inside it")
            in_txn = in_txn or stage.in_transaction
            if stage.concurrent and (stage.in_transaction or not stage.windowed):
                raise ConfigurationError(f"pipeline stage {stage.name!r}: only windowed stages outside the "
                                         "transaction run concurrently")
            unknown = [f for f in stage.requires + stage.provides if f not in _FIELDS]
            if unknown:
                raise ConfigurationError(f"pipeline stage {stage.name!r} names {', '.join(unknown)}, "
                                         "which PutState does not hold")
            missing = [r for r in stage.requires if r not in available]
            if missing:
                raise ConfigurationError(
                    f"pipeline stage {stage.name!r} needs {', '.join(missing)}, which no earlier stage provides"
                )
            available.update(stage.provides)
        _check_windows(stages)
        self.stages = tuple(stages)
        self.runners = dict(runners)
        self.transaction_runners = dict(transaction_runners)
        self._plain = [s for s in stages if not s.windowed and not s.in_transaction]
        self._front = [s for s in stages if s.windowed and not s.concurrent and not s.in_transaction]
        self._back = [s for s in stages if s.concurrent]
        inside = [s for s in stages if s.in_transaction]
        first = next((i for i, s in enumerate(inside) if s.windowed), len(inside))
        self._opening = inside[:first] if first < len(inside) else []  # once, as the transaction opens
        self._per_window = [s for s in inside[first:] if s.windowed]
        self._closing = [s for s in inside if s not in self._opening and s not in self._per_window]
        self._windowed_fields = [f for s in stages if s.windowed for f in s.provides]
        early = [s.name for s in self._opening if set(s.requires) & set(self._windowed_fields)]
        if early:
            raise ConfigurationError(f"pipeline stages {', '.join(early)} run as the transaction opens, "
                                     "before any window: they cannot read what windows provide")

    def run(self, episodes: Sequence[Episode],
            transaction: Callable[[], AbstractContextManager[psycopg.Connection]], *,
            progress: Progress | None = None, window_facts: int = WINDOW_FACTS,
            min_window_facts: int = MIN_WINDOW_FACTS) -> tuple[PutState, dict[str, float]]:
        """Run every stage; ``progress`` is readable by stages but required by none."""
        state = PutState(tuple(episodes), progress, carry=Carry())
        assert state.carry is not None
        timings: dict[str, float] = {}
        for stage in self._plain:
            state = self._run_stage(stage, state, timings, self.runners[stage.name])
        windows = fact_windows(state.facts, window_size(len(state.facts), window_facts, min_window_facts))
        if len(windows) > 1 and self._back:
            return self._run_overlapped(state, windows, transaction, timings), timings
        state.carry.front_done.set()
        state = self._run_sequence(self._front + self._back, state, timings)
        inside = [s for s in self.stages if s.in_transaction]
        if inside:
            with transaction() as conn:
                state = self._run_sequence(inside, state, timings, conn)
        return state, timings

    def _run_overlapped(self, state: PutState, windows: Sequence[tuple[ExtractedFact, ...]],
                        transaction: Callable[[], AbstractContextManager[psycopg.Connection]],
                        timings: dict[str, float]) -> PutState:
        """The caller's thread runs the front stages window by window; the embedding worker and the
        writer take each window in turn (see the module docstring)."""
        assert state.carry is not None
        embedded: queue.SimpleQueue[Future[PutState] | object] = queue.SimpleQueue()
        thread_timings: list[dict[str, float]] = [{}, {}]  # the worker's, the writer's

        def embed(window: PutState) -> PutState:
            return self._run_sequence(self._back, window, thread_timings[0])

        with ThreadPoolExecutor(1, thread_name_prefix="fleet-memory-embed") as worker, \
                ThreadPoolExecutor(1, thread_name_prefix="fleet-memory-write") as writing:
            writer = writing.submit(self._write_windows, state, embedded, transaction, thread_timings[1])
            try:
                for facts in windows:
                    if writer.done():  # it failed: its error is raised below
                        break
                    front = self._run_sequence(self._front, replace(state, facts=facts), timings)
                    embedded.put(worker.submit(embed, front))
            except BaseException:
                embedded.put(_ABORT)
                wait([writer])
                raise
            finally:
                state.carry.front_done.set()
            embedded.put(_END)
            final = writer.result()
        for mine in thread_timings:
            for name, secs in mine.items():
                timings[name] = timings.get(name, 0.0) + secs
        return final

    def _write_windows(self, state: PutState, embedded: queue.SimpleQueue[Any],
                       transaction: Callable[[], AbstractContextManager[psycopg.Connection]],
                       timings: dict[str, float]) -> PutState:
        """The writer: one transaction for the whole put, each window written as it comes."""
        with transaction() as conn:
            opened = self._run_sequence(self._opening, state, timings, conn)
            carried = {f: getattr(opened, f) for s in self._opening for f in s.provides}
            done: list[PutState] = []
            while (item := embedded.get()) is not _END:
                if item is _ABORT:
                    raise _Aborted()
                window = replace(item.result(), **carried)
                done.append(self._run_sequence(self._per_window, window, timings, conn))
            merged = replace(opened, **_merge(done, self._windowed_fields))
            return self._run_sequence(self._closing, merged, timings, conn)

    def _run_sequence(self, stages: Sequence[Stage], state: PutState, timings: dict[str, float],
                      conn: psycopg.Connection | None = None) -> PutState:
        for stage in stages:
            if stage.in_transaction:
                runner = self.transaction_runners[stage.name]
                state = self._run_stage(stage, state, timings, lambda s, run=runner: run(s, conn))
            else:
                state = self._run_stage(stage, state, timings, self.runners[stage.name])
        return state

    @staticmethod
    def _run_stage(stage: Stage, before: PutState, timings: dict[str, float],
                   produce: Callable[[PutState], PutState]) -> PutState:
        started = time.perf_counter()
        after = produce(before)
        timings[stage.name] = timings.get(stage.name, 0.0) + time.perf_counter() - started
        changed = [f for f in _FIELDS if getattr(after, f) is not getattr(before, f)]
        undeclared = [f for f in changed if f not in stage.provides]
        if undeclared:
            raise ConfigurationError(f"pipeline stage {stage.name!r} changed {', '.join(undeclared)}, "
                                     f"declared {', '.join(stage.provides)}")
        return after


_END = object()  # no more windows
_ABORT = object()  # the caller's thread failed: roll back


class _Aborted(Exception):
    """Raised in the writer to roll the put's transaction back after the caller's thread failed."""


def wait(futures: Sequence[Future[Any]]) -> None:
    """Wait for ``futures`` to finish, whatever they raise (the caller raises its own error)."""
    for future in futures:
        try:
            future.result()
        except BaseException:  # noqa: BLE001 - the caller's error is the one that reaches the user
            pass


_MERGE = {f.name: f.metadata.get("merge", "add") for f in dataclasses.fields(PutState)}


def _merge(states: Sequence[PutState], fields: Sequence[str]) -> dict[str, Any]:
    """The windows' values of ``fields``, merged in order: tuples joined, counts added, mappings
    added key by key — or, for a ``latest`` field (the agents' unit counts after the write),
    updated, the later window's value winning."""
    merged: dict[str, Any] = {}
    for name in dict.fromkeys(fields):
        values = [getattr(s, name) for s in states]
        if all(isinstance(v, tuple) for v in values):
            merged[name] = tuple(item for v in values for item in v)
        elif all(isinstance(v, Mapping) for v in values):
            out: dict[Any, Any] = {}
            for v in values:
                for key, value in v.items():
                    out[key] = value if _MERGE[name] == "latest" else out.get(key, 0) + value
            merged[name] = out
        else:
            merged[name] = sum(values)
    return merged


def _check_windows(stages: Sequence[Stage]) -> None:
    """Windowed stages outside the transaction form one run right after the plain outside stages,
    concurrent ones last; the transaction's stages come after them all."""
    kinds = [("txn" if s.in_transaction else "conc" if s.concurrent else "win" if s.windowed else "plain")
             for s in stages]
    order = {"plain": 0, "win": 1, "conc": 2, "txn": 3}
    if any(order[a] > order[b] for a, b in zip(kinds, kinds[1:])):
        raise ConfigurationError("pipeline stages must run plain, then windowed, then concurrent, "
                                 "then in the transaction: " + ", ".join(s.name for s in stages))


def fact_windows(facts: Sequence[ExtractedFact], size: int) -> list[tuple[ExtractedFact, ...]]:
    """``facts`` cut into runs of at least ``size`` facts (the last may be shorter), each ending
    where an episode ends. One run when there are fewer than ``2 * size`` facts."""
    if len(facts) < 2 * size:
        return [tuple(facts)] if facts else []
    windows: list[tuple[ExtractedFact, ...]] = []
    start = 0
    for i in range(1, len(facts) + 1):
        ends_episode = i == len(facts) or facts[i].episode_index != facts[i - 1].episode_index
        if ends_episode and (i - start >= size or i == len(facts)):
            windows.append(tuple(facts[start:i]))
            start = i
    if len(windows) > 1 and len(windows[-1]) < size // 2:
        windows[-2:] = [windows[-2] + windows[-1]]
    return windows

