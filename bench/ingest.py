"""Ingestion speed: the full offline pipeline against its floor, side by side, in one run.

    python bench/ingest.py --data locomo_dev.jsonl [--json OUT] [--conversations N]

Pipeline: every conversation is stored into a fresh agent with ONE ``FleetMemory.put_many`` of its
turns (speaker, text — an image turn's caption appended as "[photo: …]" —, the session's date_time
as timestamp, the dia_id as turn_id), through every stage: filtering, one spaCy parse, NER,
validation, coreference, embedding, entity resolution, temporal and semantic links, in one
transaction. Floor: the same turn texts, embedded in one batch and bulk-inserted (documents +
units, one transaction) with no other stage — the least any pipeline must do. Both use the real
all-MiniLM-L6-v2 and the same embedded PostgreSQL; models are warmed up before timing; the floor
runs first for each conversation, then the pipeline.

Worst put (``--worst-chars N``, default the content limit, 2,000,000 characters; 0 skips it): one
put of N characters of short capitalised fragments ("Kelvo Brashu. Tamri Quen. …"), every one a
new name for NER and entity resolution — the input that held an agent for 14 minutes at 1.5 MB when
resolution compared names pairwise. Printed as seconds per MB with its stage seconds, beside its
floor: spaCy's ``nlp.pipe`` over the same sentences plus one embedder call over the stored unit
texts (the models' work alone). ``--skip-main --worst-chars N`` runs only this line.
``--parse-processes N``: the facade with N parse workers, as the command line and ``serve`` run it
(``ingest.parse_processes``; the floor then parses through them too); 0, the default, is the
library's own parse in this process.

Printed and written (``--json``): turns/s and units/s of the pipeline, seconds per stage (summed
over conversations; parse and embed overlap, so they add up to more than the wall time), the
floor's turns/s, their ratio, and the link rows per unit after ingestion (stored temporal and
semantic links, mean and max per unit; entity links are derived when read). Also the CPU seconds
the pipeline's puts used, in this process and in the embedded PostgreSQL's processes, and the
ratio that a schedule keeping every core busy with that work from start to end would reach: the
most any scheduling of today's work can give.

``--agent-sizes 1000,50000``: also the first conversation's ``put_many`` into agents prefilled to
each size, interleaved over ``--rounds`` rounds (default 5), median units/s and stage seconds for
each (``ingest_scale.agent_sizes``; with ``--home`` the largest agent is built once and reused). ``--long-turns 5``: also LongMemEval-like
long turns (5 LoCoMo turns joined into one, user/assistant), one ``put_many`` per session into one
agent, turns/s (``ingest_scale.long_turns``; each session's floor timed just before it, then the
sessions again, back to back, into a second agent); with ``--long-windows`` also each session put with
its facts in one window and with the default windows, interleaved (``ingest_scale.long_turns_windows``). ``--floor-one-thread``: also a floor that embeds on one
torch thread, as the pipeline's worker does while spaCy parses (on a busy machine one thread is
often faster than two; this separates that from the overlap). On a shared machine only ratios
measured in the same run mean anything (do not run it under ``nice`` there: a niced run, and the
embedded PostgreSQL it starts, can be starved to a few percent of a core).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

from common import write_report
from ingest_scale import agent_sizes, long_turns, long_turns_windows
from locomo_data import load, turn_items


def floor_ingest(mem, agent: str, items: list[dict], threads: int | None = None) -> float:
    """Embedding + bulk insert of the turn texts, nothing else (``threads``: torch threads)."""
    from datetime import datetime, timezone

    from fleet_memory.store.tables import documents as doc_sql
    from fleet_memory.store.tables import units as unit_sql

    started = time.perf_counter()
    texts = [i["text"] for i in items]
    vectors = mem.embedder.embed(texts, threads=threads) if threads else mem.embedder.embed(texts)
    now = datetime.now(timezone.utc)
    docs, units = [], []
    for item, vec in zip(items, vectors):
        when = datetime.fromisoformat(item["timestamp"]).replace(tzinfo=timezone.utc)
        doc_id = uuid.uuid4()
        meta = {"turn_id": item["turn_id"]}
        docs.append(doc_sql.NewDocument(doc_id, agent, item["text"], when, now, speaker=item["speaker"], metadata=meta))
        units.append(unit_sql.NewUnit(uuid.uuid4(), agent, item["text"], vec, when, now, document_id=doc_id,
                                      speaker=item["speaker"], session_id=item["session_id"], metadata=meta))
    with mem.db.transaction() as conn:
        doc_sql.insert_documents(conn, docs)
        unit_sql.insert_units(conn, units)
    return time.perf_counter() - started


def server_processes(mem) -> list:
    """The embedded PostgreSQL's processes (its postmaster and every child): their CPU is the put's
    too. Empty when psutil is missing or the server is not local."""
    try:
        import psutil
    except ImportError:
        return []
    with mem.db.transaction() as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    try:
        postmaster = psutil.Process(pid).parent()
        return [postmaster, *postmaster.children(recursive=True)]
    except psutil.Error:
        return []


def cpu_seconds(processes: list) -> float:
    """User + system CPU of this process and of ``processes`` (a process gone since counts 0)."""
    total = time.process_time()
    if not processes:
        return total
    import psutil

    for proc in processes:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:  # exited: its CPU is no longer readable
            pass
    return total


def worst_content(chars: int) -> str:
    """Short capitalised two-word fragments, distinct and unlike each other, up to ``chars``."""
    import random
    import string

    rng = random.Random(14)
    parts, size = [], 0
    while size < chars:
        words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 7))).title()
                 for _ in range(2)]
        part = " ".join(words) + "."
        parts.append(part)
        size += len(part) + 1
    return " ".join(parts)[:chars]


def worst_put(mem, agent: str, chars: int) -> dict:
    """The put, then its floor: the models' own work on the same input with nothing around it —
    spaCy's ``nlp.pipe`` over the put's sentences (the regex splitter's) and one embedder call
    over the stored unit texts. Above the floor is what the pipeline adds."""
    from fleet_memory.language import split_sentences

    content = worst_content(chars)
    started = time.perf_counter()
    result = mem.put(agent, content)
    seconds = time.perf_counter() - started
    mb = len(content.encode("utf-8")) / 1e6
    sentences = split_sentences(content)
    started = time.perf_counter()
    mem._ingest.nlp.parse(sentences)
    parse_s = time.perf_counter() - started
    started = time.perf_counter()
    mem.embedder.embed([u.text for u in result.units])
    embed_s = time.perf_counter() - started
    return {"chars": len(content), "seconds": seconds, "s_per_mb": seconds / mb, "units": len(result.units),
            "sentences": len(sentences), "stage_seconds": result.stage_seconds,
            "floor": {"parse_s": parse_s, "embed_s": embed_s, "s_per_mb": (parse_s + embed_s) / mb}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--conversations", type=int, default=0, help="only the first N (0: all)")
    parser.add_argument("--home", type=Path, help="embedded database directory (default: a temporary one)")
    parser.add_argument("--worst-chars", type=int, default=2_000_000, help="size of the worst-put line (0: skip)")
    parser.add_argument("--parse-processes", type=int, default=0,
                        help="parse workers of the facade (0: in this process, the library's default)")
    parser.add_argument("--agent-sizes", default="", help="e.g. 1000,50000: put into agents of these sizes")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of --agent-sizes")
    parser.add_argument("--long-turns", type=int, default=0, help="join this many turns into one long turn")
    parser.add_argument("--long-windows", action="store_true",
                        help="with --long-turns: one window against the default windows, interleaved")
    parser.add_argument("--skip-main", action="store_true", help="only the --agent-sizes / --long-turns parts")
    parser.add_argument("--floor-one-thread", action="store_true",
                        help="also a floor that embeds on one torch thread (as the pipeline's worker does)")
    args = parser.parse_args(argv)

    from fleet_memory import Config, FleetMemory
    from fleet_memory.store.linking import links as link_sql
    from fleet_memory.store.tables import units as unit_sql

    convs = load(args.data)
    if args.conversations:
        convs = convs[: args.conversations]
    with tempfile.TemporaryDirectory(prefix="fm-bench-ingest-") as tmp:
        home = args.home or Path(tmp)
        run = uuid.uuid4().hex[:6]
        with FleetMemory(Config(home=home, parse_processes=args.parse_processes)) as mem:
            mem.put_many([{"speaker": "Warm", "text": "Alice warmed up the models in Paris yesterday."}],
                         agent_id=f"warmup-{run}")
            mem.embedder.embed(["warm up the embedder with a second batch"] * 64)
            turns = units = 0
            floor_s = floor1_s = pipe_s = pipe_cpu = 0.0
            server = server_processes(mem)
            stages: dict[str, float] = {}
            agents = []
            for conv in ([] if args.skip_main else convs):
                items = turn_items(conv)
                turns += len(items)
                floor_s += floor_ingest(mem, f"floor-{run}-{conv['conversation_id']}", items)
                if args.floor_one_thread:
                    floor1_s += floor_ingest(mem, f"floor1-{run}-{conv['conversation_id']}", items, threads=1)
                agent = f"pipe-{run}-{conv['conversation_id']}"
                agents.append(agent)
                cpu, started = cpu_seconds(server), time.perf_counter()
                results = mem.put_many(items, agent_id=agent)
                pipe_s += time.perf_counter() - started
                pipe_cpu += cpu_seconds(server) - cpu
                units += sum(len(r.units) for r in results)
                for name, secs in results[0].stage_seconds.items():
                    stages[name] = stages.get(name, 0.0) + secs
                print(f"  {conv['conversation_id']}: {len(items)} turns → {sum(len(r.units) for r in results)} units",
                      file=sys.stderr)
            worst = worst_put(mem, f"worst-{run}", args.worst_chars) if args.worst_chars else None
            sizes = agent_sizes(mem, convs, [int(n) for n in args.agent_sizes.split(",") if n], run,
                                args.rounds)
            long = long_turns(mem, convs, args.long_turns, run, floor_ingest) if args.long_turns else None
            if args.long_turns and args.long_windows:
                long["windows"] = ab = long_turns_windows(mem, convs, args.long_turns, run, floor_ingest)
                print("long turns, one window against windows, interleaved: "
                      + ", ".join(f"{k} {v:.2f} turns/s" for k, v in ab["turns_per_s"].items())
                      + f"; ratio windows / one window {ab['turns_per_s']['windows'] / ab['turns_per_s']['one window']:.2f}")
                for variant, st in ab["stage_seconds"].items():
                    print(f"  {variant}: " + ", ".join(f"{k} {v:.1f}" for k, v in st.items()))
            links: dict[str, dict[str, float]] = {}
            totals = {"units": 0, "entities": 0}
            with mem.db.transaction() as conn:
                for agent in agents:
                    stats = unit_sql.stats(conn, agent)
                    totals["units"] += stats.units
                    totals["entities"] += stats.entities
                    for kind, row in link_sql.degree_stats(conn, agent).items():
                        agg = links.setdefault(kind, {"rows": 0, "max_degree": 0, "units_linked": 0, "_sum": 0.0})
                        agg["rows"] += row["rows"]
                        agg["max_degree"] = max(agg["max_degree"], row["max_degree"])
    _print_scale(sizes, long)
    if args.skip_main:
        _print_worst(worst)
        write_report({"agent_sizes": sizes, "long_turns": long, "worst_put": worst}, args.json)
        return 0
    for kind, agg in links.items():
        agg["rows_per_unit"] = agg["rows"] / max(1, totals["units"])
        agg.pop("_sum")
        agg.pop("units_linked")
    cores = os.cpu_count() or 1
    pipeline = {"turns_per_s": turns / pipe_s, "units_per_s": units / pipe_s, "seconds": pipe_s,
                "turns": turns, "units": units, "stage_seconds": stages, "cpu_seconds": pipe_cpu,
                "all_cores_busy_ratio": floor_s / (pipe_cpu / cores) if pipe_cpu else None}
    floor = {"turns_per_s": turns / floor_s, "seconds": floor_s}
    if floor1_s:
        floor["one_thread"] = {"turns_per_s": turns / floor1_s, "seconds": floor1_s,
                               "ratio": pipeline["turns_per_s"] / (turns / floor1_s)}
    out = {"pipeline": pipeline, "floor": floor, "ratio": pipeline["turns_per_s"] / floor["turns_per_s"],
           "links": links, "entities": totals["entities"], "conversations": len(convs), "worst_put": worst,
           "agent_sizes": sizes, "long_turns": long}

    print(f"{'':<26}{'turns/s':>10}{'units/s':>10}{'seconds':>10}")
    print(f"{'floor (embed + insert)':<26}{floor['turns_per_s']:>10.1f}{'':>10}{floor_s:>10.1f}")
    if floor1_s:
        print(f"{'floor, one torch thread':<26}{turns / floor1_s:>10.1f}{'':>10}{floor1_s:>10.1f}")
    print(f"{'full offline pipeline':<26}{pipeline['turns_per_s']:>10.1f}{pipeline['units_per_s']:>10.1f}{pipe_s:>10.1f}")
    if floor1_s:
        print(f"ratio pipeline / floor on one torch thread: {floor['one_thread']['ratio']:.2f}")
    print(f"ratio pipeline / floor: {out['ratio']:.2f}   ({turns} turns → {units} units, {totals['entities']} entities)")
    print("stage seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))
    if pipe_cpu:
        print(f"pipeline CPU (this process + PostgreSQL): {pipe_cpu:.1f} s = {pipe_cpu / cores:.1f} s on {cores} "
              f"cores kept busy; ratio at that wall time: {pipeline['all_cores_busy_ratio']:.2f}")
    for kind, agg in sorted(links.items()):
        print(f"{kind} links: {agg['rows']} rows, {agg['rows_per_unit']:.2f} per unit, max {agg['max_degree']} on one unit")
    _print_worst(worst)
    write_report(out, args.json)
    return 0


def _print_worst(worst: dict | None) -> None:
    if not worst:
        return
    floor = worst["floor"]
    print(f"worst put: {worst['chars']:,} characters of short capitalised fragments ({worst['sentences']:,} "
          f"sentences) in {worst['seconds']:.1f} s = {worst['s_per_mb']:.1f} s/MB ({worst['units']} units); "
          f"floor (spaCy pipe {floor['parse_s']:.1f} s + embedding {floor['embed_s']:.1f} s) "
          f"{floor['s_per_mb']:.1f} s/MB; ratio {worst['s_per_mb'] / floor['s_per_mb']:.2f}")
    print("  stages: " + ", ".join(f"{k} {v:.1f}" for k, v in worst["stage_seconds"].items()))


def _print_scale(sizes: list[dict], long: dict | None) -> None:
    if sizes:
        print(f"agent sizes, interleaved, medians of {sizes[0]['rounds']} rounds "
              f"({sizes[0]['turns']} turns per put):")
        names = list(sizes[0]["stage_seconds"])
        print(f"{'agent units':>12}{'units/s':>9}{'seconds':>9}{'db s':>7}" + "".join(f"{n[:9]:>10}" for n in names))
        for row in sizes:
            print(f"{row['agent_units'][0]:>12}{row['units_per_s']:>9.1f}{row['seconds']:>9.2f}{row['db_seconds']:>7.2f}"
                  + "".join(f"{row['stage_seconds'].get(n, 0.0):>10.2f}" for n in names)
                  + f"   per round: {row['units_per_s_all']}")
    if len(sizes) > 1:
        print(f"units/s at {sizes[-1]['agent_units'][0]} / at {sizes[0]['agent_units'][0]}: "
              f"{sizes[-1]['units_per_s'] / sizes[0]['units_per_s']:.2f}; database stages "
              f"{sizes[-1]['db_seconds']:.2f} s / {sizes[0]['db_seconds']:.2f} s")
    if long:
        print(f"long turns ({long['chars_per_turn']:.0f} chars each): {long['sessions']} session puts, "
              f"{long['turns']} turns → {long['units']} units, {long['turns_per_s']:.1f} turns/s, "
              f"{long['units_per_s']:.1f} units/s, median {long['median_put_s']:.2f} s per session put; "
              f"floor {long['floor_turns_per_s']:.1f} turns/s, ratio "
              f"{long['turns_per_s'] / long['floor_turns_per_s']:.2f}; back to back (no floor between puts) "
              f"{long['back_to_back_turns_per_s']:.1f} turns/s; stage seconds: "
              + ", ".join(f"{k} {v:.1f}" for k, v in long["stage_seconds"].items()))


if __name__ == "__main__":
    raise SystemExit(main())
