"""A fleet of agents in one store: recall and plain vector top-k per agent size, against the same
agents alone in an empty store, with put latency while searches run.

    python bench/fleet.py [--agents 1000] [--units 100-5000] [--large 50000,100000]
                                     [--pool 5000] [--queries 60] [--json OUT] [--home DIR]
                                     [--database-url URL]

How the fleet is built (a faithful bulk path, not the pipeline for every unit): a pool of
generated conversations (``bench/latency.py``'s generator: two speakers per session, names,
places, organisations, dates) goes through the FULL ingestion pipeline once, into the agent
``fleet-pool`` (``--pool`` units). Then every fleet agent is a copy of part of that pool made in
SQL by ``bench/fleet_replicate.py``'s ``clone_units``: the same rows the pipeline stored (documents,
units, entities and aliases, mentions, temporal and semantic links, term statistics) under new
ids, starting at a random offset in the pool so agents differ, each embedding with small noise
(±0.01 per dimension); an agent larger than the pool repeats it in blocks shifted later in time.
Agent sizes are log-uniform over ``--units`` (``--agents`` of them) plus the ``--large`` ones.
The fleet-wide GIN index is dropped during the copy and built once after (``fleet_replicate``),
then everything is vacuumed and analysed (the steady state of a running service), and agents of
``store.db.agent_indexes.OWN_INDEX_UNITS`` units or more get their own indexes (``index_agents``, the
maintenance step a service runs), in the fleet and alone alike.

Caveat, stated in the output: every agent derives from one pool, so a large agent's own vector
index holds near-copies of the same vectors — harder for an index than real agents' memories,
never easier.

What is timed: ``memory.search`` wall clock (query embedding included, ``reinforce=False``) with
the ``balanced`` preset (recall) and the ``vector`` preset (plain vector top-k), ``--queries``
generated questions per size class spread over ``--per-class`` agents of that class (small:
under 1,000 units; medium: 1,000 to ``max(--units)``; large: the ``--large`` agents), after one
untimed pass. Per class, the same agents are also built alone in a fresh database of the same
server (the pool is imported there, the agents cloned the same way, the pool deleted), and each
query is timed in the fleet and alone one right after the other (the order alternating), so a
change in the machine's load hits both sides alike. Then the fleet's queries run once more while
a thread puts a generated conversation turn into a random small agent every 0.2 s through the
full pipeline: the "recall p95 while putting" column and the "put while searching" line. The
models are loaded before anything is timed, as ``serve`` loads them before its first request
(runs over a kept ``--home`` put nothing before the putter, whose first put loaded spaCy: the
1.8–2.1 s "p99" of those runs).
Builds are kept in ``--home``: a later run with the same arguments reuses them.

``--database-url`` builds the fleet in that database instead of the embedded server of ``--home``
(the same steps; builds kept there too). On a Citus coordinator (``make test-citus``'s cluster:
``tests/citus/cluster.sh --shell``) the schema is distributed first, as ``fleet-memory db
distribute`` does, before anything is loaded; every clone statement names the pool and one target
agent as parameters (reads routed to the pool's shard, rows inserted through the coordinator into
the target's shard: Citus's INSERT ... SELECT through the coordinator); and the "alone" stores
are schemas of that database, distributed the same way (a database of their own would need the
extensions created on every node), reached through ``search_path`` = that schema and pgvector's,
so pgvector must live in a schema of its own there (the cluster's ``fm_ext``). The database size
is then the sum of the distributed and reference tables over all nodes
(``citus_total_relation_size``).
"""

from __future__ import annotations

import argparse
import io
import math
import random
import sys
import tempfile
import threading
from contextlib import ExitStack, contextmanager
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import write_report  # noqa: E402
from latency import QUERY_TEMPLATES, _fill, build, conversation_turns, percentiles, settle  # noqa: E402

POOL = "fleet-pool"
PREFIX = "fleet-"


def plan_fleet(args, rng: random.Random) -> list[tuple[str, int, int]]:
    """(agent, units, pool offset) for every fleet agent, deterministic for the seed."""
    low, high = (int(x) for x in args.units.split("-"))
    plan = []
    for i in range(args.agents):
        size = int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))
        plan.append((f"{PREFIX}{i:05d}", size, rng.randrange(args.pool)))
    for j, size in enumerate(int(x) for x in args.large.split(",") if x):
        plan.append((f"{PREFIX}large-{j}", size, rng.randrange(args.pool)))
    return plan


