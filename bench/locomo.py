"""Retrieval on LoCoMo: fleet-memory recall against BM25 and plain vector top-k, side by side.

    python bench/locomo.py --data locomo_dev.jsonl [--k 5,10,20] [--json OUT]

For each conversation every turn is stored into a fresh agent through ``FleetMemory.put_many``
(speaker, text, the session's date_time as timestamp, the dia_id as turn_id; an image turn's
caption is appended as "[photo: …]"), then every question is asked with ``reinforce=False`` and
``now`` = one day after the last session. Results (sentence-level units) are mapped to their
source turns (``metadata['turn_id']``), distinct, in rank order, and scored: recall_any@k (at
least one evidence turn in the top k), recall_all@k (every evidence turn), MRR of the first
evidence turn, overall for categories 1–4 and per category (5 reported on its own).

Baselines on the same data in the same run: BM25 over the turns (``bm25s`` with English stop words
and PyStemmer's English stemmer, "speaker: text" without image captions: its strongest honest form) and
plain vector top-k from our own store (the ``vector`` preset: one channel, no walk). Search
latency is wall time of ``search`` including the query embedding (for BM25: its in-memory
retrieve, for reference).

Tuning options (dev split only): ``--home DIR --reuse`` keeps the ingested database between runs;
``--set name=value`` overrides a field of the recall preset. ``--feed session|lines`` stores the turns
as a user would (``locomo_data.batches``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import fields, replace
from datetime import datetime, timedelta
from pathlib import Path

from common import temporary_home, write_report
from locomo_data import FEEDS, batches, load

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def ingest(mem, agent: str, conv: dict, feed: str = "conversation") -> float:
    started = time.perf_counter()
    for items in batches(conv, feed):
        mem.put_many(items, agent_id=agent)
    return time.perf_counter() - started


def distinct_turns(results, limit: int) -> list[str]:
    out: list[str] = []
    for r in results:
        turn = r.metadata.get("turn_id")
        if turn and turn not in out:
            out.append(turn)
            if len(out) >= limit:
                break
    return out


def score_ranking(ranked: list[str], evidence: list[str], ks: list[int]) -> dict:
    ev = set(evidence)
    row = {}
    for k in ks:
        top = set(ranked[:k])
        row[f"recall_any@{k}"] = float(bool(top & ev))
        row[f"recall_all@{k}"] = float(ev <= top)
    rr = 0.0
    for rank, turn in enumerate(ranked, 1):
        if turn in ev:
            rr = 1.0 / rank
            break
    row["mrr"] = rr
    return row


def aggregate(rows: list[dict]) -> dict:
    if not rows:
        return {}
    keys = [k for k in rows[0] if k not in ("category",)]
    out = {k: round(sum(r[k] for r in rows) / len(rows), 4) for k in keys}
    out["questions"] = len(rows)
    return out


def summarise(rows: list[dict], latencies: list[float]) -> dict:
    main = [r for r in rows if r["category"] in (1, 2, 3, 4)]
    per = {str(c): aggregate([r for r in rows if r["category"] == c]) for c in CATEGORIES}
    lat = sorted(latencies)
    out = {"overall": aggregate(main), "per_category": {c: v for c, v in per.items() if v}}
    if lat:
        out["latency_ms"] = {"p50": round(statistics.median(lat) * 1000, 2),
                             "p95": round(lat[min(len(lat) - 1, int(0.95 * len(lat)))] * 1000, 2)}
    return out


class BM25Turns:
    def __init__(self, conv: dict) -> None:
        import bm25s
        import Stemmer  # PyStemmer, in the dev extra

        self.stemmer = Stemmer.Stemmer("english")
        self.ids = [t["dia_id"] for s in conv["sessions"] for t in s["turns"]]
        corpus = [f"{t['speaker']}: {t['text']}" for s in conv["sessions"] for t in s["turns"]]
        self.retriever = bm25s.BM25()
        self.retriever.index(bm25s.tokenize(corpus, stopwords="en", stemmer=self.stemmer, show_progress=False),
                             show_progress=False)

    def search(self, query: str, k: int) -> list[str]:
        import bm25s

        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        k = min(k, len(self.ids))
        docs, _ = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return [self.ids[i] for i in docs[0]]


def settings_from(args) -> object:
    from fleet_memory.recall.presets import get_preset

    cfg = get_preset(args.preset)
    overrides = {}
    types = {f.name: f.type for f in fields(cfg)}
    for item in args.set or []:
        name, _, value = item.partition("=")
        if name not in types:
            raise SystemExit(f"--set: unknown setting {name!r}")
        current = getattr(cfg, name)
        overrides[name] = (value.lower() in ("1", "true", "yes")) if isinstance(current, bool) else type(current)(value)
    return replace(cfg, **overrides) if overrides else cfg


def run(args) -> dict:
    from fleet_memory import Config, FleetMemory
    from fleet_memory.providers import heap

    ks = sorted({int(k) for k in args.k.split(",")})
    deep = max(ks)
    convs = load(Path(args.data))
    if args.conversations:
        convs = convs[: args.conversations]
    settings = settings_from(args)
    home = Path(args.home) if args.home else temporary_home("locomo")  # about 120 MB, removed at exit
    rows = {"fleet-memory": [], "bm25": [], "vector": []}
    lat = {"fleet-memory": [], "bm25": [], "vector": []}
    with FleetMemory(Config(home=home)) as mem:
        mem.warm_up()
        heap.settle()  # this process is ours: keep the GC off the models, as `serve` does
        for conv in convs:
            agent = f"locomo-{conv['conversation_id']}" + ("" if args.feed == "conversation" else f"-{args.feed}")
            have = mem.stats(agent).units
            if have and args.reuse:
                print(f"{conv['conversation_id']}: reusing {have} units", file=sys.stderr)
            else:
                if have:
                    mem.delete_agent(agent)
                seconds = ingest(mem, agent, conv, args.feed)
                print(f"{conv['conversation_id']}: ingested {sum(len(s['turns']) for s in conv['sessions'])} turns"
                      f" → {mem.stats(agent).units} units in {seconds:.1f}s", file=sys.stderr)
            last = max(datetime.fromisoformat(s["date_time"]) for s in conv["sessions"])
            now = last + timedelta(days=1)
            bm25 = BM25Turns(conv)
            for q in conv["questions"]:
                if not q.get("evidence"):
                    continue
                base = {"category": q["category"]}
                started = time.perf_counter()
                found = mem.search(agent, q["question"], top_k=deep * 4, thinking_budget=args.budget,
                                   reinforce=False, preset=settings, now=now)
                lat["fleet-memory"].append(time.perf_counter() - started)
                rows["fleet-memory"].append({**base, **score_ranking(distinct_turns(found, deep), q["evidence"], ks)})
                if args.skip_baselines:
                    continue
                started = time.perf_counter()
                plain = mem.search(agent, q["question"], top_k=deep * 4, reinforce=False, preset="vector", now=now)
                lat["vector"].append(time.perf_counter() - started)
                rows["vector"].append({**base, **score_ranking(distinct_turns(plain, deep), q["evidence"], ks)})
                started = time.perf_counter()
                ranked = bm25.search(q["question"], deep)
                lat["bm25"].append(time.perf_counter() - started)
                rows["bm25"].append({**base, **score_ranking(ranked, q["evidence"], ks)})
    return {"systems": {name: summarise(r, lat.get(name, [])) for name, r in rows.items() if r},
            "settings": {f.name: getattr(settings, f.name) for f in fields(settings)},
            "k": ks, "data": str(args.data), "thinking_budget": args.budget}


def table(report: dict) -> str:
    systems = list(report["systems"])
    ks = report["k"]
    lines = ["| metric (categories 1–4) | " + " | ".join(systems) + " |", "|---|" + "---|" * len(systems)]
    for k in ks:
        cells = [f"{report['systems'][s]['overall'][f'recall_any@{k}']:.3f} / "
                 f"{report['systems'][s]['overall'][f'recall_all@{k}']:.3f}" for s in systems]
        lines.append(f"| R@{k} any / all | " + " | ".join(cells) + " |")
    lines.append("| MRR | " + " | ".join(f"{report['systems'][s]['overall']['mrr']:.3f}" for s in systems) + " |")
    for p in ("p50", "p95"):
        cells = [f"{report['systems'][s]['latency_ms'][p]:.1f} ms" if "latency_ms" in report["systems"][s] else "—"
                 for s in systems]
        lines.append(f"| search latency {p} | " + " | ".join(cells) + " |")
    k = 10 if 10 in ks else ks[len(ks) // 2]
    lines += ["", f"| category (R@{k} any / all, MRR) | n | " + " | ".join(systems) + " |",
              "|---|---|" + "---|" * len(systems)]
    for c, name in CATEGORIES.items():
        per = [report["systems"][s]["per_category"].get(str(c)) for s in systems]
        if not per[0]:
            continue
        cells = [f"{p[f'recall_any@{k}']:.3f} / {p[f'recall_all@{k}']:.3f}, {p['mrr']:.3f}" for p in per]
        lines.append(f"| {c} {name} | {per[0]['questions']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="LoCoMo conversations, one JSON object per line")
    parser.add_argument("--k", default="5,10,20", help="cut-offs, comma-separated")
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--preset", default="balanced")
    parser.add_argument("--set", action="append", help="override a recall setting: name=value")
    parser.add_argument("--budget", type=int, default=100, help="thinking_budget per search")
    parser.add_argument("--home", help="data directory of the embedded database (default: a fresh temp dir)")
    parser.add_argument("--reuse", action="store_true", help="keep agents already ingested in --home")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--skip-baselines", action="store_true", help="score fleet-memory only (for tuning)")
    parser.add_argument("--feed", choices=FEEDS, default="conversation",
                        help="how turns are stored: one put_many per conversation (default), per session,"
                             " or per session as plain 'Speaker: text' lines")
    args = parser.parse_args(argv)
    report = run(args)
    print(table(report))
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
