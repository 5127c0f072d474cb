"""Maintenance: archive what the forgetting curve has faded below the threshold; restore.

Algorithm, per run at one ``now``:

1. Page through the live units (one agent, or all) in keyset order over ``(agent_id, id)``,
   ``LifecycleConfig.batch_size`` at a time, each page locked ``FOR UPDATE SKIP LOCKED`` in its
   own short transaction — memory use is bounded by one page, however many units there are.
2. For each unit compute the effective importance (``decay.effective_importance``) from the stored
   base importance and the last access; below ``archive_below`` it gets ``archived_at = now``.
3. Nothing else is written: the base importance is never overwritten with a decayed value, so a
   second run at the same ``now`` finds nothing new to archive, and decay never compounds.
4. Idempotency keys older than ``idempotency_key_ttl_hours`` (``fleet_memory.idempotency``) are
   deleted, ``batch_size`` per transaction (indexed on their creation time: live keys are not read).

Two processes running this at once split the pages between them (each skips the rows the other
holds), so together they archive exactly what one run would have, each unit once.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from uuid import UUID

from ..config import LifecycleConfig
from ..model import MaintenanceReport, MemoryUnit
from ..store import Database
from ..store.tables import idempotency as key_sql
from ..store.tables import maintenance as maint_sql
from .decay import should_archive

__all__ = ["Maintainer"]


class Maintainer:
    def __init__(self, db: Database, config: LifecycleConfig) -> None:
        self.db = db
        self.config = config

    def run(self, agent_id: str | None, now: datetime) -> MaintenanceReport:
        examined: Counter[str] = Counter()
        archived: Counter[str] = Counter()
        batches = 0
        cursor: tuple[str, UUID] | None = None
        while True:
            with self.db.transaction() as conn:
                rows = maint_sql.lock_batch(conn, agent_id, cursor, self.config.batch_size)
                if not rows:
                    break
                fading = [r for r in rows if should_archive(r, now, self.config)]
                maint_sql.archive(conn, [(r.agent_id, r.id) for r in fading], now)
            batches += 1
            examined.update(r.memory_type for r in rows)
            archived.update(r.memory_type for r in fading)
            cursor = (rows[-1].agent_id, rows[-1].id)
            if len(rows) < self.config.batch_size:
                break
        return MaintenanceReport(
            now=now, agent_id=agent_id, examined=sum(examined.values()), archived=sum(archived.values()),
            examined_by_type=dict(sorted(examined.items())), archived_by_type=dict(sorted(archived.items())),
            batches=batches, expired_keys=self.expire_keys(agent_id, now),
        )

    def expire_keys(self, agent_id: str | None, now: datetime) -> int:
        """Delete the idempotency keys (one agent's, or all) older than the configured time to live."""
        before = now - timedelta(hours=self.config.idempotency_key_ttl_hours)
        total = 0
        while True:
            with self.db.transaction() as conn:
                gone = key_sql.expire(conn, agent_id, before, self.config.batch_size)
            total += gone
            if gone < self.config.batch_size:
                return total

    def restore(self, agent_id: str, unit_id: UUID, now: datetime) -> MemoryUnit | None:
        """Un-archive a unit; its curve starts afresh at ``now``. ``None`` when it does not exist."""
        with self.db.transaction() as conn:
            return maint_sql.restore(conn, agent_id, unit_id, now)