def clone_all(url: str, plan: list[tuple[str, int, int]], *, label: str) -> float:
    """Clone every planned agent that is not there yet; returns seconds spent."""
    import psycopg
    from pgvector.psycopg import register_vector

    import fleet_replicate as replicate

    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        have = replicate.unit_counts(conn, PREFIX)
        todo = [p for p in plan if p[0] not in have and p[0] != POOL]
        if not todo:
            return 0.0
        with replicate.deferred_indexes(conn):
            for n, (agent, size, offset) in enumerate(todo, 1):
                with conn.transaction():
                    replicate.clone_units(conn, POOL, agent, size, offset=offset, skip_fk_checks=True)
                if n % 50 == 0 or n == len(todo):
                    print(f"  {label}: cloned {n}/{len(todo)} agents ({time.perf_counter() - started:.0f} s)",
                          file=sys.stderr)
            print(f"  {label}: building the vector and full-text indexes", file=sys.stderr)
    return time.perf_counter() - started


def classes(plan: list[tuple[str, int, int]], args, rng: random.Random) -> dict[str, list[tuple[str, int, int]]]:
    high = int(args.units.split("-")[1])
    groups = {"small": [p for p in plan if p[1] < 1000 and "large" not in p[0]],
              "medium": [p for p in plan if 1000 <= p[1] <= high and "large" not in p[0]],
              "large": [p for p in plan if "large" in p[0]]}
    return {name: rng.sample(group, min(args.per_class, len(group))) for name, group in groups.items() if group}


def time_sides(sides: dict, agents: list[str], queries: list[str]) -> dict:
    """Recall and vector percentiles per side (``{name: (memory, nows)}``): one untimed pass, then
    every query on every side in turn, the sides' order rotating from one query to the next."""
    pairs = [(agents[i % len(agents)], q) for i, q in enumerate(queries)]
    for mem, nows in sides.values():  # untimed pass
        for agent, q in pairs:
            mem.search(agent, q, reinforce=False, now=nows[agent])
            mem.search(agent, q, reinforce=False, preset="vector", now=nows[agent])
    names = list(sides)
    times: dict[str, dict[str, list[float]]] = {n: {"recall": [], "vector": []} for n in names}
    for i, (agent, q) in enumerate(pairs):
        for name in names[i % len(names):] + names[:i % len(names)]:
            mem, nows = sides[name]
            for kind, preset in (("recall", "balanced"), ("vector", "vector")):
                started = time.perf_counter()
                mem.search(agent, q, top_k=10, reinforce=False, preset=preset, now=nows[agent])
                times[name][kind].append(time.perf_counter() - started)
    return {n: {kind: percentiles(t) for kind, t in times[n].items()} for n in names}


class Putter(threading.Thread):
    """Puts a generated turn into a random small agent every 0.2 s until stopped."""

    def __init__(self, mem, agents: list[str], seed: int) -> None:
        super().__init__(daemon=True)
        self.mem, self.agents, self.rng = mem, agents, random.Random(seed)
        self.stop = threading.Event()
        self.times: list[float] = []

    def run(self) -> None:
        # dated from now: a run over a kept --home puts new turns (the same text at the same time
        # is a duplicate, stored once, and answered in milliseconds without the pipeline)
        turns = conversation_turns(self.rng, datetime.now(timezone.utc), sessions=10**9)
        while not self.stop.wait(0.2):
            started = time.perf_counter()
            self.mem.put_many([next(turns)], agent_id=self.rng.choice(self.agents))
            self.times.append(time.perf_counter() - started)


def nows_for(mem, agents: list[str]) -> dict:
    import fleet_replicate as replicate

    with mem.db.transaction() as conn:
        return {a: replicate.latest_event(conn, a) + timedelta(days=1) for a in agents}


def is_citus(url: str) -> bool:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')").fetchone()[0]


