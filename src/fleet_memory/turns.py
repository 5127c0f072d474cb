"""Writes in flight per agent: a write waits for its agent's turn *before* it takes a database
connection, so one agent's burst of writes cannot hold the connection pool that every other agent
needs.

Why: an agent's puts serialise inside PostgreSQL anyway (entity resolution takes the agent's
advisory lock for the rest of the transaction), so a second put of the same agent gains nothing by
starting early — it only sits on a pooled connection while it waits for the lock. Ten such puts
behind one very large put once held every connection of the pool, and other agents' searches
answered 503 after the pool's timeout.

Rule, per process: at most ``per_agent`` writes of one agent run at once; up to ``max_waiting``
more wait for their turn (holding no connection), each for at most ``wait_s``; a write beyond that,
or one that waited too long, is refused with ``BusyError`` (REST: 429 with ``Retry-After``) rather
than queueing without bound. Several processes (``serve`` behind a load balancer) each apply the
rule to their own writes; the database lock still orders them across processes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager

from .errors import BusyError

__all__ = ["AgentTurns"]


class _Agent:
    __slots__ = ("running", "waiting")

    def __init__(self) -> None:
        self.running = 0
        self.waiting = 0


class AgentTurns:
    """The per-agent write gate of one facade (see the module)."""

    def __init__(self, per_agent: int = 1, max_waiting: int = 8, wait_s: float = 120.0) -> None:
        self.per_agent, self.max_waiting, self.wait_s = per_agent, max_waiting, wait_s
        self._agents: dict[str, _Agent] = {}
        self._changed = threading.Condition()

    @contextmanager
    def turn(self, agent_ids: Iterable[str]) -> Iterator[None]:
        """Inside: the write has its turn for every agent it writes to (taken in sorted order, so
        two multi-agent writes cannot wait on each other)."""
        with ExitStack() as stack:
            for agent_id in sorted(set(agent_ids)):
                stack.enter_context(self._one(agent_id))
            yield

    @contextmanager
    def _one(self, agent_id: str) -> Iterator[None]:
        self._enter(agent_id)
        try:
            yield
        finally:
            with self._changed:
                state = self._agents[agent_id]
                state.running -= 1
                if not state.running and not state.waiting:
                    del self._agents[agent_id]
                self._changed.notify_all()

    def _enter(self, agent_id: str) -> None:
        with self._changed:
            state = self._agents.setdefault(agent_id, _Agent())
            if state.running >= self.per_agent:
                if state.waiting >= self.max_waiting:
                    raise BusyError(f"agent {agent_id!r} has {state.running} writes running and {state.waiting} "
                                    f"waiting (limit {self.max_waiting}); retry later", retry_after_s=1.0)
                state.waiting += 1
                try:
                    turned = self._changed.wait_for(lambda: state.running < self.per_agent, self.wait_s)
                finally:
                    state.waiting -= 1
                if not turned:
                    if not state.running and not state.waiting:
                        del self._agents[agent_id]
                    raise BusyError(f"agent {agent_id!r}: no turn to write within {self.wait_s:g} s; retry later",
                                    retry_after_s=5.0)
            state.running += 1
