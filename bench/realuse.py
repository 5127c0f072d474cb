"""Recall as users really use a memory: documentation, a personal assistant's chat, both mixed, and
LongMemEval-style sessions — fleet-memory's default against vector, BM25 and their fusion.

    python bench/realuse.py [--agents docs,assistant,mixed,lme] [--json OUT] [--database-url URL]

The scenario (``bench/data/realuse.toml``, format and paragraph rules in ``realuse_scenario.py``)
is stored into four agents, each put the way an agent would make it live:

- ``docs``: paragraphs of seven documentation and licence texts of installed packages, one ``put``
  per paragraph (``source`` = package/file), dated days before the questions; with
  ``--docs-as-files``, each text whole in one ``put`` (context package/file; Markdown and reST read
  by their parsers, so units carry heading paths; ``--embed-headings N`` sets how many heading
  levels are embedded with a unit's text, ``IngestConfig.embed_headings``);
- ``assistant``: a user's chat messages over a year (16 sessions), one ``put`` per message with its
  own ``event_date`` and ``session_id``;
- ``mixed``: both of the above in one agent, put in time order;
- ``lme``: six user/assistant conversations, one ``put_many`` per session with each turn's speaker.

Before anything is stored, every gold and stale substring is checked to occur in the texts of its
source (the installed texts may change with a package's version); the run stops if one does not.
After storing, a question whose gold is in none of the agent's stored units is listed as
unreachable for every system (ingestion lost or rewrote it).

Each question is asked of each agent holding its source (docs questions in docs and mixed,
assistant questions in assistant and mixed, lme questions in lme), at its ``now``, with
``reinforce=False`` so the order of questions changes nothing. Systems, all in the same run over the
same stored units:

- ``fleet-memory``: ``search(agent, q, top_k=10)`` with the default preset;
- ``vector``: ``preset="vector"`` (cosine similarity alone);
- ``bm25``: bm25s over the agent's stored unit texts (read back from the store), English stop
  words and Snowball stemming (PyStemmer);
- ``bm25+vector``: reciprocal-rank fusion (k = 60) of the top 50 of ``bm25`` and ``vector``.

A result is a hit when its text contains a gold substring (case-insensitive, whitespace and
typographic quotes normalised). Metrics over the top 10: hit@1, hit@5, MRR@10, per agent, per
question kind and overall. ``current-wins``, for questions with a stale value: the share where the
first result containing the current gold ranks above the first containing the stale one (current
missing: a loss; stale missing but current present: a win). Past-state questions (the old value
is the gold) report hit@5 on their own line.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections import defaultdict
from pathlib import Path

import realuse_scenario as scenario_mod
from common import temporary_home, write_report
from realuse_scenario import AGENT_SOURCES, Put, Question, Scenario, normalise

SYSTEMS = ("fleet-memory", "vector", "bm25", "bm25+vector")
DOCS_AS_FILES = False  # --docs-as-files
TOP = 10
DEEP = 50  # depth of the lists that are fused
RRF_K = 60


# storing ---------------------------------------------------------------------------------------
def agent_puts(scenario: Scenario, agent: str) -> list[Put]:
    puts = [p for p in scenario.puts if p.source in AGENT_SOURCES[agent]]
    return sorted(puts, key=lambda p: p.event_date) if len(AGENT_SOURCES[agent]) > 1 else puts


def store(mem, agent_id: str, puts: list[Put]) -> float:
    """Single puts for docs and chat messages; one put_many per LongMemEval session."""
    started = time.perf_counter()
    sessions: dict[str, list[Put]] = defaultdict(list)
    whole: set[str] = set()
    for p in puts:
        if p.source == "lme":
            sessions[p.session].append(p)
        elif p.source == "docs" and DOCS_AS_FILES:
            if p.origin not in whole:  # the whole installed text in one put, read by its parser
                whole.add(p.origin)
                package, file = p.origin.split("/", 1)
                mem.put(agent_id, scenario_mod.doc_text(package, file), event_date=p.event_date, source=p.origin,
                        context=p.origin)
        elif p.source == "docs":
            mem.put(agent_id, p.text, event_date=p.event_date, source=p.origin)
        else:
            mem.put(agent_id, p.text, event_date=p.event_date, session_id=p.session)
    for sid, turns in sessions.items():
        mem.put_many([{"content": t.text, "speaker": t.speaker, "event_date": t.event_date, "session_id": sid}
                      for t in turns], agent_id=agent_id)
    return time.perf_counter() - started


def stored_units(mem, agent_id: str) -> list[tuple[str, str]]:
    """(unit id, text) of every stored unit of the agent, read back page by page, in text order (unit
    ids are random, so BM25's ties would otherwise break differently from run to run)."""
    units, offset = [], 0
    while offset is not None:
        page = mem.list_units(agent_id, limit=1000, offset=offset)
        units += [(str(u.id), u.text) for u in page.units]
        offset = page.next_offset
    return sorted(units, key=lambda unit: unit[1])


# the baselines ---------------------------------------------------------------------------------
class BM25Units:
    """bm25s over the stored unit texts, with English stop words and PyStemmer when installed."""

    def __init__(self, units: list[tuple[str, str]]) -> None:
        import bm25s

        try:
            import Stemmer

            self.stemmer = Stemmer.Stemmer("english")
        except ImportError:  # the dev extra installs it; without it BM25 is weaker, and says so
            self.stemmer = None
            print("realuse: PyStemmer not installed, BM25 runs without stemming", file=sys.stderr)
        self.ids = [uid for uid, _ in units]
        self.retriever = bm25s.BM25()
        tokens = bm25s.tokenize([t for _, t in units], stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.retriever.index(tokens, show_progress=False)

    def search(self, query: str, k: int) -> list[str]:
        import bm25s

        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        docs, scores = self.retriever.retrieve(tokens, k=min(k, len(self.ids)), show_progress=False)
        return [self.ids[i] for i, s in zip(docs[0], scores[0], strict=True) if s > 0]


def fuse(*rankings: list[str], k: int = RRF_K) -> list[str]:
    """Reciprocal-rank fusion: score(u) = sum over rankings of 1 / (k + rank); ties by first seen."""
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, uid in enumerate(ranking, 1):
            score[uid] = score.get(uid, 0.0) + 1.0 / (k + rank)
    return sorted(score, key=lambda u: -score[u])


def rankings(mem, agent_id: str, q: Question, bm25: BM25Units, texts: dict[str, str]) -> dict[str, list[str]]:
    """The top-10 result texts of each system for one question."""
    ours = mem.search(agent_id, q.text, top_k=TOP, reinforce=False, now=q.now)
    plain = mem.search(agent_id, q.text, top_k=DEEP, reinforce=False, now=q.now, preset="vector")
    for r in (*ours, *plain):
        texts.setdefault(str(r.id), r.text)
    vector_ids = [str(r.id) for r in plain]
    bm25_ids = bm25.search(q.text, DEEP)
    ids = {"fleet-memory": [str(r.id) for r in ours], "vector": vector_ids, "bm25": bm25_ids,
           "bm25+vector": fuse(bm25_ids, vector_ids)}
    return {name: [texts[u] for u in ranked[:TOP]] for name, ranked in ids.items()}


# scoring ---------------------------------------------------------------------------------------
def first_rank(texts: list[str], subs: tuple[str, ...]) -> int | None:
    wanted = [normalise(s) for s in subs]
    for rank, text in enumerate(texts, 1):
        norm = normalise(text)
        if any(w in norm for w in wanted):
            return rank
    return None


def score(texts: list[str], q: Question) -> dict:
    rank = first_rank(texts, q.gold)
    row = {"hit@1": float(rank == 1), "hit@5": float(rank is not None and rank <= 5),
           "mrr@10": 1.0 / rank if rank else 0.0}
    if q.stale:
        stale = first_rank(texts, q.stale)
        row["current_wins"] = float(rank is not None and (stale is None or rank < stale))
    return row


def mean(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if key in r]
    return round(sum(values) / len(values), 4) if values else None


def summarise(rows: list[dict]) -> dict:
    out = {k: mean(rows, k) for k in ("hit@1", "hit@5", "mrr@10")}
    out["questions"] = len(rows)
    wins = [r for r in rows if "current_wins" in r]
    if wins:
        out["current_wins"] = mean(wins, "current_wins")
        out["stale_questions"] = len(wins)
    return out


# one agent -------------------------------------------------------------------------------------
def unreachable(units: list[tuple[str, str]], questions: list[Question]) -> list[str]:
    stored = [normalise(t) for _, t in units]
    return [q.id for q in questions
            if not any(normalise(g) in t for g in q.gold for t in stored)]


def run_agent(mem, name: str, scenario: Scenario) -> dict:
    agent_id = f"realuse-{name}"
    mem.delete_agent(agent_id)
    puts = agent_puts(scenario, name)
    seconds = store(mem, agent_id, puts)
    units = stored_units(mem, agent_id)
    questions = [q for q in scenario.questions if q.source in AGENT_SOURCES[name]]
    print(f"{name}: {len(puts)} puts → {len(units)} units in {seconds:.1f}s; asking {len(questions)} questions",
          file=sys.stderr)
    bm25, texts = BM25Units(units), dict(units)
    rows: dict[str, list[dict]] = {s: [] for s in SYSTEMS}
    started = time.perf_counter()
    for q in questions:
        for system, ranked in rankings(mem, agent_id, q, bm25, texts).items():
            top3 = [t[:160] for t in ranked[:3]]
            rows[system].append({"id": q.id, "kind": q.kind, **score(ranked, q), "top3": top3})
    return {"puts": len(puts), "units": len(units), "ingest_s": round(seconds, 1),
            "search_s": round(time.perf_counter() - started, 1),
            "unreachable": unreachable(units, questions), "rows": rows}


def report_of(agents: dict[str, dict]) -> dict:
    """Per agent: overall and per kind for each system; plus every question asked, pooled."""
    out = {"agents": {}, "questions": {}}
    pooled: dict[str, list[dict]] = {s: [] for s in SYSTEMS}
    for name, result in agents.items():
        kinds = sorted({r["kind"] for r in result["rows"][SYSTEMS[0]]})
        per = {s: {"overall": summarise(rows),
                   "kinds": {k: summarise([r for r in rows if r["kind"] == k]) for k in kinds}}
               for s, rows in result["rows"].items()}
        out["agents"][name] = {k: v for k, v in result.items() if k != "rows"} | {"systems": per}
        out["questions"][name] = result["rows"]
        for s in SYSTEMS:
            pooled[s] += result["rows"][s]
    out["overall"] = {s: summarise(rows) for s, rows in pooled.items()}
    return out


# output ----------------------------------------------------------------------------------------
HEADER = ["| {label} (hit@1 / hit@5 / MRR@10) | n | " + " | ".join(SYSTEMS) + " |", "|---|---|" + "---|" * len(SYSTEMS)]


def cell(m: dict) -> str:
    return f"{m['hit@1']:.3f} / {m['hit@5']:.3f} / {m['mrr@10']:.3f}"


def line(label: str, n: int, cells: list[str]) -> str:
    return f"| {label} | {n} | " + " | ".join(cells) + " |"


def extra_lines(per: dict[str, dict], kinds: bool = True) -> list[str]:
    """current-wins and past-state hit@5 rows, where the questions have them."""
    first = per[SYSTEMS[0]]
    out = []
    if "current_wins" in first["overall"]:
        out.append(line("current-wins", first["overall"]["stale_questions"],
                        [f"{per[s]['overall']['current_wins']:.3f}" for s in SYSTEMS]))
    if kinds and "past-state" in first["kinds"]:
        out.append(line("past-state hit@5", first["kinds"]["past-state"]["questions"],
                        [f"{per[s]['kinds']['past-state']['hit@5']:.3f}" for s in SYSTEMS]))
    return out


def agent_table(name: str, agent: dict) -> list[str]:
    per = agent["systems"]
    lines = [f"### {name}: {agent['puts']} puts → {agent['units']} units (ingest {agent['ingest_s']} s)", "",
             HEADER[0].format(label="kind"), HEADER[1]]
    for kind, m in per[SYSTEMS[0]]["kinds"].items():
        lines.append(line(kind, m["questions"], [cell(per[s]["kinds"][kind]) for s in SYSTEMS]))
    overall = per[SYSTEMS[0]]["overall"]
    lines.append(line("**overall**", overall["questions"], [f"**{cell(per[s]['overall'])}**" for s in SYSTEMS]))
    lines += extra_lines(per)
    if agent["unreachable"]:
        lines += ["", "Gold in no stored unit (lost at ingestion, a miss for every system): "
                  + ", ".join(agent["unreachable"])]
    return lines + [""]


def summary_table(report: dict) -> list[str]:
    lines = [HEADER[0].format(label="agent"), HEADER[1]]
    for name, agent in report["agents"].items():
        per = agent["systems"]
        lines.append(line(name, per[SYSTEMS[0]]["overall"]["questions"], [cell(per[s]["overall"]) for s in SYSTEMS]))
    overall = {s: {"overall": m} for s, m in report["overall"].items()}
    lines.append(line("**all questions asked**", report["overall"][SYSTEMS[0]]["questions"],
                      [f"**{cell(report['overall'][s])}**" for s in SYSTEMS]))
    return lines + extra_lines(overall, kinds=False) + [""]


def tables(report: dict) -> str:
    lines = summary_table(report)
    for name, agent in report["agents"].items():
        lines += agent_table(name, agent)
    return "\n".join(lines)


# entry point -----------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", default="docs,assistant,mixed,lme", help="comma-separated subset")
    parser.add_argument("--json", help="write the full report (every question's scores) here")
    parser.add_argument("--database-url", help="a PostgreSQL with pgvector (default: an embedded server in a"
                                               " temporary directory); the bench replaces its agents realuse-*")
    parser.add_argument("--scenario", default=str(scenario_mod.SCENARIO), help="scenario file")
    parser.add_argument("--docs-as-files", action="store_true",
                        help="put each documentation text whole (Markdown/reST read by their parsers, units "
                             "with heading paths) instead of one put per paragraph")
    parser.add_argument("--embed-headings", type=int, default=None,
                        help="IngestConfig.embed_headings: heading levels embedded with a unit's text")
    args = parser.parse_args(argv)
    args.agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    unknown = [a for a in args.agents if a not in AGENT_SOURCES]
    if unknown:
        parser.error(f"--agents: unknown {unknown}; choose from {', '.join(AGENT_SOURCES)}")
    return args


def main(argv: list[str] | None = None) -> int:
    from fleet_memory import Config, FleetMemory

    args = parse_args(argv)
    scenario = scenario_mod.load(Path(args.scenario))
    scenario_mod.check(scenario)
    config = Config(database_url=args.database_url) if args.database_url else Config(home=temporary_home("realuse"))
    global DOCS_AS_FILES
    DOCS_AS_FILES = args.docs_as_files
    if args.embed_headings is not None:
        config = dataclasses.replace(config, ingest=dataclasses.replace(config.ingest,
                                                                          embed_headings=args.embed_headings))
    started = time.perf_counter()
    with FleetMemory(config) as mem:
        agents = {name: run_agent(mem, name, scenario) for name in args.agents}
    report = report_of(agents)
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(tables(report))
    print(f"total {report['seconds']} s", file=sys.stderr)
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