def distribute(url: str) -> list[str]:
    """On a Citus coordinator: distribute the (migrated) schema of ``url`` by agent, as ``fleet-memory
    db distribute`` does; nothing elsewhere, nothing for what is distributed already."""
    import psycopg

    from fleet_memory.store.db import distribution

    if not is_citus(url):
        return []
    with psycopg.connect(url, autocommit=True) as conn:
        return distribution.distribute(conn)


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _with_search_path(url: str, *schemas: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-csearch_path={','.join(schemas)}"))
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))


def alone_url(fleet_url: str, name: str) -> str:
    """A fresh store beside the fleet's: a database of the same server, or on a Citus coordinator
    a schema of the fleet's database (searched before pgvector's schema)."""
    import psycopg

    if is_citus(fleet_url):
        with psycopg.connect(fleet_url, autocommit=True) as conn:
            home, ext = conn.execute(
                "SELECT current_schema(), (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n"
                " ON n.oid = e.extnamespace WHERE e.extname = 'vector')").fetchone()
            if ext is None or ext == home:
                raise SystemExit(f"the alone stores on Citus are schemas beside the fleet's ({home}): keep pgvector"
                                 " in a schema of its own (tests/citus/cluster.sh keeps it in fm_ext)")
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
        return _with_search_path(fleet_url, name, ext)
    with psycopg.connect(_with_database(fleet_url, "postgres"), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f"CREATE DATABASE {name}")
    return _with_database(fleet_url, name)


@contextmanager
def alone_store(mem, cls: str, chosen: list[tuple[str, int, int]]):
    """The class's agents alone in a fresh database of the same server (built once, kept)."""
    from fleet_memory import Config, FleetMemory

    url = alone_url(mem.db.url, f"fm_alone_{cls}")
    with FleetMemory(Config(database_url=url), embedder=mem.embedder) as alone:
        distribute(url)  # on Citus, before anything is loaded
        have = {a for a, _, _ in chosen if alone.stats(a).units}
        if len(have) < len(chosen):
            if not alone.stats(POOL).units:
                out = io.StringIO()
                mem.export_agent(POOL, out)
                alone.import_agent(POOL, out.getvalue().splitlines())
            clone_all(url, chosen, label=f"alone/{cls}")
        alone.delete_agent(POOL)
        settle(alone)
        alone.index_agents()  # the same physical design as in the fleet
        yield alone


