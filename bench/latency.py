"""Search latency at N units: recall (the ``balanced`` preset) against plain vector top-k, same store.

    python bench/latency.py --units 1000,10000,100000 [--queries 100] [--json OUT] [--home DIR]

For each N it builds one agent from generated but realistic conversations (two people per
session talking about work, trips, family and plans, with names, places, organisations and
dates spread over two years) through the full ingestion pipeline (``put_many``: extraction,
spaCy parse, entities, coreference, embeddings, temporal and semantic links), until the agent
holds at least N units. Then it times ``search`` (wall clock, including the query embedding,
``reinforce=False``) for a set of generated queries — entity questions, time questions ("last
month", "in May 2024"), topic questions — and prints p50 / p95 / p99 for both systems. After a
build the memory tables are vacuumed and analysed (what autovacuum would do in the next minutes,
competing with the measurement), and the query set is run once untimed, so the numbers are those
of a running server in its steady state (model loaded, the agent's pages in PostgreSQL's shared
buffers), not of the first queries after a start or a bulk load.

Agents are kept in ``--home`` (default ``$TMPDIR/fm-bench-latency``), so a later run with the same home
reuses what was built; building 100,000 units through the full pipeline takes a long time on a
small machine, and the build rate is printed as it goes.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from common import write_report

PEOPLE = ["Alice", "Bob", "Carmen", "Deepak", "Elena", "Farid", "Grace", "Hiro", "Ingrid", "Jamal", "Keiko",
          "Liam", "Maya", "Nikolai", "Olivia", "Pedro", "Quinn", "Rosa", "Samir", "Tara", "Umar", "Vera",
          "Wei", "Ximena", "Yusuf", "Zoe", "Marcus", "Priya", "Tomas", "Leila"]
PLACES = ["Lisbon", "Kyoto", "Nairobi", "Chicago", "Yosemite", "Berlin", "Oaxaca", "Reykjavik", "Seoul",
          "Cape Town", "Vancouver", "Marrakesh", "Edinburgh", "Hanoi", "Patagonia", "Denver", "Sicily"]
ORGS = ["Google", "Acme Robotics", "the city hospital", "Northwind Bank", "Greenleaf School", "Orbital Labs",
        "the public library", "Blue River Bakery", "Helios Energy", "the food bank", "Stellar Games"]
THINGS = ["a pottery class", "a marathon", "a new job", "a camping trip", "a piano recital", "a book club",
          "a charity run", "a painting workshop", "a cooking course", "a hackathon", "a wedding", "a garden"]

TEMPLATES = [
    "{a} started working at {org} as a {role}.",
    "{a} flew to {place} for {thing} with {b}.",
    "{a} told {b} that the trip to {place} was unforgettable.",
    "{a} signed up for {thing} next month.",
    "{a} and {b} had dinner near {place} last weekend.",
    "{a} finally finished {thing} after months of practice.",
    "{a} is worried about the deadline at {org}.",
    "{a} adopted a dog named {pet} from the shelter.",
    "{a} met {b} at {org} to plan {thing}.",
    "{a} gave a talk about climate policy in {place}.",
    "{a} bought a used car to drive to {place}.",
    "{a} volunteers at {org} every Saturday morning.",
    "{a} hopes to move to {place} within two years.",
    "{a} celebrated a birthday with {b} and {c}.",
    "{a} lost the keys to the apartment again.",
    "{a} recommended a novel about {place} to {b}.",
]
ROLES = ["nurse", "software engineer", "teacher", "chef", "designer", "accountant", "pilot", "researcher"]
PETS = ["Biscuit", "Luna", "Pepper", "Max", "Olive", "Rocket"]

QUERY_TEMPLATES = [
    "What does {a} do?",
    "Where did {a} travel with {b}?",
    "When did {a} go to {place}?",
    "Who works at {org}?",
    "What did {a} do last month?",
    "What happened in May 2024?",
    "What is {a} worried about?",
    "Which pets does {a} have?",
    "Who volunteers on weekends?",
    "What hobbies did {a} pick up two years ago?",
]


def _fill(template: str, rng: random.Random) -> str:
    a, b, c = rng.sample(PEOPLE, 3)
    return template.format(a=a, b=b, c=c, org=rng.choice(ORGS), place=rng.choice(PLACES), thing=rng.choice(THINGS),
                           role=rng.choice(ROLES), pet=rng.choice(PETS))


def conversation_turns(rng: random.Random, start: datetime, sessions: int):
    """Turns of generated sessions: ~12 turns each, two speakers, one timestamp per session."""
    when = start
    for s in range(sessions):
        when += timedelta(days=rng.uniform(0.5, 3), hours=rng.uniform(0, 12))
        speakers = rng.sample(PEOPLE, 2)
        for t in range(rng.randint(8, 16)):
            text = " ".join(_fill(rng.choice(TEMPLATES), rng) for _ in range(rng.randint(1, 2)))
            yield {"speaker": speakers[t % 2], "text": text, "timestamp": when.isoformat(),
                   "session_id": f"s{s}", "turn_id": f"s{s}:{t}"}


def build(mem, agent: str, units: int, rng: random.Random, batch: int = 200) -> dict:
    have = start_units = mem.stats(agent).units
    started = time.perf_counter()
    added = 0
    turns = conversation_turns(rng, datetime(2023, 1, 1, tzinfo=timezone.utc) + timedelta(days=have // 40),
                               sessions=10**9)
    while have < units:
        items = [next(turns) for _ in range(batch)]
        mem.put_many(items, agent_id=agent)
        have = mem.stats(agent).units
        added += len(items)
        rate = (have - start_units) / max(time.perf_counter() - started, 1e-9)
        print(f"  {agent}: {have:,} units ({rate:.0f} units/s in this run)", file=sys.stderr)
    if added:
        settle(mem)
    return {"units": have, "build_seconds": round(time.perf_counter() - started, 1), "turns_added": added}


def settle(mem) -> None:
    """After a bulk build, do now what autovacuum would do in the next minutes (mark pages
    all-visible for index-only scans, refresh statistics), so that it does not run during the
    measurement and the numbers are those of a store in its steady state."""
    import psycopg

    from fleet_memory.store.db.planner import TABLES

    with psycopg.connect(mem.db.url, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) " + ", ".join(TABLES))


def percentiles(samples: list[float]) -> dict:
    s = sorted(samples)

    def pick(p: float) -> float:
        return round(s[min(len(s) - 1, int(p * len(s)))] * 1000, 2)

    return {"p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99), "n": len(s)}


def measure(mem, agent: str, queries: list[str], now: datetime) -> dict:
    for q in queries:  # one untimed pass: the model loaded, the agent's pages in shared buffers
        mem.search(agent, q, reinforce=False, now=now)
        mem.search(agent, q, reinforce=False, preset="vector", now=now)
    times: dict[str, list[float]] = {"recall": [], "vector": []}
    for q in queries:
        for name, preset in (("recall", "balanced"), ("vector", "vector")):
            started = time.perf_counter()
            mem.search(agent, q, top_k=10, reinforce=False, preset=preset, now=now)
            times[name].append(time.perf_counter() - started)
    return {name: percentiles(t) for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", default="1000,10000,100000", help="sizes, comma-separated")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--home", default=str(Path(tempfile.gettempdir()) / "fm-bench-latency"))
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    from fleet_memory import Config, FleetMemory
    from fleet_memory.providers import heap

    sizes = [int(n) for n in args.units.split(",")]
    rng = random.Random(args.seed)
    queries = [_fill(rng.choice(QUERY_TEMPLATES), rng) for _ in range(args.queries)]
    report: dict = {"sizes": {}}
    with FleetMemory(Config(home=Path(args.home))) as mem:
        mem.warm_up()
        heap.settle()  # this process is ours: keep the GC off the models, as `serve` does
        for n in sizes:
            agent = f"latency-{n}"
            built = build(mem, agent, n, random.Random(args.seed + n))
            newest = mem.list_units(agent, limit=1, offset=max(0, built["units"] - 1)).units
            now = (newest[0].event_date if newest else datetime.now(timezone.utc)) + timedelta(days=1)
            r = report["sizes"][str(n)] = {**built, **measure(mem, agent, queries, now)}
            print(f"  measured {r['units']:,} units: recall p95 {r['recall']['p95']} ms,"
                  f" vector p95 {r['vector']['p95']} ms", file=sys.stderr)
            write_report(report, args.json)  # after every size, so a long run keeps what it measured
    print("| units | recall p50 / p95 / p99 | vector top-k p50 / p95 / p99 |")
    print("|---|---|---|")
    for n, r in report["sizes"].items():
        print(f"| {r['units']:,} | {r['recall']['p50']} / {r['recall']['p95']} / {r['recall']['p99']} ms"
              f" | {r['vector']['p50']} / {r['vector']['p95']} / {r['vector']['p99']} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
