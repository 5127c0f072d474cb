"""Plans: statements that can read an agent's own partial indexes are planned for the agent they
name every time (sent unprepared, ``store.database.AGENT_PLAN``); everything else, foreign-key
checks included, keeps its cached plan."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from fleet_memory.store import candidates as cand_sql
from fleet_memory.store.filters import UnitFilter

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)


def test_entry_points_are_never_prepared_other_statements_are(memory) -> None:
    memory.put_many([{"text": f"Alice Moreau flew to Lisbon in week {i}.",
                      "timestamp": (T0 + timedelta(hours=i)).isoformat()} for i in range(12)], agent_id="a")
    memory.index_agents(min_units=5)
    feats = cand_sql.Features(np.asarray(memory.embedder.embed(["Where did Alice fly?"])[0], dtype=np.float32))
    with memory.db.transaction() as conn:
        assert conn.execute("SELECT current_setting('plan_cache_mode')").fetchone()[0] == "auto"
        for _ in range(8):  # psycopg prepares a statement from its 5th run on a connection
            cand_sql.term_stats(conn, "a", ["lisbon"], common_units=1000)
            assert cand_sql.entries(conn, "a", feats, UnitFilter(), cand_sql.EntryLimits(vector=3))
        prepared = [r[0] for r in conn.execute("SELECT statement FROM pg_prepared_statements").fetchall()]
    assert [s for s in prepared if "FROM term_df" in s], "a repeated statement is prepared"
    assert not [s for s in prepared if "AS channel FROM memory_units" in s], "entry points: planned per agent"
