"""Ingestion at scale, for ``bench/ingest.py``: units/s into agents of different sizes, and long
assistant-style turns.

Agent size: an agent is prefilled to N units by bulk insert (documents + units, the LoCoMo turn
texts of the other conversations cycled; vectors are real embeddings of a pool of those texts,
jittered so no two are equal; event dates spread over the two years around the measured put), given
entities, mentions and links of the degrees the pipeline leaves, its planner statistics refreshed,
its own indexes built from ``store.db.agent_indexes.OWN_INDEX_UNITS`` (as the put that took it across
would have), and then the first conversation is put with one ``put_many`` (the full pipeline) and
timed. The sizes are measured interleaved (round after round, one put per size, the order alternating) and
reported as medians, with the per-stage seconds — on a shared machine a single put per size
measures the machine's load, not the agent's size (parse and embed, which never read the
database, slowed as much as the rest).

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
    """Bulk-insert units until ``agent`` holds ``size`` (nothing when it already does: a large agent
    in a ``--home`` is built once), then give it the graph an agent of that size has: entities and
    mentions, temporal and semantic links (``_decorate``)."""
    from fleet_memory.store.db import agent_indexes, planner
    from fleet_memory.store.tables import documents as doc_sql
    from fleet_memory.store.tables import units as unit_sql

    with mem.db.transaction() as conn:
        have = conn.execute("SELECT count(*) FROM memory_units WHERE agent_id = %s", (agent,)).fetchone()[0]
        decorated = conn.execute("SELECT count(*) FROM entities WHERE agent_id = %s", (agent,)).fetchone()[0]
    if have >= size and decorated:
        return
    rng = np.random.default_rng(size)
    now = datetime.now(timezone.utc)
    span = timedelta(days=730).total_seconds()
    counts: dict[str, int] = {}
    for start in range(have, size, 5_000):
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
        if not decorated:
            _decorate(conn, agent, size)
    with mem.db.transaction() as conn:
        planner.refresh_if_stale(conn, [agent], counts or {agent: size})
        conn.execute("ANALYZE memory_units; ANALYZE entities; ANALYZE unit_entities; ANALYZE links")
    if size >= agent_indexes.OWN_INDEX_UNITS:  # as the put that took it across would have
        with mem.db.autocommit() as conn:
            agent_indexes.ensure(conn, agent)


def _decorate(conn, agent: str, size: int) -> None:
    """One entity per 25 units (two-word made-up names, PERSON), each unit mentioning one (skewed:
    a few entities are mentioned often); each unit temporally linked to its next 8 units in time
    (weight 0.6) and semantically to 2 others (0.75) — about the degrees the pipeline leaves."""
    syl = ["ka", "lo", "mi", "ren", "tu", "sa", "vel", "dor", "ni", "qua", "bri", "el", "to", "har", "ze"]
    names = sorted({(syl[i % 15] + syl[(i // 15) % 15] + syl[(i // 225) % 15]).title() + " "
                    + (syl[(i * 7) % 15] + syl[(i // 3) % 15]).title() for i in range(max(1, size // 25))})
    conn.execute(
        "INSERT INTO entities (agent_id, id, name, normalized_name, label, first_seen, last_seen)"
        " SELECT %s, gen_random_uuid(), n, lower(n), 'PERSON', now() - interval '2 years', now()"
        " FROM unnest(%s::text[]) n ON CONFLICT DO NOTHING", (agent, names))
    conn.execute(
        "WITH e AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS r, count(*) OVER () AS n"
        "   FROM entities WHERE agent_id = %(a)s),"
        " u AS (SELECT id, seq FROM memory_units WHERE agent_id = %(a)s)"
        " INSERT INTO unit_entities (agent_id, unit_id, entity_id)"
        " SELECT %(a)s, u.id, e.id FROM u JOIN e ON e.r = (u.seq * u.seq) %% e.n ON CONFLICT DO NOTHING",
        {"a": agent})
    conn.execute("UPDATE entities e SET mention_count = c.n FROM (SELECT entity_id, count(*) AS n FROM unit_entities"
                 " WHERE agent_id = %(a)s GROUP BY entity_id) c WHERE e.agent_id = %(a)s AND e.id = c.entity_id",
                 {"a": agent})
    nexts = ", ".join(f"lead(id, {k}) OVER w" for k in range(1, 9))
    conn.execute(
        f"WITH o AS (SELECT id, ARRAY[{nexts}] AS nx FROM memory_units WHERE agent_id = %(a)s"
        "   WINDOW w AS (ORDER BY event_date, seq))"
        " INSERT INTO links (agent_id, from_id, to_id, kind, weight)"
        " SELECT %(a)s, LEAST(o.id, n), GREATEST(o.id, n), 'temporal', 0.6 FROM o CROSS JOIN LATERAL unnest(o.nx) n"
        " WHERE n IS NOT NULL ON CONFLICT DO NOTHING", {"a": agent})
    conn.execute(
        "WITH o AS (SELECT id, row_number() OVER (ORDER BY seq) - 1 AS r, count(*) OVER () AS n FROM memory_units"
        "   WHERE agent_id = %(a)s)"
        " INSERT INTO links (agent_id, from_id, to_id, kind, weight)"
        " SELECT %(a)s, LEAST(a.id, b.id), GREATEST(a.id, b.id), 'semantic', 0.75 FROM o a"
        " CROSS JOIN (VALUES (7919), (104729)) k(step)"
        " JOIN o b ON b.r = (a.r * k.step + 1) %% a.n WHERE a.id <> b.id ON CONFLICT DO NOTHING", {"a": agent})


def _undo(mem, agent: str, keep: set | None = None) -> set:
    """Delete what measured puts stored in ``agent`` through the API: their documents (they have a
    speaker; the prefill's have none), with their units, mentions and links, and the entities not
    in ``keep``. Returns the agent's entity ids after. Not undone: the prefill's links that the
    put's links displaced (the cap on an older unit's links)."""
    with mem.db.transaction() as conn:
        ids = [d for (d,) in conn.execute("SELECT id FROM documents WHERE agent_id = %s AND speaker IS NOT NULL",
                                          (agent,)).fetchall()]
    for doc_id in ids:
        mem.delete_document(agent, doc_id)
    with mem.db.transaction() as conn:
        entities = {e for (e,) in conn.execute("SELECT id FROM entities WHERE agent_id = %s", (agent,)).fetchall()}
    for entity in entities - keep if keep is not None else ():
        mem.delete_entity(agent, entity)
    return entities if keep is None else entities & keep


def _shifted(items: list[dict], days: float) -> list[dict]:
    """The items with every timestamp moved by ``days`` (so a repeated put is never a duplicate)."""
    out = []
    for item in items:
        when = datetime.fromisoformat(item["timestamp"]) + timedelta(days=days)
        out.append({**item, "timestamp": when.isoformat()})
    return out


_DB_STAGES = ("similar", "write", "resolve", "link", "supersede")


def agent_sizes(mem, convs: list[dict], sizes: list[int], run: str, rounds: int = 5) -> list[dict]:
    """units/s of one conversation's ``put_many`` into agents of each size, INTERLEAVED: ``rounds``
    rounds, each putting the same turns (moved by a day per round) into one agent of every size, the
    order of sizes alternating from round to round, so load drift on a shared machine hits all
    sizes alike. The largest agent is built once (its name does not depend on the run, so a
    ``--home`` keeps it for the next run), and what each round put into it — documents, units,
    mentions, links, new entities — is deleted again after the round (``_undo``), so every put
    lands on the prefilled agent, as the smaller ones, built afresh for each round, do. Before,
    the large agent kept every round's copy: a later round's units found the earlier copies'
    identical sentences as their nearest semantic neighbours, each already at its cap of links,
    and the link stage pruned them — work a put into a fresh 1,000-unit agent never had. The rows
    deleted are vacuumed once at the start of a run (outside the timing): a reused ``--home``
    otherwise piled them up run after run (40,740 dead rows after many runs, which its own server,
    stopped within a minute, never lived to vacuum), and the large agent's HNSW index searched
    past them. Per size: the median units/s and median per-stage seconds over rounds, and the
    median of the database stages' sum."""
    if not sizes:
        return []
    sizes = sorted(sizes)
    items = turn_items(convs[0])
    texts = [t["text"] for c in convs[1:] or convs for t in turn_items(c)]
    vectors = mem.embedder.embed(texts[:POOL])
    centre = datetime.fromisoformat(items[len(items) // 2]["timestamp"]).replace(tzinfo=timezone.utc)
    big = f"size-{sizes[-1]}"
    _prefill(mem, big, sizes[-1], texts, vectors, centre)
    prefilled = _undo(mem, big)  # what earlier runs into the same --home left (their entities stay)
    with mem.db.autocommit() as conn:  # their dead rows too, as autovacuum would in a running server
        conn.execute("VACUUM (ANALYZE) memory_units")
    offset = 1 + (int(run, 16) % 100_000) / 100_000  # days: a later run into the same --home stores new turns
    samples: dict[int, list[dict]] = {n: [] for n in sizes}
    for r in range(rounds):
        order = sizes if r % 2 == 0 else sizes[::-1]
        for size in order:
            agent = big if size == sizes[-1] else f"size-{run}-{size}-r{r}"
            if agent != big:
                _prefill(mem, agent, size, texts, vectors, centre)
            with mem.db.transaction() as conn:
                before = conn.execute("SELECT count(*) FROM memory_units WHERE agent_id = %s", (agent,)).fetchone()[0]
            batch = _shifted(items, offset + 30 * r)
            started = time.perf_counter()
            results = mem.put_many(batch, agent_id=agent)
            secs = time.perf_counter() - started
            units = sum(len(r_.units) for r_ in results)
            stages = dict(results[0].stage_seconds)
            if agent == big:
                _undo(mem, big, prefilled)
            samples[size].append({"agent_units": before, "units": units, "seconds": secs,
                                  "units_per_s": units / secs, "stage_seconds": stages,
                                  "db_seconds": sum(stages.get(k, 0.0) for k in _DB_STAGES)})
    rows = []
    for size in sizes:
        got = samples[size]
        names = list(got[0]["stage_seconds"])
        rows.append({"prefill_units": size, "agent_units": [g["agent_units"] for g in got], "turns": len(items),
                     "units": statistics.median(g["units"] for g in got), "rounds": len(got),
                     "seconds": statistics.median(g["seconds"] for g in got),
                     "units_per_s": statistics.median(g["units_per_s"] for g in got),
                     "units_per_s_all": [round(g["units_per_s"], 1) for g in got],
                     "db_seconds": statistics.median(g["db_seconds"] for g in got),
                     "stage_seconds": {k: statistics.median(g["stage_seconds"].get(k, 0.0) for g in got)
                                       for k in names}})
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
    with ``floor(mem, agent, items) -> seconds``, the floor's time for the same sessions first.
    Then the same sessions again into a second agent, back to back (``back_to_back_turns_per_s``):
    how an agent storing session after session calls it, where whatever a put leaves running
    beside it (a thread that spins on, a read not yet back) costs the next put, not the floor
    timed between two puts above."""
    agent = f"long-{run}"
    per_put, turns, units, total, floor_s = [], 0, 0, 0.0, 0.0
    stages: dict[str, float] = {}
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
        for name, spent in results[0].stage_seconds.items():
            stages[name] = stages.get(name, 0.0) + spent
    started = time.perf_counter()
    for items in long_turn_sessions(convs, group):
        mem.put_many(items, agent_id=f"long-b2b-{run}")
    back_to_back = time.perf_counter() - started
    return {"sessions": len(per_put), "stage_seconds": stages, "turns": turns, "units": units, "seconds": total, "floor_seconds": floor_s,
            "floor_turns_per_s": turns / floor_s if floor_s else None,
            "turns_per_s": turns / total, "units_per_s": units / total, "median_put_s": statistics.median(per_put),
            "back_to_back_turns_per_s": turns / back_to_back,
            "chars_per_turn": sum(len(i["text"]) for s in long_turn_sessions(convs, group) for i in s) / turns}


def long_turns_windows(mem, convs: list[dict], group: int, run: str, floor) -> dict:
    """The long turns put twice, session by session, into two agents: once with the put's facts in
    ONE window (parse, then embed: how puts of under ~190 facts ran before) and once with the
    default windows (``ingest.windows.window_size``), alternating which goes first, each session's
    floor just before — one run, so the two see the same load. turns/s of each and of the floor."""
    ingestor = mem._ingest
    default = ingestor.min_window_facts
    spent = {"one window": 0.0, "windows": 0.0, "floor": 0.0}
    stages: dict[str, dict[str, float]] = {"one window": {}, "windows": {}}
    turns = 0
    try:
        for n, items in enumerate(long_turn_sessions(convs, group)):
            spent["floor"] += floor(mem, f"longab-floor-{run}", items)
            order = ["one window", "windows"] if n % 2 == 0 else ["windows", "one window"]
            for variant in order:
                ingestor.min_window_facts = 10**9 if variant == "one window" else default
                started = time.perf_counter()
                results = mem.put_many(items, agent_id=f"longab-{run}-{variant.replace(' ', '')}")
                spent[variant] += time.perf_counter() - started
                for name, secs in results[0].stage_seconds.items():
                    stages[variant][name] = stages[variant].get(name, 0.0) + secs
            turns += len(items)
    finally:
        ingestor.min_window_facts = default
    return {"turns": turns, "seconds": spent, "turns_per_s": {k: turns / v for k, v in spent.items()},
            "stage_seconds": stages}
