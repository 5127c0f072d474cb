"""After ``forget_user`` nothing that came only from that user remains anywhere:
every table of the schema is read (found in ``pg_tables``, so a table added later is read too)
and no row names the user, their words or the ids of what they stored; the entities and term
statistics they shared with other users are those of a store that never had them; a retry with
their old idempotency key runs again instead of returning their stored texts; the export is clean.
"""

from __future__ import annotations

import io
from datetime import datetime, timezone

import pytest

from fleet_memory import NotFoundError

AGENT, REFERENCE = "forgetful", "never-had-them"
USER, OTHER = "u-forgotten-7", "u-stays"
SECRETS = ("zorblax", "vexmoor", "hunter2", "qwibbly", USER)
KEPT = [  # the other user's puts, stored in both agents
    ("Alice lives in Leeds with her sister.", datetime(2024, 3, 1, tzinfo=timezone.utc)),
    ("Alice works at the Harbour Museum as a curator.", datetime(2024, 4, 1, tzinfo=timezone.utc)),
]
FORGOTTEN = [  # the forgotten user's, stored in AGENT only
    ("Zorblax Quintavius said my password is hunter2 for the Vexmoor office.", datetime(2025, 6, 1, tzinfo=timezone.utc)),
    ("Alice met Zorblax Quintavius at the Harbour Museum in Vexmoor.", datetime(2025, 7, 1, tzinfo=timezone.utc)),
    ("Thanks, Qwibbly!", datetime(2025, 8, 1, tzinfo=timezone.utc)),  # filler: a document with no unit
    # a surface only they used: an alias of the entity the other user named ("ALICE" beside "Alice")
    ("ALICE showed me the Harbour Museum in Vexmoor.", datetime(2025, 9, 1, tzinfo=timezone.utc)),
]


def _rows(conn) -> dict[str, list[str]]:
    """Every row of every table of the schema, as text."""
    tables = [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename").fetchall()]
    assert {"documents", "memory_units", "entities", "term_df", "idempotency_keys"} <= set(tables)
    return {t: [r[0] for r in conn.execute(f'SELECT t::text FROM "{t}" t').fetchall()] for t in tables}


def _entities(conn, agent: str) -> list[tuple]:
    return conn.execute(
        "SELECT name, label, aliases, mention_count, first_seen, last_seen FROM entities WHERE agent_id = %s"
        " ORDER BY normalized_name", (agent,)).fetchall()


def _terms(conn, agent: str) -> dict[str, int]:
    return dict(conn.execute("SELECT lexeme, df FROM term_df WHERE agent_id = %s", (agent,)).fetchall())


def _put_once(memory, key: str, text: str, when: datetime) -> dict:
    def produce() -> dict:
        result = memory.put(AGENT, text, user_id=USER, event_date=when)
        return {"document_id": str(result.document_id),
                "units": [{"id": str(u.id), "text": u.text} for u in result.units]}
    return memory.idempotent(AGENT, key, {"content": text}, produce)


def test_forget_user_leaves_no_row_of_theirs_in_any_table(memory) -> None:
    for text, when in KEPT:
        for agent in (AGENT, REFERENCE):
            memory.put(agent, text, user_id=OTHER, event_date=when)
    answers = [_put_once(memory, f"key-{i}", text, when) for i, (text, when) in enumerate(FORGOTTEN)]
    theirs = {a["document_id"] for a in answers} | {u["id"] for a in answers for u in a["units"]}
    assert memory.get_entity(AGENT, "Zorblax Quintavius").entity.mention_count == 2
    assert "ALICE" in memory.get_entity(AGENT, "Alice").entity.aliases

    assert memory.forget_user(AGENT, USER) == sum(len(a["units"]) for a in answers)

    with memory.db.transaction() as conn:
        rows = _rows(conn)
        assert _entities(conn, AGENT) == _entities(conn, REFERENCE)  # Alice: counts and dates as before them
        assert _terms(conn, AGENT) == _terms(conn, REFERENCE)
    for table, texts in rows.items():
        for text in texts:
            low = text.lower()
            assert not [s for s in SECRETS if s in low], f"{table} keeps {text[:200]}"
            assert not [i for i in theirs if i in low], f"{table} keeps an id of theirs: {text[:200]}"
    with pytest.raises(NotFoundError):
        memory.get_entity(AGENT, "Zorblax Quintavius")
    retried = memory.idempotent(AGENT, "key-0", {"content": FORGOTTEN[0][0]}, lambda: {"ran": "again"})
    assert retried == {"ran": "again"}  # not their stored texts
    out = io.StringIO()
    memory.export_agent(AGENT, out)
    exported = out.getvalue().lower()
    assert not [s for s in SECRETS if s in exported] and not [i for i in theirs if i in exported]
