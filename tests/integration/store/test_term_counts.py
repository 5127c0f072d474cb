"""``term_df`` follows deletions: after deleting a unit, a document or a user's units, each
lexeme's count and the agent's unit count are what counting the remaining units gives."""

from __future__ import annotations

import psycopg

AGENT = "terms"


def _recounted(conn, agent: str) -> dict[str, int]:
    rows = conn.execute(
        "SELECT lex, count(*) FROM (SELECT unnest(tsvector_to_array(tsv)) AS lex FROM memory_units WHERE agent_id = %s"
        " UNION ALL SELECT '' FROM memory_units WHERE agent_id = %s) t GROUP BY lex", (agent, agent)).fetchall()
    return dict(rows)


def _kept(conn, agent: str) -> dict[str, int]:
    return dict(conn.execute("SELECT lexeme, df FROM term_df WHERE agent_id = %s AND df > 0", (agent,)).fetchall())


def test_deletions_lower_the_term_counts(memory, db_url) -> None:
    puts = [memory.put(AGENT, text, user_id=user) for text, user in [
        ("Alice adopted a grey cat named Pixel.", "u1"), ("Bob repairs old bicycles in Lisbon.", "u2"),
        ("Alice moved to Porto with Pixel.", "u1"), ("Carmen teaches piano on weekends.", "u2"),
        ("Bob sold a red bicycle to Carmen.", "u2")]]
    memory.put_many([{"content": "Alice plays chess. Bob plays piano."}], agent_id=AGENT)
    with psycopg.connect(db_url) as conn:
        before, recounted_before = _kept(conn, AGENT), _recounted(conn, AGENT)
    assert before == recounted_before and before[""] == 7
    memory.delete(AGENT, puts[0].units[0].id)
    memory.delete_document(AGENT, puts[1].document_id)
    assert memory.forget_user(AGENT, "u2") == 2
    with psycopg.connect(db_url) as conn:
        after, recounted = _kept(conn, AGENT), _recounted(conn, AGENT)
    assert after == recounted and after[""] == 3
    assert "pixel" in after and "bicycl" not in after  # Pixel still named once; both bicycles gone
