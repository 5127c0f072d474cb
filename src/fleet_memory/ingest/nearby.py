"""A put's reads of its new units' nearest STORED units, on spare connections (``store.db.beside``),
so that the link step finds them ready instead of searching inside the put's transaction.

- ``Neighbours.of_window``: in a worker thread, once a window is embedded, for each agent searched
  through its own index (``semantic.searched_by_index``, with its units before the put), the
  window's new units' nearest stored units, read on a spare connection (which does not see this
  put's rows) while later windows are parsed and embedded. Through the index a search costs the
  same per unit however the batch is cut (about 1 ms; 1.5–2 s for a conversation into an agent of
  85,000 units). A window read may wait ``NEARBY_CONNECTION_WAIT_S`` for its connection.
- ``Neighbours.of_rest``: in the transaction, before the write, the new units no window read asks
  about — all of them for most agents (a read of a small agent is a pass over all its units, done
  once for the batch); those of some windows where the rule weighed a window's size differently;
  those of window reads that had not started, cancelled here: the put now holds a connection, and
  a read taken from here on waits ``SPARE_WAIT_S`` at most for its own. They run while the write
  and entity resolution go on.
- ``stored_pairs``: the link step's use of them. A read counts only when every read for the agent
  ran and saw every unit stored before this put; else the link step searches in the transaction,
  the same way. If a window's read fails, the link step searches the whole batch, which for an
  agent of a few thousand units may go in memory, exactly, where the windows went through the
  index: a graph as valid, not always the same one.

Each read first bounds its lock waits to ``SIMILAR_LOCK_TIMEOUT`` (a schema change waiting for
this put's own transaction would otherwise hold it). ``Neighbours.cancel`` drops the reads not
started when the put fails.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
import psycopg

from ..config import IngestConfig
from ..store.db import planner
from ..store.db.beside import Beside
from ..store.db.database import lock_timeout
from ..store.linking.embedding_cache import EmbeddingCache
from ..store.linking.semantic import INDEX_UNIT_S, searched_by_index, semantic_candidates
from .records import EmbeddedUnit, Episode

__all__ = ["NEARBY_CONNECTION_WAIT_S", "Neighbours", "Read", "SIMILAR_LOCK_TIMEOUT", "SIMILAR_WAIT_PER_UNIT",
           "SIMILAR_WAIT_S", "Stored", "stored_pairs"]

Pair = tuple[uuid.UUID, uuid.UUID, float]
Stored = tuple[int, list[Pair]]
"""A read's answer: the agent's unit count it saw, then the new units' nearest stored units."""
NewUnits = list[tuple[uuid.UUID, np.ndarray]]

SIMILAR_WAIT_S = 2.0
SIMILAR_WAIT_PER_UNIT = 5 * INDEX_UNIT_S
"""How long the link step waits, from its start, for an agent's reads, queued ones included:
``SIMILAR_WAIT_S`` + ``SIMILAR_WAIT_PER_UNIT`` a new unit (five times an HNSW search; a read for
the whole batch takes about as long as the write before it, a second or two for a conversation
into a 50,000-unit agent); then it searches them itself. Only a read stuck behind a pooler's queue
waits that long: one queued behind a lock gives up after ``SIMILAR_LOCK_TIMEOUT``."""
SIMILAR_LOCK_TIMEOUT = "100ms"
NEARBY_CONNECTION_WAIT_S = 0.25
"""How long a window read may wait for a spare connection, long enough for the pool to open one (a
process that has run one search or put at a time holds a single idle connection, and a read beside
found none within ``SPARE_WAIT_S``). It is handed over before the put takes a connection of its
own, but may start after: the wait is bounded, and the reads not started when the transaction
begins are cancelled and their units read with the rest of the batch (``of_rest``)."""


@dataclass(frozen=True, slots=True)
class Read:
    """A read handed to a spare connection: the agent, the new units it asked about, its answer."""

    agent_id: str
    unit_ids: frozenset[uuid.UUID]
    answer: Future[Stored | None]


