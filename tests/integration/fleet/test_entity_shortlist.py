"""The entity channel's shortlist (``candidates.entity_shortlist``): each mention row carries its
unit's binary-quantized embedding (migration 011), the nearest mentions by Hamming distance are
ranked exactly, and with the real model that finds the exact ranking's top k."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from fleet_memory.recall import search as search_mod
from fleet_memory.store.reads import candidates as cand_sql
from fleet_memory.store.tables import entities as entity_sql
from fleet_memory.store.tables.filters import UnitFilter, is_plain

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
DOINGS = ["went hiking", "baked bread", "adopted a cat", "started a pottery class", "flew to Lisbon",
          "bought a used car", "ran a half marathon", "painted the kitchen", "learned to play chess",
          "visited her grandmother", "planted tomatoes", "joined a book club", "fixed a bicycle",
          "wrote a short story", "went to a jazz concert"]
WHEN = ["on Monday", "last spring", "with her brother", "after work", "in the rain", "for the first time",
        "with two colleagues", "before breakfast", "near the lake", "during the holidays", "on a whim",
        "at the community centre", "with her neighbour Tom", "in Porto", "despite the cold", "at dawn",
        "for charity", "with an old friend", "on her birthday", "after a long week"]


def test_a_shortlist_only_for_common_entities_under_a_plain_filter():
    many = cand_sql.ENTITY_SHORTLIST_FROM
    assert cand_sql.entity_shortlist(many - 1, 10, True) == 0  # exact ranking is cheap enough
    assert cand_sql.entity_shortlist(many, 10, True) == max(cand_sql.ENTITY_SHORTLIST_MIN, 20 * 10)
    assert cand_sql.entity_shortlist(many, 50, True) == 1_000
    assert cand_sql.entity_shortlist(many, 0, True) == 0  # channel off
    assert cand_sql.entity_shortlist(many, 10, False) == 0  # a restrictive filter: too few may pass
    assert is_plain(UnitFilter()) and is_plain(UnitFilter(current_at=T0, include_archived=True))
    assert not is_plain(UnitFilter(user_id="u")) and not is_plain(UnitFilter(tags=("x",)))


JOINED = ("FROM unit_entities ue JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id"
          " WHERE ue.agent_id = 'a'")
WRONG_BITS = "ue.bits IS DISTINCT FROM binary_quantize(u.embedding)::bit(384)"


def _put_alice(memory) -> None:
    items = [{"text": f"Alice Moreau {doing} {when}.", "timestamp": (T0 + timedelta(hours=i)).isoformat()}
             for i, (doing, when) in enumerate((d, w) for d in DOINGS for w in WHEN)]
    memory.put_many(items, agent_id="a")


def _entity_top(memory, query: str, shortlist: int, k: int = 10) -> list[str]:
    with memory.db.transaction() as conn:
        named = entity_sql.lookup_entities(conn, "a", ["Alice Moreau"])
        feats = cand_sql.Features(np.asarray(memory.embedder.embed([query])[0], dtype=np.float32),
                                  entity_ids=tuple(e.id for e in named),
                                  entity_mentions=sum(e.mention_count for e in named))
        found = cand_sql.entries(conn, "a", feats, UnitFilter(),
                                 cand_sql.EntryLimits(entity=k, entity_shortlist=shortlist, exact=True))
    return [c.unit.text for c, _ in sorted(found, key=lambda f: (-f[0].similarity, f[0].seq))]


def test_the_shortlist_finds_the_exact_top_k_with_the_real_model(real_memory):
    _put_alice(real_memory)
    with real_memory.db.transaction() as conn:
        mentions, bad = conn.execute(f"SELECT count(*), count(*) FILTER (WHERE {WRONG_BITS}) {JOINED}").fetchone()
        vector = real_memory.embedder.embed(["Where did Alice go hiking?"])[0]
        sql_bits = conn.execute("SELECT binary_quantize(%s::vector)::text", (vector,)).fetchone()[0]
    assert mentions >= len(DOINGS) * len(WHEN) and bad == 0  # every mention row carries its unit's bits
    assert cand_sql.query_bits(vector) == sql_bits
    for query in ("Where did Alice go hiking?", "What did Alice bake?", "Which concert did Alice attend?",
                  "What does Alice do with her brother?", "What did Alice do in Porto?"):
        exact = _entity_top(real_memory, query, shortlist=0)
        assert len(exact) == 10
        assert _entity_top(real_memory, query, shortlist=100) == exact, query  # 100 of 300 mentions (10 × k)


def test_search_takes_the_shortlist_and_merged_entities_keep_their_bits(real_memory, monkeypatch):
    _put_alice(real_memory)
    query = "Which jazz concert did Alice Moreau go to?"
    exact = [r.text for r in real_memory.search("a", query, top_k=5, reinforce=False)]
    taken: list[int] = []
    entries = cand_sql.entries

    def spy(conn, agent, feats, flt, limits):
        taken.append(limits.entity_shortlist)
        return entries(conn, agent, feats, flt, limits)

    monkeypatch.setattr(cand_sql, "ENTITY_SHORTLIST_FROM", 100)
    monkeypatch.setattr(search_mod.cand_sql, "entries", spy, raising=True)
    assert [r.text for r in real_memory.search("a", query, top_k=5, reinforce=False)] == exact
    assert taken and all(n == cand_sql.ENTITY_SHORTLIST_MIN for n in taken)
    monkeypatch.undo()

    real_memory.put("a", "Ally Moreau went sailing.", event_date=T0 + timedelta(days=30))
    names = {e.name: e for e in real_memory.list_entities("a", limit=1000)}
    alice, ally = names["Alice Moreau"], names["Ally Moreau"]
    real_memory.merge_entities("a", alice.id, ally.id)
    with real_memory.db.transaction() as conn:
        bad, sailing = conn.execute(
            f"SELECT count(*) FILTER (WHERE {WRONG_BITS}), count(*) FILTER (WHERE u.text LIKE '%%sailing%%')"
            f" {JOINED} AND ue.entity_id = %s", (alice.id,)).fetchone()
    assert (bad, sailing) == (0, 1)
