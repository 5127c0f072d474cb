"""Ingestion at scale, for ``bench/ingest.py``: units/s into agents of different sizes, and long
assistant-style turns.

Agent size: an agent is prefilled to N units by bulk insert (documents + units, the LoCoMo turn
texts of the other conversations cycled; vectors are real embeddings of a pool of those texts,
jittered so no two are equal; event dates spread over the two years around the measured put),
its planner statistics refreshed as ``put_many`` would, and then the first conversation is put
with one ``put_many`` (the full pipeline) and timed. Same conversation, same run, for each N.

Long turns (LongMemEval-like): every LoCoMo session becomes a user/assistant conversation of long
turns — ``group`` consecutive turns joined into one multi-sentence turn, speakers alternating
"user" and "assistant" —, put with one ``put_many`` per session into ONE agent (the sessions pool,
as LongMemEval's haystack does). Printed: turns/s and units/s over all sessions, the median
seconds per session put, and the floor (embedding + insert of the same turns, each session just
before its put) in turns/s.
"""

from __future__ import annotations

import statistics
import time
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np

from locomo_data import turn_items

POOL = 512  # distinct texts embedded for the prefill vectors


def _prefill(mem, agent: str, size: int, texts: list[str], vectors: np.ndarray, centre: datetime) -> None:
    from fleet_memory.store import documents as doc_sql
    from fleet_memory.store import planner
    from fleet_memory.store import units as unit_sql

    rng = np.random.default_rng(size)
    now = datetime.now(timezone.utc)
    span = timedelta(days=730).total_seconds()
    counts: dict[str, int] = {}
    for start in range(0, size, 5_000):
        docs, units = [], []
        for i in range(start, min(size, start + 5_000)):
            when = centre + timedelta(seconds=float(rng.uniform(-span / 2, span / 2)))
            vec = vectors[i % len(vectors)] + rng.normal(0, 0.02, vectors.shape[1]).astype(np.float32)
            doc_id = uuid.uuid4()
            text = texts[i % len(texts)]
            docs.append(doc_sql.NewDocument(doc_id, agent, f"{text} #{i}", when, now))
            units.append(unit_sql.NewUnit(uuid.uuid4(), agent, text, vec / np.linalg.norm(vec), when, now,
                                          document_id=doc_id))
        with mem.db.transaction() as conn:
            doc_sql.insert_documents(conn, docs)
            counts = unit_sql.insert_units(conn, units)
    with mem.db.transaction() as conn:
        planner.refresh_if_stale(conn, [agent], counts)


def agent_sizes(mem, convs: list[dict], sizes: list[int], run: str) -> list[dict]:
    """units/s of one conversation's ``put_many`` into agents prefilled to each size."""
    if not sizes:
        return []
    measured = convs[0]
    items = turn_items(measured)
    texts = [t["text"] for c in convs[1:] or convs for t in turn_items(c)]
    vectors = mem.embedder.embed(texts[:POOL])
    centre = datetime.fromisoformat(items[len(items) // 2]["timestamp"]).replace(tzinfo=timezone.utc)
    rows = []
    for size in sizes:
        agent = f"size-{run}-{size}"
        _prefill(mem, agent, size, texts, vectors, centre)
        started = time.perf_counter()
        results = mem.put_many(items, agent_id=agent)
        secs = time.perf_counter() - started
        units = sum(len(r.units) for r in results)
        rows.append({"prefill_units": size, "turns": len(items), "units": units, "seconds": secs,
                     "units_per_s": units / secs, "stage_seconds": results[0].stage_seconds})
    return rows


def long_turn_sessions(convs: list[dict], group: int) -> list[list[dict]]:
    sessions = []
    for conv in convs:
        for session in conv["sessions"]:
            turns = [t["text"] for t in session["turns"]]
            joined = [" ".join(turns[i:i + group]) for i in range(0, len(turns), group)]
            sid = f"{conv['conversation_id']}:{session['session_id']}"
            sessions.append([{"speaker": "user" if i % 2 == 0 else "assistant", "text": text,
                              "timestamp": session["date_time"], "session_id": sid, "turn_id": f"{sid}:{i}"}
                             for i, text in enumerate(joined)])
    return sessions


def long_turns(mem, convs: list[dict], group: int, run: str, floor=None) -> dict:
    """turns/s of long multi-sentence turns, one ``put_many`` per session, all into one agent;
    with ``floor(mem, agent, items) -> seconds``, the floor's time for the same sessions first."""
    agent = f"long-{run}"
    per_put, turns, units, total, floor_s = [], 0, 0, 0.0, 0.0
    for items in long_turn_sessions(convs, group):
        if floor is not None:
            floor_s += floor(mem, f"long-floor-{run}", items)
        started = time.perf_counter()
        results = mem.put_many(items, agent_id=agent)
        secs = time.perf_counter() - started
        per_put.append(secs)
        total += secs
        turns += len(items)
        units += sum(len(r.units) for r in results)
    return {"sessions": len(per_put), "turns": turns, "units": units, "seconds": total, "floor_seconds": floor_s,
            "floor_turns_per_s": turns / floor_s if floor_s else None,
            "turns_per_s": turns / total, "units_per_s": units / total, "median_put_s": statistics.median(per_put),
            "chars_per_turn": sum(len(i["text"]) for s in long_turn_sessions(convs, group) for i in s) / turns}