def server_description(url: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0].split()[0]
        if not is_citus(url):
            return f"PostgreSQL {version}, one server"
        citus, workers, shards = conn.execute(
            "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'citus'),"
            " (SELECT count(*) FROM pg_dist_node WHERE noderole = 'primary' AND groupid > 0),"
            " current_setting('citus.shard_count')").fetchone()
    return f"PostgreSQL {version}, Citus {citus}: a coordinator and {workers} workers, {shards} shards a table"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--units", default="100-5000", help="size range of the fleet's agents, log-uniform")
    parser.add_argument("--large", default="50000,100000", help="sizes of the few large agents ('' for none)")
    parser.add_argument("--pool", type=int, default=5000, help="units ingested through the full pipeline")
    parser.add_argument("--per-class", type=int, default=3)
    parser.add_argument("--queries", type=int, default=60, help="timed queries per size class")
    parser.add_argument("--home", default=str(Path(tempfile.gettempdir()) / "fm-bench-fleet"))
    parser.add_argument("--database-url", help="build the fleet in this database (a Citus coordinator too)"
                                               " instead of the embedded server of --home")
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)

    import psycopg

    from fleet_memory import Config, FleetMemory
    from fleet_memory.providers import heap
    import fleet_replicate as replicate

    rng = random.Random(args.seed)
    report: dict = {"method": "pool ingested through the full pipeline, agents cloned in SQL"
                              " (fleet_replicate.clone_units); one pool: near-duplicate vectors across agents",
                    "args": vars(args), "build": {}, "classes": {}}
    config = Config(home=Path(args.home), database_url=args.database_url)
    with FleetMemory(config) as mem:
        report["server"] = server_description(mem.db.url)
        distribute(mem.db.url)  # on Citus, before anything is loaded
        report["build"]["pool"] = build(mem, POOL, args.pool, random.Random(args.seed))
        plan = plan_fleet(args, rng)
        report["build"]["clone_seconds"] = round(clone_all(mem.db.url, plan, label="fleet"), 1)
        started = time.perf_counter()
        settle(mem)
        report["build"]["vacuum_analyze_seconds"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        report["build"]["own_indexes"] = list(mem.index_agents().built)
        report["build"]["own_index_seconds"] = round(time.perf_counter() - started, 1)
        mem.warm_up()  # as `serve` does before its first request: models loaded, the GC off them
        heap.settle()
        with psycopg.connect(mem.db.url, autocommit=True) as conn:
            report["fleet"] = {"agents": len(plan) + 1, "units": sum(p[1] for p in plan) + args.pool,
                               "database_bytes": replicate.database_bytes(conn)}
        chosen = classes(plan, args, rng)
        qrng = random.Random(args.seed + 1)
        queries = {cls: [_fill(qrng.choice(QUERY_TEMPLATES), qrng) for _ in range(args.queries)] for cls in chosen}
        small = [a for a, size, _ in plan if size < 1000 and all(a != c[0] for g in chosen.values() for c in g)]
        with ExitStack() as stack:
            for cls, group in chosen.items():
                agents = [a for a, _, _ in group]
                alone = stack.enter_context(alone_store(mem, cls, group))
                sides = {"fleet": (mem, nows_for(mem, agents)), "alone": (alone, nows_for(alone, agents))}
                report["classes"][cls] = {"agents": {a: s for a, s, _ in group},
                                          **time_sides(sides, agents, queries[cls])}
                print(f"  {cls}: {report['classes'][cls]}", file=sys.stderr)
        putter = Putter(mem, small[:50] or [POOL], args.seed)
        putter.start()
        for cls, group in chosen.items():
            agents = [a for a, _, _ in group]
            busy = time_sides({"fleet": (mem, nows_for(mem, agents))}, agents, queries[cls])["fleet"]
            report["classes"][cls]["fleet_while_putting"] = busy
        putter.stop.set()
        putter.join()
        report["put_while_searching"] = percentiles(putter.times) if putter.times else None
    print_report(report)
    write_report(report, args.json)
    return 0


def print_report(report: dict) -> None:
    fleet, build_ = report["fleet"], report["build"]
    print(f"fleet: {fleet['agents']:,} agents, {fleet['units']:,} units,"
          f" database {fleet['database_bytes'] / 2**30:.2f} GiB;"
          f" pool through the pipeline {build_['pool']['build_seconds']} s, clone + index {build_['clone_seconds']} s,"
          f" vacuum/analyse {build_['vacuum_analyze_seconds']} s,"
          f" own indexes of {len(build_.get('own_indexes', []))} large agents {build_.get('own_index_seconds', '-')} s")
    print(f"server: {report.get('server', '-')}")
    print(f"method: {report['method']}")
    print("| class | agents (units) | recall p50 / p95 / p99 | vector p50 / p95 / p99 | recall p95 alone"
          " | vector p95 alone | recall p95 fleet/alone | recall/vector p95 | recall p95 while putting |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cls, r in report["classes"].items():
        f, a = r["fleet"], r.get("alone", {})
        sizes = ", ".join(f"{s:,}" for s in r["agents"].values())
        ratio = f"{f['recall']['p95'] / a['recall']['p95']:.2f}×" if a else "-"
        print(f"| {cls} | {len(r['agents'])} ({sizes})"
              f" | {f['recall']['p50']} / {f['recall']['p95']} / {f['recall']['p99']} ms"
              f" | {f['vector']['p50']} / {f['vector']['p95']} / {f['vector']['p99']} ms"
              f" | {a.get('recall', {}).get('p95', '-')} ms | {a.get('vector', {}).get('p95', '-')} ms | {ratio}"
              f" | {f['recall']['p95'] / f['vector']['p95']:.2f}×"
              f" | {r.get('fleet_while_putting', {}).get('recall', {}).get('p95', '-')} ms |")
    put = report.get("put_while_searching")
    if put:
        print(f"put while searching (one turn, full pipeline): p50 {put['p50']} / p95 {put['p95']}"
              f" / p99 {put['p99']} ms (n={put['n']})")


if __name__ == "__main__":
    raise SystemExit(main())
