"""The LangGraph store against LangGraph's own ``InMemoryStore``: the same random sequence of
operations (single calls and mixed batches) replayed on both, every result compared except the
order of search results. The reference keeps namespaces that a ``get`` or a ``delete`` touched
(a ``defaultdict`` artefact) and lists them; ours lists only namespaces holding items, so
``list_namespaces`` is compared with a fresh reference rebuilt from the live items."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("langgraph")

from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

from fleet_memory.integrations.langgraph import FleetMemoryStore  # noqa: E402

OPERATIONS = 600
NAMESPACES = [("users", "alice", "facts"), ("users", "alice", "prefs"), ("users", "bob", "facts"),
              ("users", "bob"), ("teams", "core", "facts"), ("teams", "core")]
KEYS = ["k1", "k2", "k3", "k4"]
SENTENCES = ["Alice works at Google as an engineer.", "Bob lives in Paris with his sister.",
             "The team ships the billing service on Fridays.", "Alice prefers tea over coffee.",
             "Bob moved to Berlin last spring.", "The core team meets every Monday morning."]
QUERIES = ["Where does Bob live?", "What does Alice drink?", "When does the team meet?"]


def _value(rng: random.Random) -> dict:
    value = {"text": rng.choice(SENTENCES), "n": rng.randint(0, 5), "kind": rng.choice(["fact", "pref"])}
    if rng.random() < 0.3:
        value["nested"] = {"level": rng.randint(0, 2), "tags": rng.sample(["a", "b", "c"], 2)}
    return value


def _filter(rng: random.Random) -> dict | None:
    return rng.choice([None, None, {"kind": "fact"}, {"n": {"$gte": 3}}, {"n": {"$lt": 2}, "kind": "pref"},
                       {"n": {"$ne": 1}}, {"nested": {"level": 1}}])


def _random_op(rng: random.Random):
    roll = rng.random()
    namespace, key = rng.choice(NAMESPACES), rng.choice(KEYS)
    if roll < 0.45:
        return PutOp(namespace, key, _value(rng), index=rng.choice([None, None, False, ["text"]]))
    if roll < 0.55:
        return PutOp(namespace, key, None)
    if roll < 0.7:
        return GetOp(namespace, key)
    if roll < 0.9:
        prefix = namespace[:rng.randint(0, len(namespace))]
        return SearchOp(prefix, _filter(rng), rng.choice([1, 2, 3, 10]), rng.choice([0, 0, 1, 2]),
                        rng.choice([None, rng.choice(QUERIES)]))
    conditions = rng.choice([None, (MatchCondition("prefix", ("users",)),), (MatchCondition("suffix", ("facts",)),),
                             (MatchCondition("prefix", ("*", "alice")),)])
    return ListNamespacesOp(conditions, rng.choice([None, 1, 2]), rng.choice([2, 100]), rng.choice([0, 0, 1]))


def _item(item) -> tuple:
    return None if item is None else (tuple(item.namespace), item.key, json.dumps(item.value, sort_keys=True))


def _live(reference: InMemoryStore) -> InMemoryStore:
    fresh = InMemoryStore()
    for item in reference.search((), limit=10**6):
        fresh.put(item.namespace, item.key, item.value)
    return fresh


def _context(op, reference: InMemoryStore):
    """What a result is checked against besides the reference's own answer, read before the batch
    runs (a batch's reads see the store as it was): every match of a search, the live namespaces."""
    if isinstance(op, SearchOp):
        return reference.batch([op._replace(limit=10**6, offset=0)])[0]
    if isinstance(op, ListNamespacesOp):
        return _live(reference).batch([op])[0]
    return None


def _check(op, ours, theirs, context) -> None:
    if isinstance(op, GetOp):
        assert _item(ours) == _item(theirs), op
    elif isinstance(op, SearchOp):
        assert len(ours) == len(theirs), op
        everything = context
        if op.offset == 0 and len(everything) <= op.limit:  # the window holds every match: the same items
            assert sorted(map(_item, ours)) == sorted(map(_item, theirs)), op
        assert {_item(i) for i in ours} <= {_item(i) for i in everything}, op
        assert len({(i.namespace, i.key) for i in ours}) == len(ours), op
        scored = [i.score for i in ours if i.score is not None]
        assert not scored or op.query, op
    elif isinstance(op, ListNamespacesOp):
        assert ours == context, op
    else:
        assert ours is None and theirs is None


def test_random_operations_match_the_in_memory_store(memory):
    rng = random.Random(36)
    ours, reference = FleetMemoryStore(memory, user_level=1), InMemoryStore()
    done = 0
    while done < OPERATIONS:
        ops = [_random_op(rng) for _ in range(rng.choice([1, 1, 1, 1, 2, 3]))]
        contexts = [_context(op, reference) for op in ops]
        expected, got = reference.batch(ops), ours.batch(ops)
        for op, mine, theirs, context in zip(ops, got, expected, contexts):
            _check(op, mine, theirs, context)
        done += len(ops)
    assert done >= 500
    assert sorted(map(_item, ours.search((), limit=10**6))) == sorted(map(_item, reference.search((), limit=10**6)))