class Neighbours:
    """One put's reads of stored neighbours (see the module docstring)."""

    def __init__(self, beside: Beside, config: IngestConfig, cache: EmbeddingCache) -> None:
        self._beside, self._config, self._cache = beside, config, cache
        self._submitted: list[Future[Stored | None]] = []

    def of_window(self, episodes: Sequence[Episode], embedded: Sequence[EmbeddedUnit],
                  sizes: Mapping[str, int]) -> tuple[Read, ...]:
        """A window's reads, for the agents whose windows go through their own index (``sizes``:
        the agents' unit counts before the put)."""
        large = {agent: units for agent, units in new_by_agent(episodes, embedded).items()
                 if searched_by_index(sizes.get(agent, 0), len(units))}
        return tuple(self._read(agent, units, NEARBY_CONNECTION_WAIT_S) for agent, units in sorted(large.items()))

    def of_rest(self, episodes: Sequence[Episode], embedded: Sequence[EmbeddedUnit],
                windows: Sequence[Read]) -> tuple[Read, ...]:
        """The window reads that started, then reads of every new unit none of them asks about."""
        kept = tuple(read for read in windows if not read.answer.cancel())
        asked = {uid for read in kept for uid in read.unit_ids}
        rest = {agent: left for agent, units in new_by_agent(episodes, embedded).items()
                if (left := [u for u in units if u[0] not in asked])}
        return kept + tuple(self._read(agent, units) for agent, units in sorted(rest.items()))

    def cancel(self) -> None:
        """Cancel the reads not started yet (the put failed)."""
        Beside.cancel(self._submitted)

    def _read(self, agent_id: str, units: NewUnits, connection_wait_s: float | None = None) -> Read:
        answer = self._beside.submit(self._search(agent_id, units), connection_wait_s)
        self._submitted.append(answer)
        return Read(agent_id, frozenset(u[0] for u in units), answer)

    def _search(self, agent_id: str, units: NewUnits) -> Callable[[psycopg.Connection], Stored]:
        """The read: the agent's unit count (``term_df``, kept by every insert), then the new
        units' nearest stored units."""
        cfg, cache = self._config, self._cache

        def read(conn: psycopg.Connection) -> Stored:
            lock_timeout(conn, SIMILAR_LOCK_TIMEOUT)
            seen = planner.unit_counts(conn, [agent_id]).get(agent_id, 0)
            return seen, semantic_candidates(conn, agent_id, units, top_k=cfg.semantic_top_k,
                                             min_similarity=cfg.semantic_min_similarity, cache=cache, size=seen)
        return read


def new_by_agent(episodes: Sequence[Episode], embedded: Sequence[EmbeddedUnit]) -> dict[str, NewUnits]:
    """The new units' ids and vectors, per agent, in order."""
    by_agent: dict[str, NewUnits] = {}
    for item in embedded:
        agent = episodes[item.draft.episode_index].agent_id
        by_agent.setdefault(agent, []).append((item.unit_id, item.embedding))
    return by_agent


def stored_pairs(reads: Sequence[Read], agent_id: str, before: int, new_units: int) -> list[Pair] | None:
    """The agent's new units' nearest stored units, when every read for it ran and saw ``before``
    units, every unit stored before this put (the put's count after its write less its own units:
    an insert committed by another put after a read shows there; the put's own count holds the
    count's row lock, so none can commit after it). Else None, and ``link_units`` searches them in
    the transaction, the same way."""
    mine = [read.answer for read in reads if read.agent_id == agent_id]
    deadline = time.monotonic() + SIMILAR_WAIT_S + SIMILAR_WAIT_PER_UNIT * new_units
    pairs: list[Pair] = []
    for i, answer in enumerate(mine):
        got = Beside.awaited(answer, max(0.0, deadline - time.monotonic()))
        if got is None or got[0] != before:
            Beside.cancel(mine[i + 1:])  # their answers will not be used
            return None
        pairs.extend(got[1])
    return pairs if mine else None
