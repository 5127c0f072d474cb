"""Temporal and semantic links are capped per unit; entity links are derived when read; the
adjacency read covers every kind in one call. Real embedded PostgreSQL, hashing embedder."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import psycopg
import pytest

from fleet_memory.model import LinkKind
from fleet_memory.store import UnitFilter
from fleet_memory.store.db import agent_indexes
from fleet_memory.store.db.database import CANDIDATE_EF_SEARCH, index_order
from fleet_memory.store.linking import links as link_sql
from fleet_memory.store.linking import semantic as sem_sql
from fleet_memory.store.linking.links import EntityRule

from .graphs import stored_graph as _graph


def _degrees(conn, kind):
    rows = conn.execute(
        "SELECT u, count(*) FROM (SELECT from_id u FROM links WHERE kind = %(k)s UNION ALL"
        " SELECT to_id FROM links WHERE kind = %(k)s) e GROUP BY u", {"k": kind}).fetchall()
    return {u: n for u, n in rows}


def _degrees_of(db_url, agent):
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            "SELECT u, count(*) FROM (SELECT from_id u FROM links WHERE agent_id = %(a)s AND kind = 'temporal'"
            " UNION ALL SELECT to_id FROM links WHERE agent_id = %(a)s AND kind = 'temporal') e GROUP BY u",
            {"a": agent}).fetchall()
    return {u: n for u, n in rows}


def test_links_are_capped_per_unit_old_and_new(memory, clock, db_url):
    now = clock.now()
    items = [{"content": f"The deployment pipeline failed again on server {i % 3} tonight.",
              "event_date": now - timedelta(minutes=i)} for i in range(30)]
    memory.put_many(items[:15], agent_id="a1")
    memory.put_many(items[15:], agent_id="a1")
    with psycopg.connect(db_url) as conn:
        temporal, semantic = _degrees(conn, "temporal"), _degrees(conn, "semantic")
        weights = conn.execute("SELECT kind, min(weight), max(weight) FROM links GROUP BY kind").fetchall()
    assert len(temporal) == 30 and max(temporal.values()) == 20
    assert semantic and max(semantic.values()) <= 5
    bounds = {k: (lo, hi) for k, lo, hi in weights}
    assert bounds["semantic"][0] >= 0.7
    assert bounds["temporal"][0] >= 1 - 29 / (24 * 60) - 1e-6  # all within 29 minutes


def test_units_outside_the_window_are_not_temporally_linked(memory, clock, db_url):
    now = clock.now()
    a = memory.put("a1", "The boiler was serviced by the plumber.", event_date=now - timedelta(hours=30))
    b = memory.put("a1", "The garden fence was painted green.", event_date=now - timedelta(hours=6))
    c = memory.put("a1", "The car tyres were replaced at the garage.", event_date=now)
    with psycopg.connect(db_url) as conn:
        got = link_sql.neighbours(conn, "a1", [c.unit_ids[0]], stored_kinds=["temporal"], entity=None)
    assert [(n.dst, n.kind, round(n.weight, 3)) for n in got] == [(b.unit_ids[0], "temporal", 0.75)]
    assert a.unit_ids[0] not in {n.dst for n in got}


def test_neighbours_reads_both_directions_filters_kinds_and_derives_entity_links_by_one_rule(memory, clock, db_url):
    now = clock.now()
    results = memory.put_many([
        {"content": f"Alice visited the museum in Paris on day {i}.", "event_date": now - timedelta(days=3 * i)}
        for i in range(8)
    ], agent_id="a1")
    ids = [r.unit_ids[0] for r in results]
    with psycopg.connect(db_url) as conn:
        everything = link_sql.neighbours(conn, "a1", ids[:1], units=8)
        capped = link_sql.neighbours(conn, "a1", ids[:1], stored_kinds=[], entity=EntityRule(fanout=3), units=8)
        middle = link_sql.neighbours(conn, "a1", ids[4:5], stored_kinds=[], entity=EntityRule(fanout=2), units=8)
        hub = link_sql.neighbours(conn, "a1", ids[:1], stored_kinds=[],
                                  entity=EntityRule(hub_min=5, hub_share=0.0, hub_max=5), units=8)
        shares = link_sql.neighbours(conn, "a1", ids[:1], stored_kinds=[],
                                     entity=EntityRule(hub_min=1, hub_share=1.0, hub_max=200), units=8)
        none = link_sql.neighbours(conn, "a1", ids[:1], stored_kinds=[], entity=None)
        other_agent = link_sql.neighbours(conn, "a2", ids[:1], units=8)
        recent = link_sql.neighbours(conn, "a1", ids[:1], stored_kinds=[], units=8,
                                       flt=UnitFilter(since=now - timedelta(days=7)))
        stored = conn.execute("SELECT from_id, to_id FROM links WHERE kind = 'semantic'").fetchall()
    entity = [n for n in everything if n.kind == "entity"]
    assert {n.dst for n in entity} == set(ids[1:]) and len(entity) == 7  # Alice and Paris: one row per pair
    assert all(n.src == ids[0] for n in everything) and all(n.weight == 1.0 for n in entity)
    # fan-out: the mentions nearest in time to the unit itself (not the most recent of the agent)
    assert {n.dst for n in capped} == set(ids[1:4])
    assert {n.dst for n in middle} == {ids[3], ids[5]}
    # a hub (more mentions than the threshold) links nothing; the threshold grows with the agent
    assert hub == [] and {n.dst for n in shares} == set(ids[1:])
    assert none == [] and other_agent == []
    assert {n.dst for n in recent} == set(ids[1:3])  # the filter applies to the neighbour
    # stored links come back from either end
    a, b = stored[0]
    with psycopg.connect(db_url) as conn:
        from_b = link_sql.neighbours(conn, "a1", [b], stored_kinds=["semantic"], entity=None)
    assert a in {n.dst for n in from_b}
    assert {e.name for e in memory.list_entities("a1")} == {"Alice", "Paris"}


def test_everything_of_a_put_many_is_one_transaction(memory, clock, db_url, monkeypatch):
    from fleet_memory.ingest import write

    def broken(*args, **kwargs):
        raise RuntimeError("link step failed")

    monkeypatch.setattr(write, "link_units", broken)
    with pytest.raises(RuntimeError):
        memory.put_many([{"content": "Alice moved to Lisbon in May."}, {"content": "Bob sold his car."}],
                        agent_id="a1")
    stats = memory.stats("a1")
    assert (stats.documents, stats.units, stats.entities) == (0, 0, 0)


def test_semantic_candidates_exact_and_through_hnsw_agree(memory, clock, db_url):
    import numpy as np

    texts = ["Alice loves hiking in the mountains near Yosemite.", "Alice loves hiking in the mountains near Tahoe.",
             "The quarterly budget report is due on Friday.", "The quarterly budget report is due on Monday."]
    results = memory.put_many([{"content": t} for t in texts], agent_id="a1")
    memory.index_agents(min_units=1)  # the agent's own HNSW: there is no fleet-wide one
    ids = [r.unit_ids[0] for r in results]
    vectors = memory.embedder.embed(texts)
    with psycopg.connect(db_url) as conn:
        from pgvector.psycopg import register_vector

        register_vector(conn)
        units = list(zip(ids, vectors))
        exact = sem_sql.semantic_candidates(conn, "a1", units, top_k=5, min_similarity=0.7)
        with conn.transaction():
            hnsw = sem_sql.semantic_candidates(conn, "a1", units, top_k=5, min_similarity=0.7, exact_below=0)
            conn.execute("SET LOCAL enable_sort = off")
            plan = "\n".join(r[0] for r in conn.execute(
                "EXPLAIN " + sem_sql.SEMANTIC_SQL,
                {"ids": ids, "es": [np.asarray(v) for v in vectors], "a": "a1", "k": 5, "min": 0.7}).fetchall())
    assert agent_indexes.index_names("a1")["vec"] in plan
    pairs = {frozenset((a, b)) for a, b, _ in exact}
    assert pairs == {frozenset((a, b)) for a, b, _ in hnsw}
    assert pairs == {frozenset(ids[:2]), frozenset(ids[2:])}


def test_semantic_candidates_in_memory_agrees_with_sql(memory, db_url, monkeypatch):
    topics = ["hiking in the mountains", "the quarterly budget report", "baking sourdough bread", "a jazz concert"]
    texts = [f"Person {i} talked about {topics[i % 4]} on day {i // 4}." for i in range(40)]
    results = memory.put_many([{"content": t} for t in texts], agent_id="a1")
    ids = [r.unit_ids[0] for r in results]
    units = list(zip(ids, memory.embedder.embed(texts)))
    with psycopg.connect(db_url) as conn:
        from pgvector.psycopg import register_vector

        register_vector(conn)
        in_memory = sem_sql.semantic_candidates(conn, "a1", units, top_k=5, min_similarity=0.3)
        monkeypatch.setattr(sem_sql, "IN_MEMORY_FROM", 10_000)
        in_sql = sem_sql.semantic_candidates(conn, "a1", units, top_k=5, min_similarity=0.3)
    assert len(units) >= 32 and in_memory

    def top_scores(rows):  # per unit, its kept similarities (tie-invariant: equal scores may swap ids)
        out = {}
        for a, _, sim in rows:
            out.setdefault(a, []).append(round(sim, 4))
        return {a: sorted(v, reverse=True) for a, v in out.items()}

    assert top_scores(in_memory) == top_scores(in_sql)


def test_same_input_gives_the_same_graph(memory, clock) -> None:
    """30 turns of one session share a timestamp, more than the 20 temporal links a unit keeps:
    the links kept go to the turns written nearest, so two agents fed the same turns get the same
    links whatever their (random) unit ids."""
    when = clock.now()
    topics = ["the harbour crane", "a sourdough starter", "the budget report", "a jazz concert", "the hiking trail"]
    items = [{"content": f"Turn {i}: Maya talked about {topics[i % 5]} with Omar.", "event_date": when}
             for i in range(30)]
    graphs = []
    for agent in ("first", "second"):
        memory.put_many(items, agent_id=agent)
        with memory.db.transaction() as conn:
            texts = dict(conn.execute("SELECT id, text FROM memory_units WHERE agent_id = %s", (agent,)).fetchall())
            rows = conn.execute("SELECT from_id, to_id, kind, weight FROM links WHERE agent_id = %s",
                                (agent,)).fetchall()
        graphs.append(sorted((*sorted((texts[a], texts[b])), kind, round(w, 6)) for a, b, kind, w in rows))
    assert graphs[0] == graphs[1]
    temporal = [g for g in graphs[0] if g[2] == "temporal"]
    assert temporal and all(w == 1.0 for *_, w in temporal)
    # nearest written: turn 0 keeps links to turns 1..20 and not to the last ones
    partners = {b if a.startswith("Turn 0:") else a for a, b, kind, _ in temporal if "Turn 0:" in (a + b)}
    assert any(p.startswith("Turn 1:") for p in partners)
    assert not any(p.startswith("Turn 29:") for p in partners)


def test_supersession_candidates_exact_and_through_hnsw_agree(memory, db_url):
    """Above ``EXACT_BELOW`` units the candidates of a changed fact come through the HNSW index
    (an exact scan read every row of a large agent for each new unit stating a slot)."""
    import numpy as np

    from fleet_memory.store.tables import supersession as sup_sql

    texts = ["Ines lives in Lisbon with her cat.", "Ines moved to Porto in February.",
             "The quarterly budget report is due on Friday.", "Tomasz has a new phone number."]
    results = memory.put_many([{"content": t} for t in texts], agent_id="a1")
    memory.index_agents(min_units=1)
    ids = [r.unit_ids[0] for r in results]
    new = [(ids[1], memory.embedder.embed([texts[1]])[0])]
    with psycopg.connect(db_url) as conn:
        from pgvector.psycopg import register_vector

        register_vector(conn)
        exact = sup_sql.similar_units(conn, "a1", new, min_similarity=-1.0, k=3)
        with conn.transaction():
            conn.execute("SET LOCAL hnsw.ef_search = 100")  # as every transaction of ours starts
            settings = "SELECT current_setting('enable_sort'), current_setting('hnsw.ef_search')"
            with index_order(conn):
                inside = conn.execute(settings).fetchone()
            hnsw = sup_sql.similar_units(conn, "a1", new, min_similarity=-1.0, k=3, exact_below=0)
            after = conn.execute(settings).fetchone()
    assert inside == ("off", str(CANDIDATE_EF_SEARCH))
    assert after == ("on", "100")  # switched for the index order only
    assert {c.unit.id for c in exact} == {c.unit.id for c in hnsw}  # the index order may be relaxed
    assert len(exact) == 3 and ids[1] not in {c.unit.id for c in exact}
    best = max(hnsw, key=lambda c: c.similarity)
    assert exact[0].unit.id == ids[0] == best.unit.id and np.isclose(exact[0].similarity, best.similarity)


def test_a_large_agent_is_read_into_memory_only_when_that_is_cheaper_than_its_index(memory, db_url, monkeypatch):
    """From ``EXACT_BELOW`` units a batch's neighbours come from the agent's own HNSW index, unless
    one read of its embeddings costs less (``INDEX_UNIT_S``). Both find the same similarities here."""
    topics = ["hiking in the mountains", "the quarterly budget report", "baking sourdough bread", "a jazz concert"]
    texts = [f"Person {i} talked about {topics[i % 4]} on day {i // 4}." for i in range(40)]
    results = memory.put_many([{"content": t} for t in texts], agent_id="a1")
    memory.index_agents(min_units=1)
    ids = [r.unit_ids[0] for r in results]
    units = list(zip(ids, memory.embedder.embed(texts)))[:32]
    calls = []
    real = sem_sql._exact_in_memory
    monkeypatch.setattr(sem_sql, "_exact_in_memory", lambda *a, **k: calls.append(1) or real(*a, **k))
    found = {}
    with psycopg.connect(db_url) as conn:
        from pgvector.psycopg import register_vector

        register_vector(conn)
        for per_unit in (1.1e-3, 1e-9):  # 40 rows against 32 index searches, then searches made free
            monkeypatch.setattr(sem_sql, "INDEX_UNIT_S", per_unit)
            with conn.transaction():
                rows = sem_sql.semantic_candidates(conn, "a1", units, top_k=3, min_similarity=0.5, exact_below=10)
            found[per_unit] = {}
            for a, _, sim in rows:  # tie-invariant: units at equal similarity may swap
                found[per_unit].setdefault(a, []).append(round(sim, 4))
            assert len(calls) == 1  # in memory the first time only
    assert found[1.1e-3] and found[1.1e-3] == found[1e-9]


def test_only_units_that_can_exceed_the_cap_are_pruned_with_the_same_graph_as_pruning_all(memory, clock, db_url,
                                                                                          monkeypatch):
    """``may_exceed``: older units always, new ones only above the cap; pruning just those leaves
    exactly the links that pruning every touched unit leaves (two agents, the same input)."""
    import uuid

    old, a, b, c = (uuid.UUID(int=i) for i in range(1, 5))
    pairs = [(a, b, 1.0), (b, a, 1.0), (a, old, 1.0), (c, a, 1.0), (c, c, 1.0)]
    assert sorted(link_sql.may_exceed(pairs, {a, b, c}, keep=2)) == sorted([old, a])  # a: b, old, c
    assert link_sql.may_exceed(pairs, {a, b, c, old}, keep=3) == []

    def items(start):
        return [{"content": f"Shift report {i}: the conveyor on line {i % 4} jammed {i % 5} times.",
                 "event_date": start + timedelta(minutes=i % 7)} for i in range(60)]

    def graph(agent):
        return sorted(_graph(db_url, agent))

    now = clock.now()
    for agent in ("some", "all"):
        if agent == "all":
            monkeypatch.setattr(link_sql, "may_exceed", lambda found, new, keep: list({x for p in found for x in p[:2]}))
        memory.put_many(items(now - timedelta(hours=1)), agent_id=agent)
        memory.put_many(items(now - timedelta(minutes=50)), agent_id=agent)  # overlaps the first in time
    assert graph("some") == graph("all")
    assert max(_degrees_of(db_url, "some").values()) == 20


def _pruned_by_hand(links: list[tuple], seq: dict, wanted: set, keep: int) -> set[tuple]:
    """What pruning keeps, by the rule's words: each wanted unit keeps its ``keep`` strongest links,
    among equal weights the other unit nearest in write order, then the one written first; a link
    either end drops is gone."""
    drop = set()
    for unit in wanted:
        mine = [(f, t, w) for f, t, w in links if unit in (f, t)]
        other = {(f, t): (t if f == unit else f) for f, t, _ in mine}
        mine.sort(key=lambda e: (-e[2], abs(seq[other[e[:2]]] - seq[unit]), seq[other[e[:2]]]))
        drop.update(e[:2] for e in mine[keep:])
    return {e[:2] for e in links} - drop


def _prune(conn, agent, unit_ids, kind, keep) -> int:
    """Pruning after a write, as ``link_units`` did before the cap moved ahead of it: each of
    ``unit_ids`` keeps its ``keep`` strongest stored links of ``kind`` (``over_cap``), the rest are
    deleted. Rows deleted."""
    rows = link_sql.incident_links(conn, agent, unit_ids, kind)
    seq = link_sql.unit_seqs(conn, agent, {x for a, b, _ in rows for x in (a, b)})
    return link_sql.delete_links(conn, agent, kind, sorted(link_sql.over_cap(rows, set(unit_ids), keep, seq)))


def test_the_cap_over_stored_links_keeps_each_units_strongest_as_the_rule_says(memory, clock, db_url):
    import random

    now = clock.now()
    results = memory.put_many([{"content": f"Note {i}: the kiln at studio {i % 9} reached {900 + i} degrees.",
                                "event_date": now - timedelta(days=400 + 3 * i)} for i in range(40)], agent_id="p")
    ids = [r.unit_ids[0] for r in results]
    rng = random.Random(5)
    extra = [(a, b, "semantic", rng.choice([0.75, 0.8, 0.8, 0.9])) for a in ids for b in rng.sample(ids, 9)]
    with psycopg.connect(db_url) as conn:
        link_sql.insert_links(conn, "p", extra)
        before = conn.execute("SELECT from_id, to_id, weight FROM links WHERE agent_id = 'p' AND kind = 'semantic'"
                              ).fetchall()
        seq = dict(conn.execute("SELECT id, seq FROM memory_units WHERE agent_id = 'p'").fetchall())
        wanted = set(ids[::3])
        deleted = _prune(conn, "p", list(wanted) + ids[:2], "semantic", 4)  # a unit twice: once
        after = {tuple(r) for r in conn.execute(
            "SELECT from_id, to_id FROM links WHERE agent_id = 'p' AND kind = 'semantic'").fetchall()}
    assert after == _pruned_by_hand([tuple(r) for r in before], seq, wanted | set(ids[:2]), 4)
    assert deleted == len(before) - len(after) > 0


_NEAREST_PER_UNIT = (
    "SELECT n.id, c.id, abs(extract(epoch FROM c.event_date - n.t))::float8 AS dt, abs(c.seq - nu.seq), c.seq"
    " FROM unnest(%(ids)s::uuid[], %(ts)s::timestamptz[]) AS n(id, t)"
    " JOIN memory_units nu ON nu.agent_id = %(a)s AND nu.id = n.id"
    " CROSS JOIN LATERAL ("
    "  (SELECT u.id, u.event_date, u.seq FROM memory_units u WHERE u.agent_id = %(a)s AND u.id <> n.id"
    "    AND u.event_date <= n.t AND u.event_date >= n.t - %(w)s * interval '1 hour'"
    "    ORDER BY u.event_date DESC, abs(u.seq - nu.seq), u.seq LIMIT %(k)s)"
    "  UNION ALL"
    "  (SELECT u.id, u.event_date, u.seq FROM memory_units u WHERE u.agent_id = %(a)s AND u.id <> n.id"
    "    AND u.event_date > n.t AND u.event_date <= n.t + %(w)s * interval '1 hour'"
    "    ORDER BY u.event_date ASC, abs(u.seq - nu.seq), u.seq LIMIT %(k)s)"
    " ) c"
)
"""The rule as one query per new unit (how ``temporal_candidates`` read it before ``store.linking.temporal``):
the reference the one read of the batch must agree with."""


def _nearest_by_sql(conn, agent, units, window_hours, limit):
    rows = conn.execute(_NEAREST_PER_UNIT, {"ids": [u[0] for u in units], "ts": [u[1] for u in units], "a": agent,
                                            "w": window_hours, "k": limit}).fetchall()
    by_unit: dict = {}
    for uid, other, dt, ds, seq in rows:
        by_unit.setdefault(uid, []).append((dt, ds, seq, other))
    return [(uid, other, dt) for uid in by_unit for dt, _, _, other in sorted(by_unit[uid])[:limit]]


@pytest.mark.parametrize(("window_hours", "limit"), [(24.0, 20), (1.0, 3), (0.5, 7)])
def test_temporal_candidates_read_once_for_the_batch_match_the_rule_per_unit(memory, clock, db_url, window_hours,
                                                                               limit):
    """Older units at times the batch shares, before and after it, inside and outside the window;
    many units per time (ties broken by write order), a batch that spans several times, and units
    linked at another time than their own."""
    import random

    from fleet_memory.store.linking import temporal

    rng = random.Random(7)
    start = clock.now() - timedelta(hours=30)
    times = [start + timedelta(minutes=20 * rng.randrange(0, 90)) for _ in range(12)]
    for put in range(5):
        memory.put_many([{"content": f"Log {put}.{i}: pump {i % 6} read {rng.randrange(100)} bar.",
                          "event_date": rng.choice(times)} for i in range(rng.randrange(5, 40))], agent_id="t")
    last = memory.put_many([{"content": f"Log new {i}: valve {i % 5} opened at {i} percent.",
                             "event_date": times[i % 4] + timedelta(minutes=20 * (i % 2))} for i in range(45)],
                           agent_id="t")
    ids = [uid for r in last for uid in r.unit_ids]
    with psycopg.connect(db_url) as conn:
        dates = dict(conn.execute("SELECT id, event_date FROM memory_units WHERE agent_id = 't' AND id = ANY(%s)",
                                  (ids,)).fetchall())
        # every fifth linked at another time than its own (a unit dated by its text, at its turn's)
        units = [(uid, dates[uid] + timedelta(minutes=50 * (i % 5 == 0))) for i, uid in enumerate(ids)]
        got = temporal.temporal_candidates(conn, "t", units, window_hours=window_hours, limit=limit)
        want = _nearest_by_sql(conn, "t", units, window_hours, limit)
    assert len(want) > len(units)
    key = {uid: i for i, uid in enumerate(ids)}  # both: each new unit's nearest first
    got = list(zip(got.unit, got.other, got.seconds))
    assert sorted(got, key=lambda r: key[r[0]]) == sorted(want, key=lambda r: key[r[0]])


def test_keeping_the_strongest_before_the_write_is_the_pruning_rule():
    import random
    import uuid

    rng = random.Random(11)
    units = [uuid.UUID(int=i + 1) for i in range(40)]
    seq = {u: rng.randrange(1000) * 2 + i for i, u in enumerate(units)}  # distinct, not in id order
    raw = [(a, b, rng.choice([0.5, 0.75, 0.75, 1.0, 0.8000001])) for a in units for b in rng.sample(units, 8)]
    raw += [(b, a, w + 0.1) for a, b, w in raw[::7]]  # both directions: the larger weight counts
    pairs = link_sql.unique_pairs(raw)
    assert all(a < b for a, b, _ in pairs) and len({p[:2] for p in pairs}) == len(pairs)
    assert all(w == float(np.float32(w)) and 0 <= w <= 1 for *_, w in pairs)
    new = set(units[::2])
    kept = link_sql.keep_strongest(pairs, new, 5, seq)
    assert {p[:2] for p in kept} == _pruned_by_hand(pairs, seq, new, 5)
    assert max(sum(u in p[:2] for p in kept) for u in new) == 5


def test_capping_before_the_write_keeps_what_writing_all_then_pruning_kept(memory, clock, db_url, monkeypatch):
    """The cap applied before the write (``keep_strongest``, ``cap_older``) against the procedure
    it replaced: write every candidate, then prune every unit touched from that one state. For a
    new agent the same graph. Into an agent whose older units are touched, a superset: pruning
    after the write could make an older unit give up a link for one the new end then refused, so
    it kept fewer than the cap; both keep the cap."""
    now = clock.now()

    def items(start, tag):
        return [{"content": f"Shift {tag}{i}: line {i % 4} stopped {i % 5} times and restarted at {i % 9}.",
                 "event_date": start - timedelta(minutes=i % 6)} for i in range(70)]

    def graph(agent):
        return set(_graph(db_url, agent))

    def put_both(agent):
        memory.put_many(items(now, "a"), agent_id=agent)
        first = graph(agent)
        memory.put_many(items(now - timedelta(minutes=3), "b"), agent_id=agent)  # among the first in time
        return first, graph(agent)

    capped_first, capped = put_both("capped")
    write_all = link_sql.insert_pairs

    def write_all_then_prune(conn, agent, pairs, fresh=False):
        written = write_all(conn, agent, pairs, fresh=fresh)
        for kind, keep in (("temporal", 20), ("semantic", 5)):
            touched = list({x for a, b, k in zip(pairs.low, pairs.high, pairs.kind)
                            if link_sql.KINDS[k] == kind for x in (a, b)})
            _prune(conn, agent, touched, kind, keep)
        return written

    monkeypatch.setattr(link_sql, "keep_strongest", lambda pairs, new, keep, seq: list(pairs))
    monkeypatch.setattr(link_sql, "cap_older", lambda conn, agent, kind, pairs, new, keep, seq: list(pairs))
    monkeypatch.setattr(link_sql, "insert_pairs", write_all_then_prune)
    pruned_first, pruned = put_both("pruned")
    assert capped_first == pruned_first
    assert capped >= pruned and len(capped) > len(capped_first)
    assert max(_degrees_of(db_url, "capped").values()) == 20 == max(_degrees_of(db_url, "pruned").values())


def test_fresh_links_are_a_plain_insert_that_refuses_a_stored_pair(memory, clock, db_url):
    """``insert_links(fresh=True)`` (``link_units``: every pair has an end written in this
    transaction) skips the upsert; a pair stored after all fails on the primary key, never
    silently. Without ``fresh`` a stored pair keeps the larger weight."""
    results = memory.put_many([{"content": f"Fact {i} about the harbour crane."} for i in range(3)], agent_id="f")
    a, b, c = (r.unit_ids[0] for r in results)
    with psycopg.connect(db_url) as conn:
        conn.execute("DELETE FROM links WHERE agent_id = 'f'")
        assert link_sql.insert_links(conn, "f", [(a, b, "semantic", 0.8)], fresh=True) == 1
        assert link_sql.insert_links(conn, "f", [(b, a, "semantic", 0.9), (a, c, "semantic", 0.7)]) == 2
        weight = conn.execute("SELECT weight FROM links WHERE agent_id = 'f' AND kind = 'semantic'"
                              " AND %s IN (from_id, to_id) AND %s IN (from_id, to_id)", (a, b)).fetchone()[0]
        assert weight == pytest.approx(0.9)
        with pytest.raises(psycopg.errors.UniqueViolation):
            link_sql.insert_links(conn, "f", [(a, c, "semantic", 0.95)], fresh=True)
